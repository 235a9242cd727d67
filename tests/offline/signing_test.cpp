// Signing end to end against the twin: a request the twin built is reviewed, approved, signed
// with the keystore's key, recorded, and the signatures land when sent. Replays, declines,
// refusals and wrong passphrases each end the way docs/policy.md and docs/audit-log.md say.
#include <algorithm>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include <gmock/gmock.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <airlock/cli/cli.h>
#include <airlock/common/hash.h>
#include <airlock/formats/files.h>
#include <airlock/formats/qr_io.h>
#include <airlock/offline/keystore.h>
#include <airlock/offline/signing.h>
#include <airlock/offline/summary.h>

#include "conformance_support.h"
#include "support/helpers.h"
#include "support/interfaces.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace airlock::apisim::test {
namespace {

constexpr std::int64_t kDaySecondsForTest = 86400;

class SigningTest : public SigningTwin {
 protected:
  envelope::SignRequest swap_request() {
    const json body = {{"vault", kVault},
                       {"sourceMint", kUsdc},
                       {"destinationMint", kJup},
                       {"amount", "5000000"},
                       {"slippageBps", 50}};
    const Reply built = post("/transactions/aggregator/swap", body);
    EXPECT_EQ(built.status, 200) << built.body.dump();
    last_build = built.body;
    return request_of("aggregator/swap", body, built.body);
  }

  Result<offline::SigningOutcome> process(const envelope::SignRequest& q,
                                          const offline::Policy& policy) {
    offline::SigningContext context{policy,
                                    decoders,
                                    *log,
                                    keystore,
                                    airlock::test::locked_down(),
                                    auto_approve,
                                    [&](const std::string& summary, const offline::Review&) {
                                      ++asked;
                                      last_summary = summary;
                                      return answer;
                                    },
                                    [&]() -> Result<SecretBytes> { return secret_of(passphrase); },
                                    [&] { return now_s(); }};
    return offline::process_request(q, context);
  }

  // The log a policy with limits needs: begun by `log start --first`, in place of the one the
  // fixture opened (empty, begun by nothing).
  void start_first_log() {
    log.reset();
    std::filesystem::remove(dir.file("audit.log"));
    auto started = offline::start_audit_log(dir.file("audit.log"), {}, now_s());
    ASSERT_TRUE(started.ok()) << started.error().to_string();
    auto opened = offline::AuditLog::open(dir.file("audit.log"));
    ASSERT_TRUE(opened.ok()) << opened.error().to_string();
    log.emplace(std::move(opened).value());
  }

  void write_text(const std::string& name, const std::string& text) {
    ASSERT_TRUE(files::write_atomically(dir.file(name), text_bytes(text)).ok());
  }

  // The request as an .alreq file, req.alreq, as the online half writes it.
  // sign of req.alreq on a terminal: the answer and the passphrase typed there.
  std::string terminal_sign_command() {
    return std::string(AIRLOCK_OFFLINE_BIN) + " sign --unsafe-allow-network --keystore " +
           keystore + " --policy " + dir.file("policy.toml") + " --audit-log " +
           dir.file("audit.log") + " --out " + dir.file("res.alres") + " " + dir.file("req.alreq");
  }

  // A shell command that prints the terminal's echo setting as a word: "echo" or "-echo".
  static constexpr const char* kEchoSetting = "stty -a | tr ' ' '\\n' | grep -x -- '-\\?echo'";

  // sign on the terminal inside a shell that survives an interrupt (its trap), then says how
  // sign ended ("sign ended N") and the terminal's echo setting.
  std::string interruptible_sign_command() {
    return "trap : INT; " + terminal_sign_command() + "; echo \"sign ended $?\"; " + kEchoSetting;
  }

  // The terminal's echo setting, printed last by kEchoSetting, is on.
  static void expect_echo_on(const std::string& screen) {
    const auto echo = screen.rfind("echo");
    ASSERT_NE(echo, std::string::npos) << screen;
    EXPECT_NE(screen[echo - 1], '-') << "the terminal was left without echo:\n" << screen;
  }

  void write_request_file(const envelope::SignRequest& q) {
    ASSERT_TRUE(files::write_atomically(dir.file("req.alreq"),
                                        files::wrap_envelope(files::EnvelopeKind::kRequest,
                                                             envelope::encode_request(q)))
                    .ok());
  }

  // The sign request a request file holds, if it holds one whole.
  static std::optional<envelope::SignRequest> request_in(const std::string& path) {
    auto file = files::read_limited(path, envelope::kMaxRequestBytes + 64);
    if (!file.ok()) return std::nullopt;
    auto unwrapped = files::unwrap_envelope(*file);
    if (!unwrapped.ok()) return std::nullopt;
    auto q = envelope::decode_request(unwrapped->second);
    if (!q.ok()) return std::nullopt;
    return std::move(q).value();
  }

  // A policy file that accepts unpinned tables, the passphrase and the operator's answer.
  void write_command_inputs(const std::string& reply) {
    write_text("policy.toml",
               "version = 1\nmanager = \"" + to_base58(manager_->public_key()) +
                   "\"\nvaults = [\"" + kVault +
                   "\"]\nprograms = [\"AirLockVau1t1111111111111111111111111111111\", "
                   "\"ComputeBudget111111111111111111111111111111\"]\n"
                   "max_priority_fee_lamports = 100000\n"
                   "allow_unverified_lookup_tables = true\n" +
                   airlock::test::twin_pin_toml());
    write_text("pass", passphrase + "\n");
    write_text("answer", reply + "\n");
  }

  // airlock-offline sign with the test's keystore, policy and log; the passphrase and the
  // answer on descriptors 3 and 4. Ends with a space: append the request and outputs.
  std::string sign_command() {
    return std::string(AIRLOCK_OFFLINE_BIN) + " sign --unsafe-allow-network --keystore " +
           keystore + " --policy " + dir.file("policy.toml") + " --audit-log " +
           dir.file("audit.log") + " --passphrase-fd 3 --confirm-fd 4 3<" + dir.file("pass") +
           " 4<" + dir.file("answer") + " ";
  }

  // airlock-online act for the 5 USDC swap against the twin, with its node; `rest` adds the
  // transport (and any other) options.
  std::string act_swap_command(const std::string& rest) {
    const std::string base = "http://127.0.0.1:" + std::to_string(server_->port());
    const json body = {{"vault", kVault},
                       {"sourceMint", kUsdc},
                       {"destinationMint", kJup},
                       {"amount", "5000000"},
                       {"slippageBps", 50}};
    return std::string(AIRLOCK_ONLINE_BIN) + " act aggregator/swap --api " + base +
           std::string(kApiPrefix) + " --api-key-file " + dir.file("api.key") + " --rpc " + base +
           "/rpc --body '" + body.dump() + "' " + rest;
  }

  // The demo policy with the twin's tokens pinned and a price floor for each pair of them: a
  // swap is signed without a question (under auto_approve or an approval) only when the policy
  // prices it.
  offline::Policy swap_policy(const envelope::SignRequest& q, const std::string& extra = "") {
    return demo_policy(q, extra + "\n" + airlock::test::twin_price_floors_toml());
  }

  json last_build;
  bool answer = true;
  bool auto_approve = false;
  std::string passphrase = "correct horse";
  int asked = 0;
  std::string last_summary;
};

TEST_F(SigningTest, AnApprovedRequestIsSignedRecordedAndLands) {
  auto q = swap_request();
  // Token hints, as airlock-online adds them from GET /tokens/{mint}: display only.
  q.hints.tokens.push_back({public_key_from_base58(kUsdc).value(), "USDC", 6, "USD Coin"});
  q.hints.tokens.push_back({public_key_from_base58(kJup).value(), "JUP", 6, std::nullopt});
  auto outcome = process(q, demo_policy(q));
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->decision, offline::Decision::kSigned);
  EXPECT_EQ(asked, 1);
  EXPECT_THAT(last_summary, HasSubstr("aggregator_swap"));
  EXPECT_THAT(last_summary, HasSubstr(to_base58(q.vault))) << "keys appear in full";
  EXPECT_THAT(last_summary,
              HasSubstr("swap      5000000  (5 USDC, 6 decimals per the online half) of "
                        "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v (token USDC per the "
                        "online half)"));
  EXPECT_THAT(last_summary, HasSubstr("minimum_out = 6200093  (6.200093 JUP"));
  const auto* sigs = std::get_if<std::vector<Signature>>(&outcome->response.result);
  ASSERT_NE(sigs, nullptr);
  ASSERT_EQ(sigs->size(), q.steps.size());
  EXPECT_EQ(outcome->response.signer, manager_->public_key());
  EXPECT_EQ(outcome->response.audit_head, log->head());
  ASSERT_EQ(log->entries().size(), 1U);
  EXPECT_EQ(log->entries()[0].signatures, *sigs);

  // The online half puts each signature in slot 0 and sends: the twin checks and lands them.
  const auto steps = steps_of(last_build);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    Transaction tx = tx_of(steps[i]);
    tx.signatures[0] = (*sigs)[i];
    const Reply sent = post(
        "/transactions/send",
        {{"transaction", to_base64(serialize_transaction(tx))}, {"ticket", steps[i]["ticket"]}});
    ASSERT_EQ(sent.status, 200) << sent.body.dump();
    advance(2000);
    const Reply status =
        get("/transactions/status?receipt=" + sent.body["receipt"].get<std::string>());
    EXPECT_EQ(status.body.value("status", ""), "confirmed") << status.body.dump();
  }
}

// Typing the passphrase takes time too: a key opened after the deadline signs nothing (an
// operator walk-through had a late passphrase sign 4 s past it, a signature no journal expected),
// and a wrong passphrase after the deadline is not asked again. Both are recorded refusals.
// A question the deadline ended is logged as the deadline passing, not as a person's no
// (operator walk-through F14: its timeout read as "declined" in the log and the response).
TEST_F(SigningTest, AQuestionTheDeadlineEndedIsNoDecline) {
  const auto q = swap_request();
  const auto policy = demo_policy(q);
  std::int64_t t = now_s();
  offline::SigningContext context{policy,
                                  decoders,
                                  *log,
                                  keystore,
                                  airlock::test::locked_down(),
                                  false,
                                  [&](const std::string&, const offline::Review&) {
                                    t = static_cast<std::int64_t>(q.deadline);  // no answer
                                    return false;
                                  },
                                  [&]() -> Result<SecretBytes> { return secret_of(passphrase); },
                                  [&] { return t; }};
  auto out = offline::process_request(q, context);
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  EXPECT_EQ(out->decision, offline::Decision::kRefused);
  const auto* refusal = std::get_if<envelope::Refusal>(&out->response.result);
  ASSERT_NE(refusal, nullptr);
  EXPECT_EQ(refusal->code, "policy.deadline_passed");
  EXPECT_THAT(refusal->reason, HasSubstr("at the question"));
  EXPECT_EQ(log->entries().back().codes, std::vector<std::string>{"policy.deadline_passed"});
  // A no in time is a decline.
  const auto second = swap_request();
  t = now_s();
  context.confirm = [&](const std::string&, const offline::Review&) { return false; };
  auto declined = offline::process_request(second, context);
  ASSERT_TRUE(declined.ok());
  EXPECT_EQ(declined->decision, offline::Decision::kDeclined);
}

TEST_F(SigningTest, APassphraseTypedPastTheDeadlineSignsNothing) {
  for (const bool right : {true, false}) {
    SCOPED_TRACE(right ? "the right passphrase, late" : "a wrong passphrase, late");
    const auto q = swap_request();
    const auto policy = demo_policy(q);
    std::int64_t t = now_s();
    int typed = 0;
    offline::SigningContext context{
        policy,
        decoders,
        *log,
        keystore,
        airlock::test::locked_down(),
        false,
        [&](const std::string&, const offline::Review&) { return true; },
        [&]() -> Result<SecretBytes> {
          ++typed;
          t = static_cast<std::int64_t>(q.deadline) + 5;  // typed after the deadline
          return secret_of(right ? passphrase : std::string("not the passphrase"));
        },
        [&] { return t; }};
    context.passphrase_tries = 3;
    const auto entries_before = log->entries().size();
    auto out = offline::process_request(q, context);
    ASSERT_TRUE(out.ok()) << out.error().to_string();
    EXPECT_EQ(out->decision, offline::Decision::kRefused);
    const auto* refusal = std::get_if<envelope::Refusal>(&out->response.result);
    ASSERT_NE(refusal, nullptr) << "nothing signed";
    EXPECT_EQ(refusal->code, "policy.deadline_passed");
    EXPECT_THAT(refusal->reason, HasSubstr("while the passphrase was asked"));
    EXPECT_EQ(typed, 1) << "not asked again past the deadline";
    ASSERT_EQ(log->entries().size(), entries_before + 1);
    EXPECT_EQ(log->entries().back().decision, offline::Decision::kRefused);
    EXPECT_TRUE(log->entries().back().signatures.empty());
  }
}

TEST_F(SigningTest, TheSameRequestAgainIsReissuedFromTheLogAndAnotherUnderItsIdIsRefused) {
  const auto q = swap_request();
  const auto policy = demo_policy(q);
  auto first = process(q, policy);
  ASSERT_TRUE(first.ok());
  passphrase = "not needed";  // a reissue does not open the keystore
  auto again = process(q, policy);
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(again->decision, offline::Decision::kReissued);
  EXPECT_EQ(std::get<std::vector<Signature>>(again->response.result),
            std::get<std::vector<Signature>>(first->response.result));
  EXPECT_EQ(asked, 1) << "a reissue asks nothing";

  advance(2000);  // a later slot: another blockhash, so other bytes under the same id
  auto other = swap_request();
  ASSERT_NE(other.steps, q.steps);
  other.request_id = q.request_id;
  auto replay = process(other, demo_policy(other));
  ASSERT_TRUE(replay.ok());
  EXPECT_EQ(replay->decision, offline::Decision::kRefused);
  EXPECT_EQ(std::get<envelope::Refusal>(replay->response.result).code, "policy.replay");
  EXPECT_EQ(log->entries().size(), 3U);
  EXPECT_TRUE(offline::verify_audit_log(dir.file("audit.log")).ok());
}

