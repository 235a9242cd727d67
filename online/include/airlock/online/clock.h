// The online half's clocks, and how old a build is by them.
//
// The wall clock can be wrong and can jump (NTP, a hand, a virtual machine resumed): a build
// made "ten minutes ago" by a clock that jumped forward may still land, and freeing its intent
// then lands the work twice. So deadlines within a process run on the monotonic clock, and a
// build's age across processes on the kernel's boot clock (CLOCK_BOOTTIME: monotonic, counting
// suspend), recorded with the boot's id at the build. The wall clock is only the fallback for
// a step an older version journalled, and never the proof that a blockhash died.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace airlock::online {

struct JournalStep;  // airlock/online/journal.h

// An instant on the boot clock: the boot it belongs to and the milliseconds since that boot.
struct BootInstant {
  std::string boot_id;  // /proc/sys/kernel/random/boot_id
  std::int64_t ms = 0;  // CLOCK_BOOTTIME
};
using BootClock = std::function<std::optional<BootInstant>()>;

// This machine's boot clock now; nullopt where the kernel gives no boot id.
[[nodiscard]] std::optional<BootInstant> boot_now();

// Unix seconds that neither go back nor jump within this process: the wall clock read at the
// first call, plus the monotonic time since.
[[nodiscard]] std::int64_t steady_unix_now();

// The journal's record of a build instant ({"boot": id, "ms": n}), and its reading back: a
// record that is not exactly that shape reads as none.
[[nodiscard]] nlohmann::json boot_record(const BootInstant& at);
[[nodiscard]] std::optional<BootInstant> read_boot_record(const nlohmann::json& record);

// How old a step's build is: `at_least` never more than the truth (what may prove a blockhash
// or ticket dead), `at_most` never less where it can be known (what sizes the chain history
// asked for), and how it was measured, for the operator.
struct BuildAge {
  std::int64_t at_least = 0;
  std::int64_t at_most = 0;
  std::string measured_by;
  bool exact = false;  // on the boot clock, in this boot: now less it is a reading of its own
};

// On the boot clock when the build was recorded in this boot; after a reboot at least this
// boot's uptime (the build came before it) and at most the wall clocks' difference (negative
// when that is shorter than the uptime: the wall clock is behind); for a step with no boot
// record, the wall clocks' difference both ways.
[[nodiscard]] BuildAge build_age(const JournalStep& st, std::int64_t wall_now,
                                 const std::optional<BootInstant>& boot);

}  // namespace airlock::online
