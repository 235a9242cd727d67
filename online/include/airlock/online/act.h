// The act loop: build an action, hand the sign request to the offline half, verify its answer,
// send the signed steps and follow them, build each `next` follow-up, and after a stop plan only
// the work left (spec 4.15). The transports (the offline half's channel, the API, the chain),
// the clocks and the operator's answer are injected, so every failure is a unit test; the CLI
// (`airlock-online act`) supplies the real ones.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include <airlock/formats/envelope.h>
#include <airlock/online/api.h>
#include <airlock/online/chain.h>
#include <airlock/online/clock.h>
#include <airlock/online/journal.h>
#include <airlock/online/remaining.h>

namespace airlock::online {

// This module's error codes (their kinds and the exit codes: common/error.h).
namespace errors {
// The offline half answered with a refusal: nothing was signed, nothing is sent.
inline constexpr ErrorCode kOfflineRefused{ErrorKind::kRefused, "act.offline_refused"};
// --max-rounds signing rounds were spent: the run ends `stopped`, its work left planned.
inline constexpr ErrorCode kStopped{ErrorKind::kRefused, "act.stopped"};
// An earlier run or send is still open in the journal: resume before building anything.
inline constexpr ErrorCode kUnfinished{ErrorKind::kRefused, "act.unfinished"};
// --approve-first: no approval came back before its time ran out: nothing was built.
inline constexpr ErrorCode kNotApproved{ErrorKind::kRefused, "act.not_approved"};
}  // namespace errors

// The way to the offline half and back: shows or writes `request`, then waits for the response
// that answers it. nullopt when the request's deadline passed first (the round is built
// again); an error when the request could not be handed over at all.
using Courier =
    std::function<Result<std::optional<envelope::SignResponse>>(const envelope::SignRequest&)>;

enum class RemainingMode {
  kAsk,    // offer to build the work left (ask_remaining decides; without it, only show it)
  kBuild,  // build it without asking
  kShow,   // print the commands that would
};

struct ActOptions {
  std::string api;                 // recorded with each run (no trailing slash)
  std::optional<std::string> rpc;  // lookup tables, the blockhash's life (round.h)
  int max_rounds = 8;              // signing rounds of the whole invocation, however each ends
  RemainingMode remaining = RemainingMode::kAsk;
  // The invocation's API, key file, RPC, transport and journal options, shell-quoted, each
  // after a space: the `act` commands printed for the work left repeat them.
  std::string command_options;
  // --approve-first MANAGER: carry the intent across for approval before anything is built, so
  // the ticket window holds only machine time (docs/approvals.md); the manager is the key the
  // builds will name as fee payer. The approval is asked to hold `approval_seconds`.
  std::optional<PublicKey> approve_first;
  std::int64_t approval_seconds = 1800;
  // --accept-landed: transactions of the manager's the chain shows landed after this journal's
  // newest record that the operator has accounted for (another machine's, another journal's);
  // any other such landing refuses the build (check_chain_behind_journal).
  std::vector<std::string> accepted_landings;
};

struct ActContext {
  ApiClient& client;
  Journal& journal;
  Courier courier;
  std::function<std::int64_t()> clock;  // unix seconds
  std::function<void(std::chrono::milliseconds)> sleep;
  std::ostream& log;  // progress lines for the operator
  // The boot clock (clock.h): recorded with each build, so its age is known whatever the wall
  // clock does. Empty: none (the wall clock alone).
  BootClock boot = boot_now;
  ChainProver prove = {};  // settles a send without receipt once its ticket died (sender.h)
  // Asked, in kAsk mode, whether to build the remaining work; absent: not a terminal, so not
  // asked (and not built).
  std::function<bool()> ask_remaining = {};
};

// The approval request for `action` with `body` (envelope.h): the intent alone, for `manager`,
// asked to hold from `now` for `seconds`. usage.invalid when the body names no vault (or the
// action makes one: vault/initialize cannot be approved before it is built).
[[nodiscard]] Result<envelope::SignRequest> approval_request(const std::string& action,
                                                             const json& body,
                                                             const PublicKey& manager,
                                                             std::int64_t now,
                                                             std::int64_t seconds);

// Performs `action` with `body` and whatever work is left after a stop, within
// options.max_rounds signing rounds. Refuses to build anything while an earlier send's outcome
// is open in the journal. The error is the last stop's (its run closed `failed`, or left open
// for resume when a step may have landed).
[[nodiscard]] Status act(ActContext& c, const ActOptions& options, const std::string& action,
                         const json& body);

// What is left of a run that stopped, planned from the journal and printed to `log` with the
// vault's strategies as the API reads them now and the `act` command for each build.
// `command_options` go after each printed command (ActOptions::command_options).
[[nodiscard]] Result<RemainingWork> plan_after_stop(ApiClient& client, const Journal& journal,
                                                    std::int64_t run_id, const json& body,
                                                    std::int64_t now,
                                                    const std::optional<BootInstant>& boot,
                                                    std::ostream& log,
                                                    std::string_view command_options = {});

// Held by act for its whole run: one act at a time for an API on this machine (however its URL
// is spelt, api_identity) and for a vault (through any API), whatever journal each uses. With
// the registry's lists of what each journal has in flight (Journal::in_flight_elsewhere), two
// acts started together under two journals cannot both see nothing in flight and build the
// same intent. Without a registry folder it holds nothing.
class ActLock {
 public:
  // Takes the locks without waiting; fails naming the holder when another act has one.
  // `intent` (intent_id; empty: none) is locked too: a vault/initialize names no vault, so two
  // acts of it through two names of one API would otherwise both run.
  [[nodiscard]] static Result<ActLock> take(const std::string& api,
                                            const std::optional<std::string>& vault,
                                            const std::string& intent = "");

 private:
  explicit ActLock(std::vector<UniqueFd> fds) : fds_(std::move(fds)) {}
  std::vector<UniqueFd> fds_;
};

}  // namespace airlock::online