TEST_F(SigningTest, DeclinedRefusedAndAutoApprovedRequestsEndAsRecorded) {
  auto q = swap_request();
  answer = false;
  auto declined = process(q, swap_policy(q));
  ASSERT_TRUE(declined.ok());
  EXPECT_EQ(declined->decision, offline::Decision::kDeclined);
  EXPECT_EQ(std::get<envelope::Refusal>(declined->response.result).code, "operator.declined");

  q = swap_request();
  auto policy = swap_policy(q);
  policy.vaults.clear();
  auto refused = process(q, policy);
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->decision, offline::Decision::kRefused);
  const auto& refusal = std::get<envelope::Refusal>(refused->response.result);
  EXPECT_EQ(refusal.code, "policy.vault_not_allowed");
  EXPECT_THAT(refusal.reason, HasSubstr(to_base58(q.vault)));
  EXPECT_EQ(log->entries().back().codes, std::vector<std::string>{"policy.vault_not_allowed"});

  // The policy allows auto-approval, but without --auto-approve the operator is still asked.
  q = swap_request();
  const auto automatic_policy =
      swap_policy(q, "[actions.\"aggregator/swap\"]\nauto_approve = true");
  answer = false;
  int asked_before = asked;
  auto still_asked = process(q, automatic_policy);
  ASSERT_TRUE(still_asked.ok());
  EXPECT_EQ(still_asked->decision, offline::Decision::kDeclined);
  EXPECT_EQ(asked, asked_before + 1);

  q = swap_request();
  auto_approve = true;  // and now not asked at all
  asked_before = asked;
  auto automatic = process(q, automatic_policy);
  ASSERT_TRUE(automatic.ok());
  EXPECT_EQ(automatic->decision, offline::Decision::kSigned);
  EXPECT_EQ(asked, asked_before);

  q = swap_request();  // --auto-approve where the policy does not allow it: asked
  asked_before = asked;
  auto not_allowed = process(q, swap_policy(q));
  ASSERT_TRUE(not_allowed.ok());
  EXPECT_EQ(not_allowed->decision, offline::Decision::kDeclined);
  EXPECT_EQ(asked, asked_before + 1);
  EXPECT_EQ(log->entries().size(), 5U);
}

// The approval request for a sign request's intent, as airlock-online act --approve-first
// makes it before anything is built: the same manager, vault, action and body text.
envelope::SignRequest approval_of(const envelope::SignRequest& q, std::int64_t now) {
  envelope::SignRequest a;
  a.request_id = envelope::random_request_id();
  a.created_at = static_cast<std::uint64_t>(now);
  a.deadline = static_cast<std::uint64_t>(now + 1800);
  a.manager = q.manager;
  a.vault = q.vault;
  a.action = q.action;
  a.intent_json = q.intent_json;
  a.approval = true;
  return a;
}

// An approval of a swap whose pair the policy gives no price floor says, before anything is
// built, that the build will be asked again (it warns warn.unpriced there); with the floor
// pinned it says nothing of the kind.
TEST_F(SigningTest, AnApprovalSaysWhenItsSwapsPairHasNoPriceFloor) {
  auto q = swap_request();
  auto unpriced = process(approval_of(q, now_s()), demo_policy(q));
  ASSERT_TRUE(unpriced.ok()) << unpriced.error().to_string();
  ASSERT_EQ(unpriced->review.warnings.size(), 1U) << last_summary;
  EXPECT_EQ(unpriced->review.warnings[0].code, "warn.unpriced");
  EXPECT_THAT(unpriced->review.warnings[0].message,
              HasSubstr(std::string("aggregator_swap would swap ") + kUsdc + " for " + kJup +
                        ", a pair with no [[price_floors]] entry"));
  EXPECT_THAT(unpriced->review.warnings[0].message, HasSubstr("asked again"));
  EXPECT_THAT(last_summary, HasSubstr("! warn.unpriced: aggregator_swap would swap"));
  auto priced = process(approval_of(swap_request(), now_s()), swap_policy(q));
  ASSERT_TRUE(priced.ok()) << priced.error().to_string();
  EXPECT_TRUE(priced->review.warnings.empty()) << last_summary;
}

// Issue 32: the manager decides on the intent at leisure; its build is then signed without a
// second question, once.
TEST_F(SigningTest, AnIntentApprovedBeforeItsBuildIsSignedWithoutASecondQuestionOnce) {
  auto q = swap_request();
  const auto policy = swap_policy(q);
  const auto approval = approval_of(q, now_s());
  auto approved = process(approval, policy);
  ASSERT_TRUE(approved.ok()) << approved.error().to_string();
  EXPECT_EQ(approved->decision, offline::Decision::kApproved);
  EXPECT_EQ(asked, 1) << "an approval is always asked, never automatic";
  EXPECT_THAT(last_summary, HasSubstr("Approve before it is built: aggregator/swap"));
  // The manager's amount in whole tokens too: the descriptor ties the body's amount to the
  // swap's, in the units of the body's source mint, which the policy pins.
  EXPECT_THAT(last_summary, HasSubstr("amount: 5000000 (5 USDC, decimals pinned by the policy)"));
  const auto* given = std::get_if<envelope::Approval>(&approved->response.result);
  ASSERT_NE(given, nullptr);
  EXPECT_EQ(given->intent, envelope::intent_hash(q));
  EXPECT_LE(given->expires_at, static_cast<std::uint64_t>(now_s() + 1800));
  ASSERT_TRUE(log->entries().back().approved.has_value());
  EXPECT_EQ(log->entries().back().approved->policy, offline::policy_hash(policy));

  answer = false;  // from here any question is answered no
  auto signed_once = process(q, policy);
  ASSERT_TRUE(signed_once.ok()) << signed_once.error().to_string();
  EXPECT_EQ(signed_once->decision, offline::Decision::kSigned) << signed_once->summary;
  EXPECT_EQ(asked, 1) << "not asked again";
  ASSERT_TRUE(signed_once->under_approval.has_value());
  EXPECT_EQ(*signed_once->under_approval, approval.request_id);
  EXPECT_EQ(log->entries().back().under_approval, approval.request_id);
  // The screen shown after it says so, not "it asks you" (operator review F15).
  EXPECT_THAT(offline::render_decision(q, signed_once->review, now_s()),
              HasSubstr("verdict   nothing refused; 0 warning(s): an approval covers it, so no "
                        "question"));

  // The same intent built again: the approval is spent, so the operator is asked.
  auto again = process(swap_request(), policy);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->decision, offline::Decision::kDeclined);
  EXPECT_EQ(asked, 2);
  // The log with its approved entry and the one it covers reads back and verifies.
  log.reset();
  auto reopened = offline::AuditLog::open(dir.file("audit.log"));
  ASSERT_TRUE(reopened.ok()) << reopened.error().to_string();
  EXPECT_EQ(reopened->entries().size(), 3U);
}

TEST_F(SigningTest, AnApprovalCoversOnlyItsExactIntentUnexpiredUnderTheSamePolicyWithNoWarning) {
  const auto asked_for = [&](const envelope::SignRequest& q, const offline::Policy& policy) {
    const int before = asked;
    auto outcome = process(q, policy);
    EXPECT_TRUE(outcome.ok()) << outcome.error().to_string();
    return asked > before && outcome.ok() && !outcome->under_approval;
  };
  answer = true;
  // Another amount than the one approved.
  auto q = swap_request();
  const auto policy = swap_policy(q);
  ASSERT_TRUE(process(approval_of(q, now_s()), policy).ok());
  const json other = {{"vault", kVault},
                      {"sourceMint", kUsdc},
                      {"destinationMint", kJup},
                      {"amount", "5000001"},
                      {"slippageBps", 50}};
  const auto changed =
      request_of("aggregator/swap", other, post("/transactions/aggregator/swap", other).body);
  EXPECT_TRUE(asked_for(changed, policy)) << "a changed body is another intent";
  // Under another policy than the one it was given under.
  const auto stricter = swap_policy(q, "[actions.\"aggregator/swap\"]\nmax_slippage_bps = 60");
  EXPECT_TRUE(asked_for(q, stricter)) << "the policy changed since the approval";
  // With a warning in the review (a token hint whose symbol a screen cannot show as itself).
  auto warned = q;
  warned.request_id = envelope::random_request_id();
  warned.hints.tokens.push_back({public_key_from_base58(kJup).value(), "JUP\x1b", 6, std::nullopt});
  EXPECT_TRUE(asked_for(warned, policy)) << "a warning always asks";
  // None of these used the approval: the exact intent, built again, is still covered.
  const int before = asked;
  auto exact = process(swap_request(), policy);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(asked, before);
  EXPECT_TRUE(exact->under_approval.has_value());
  // Expired: the approval holds at most an hour, whatever the request asked (1800 s here).
  auto late = swap_request();
  ASSERT_TRUE(process(approval_of(late, now_s()), policy).ok());
  advance(1801 * 1000);
  late = swap_request();
  EXPECT_TRUE(asked_for(late, swap_policy(late))) << "the approval has expired";
}

TEST_F(SigningTest, AnApprovalRequestIsRefusedByTheRulesThatNeedNoTransactionAndAskedOnce) {
  auto q = swap_request();
  auto policy = demo_policy(q);
  policy.vaults.clear();
  auto refused = process(approval_of(q, now_s()), policy);
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->decision, offline::Decision::kRefused);
  EXPECT_EQ(std::get<envelope::Refusal>(refused->response.result).code, "policy.vault_not_allowed");
  EXPECT_EQ(asked, 0) << "a refused approval asks nothing";
  // Its id again: decided once, refused as a replay whatever it says now.
  policy = demo_policy(q);
  const auto approval = approval_of(q, now_s());
  ASSERT_EQ(process(approval, policy)->decision, offline::Decision::kApproved);
  auto replayed = process(approval, policy);
  ASSERT_TRUE(replayed.ok());
  EXPECT_EQ(std::get<envelope::Refusal>(replayed->response.result).code, "policy.replay");
  // Declined: recorded, and nothing approved.
  answer = false;
  auto declined = process(approval_of(q, now_s()), policy);
  ASSERT_TRUE(declined.ok());
  EXPECT_EQ(declined->decision, offline::Decision::kDeclined);
  EXPECT_FALSE(log->entries().back().approved.has_value());
}

TEST_F(SigningTest, AWrongPassphraseDecidesNothing) {
  const auto q = swap_request();
  passphrase = "wrong horse";
  auto outcome = process(q, demo_policy(q));
  ASSERT_FALSE(outcome.ok());
  EXPECT_THAT(outcome.error().message(), HasSubstr("wrong passphrase"));
  EXPECT_EQ(outcome.error().code(), offline::errors::kKeystoreLocked);
  EXPECT_EQ(airlock::cli::exit_code_for(outcome.error()), airlock::cli::kExitIo);
  EXPECT_TRUE(log->entries().empty()) << "nothing recorded: the request can be tried again";
}

