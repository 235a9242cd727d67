// What is left to build after a run stops (spec 4.15 rule 4: earlier confirmed steps stay on
// chain; build only the remaining work). Planned from the journal alone, so `act` and `resume`
// give the same answer; the builds it offers go through the offline half's checks like any
// other, with `cursorBinId` there to let it check that no range is funded or removed twice.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <airlock/online/clock.h>
#include <airlock/online/journal.h>

namespace airlock::online {

struct Build {
  std::string action;
  nlohmann::json body;
};

struct RemainingWork {
  enum class Kind {
    kNone,    // every step confirmed and no follow-up: nothing is left
    kOffer,   // `builds` is exactly the work left
    kManual,  // something is left, but no build can be derived safely: `why` says what, and
              // `builds`, when any, must be changed before they are run
  };
  Kind kind = Kind::kNone;
  std::vector<Build> builds;
  std::string why;
};

// `steps` are the run's journal rows (any order); the plan looks at its last round. Steps
// still open (sending, pending, unknown) make it kManual: resume must settle them first; so
// does a signed step whose ticket still lives at `now` (unix seconds), as its bytes could land.
// When the work left is the same build again and a step landed and failed, or was refused for
// what it is (not for an expired ticket or the rate limit), the build is only a suggestion
// (kManual): the spec says not to build the same thing again unchanged.
// `boot` is the boot clock now (clock.h): a step's build is as old as build_age says.
[[nodiscard]] RemainingWork plan_remaining(const std::vector<JournalStep>& steps, std::int64_t now,
                                           const std::optional<BootInstant>& boot);

// The command line that performs one build, for the operator to run: the action, its body,
// then `options` (the API, key file, RPC, transport and journal options of the invocation that
// stopped, each value a shell_word), so it runs as printed. Printable ASCII throughout when the
// options are built of shell words: print it as it is (escaping it again for the screen would
// change what the shell reads).
[[nodiscard]] std::string act_command(const Build& build, std::string_view options = {});

// `text` as one shell word that a shell reads back byte for byte and that is printable ASCII
// whatever `text` holds (so it is shown as is, never escaped again for the screen): as it is
// when it holds only safe characters, single-quoted when it is printable ASCII without a
// backslash, else in bash's $'...' quoting with \\xHH for every other byte.
[[nodiscard]] std::string shell_word(std::string_view text);

}  // namespace airlock::online
