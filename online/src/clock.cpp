#include <chrono>
#include <fstream>

#include <time.h>

#include <airlock/online/clock.h>
#include <airlock/online/journal.h>

namespace airlock::online {

std::optional<BootInstant> boot_now() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  if (!std::getline(in, id) || id.size() != 36) return std::nullopt;
  timespec ts{};
  if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0) return std::nullopt;
  return BootInstant{id, static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000};
}

std::int64_t steady_unix_now() {
  using namespace std::chrono;
  static const auto wall_start = system_clock::now();
  static const auto steady_start = steady_clock::now();
  return duration_cast<seconds>(
             (wall_start + (steady_clock::now() - steady_start)).time_since_epoch())
      .count();
}

nlohmann::json boot_record(const BootInstant& at) { return {{"boot", at.boot_id}, {"ms", at.ms}}; }

std::optional<BootInstant> read_boot_record(const nlohmann::json& record) {
  if (!record.is_object() || record.size() != 2 || !record.contains("boot") ||
      !record.contains("ms") || !record["boot"].is_string() || !record["ms"].is_number_integer())
    return std::nullopt;
  const auto ms = record["ms"].get<std::int64_t>();
  if (ms < 0 || (record["ms"].is_number_unsigned() &&
                 record["ms"].get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)))
    return std::nullopt;
  return BootInstant{record["boot"].get<std::string>(), ms};
}

BuildAge build_age(const JournalStep& st, std::int64_t wall_now,
                   const std::optional<BootInstant>& boot) {
  const std::int64_t wall = wall_now - st.built_at;
  std::optional<BootInstant> built;
  if (st.metadata.is_object() && st.metadata.contains("buildBoot"))
    built = read_boot_record(st.metadata["buildBoot"]);
  if (built && boot && built->boot_id == boot->boot_id && boot->ms >= built->ms) {
    const std::int64_t s = (boot->ms - built->ms) / 1000;
    return {s, s, "on this machine's boot clock", true};
  }
  if (built && boot && built->boot_id != boot->boot_id) {
    // Built in an earlier boot: at least this boot's uptime has passed since.
    // At most the wall clock's difference; one shorter than the uptime is a clock behind the
    // truth (negative: chain.h refuses to size the history by it).
    const std::int64_t uptime = boot->ms / 1000;
    return {uptime, wall >= uptime ? wall : wall - uptime,
            "across a restart of this machine: at least its uptime, at most the wall clock's",
            false};
  }
  return {wall, wall, "on the wall clock (the journal has no boot-clock record of the build)",
          false};
}

}  // namespace airlock::online