// Issue 17: the limits count from the log, so with [limits] sign never begins a log itself
// (a new log would count the last day as empty): it refuses before anything is decided and
// names `log start`. The log that command begins is used, and says how it began.
TEST_F(SigningTest, UnderLimitsSignUsesOnlyALogBegunByLogStart) {
  write_request_file(swap_request());
  write_command_inputs("yes");
  write_text("policy.toml", airlock::test::text_of(dir.file("policy.toml")).value() +
                                "[limits]\nrounds_per_hour = 5\n");
  log.reset();
  std::filesystem::remove(dir.file("audit.log"));
  const std::string sign = sign_command() + dir.file("req.alreq") + " --out " + dir.file("res");
  const auto refused = airlock::test::run_command(sign);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("audit log " + dir.file("audit.log") +
                                        " does not exist: begin it with `airlock-offline log "
                                        "start --audit-log"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("audit.log"))) << "sign began a log itself";
  EXPECT_FALSE(std::filesystem::exists(dir.file("res")));

  const std::string start =
      std::string(AIRLOCK_OFFLINE_BIN) + " log start --audit-log " + dir.file("audit.log");
  for (const std::string& wrong : {std::string(), std::string(" --first --previous-lost"),
                                   " --first --continue-from " + dir.file("old.log")}) {
    const auto r = airlock::test::run_command(start + wrong);
    EXPECT_EQ(r.exit_code, 2) << wrong << r.output;
    EXPECT_THAT(r.output, HasSubstr("log start needs exactly one of --first"));
  }
  const auto misplaced = airlock::test::run_command(
      std::string(AIRLOCK_OFFLINE_BIN) + " log verify --first --audit-log " + dir.file("x"));
  EXPECT_EQ(misplaced.exit_code, 2) << misplaced.output;
  EXPECT_THAT(misplaced.output, HasSubstr("are for start"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("audit.log")));

  const auto started = airlock::test::run_command(start + " --first");
  ASSERT_EQ(started.exit_code, 0) << started.output;
  EXPECT_THAT(started.output, HasSubstr("as the key's first log"));
  const auto begun = airlock::test::text_of(dir.file("audit.log"));
  const auto again = airlock::test::run_command(start + " --first");
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_THAT(again.output, HasSubstr("already exists; a log is started into a new file"));
  EXPECT_EQ(airlock::test::text_of(dir.file("audit.log")), begun);

  const auto signed_run = airlock::test::run_command(sign);
  EXPECT_EQ(signed_run.exit_code, 0) << signed_run.output;
  EXPECT_THAT(signed_run.output, HasSubstr("signed requests, last hour: 0 of 5"));
  const auto shown = airlock::test::run_command(std::string(AIRLOCK_OFFLINE_BIN) +
                                                " log show --audit-log " + dir.file("audit.log"));
  EXPECT_EQ(shown.exit_code, 0) << shown.output;
  EXPECT_THAT(shown.output, HasSubstr("started  after nothing (the key's first log)"));
  EXPECT_THAT(shown.output, HasSubstr("2  "));

  // Continued in a new log: the old one is closed and refuses to sign (an answer signed there
  // would be outside what the new log counts); the new one counts what it carried over.
  std::filesystem::rename(dir.file("audit.log"), dir.file("old.log"));
  const auto continued =
      airlock::test::run_command(start + " --continue-from " + dir.file("old.log"));
  ASSERT_EQ(continued.exit_code, 0) << continued.output;
  EXPECT_THAT(continued.output, HasSubstr("1 signed entries of its last day carried over; " +
                                          dir.file("old.log") + " is closed"));
  write_request_file(swap_request());
  const std::string sign_into_old =
      std::string(AIRLOCK_OFFLINE_BIN) + " sign --unsafe-allow-network --keystore " + keystore +
      " --policy " + dir.file("policy.toml") + " --audit-log " + dir.file("old.log") +
      " --passphrase-fd 3 --confirm-fd 4 3<" + dir.file("pass") + " 4<" + dir.file("answer") + " " +
      dir.file("req.alreq") + " --out " + dir.file("res");
  const auto into_old = airlock::test::run_command(sign_into_old);
  EXPECT_EQ(into_old.exit_code, 2) << into_old.output;
  EXPECT_THAT(into_old.output, HasSubstr("records nothing more: it was closed at"));
  // review against the closed log says what sign does (operator review F12: it judged the
  // request as if the log still decided).
  const auto reviewed_old = airlock::test::run_command(
      std::string(AIRLOCK_OFFLINE_BIN) + " review --policy " + dir.file("policy.toml") +
      " --audit-log " + dir.file("old.log") + " " + dir.file("req.alreq"));
  EXPECT_EQ(reviewed_old.exit_code, 1) << reviewed_old.output;
  EXPECT_THAT(reviewed_old.output,
              HasSubstr("VERDICT: sign would refuse this request: usage.invalid: the audit log "
                        "records nothing more: it was closed at"));
  const auto into_new = airlock::test::run_command(sign);
  EXPECT_EQ(into_new.exit_code, 0) << into_new.output;
  EXPECT_THAT(into_new.output, HasSubstr("signed requests, last hour: 1 of 5"));
  // A head noted before the switch is the old log's: checked against the new one, it is said to
  // be possibly there, and it is.
  const auto head_at = signed_run.output.find("audit head ");
  ASSERT_NE(head_at, std::string::npos) << signed_run.output;
  const std::string noted = signed_run.output.substr(head_at + 11, 64);
  const std::string verify = std::string(AIRLOCK_OFFLINE_BIN) + " log verify --head " + noted;
  const auto in_new = airlock::test::run_command(verify + " --audit-log " + dir.file("audit.log"));
  EXPECT_EQ(in_new.exit_code, 1) << in_new.output;
  EXPECT_THAT(in_new.output, HasSubstr("or it is a head of the log this one continues ("));
  EXPECT_THAT(in_new.output, HasSubstr("check it there with --audit-log OLD --head"));
  const auto in_old = airlock::test::run_command(verify + " --audit-log " + dir.file("old.log"));
  EXPECT_EQ(in_old.exit_code, 0) << in_old.output;
  // It says which entry the head is and what came after it (operator review F18: it said
  // nothing of the head given).
  EXPECT_THAT(in_old.output,
              testing::ContainsRegex("--head is entry [0-9]+ \\(signed, [0-9T:-]+Z\\): "
                                     "the log holds it, [0-9]+ entr(y|ies) recorded "
                                     "after it"));

  // Stopped before its last step (here the old log's closed entry is cut off, as a power cut
  // would leave it): the old log still refuses, naming the command that finishes the start,
  // and that command (given the same file by another name) finishes it.
  const std::string old_text = airlock::test::text_of(dir.file("old.log")).value();
  std::ofstream(dir.file("old.log"), std::ios::trunc)
      << old_text.substr(0, old_text.rfind('\n', old_text.size() - 2) + 1);
  const auto into_closing = airlock::test::run_command(sign_into_old);
  EXPECT_EQ(into_closing.exit_code, 2) << into_closing.output;
  const std::string real = std::filesystem::canonical(dir.path()).string();
  EXPECT_THAT(into_closing.output,
              HasSubstr("a start that was interrupted: finish it with `airlock-offline log start "
                        "--audit-log " +
                        real + "/audit.log --continue-from " + dir.file("old.log") + "`"));
  const auto verified = airlock::test::run_command(
      std::string(AIRLOCK_OFFLINE_BIN) + " log verify --audit-log " + dir.file("old.log"));
  EXPECT_EQ(verified.exit_code, 0) << verified.output;
  EXPECT_THAT(verified.output, HasSubstr("was interrupted: finish it with `airlock-offline log "
                                         "start --audit-log " +
                                         real + "/audit.log --continue-from "));
  const auto finished =
      airlock::test::run_command("cd " + dir.path().string() + " && " + AIRLOCK_OFFLINE_BIN +
                                 " log start --audit-log ./audit.log "
                                 "--continue-from old.log");
  EXPECT_EQ(finished.exit_code, 0) << finished.output;
  EXPECT_THAT(finished.output, HasSubstr("(finishing the start that was interrupted)"));
  const auto old_closed = airlock::test::run_command(
      std::string(AIRLOCK_OFFLINE_BIN) + " log show --audit-log " + dir.file("old.log"));
  EXPECT_EQ(old_closed.exit_code, 0) << old_closed.output;
  EXPECT_THAT(old_closed.output, HasSubstr("closed  continued by the log begun with head"));
}

TEST_F(SigningTest, TheCommandLineSignsARequestFileAndWritesTheResponse) {
  const auto q = swap_request();
  write_request_file(q);
  write_command_inputs("yes");
  log.reset();  // the command takes the log's lock
  const std::string common = sign_command() + dir.file("req.alreq");
  const auto signed_run = airlock::test::run_command(common + " --out " + dir.file("res.alres"));
  EXPECT_EQ(signed_run.exit_code, 0) << signed_run.output;
  EXPECT_THAT(signed_run.output, HasSubstr("warn.unverified_lookup_table"));
  EXPECT_THAT(signed_run.output, HasSubstr("signed; audit head"));
  auto file = files::read_limited(dir.file("res.alres"), 8192);
  ASSERT_TRUE(file.ok());
  auto unwrapped = files::unwrap_envelope(*file);
  ASSERT_TRUE(unwrapped.ok());
  auto response = envelope::decode_response(unwrapped->second);
  ASSERT_TRUE(response.ok()) << response.error().to_string();
  EXPECT_EQ(response->request_id, q.request_id);
  EXPECT_EQ(std::get<std::vector<Signature>>(response->result).size(), q.steps.size());

  const auto verify = airlock::test::run_command(
      std::string(AIRLOCK_OFFLINE_BIN) + " log verify --audit-log " + dir.file("audit.log") +
      " --head " + to_hex(response->audit_head.view()));
  EXPECT_EQ(verify.exit_code, 0) << verify.output;
  EXPECT_THAT(verify.output, HasSubstr("1 entries verify"));

  // A request for a vault the policy does not list: refused, exit 1, the refusal still written.
  auto other = swap_request();
  other.vault = public_key_from_base58(kOtherVault).value();
  write_request_file(other);
  const auto refused_run =
      airlock::test::run_command(common + " --out " + dir.file("refused.alres"));
  EXPECT_EQ(refused_run.exit_code, 1) << refused_run.output;
  EXPECT_THAT(refused_run.output, HasSubstr("policy.vault_not_allowed"));
  // A log cut back to before a head it once had: broken (exit 1), not a usage error; a head
  // that is not a hash is the usage error.
  const std::string first_head = to_hex(response->audit_head.view());
  ASSERT_TRUE(std::filesystem::copy_file(dir.file("audit.log"), dir.file("whole.log")));
  const auto cut = airlock::test::run_command("head -n 1 " + dir.file("whole.log") + " > " +
                                              dir.file("cut.log"));
  ASSERT_EQ(cut.exit_code, 0);
  auto second_head = airlock::test::run_command(std::string(AIRLOCK_OFFLINE_BIN) +
                                                " log verify --audit-log " + dir.file("whole.log"));
  const auto head_at = second_head.output.find("head ");
  ASSERT_NE(head_at, std::string::npos) << second_head.output;
  const std::string last_head = second_head.output.substr(head_at + 5, 64);
  ASSERT_NE(last_head, first_head);
  const auto shortened =
      airlock::test::run_command(std::string(AIRLOCK_OFFLINE_BIN) + " log verify --audit-log " +
                                 dir.file("cut.log") + " --head " + last_head);
  EXPECT_EQ(shortened.exit_code, 1) << shortened.output;
  EXPECT_THAT(shortened.output,
              HasSubstr("audit.broken: head " + last_head + " is not in the log"));
  // The first entry's head with two digits mistyped: said to be a typing mistake, naming the
  // entry it nearly is, not a cut log.
  std::string typo = first_head;
  typo[10] = typo[10] == '0' ? '1' : '0';
  typo[40] = typo[40] == 'a' ? 'b' : 'a';
  const auto mistyped =
      airlock::test::run_command(std::string(AIRLOCK_OFFLINE_BIN) + " log verify --audit-log " +
                                 dir.file("whole.log") + " --head " + typo);
  EXPECT_EQ(mistyped.exit_code, 2) << mistyped.output;
  EXPECT_THAT(mistyped.output, HasSubstr("is in no entry, but entry 1's head " + first_head +
                                         " differs from it in only 2 of its 64 digits: most "
                                         "likely mistyped"));
  EXPECT_THAT(mistyped.output, Not(HasSubstr("removed from its end")));
  const auto not_a_head =
      airlock::test::run_command(std::string(AIRLOCK_OFFLINE_BIN) + " log verify --audit-log " +
                                 dir.file("cut.log") + " --head 00ff");
  EXPECT_EQ(not_a_head.exit_code, 2) << not_a_head.output;
  EXPECT_THAT(not_a_head.output, HasSubstr("--head: must be the 64 hex digits of an audit head"));
  EXPECT_THAT(refused_run.output,
              Not(HasSubstr("policy.vault_not_allowed: policy.vault_not_allowed")))
      << "the code is said once:\n"
      << refused_run.output;
  EXPECT_TRUE(std::filesystem::exists(dir.file("refused.alres")));

  // The log lists both decisions; an edited log stops both show and sign with exit 1.
  const std::string log_cmd =
      std::string(AIRLOCK_OFFLINE_BIN) + " log show --audit-log " + dir.file("audit.log");
  const auto shown = airlock::test::run_command(log_cmd);
  EXPECT_EQ(shown.exit_code, 0) << shown.output;
  EXPECT_THAT(shown.output, HasSubstr("1  "));
  EXPECT_THAT(shown.output, HasSubstr("  signed  aggregator/swap"));
  // Times as people read them (ISO 8601, UTC); `log export` keeps the unix time.
  EXPECT_THAT(shown.output,
              ::testing::ContainsRegex(
                  "1  [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z  signed"));
  EXPECT_THAT(shown.output, HasSubstr("  refused  aggregator/swap"));
  EXPECT_THAT(shown.output, HasSubstr("policy.vault_not_allowed"));
  const auto edited =
      airlock::test::run_command("sed -i 's/\"refused\"/\"declined\"/' " + dir.file("audit.log"));
  ASSERT_EQ(edited.exit_code, 0) << edited.output;
  const auto broken = airlock::test::run_command(log_cmd);
  EXPECT_EQ(broken.exit_code, 1) << broken.output;
  EXPECT_THAT(broken.output, HasSubstr("audit.broken"));
  const auto refused_sign = airlock::test::run_command(common + " --out " + dir.file("x.alres"));
  EXPECT_EQ(refused_sign.exit_code, 1) << refused_sign.output;
  EXPECT_THAT(refused_sign.output, HasSubstr("line 2"));
}

// A truly offline run (issue 15): in a network namespace with nothing but a loopback that is
// down, the air-gap check passes without --unsafe-allow-network, and the request is signed.
TEST_F(SigningTest, TheCommandLineSignsAirGappedWithoutTheOverride) {
  const std::string airgapped = std::string(AIRLOCK_SOURCE_DIR) + "/scripts/airgapped";
  if (airlock::test::run_command(airgapped + " true").exit_code != 0)
    GTEST_SKIP() << "no network namespaces here (unshare --net refused)";
  const auto q = swap_request();
  write_request_file(q);
  write_command_inputs("yes");
  log.reset();
  std::string command = sign_command();
  const std::string override = " --unsafe-allow-network";
  command.erase(command.find(override), override.size());
  const auto run = airlock::test::run_command(airgapped + " " + command + dir.file("req.alreq") +
                                              " --out " + dir.file("res.alres"));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, Not(HasSubstr("NOT AIR-GAPPED")));
  EXPECT_THAT(run.output, HasSubstr("signed; audit head"));
  EXPECT_TRUE(std::filesystem::exists(dir.file("res.alres")));
  // The same command outside the namespace is refused: this machine's interfaces are up.
  const auto outside = airlock::test::run_command(command + dir.file("req.alreq") + " --out " +
                                                  dir.file("res2.alres"));
  EXPECT_NE(outside.exit_code, 0) << outside.output;
  EXPECT_THAT(outside.output, HasSubstr("hardening.network_up"));
}

