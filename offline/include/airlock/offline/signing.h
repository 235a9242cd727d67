// One sign request, start to finish: the replay check against the audit log, the review, the
// operator's answer, the key, the signatures, the log entry and the response. Every decision
// (signed, refused, declined, reissued) is in the log before the response exists, and every
// path ends in a response the online half can read.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <airlock/common/error.h>
#include <airlock/common/secret.h>
#include <airlock/formats/envelope.h>
#include <airlock/formats/keystone.h>
#include <airlock/hardening/locked_down.h>
#include <airlock/offline/audit.h>
#include <airlock/offline/decode.h>
#include <airlock/offline/limits.h>
#include <airlock/offline/policy.h>
#include <airlock/offline/review.h>

namespace airlock::offline {

namespace errors {
// sign --then-build: the approval expired before the build of its intent came; nothing was
// signed.
inline constexpr ErrorCode kNoBuild{ErrorKind::kRefused, "approval.no_build"};
}  // namespace errors

struct SigningContext {
  const Policy& policy;
  const DecoderRegistry& decoders;
  AuditLog& log;
  std::string keystore_path;
  // The keystore is opened only under the syscall allowlist: its proof (hardening/locked_down.h).
  const hardening::LockedDown& locked;
  // The operator asked for unattended signing (--auto-approve). Honoured only where the policy
  // marks the action auto_approve and the review has no warning.
  bool auto_approve = false;
  // Shows the summary and returns true only on an explicit yes. Not called when the request is
  // auto-approved.
  std::function<bool(const std::string& summary, const Review& review)> confirm;
  // Asked only once the operator said yes.
  std::function<Result<SecretBytes>()> passphrase;
  std::function<std::int64_t()> clock;  // unix seconds
  // How many times a passphrase that does not open the keystore is asked again for, while the
  // deadline lasts: 3 on a terminal, where a tired operator mistypes; 1 from a descriptor,
  // which would give the same answer again.
  int passphrase_tries = 1;
  // A key already opened for this run (sign --then-build opens it when the approval is given):
  // used instead of asking for the passphrase. Still refused unless it is the policy's manager.
  const Keypair* opened = nullptr;
};

// The keystore opened with the operator's passphrase, asked again after one that does not open
// it, up to the context's tries and while `until` (unix seconds, the context's clock) lasts.
[[nodiscard]] Result<Keypair> open_signing_key(SigningContext& c, std::int64_t until);

struct SigningOutcome {
  Decision decision = Decision::kRefused;
  // Signed without a question under this approval (docs/approvals.md).
  std::optional<envelope::RequestId> under_approval;
  // kReissued: when the log first recorded these signatures (unix seconds, offline clock).
  std::optional<std::int64_t> first_signed_at;
  envelope::SignResponse response;
  Review review;
  std::string summary;
};

// What the operator is shown and what the decision rests on (for an approval request: the
// rules that need no transaction and the approval screen): the review of the request under
// the policy, the policy's limits counted from the audit log `log` (null: none given, and any
// limit refuses), and the summary at `now_unix`. process_request examines every request this
// way, and `airlock-offline review` shows exactly this without a key (one code path, so an
// auditor sees the verdict the signer would).
struct Examination {
  Review review;  // the limits' refusals included
  Outflows outflows;
  std::string summary;
};
[[nodiscard]] Examination examine(const envelope::SignRequest& request, const Policy& policy,
                                  const DecoderRegistry& decoders, const PublicKey& signer,
                                  std::int64_t now_unix, const std::vector<AuditEntry>* log);

// A request id the audit log has signed before: the same transactions are answered again from
// the log (reissued, the key never opened); other transactions under that id are refused
// (policy.replay). process_request and `review --audit-log` both decide it here.
struct Replay {
  const AuditEntry* earlier = nullptr;  // null: the id was never signed
  bool same_transactions = false;
};
[[nodiscard]] Replay check_replay(const std::vector<AuditEntry>& entries,
                                  const envelope::SignRequest& request);
// The refusal of a replay with other transactions.
[[nodiscard]] envelope::Refusal replay_refusal(const AuditEntry& earlier);

// How long an approval holds at most, whatever the request asks: long enough to build and carry
// a batch across at leisure, short enough that yesterday's approval is gone.
inline constexpr std::int64_t kMaxApprovalSeconds = 3600;

// The approval in `entries` that lets `request` be signed without a question at `now`: an
// approved entry for its intent hash, vault, action and manager, under the policy whose
// canonical text hashes to `policy_hash`, unexpired, and used by no signed entry. Null: none.
[[nodiscard]] const AuditEntry* usable_approval(const std::vector<AuditEntry>& entries,
                                                const envelope::SignRequest& request,
                                                const Hash& policy_hash, std::int64_t now);

// Until when an approval of `request` given at `now` holds: the time it asks for, at most
// kMaxApprovalSeconds.
[[nodiscard]] std::int64_t approval_expiry(const envelope::SignRequest& request, std::int64_t now);

// An approval request whose id the log has decided before, whatever the decision: refused as a
// replay (an approval is asked for once). process_request and `review` both decide it here.
[[nodiscard]] std::optional<envelope::Refusal> approval_replay(
    const std::vector<AuditEntry>& entries, const envelope::SignRequest& request);

// The SHA-256 of the policy's canonical text (policy_toml): what an approval was given under.
[[nodiscard]] Hash policy_hash(const Policy& policy);

// What sign does with a request it has examined, decided in this one place for process_request
// and `review`, in this order: a request id the log signed for these same transactions is
// answered again from the log; a refusal of the log (a replay with other transactions, an
// approval request decided before) or of the review refuses; an approval request is asked; an
// approval given before the build lets a request nothing warns about be signed without a
// question; a request the policy marks auto_approve is signed without one under --auto-approve;
// anything else is asked.
enum class Verdict { kReissued, kRefused, kAsks, kUnderApproval, kAutomatic };
struct Judgement {
  Verdict verdict = Verdict::kAsks;
  Replay replay;                                 // of a sign request
  std::optional<envelope::Refusal> log_refusal;  // the log's refusal, when it refuses
  const AuditEntry* approval = nullptr;          // kUnderApproval: the approval it uses
};
[[nodiscard]] Judgement judge(const envelope::SignRequest& request, const Review& review,
                              const std::vector<AuditEntry>& log, const Hash& policy_hash,
                              std::int64_t now);

// An approval request (request.approval) or a sign request. An approval request is checked by
// the rules that need no transaction (review_intent), shown (render_approval), always asked,
// and recorded `approved`; its answer is the Approval. A sign request whose intent has a usable
// approval and whose review neither refuses nor warns is signed without asking, once.
// Fails (without a response) only when the keystore, log or passphrase fail: then nothing was
// decided and nothing recorded. A wrong passphrase is such a failure: ask again.
[[nodiscard]] Result<SigningOutcome> process_request(const envelope::SignRequest& request,
                                                     SigningContext& context);

// A Keystone `ur:sol-sign-request` as a sign request of one step, action kKeystoneAction: its
// message with empty signature slots, the manager its address (or else the fee payer), created
// `now`. Refuses (envelope.bad_value, naming the field) a message-signing request (sign type 2)
// and sign data that is not a version-0 message.
[[nodiscard]] Result<envelope::SignRequest> keystone_request(
    const keystone::SolSignRequest& request, std::int64_t now);

// Keystone's answer to a request signed by process_request: its id and the one signature.
// Keystone's format has no refusal: for an outcome that is not signed there is none.
[[nodiscard]] Result<keystone::SolSignature> keystone_answer(
    const keystone::SolSignRequest& request, const SigningOutcome& outcome);

// The refusal sent back for a review's refusals: the first code, and every reason joined.
[[nodiscard]] envelope::Refusal refusal_of(const std::vector<Finding>& refusals);

}  // namespace airlock::offline
