#include <algorithm>
#include <limits>
#include <optional>

#include <airlock/common/ed25519.h>
#include <airlock/common/hash.h>
#include <airlock/formats/envelope.h>
#include <airlock/offline/keystore.h>
#include <airlock/offline/signing.h>
#include <airlock/offline/summary.h>

namespace airlock::offline {
namespace {

AuditEntry entry_for(const envelope::SignRequest& q, Decision decision, std::int64_t now) {
  AuditEntry e;
  e.time = now;
  e.request_id = q.request_id;
  e.action = q.action;
  e.manager = q.manager;
  e.vault = q.vault;
  e.decision = decision;
  return e;
}

std::vector<Hash> message_hashes(const envelope::SignRequest& q) {
  std::vector<Hash> out;
  for (const auto& step : q.steps) {
    auto tx = parse_transaction(step.transaction);
    out.push_back(tx.ok() ? sha256(serialize_message(tx->message)) : sha256(step.transaction));
  }
  return out;
}

// The key opened (its passphrase asked only now, again after one that does not open it while
// the request's deadline lasts), or the one the context holds open, and each step's message
// signed; a key that is not the policy's manager, or a signature that does not verify, signs
// nothing. Typing a passphrase takes time too: nullopt, nothing signed, when the deadline has
// passed by the time the key is open (or when a passphrase that does not open it came after it).
Result<std::optional<std::vector<Signature>>> sign_steps(const Review& review, SigningContext& c,
                                                         std::uint64_t deadline) {
  const auto until = static_cast<std::int64_t>(
      std::min<std::uint64_t>(deadline, std::numeric_limits<std::int64_t>::max()));
  std::optional<Keypair> opened_here;
  if (c.opened == nullptr) {
    auto key = open_signing_key(c, until);
    if (!key.ok() && key.error().code() == offline::errors::kKeystoreLocked && c.clock() > until)
      return std::optional<std::vector<Signature>>();
    if (!key.ok()) return key.error();
    opened_here.emplace(std::move(key).value());
  }
  if (c.clock() > until) return std::optional<std::vector<Signature>>();
  const Keypair& key = c.opened != nullptr ? *c.opened : *opened_here;
  if (key.public_key() != c.policy.manager) {
    return Error(ErrorCode::kUsage, "the keystore's key " + to_base58(key.public_key()) +
                                        " is not the policy's manager");
  }
  std::vector<Signature> signatures;
  for (const auto& step : review.steps) {
    const Bytes message = serialize_message(step.tx.message);
    Signature sig = key.sign(message);
    // A signature that does not verify (a fault in memory or the library) never leaves.
    if (!verify_signature(key.public_key(), message, sig)) {
      return Error(ErrorCode::kCryptoUnavailable,
                   "a fresh signature did not verify; nothing was signed");
    }
    signatures.push_back(sig);
  }
  return std::optional(std::move(signatures));
}

}  // namespace

envelope::Refusal refusal_of(const std::vector<Finding>& refusals) {
  envelope::Refusal r;
  r.code =
      refusals.empty() ? std::string(FindingCode::kPolicyRefused.name()) : refusals.front().code;
  for (const auto& f : refusals) {
    std::string part =
        f.code + (f.step ? " (step " + std::to_string(*f.step + 1) + ")" : "") + ": " + f.message;
    if (!r.reason.empty()) part = "; " + part;
    if (r.reason.size() + part.size() > envelope::kMaxRefusalReasonChars) {
      r.reason += r.reason.size() + 4 <= envelope::kMaxRefusalReasonChars ? "; …" : "";
      break;
    }
    r.reason += part;
  }
  return r;
}

Replay check_replay(const std::vector<AuditEntry>& entries, const envelope::SignRequest& q) {
  Replay r;
  r.earlier = latest_signed(entries, q.request_id);
  r.same_transactions = r.earlier != nullptr && r.earlier->message_hashes == message_hashes(q);
  return r;
}

envelope::Refusal replay_refusal(const AuditEntry& earlier) {
  return {std::string(FindingCode::kPolicyReplay.name()),
          "request id already signed (audit entry " + std::to_string(earlier.seq) +
              ") for other transactions"};
}

Hash policy_hash(const Policy& policy) {
  const std::string text = policy_toml(policy);
  return sha256(text_bytes(text));
}

const AuditEntry* usable_approval(const std::vector<AuditEntry>& entries,
                                  const envelope::SignRequest& q, const Hash& policy,
                                  std::int64_t now) {
  if (q.approval || q.action == kKeystoneAction) return nullptr;
  const Hash intent = envelope::intent_hash(q);
  for (const auto& e : entries) {
    if (e.decision != Decision::kApproved || !e.approved || e.approved->intent != intent ||
        e.approved->policy != policy || e.approved->expires < now || e.vault != q.vault ||
        e.manager != q.manager || e.action != q.action)
      continue;
    const bool used = std::any_of(entries.begin(), entries.end(), [&](const AuditEntry& later) {
      return later.under_approval == e.request_id;
    });
    if (!used) return &e;
  }
  return nullptr;
}

std::int64_t approval_expiry(const envelope::SignRequest& q, std::int64_t now) {
  const auto asked = static_cast<std::int64_t>(std::min<std::uint64_t>(q.deadline, INT64_MAX));
  return std::min(asked, now + kMaxApprovalSeconds);
}

std::optional<envelope::Refusal> approval_replay(const std::vector<AuditEntry>& entries,
                                                 const envelope::SignRequest& q) {
  for (const auto& e : entries) {
    if (e.request_id != q.request_id || e.decision == Decision::kCarried) continue;
    return envelope::Refusal{std::string(FindingCode::kPolicyReplay.name()),
                             "request id already decided (audit entry " + std::to_string(e.seq) +
                                 "); an approval is asked for under a new id"};
  }
  return std::nullopt;
}

namespace {

// What the log decides before any review (a request id decided before), as the first refusal:
// sign and review then show the same refusals, and nothing refused reads as auto-approvable.
void log_refusal(const envelope::SignRequest& request, const std::vector<AuditEntry>* log,
                 Review& review) {
  if (log == nullptr) return;
  std::optional<envelope::Refusal> refused;
  if (request.approval) {
    refused = approval_replay(*log, request);
  } else if (const Replay replay = check_replay(*log, request);
             replay.earlier != nullptr && !replay.same_transactions) {
    refused = replay_refusal(*replay.earlier);
  }
  if (!refused) return;
  review.refusals.insert(review.refusals.begin(),
                         Finding(FindingCode::kPolicyReplay, refused->reason));
  review.auto_approvable = false;
}

}  // namespace

Examination examine(const envelope::SignRequest& request, const Policy& policy,
                    const DecoderRegistry& decoders, const PublicKey& signer, std::int64_t now_unix,
                    const std::vector<AuditEntry>* log) {
  Examination out;
  if (request.approval) {
    // The rules that need no transaction, and the approval screen; no limits (nothing moves).
    out.review = review_intent(request, policy, decoders, signer, now_unix);
    log_refusal(request, log, out.review);
    out.summary =
        render_approval(request, out.review, approval_expiry(request, now_unix), now_unix);
    return out;
  }
  out.review = review_request(request, policy, decoders, signer, now_unix);
  log_refusal(request, log, out.review);
  out.outflows = outflows_of(out.review);
  auto limits = check_limits(policy, request, out.outflows, log, now_unix);
  for (auto& f : limits.refusals) out.review.refusals.push_back(std::move(f));
  if (!limits.refusals.empty()) out.review.auto_approvable = false;
  out.summary = render_summary(request, out.review, now_unix);
  if (!limits.lines.empty()) {
    out.summary += "\nLIMITS (counted from this machine's audit log)\n";
    for (const auto& line : limits.lines) out.summary += "  " + line + "\n";
  }
  return out;
}

namespace {

// An approval request: decided at leisure, before anything is built; never automatic.
}  // namespace

Result<Keypair> open_signing_key(SigningContext& c, std::int64_t until) {
  for (int attempt = 1;; ++attempt) {
    AIRLOCK_TRY(passphrase, c.passphrase());
    auto key = open_keystore(c.keystore_path, passphrase, c.locked);
    const bool again = !key.ok() && key.error().code() == offline::errors::kKeystoreLocked &&
                       attempt < c.passphrase_tries && c.clock() <= until;
    if (!again) return key;
  }
}

Judgement judge(const envelope::SignRequest& request, const Review& review,
                const std::vector<AuditEntry>& log, const Hash& policy_hash, std::int64_t now) {
  Judgement j;
  // A log that records nothing more decides nothing (sign stops before judging; review says so).
  if (const auto ended = log_ended(log)) {
    j.verdict = Verdict::kRefused;
    j.log_refusal =
        envelope::Refusal{std::string(ErrorCode::kUsage.name()),
                          "the audit log records nothing more: " + *ended + "; use that log"};
    return j;
  }
  if (request.approval) {
    j.log_refusal = approval_replay(log, request);
    j.verdict = j.log_refusal || review.refused() ? Verdict::kRefused : Verdict::kAsks;
    return j;
  }
  j.replay = check_replay(log, request);
  if (j.replay.earlier != nullptr && j.replay.same_transactions) {
    j.verdict = Verdict::kReissued;
    return j;
  }
  if (j.replay.earlier != nullptr) j.log_refusal = replay_refusal(*j.replay.earlier);
  if (j.log_refusal || review.refused()) {
    j.verdict = Verdict::kRefused;
    return j;
  }
  if (review.warnings.empty()) j.approval = usable_approval(log, request, policy_hash, now);
  j.verdict = j.approval != nullptr    ? Verdict::kUnderApproval
              : review.auto_approvable ? Verdict::kAutomatic
                                       : Verdict::kAsks;
  return j;
}

namespace {

Result<SigningOutcome> process_approval(const envelope::SignRequest& q, SigningContext& c,
                                        const PublicKey& signer) {
  SigningOutcome out;
  out.response.request_id = q.request_id;
  out.response.signer = signer;
  const auto finish =
      [&](AuditEntry entry,
          std::variant<std::vector<Signature>, envelope::Refusal, envelope::Approval> result)
      -> Result<SigningOutcome> {
    out.decision = entry.decision;
    AIRLOCK_TRY(head, c.log.append(std::move(entry)));
    out.response.result = std::move(result);
    out.response.audit_head = head;
    return std::move(out);
  };
  const std::int64_t now = c.clock();
  auto examined = examine(q, c.policy, c.decoders, signer, now, &c.log.entries());
  out.review = std::move(examined.review);
  out.summary = std::move(examined.summary);
  Judgement j = judge(q, out.review, c.log.entries(), policy_hash(c.policy), now);
  // Decided before: refused by the log whatever the review says (shown among its refusals).
  if (j.log_refusal) {
    AuditEntry refused = entry_for(q, Decision::kRefused, now);
    refused.codes = {j.log_refusal->code};
    return finish(std::move(refused), std::move(*j.log_refusal));
  }
  const std::int64_t expires = approval_expiry(q, now);
  if (j.verdict == Verdict::kRefused) {
    AuditEntry e = entry_for(q, Decision::kRefused, now);
    for (const auto& f : out.review.refusals) e.codes.push_back(f.code);
    return finish(std::move(e), refusal_of(out.review.refusals));
  }
  if (!c.confirm(out.summary, out.review)) {
    return finish(entry_for(q, Decision::kDeclined, c.clock()),
                  envelope::Refusal{"operator.declined", "the operator declined to approve"});
  }
  if (c.clock() > expires) {
    AuditEntry e = entry_for(q, Decision::kRefused, c.clock());
    e.codes = {std::string(FindingCode::kPolicyDeadlinePassed.name())};
    return finish(std::move(e),
                  envelope::Refusal{std::string(FindingCode::kPolicyDeadlinePassed.name()),
                                    "the approval's time ran out while waiting for the answer"});
  }
  AuditEntry e = entry_for(q, Decision::kApproved, c.clock());
  const Hash intent = envelope::intent_hash(q);
  e.approved = AuditEntry::Approved{intent, expires, policy_hash(c.policy)};
  return finish(std::move(e), envelope::Approval{intent, static_cast<std::uint64_t>(expires)});
}

// A request the deadline ended, as the log and the response record it: the deadline passed at the
// question (the terminal's prompt stops at it: no person's no, though an operator walk-through
// read its timeout as "declined"), while waiting for the answer, or while the passphrase was
// typed.
std::pair<AuditEntry, envelope::Refusal> past_deadline(const envelope::SignRequest& q,
                                                       std::int64_t now, const char* while_what) {
  AuditEntry e = entry_for(q, Decision::kRefused, now);
  e.codes = {std::string(FindingCode::kPolicyDeadlinePassed.name())};
  return {std::move(e), envelope::Refusal{std::string(FindingCode::kPolicyDeadlinePassed.name()),
                                          std::string("the deadline passed ") + while_what +
                                              "; nothing was signed"}};
}

// The codes of findings, in order, as the audit log records them.
std::vector<std::string> codes_of(const std::vector<Finding>& findings) {
  std::vector<std::string> codes;
  codes.reserve(findings.size());
  for (const auto& f : findings) codes.push_back(f.code);
  return codes;
}

}  // namespace

Result<SigningOutcome> process_request(const envelope::SignRequest& q, SigningContext& c) {
  // A closed log was continued in another: a decision here would be outside what counts.
  AIRLOCK_CHECK(c.log.check_not_closed());
  AIRLOCK_TRY(info, read_keystore_info(c.keystore_path));
  if (q.approval) return process_approval(q, c, info.public_key);
  SigningOutcome out;
  out.response.request_id = q.request_id;
  out.response.signer = info.public_key;
  const auto hashes = message_hashes(q);

  const auto finish =
      [&](AuditEntry entry,
          std::variant<std::vector<Signature>, envelope::Refusal, envelope::Approval> result)
      -> Result<SigningOutcome> {
    out.decision = entry.decision;
    entry.message_hashes = hashes;
    if (const auto* sigs = std::get_if<std::vector<Signature>>(&result)) entry.signatures = *sigs;
    AIRLOCK_TRY(head, c.log.append(std::move(entry)));
    out.response.result = std::move(result);
    out.response.audit_head = head;
    return std::move(out);
  };

  auto examined = examine(q, c.policy, c.decoders, info.public_key, c.clock(), &c.log.entries());
  out.review = std::move(examined.review);
  out.summary = std::move(examined.summary);
  const Judgement j = judge(q, out.review, c.log.entries(), policy_hash(c.policy), c.clock());
  // The same request id again: a lost response is sent again from the log (the signatures are
  // already out); the same id over other transactions is refused (shown as review shows it: the
  // log's refusal first among the review's own).
  if (j.verdict == Verdict::kReissued) {
    AuditEntry e = entry_for(q, Decision::kReissued, c.clock());
    out.first_signed_at = j.replay.earlier->time;
    return finish(std::move(e), j.replay.earlier->signatures);
  }
  if (j.log_refusal) {
    AuditEntry e = entry_for(q, Decision::kRefused, c.clock());
    e.codes = {std::string(FindingCode::kPolicyReplay.name())};
    return finish(std::move(e), *j.log_refusal);
  }
  if (j.verdict == Verdict::kRefused) {
    AuditEntry e = entry_for(q, Decision::kRefused, c.clock());
    e.codes = codes_of(out.review.refusals);
    return finish(std::move(e), refusal_of(out.review.refusals));
  }
  const auto warnings = codes_of(out.review.warnings);
  // Approved before its build, and nothing in the transactions warns: asked already.
  if (j.approval != nullptr) out.under_approval = j.approval->request_id;
  out.review.under_approval = j.approval != nullptr;
  const bool automatic =
      j.verdict == Verdict::kUnderApproval || (c.auto_approve && j.verdict == Verdict::kAutomatic);
  // Time passes while a person reads, and while the passphrase is typed: the deadline is
  // checked again after the answer and once more with the key open, before anything is signed.
  const auto deadline_passed = [&](const char* while_what) {
    auto [entry, refusal] = past_deadline(q, c.clock(), while_what);
    return finish(std::move(entry), std::move(refusal));
  };
  if (!automatic && !c.confirm(out.summary, out.review)) {
    // A question the deadline ended is no person's no (past_deadline).
    if (c.clock() >= static_cast<std::int64_t>(std::min<std::uint64_t>(q.deadline, INT64_MAX)))
      return deadline_passed("at the question, before an answer to sign");
    AuditEntry e = entry_for(q, Decision::kDeclined, c.clock());
    e.codes = warnings;
    return finish(std::move(e),
                  envelope::Refusal{"operator.declined", "the operator declined to sign"});
  }
  if (c.clock() > static_cast<std::int64_t>(std::min<std::uint64_t>(q.deadline, INT64_MAX)))
    return deadline_passed("while waiting for the answer");

  AIRLOCK_TRY(signed_steps, sign_steps(out.review, c, q.deadline));
  if (!signed_steps) return deadline_passed("while the passphrase was asked");
  auto signatures = std::move(*signed_steps);
  AuditEntry e = entry_for(q, Decision::kSigned, c.clock());
  e.codes = warnings;
  e.under_approval = out.under_approval;
  // What the limits count from now on, the moves whose amount the bytes do not state included.
  e.outflows = examined.outflows.known;
  for (const auto& u : examined.outflows.unknown) e.outflows->push_back({u.mint, std::nullopt});
  return finish(std::move(e), std::move(signatures));
}

Result<envelope::SignRequest> keystone_request(const keystone::SolSignRequest& request,
                                               std::int64_t now) {
  const auto bad = [](const std::string& field, const std::string& rule) {
    return Error(envelope::errors::kBadValue, "sol-sign-request." + field + ": " + rule);
  };
  if (request.type != keystone::SignType::kTransaction)
    return bad("type", "only transactions are signed here, not off-chain messages");
  auto message = parse_message(request.sign_data);
  if (!message.ok()) return bad("sign_data", message.error().to_string());
  if (message->version != MessageVersion::kV0)
    return bad("sign_data", "only version-0 transaction messages are signed");
  envelope::SignRequest q;
  static_assert(std::tuple_size_v<keystone::Uuid> == envelope::kRequestIdBytes);
  std::copy(request.request_id.begin(), request.request_id.end(), q.request_id.begin());
  q.created_at = static_cast<std::uint64_t>(now);
  // Keystone's request has no deadline; the review does not apply one to it.
  q.deadline = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  q.manager = message->fee_payer();
  if (request.address) {
    if (request.address->size() != 32) return bad("address", "must be a 32-byte public key");
    std::copy(request.address->begin(), request.address->end(), q.manager.bytes.begin());
  }
  q.action = std::string(kKeystoneAction);
  q.intent_json = "{}";
  Transaction tx;
  tx.signatures.resize(message->header.num_required_signatures);
  tx.message = std::move(message).value();
  envelope::Step step;
  step.transaction = serialize_transaction(tx);
  q.steps.push_back(std::move(step));
  return q;
}

Result<keystone::SolSignature> keystone_answer(const keystone::SolSignRequest& request,
                                               const SigningOutcome& outcome) {
  const auto* signatures = std::get_if<std::vector<Signature>>(&outcome.response.result);
  if (signatures == nullptr || signatures->size() != 1) {
    return Error(ErrorCode::kUsage,
                 "nothing was signed, and Keystone's sol-signature has no way to say so");
  }
  return keystone::SolSignature{request.request_id, signatures->front()};
}

}  // namespace airlock::offline