TEST_F(SigningTest, TheCommandLineReadsTheRequestFromQrImagesAndAnswersInQrImages) {
  const auto q = swap_request();
  // The online half's side of the gap: the request as dense QR frames, as PNG files.
  auto sender = transfer::Sender::create(
      {dense::ContentType::kSignRequest, envelope::encode_request(q)}, transfer::Options{});
  ASSERT_TRUE(sender.ok()) << sender.error().to_string();
  auto pngs = qr_io::render_pngs(*sender, qr_io::default_frame_count(*sender), 4);
  ASSERT_TRUE(pngs.ok());
  ASSERT_TRUE(qr_io::write_png_folder(*pngs, dir.file("request-frames")).ok());

  write_command_inputs("y");
  log.reset();
  const auto run =
      airlock::test::run_command(sign_command() + "--qr " + dir.file("request-frames") +
                                 " --qr-png " + dir.file("response-frames"));
  ASSERT_EQ(run.exit_code, 0) << run.output;

  // QR codes that carry a response where a request belongs are refused by name.
  const auto wrong = airlock::test::run_command(
      sign_command() + "--qr " + dir.file("response-frames") + " --out " + dir.file("x.alres"));
  EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
  EXPECT_THAT(wrong.output, HasSubstr("holds a sign response, not a request"));

  // Back on the online side: read the response frames and check every signature.
  auto source = qr_io::open_source({{dir.file("response-frames")}, std::nullopt, std::nullopt});
  ASSERT_TRUE(source.ok());
  auto received = qr_io::receive(**source, {.timeout = std::chrono::seconds(30)});
  ASSERT_TRUE(received.ok()) << received.error().to_string();
  EXPECT_EQ(received->content.type, dense::ContentType::kSignResponse);
  auto response = envelope::decode_response(received->content.bytes);
  ASSERT_TRUE(response.ok()) << response.error().to_string();
  const auto& sigs = std::get<std::vector<Signature>>(response->result);
  ASSERT_EQ(sigs.size(), q.steps.size());
  for (std::size_t i = 0; i < sigs.size(); ++i) {
    auto tx = parse_transaction(q.steps[i].transaction);
    ASSERT_TRUE(tx.ok());
    EXPECT_TRUE(verify_signature(manager_->public_key(), serialize_message(tx->message), sigs[i]));
  }
}

TEST_F(SigningTest, AResponseFolderHoldingTheOperatorsFilesIsRefusedBeforeAnythingIsDecided) {
  const auto q = swap_request();
  write_request_file(q);
  std::filesystem::create_directories(dir.file("usb"));
  std::ofstream(dir.file("usb/notes.txt")) << "the operator's";
  write_command_inputs("y");
  log.reset();
  const auto log_before = airlock::test::text_of(dir.file("audit.log"));
  const auto run = airlock::test::run_command(sign_command() + "--qr-png " + dir.file("usb") + " " +
                                              dir.file("req.alreq"));
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("--qr-png: '" + dir.file("usb") +
                                    "' holds 'notes.txt', which is not a QR frame"));
  EXPECT_TRUE(std::filesystem::exists(dir.file("usb/notes.txt")));
  EXPECT_EQ(airlock::test::text_of(dir.file("audit.log")), log_before) << "nothing was decided";
}

// The answer's descriptor with its redirection left off is a usage error before anything is
// shown or recorded, not a "no" the audit log would record as the operator's.
TEST_F(SigningTest, AnAnswerDescriptorThatIsNotOpenIsAUsageErrorNotADecline) {
  write_request_file(swap_request());
  write_command_inputs("y");
  log.reset();
  const auto log_before = airlock::test::text_of(dir.file("audit.log"));
  std::string command = sign_command();
  command = command.substr(0, command.find(" 4<")) + " --out " + dir.file("res.alres") + " " +
            dir.file("req.alreq");
  const auto run = airlock::test::run_command(command);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("--confirm-fd must name a file descriptor open for reading"));
  EXPECT_EQ(airlock::test::text_of(dir.file("audit.log")), log_before) << "nothing was decided";
  EXPECT_FALSE(std::filesystem::exists(dir.file("res.alres")));
}

// An output that names the keystore (or the policy, or the log) would replace it: refused by name
// before anything is read or decided.
TEST_F(SigningTest, AnOutputThatIsTheKeystoreIsRefusedAndTheKeyStays) {
  write_request_file(swap_request());
  write_command_inputs("y");
  log.reset();
  const auto key_before = airlock::test::text_of(keystore);
  const auto log_before = airlock::test::text_of(dir.file("audit.log"));
  for (const std::string& victim : {keystore, dir.file("audit.log"), dir.file("policy.toml")}) {
    const auto run = airlock::test::run_command(sign_command() + "--out " + victim + " " +
                                                dir.file("req.alreq"));
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_THAT(run.output, HasSubstr("--out: '" + victim + "' is the file of"));
  }
  EXPECT_EQ(airlock::test::text_of(keystore), key_before);
  EXPECT_EQ(airlock::test::text_of(dir.file("audit.log")), log_before);
  // A folder that does not exist is found before signing, not after the log says signed.
  const auto nowhere = airlock::test::run_command(
      sign_command() + "--out " + dir.file("no/such/res.alres") + " " + dir.file("req.alreq"));
  EXPECT_EQ(nowhere.exit_code, 3) << nowhere.output;
  EXPECT_EQ(airlock::test::text_of(dir.file("audit.log")), log_before) << "nothing was decided";
}

// Ctrl-C while the passphrase is typed (echo off) ends sign with the terminal as it was: an
// operator walk-through was left typing blind after it. The shell around sign survives the
// interrupt (its trap) and reports the terminal's echo setting afterwards.
TEST_F(SigningTest, AnInterruptAtThePassphraseGivesTheTerminalItsEchoBack) {
  const auto q = swap_request();
  write_command_inputs("unused");
  write_request_file(q);
  log.reset();
  const std::string command = interruptible_sign_command();
  int state = 0;
  const auto [code, screen] =
      airlock::test::run_on_terminal(command, [&](const std::string& shown) {
        std::optional<std::string> reply;
        if (state == 0 && shown.find("d: details]") != std::string::npos) {
          reply = "y";
        } else if (state == 1 && shown.find("passphrase: ") != std::string::npos) {
          reply = std::string("\x03");  // Ctrl-C (the Enter after it is flushed with it)
        }
        if (reply) ++state;
        return reply;
      });
  EXPECT_EQ(state, 2) << screen;
  EXPECT_THAT(screen, HasSubstr("sign ended 130")) << "ended by the interrupt";
  expect_echo_on(screen);
  EXPECT_FALSE(std::filesystem::exists(dir.file("res.alres"))) << "nothing was signed";
}

// Ctrl-C at the question is a no: the decline is written at once (the online half learns it
// now, not at the deadline) and logged, and the terminal keeps its echo (operator review F17:
// the process ended by the signal and wrote nothing).
TEST_F(SigningTest, AnInterruptAtTheQuestionIsADeclineWithItsAnswerWritten) {
  const auto q = swap_request();
  write_command_inputs("unused");
  write_request_file(q);
  log.reset();
  const std::string command = interruptible_sign_command();
  int state = 0;
  const auto [code, screen] =
      airlock::test::run_on_terminal(command, [&](const std::string& shown) {
        std::optional<std::string> reply;
        if (state == 0 && shown.find("d: details]") != std::string::npos) {
          reply = std::string("\x03");  // Ctrl-C
          ++state;
        }
        return reply;
      });
  EXPECT_EQ(state, 1) << screen;
  EXPECT_THAT(screen, HasSubstr("interrupted at the prompt: that is a no"));
  EXPECT_THAT(screen, HasSubstr("sign ended 1")) << "a decline, not the signal";
  expect_echo_on(screen);
  auto file = files::read_limited(dir.file("res.alres"), 8192);
  ASSERT_TRUE(file.ok()) << "no answer was written:\n" << screen;
  auto unwrapped = files::unwrap_envelope(*file);
  ASSERT_TRUE(unwrapped.ok());
  auto response = envelope::decode_response(unwrapped->second);
  ASSERT_TRUE(response.ok()) << response.error().to_string();
  ASSERT_TRUE(std::holds_alternative<envelope::Refusal>(response->result));
  EXPECT_EQ(std::get<envelope::Refusal>(response->result).code, "operator.declined");
  const auto logged = offline::verify_audit_log(dir.file("audit.log"));
  ASSERT_TRUE(logged.ok());
  EXPECT_EQ(logged->back().decision, offline::Decision::kDeclined);
}

// The decision screen drawn again after the details says the deadline as it is then (operator
// review F5: it kept the seconds left from the first drawing).
TEST_F(SigningTest, TheDecisionScreenAfterTheDetailsShowsTheDeadlineAsItIsThen) {
  const auto q = swap_request();
  write_command_inputs("unused");
  write_request_file(q);
  log.reset();
  int state = 0;
  const auto [code, screen] = airlock::test::run_on_terminal(
      terminal_sign_command(), [&](const std::string& shown) -> std::optional<std::string> {
        const auto prompts = [&](std::string_view what) {
          std::size_t n = 0;
          for (auto at = shown.find(what); at != std::string::npos; at = shown.find(what, at + 1))
            ++n;
          return n;
        };
        if (state == 0 && prompts("d: details]") == 1) {
          ++state;
          return std::string("d");
        }
        if (state == 1 && shown.find("q to go back --") != std::string::npos) {
          ++state;
          std::this_thread::sleep_for(std::chrono::milliseconds(2200));
          return std::string("q");
        }
        if (state == 2 && prompts("d: details]") == 2) {
          ++state;
          return std::string("n");
        }
        return std::nullopt;
      });
  EXPECT_EQ(state, 3) << screen;
  std::vector<int> left;
  const std::regex deadline("deadline  in ([0-9]+) s");
  for (auto it = std::sregex_iterator(screen.begin(), screen.end(), deadline);
       it != std::sregex_iterator(); ++it)
    left.push_back(std::stoi((*it)[1].str()));
  // The details' rows break at spaces, so the lookup table's key in a warning's line, which
  // an 80-column row cut in two, is whole there too (operator review F5): on both decision
  // screens and on the details' first page.
  const std::string table = "589WTtRFw4ft19PNnQViXwzXdAstVFKSUThUtdbGUZM2";
  std::size_t whole = 0;
  for (auto at = screen.find(table); at != std::string::npos; at = screen.find(table, at + 1))
    ++whole;
  EXPECT_GE(whole, 3U) << screen;
  // The request's JSON body has no spaces: its row breaks after a comma, so each of its
  // members (a mint's key among them) is whole on the details' page.
  const json body = json::parse(q.intent_json);
  ASSERT_TRUE(body.is_object());
  for (auto it = body.begin(); it != body.end(); ++it) {
    const std::string member = "\"" + it.key() + "\":" + it.value().dump();
    EXPECT_THAT(screen, HasSubstr(member)) << "the body's " << it.key() << " was cut";
  }
  // The decision screen, the details' header, the decision screen again.
  ASSERT_EQ(left.size(), 3U) << screen;
  EXPECT_LE(left.back(), left.front() - 2) << "the second drawing kept the first one's deadline";
}

// The passphrase typed at the y/N prompt by mistake (an operator walk-through did) is not shown:
// the prompt reads with echo off and shows back only the answers it knows; anything else, by
// its length. It is no yes, so nothing is signed.
TEST_F(SigningTest, APassphraseTypedAtTheQuestionIsNotShown) {
  const auto q = swap_request();
  write_command_inputs("unused");
  write_request_file(q);
  log.reset();
  const auto [code, screen] = airlock::test::run_on_terminal(
      terminal_sign_command() + "; " + kEchoSetting, {{"d: details]", "correct horse"}});
  EXPECT_THAT(screen, Not(HasSubstr("correct horse"))) << screen;
  EXPECT_THAT(screen, HasSubstr("(13 characters, not shown: not an answer)"));
  EXPECT_THAT(screen, HasSubstr("declined"));
  expect_echo_on(screen);
}

