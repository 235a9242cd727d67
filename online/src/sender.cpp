#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <optional>
#include <span>
#include <string_view>

#include <airlock/common/accounts.h>
#include <airlock/common/bytes.h>
#include <airlock/common/display.h>
#include <airlock/common/transaction.h>
#include <airlock/formats/json_fields.h>
#include <airlock/online/api.h>
#include <airlock/online/sender.h>

namespace airlock::online {
namespace {

namespace ss = step_status;

bool is(const JournalStep& st, const char* status) { return st.status == status; }

Status record(SendContext& c, JournalStep& st, std::string_view status) {
  st.status = status;
  st.updated_at = c.clock();
  return c.journal.update_step(st);
}

// How long before a ticket dies a send is no longer tried, and the spacing of resends.
constexpr std::int64_t kResendSeconds = 2;

// The one message of every 422 (spec part 8).
constexpr std::string_view kPreflightMessage =
    "Transaction rejected during simulation or preflight";

// Whether the API's last word on a step was its preflight refusing the request itself (a 422
// other than SendFailed): once the chain proves the bytes never land, the step is `rejected`
// with that code, so the same request is not offered again unchanged (remaining.cpp).
bool preflight_refused(const JournalStep& st) {
  return st.message == kPreflightMessage && !st.code.empty() && st.code != "SendFailed";
}

// Answers the spec gives from the API's own checks, before it relays anything (4.12: the
// ticket, key, message, fee payer and signature checks give 403, preflight gives 422 "and
// nothing is sent"; validation 400, 401, 404, 413; 429 is the rate limit, before the request
// is handled at all). Anything else — no answer, 5xx, a gateway's 504 — may come after the
// relay.
bool refused_before_relay(const ApiFailure& f) {
  const int http = f.status;
  // A 429 is the rate limit before the request is handled only as the limit says it: the API's
  // `RateLimited`, or the edge proxy's own reply without the envelope. Any other 429 proves
  // nothing.
  if (http == 429) return f.code == "RateLimited" || f.code == "HTTP429";
  // A 403 only with one of the check codes the spec gives it, a 422 only with its one message
  // and a code no other status owns: a 403 or 422 `Internal` (an attacker review's API relayed,
  // then answered so, and the intent landed twice) is no word that nothing was sent.
  if (http == 403) {
    return f.code == "Forbidden" || f.code == "Denied" || f.code == "InvalidTicket" ||
           f.code == "InvalidTransaction" || f.code == "InvalidSignature";
  }
  if (http == 422) {
    static constexpr std::array<std::string_view, 19> kOtherStatuses = {"Validation",
                                                                        "Unauthorized",
                                                                        "Forbidden",
                                                                        "Denied",
                                                                        "InvalidTicket",
                                                                        "InvalidTransaction",
                                                                        "InvalidSignature",
                                                                        "NotFound",
                                                                        "BodyTooLarge",
                                                                        "RateLimited",
                                                                        "Internal",
                                                                        "BuildFailed",
                                                                        "AggregatorQuoteFailed",
                                                                        "AggregatorSwapFailed",
                                                                        "PerpApi",
                                                                        "PerpUnavailable",
                                                                        "DlmmUnavailable",
                                                                        "RpcUnavailable",
                                                                        "ApiUnavailable"};
    // SendFailed says the send itself failed, which may come after the transaction reached a
    // leader (the classic sendTransaction error): no word that nothing was sent.
    return f.message == kPreflightMessage && !f.code.empty() && f.code != "SendFailed" &&
           std::find(kOtherStatuses.begin(), kOtherStatuses.end(), f.code) == kOtherStatuses.end();
  }
  return http == 400 || http == 401 || http == 404 || http == 413;
}

std::string step_name(const JournalStep& st, std::size_t total) {
  return "step " + std::to_string(st.step) + " of " + std::to_string(total);
}

// The seconds the step's ticket may still live: from its build's age at least (clock.h), so a
// wall clock that jumped forward does not call a live ticket dead.
std::int64_t ticket_left(SendContext& c, const JournalStep& st) {
  return kTicketSeconds - build_age(st, c.clock(), c.boot ? c.boot() : std::nullopt).at_least;
}

// What the chain is asked about a step: its signature, its blockhash (or durable nonce) and,
// when the node measured it at the build, the blockhash's last valid block height.
Result<ChainQuestion> question_for(SendContext& c, const JournalStep& st) {
  return chain_question(st, c.clock(), c.boot ? c.boot() : std::nullopt);
}

}  // namespace

Result<ChainQuestion> chain_question(const JournalStep& st, std::int64_t now,
                                     const std::optional<BootInstant>& boot) {
  AIRLOCK_TRY(wire, from_base64(st.transaction, kMaxTransactionBytes));
  AIRLOCK_TRY(tx, parse_transaction(wire));
  ChainQuestion q;
  q.signature = st.signature;
  q.blockhash = to_base58(tx.message.recent_blockhash);
  const BuildAge age = build_age(st, now, boot);
  q.elapsed_seconds = age.at_least;
  q.history_seconds = age.at_most;
  q.age_measured_by = age.measured_by;
  // The latest the build can have been, as a wall-clock time: its recorded time, or now less
  // its age at least when that is later (a wall clock that was behind at the build, set right
  // since, would otherwise let a node stalled before the build look 180 s past it), or the
  // API's clock at the build when later still (this machine's clock behind then and now alike,
  // found by an independent fault review: a node stalled just before the build proved a landed
  // send dead). Only ever later: an API clock behind proves nothing, one ahead asks for more.
  q.built_unix = std::max<std::int64_t>(st.built_at, now - age.at_least);
  if (auto nonce = durable_nonce(tx.message)) q.nonce_account = nonce->nonce_account;
  if (st.metadata.is_object()) {
    const auto unsigned_at = [&](const char* name) -> std::optional<std::uint64_t> {
      if (!st.metadata.contains(name) || !st.metadata[name].is_number_unsigned())
        return std::nullopt;
      return st.metadata[name].get<std::uint64_t>();
    };
    // The API's clock moves the build later by at most ten minutes: one far ahead (an API that
    // lies, or is simply wrong) would otherwise hold the step open for as long as it is wrong
    // (found by an independent fault review: a day ahead, a day open). A clock of this machine
    // more than ten minutes behind at the build is left as that much uncorrected.
    // And the other way (a second fault review): this machine's clock a year ahead at the build,
    // then set right, held the step open a year. Where the boot clock places the build (now less
    // its age, in this boot) and the API's clock agree within those ten minutes, and the
    // recorded time is later than both by more, the recorded time was the wrong one.
    constexpr std::int64_t kMostApiCorrection = 600;
    if (st.metadata.contains("apiBuildDate") && st.metadata["apiBuildDate"].is_number_integer()) {
      const std::int64_t api = st.metadata["apiBuildDate"].get<std::int64_t>();
      const std::int64_t by_boot = now - age.at_least;
      const bool boot_and_api_agree = age.exact && std::llabs(by_boot - api) <= kMostApiCorrection;
      if (boot_and_api_agree && st.built_at > std::max(by_boot, api) + kMostApiCorrection)
        q.built_unix = std::max(by_boot, api);
      else
        q.built_unix = std::max(q.built_unix, std::min(api, q.built_unix + kMostApiCorrection));
    }
    q.last_valid_block_height = unsigned_at("lastValidBlockHeight");
    q.build_slot = unsigned_at("nodeBuildSlot");
    if (st.metadata.contains("nodeGenesisHash") && st.metadata["nodeGenesisHash"].is_string())
      q.genesis_hash = st.metadata["nodeGenesisHash"].get<std::string>();
  }
  return q;
}

namespace {

Result<bool> prove_outcome(SendContext& c, JournalStep& st, std::size_t total,
                           const std::string& why);

// The status a step takes once the chain has settled it (any proof but kMayLand), after the API
// said `status` with `code`: a landing confirmed; a landed failure failed, with the API's code when
// it said failed, else FailedOnChain; a transaction proven never to land expired, with code
// BlockhashExpired (the API's code stays in the message).
void take_proof(ChainProof::Outcome outcome, std::string& status, std::string& code) {
  switch (outcome) {
    case ChainProof::Outcome::kLanded:
      status = ss::kConfirmed;
      break;
    case ChainProof::Outcome::kLandedFailed:
      if (status != ss::kFailed || code.empty()) code = "FailedOnChain";
      status = ss::kFailed;
      break;
    case ChainProof::Outcome::kNeverLands:
      // Never on chain and never can be: nothing of it happened, whatever code the API gave
      // (kept in the message), as when the chain settles a step the API forgot.
      status = ss::kExpired;
      code = "BlockhashExpired";
      break;
    case ChainProof::Outcome::kMayLand:
      break;
  }
}

// The API's `expired` held against the chain: it frees the intent only with a node's proof that
// the transaction never landed and never can (`status` then stays expired, with what each said
// in `message`), or becomes what the chain shows landed; short of that, an error: the step stays
// open.
Status prove_expired(SendContext& c, const JournalStep& st, std::size_t total, std::string& status,
                     std::string& code, std::string& message) {
  // `expired` frees the intent for a new build, so the chain must agree first: a status
  // endpoint that says so too early (a second after the send, or about a step that landed)
  // would get the intent done twice. Without a node nothing proves it: the step stays open.
  if (!c.prove) {
    return Error(online::errors::kOutcomeUnknown,
                 "status of " + step_name(st, total) +
                     ": the API says expired, but only a Solana RPC node can prove the "
                     "transaction never landed and never can (its blockhash past its last "
                     "valid height, the signature absent from a node that keeps history); it "
                     "stays open: run airlock-online resume --rpc URL");
  }
  AIRLOCK_TRY(question, question_for(c, st));
  auto proof = c.prove(question);
  if (!proof.ok() || proof->outcome == ChainProof::Outcome::kMayLand) {
    return Error(online::errors::kOutcomeUnknown,
                 "status of " + step_name(st, total) +
                     ": the API says expired, but the RPC node does not show that it can "
                     "never land (" +
                     (proof.ok() ? proof->detail : proof.error().message()) +
                     "); it stays open: run airlock-online resume --rpc URL later");
  }
  message = "the API: expired; the RPC node: " + proof->detail;
  take_proof(proof->outcome, status, code);
  return {};
}

// The API's `failed` with no node to hold it against: the API is not trusted to free an
// intent (design §1), so the step stays open and the error says what each would take.
Status failed_unproven(const JournalStep& st, std::size_t total, const std::string& code,
                       const std::string& message) {
  return Error(online::errors::kOutcomeUnknown,
               "status of " + step_name(st, total) + ": the API says failed" +
                   (code.empty() ? std::string() : " (" + printable(code) + ")") +
                   (message.empty() ? std::string() : ": " + printable(message)) +
                   "; only a Solana RPC node can prove it landed and failed rather than landed "
                   "or still able to land, so nothing is built for this action again until "
                   "one does: run airlock-online resume --rpc URL");
}

// The API's `failed` or `confirmed` held against the chain (a node is given): the status the
// step takes, in `status`, `code` and `message`, when the chain settles it; false to poll again
// while `may_wait` (the node does not show it yet). Past the give-up, either word the chain does
// not show leaves the step open (outcome.unknown): with a node at hand, landing is the chain's
// to say.
Result<bool> settle_with_chain(SendContext& c, const JournalStep& st, std::size_t total,
                               bool may_wait, std::string& status, std::string& code,
                               std::string& message) {
  AIRLOCK_TRY(question, question_for(c, st));
  auto proof = c.prove(question);
  const std::string said = "the API: " + status + (code.empty() ? "" : " (" + code + ")");
  if (!proof.ok() || proof->outcome == ChainProof::Outcome::kMayLand) {
    const std::string why = proof.ok() ? proof->detail : proof.error().message();
    if (may_wait) return false;
    // Past the give-up, neither word is taken against a node that cannot show it: an API
    // `confirmed` the chain does not show may be a lie (the manager would read "done" while
    // nothing landed), an API `failed` may still land. The step stays open for the chain.
    return Error(online::errors::kOutcomeUnknown,
                 "status of " + step_name(st, total) + ": the API says " + status +
                     ", but the RPC node does not show it on chain (" + why + "); " +
                     (status == ss::kConfirmed ? "it is not counted as landed until the chain "
                                                 "shows it"
                                               : "it may still land") +
                     ", so it stays open: run airlock-online resume --rpc URL later");
  }
  message = said + "; the RPC node: " + proof->detail;
  take_proof(proof->outcome, status, code);
  return true;
}

// Polls the step's receipt every 2 s (the spec's floor) until it leaves pending/unknown,
// recording each change. A receipt the API no longer knows (404: past its retention, or
// another key's after a rotation) is settled by the chain, or left open for it.
Status follow(SendContext& c, JournalStep& st, std::size_t total) {
  const std::int64_t give_up_at = c.clock() + 120;
  for (;;) {
    auto polled = c.client.status(st.receipt);
    // No answer, or the service busy: the receipt is still there; poll again until give-up.
    const bool transient =
        !polled.ok() || (polled->failure && (polled->status == 429 || polled->status >= 500));
    if (transient && c.clock() <= give_up_at) {
      c.log << "airlock-online: status of " << step_name(st, total) << ": "
            << (polled.ok() ? "HTTP " + std::to_string(polled->status)
                            : printable(polled.error().message()))
            << "; polling again\n";
      c.sleep(std::chrono::seconds(2));
      continue;
    }
    AIRLOCK_TRY(reply, std::move(polled));
    if (reply.failure && reply.status == 404) {
      AIRLOCK_TRY(landed, prove_outcome(c, st, total,
                                        "the API no longer knows its receipt " + st.receipt +
                                            " (404: past its retention, or another key's)"));
      (void)landed;
      return {};
    }
    if (reply.failure) return api_error("status of " + step_name(st, total), reply);
    std::string status = json_fields::text(reply.body, "status");
    if (!ss::is_receipt_status(status)) {
      return Error(online::errors::kHttp, "status of " + step_name(st, total) + ": '" + status +
                                              "' is not a receipt status the spec names");
    }
    std::string code = json_fields::text(reply.body, "code");
    std::string message = json_fields::text(reply.body, "message");
    if (status == ss::kExpired) AIRLOCK_CHECK(prove_expired(c, st, total, status, code, message));
    // `failed` frees the intent too, and `confirmed` ends it: the chain must agree with a
    // `failed` (an API that says failed about a landing, or about a transaction still able to
    // land, would get the intent done twice). Without a node nothing proves it: the step stays
    // open, as for `expired`. A `confirmed` the API says with no node at hand is kept: believing
    // it can only leave work undone, never do it twice; with a node, the chain must show it.
    if (status == ss::kFailed && !c.prove) AIRLOCK_CHECK(failed_unproven(st, total, code, message));
    if ((status == ss::kFailed || status == ss::kConfirmed) && c.prove) {
      AIRLOCK_TRY(settled,
                  settle_with_chain(c, st, total, c.clock() <= give_up_at, status, code, message));
      if (!settled) {  // the node does not show the failure yet: asked again at the next poll
        c.sleep(std::chrono::seconds(2));
        continue;
      }
    }
    // A poll never turns a step back to `unknown`: that is a send result, not a receipt state.
    if (status != st.status && status != ss::kUnknown) {
      st.code = code;
      st.message = message;
      AIRLOCK_CHECK(record(c, st, status));
    }
    if (status == ss::kConfirmed || status == ss::kFailed || status == ss::kExpired) return {};
    if (c.clock() > give_up_at) {
      return Error(online::errors::kStillPending,
                   step_name(st, total) + " (receipt " + st.receipt + ") is still " + status +
                       "; run airlock-online resume to keep polling it");
    }
    c.sleep(std::chrono::seconds(2));
  }
}

// A step that may have been sent, whose outcome the API cannot tell (no receipt recorded and
// its ticket expired, or a receipt the API no longer knows): only the chain can tell now.
// Returns true when it landed without error (recorded confirmed); an error for every other
// case, with the step recorded failed or expired when the chain proves it, and left as it was
// otherwise. `why` says why the API cannot tell.
Result<bool> prove_outcome(SendContext& c, JournalStep& st, std::size_t total,
                           const std::string& why) {
  const std::string unknown =
      step_name(st, total) + " may have been sent (signature " + st.signature + ") but " + why;
  if (!c.prove) {
    return Error(online::errors::kOutcomeUnknown,
                 unknown +
                     "; nothing is built for this action until the chain "
                     "shows its outcome: run airlock-online resume --rpc URL");
  }
  AIRLOCK_TRY(question, question_for(c, st));
  auto proof = c.prove(question);
  if (!proof.ok()) {
    return Error(online::errors::kOutcomeUnknown,
                 unknown + "; the RPC node could not prove its outcome (" +
                     proof.error().message() + "), so it stays open");
  }
  const bool refused = preflight_refused(st);
  st.message = "the RPC node: " + proof->detail;
  switch (proof->outcome) {
    case ChainProof::Outcome::kLanded:
      AIRLOCK_CHECK(record(c, st, ss::kConfirmed));
      AIRLOCK_CHECK(
          c.journal.event(st.run_id, "proof", step_name(st, total) + ": " + st.message, c.clock()));
      c.log << "airlock-online: " << step_name(st, total) << " confirmed: " << printable(st.message)
            << "\n";
      return true;
    case ChainProof::Outcome::kLandedFailed:
      st.code = "FailedOnChain";
      AIRLOCK_CHECK(record(c, st, ss::kFailed));
      AIRLOCK_CHECK(
          c.journal.event(st.run_id, "proof", step_name(st, total) + ": " + st.message, c.clock()));
      return Error(online::errors::kStepFailed,
                   step_name(st, total) + " failed: " + st.message +
                       "; read the current state before building the rest");
    case ChainProof::Outcome::kNeverLands:
      if (refused)
        st.message = "preflight refused it (" + st.code + "); " + st.message;
      else
        st.code = "BlockhashExpired";
      AIRLOCK_CHECK(record(c, st, refused ? ss::kRejected : ss::kExpired));
      AIRLOCK_CHECK(
          c.journal.event(st.run_id, "proof", step_name(st, total) + ": " + st.message, c.clock()));
      return Error(online::errors::kStepFailed, step_name(st, total) +
                                                    " never landed and never can: " + st.message +
                                                    "; read the current state and build the "
                                                    "remaining work");
    case ChainProof::Outcome::kMayLand:
      break;
  }
  return Error(online::errors::kOutcomeUnknown, unknown + "; " + st.message +
                                                    ", so it may still land: run "
                                                    "airlock-online resume --rpc URL again later");
}

// What sending one step came to, when it did not end the round with an error.
enum class StepSend {
  kOnItsWay,  // sent now, or earlier (a receipt to follow), or proven landed
  kRebuild,   // the ticket died before anything was accepted: the round is built again
};

// Sends the step's signed bytes and, while the rate limit or a possibly relayed attempt leaves
// the question open and the ticket lives, the identical bytes again. `maybe_relayed` says
// whether any attempt may have reached the chain; a refusal after that proves nothing.
Result<Reply> send_identical_bytes(SendContext& c, JournalStep& st, std::size_t total,
                                   bool& maybe_relayed) {
  Result<Reply> sent = c.client.send(st.transaction, st.ticket, st.submit);
  for (;;) {
    const int http = sent.ok() && sent->failure ? sent->failure->status : 0;
    if (sent.ok() && !sent->failure) break;
    const bool before_relay = sent.ok() && refused_before_relay(*sent->failure);
    // The rate limit is waited out with the identical bytes; other refusals of a first
    // attempt end it.
    if (before_relay && !maybe_relayed && http != 429) break;
    // After an attempt that may have been relayed, the API's word that the ticket is dead ends
    // the resends, whatever this clock says of the ticket: the identical bytes cannot go through
    // it again, and the step stays `sending` for the chain to settle.
    if (maybe_relayed && sent.ok() && sent->failure->code == "InvalidTicket") {
      st.code = sent->failure->code;
      st.message = sent->failure->message;
      AIRLOCK_CHECK(record(c, st, ss::kSending));
      c.log << "airlock-online: " << step_name(st, total) << ": HTTP " << http
            << " InvalidTicket to the identical bytes: the ticket is dead, so no more are sent; "
               "an earlier attempt may have been relayed\n";
      break;
    }
    if (!before_relay) maybe_relayed = true;
    st.code = sent.ok() ? sent->failure->code : "NoAnswer";
    st.message = sent.ok() ? sent->failure->message : sent.error().message();
    AIRLOCK_CHECK(record(c, st, ss::kSending));
    // The identical signed bytes may go again while the ticket lives: the API answers a
    // relayed transaction with its receipt, and nothing can land twice.
    // Never sooner than the service's Retry-After; never past the ticket.
    std::int64_t wait = kResendSeconds;
    if (sent.ok() && sent->retry_after)
      wait = std::max<std::int64_t>(wait, sent->retry_after->count());
    if (ticket_left(c, st) <= wait) break;
    c.log << "airlock-online: " << step_name(st, total) << ": "
          << (sent.ok() ? "HTTP " + std::to_string(http) + " " + printable(st.code)
                        : printable(st.message))
          << "; sending the identical bytes again\n";
    c.sleep(std::chrono::seconds(wait));
    sent = c.client.send(st.transaction, st.ticket, st.submit);
  }
  return sent;
}

// A refusal of a send no earlier attempt may have preceded, worded as the spec words the API's
// own checks before it relays anything (refused_before_relay): the ticket, the key, the bytes,
// preflight, the rate limit. That nothing was relayed is the API's word only: an API that
// relays and then answers so, or a gateway that retried the POST, has the action land twice
// once it is built again (design.md §1: only a receipt or the blockhash's death proves). So the
// step is `rejected` only when the chain proves these bytes never land; short of that it stays
// `sending`, the run open, and says what the API said and what proof is missing.
Result<StepSend> first_send_refused(SendContext& c, JournalStep& st, std::size_t total, int http,
                                    bool accepted) {
  const bool ticket_dead = st.code == "InvalidTicket";
  const std::string said = "HTTP " + std::to_string(http) + " " + st.code + ": " + st.message;
  std::string why = "no Solana RPC node was given (--rpc)";
  if (c.prove) {
    AIRLOCK_TRY(question, question_for(c, st));
    auto proof = c.prove(question);
    if (proof.ok() && proof->outcome == ChainProof::Outcome::kNeverLands) {
      st.message += "; the RPC node: " + proof->detail;
      AIRLOCK_CHECK(record(c, st, ss::kRejected));
      if (ticket_dead && !accepted) {
        c.log << "airlock-online: " << step_name(st, total)
              << ": the ticket is no longer valid, and the chain shows these bytes never "
                 "land; building again\n";
        return StepSend::kRebuild;
      }
      return Error(online::errors::kStepFailed,
                   "send " + step_name(st, total) + ": " + said +
                       " (refused before anything was sent, and the chain shows these bytes "
                       "never land)");
    }
    why = "the RPC node does not show that it never lands (" +
          (proof.ok() ? proof->detail : proof.error().message()) + ")";
  }
  AIRLOCK_CHECK(record(c, st, ss::kSending));
  return Error(online::errors::kOutcomeUnknown,
               "send " + step_name(st, total) + ": " + said +
                   ": the API says it refused these bytes before relaying them, but building "
                   "again would sign the action twice if it relayed them after all, and " +
                   why +
                   "; it stays open until the chain proves they never land (their blockhash "
                   "dies within about 90 s of the build): run airlock-online resume --rpc URL "
                   "then" +
                   (ticket_dead ? std::string()
                                : std::string(", and change what the refusal names before "
                                              "building the action again")));
}

// What the API's last answer to a send means for the step: accepted (its receipt recorded),
// refused before anything was relayed, or unknown (the step stays `sending`).
Result<StepSend> settle_send(SendContext& c, JournalStep& st, std::size_t total,
                             const Result<Reply>& sent, bool maybe_relayed, bool& accepted,
                             bool again, std::int64_t left) {
  if (!sent.ok() || (sent->failure && (maybe_relayed || !refused_before_relay(*sent->failure)))) {
    // Stays `sending`: the journal keeps the intent blocked until a receipt, or the
    // blockhash's expiry, shows whether these bytes landed.
    return Error(online::errors::kOutcomeUnknown,
                 "send " + step_name(st, total) + ": " +
                     (sent.ok() ? "HTTP " + std::to_string(sent->failure->status) + " " + st.code
                                : st.message) +
                     "; the API may have relayed the transaction (signature " + st.signature +
                     "), so its outcome is unknown: nothing is built for this action until "
                     "airlock-online resume learns it");
  }
  if (sent->failure) {
    // Refused, the API says, by its own checks before anything was relayed (spec 4.12, part
    // 7): believed only once the chain proves it.
    st.code = sent->failure->code;
    st.message = sent->failure->message;
    return first_send_refused(c, st, total, sent->failure->status, accepted);
  }
  // A reply is about this step or it is no reply: the signature it names must be the one
  // computed here from the signed bytes, or its receipt and status are another transaction's
  // and say nothing of whether these bytes landed (the step stays `sending`).
  const std::string named = json_fields::text(sent->body, "signature");
  if (named != st.signature) {
    st.code = "ReplyAboutAnother";
    st.message =
        "the send was answered with signature '" + printable(named) + "', not " + st.signature;
    AIRLOCK_CHECK(record(c, st, ss::kSending));
    return Error(online::errors::kOutcomeUnknown,
                 "send " + step_name(st, total) + ": " + st.message +
                     ": the reply is about another transaction, and these bytes may have been "
                     "relayed, so the outcome is unknown: nothing is built for this action until "
                     "airlock-online resume --rpc URL learns it from the chain");
  }
  accepted = true;
  st.receipt = json_fields::text(sent->body, "receipt");
  const std::string status = json_fields::text(sent->body, "status");
  if (st.receipt.empty() || (status != ss::kPending && status != ss::kUnknown)) {
    return Error(online::errors::kOutcomeUnknown,
                 "send " + step_name(st, total) +
                     ": the reply has no receipt or an unknown status '" + status +
                     "'; the step may have been sent");
  }
  if (st.sent_at == 0) st.sent_at = c.clock();
  AIRLOCK_CHECK(record(c, st, status == ss::kPending ? ss::kPending : ss::kUnknown));
  AIRLOCK_CHECK(c.journal.event(
      st.run_id, "sent",
      "round " + std::to_string(st.round) + " " + step_name(st, total) + ": " + status, c.clock()));
  c.log << "airlock-online: " << step_name(st, total) << (again ? " sent again" : " sent")
        << " with " << left << " s left on its ticket: " << status << ", signature " << st.signature
        << "\n";
  return StepSend::kOnItsWay;
}

// One step of a group: skipped when already on its way, abandoned when its ticket died unsent,
// proven on chain when its ticket died after a send, else sent (again only as the identical
// bytes). `accepted` says whether the API has accepted any step of the round.
Result<StepSend> send_step(SendContext& c, JournalStep& st, std::size_t total, bool& accepted) {
  if (is(st, ss::kConfirmed) || is(st, ss::kPending) || is(st, ss::kUnknown))
    return StepSend::kOnItsWay;
  if (!is(st, ss::kSigned) && !is(st, ss::kSending)) {
    return Error(online::errors::kStepFailed,
                 step_name(st, total) + " is already " + st.status +
                     (st.code.empty() ? "" : ": " + st.code) +
                     "; read the current state before building the rest");
  }
  const std::int64_t left = ticket_left(c, st);
  if (left <= 0) {
    if (is(st, ss::kSigned) && c.resumed) {
      // Left `signed` by a process that is gone: the `sending` mark written before its send
      // may be what a crash or a lying disk lost. Maybe sent, until the chain says otherwise.
      st.message = "left signed by a process that is gone: it may have been sent";
      AIRLOCK_CHECK(record(c, st, ss::kSending));
    }
    if (is(st, ss::kSigned)) {
      st.message = "its ticket expired before it was sent";
      AIRLOCK_CHECK(record(c, st, ss::kAbandoned));
      return Error(online::errors::kStepFailed,
                   step_name(st, total) +
                       " was never sent and its ticket has expired, so nothing of it happened; "
                       "read the current state and build the remaining work");
    }
    AIRLOCK_TRY(landed,
                prove_outcome(c, st, total, "no receipt was recorded, and its ticket has expired"));
    if (landed) return StepSend::kOnItsWay;  // confirmed on chain: nothing to send
  }
  // A step another process left `signed` may have gone out before the commit of its `sending`
  // mark was lost: sent again, as the identical bytes whose first refusal proves nothing.
  const bool again = is(st, ss::kSending) || (c.resumed && is(st, ss::kSigned));
  // Committed before the call: if the process dies during it, resume knows the step may
  // have reached the API and sends only these identical bytes again.
  AIRLOCK_CHECK(record(c, st, ss::kSending));
  // Once any attempt may have been relayed (no answer, a gateway or server error, or an
  // earlier attempt by a process that died), no refusal proves that nothing went out:
  // the first attempt may land while the later ones are refused.
  bool maybe_relayed = again;
  const Result<Reply> sent = send_identical_bytes(c, st, total, maybe_relayed);
  return settle_send(c, st, total, sent, maybe_relayed, accepted, again, left);
}

// Every step of a sent group followed to its end, even after one fails or cannot be known
// yet: the others were sent too, and what is left can only be planned once their outcomes are
// known. A step whose outcome stays unknown is the group's answer (the run stays open for
// resume), before any step that failed.
Status follow_group(SendContext& c, std::span<JournalStep> group, std::size_t total) {
  std::optional<Error> stopped;
  std::optional<Error> unknown;
  for (JournalStep& st : group) {
    // Only a step on its way has a receipt to follow (one that failed, or whose send cannot be
    // known, is its sender's to report).
    if (!is(st, ss::kPending) && !is(st, ss::kUnknown)) continue;
    if (auto followed = follow(c, st, total); !followed.ok()) {
      c.log << "airlock-online: " << step_name(st, total) << ": "
            << printable(followed.error().to_string()) << "\n";
      if (!unknown) unknown = followed.error();
      continue;
    }
    if (!is(st, ss::kConfirmed)) {
      c.log << "airlock-online: " << step_name(st, total) << " " << st.status << "\n";
      if (!stopped) {
        stopped = Error(online::errors::kStepFailed,
                        step_name(st, total) + " " + st.status +
                            (st.code.empty() ? "" : ": " + st.code + ": " + st.message) +
                            "; read the current state before building the rest");
      }
      continue;
    }
    c.log << "airlock-online: " << step_name(st, total) << " confirmed\n";
  }
  if (unknown) return *unknown;
  if (stopped) return *stopped;
  return {};
}

// A round a later round superseded: built again after a step was refused before anything of
// the round was relayed (its later steps never sent), or followed up once every step
// confirmed. Nothing of it is sent again, and its refusal is not the run's: only the last round
// says how the run ends. A step still `signed` was never sent (no step after an accepted one is
// sent before it confirms, and an accepted one never leads to a rebuild); one the journal holds
// open (which no process leaves behind before moving on, but a disk that lost writes may) is
// followed, or proven on the chain once its ticket is dead.
Status settle_superseded(SendContext& c, std::vector<JournalStep>& steps, int round_no) {
  const std::size_t total = steps.size();
  std::optional<Error> open;
  for (JournalStep& st : steps) {
    Status settled;
    if (is(st, ss::kSigned)) {
      st.message = "round " + std::to_string(round_no) +
                   " was built again, after a step before this one was refused, before this "
                   "step was sent";
      settled = record(c, st, ss::kAbandoned);
    } else if (is(st, ss::kPending) || is(st, ss::kUnknown)) {
      settled = follow(c, st, total);
    } else if (is(st, ss::kSending) && ticket_left(c, st) > 0) {
      settled = Error(online::errors::kOutcomeUnknown,
                      step_name(st, total) + " of round " + std::to_string(round_no) +
                          ", which a later round superseded, may have been sent and its ticket "
                          "still lives: it is not sent again; run airlock-online resume --rpc "
                          "URL once its ticket has expired");
    } else if (is(st, ss::kSending)) {
      if (auto proven = prove_outcome(c, st, total,
                                      "its round was superseded by a later one, and its ticket "
                                      "has expired");
          !proven.ok())
        settled = proven.error();
    }
    if (!settled.ok()) {
      c.log << "airlock-online: round " << round_no << " " << step_name(st, total) << ": "
            << printable(settled.error().message()) << "\n";
      if (!open) open = settled.error();
    }
  }
  if (open) return *open;
  return {};
}

}  // namespace

std::vector<JournalStep> steps_of_round(std::int64_t run_id, int round_no, const Round& round,
                                        const std::vector<Transaction>& signed_transactions,
                                        std::int64_t built_at, std::int64_t now,
                                        const std::optional<BootInstant>& build_boot) {
  std::vector<JournalStep> out;
  for (std::size_t i = 0; i < signed_transactions.size(); ++i) {
    const json& step = round.steps[i];
    JournalStep st;
    st.run_id = run_id;
    st.round = round_no;
    st.step = static_cast<int>(i + 1);
    st.action = round.action;
    st.ticket = json_fields::text(step, "ticket");
    st.built_at = built_at;
    st.concurrent = json_fields::flag(step, "sendConcurrently");
    st.submit = round.action == "perp/onboard";
    st.transaction = to_base64(serialize_transaction(signed_transactions[i]));
    st.signature = to_base58(signed_transactions[i].signatures.front());
    st.status = ss::kSigned;
    if (step.contains("next")) st.next = step["next"];
    st.body = round.body;
    // What the build said about the step besides the transaction (e.g. its bin range).
    st.metadata = step;
    for (const char* bulky : {"transaction", "ticket", "blockhash", "simulation", "next"})
      st.metadata.erase(bulky);
    // Only the node's measure is trusted for it, not a field of the build reply.
    for (const char* measured :
         {"lastValidBlockHeight", "nodeBuildSlot", "nodeGenesisHash", "buildBoot", "apiBuildDate"})
      st.metadata.erase(measured);
    if (round.api_date) st.metadata["apiBuildDate"] = *round.api_date;
    if (round.last_valid_block_height)
      st.metadata["lastValidBlockHeight"] = *round.last_valid_block_height;
    if (round.node_build_slot) st.metadata["nodeBuildSlot"] = *round.node_build_slot;
    if (round.node_genesis_hash) st.metadata["nodeGenesisHash"] = *round.node_genesis_hash;
    if (build_boot) st.metadata["buildBoot"] = boot_record(*build_boot);
    st.updated_at = now;
    out.push_back(std::move(st));
  }
  return out;
}

Result<RoundEnd> send_round(SendContext& c, std::vector<JournalStep>& steps) {
  const std::size_t total = steps.size();
  bool accepted = std::any_of(steps.begin(), steps.end(), [](const JournalStep& st) {
    return !is(st, ss::kSigned) && !is(st, ss::kRejected) && !is(st, ss::kAbandoned);
  });
  // Steps go in groups: a run of steps the API marks sendConcurrently together, any other
  // step alone, each group followed to its end before the next is sent.
  std::size_t i = 0;
  while (i < steps.size()) {
    std::size_t end = i + 1;
    if (steps[i].concurrent) {
      while (end < steps.size() && steps[end].concurrent) ++end;
    }
    // A step of the group that has failed, or whose send cannot be known, leaves the others
    // followed all the same: they went out together (found by an independent fault review: a
    // batch's fourth step, rejected on a resume, left the three sent with it pending for ever,
    // every later resume stopping at it). Nothing new is sent once one has failed.
    std::optional<Error> first;
    for (std::size_t k = i; k < end; ++k) {
      if (first && is(steps[k], ss::kSigned)) continue;
      auto sent = send_step(c, steps[k], total, accepted);
      if (!sent.ok()) {
        if (!first) first = sent.error();
        continue;
      }
      if (*sent == StepSend::kRebuild) return RoundEnd::kRebuild;
    }
    auto followed = follow_group(c, std::span(steps).subspan(i, end - i), total);
    if (!followed.ok() && (!first || followed.error().code() == online::errors::kOutcomeUnknown))
      return followed.error();
    if (first) return *first;
    i = end;
  }
  return RoundEnd::kDone;
}

Result<ResumeOutcome> resume_run(SendContext& context, const JournalRun& run) {
  SendContext c = context;
  c.resumed = true;
  AIRLOCK_TRY(steps, c.journal.steps(run.id));
  ResumeOutcome out;
  const auto close = [&](std::string state, std::string note) -> Result<ResumeOutcome> {
    AIRLOCK_CHECK(c.journal.finish_run(run.id, state, note, c.clock()));
    return ResumeOutcome{std::move(state), std::move(note)};
  };
  if (steps.empty()) {
    return close("stopped", "stopped before any step was signed and recorded: nothing was sent");
  }
  std::map<int, std::vector<JournalStep>> rounds;
  for (auto& st : steps) rounds[st.round].push_back(std::move(st));
  // Every round before the last was superseded: settled, never sent again, and a refusal in
  // it does not stop the later rounds from being learnt (found by an independent fault review:
  // round 1's InvalidTicket ended every resume, so round 2, landed, stayed open for ever).
  std::optional<Error> superseded_open;
  const int last_round = rounds.rbegin()->first;
  for (auto& [round_no, round_steps] : rounds) {
    if (round_no == last_round) break;
    if (auto settled = settle_superseded(c, round_steps, round_no);
        !settled.ok() && !superseded_open)
      superseded_open = settled.error();
  }
  for (auto& [round_no, round_steps] : rounds) {
    if (round_no != last_round) continue;
    auto end = send_round(c, round_steps);
    if (!end.ok()) {
      AIRLOCK_TRY(open, c.journal.unresolved());
      const bool unknown = std::any_of(open.begin(), open.end(),
                                       [&](const JournalStep& st) { return st.run_id == run.id; });
      if (unknown) return ResumeOutcome{"open", end.error().message()};
      return close("failed", end.error().message());
    }
    if (*end == RoundEnd::kRebuild) {
      return close("stopped", "round " + std::to_string(round_no) +
                                  ": the API refused the ticket before anything was sent, so "
                                  "nothing of it happened; build it again");
    }
  }
  if (superseded_open) return ResumeOutcome{"open", superseded_open->message()};
  const JournalStep& last = rounds.rbegin()->second.back();
  if (last.next && last.next->contains("path")) {
    // The command that builds it (quoted for the shell) comes with the plan of what is left
    // (remaining.h), which airlock-online resume prints next.
    return close("stopped", "every step confirmed; the follow-up " +
                                json_fields::text(*last.next, "path") + " was not built");
  }
  return close("done", "every step confirmed");
}

}  // namespace airlock::online
