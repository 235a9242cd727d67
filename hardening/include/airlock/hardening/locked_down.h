// The lock-down order as a type (docs/threat-model.md, "Process lock-down").
#pragma once

#include <airlock/common/error.h>

namespace airlock::hardening {

class LockedDown;
Result<LockedDown> install_syscall_allowlist();

// Proof that this process runs under the system-call allowlist: only a successful
// install_syscall_allowlist() makes one. What opens an existing keystore (its key, its seed, a
// change of its passphrase) takes one, so a command that would open the key before locking
// itself down does not compile.
class LockedDown {
 public:
  LockedDown(const LockedDown&) = delete;
  LockedDown& operator=(const LockedDown&) = delete;
  LockedDown(LockedDown&&) noexcept = default;
  LockedDown& operator=(LockedDown&&) noexcept = default;
  ~LockedDown() = default;

 private:
  LockedDown() = default;
  friend Result<LockedDown> install_syscall_allowlist();
  // The tests and benchmarks run the signing path inside their own process, which they cannot
  // lock down; tests/support/locked_down.cpp defines this for them alone. Product code has no
  // definition of it.
  friend struct UnlockedForTests;
};

}  // namespace airlock::hardening