TEST_F(SigningTest, TheOperatorAnswersOnTheTerminalAndThePassphraseIsNotEchoed) {
  const auto q = swap_request();
  write_command_inputs("unused");
  write_request_file(q);
  log.reset();
  const std::string command = terminal_sign_command();
  // The decision screen and the prompt; once the time left has ticked, d for the details, a
  // page at a time (Enter for each next one), then yes at the prompt that follows them, then the
  // passphrase.
  int state = 0;
  int pages = 0;
  const auto [code,
              screen] = airlock::test::run_on_terminal(command, [&](const std::string& shown) {
    std::optional<std::string> reply;
    if (state == 0 && shown.find("d: details]") != std::string::npos &&
        shown.find("\x1b"
                   "7\r") != std::string::npos) {
      reply = "d";
    } else if (state == 1 && shown.find("Enter for more, q to go back --") != std::string::npos) {
      ++pages;
      return std::optional<std::string>("");
    } else if (state == 1 && shown.find("d: details]") != std::string::npos) {
      reply = "y";
    } else if (state == 2 && shown.find("passphrase: ") != std::string::npos) {
      reply = "correct horse";
    }
    if (reply) ++state;
    return reply;
  });
  EXPECT_EQ(code, 0) << screen;
  EXPECT_EQ(state, 3) << screen;
  // The details of a swap run to several screens of 24 rows: each shown whole, then the decision.
  EXPECT_GE(pages, 2) << screen;
  // No row of the pages (and the decision shown again after them) is wider than the terminal's
  // 80 columns: a wider details line would wrap and push the page's first rows off the screen.
  // Escape sequences and what a carriage return writes over are left out.
  {
    const auto from = screen.find("d: details]");
    const auto to = screen.rfind("d: details]");
    ASSERT_LT(from, to) << screen;
    const std::string plain = std::regex_replace(screen.substr(from, to - from),
                                                 std::regex("\x1b(\\[[0-9;?]*[A-Za-z]|[78])"), "");
    std::size_t widest = 0;
    std::istringstream rows(plain);
    for (std::string row; std::getline(rows, row);) {
      if (const auto cr = row.find_last_of('\r', row.size() >= 2 ? row.size() - 2 : 0);
          cr != std::string::npos && cr + 1 < row.size())
        row = row.substr(cr + 1);
      while (!row.empty() && row.back() == '\r') row.pop_back();
      const auto width = static_cast<std::size_t>(std::count_if(row.begin(), row.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      }));
      widest = std::max(widest, width);
      EXPECT_LE(width, 80U) << row;
    }
    EXPECT_GT(widest, 60U) << "the rows were measured";
  }
  const auto last_page = screen.rfind("Enter for more, q to go back --");
  // An account's role is shown only in the details (a warning may name the instruction).
  EXPECT_NE(screen.find("vault_source_account"), std::string::npos);
  EXPECT_LT(last_page, screen.rfind("d: details]")) << "the decision came back after the pages";
  // What the whole request does and the verdict come first, with no instruction in them; the
  // details only on request.
  const std::size_t prompt = screen.find("d: details]");
  ASSERT_NE(prompt, std::string::npos) << screen;
  EXPECT_LT(screen.find("verdict   nothing refused"), prompt);
  EXPECT_LT(screen.find("swap      "), prompt);
  EXPECT_GT(screen.find("vault_source_account"), prompt)
      << "the details came before they were asked";
  EXPECT_THAT(screen, HasSubstr(" s left")) << "the prompt says the time left";
  EXPECT_THAT(screen, HasSubstr("signed; audit head"));
  EXPECT_THAT(screen, Not(HasSubstr("correct horse"))) << "the passphrase was echoed";

  // A new request: the details left at their first page (q), back at the decision a plain
  // Enter declines, and the key is never asked for.
  const auto second = swap_request();
  write_request_file(second);
  const auto [declined, declined_screen] = airlock::test::run_on_terminal(
      command, {{"d: details]", "d"}, {"q to go back --", "q"}, {"d: details]", ""}});
  EXPECT_EQ(declined, 1) << declined_screen;
  EXPECT_THAT(declined_screen, HasSubstr("details, lines 1-22 of "));
  EXPECT_THAT(declined_screen, Not(HasSubstr("details, lines 23-"))) << "a page after q";
  EXPECT_THAT(declined_screen, HasSubstr("operator.declined"));
  // The prompt, not the word: the lock-down's note on RLIMIT_MEMLOCK mentions the passphrase
  // where the limit is low.
  EXPECT_THAT(declined_screen, Not(HasSubstr("Keystore passphrase:")));
}

// A mistyped passphrase on the terminal is asked for again (three tries in all), not the end
// of the round; three wrong ones end it as before, nothing decided.
TEST_F(SigningTest, AWrongPassphraseOnTheTerminalIsAskedForAgain) {
  write_command_inputs("unused");
  write_request_file(swap_request());
  log.reset();
  const std::string command = terminal_sign_command();
  int passphrases = 0;
  const auto answering = [&](const std::vector<std::string>& typed) {
    passphrases = 0;
    bool said_yes = false;
    return airlock::test::run_on_terminal(command, [&](const std::string& shown) {
      std::optional<std::string> reply;
      if (!said_yes && shown.find("d: details]") != std::string::npos) {
        said_yes = true;
        reply = "y";
      } else if (shown.find("Keystore passphrase: ") != std::string::npos &&
                 passphrases < static_cast<int>(typed.size())) {
        reply = typed[static_cast<std::size_t>(passphrases++)];
      }
      return reply;
    });
  };
  const auto [code, screen] = answering({"wrong horse", "correct horse"});
  EXPECT_EQ(code, 0) << screen;
  EXPECT_EQ(passphrases, 2);
  EXPECT_THAT(screen, HasSubstr("that passphrase does not open the keystore; try 2 of 3"));
  EXPECT_THAT(screen, HasSubstr("signed; audit head"));

  write_request_file(swap_request());
  const auto [locked, locked_screen] = answering({"wrong", "wronger", "wrongest"});
  EXPECT_EQ(locked, 3) << locked_screen;
  EXPECT_EQ(passphrases, 3);
  EXPECT_THAT(locked_screen, HasSubstr("keystore.locked"));
}

// Yesterday's request file again: it says it was signed before and when, gives the same
// signatures, signs nothing new, and says its deadline is long gone.
TEST_F(SigningTest, ARequestSignedBeforeSaysSoAndWhen) {
  auto q = swap_request();
  q.deadline = static_cast<std::uint64_t>(std::time(nullptr) + 30);
  write_command_inputs("unused");
  write_request_file(q);
  log.reset();
  const std::string command = terminal_sign_command();
  const auto first = airlock::test::run_on_terminal(
      command, {{"d: details]", "y"}, {"passphrase: ", "correct horse"}});
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const std::string log_after = airlock::test::text_of(dir.file("audit.log")).value();
  const auto again =
      airlock::test::run_on_terminal(command, std::vector<std::pair<std::string, std::string>>{});
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_THAT(again.output, HasSubstr("was already signed at 20"));
  EXPECT_THAT(again.output, HasSubstr("nothing new is signed"));
  EXPECT_THAT(again.output, Not(HasSubstr("passphrase:"))) << "no key is opened for it";
  EXPECT_THAT(again.output, Not(HasSubstr("deadline passed")));
  EXPECT_NE(airlock::test::text_of(dir.file("audit.log")).value(), log_after)
      << "the reissue is recorded too";
  // The same request whose deadline is long gone (the same id and transactions): it says that
  // too.
  q.created_at = static_cast<std::uint64_t>(std::time(nullptr) - 3700);
  q.deadline = static_cast<std::uint64_t>(std::time(nullptr) - 3600);
  write_request_file(q);
  const auto late =
      airlock::test::run_on_terminal(command, std::vector<std::pair<std::string, std::string>>{});
  EXPECT_EQ(late.exit_code, 0) << late.output;
  EXPECT_THAT(late.output, HasSubstr("Its deadline passed"));
}

// Left at the prompt past the deadline, the prompt ends by itself with the reason, and nothing
// is signed.
TEST_F(SigningTest, ThePromptEndsWhenTheDeadlinePasses) {
  auto q = swap_request();
  q.deadline = static_cast<std::uint64_t>(std::time(nullptr) + 3);
  write_command_inputs("unused");
  write_request_file(q);
  log.reset();
  const std::string command = terminal_sign_command();
  const auto [code, screen] =
      airlock::test::run_on_terminal(command, std::vector<std::pair<std::string, std::string>>{});
  EXPECT_EQ(code, 1) << screen;
  EXPECT_THAT(screen, HasSubstr("ONLY ")) << "under 15 s the prompt says so";
  EXPECT_THAT(screen, HasSubstr("the deadline passed at the prompt"));
  EXPECT_THAT(screen, Not(HasSubstr("Keystore passphrase:")));
}

TEST_F(SigningTest, OnlineAndOfflineTogetherCarryASwapFromBuildToConfirmedOverQr) {
  write_command_inputs("y");
  write_text("api.key", std::string(kDemoKey) + "\n");
  log.reset();
  const json before = counters();
  // The online half builds, writes the request as QR frames and waits for the answer's frames
  // (the folders written with a trailing slash, as docs/cli.md does).
  airlock::test::CommandResult online_run;
  std::thread online([&] {
    online_run = airlock::test::run_command(act_swap_command(
        "--request-qr-png " + dir.file("request-frames") + "/ --request-qr-html " +
        dir.file("request.html") + " --response-qr-png " + dir.file("response-frames") +
        "/ --journal " + dir.file("journal.sqlite")));
  });
  // The offline half reads the request frames once they are all written.
  EXPECT_TRUE(airlock::test::wait_for_file(dir.file("request-frames"),  // renamed into place
                                           std::chrono::seconds(60)));
  const auto offline_run = airlock::test::run_command(
      sign_command() + "--qr " + dir.file("request-frames") + " --qr-png " +
      dir.file("response-frames.tmp") + " && mv " + dir.file("response-frames.tmp") + " " +
      dir.file("response-frames"));
  online.join();
  EXPECT_EQ(offline_run.exit_code, 0) << offline_run.output;
  EXPECT_EQ(online_run.exit_code, 0) << online_run.output;
  EXPECT_THAT(online_run.output, HasSubstr("step 1 of 1 confirmed"));
  EXPECT_THAT(online_run.output, HasSubstr("aggregator/swap done"));
  // The same request as one page for a screen: every frame embedded, nothing fetched.
  auto page = files::read_limited(dir.file("request.html"), 1 << 22);
  ASSERT_TRUE(page.ok());
  const std::string html(page->begin(), page->end());
  EXPECT_THAT(html, HasSubstr("airlock sign request: aggregator/swap"));
  EXPECT_THAT(html, HasSubstr("data:image/png;base64,"));
  EXPECT_THAT(html, Not(HasSubstr("http://")));
  EXPECT_THAT(html, Not(HasSubstr("https://")));
  const json after = counters();
  EXPECT_EQ(after["builds"].get<int>() - before["builds"].get<int>(), 1) << after.dump();
  EXPECT_EQ(after["sends"].get<int>() - before["sends"].get<int>(), 1) << after.dump();
  EXPECT_EQ(after["landed"].get<int>() - before["landed"].get<int>(), 1) << after.dump();
}

// Found by an independent review: the approval screen cut long values ("bins: [{...},{...},
// {"amount":"1000","binId":49...") and listed only the first fields, so an operator approved
// bins they never saw, later signed without a question. Every leaf is shown whole now, the
// warnings too, and vault/initialize (whose vault the build makes) is not approvable.
TEST_F(SigningTest, TheApprovalScreenShowsEveryFieldWholeAndItsWarnings) {
  auto q = swap_request();
  const auto policy = demo_policy(q);
  json bins = json::array();
  for (int i = 0; i < 5; ++i)
    bins.push_back({{"binId", 4990 + i}, {"amount", i < 2 ? "1000" : "150000000"}});
  json body = {{"vault", kVault}, {"lbPair", kSolUsdcPool}, {"side", "bid"}, {"bins", bins}};
  for (int i = 0; i < 12; ++i) body["note" + std::to_string(i)] = std::string(90, 'x');
  auto approval = approval_of(q, now_s());
  approval.action = "dlmm/limit-order/place";
  approval.intent_json = body.dump();
  approval.hints.tokens.push_back({public_key_from_base58(kJup).value(), "JUP\x1b", 6, {}});
  answer = false;
  auto shown = process(approval, policy);
  ASSERT_TRUE(shown.ok()) << shown.error().to_string();
  EXPECT_THAT(last_summary, HasSubstr("bins[4].amount: 150000000"));
  EXPECT_THAT(last_summary, HasSubstr("bins[4].binId: 4994"));
  EXPECT_THAT(last_summary, HasSubstr("note11:"));
  EXPECT_THAT(last_summary, Not(HasSubstr("...")));
  EXPECT_THAT(last_summary, HasSubstr("warn.misleading_hint"));
  for (const auto& line : [&] {
         std::vector<std::string> out;
         std::istringstream in(last_summary);
         for (std::string l; std::getline(in, l);) out.push_back(l);
         return out;
       }())
    EXPECT_LE(line.size(), 80U) << line;

  auto make_vault = approval_of(q, now_s());
  make_vault.action = "vault/initialize";
  auto refused = process(make_vault, demo_policy(q, "allow_vault_initialize = true"));
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->decision, offline::Decision::kRefused);
  EXPECT_THAT(std::get<envelope::Refusal>(refused->response.result).reason,
              HasSubstr("vault/initialize makes its vault in the build"));
}

// Found by an independent review: an approval of dlmm/add (whose body names only a position)
// showed its amounts in the tokens of whatever pool the online half's hint named, labelled
// "decimals pinned by the policy", and the build, in the position's real pool, was then signed
// under the approval without a question: 1 SOL approved, 1000 USDC deposited. Before the build
// nothing names the position's pool, so a hint labels nothing there; where the body names the
// pool, the screen says which token it holds is the online half's word.
TEST_F(SigningTest, AnApprovalTakesNoUnitFromAPoolOnlyTheHintsName) {
  auto q = swap_request();
  const auto policy = demo_policy(q);
  auto approval = approval_of(q, now_s());
  approval.action = "dlmm/add";
  approval.intent_json =
      json{{"vault", kVault},      {"position", "BBJdqNHmdSYXt4Yw7qnyktXEQdu2Rp5sbsXwcsuNNs4h"},
           {"amountX", "7000001"}, {"amountY", "1000000000"},
           {"shape", "spot"},      {"maxActiveBinSlippage", 5}}
          .dump();
  // The hint names a pool whose X is USDC and Y is SOL; both tokens have labels.
  approval.hints.pools.push_back({public_key_from_base58(kSolUsdcPool).value(),
                                  public_key_from_base58(kUsdc).value(),
                                  public_key_from_base58(kSol).value()});
  approval.hints.tokens = {{public_key_from_base58(kUsdc).value(), "USDC", 6, {}},
                           {public_key_from_base58(kSol).value(), "SOL", 9, {}}};
  answer = false;
  auto shown = process(approval, policy);
  ASSERT_TRUE(shown.ok()) << shown.error().to_string();
  EXPECT_THAT(last_summary, HasSubstr("amountX: 7000001\n"));
  EXPECT_THAT(last_summary, HasSubstr("amountY: 1000000000\n"));
  EXPECT_THAT(last_summary, Not(HasSubstr("7.000001 USDC")));
  EXPECT_THAT(last_summary, Not(HasSubstr("1 SOL")));
  // dlmm/open names its pool: the hint's word on which token is X is said to be the hint's.
  auto open = approval_of(q, now_s());
  open.action = "dlmm/open";
  open.intent_json =
      json{{"vault", kVault},    {"lbPair", kSolUsdcPool},   {"lowerBinId", 4960},
           {"upperBinId", 5040}, {"amountX", "7000001"},     {"amountY", "1000000000"},
           {"shape", "spot"},    {"maxActiveBinSlippage", 5}}
          .dump();
  open.hints = approval.hints;
  auto opened = process(open, policy);
  ASSERT_TRUE(opened.ok()) << opened.error().to_string();
  EXPECT_THAT(last_summary, HasSubstr("7.000001 USDC: which token the pool holds is the"));
}

