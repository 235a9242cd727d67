// Process lock-down for the offline half (docs/threat-model.md, "Process lock-down").
//
// Three layers, applied in this order by airlock-offline:
//   1. lock_down_process(): no core dumps, not dumpable, no new privileges, memory locked where
//      the limit allows. Cheap and harmless, so every command gets it.
//   2. check_network(): refuses to continue while a non-loopback interface is up, unless the
//      operator passed the override, which is then reported loudly.
//   3. install_syscall_allowlist(): a seccomp filter that kills the process on any system call
//      outside a fixed list. Sockets, exec, ptrace and the rest of the kernel's network and
//      process-control surface are not on it.
#pragma once

#include <string>
#include <vector>

#include <airlock/common/error.h>
#include <airlock/hardening/locked_down.h>

namespace airlock::hardening {

// This module's error codes (their kinds and the exit codes: common/error.h).
namespace errors {
// A non-loopback interface is up where the offline half runs.
inline constexpr ErrorCode kNetworkUp{ErrorKind::kRefused, "hardening.network_up"};
// A lock-down step (rlimit, prctl, seccomp) failed: nothing was decided.
inline constexpr ErrorCode kLockdown{ErrorKind::kIo, "hardening.lockdown"};
}  // namespace errors

// What lock_down_process() did. Every step but memory locking is required; memory locking
// depends on RLIMIT_MEMLOCK, so it reports instead of failing.
struct ProcessReport {
  bool memory_locked = false;
  std::string memory_note;  // why memory is not locked as a whole, for the operator
};

// RLIMIT_CORE 0, PR_SET_DUMPABLE 0, PR_SET_NO_NEW_PRIVS 1, then mlockall when the locked-memory
// limit is unlimited or at least kMinimumMemlockBytes (the 256 MiB Argon2id area plus the
// program). Secrets are in sodium_malloc memory either way, which locks its own pages.
Result<ProcessReport> lock_down_process();

inline constexpr unsigned long long kMinimumMemlockBytes = 1ULL << 30;

struct NetworkInterface {
  std::string name;
  bool up = false;        // IFF_UP in the interface's flags
  bool loopback = false;  // IFF_LOOPBACK, or the loopback link type
};

// The interfaces the kernel lists under `sysfs_net` (normally /sys/class/net). Reading sysfs
// needs no socket, so this works under the syscall allowlist and keeps the executable free of
// network symbols.
Result<std::vector<NetworkInterface>> list_interfaces(const std::string& sysfs_net);

// kNetworkUp naming every non-loopback interface that is up, or ok when there is none.
Status refuse_network(const std::vector<NetworkInterface>& interfaces);

// The system calls install_syscall_allowlist() permits, by name, for the documentation and the
// tests. Sanitizer builds add the calls their run-time needs (listed separately).
std::vector<std::string> allowed_syscalls();
std::vector<std::string> sanitizer_extra_syscalls();

// Installs the allowlist filter on the calling thread's process (PR_SET_NO_NEW_PRIVS must be
// set, which lock_down_process() does). Anything else is answered with SIGSYS, which kills the
// whole process. Irreversible. Its proof is the token that opening a keystore takes.
Result<LockedDown> install_syscall_allowlist();

}  // namespace airlock::hardening
