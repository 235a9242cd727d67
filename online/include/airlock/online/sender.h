// Sending signed steps and following their receipts, with every change in the journal before
// the next irreversible step; and resuming a run the journal shows unfinished.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <airlock/online/api.h>
#include <airlock/online/chain.h>
#include <airlock/online/clock.h>
#include <airlock/online/journal.h>
#include <airlock/online/round.h>

namespace airlock::online {

// This module's error codes (their kinds and the exit codes: common/error.h). A send that ends
// otherwise than confirmed is not the API's error: it says where the step stands.
namespace errors {
// The step may have been relayed and its outcome is not known yet: nothing is built for its
// action until resume learns it (or the RPC node proves it).
inline constexpr ErrorCode kOutcomeUnknown{ErrorKind::kRefused, "send.outcome_unknown"};
// The step did not happen: refused before relay, failed on chain, expired or abandoned.
inline constexpr ErrorCode kStepFailed{ErrorKind::kRefused, "send.step_failed"};
// The step was sent and its receipt is still pending: resume keeps polling it.
inline constexpr ErrorCode kStillPending{ErrorKind::kRefused, "send.pending"};
}  // namespace errors

struct SendContext {
  ApiClient& client;
  Journal& journal;
  std::function<std::int64_t()> clock;  // unix seconds
  std::function<void(std::chrono::milliseconds)> sleep;
  std::ostream& log;  // progress lines for the operator
  // The boot clock (clock.h): how old a build is, whatever the wall clock says. Empty: none.
  BootClock boot = boot_now;
  // Proves from the chain whether a step that may have been sent can still land (--rpc);
  // without it, such a step stays `sending` once its ticket has expired.
  ChainProver prove = {};
  // The steps come from a journal another process wrote (resume): a step it left `signed` may
  // have been sent in a commit the disk acknowledged and then lost, so once its ticket has
  // died it is taken as maybe sent (`sending`), not as never sent, until the chain proves it.
  bool resumed = false;
};

// The journal rows for a round's signed transactions, in the API's order, status `signed`.
std::vector<JournalStep> steps_of_round(std::int64_t run_id, int round_no, const Round& round,
                                        const std::vector<Transaction>& signed_transactions,
                                        std::int64_t built_at, std::int64_t now,
                                        const std::optional<BootInstant>& build_boot);

enum class RoundEnd {
  kDone,     // every step confirmed
  kRebuild,  // the API refused the first send with InvalidTicket and nothing was sent: build again
};

// Sends the round's steps in order: a step without sendConcurrently alone, a run of them
// together, each group followed to confirmed before the next (spec 4.15). Steps already
// confirmed are skipped; pending or unknown ones are polled, never sent again; a step that may
// have been sent (`sending`) is sent again with the identical bytes while its ticket lives
// (the API answers with the same receipt); after that only the chain's proof (c.prove) moves it:
// to confirmed or failed when it landed, to expired when it never can. Fails, with the journal
// saying why, on any failure, expiry, rejection or a ticket that died before its step was sent.
// What the chain is asked about a journal step at `now`: its signature, its blockhash (or
// durable nonce account) and, when the node measured it at the build, the blockhash's last valid
// block height.
[[nodiscard]] Result<ChainQuestion> chain_question(const JournalStep& step, std::int64_t now,
                                                   const std::optional<BootInstant>& boot);

[[nodiscard]] Result<RoundEnd> send_round(SendContext& c, std::vector<JournalStep>& steps);

struct ResumeOutcome {
  std::string state;  // done, stopped, failed, or open when an outcome is still unknown
  std::string note;
};

// Finishes an open run from the journal: polls what was sent, sends what is signed and still
// valid, never builds. Closes the run (done, stopped with what is left, failed) or leaves it
// open when a step's outcome cannot be learnt yet.
[[nodiscard]] Result<ResumeOutcome> resume_run(SendContext& c, const JournalRun& run);

}  // namespace airlock::online