// sign --json and review --json say the same of one request: for an id signed before over other
// transactions, both lead the refusals with policy.replay and neither calls it auto-approvable
// (review listed the review's findings alone and `auto_approvable: true`; sign, refusing from
// the log, showed no refusal at all). Review adds only its own "review" object.
TEST_F(SigningTest, SignAndReviewPrintTheSameJsonForAReplayedId) {
  write_command_inputs("yes");
  log.reset();  // the commands below use the log file themselves
  const auto first = swap_request();
  write_request_file(first);
  const auto signed_once = airlock::test::run_command(sign_command() + dir.file("req.alreq") +
                                                      " --out " + dir.file("res1.alres"));
  ASSERT_EQ(signed_once.exit_code, 0) << signed_once.output;
  // Another build under the same id: other transactions (another amount).
  const json body = {{"vault", kVault},
                     {"sourceMint", kUsdc},
                     {"destinationMint", kJup},
                     {"amount", "6000000"},
                     {"slippageBps", 50}};
  auto again =
      request_of("aggregator/swap", body, post("/transactions/aggregator/swap", body).body);
  again.request_id = first.request_id;
  write_request_file(again);
  // Standard output alone: the JSON (the notes on standard error go nowhere).
  const auto reviewed = airlock::test::run_command(
      "(" + std::string(AIRLOCK_OFFLINE_BIN) + " review --json --policy " +
      dir.file("policy.toml") + " --audit-log " + dir.file("audit.log") + " " +
      dir.file("req.alreq") + " 2>/dev/null)");
  EXPECT_EQ(reviewed.exit_code, 1) << reviewed.output;
  const auto signed_again =
      airlock::test::run_command("(" + sign_command() + "--json " + dir.file("req.alreq") +
                                 " --out " + dir.file("res2.alres") + " 2>/dev/null)");
  EXPECT_EQ(signed_again.exit_code, 1) << signed_again.output;
  auto from_review = json::parse(reviewed.output, nullptr, false);
  const auto from_sign = json::parse(signed_again.output, nullptr, false);
  ASSERT_FALSE(from_review.is_discarded()) << reviewed.output;
  ASSERT_FALSE(from_sign.is_discarded()) << signed_again.output;
  EXPECT_EQ(from_review["review"]["verdict"], "refused");
  from_review.erase("review");
  EXPECT_EQ(from_review, from_sign);
  ASSERT_FALSE(from_sign["refusals"].empty()) << from_sign.dump(2);
  EXPECT_EQ(from_sign["refusals"][0]["code"], "policy.replay");
  EXPECT_EQ(from_sign["auto_approvable"], false);
}

// A request that does not decode still gets its SHA-256 and a verdict from review, as text, as
// JSON and as a page an auditor can file (before, review stopped with the decoder's error).
// An operator walk-through signed into a mistyped log path (audti.log), which started a log of
// its own without a word while the real one never heard of the decision. sign now says which
// log it appends to, and loudly when it starts one.
TEST_F(SigningTest, SignSaysWhichAuditLogItAppendsTo) {
  write_command_inputs("n");
  write_request_file(swap_request());
  log.reset();
  const std::string command =
      std::string(AIRLOCK_OFFLINE_BIN) + " sign --unsafe-allow-network --keystore " + keystore +
      " --policy " + dir.file("policy.toml") + " --audit-log " + dir.file("audti.log") +
      " --passphrase-fd 3 --confirm-fd 4 3<" + dir.file("pass") + " 4<" + dir.file("answer") +
      " --out " + dir.file("res.alres") + " " + dir.file("req.alreq");
  const auto typo = airlock::test::run_command(command);
  EXPECT_THAT(typo.output, HasSubstr("NOTE: there was no audit log at " + dir.file("audti.log")))
      << typo.output;
  write_request_file(swap_request());
  const auto again = airlock::test::run_command(command);
  EXPECT_THAT(again.output, HasSubstr("audit log " + dir.file("audti.log") + ": 1 entries"))
      << again.output;
  EXPECT_THAT(again.output, Not(HasSubstr("NOTE: there was no audit log")));
}

TEST_F(SigningTest, ReviewReportsARequestThatDoesNotDecodeWithItsDigest) {
  write_command_inputs("yes");
  const Bytes garbage = {0xa1, 0x01, 0xff, 0x00, 0x13};
  const Bytes file = files::wrap_envelope(files::EnvelopeKind::kRequest, garbage);
  ASSERT_TRUE(files::write_atomically(dir.file("bad.alreq"), file).ok());
  const std::string digest = to_hex(sha256(file).view());
  const std::string review = std::string(AIRLOCK_OFFLINE_BIN) + " review --policy " +
                             dir.file("policy.toml") + " " + dir.file("bad.alreq");
  const auto text =
      airlock::test::run_command(review + " --html " + dir.file("bad.html") + " 2>/dev/null");
  EXPECT_EQ(text.exit_code, 1) << text.output;
  EXPECT_THAT(text.output, HasSubstr("request SHA-256  " + digest));
  EXPECT_THAT(text.output, HasSubstr("The request does not decode: "));
  EXPECT_THAT(text.output, HasSubstr("VERDICT: sign would refuse to read this request"));
  const auto page = airlock::test::text_of(dir.file("bad.html"));
  ASSERT_TRUE(page.has_value());
  EXPECT_THAT(*page, HasSubstr("<span class=\"word\">undecodable</span>"));
  EXPECT_THAT(*page, HasSubstr(digest));
  EXPECT_THAT(*page, HasSubstr("<pre id=\"report\">"));
  const auto as_json = airlock::test::run_command("(" + review + " --json 2>/dev/null)");
  EXPECT_EQ(as_json.exit_code, 1) << as_json.output;
  const auto j = json::parse(as_json.output, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << as_json.output;
  EXPECT_EQ(j["review"]["verdict"], "undecodable");
  EXPECT_EQ(j["review"]["request_sha256"], digest);
  EXPECT_FALSE(j["review"]["error"]["message"].get<std::string>().empty());
}

// review judges as sign would: an approval request asks (and once decided, is a replay); the
// build it covers is signed without asking, which review says, naming the approval's entry.
TEST_F(SigningTest, ReviewSaysWhatSignWouldDoWithAnApproval) {
  auto q = swap_request();
  const auto policy = swap_policy(q);
  write_text("policy.toml", offline::policy_toml(policy));
  const auto approval = approval_of(q, now_s());
  const auto review_of = [&](const envelope::SignRequest& r, const std::string& extra) {
    write_request_file(r);
    return airlock::test::run_command(
        std::string(AIRLOCK_OFFLINE_BIN) + " review --policy " + dir.file("policy.toml") +
        " --audit-log " + dir.file("audit.log") + " " + extra + " " + dir.file("req.alreq"));
  };
  const auto before = review_of(approval, "");
  EXPECT_EQ(before.exit_code, 0) << before.output;
  EXPECT_THAT(before.output, HasSubstr("Approve before it is built: aggregator/swap"));
  EXPECT_THAT(before.output, HasSubstr("sign would show this approval request and ask"));
  ASSERT_EQ(process(approval, policy)->decision, offline::Decision::kApproved);
  const auto again = review_of(approval, "");
  EXPECT_NE(again.exit_code, 0);
  EXPECT_THAT(again.output, HasSubstr("policy.replay"));
  const auto covered = review_of(q, "");
  EXPECT_EQ(covered.exit_code, 0) << covered.output;
  EXPECT_THAT(covered.output, HasSubstr("sign would sign this without asking: the approval in "
                                        "audit entry 1 covers exactly this intent"));
  const auto as_json = review_of(q, "--json");
  EXPECT_THAT(as_json.output, HasSubstr("\"verdict\": \"approved-before\""));
  EXPECT_THAT(as_json.output, HasSubstr("\"under_approval_entry\": 1"));
  // Once sign used it, review no longer counts on it.
  answer = true;
  ASSERT_TRUE(process(q, policy)->under_approval.has_value());
  auto rebuilt = swap_request();
  const auto spent = review_of(rebuilt, "");
  EXPECT_THAT(spent.output, HasSubstr("sign would show this and ask the operator"));
}

// The wrong clocks of the test below come from libfaketime, preloaded into airlock-online.
constexpr const char* kLibfaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
// A program run under it is stopped after a minute (timeout's exit code then is 124), so a
// hang fails its test with what it printed rather than stalling the whole run.
constexpr const char* kBounded = "timeout -k 5 60 ";
constexpr int kTimedOut = 124;

// The environment for a program to run with its wall clock off by `offset` (libfaketime's
// notation: "+1h", "-10m"), from the start or only after `jump_after_s` seconds; its monotonic
// clock stays true.
//
// Under AddressSanitizer (CI's test build) the two libraries can lock each other up: the
// sanitizer's allocator reads the clock when it maps fresh memory for a block size, which
// calls into libfaketime, and libfaketime allocates while it holds its own state (setting itself
// up through dlsym, rereading its settings with fopen), so a fresh mapping in there waits on
// the allocator lock its own thread holds. It hung two CI runs. allocator_release_to_os_interval_ms
// = -1 turns off the only clock read the allocator makes (it times when to hand memory back to
// the system), which breaks the cycle; FakedClock.ASanitizedProgramRunsUnderIt hangs without
// it. The offsets are given in FAKETIME and the jump by FAKETIME_START_AFTER_SECONDS rather
// than a timestamp file, which libfaketime would reread under its lock.
std::string faked_clock(const std::string& offset, std::optional<int> jump_after_s) {
  std::string env = std::string("ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}") +
                    "allocator_release_to_os_interval_ms=-1 LD_PRELOAD=" + kLibfaketime +
                    " FAKETIME=" + offset + " FAKETIME_DONT_FAKE_MONOTONIC=1 ";
  if (jump_after_s) env += "FAKETIME_START_AFTER_SECONDS=" + std::to_string(*jump_after_s) + " ";
  return env;
}

// A program built as the tests are (sanitized in CI) reads the clock libfaketime gives it while
// its threads allocate blocks of every size, and ends: the pattern that deadlocked.
TEST(FakedClock, ASanitizedProgramRunsUnderIt) {
  ASSERT_TRUE(std::filesystem::exists(kLibfaketime))
      << "libfaketime is not installed: scripts/setup installs it";
  for (int run = 0; run < 3; ++run) {
    const auto before = std::time(nullptr);
    const auto witness = airlock::test::run_command(faked_clock("+1h", std::nullopt) + kBounded +
                                                    AIRLOCK_CLOCK_WITNESS_BIN);
    ASSERT_EQ(witness.exit_code, 0) << "run " << run << ": " << witness.output;
    // It saw the clock an hour on.
    const long long seen = std::stoll(witness.output);
    EXPECT_GE(seen, before + 3600);
    EXPECT_LE(seen, std::time(nullptr) + 3600);
  }
}

// Issue 31 with the real clock library: airlock-online runs under libfaketime and its wall clock
// is wrong: an hour ahead from the start, or jumping an hour forward while the offline half
// decides. Its deadlines run on the monotonic clock (which libfaketime is told to leave alone),
// so the answer, which came in time, is sent and lands once. Ten minutes behind, every request
// it makes reads as long dead to the offline half: refused, saying the clocks differ, and
// nothing is sent.
// (faked_clock says how it runs under the sanitizers.)
TEST_F(SigningTest, AWrongOrJumpingWallClockOnTheOnlineHalfLandsEachRoundAtMostOnce) {
  ASSERT_TRUE(std::filesystem::exists(kLibfaketime))
      << "libfaketime is not installed: scripts/setup installs it";
  write_command_inputs("y");
  write_text("api.key", std::string(kDemoKey) + "\n");
  log.reset();
  // Seconds after its start at which the jumping clock jumps: well after the request is out
  // (a few seconds under the sanitizers on a loaded machine), which the test checks, and before
  // the offline half is asked.
  constexpr int kJumpAfter = 15;
  struct Case {
    const char* name;
    const char* offset;
    bool jumps;
    bool lands;
  };
  int round = 0;
  for (const Case& c : {Case{"an hour ahead", "+1h", false, true},
                        Case{"jumping an hour forward", "+1h", true, true},
                        Case{"ten minutes behind", "-10m", false, false}}) {
    SCOPED_TRACE(c.name);
    ++round;
    const json before = counters();
    const std::string request = dir.file("req" + std::to_string(round) + ".alreq");
    const std::string response = dir.file("res" + std::to_string(round) + ".alres");
    // Another amount each round: another transaction, not the last one sent again.
    const std::string base = "http://127.0.0.1:" + std::to_string(server_->port());
    const json body = {{"vault", kVault},
                       {"sourceMint", kUsdc},
                       {"destinationMint", kJup},
                       {"amount", std::to_string(1000000 + round)},
                       {"slippageBps", 50}};
    const std::string clock =
        faked_clock(c.offset, c.jumps ? std::optional<int>(kJumpAfter) : std::nullopt);
    airlock::test::CommandResult online_run;
    const auto started = std::chrono::steady_clock::now();
    std::thread online([&] {
      online_run = airlock::test::run_command(
          clock + kBounded + AIRLOCK_ONLINE_BIN + " act aggregator/swap --api " + base +
          std::string(kApiPrefix) + " --api-key-file " + dir.file("api.key") + " --rpc " + base +
          "/rpc --body '" + body.dump() + "' --request-out " + request + " --response " + response +
          " --journal " + dir.file("journal.sqlite"));
    });
    const bool requested = airlock::test::wait_for_file(request, std::chrono::seconds(60));
    if (c.jumps) {
      // Out before the jump: its deadline is on the true clock, not an hour on.
      const auto q = request_in(request);
      EXPECT_TRUE(q && static_cast<std::int64_t>(q->deadline) < now_s() + 1800)
          << "the request was not out before the clock jumped";
      std::this_thread::sleep_until(started + std::chrono::seconds(kJumpAfter + 1));
    }
    const auto offline_run =
        airlock::test::run_command(sign_command() + "--out " + response + " " + request);
    online.join();
    // A bounded run that was stopped ends the test here, with what it printed.
    ASSERT_NE(online_run.exit_code, kTimedOut) << online_run.output;
    ASSERT_TRUE(requested) << online_run.output;
    const json after = counters();
    // One build: the request answered is the one first out, not one built again because the
    // jumped wall clock made the wait end early.
    EXPECT_EQ(after["builds"].get<int>() - before["builds"].get<int>(), 1) << online_run.output;
    EXPECT_EQ(after["sends"].get<int>() - before["sends"].get<int>(), c.lands ? 1 : 0)
        << online_run.output;
    EXPECT_EQ(after["landed"].get<int>() - before["landed"].get<int>(), c.lands ? 1 : 0)
        << online_run.output;
    if (c.lands) {
      EXPECT_EQ(offline_run.exit_code, 0) << offline_run.output;
      EXPECT_EQ(online_run.exit_code, 0) << online_run.output;
      EXPECT_THAT(online_run.output, HasSubstr("step 1 of 1 confirmed"));
    } else {
      EXPECT_EQ(offline_run.exit_code, 1) << offline_run.output;
      EXPECT_THAT(offline_run.output, HasSubstr("the two machines' clocks differ by about"));
      EXPECT_NE(online_run.exit_code, 0) << online_run.output;
      EXPECT_THAT(online_run.output, HasSubstr("policy.deadline_passed"));
    }
  }
}

// Issue 32, end to end with both programs: act --approve-first carries the intent across, sign
// approves it (asked once), and the build that follows is signed by sign with nothing to answer
// on its descriptor: were it asked, the empty answer would decline it.
TEST_F(SigningTest, AnIntentApprovedFirstIsBuiltSignedWithoutAQuestionAndLands) {
  write_command_inputs("y");
  // The twin's lookup tables pinned (an unverified table warns, and a warning always asks).
  write_text("policy.toml", offline::policy_toml(swap_policy(swap_request())));
  write_text("api.key", std::string(kDemoKey) + "\n");
  write_text("no-answer", "");
  log.reset();
  const json before = counters();
  // The requests go onto a stick, which is out between the approval and the build: act waits
  // for its folder rather than ending.
  const std::string stick = dir.file("stick");
  const std::string request_file = stick + "/req.alreq";
  std::filesystem::create_directories(stick);
  airlock::test::CommandResult online_run;
  std::thread online([&] {
    online_run = airlock::test::run_command(act_swap_command(
        "--approve-first " + to_base58(manager_->public_key()) + " --request-out " + request_file +
        " --response " + dir.file("res.alres") + " --journal " + dir.file("journal.sqlite")));
  });
  // The request file as it stands once it holds a request of the kind wanted.
  const auto wait_request = [&](bool approval) -> std::optional<envelope::SignRequest> {
    for (int i = 0; i < 600; ++i) {
      auto q = request_in(request_file);
      if (q && q->approval == approval) return q;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return std::nullopt;
  };
  const auto asked_for_approval = wait_request(true);
  ASSERT_TRUE(asked_for_approval.has_value());
  EXPECT_EQ(counters()["builds"], before["builds"]) << "nothing is built before the approval";
  std::filesystem::copy_file(request_file, dir.file("approval.alreq"));
  std::filesystem::remove_all(stick);  // the stick is taken out
  const auto approve = airlock::test::run_command(
      sign_command() + "--out " + dir.file("res.alres") + " " + dir.file("approval.alreq"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_FALSE(std::filesystem::exists(request_file));
  std::filesystem::create_directories(stick);  // and put back
  EXPECT_EQ(approve.exit_code, 0) << approve.output;
  EXPECT_THAT(approve.output, HasSubstr("Approve this intent? [y/N"));
  EXPECT_THAT(approve.output, HasSubstr("Approved until"));
  const auto to_sign = wait_request(false);
  ASSERT_TRUE(to_sign.has_value()) << online_run.output;
  std::filesystem::remove(dir.file("res.alres"));
  const auto signed_run = airlock::test::run_command(
      std::string(AIRLOCK_OFFLINE_BIN) + " sign --unsafe-allow-network --keystore " + keystore +
      " --policy " + dir.file("policy.toml") + " --audit-log " + dir.file("audit.log") +
      " --passphrase-fd 3 --confirm-fd 4 3<" + dir.file("pass") + " 4<" + dir.file("no-answer") +
      " --out " + dir.file("res.alres") + " " + request_file);
  online.join();
  EXPECT_EQ(signed_run.exit_code, 0) << signed_run.output;
  EXPECT_THAT(signed_run.output, HasSubstr("Signed without a question: approval"));
  EXPECT_THAT(signed_run.output, Not(HasSubstr("[y/N")));
  EXPECT_EQ(online_run.exit_code, 0) << online_run.output;
  EXPECT_THAT(online_run.output, HasSubstr("approved until"));
  EXPECT_THAT(online_run.output, HasSubstr("waiting for the folder " + stick));
  EXPECT_THAT(online_run.output, HasSubstr("aggregator/swap done"));
  // The journal's history with times as people read them (ISO 8601, UTC; --json keeps unix).
  const auto history = airlock::test::run_command(
      std::string(AIRLOCK_ONLINE_BIN) + " history --journal " + dir.file("journal.sqlite"));
  EXPECT_EQ(history.exit_code, 0) << history.output;
  EXPECT_THAT(history.output,
              ::testing::ContainsRegex("run 1  [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z  "
                                       "aggregator/swap  done"));
  EXPECT_THAT(history.output, ::testing::ContainsRegex("built [0-9]{4}-[0-9]{2}-[0-9]{2}T"));
  const json after = counters();
  EXPECT_EQ(after["builds"].get<int>() - before["builds"].get<int>(), 1) << after.dump();
  EXPECT_EQ(after["landed"].get<int>() - before["landed"].get<int>(), 1) << after.dump();
}

// Issue 32's window with one sign run: sign --then-build approves the intent, opens the key
// then (the passphrase read once, at leisure), waits in the same request file for the build of
// that intent, and signs it without a question; the key is closed when it ends. act meanwhile
// builds only after the approval. The passphrase input holds one line: a second ask would fail.
TEST_F(SigningTest, ThenBuildApprovesOpensTheKeyOnceAndSignsTheBuildItWaitedFor) {
  write_command_inputs("y");
  write_text("policy.toml", offline::policy_toml(swap_policy(swap_request())));
  write_text("api.key", std::string(kDemoKey) + "\n");
  log.reset();
  const json before = counters();
  const std::string request_file = dir.file("req.alreq");
  airlock::test::CommandResult online_run;
  std::thread online([&] {
    online_run = airlock::test::run_command(act_swap_command(
        "--approve-first " + to_base58(manager_->public_key()) + " --request-out " + request_file +
        " --response " + dir.file("res.alres") + " --journal " + dir.file("journal.sqlite")));
  });
  ASSERT_TRUE(airlock::test::wait_for_file(request_file, std::chrono::seconds(60)));
  // The passphrase comes only once the build is out: the build is there before the key is open,
  // and must still be found (it was missed once, when the watch began after the key opened).
  const std::string fifo = dir.file("pass.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread feeder([&] {
    std::ofstream out(fifo);  // opens once sign has opened its end
    for (int i = 0; i < 600; ++i) {
      const auto q = request_in(request_file);
      if (q && !q->approval) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    out << passphrase << "\n";
  });
  const auto session = airlock::test::run_command(
      std::string(AIRLOCK_OFFLINE_BIN) + " sign --unsafe-allow-network --keystore " + keystore +
      " --policy " + dir.file("policy.toml") + " --audit-log " + dir.file("audit.log") +
      " --passphrase-fd 3 --confirm-fd 4 3<" + fifo + " 4<" + dir.file("answer") +
      " --then-build --out " + dir.file("res.alres") + " " + request_file);
  feeder.join();
  online.join();
  EXPECT_EQ(session.exit_code, 0) << session.output;
  EXPECT_THAT(session.output, HasSubstr("Approve this intent? [y/N"));
  EXPECT_THAT(session.output, HasSubstr("the key is open; waiting for the build of this intent"));
  EXPECT_THAT(session.output, HasSubstr("Signed without a question: approval"));
  const auto questions = [&] {
    std::size_t n = 0;
    for (auto at = session.output.find("[y/N"); at != std::string::npos;
         at = session.output.find("[y/N", at + 1))
      ++n;
    return n;
  }();
  EXPECT_EQ(questions, 1U) << "asked once, for the approval:\n" << session.output;
  EXPECT_EQ(online_run.exit_code, 0) << online_run.output;
  EXPECT_THAT(online_run.output, HasSubstr("aggregator/swap done"));
  const json after = counters();
  EXPECT_EQ(after["builds"].get<int>() - before["builds"].get<int>(), 1) << after.dump();
  EXPECT_EQ(after["landed"].get<int>() - before["landed"].get<int>(), 1) << after.dump();
  // The log: the approval, then the build signed under it.
  auto reopened = offline::AuditLog::open(dir.file("audit.log"));
  ASSERT_TRUE(reopened.ok());
  ASSERT_EQ(reopened->entries().size(), 2U);
  EXPECT_EQ(reopened->entries()[0].decision, offline::Decision::kApproved);
  EXPECT_EQ(reopened->entries()[1].decision, offline::Decision::kSigned);
  EXPECT_EQ(reopened->entries()[1].under_approval, reopened->entries()[0].request_id);
}

// --then-build needs a place to watch, and ends at the approval's expiry if no build comes.
TEST_F(SigningTest, ThenBuildWatchesAFileOrFoldersAndEndsWhenTheApprovalDoes) {
  write_command_inputs("y");
  const auto camera = airlock::test::run_command(
      sign_command() + "--then-build --camera /dev/video0 --out " + dir.file("res.alres"));
  EXPECT_EQ(camera.exit_code, 2) << camera.output;
  EXPECT_THAT(camera.output, HasSubstr("--then-build waits for the build in the same REQUEST "
                                       "file or --qr folders"));
  // An approval request whose approval ends at once: nothing comes, nothing is signed.
  auto q = swap_request();
  q.approval = true;
  q.steps.clear();
  q.deadline = static_cast<std::uint64_t>(now_s() + 2);
  write_request_file(q);
  log.reset();
  const auto lonely = airlock::test::run_command(
      sign_command() + "--then-build --out " + dir.file("res.alres") + " " + dir.file("req.alreq"));
  EXPECT_EQ(lonely.exit_code, 1) << lonely.output;
  EXPECT_THAT(lonely.output, HasSubstr("the key is open; waiting"));
  EXPECT_THAT(lonely.output, HasSubstr("approval.no_build: no build of the approved intent came "
                                       "before the approval expired; nothing was signed"));
}

TEST_F(SigningTest, AMissingCameraIsReportedBeforeAnythingIsBuilt) {
  write_text("api.key", std::string(kDemoKey) + "\n");
  const json before = counters();
  const auto run = airlock::test::run_command(
      std::string(AIRLOCK_ONLINE_BIN) + " act vault/claim-fee --api http://127.0.0.1:" +
      std::to_string(server_->port()) + std::string(kApiPrefix) + " --api-key-file " +
      dir.file("api.key") + " --body '{\"vault\":\"" + kVault + "\"}' --request-out " +
      dir.file("req.alreq") + " --response-camera " + dir.file("no-such-video-device") +
      " --journal " + dir.file("journal.sqlite"));
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_THAT(run.output, HasSubstr("cannot open camera"));
  EXPECT_EQ(counters()["builds"], before["builds"]) << "no build for a request nobody can answer";
}

// Issue 17: requests that each pass alone are capped together over rolling windows, counted
// from the audit log: the one that crosses a limit is refused (policy.limit, naming the limit,
// the window's use and its own amount) without asking, and passes once the window has moved.
TEST_F(SigningTest, LimitsRefuseTheRequestThatCrossesAWindowUntilTheWindowMoves) {
  start_first_log();
  const std::string pinned =
      std::string("[[tokens]]\nmint = \"") + kUsdc + "\"\nsymbol = \"USDC\"\ndecimals = 6\n";
  auto first = swap_request();  // 5 USDC swapped away
  const auto policy = demo_policy(
      first, pinned + "[limits]\nrounds_per_hour = 3\n[limits.tokens.USDC]\nper_day = \"12\"\n");
  ASSERT_TRUE(policy.limits.any());
  auto one = process(first, policy);
  ASSERT_TRUE(one.ok()) << one.error().to_string();
  EXPECT_EQ(one->decision, offline::Decision::kSigned);
  EXPECT_THAT(last_summary, HasSubstr("LIMITS (counted from this machine's audit log)"));
  EXPECT_THAT(
      last_summary,
      HasSubstr("USDC leaving the vault, last day: 0 USDC of 12 USDC (this request 5 USDC)"));
  EXPECT_THAT(last_summary, HasSubstr("signed requests, last hour: 0 of 3 (this request makes 1)"));
  ASSERT_TRUE(log->entries().back().outflows.has_value());
  EXPECT_EQ(log->entries().back().outflows->size(), 1U);
  auto two = process(swap_request(), policy);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->decision, offline::Decision::kSigned);
  EXPECT_THAT(last_summary, HasSubstr("last day: 5 USDC of 12 USDC (this request 5 USDC)"));
  const int asked_before = asked;
  auto three = process(swap_request(), policy);
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three->decision, offline::Decision::kRefused);
  EXPECT_EQ(asked, asked_before) << "a request over a limit is refused before anyone is asked";
  const auto& refusal = std::get<envelope::Refusal>(three->response.result);
  EXPECT_EQ(refusal.code, "policy.limit");
  EXPECT_THAT(refusal.reason, HasSubstr("USDC leaving the vault in the last day: 10 USDC of 12 "
                                        "USDC already signed; this request moves 5 USDC"));
  EXPECT_EQ(log->entries().back().codes, std::vector<std::string>{"policy.limit"});

  // A day later the first two have left the window.
  advance(std::int64_t{kDaySecondsForTest} * 1000 + 1000);
  auto four = process(swap_request(), policy);
  ASSERT_TRUE(four.ok());
  EXPECT_EQ(four->decision, offline::Decision::kSigned) << last_summary;
  EXPECT_THAT(last_summary, HasSubstr("last day: 0 USDC of 12 USDC (this request 5 USDC)"));
}

TEST_F(SigningTest, TheRoundsLimitCountsSignedRequestsOnlyAndFailsClosedOnTheClock) {
  start_first_log();
  auto first = swap_request();
  const auto policy = demo_policy(first, "[limits]\nrounds_per_hour = 2\n");
  // A declined request is no signed round.
  answer = false;
  ASSERT_EQ(process(first, policy)->decision, offline::Decision::kDeclined);
  answer = true;
  ASSERT_EQ(process(swap_request(), policy)->decision, offline::Decision::kSigned);
  ASSERT_EQ(process(swap_request(), policy)->decision, offline::Decision::kSigned);
  auto third = process(swap_request(), policy);
  ASSERT_TRUE(third.ok());
  ASSERT_EQ(third->decision, offline::Decision::kRefused);
  EXPECT_THAT(std::get<envelope::Refusal>(third->response.result).reason,
              HasSubstr("signed requests in the last hour: 2 of 2 already signed"));
  advance(3601 * 1000);
  EXPECT_EQ(process(swap_request(), policy)->decision, offline::Decision::kSigned);

  // A clock that reads earlier than the log's last entry cannot place a window: refused.
  const auto q = swap_request();
  offline::SigningContext behind{policy,
                                 decoders,
                                 *log,
                                 keystore,
                                 airlock::test::locked_down(),
                                 false,
                                 [](const std::string&, const offline::Review&) { return true; },
                                 [&]() -> Result<SecretBytes> { return secret_of(passphrase); },
                                 [&] { return log->entries().back().time - 60; }};
  auto refused = offline::process_request(q, behind);
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->decision, offline::Decision::kRefused);
  std::string reasons;
  for (const auto& f : refused->review.refusals) reasons += f.code + ": " + f.message + "\n";
  EXPECT_THAT(reasons, HasSubstr("policy.limit: the offline clock reads"));
  EXPECT_THAT(reasons, HasSubstr("earlier than the audit log's latest entry"));
  // Without a log to count from, a policy with limits refuses (review without --audit-log).
  const auto examined =
      offline::examine(q, policy, decoders, manager_->public_key(), now_s(), nullptr);
  ASSERT_TRUE(examined.review.refused());
  EXPECT_EQ(examined.review.refusals.back().code, "policy.limit");
  EXPECT_THAT(examined.review.refusals.back().message, HasSubstr("no audit log"));
}

// What leaves the vault is what the descriptor's `outflows` name, as the review read it: a swap's
// amount in the unit of its source_mint account (which the review ties to the body, or for a
// request with no intent to the instruction's own argument; a Keystone swap whose argument says
// another mint is refused, tests/adversarial). Counted only from a unit account that is a
// static key (a lookup table's key is only as good as the table) and never from an instruction
// whose descriptor says nothing: each checked on a real swap's review, edited.
TEST_F(SigningTest, AnOutflowIsWhatTheDescriptorSaysLeavesTheVaultInAUnitTheBytesFix) {
  const auto q = swap_request();
  const auto policy = demo_policy(q);
  const auto examined =
      offline::examine(q, policy, decoders, manager_->public_key(), now_s(), nullptr);
  ASSERT_FALSE(examined.review.refused());
  ASSERT_EQ(examined.outflows.known.size(), 1U);
  EXPECT_EQ(examined.outflows.known[0],
            (audit::Outflow{public_key_from_base58(kUsdc).value(), std::uint64_t{5'000'000}}));
  EXPECT_TRUE(examined.outflows.unknown.empty());
  const auto edited = [&](const std::function<void(offline::StepReview&)>& edit) {
    offline::Review review = examined.review;
    edit(review.steps.at(0));
    return offline::outflows_of(review);
  };
  const auto unstated = edited([](offline::StepReview& s) {
    ASSERT_EQ(s.outflows.size(), 1U);
    s.outflows[0].paths.reset();
  });
  EXPECT_TRUE(unstated.known.empty());
  ASSERT_EQ(unstated.unknown.size(), 1U);
  EXPECT_THAT(unstated.unknown[0].what, HasSubstr("aggregator_swap, which moves tokens"));
  const auto from_a_table = edited([](offline::StepReview& s) {
    const std::size_t main = s.outflows.at(0).instruction;
    const auto& names = s.instructions.at(main)->account_names;
    const auto at = std::find(names.begin(), names.end(), "source_mint");
    ASSERT_NE(at, names.end());
    s.tx.message.instructions.at(main).accounts.at(static_cast<std::size_t>(at - names.begin())) =
        static_cast<std::uint8_t>(s.tx.message.static_keys.size());
  });
  EXPECT_TRUE(from_a_table.known.empty());
  ASSERT_EQ(from_a_table.unknown.size(), 1U);
  EXPECT_THAT(from_a_table.unknown[0].what, HasSubstr("is no static key of the message"));
  const auto none_bound = edited([](offline::StepReview& s) { s.outflows.clear(); });
  ASSERT_EQ(none_bound.unknown.size(), 1U) << "a step no descriptor binds is never nothing";
}

// Found by an independent review: a limit order (like any deposit into a DLMM pool, which the
// request names) moves tokens the offline half cannot tie to a mint: with a token limit set
// it is refused, not counted as nothing.
TEST_F(SigningTest, ADepositIntoAPoolIsRefusedUnderATokenLimit) {
  start_first_log();
  const json body = {{"vault", kVault},
                     {"lbPair", kSolUsdcPool},
                     {"side", "bid"},
                     {"bins", json::array({{{"binId", 4990}, {"amount", "100000000"}}})}};
  const Reply built = post("/transactions/dlmm/limit-order/place", body);
  ASSERT_EQ(built.status, 200) << built.body.dump();
  const auto q = request_of("dlmm/limit-order/place", body, built.body);
  const std::string pinned =
      std::string("[[tokens]]\nmint = \"") + kUsdc + "\"\nsymbol = \"USDC\"\ndecimals = 6\n";
  const auto unlimited = process(q, demo_policy(q, pinned));
  ASSERT_TRUE(unlimited.ok()) << unlimited.error().to_string();
  EXPECT_EQ(unlimited->decision, offline::Decision::kSigned) << last_summary;
  ASSERT_TRUE(log->entries().back().outflows.has_value());
  EXPECT_EQ(*log->entries().back().outflows,
            (std::vector<audit::Outflow>{{std::nullopt, std::nullopt}}))
      << "recorded as a move of unknown token and amount";
  const Reply again = post("/transactions/dlmm/limit-order/place", body);
  const auto q2 = request_of("dlmm/limit-order/place", body, again.body);
  const auto limited =
      process(q2, demo_policy(q2, pinned + "[limits.tokens.USDC]\nper_day = \"1000\"\n"));
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->decision, offline::Decision::kRefused);
  EXPECT_THAT(std::get<envelope::Refusal>(limited->response.result).reason,
              HasSubstr("dlmm_limit_order_place, which moves tokens into a pool"));
}

// With the pool pinned ([[pools]]), a deposit's tokens are the policy's word: a limit order's
// bins count under the token limit of the side it spends, and a liquidity deposit's amount_x
// and amount_y under token X's and token Y's; a pool hint that says otherwise is refused (the
// online half lies, or the pin has X and Y the wrong way round: found by an independent review).
TEST_F(SigningTest, ADepositIntoAPinnedPoolCountsUnderItsTokensLimits) {
  start_first_log();
  const std::string pinned = std::string("[[tokens]]\nmint = \"") + kUsdc +
                             "\"\nsymbol = \"USDC\"\ndecimals = 6\n[[tokens]]\nmint = \"" + kSol +
                             "\"\nsymbol = \"SOL\"\ndecimals = 9\n[[pools]]\naddress = \"" +
                             kSolUsdcPool + "\"\ntoken_x = \"" + kSol + "\"\ntoken_y = \"" + kUsdc +
                             "\"\n[limits.tokens.USDC]\nper_day = \"1000\"\n"
                             "[limits.tokens.SOL]\nper_day = \"0.6\"\n";
  const auto bid = [&](const char* amount) {
    const json body = {{"vault", kVault},
                       {"lbPair", kSolUsdcPool},
                       {"side", "bid"},
                       {"bins", json::array({{{"binId", 4990}, {"amount", amount}}})}};
    advance(5);
    const Reply built = post("/transactions/dlmm/limit-order/place", body);
    EXPECT_EQ(built.status, 200) << built.body.dump();
    return request_of("dlmm/limit-order/place", body, built.body);
  };
  const auto first = bid("100000000");
  const auto signed_first = process(first, demo_policy(first, pinned));
  ASSERT_TRUE(signed_first.ok()) << signed_first.error().to_string();
  EXPECT_EQ(signed_first->decision, offline::Decision::kSigned) << last_summary;
  EXPECT_THAT(last_summary, HasSubstr("this request 100 USDC"));
  EXPECT_EQ(*log->entries().back().outflows,
            (std::vector<audit::Outflow>{{public_key_from_base58(kUsdc).value(), 100'000'000}}))
      << "a bid spends token Y, USDC, the sum of its bins";

  const auto second = bid("950000000");
  const auto crossed = process(second, demo_policy(second, pinned));
  ASSERT_TRUE(crossed.ok());
  EXPECT_EQ(crossed->decision, offline::Decision::kRefused);
  EXPECT_EQ(std::get<envelope::Refusal>(crossed->response.result).code, "policy.limit");

  // A liquidity deposit counts both sides: 0.5 SOL fits the 0.6 SOL cap, 0.2 SOL more does not.
  const auto open = [&](const char* x) {
    const json body = {{"vault", kVault},    {"lbPair", kSolUsdcPool},
                       {"lowerBinId", 4990}, {"upperBinId", 5010},
                       {"amountX", x},       {"amountY", "1000000"},
                       {"shape", "spot"},    {"maxActiveBinSlippage", 5}};
    advance(5);
    const Reply built = post("/transactions/dlmm/open", body);
    EXPECT_EQ(built.status, 200) << built.body.dump();
    return request_of("dlmm/open", body, built.body);
  };
  const auto small = open("500000000");
  const auto opened = process(small, demo_policy(small, pinned));
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(opened->decision, offline::Decision::kSigned) << last_summary;
  EXPECT_THAT(last_summary, HasSubstr("pinned by the policy"));
  const auto& recorded = *log->entries().back().outflows;
  EXPECT_NE(std::find(recorded.begin(), recorded.end(),
                      audit::Outflow{public_key_from_base58(kSol).value(), 500'000'000}),
            recorded.end());
  EXPECT_NE(std::find(recorded.begin(), recorded.end(),
                      audit::Outflow{public_key_from_base58(kUsdc).value(), 1'000'000}),
            recorded.end());
  const auto large = open("200000000");
  const auto refused = process(large, demo_policy(large, pinned));
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->decision, offline::Decision::kRefused);
  EXPECT_THAT(std::get<envelope::Refusal>(refused->response.result).reason, HasSubstr("SOL"));

  // The online half swaps the pool's tokens in its hint: refused, naming both.
  auto lying = bid("1000000");
  lying.hints.pools = {{public_key_from_base58(kSolUsdcPool).value(),
                        public_key_from_base58(kUsdc).value(),
                        public_key_from_base58(kSol).value()}};
  const auto contradicted = process(lying, demo_policy(lying, pinned));
  ASSERT_TRUE(contradicted.ok());
  EXPECT_EQ(contradicted->decision, offline::Decision::kRefused);
  const auto& refusal = std::get<envelope::Refusal>(contradicted->response.result);
  EXPECT_EQ(refusal.code, "policy.pool_mismatch");
  EXPECT_THAT(refusal.reason, HasSubstr("the policy pins it to " + std::string(kSol) + " (X)"));
}

}  // namespace
}  // namespace airlock::apisim::test
