// The adversarial suite (docs/threat-model.md): hostile sign requests generated from real twin
// builds go through the whole sign path — review, operator, key, audit log — and each must be
// refused by its documented code with nothing signed (the operator says yes to everything
// here), or flagged so that nothing is signed without a person. Envelope attacks go through
// the real airlock-offline executable; response attacks through the online half's checks.
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>

#include <airlock/apisim/message_builder.h>
#include <airlock/common/hash.h>
#include <airlock/common/programs.h>
#include <airlock/formats/action_fields.h>
#include <airlock/formats/files.h>
#include <airlock/formats/keystone.h>
#include <airlock/formats/ur.h>
#include <airlock/offline/keystore.h>
#include <airlock/offline/policy.h>
#include <airlock/offline/signing.h>
#include <airlock/offline/summary.h>
#include <airlock/offline/templates.h>
#include <airlock/online/round.h>

#include "conformance_support.h"
#include "hostile.h"
#include "support/helpers.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace airlock::apisim::test {
namespace {

using adversarial::Expect;

std::string listed(const offline::Review& r) {
  std::string out;
  for (const auto& f : r.refusals) out += "  x " + f.code + ": " + f.message + "\n";
  for (const auto& f : r.warnings) out += "  ! " + f.code + ": " + f.message + "\n";
  return out;
}

class Adversarial : public SigningTwin {
 protected:
  envelope::SignRequest build(const std::string& action, const json& body) {
    advance(4000);  // the per-address buckets refill between actions
    const Reply built = post("/transactions/" + action, body);
    EXPECT_EQ(built.status, 200) << action << ": " << built.body.dump();
    return request_of(action, body, built.body);
  }

  void confirm(const std::string& action, const json& body) {
    advance(4000);
    const Reply built = post("/transactions/" + action, body);
    ASSERT_EQ(built.status, 200) << action << ": " << built.body.dump();
    for (const auto& step : steps_of(built.body))
      ASSERT_EQ(send_and_confirm(step), "confirmed") << action;
  }

  offline::Policy policy_for(const envelope::SignRequest& q) {
    auto policy = demo_policy(q, "allow_unverified_lookup_tables = true");
    policy.programs.insert(
        public_key_from_base58("PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY").value());
    return policy;
  }

  adversarial::HonestBuilds honest() {
    adversarial::HonestBuilds h;
    h.vault_update = build("vault/update", {{"vault", kVault}, {"depositCap", "20000000000000"}});
    h.swap = build("aggregator/swap", {{"vault", kVault},
                                       {"sourceMint", kUsdc},
                                       {"destinationMint", kJup},
                                       {"amount", "5000000"},
                                       {"slippageBps", 50}});
    h.swap_setup = build("aggregator/swap", {{"vault", kVault},
                                             {"sourceMint", kSol},
                                             {"destinationMint", kJup},
                                             {"amount", "100000000"},
                                             {"slippageBps", 50}});
    // A sweep of the vault's whole SOL back to USDC: its amount is the online half's word.
    h.sweep = build("aggregator/sweep", {{"vault", kVault}, {"mint", kSol}, {"slippageBps", 50}});
    h.dlmm_open = build("dlmm/open", {{"vault", kVault},
                                      {"lbPair", kSolUsdcPool},
                                      {"lowerBinId", 4930},
                                      {"upperBinId", 5070},
                                      {"amountX", "200000000"},
                                      {"amountY", "30000000"},
                                      {"shape", "spot"},
                                      {"maxActiveBinSlippage", 5}});
    h.dlmm_open_resumed = build("dlmm/open", {{"vault", kVault},
                                              {"lbPair", kSolUsdcPool},
                                              {"lowerBinId", 4930},
                                              {"upperBinId", 5140},
                                              {"cursorBinId", 5000},
                                              {"amountX", "300000000"},
                                              {"amountY", "45000000"},
                                              {"shape", "spot"},
                                              {"maxActiveBinSlippage", 5}});
    h.dlmm_open_resumed_early = build("dlmm/open", {{"vault", kVault},
                                                    {"lbPair", kSolUsdcPool},
                                                    {"lowerBinId", 4930},
                                                    {"upperBinId", 6330},
                                                    {"cursorBinId", 5000},
                                                    {"amountX", "300000000"},
                                                    {"amountY", "45000000"},
                                                    {"shape", "spot"},
                                                    {"maxActiveBinSlippage", 5}});
    h.dlmm_open_resumed_last = build("dlmm/open", {{"vault", kVault},
                                                   {"lbPair", kSolUsdcPool},
                                                   {"lowerBinId", 4930},
                                                   {"upperBinId", 5141},
                                                   {"cursorBinId", 5140},
                                                   {"amountX", "1000"},
                                                   {"amountY", "1000"},
                                                   {"shape", "spot"},
                                                   {"maxActiveBinSlippage", 5}});
    h.limit_order = build(
        "dlmm/limit-order/place",
        {{"vault", kVault},
         {"lbPair", kSolUsdcPool},
         {"side", "bid"},
         {"bins",
          {{{"binId", 4990}, {"amount", "1000000"}}, {{"binId", 4991}, {"amount", "2000000"}}}}});
    h.dlmm_initialize = build(
        "dlmm/initialize",
        {{"vault", kVault}, {"lbPair", kSolUsdcPool}, {"lowerBinId", 4990}, {"upperBinId", 5010}});
    // A confirmed 60-bin position to remove from, as airlock-online asks: with its pool hint.
    advance(4000);
    const json open_body = {{"vault", kVault},       {"lbPair", kSolUsdcPool},
                            {"lowerBinId", 4970},    {"upperBinId", 5030},
                            {"amountX", "10000000"}, {"amountY", "1500000"},
                            {"shape", "spot"},       {"maxActiveBinSlippage", 5}};
    const Reply opened = post("/transactions/dlmm/open", open_body);
    EXPECT_EQ(opened.status, 200) << opened.body.dump();
    const auto open_steps = steps_of(opened.body);
    for (const auto& step : open_steps) EXPECT_EQ(send_and_confirm(step), "confirmed");
    h.dlmm_remove = build("dlmm/remove", {{"vault", kVault},
                                          {"position", open_steps.at(0)["position"]},
                                          {"bpsToRemove", 5000},
                                          {"lowerBinId", 4980},
                                          {"upperBinId", 5020}});
    h.dlmm_remove.hints.pools.push_back({public_key_from_base58(kSolUsdcPool).value(),
                                         public_key_from_base58(kSol).value(),
                                         public_key_from_base58(kUsdc).value()});
    h.dlmm_add = build("dlmm/add", {{"vault", kVault},
                                    {"position", open_steps.at(0)["position"]},
                                    {"amountX", "1000000"},
                                    {"amountY", "1000000"},
                                    {"shape", "spot"},
                                    {"maxActiveBinSlippage", 5},
                                    {"lowerBinId", 4990},
                                    {"upperBinId", 5010}});
    h.dlmm_add.hints.pools = h.dlmm_remove.hints.pools;
    // The same position funded as a whole: the sub-range is optional (spec 4.5).
    h.dlmm_add_whole = build("dlmm/add", {{"vault", kVault},
                                          {"position", open_steps.at(0)["position"]},
                                          {"amountX", "1000000"},
                                          {"amountY", "1000000"},
                                          {"shape", "spot"},
                                          {"maxActiveBinSlippage", 5}});
    h.dlmm_add_whole.hints.pools = h.dlmm_remove.hints.pools;
    h.dlmm_extend = build(
        "dlmm/extend",
        {{"vault", kVault}, {"position", open_steps.at(0)["position"]}, {"upperBinId", 5200}});
    h.bonk_initialize =
        build("aggregator/initialize",
              {{"vault", kVault}, {"mint", "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263"}});
    // An empty aggregator strategy to close.
    confirm("aggregator/initialize",
            {{"vault", kVault}, {"mint", "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263"}});
    std::string strategy;
    const Reply strategies = get(std::string("/vaults/") + kVault + "/strategies");
    for (const auto& s : strategies.body["data"]) {
      if (s["type"] == "aggregator") strategy = s["address"];
    }
    h.strategy_close = build("strategy/close", {{"vault", kVault}, {"strategy", strategy}});
    confirm("perp/initialize", {{"vault", kVault}});
    h.perp_onboard = build("perp/onboard", {{"vault", kVault}});
    confirm("perp/onboard", {{"vault", kVault}});
    confirm("perp/deposit", {{"vault", kVault}, {"amount", "100000000"}});
    h.perp_deposit = build("perp/deposit", {{"vault", kVault}, {"amount", "1000000"}});
    h.perp_order = build("perp/order",
                         {{"vault", kVault},
                          {"symbol", "SOL"},
                          {"side", "long"},
                          {"size", "1.5"},
                          {"reduceOnly", false},
                          {"order", {{"type", "limit"}, {"price", "149.5"}, {"postOnly", true}}}});
    h.policy_for = [this](const envelope::SignRequest& q) { return policy_for(q); };
    h.bound_keys = [this](const envelope::SignRequest& q) {
      const auto r =
          offline::review_request(q, policy_for(q), decoders, manager_->public_key(), now_s());
      std::vector<PublicKey> keys;
      const auto& s = r.steps.at(0);
      for (std::size_t i = 0; i < s.bindings.size(); ++i) {
        const auto& accounts = s.tx.message.instructions.at(i).accounts;
        for (std::size_t p = 0; p < s.bindings[i].size() && p < accounts.size(); ++p) {
          const auto& source = s.bindings[i][p].source;
          const auto& key = s.roles.at(accounts[p]).key;
          if (source == "route" || source == "passed on" || source == "unbound" || !key) continue;
          if (std::find(keys.begin(), keys.end(), *key) == keys.end()) keys.push_back(*key);
        }
      }
      return keys;
    };
    h.manager = manager_->public_key();
    h.stranger = public_key_from_base58(kOtherVault).value();
    h.now = now_s();
    // The twin's clock moved on while the later starting points were set up (positions opened
    // and confirmed): each request's deadline is the one a build made now would carry, so the
    // hostile cases are judged for what they change, not for the time the setup took.
    for (auto* q : {&h.vault_update, &h.swap, &h.sweep, &h.dlmm_open, &h.limit_order, &h.perp_order,
                    &h.perp_onboard, &h.perp_deposit, &h.dlmm_initialize, &h.dlmm_remove,
                    &h.dlmm_add, &h.dlmm_add_whole, &h.dlmm_extend, &h.strategy_close,
                    &h.dlmm_open_resumed, &h.dlmm_open_resumed_last}) {
      q->deadline = std::max<std::uint64_t>(
          q->deadline, static_cast<std::uint64_t>(h.now + online::kBlockhashSeconds -
                                                  online::kSendMarginSeconds));
    }
    return h;
  }

  struct Run {
    Result<offline::SigningOutcome> outcome;
    int asked = 0;
    int passphrases = 0;
  };

  // The sign path with an operator who approves everything put to them, and --auto-approve.
  Run sign(const envelope::SignRequest& q, const offline::Policy& policy) {
    Run run{Error(ErrorCode::kUsage, "not run")};
    offline::SigningContext context{policy,
                                    decoders,
                                    *log,
                                    keystore,
                                    airlock::test::locked_down(),
                                    true,
                                    [&](const std::string&, const offline::Review&) {
                                      ++run.asked;
                                      return true;
                                    },
                                    [&]() -> Result<SecretBytes> {
                                      ++run.passphrases;
                                      return secret_of("correct horse");
                                    },
                                    [&] { return now_s(); }};
    run.outcome = offline::process_request(q, context);
    return run;
  }
};

// The ranges the offline half holds a body's integers to are the ones the online half's field
// table checks before building (spec part 4): one integer field, one range.
TEST(BodyRanges, TheOfflineRangesAreTheOnlineFieldTables) {
  std::size_t compared = 0;
  for (const auto& action : builder_actions()) {
    for (const auto& field : *action_fields(action)) {
      if (field.type != FieldType::kInteger) continue;
      const auto range = offline::body_integer_range(field.name);
      ASSERT_TRUE(range.has_value()) << action << " " << field.name;
      EXPECT_EQ(range->min, field.min) << action << " " << field.name;
      EXPECT_EQ(range->max, field.max) << action << " " << field.name;
      ++compared;
    }
  }
  EXPECT_GE(compared, 20U);
}

// A request with no intent (Keystone's sol-sign-request) is bound as far as its bytes allow: the
// template of the action its vault instruction belongs to, fixed programs verified, the vault's
// derived accounts computed, the mints tied to the instruction's own arguments, the route
// decoded as Jupiter (issue 30).
TEST_F(Adversarial, AKeystoneRequestIsBoundAsFarAsItsBytesAllow) {
  const auto swap = build("aggregator/swap", {{"vault", kVault},
                                              {"sourceMint", kUsdc},
                                              {"destinationMint", kJup},
                                              {"amount", "5000000"},
                                              {"slippageBps", 50}});
  auto policy = policy_for(swap);  // pins the route's table, as a Keystone request has no hints
  const auto q = adversarial::as_keystone(swap);
  const auto r = offline::review_request(q, policy, decoders, manager_->public_key(), now_s());
  ASSERT_FALSE(r.refused()) << listed(r);
  EXPECT_TRUE(has(r.warnings, "warn.no_intent"));
  EXPECT_FALSE(r.auto_approvable);
  ASSERT_EQ(r.steps.size(), 1U);
  const auto& s = r.steps[0];
  const std::size_t main = s.instructions.size() - 1;
  ASSERT_TRUE(s.instructions[main].has_value());
  EXPECT_EQ(s.instructions[main]->nested.count("route"), 1U) << "the route is decoded as Jupiter";
  std::map<std::string, std::string> sources;
  for (const auto& b : s.bindings.at(main)) sources[b.role] = b.source;
  EXPECT_EQ(sources["vault"], "vault");
  EXPECT_EQ(sources["manager"], "manager");
  EXPECT_EQ(sources["source_mint"], "instruction");
  EXPECT_EQ(sources["destination_mint"], "instruction");
  EXPECT_EQ(sources["vault_source_account"], "derived");
  EXPECT_EQ(sources["strategy"], "derived");
  EXPECT_EQ(sources["jupiter_program"], "program");
  EXPECT_EQ(sources["route account 1"], "route");
  for (const auto& [role, source] : sources) EXPECT_NE(source, "refused") << role;

  // Closing one of the vault's own strategies is what strategy/close does: the strategy, which
  // a build request would name, is the vault's own address and is not refused for it.
  confirm("aggregator/initialize",
          {{"vault", kVault}, {"mint", "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263"}});
  std::string strategy;
  const Reply strategies = get(std::string("/vaults/") + kVault + "/strategies");
  for (const auto& st : strategies.body["data"]) {
    if (st["type"] == "aggregator") strategy = st["address"];
  }
  const auto close = build("strategy/close", {{"vault", kVault}, {"strategy", strategy}});
  auto pins_its_mint = policy_for(close);  // so the strategy is one this machine can compute
  pins_its_mint.tokens.push_back(
      {public_key_from_base58("DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263").value(), "BONK", 5});
  const auto closing = offline::review_request(adversarial::as_keystone(close), pins_its_mint,
                                               decoders, manager_->public_key(), now_s());
  EXPECT_FALSE(closing.refused()) << listed(closing);
}

TEST_F(Adversarial, EveryHostileRequestIsRefusedOrFlaggedByItsRule) {
  const auto h = honest();
  // The starting points are honest: each passes the review it is generated under.
  for (const auto* q : {&h.vault_update, &h.swap, &h.sweep, &h.dlmm_open, &h.limit_order,
                        &h.perp_order, &h.perp_onboard, &h.perp_deposit, &h.dlmm_initialize,
                        &h.dlmm_remove, &h.dlmm_add, &h.dlmm_add_whole, &h.dlmm_extend,
                        &h.strategy_close, &h.dlmm_open_resumed, &h.dlmm_open_resumed_last}) {
    const auto r =
        offline::review_request(*q, policy_for(*q), decoders, manager_->public_key(), now_s());
    ASSERT_FALSE(r.refused()) << q->action << " is not an honest starting point:\n" << listed(r);
  }
  const auto cases = adversarial::hostile_cases(h);
  ASSERT_GE(cases.size(), 60U);
  std::size_t refused = 0;
  std::size_t flagged = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::size_t entries_before = log->entries().size();
    Run run = sign(c.request, c.policy);
    ASSERT_TRUE(run.outcome.ok()) << run.outcome.error().to_string();
    const auto& outcome = *run.outcome;
    // Whatever the request holds, the operator's screen shows it escaped: nothing on it can
    // move the cursor, erase or overwrite a line, or reorder the text after it.
    for (const std::string_view raw : {"\x1b", "\r", "\x07", "\xe2\x80\xae", "\xe2\x81\xa6"})
      EXPECT_THAT(outcome.summary, Not(HasSubstr(raw))) << "raw control text on screen";
    if (c.expect == Expect::kRefused) {
      EXPECT_TRUE(has(outcome.review.refusals, c.code))
          << "expected " << c.code << ", the review says:\n"
          << listed(outcome.review);
      EXPECT_EQ(outcome.decision, offline::Decision::kRefused);
      EXPECT_TRUE(std::holds_alternative<envelope::Refusal>(outcome.response.result))
          << "a signature left the machine";
      EXPECT_EQ(run.asked, 0) << "a refused request is not put to the operator";
      EXPECT_EQ(run.passphrases, 0) << "the key was opened for a refused request";
      ASSERT_EQ(log->entries().size(), entries_before + 1);
      EXPECT_EQ(log->entries().back().decision, offline::Decision::kRefused);
      const auto& codes = log->entries().back().codes;
      EXPECT_NE(std::find(codes.begin(), codes.end(), c.code), codes.end())
          << "the audit log records the reason";
      ++refused;
    } else {
      EXPECT_TRUE(has(outcome.review.warnings, c.code))
          << "expected the warning " << c.code << ", the review says:\n"
          << listed(outcome.review);
      EXPECT_FALSE(outcome.review.auto_approvable);
      EXPECT_EQ(run.asked, 1) << "--auto-approve went past a warning";
      EXPECT_THAT(outcome.summary, HasSubstr(c.code)) << "the operator's screen shows the warning";
      ++flagged;
    }
  }
  std::cout << cases.size() << " hostile requests: " << refused << " refused, " << flagged
            << " flagged\n";
  EXPECT_GE(refused, 50U);
  EXPECT_GE(flagged, 7U);
}

// `q` (one step, made by adversarial::as_keystone) as the ur:sol-sign-request Keystone's
// software would show: the message, the manager as the signer, the request id as its UUID.
Bytes as_keystone_ur(const envelope::SignRequest& q) {
  keystone::SolSignRequest k;
  std::copy(q.request_id.begin(), q.request_id.end(), k.request_id.begin());
  k.sign_data = serialize_message(parse_transaction(q.steps.at(0).transaction).value().message);
  k.path = keystone::DerivationPath::parse("m/44'/501'/0'/0'").value();
  k.address = Bytes(q.manager.bytes.begin(), q.manager.bytes.end());
  const std::string text = ur::encode_single(
      {std::string(keystone::kSignRequestType), keystone::encode_sign_request(k)});
  return Bytes(text.begin(), text.end());
}

// An auditor's `airlock-offline review` reaches the verdict sign reaches, case by case: every
// honest starting point and every hostile request, its policy written out as the file the
// command reads, reviewed by the executable without the key; sign's outcome from the signing
// path. The same refusal codes, the same warnings, the same summary on the screen.
TEST_F(Adversarial, ReviewWithoutTheKeyAgreesWithSignOnEveryCase) {
  const auto h = honest();
  auto cases = adversarial::hostile_cases(h);
  for (const auto* q : {&h.vault_update, &h.swap, &h.sweep, &h.dlmm_open, &h.limit_order,
                        &h.perp_order, &h.perp_onboard, &h.perp_deposit, &h.dlmm_initialize,
                        &h.dlmm_remove, &h.dlmm_add, &h.strategy_close})
    cases.push_back({"honest " + q->action, *q, policy_for(*q), "", Expect::kFlagged});
  std::size_t compared = 0, signable = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string policy_text = offline::policy_toml(c.policy);
    if (!offline::parse_policy(policy_text).ok()) continue;  // a policy no file can state
    const std::int64_t at = now_s();
    Run run = sign(c.request, c.policy);
    ASSERT_TRUE(run.outcome.ok()) << run.outcome.error().to_string();
    const auto& outcome = *run.outcome;
    // A request with no intent crosses as Keystone's ur:sol-sign-request, as it would arrive.
    const bool keystone_case = c.request.action == keystone::kSignRequestAction;
    const std::string request_file = dir.file(keystone_case ? "review.ur" : "review.alreq");
    ASSERT_TRUE(files::write_atomically(
                    request_file, keystone_case
                                      ? as_keystone_ur(c.request)
                                      : files::wrap_envelope(files::EnvelopeKind::kRequest,
                                                             envelope::encode_request(c.request)))
                    .ok());
    std::ofstream(dir.file("review-policy.toml")) << policy_text;
    const std::string command = std::string(AIRLOCK_OFFLINE_BIN) + " review " + request_file +
                                " --policy " + dir.file("review-policy.toml") + " --keystore " +
                                keystore + " --at " + std::to_string(at);
    // Braces, so the command's own 2>/dev/null holds against run_command's 2>&1: the JSON form
    // must be all of standard output.
    const auto text = airlock::test::run_command("{ " + command + " 2>/dev/null; }");
    const bool refused = outcome.decision == offline::Decision::kRefused;
    EXPECT_EQ(text.exit_code, refused ? 1 : 0) << text.output;
    EXPECT_THAT(text.output, HasSubstr(outcome.summary))
        << "the review shows another summary than sign:\n"
        << text.output << "\nsign showed:\n"
        << outcome.summary;
    EXPECT_THAT(text.output,
                HasSubstr(refused ? "VERDICT: sign would refuse" : "VERDICT: sign would "));
    ++compared;
    if (!refused) ++signable;
    // The JSON form for every honest case and every fourth hostile one (each run of the
    // executable costs half a second under the sanitizers).
    if (!c.code.empty() && compared % 4 != 0) continue;
    const auto as_json = airlock::test::run_command("{ " + command + " --json 2>/dev/null; }");
    EXPECT_EQ(as_json.exit_code, text.exit_code);
    const json reviewed = json::parse(as_json.output, nullptr, false);
    ASSERT_TRUE(reviewed.is_object()) << as_json.output;
    EXPECT_EQ(reviewed["review"]["verdict"], refused                          ? "refused"
                                             : outcome.review.auto_approvable ? "auto-approvable"
                                                                              : "signable");
    json expected = json::parse(offline::summary_json(c.request, outcome.review).dump());
    expected["review"] = reviewed["review"];
    EXPECT_EQ(reviewed, expected) << "the review's JSON is not sign's summary";
  }
  std::cout << compared << " of " << cases.size() << " cases reviewed alike (" << signable
            << " signable)\n";
  EXPECT_GE(compared, cases.size() * 9 / 10) << "most cases' policies can be written as a file";
  EXPECT_GE(signable, 10U) << "the honest starting points pass both";
}

// Review's own edges: with no policy the empty one judges (it allows nothing), the decoding is
// still shown; the request's digest is the file's; a signer is given once and must be a key.
TEST_F(Adversarial, ReviewWithoutAPolicyRefusesAndStillShowsTheDecoding) {
  const auto h = honest();
  const Bytes file =
      files::wrap_envelope(files::EnvelopeKind::kRequest, envelope::encode_request(h.swap));
  const std::string request_file = dir.file("swap.alreq");
  ASSERT_TRUE(files::write_atomically(request_file, file).ok());
  const std::string review = std::string(AIRLOCK_OFFLINE_BIN) + " review " + request_file;
  const auto bare = airlock::test::run_command(review + " --at " + std::to_string(now_s()));
  EXPECT_EQ(bare.exit_code, 1) << bare.output;
  EXPECT_THAT(bare.output, HasSubstr("none: the empty policy, which allows nothing"));
  EXPECT_THAT(bare.output, HasSubstr("the request's own manager"));
  EXPECT_THAT(bare.output, HasSubstr("policy.vault_not_allowed"));
  EXPECT_THAT(bare.output, HasSubstr("VERDICT: sign would refuse"));
  EXPECT_THAT(bare.output, HasSubstr(to_hex(sha256(file).view())))
      << "the report names the request by the file's SHA-256";
  // The decoded swap is on the page even so.
  EXPECT_THAT(bare.output, HasSubstr("route"));

  const auto both = airlock::test::run_command(review + " --keystore " + keystore + " --signer " +
                                               to_base58(h.manager));
  EXPECT_EQ(both.exit_code, 2) << both.output;
  const auto bad = airlock::test::run_command(review + " --signer not-a-key");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("--signer"));
  const auto none = airlock::test::run_command(std::string(AIRLOCK_OFFLINE_BIN) + " review");
  EXPECT_EQ(none.exit_code, 2) << none.output;
  // The stranger as signer: not the policy's manager, refused as sign would refuse that key.
  std::ofstream(dir.file("swap-policy.toml")) << offline::policy_toml(policy_for(h.swap));
  const auto stranger = airlock::test::run_command(
      review + " --policy " + dir.file("swap-policy.toml") + " --signer " + to_base58(h.stranger) +
      " --at " + std::to_string(now_s()));
  EXPECT_EQ(stranger.exit_code, 1) << stranger.output;
  EXPECT_THAT(stranger.output, HasSubstr("is not the policy's manager"));
}

// Text as an HTML parser gives it back: the entities a serializer writes, decoded.
std::string html_text(std::string_view html) {
  std::string out;
  for (std::size_t i = 0; i < html.size(); ++i) {
    if (html[i] != '&') {
      out += html[i];
      continue;
    }
    bool decoded = false;
    for (const auto& [entity, c] : {std::pair<std::string_view, char>{"&lt;", '<'},
                                    {"&gt;", '>'},
                                    {"&amp;", '&'},
                                    {"&quot;", '"'},
                                    {"&#39;", '\''}}) {
      if (html.substr(i, entity.size()) == entity) {
        out += c;
        i += entity.size() - 1;
        decoded = true;
        break;
      }
    }
    if (!decoded) out += "&(undecoded)";
  }
  return out;
}

// The HTML report an auditor files: Chromium (headless) parses it, and the page's report holds
// exactly the text the terminal showed, for honest requests with and without DLMM pictures and
// for a hostile one whose intent carries markup. The page fetches nothing and runs nothing.
TEST_F(Adversarial, TheHtmlReportOpensInChromiumAndReadsAsTheTerminal) {
  ASSERT_EQ(airlock::test::run_command("command -v chromium").exit_code, 0)
      << "chromium is not installed: scripts/setup installs it";
  const auto h = honest();
  auto marked = h.swap;
  json intent = json::parse(marked.intent_json);
  intent["note"] = "</pre><script>alert(1)</script><img src=\"http://203.0.113.9/x\">";
  marked.intent_json = intent.dump();
  const std::vector<std::pair<std::string, const envelope::SignRequest*>> cases = {
      {"swap", &h.swap},
      {"dlmm_open", &h.dlmm_open},
      {"limit_order", &h.limit_order},
      {"dlmm_remove", &h.dlmm_remove},
      {"markup in the intent", &marked}};
  std::size_t pictures_seen = 0;
  for (const auto& [name, q] : cases) {
    SCOPED_TRACE(name);
    const std::string request_file = dir.file("html.alreq");
    ASSERT_TRUE(
        files::write_atomically(request_file, files::wrap_envelope(files::EnvelopeKind::kRequest,
                                                                   envelope::encode_request(*q)))
            .ok());
    std::ofstream(dir.file("html-policy.toml")) << offline::policy_toml(policy_for(*q));
    const std::string page = dir.file("report.html");
    std::filesystem::remove(page);
    const std::string review = std::string(AIRLOCK_OFFLINE_BIN) + " review " + request_file +
                               " --policy " + dir.file("html-policy.toml") + " --keystore " +
                               keystore + " --at " + std::to_string(now_s());
    const auto terminal = airlock::test::run_command("{ " + review + " 2>/dev/null; }");
    const auto written =
        airlock::test::run_command("{ " + review + " --html " + page + " 2>/dev/null; }");
    EXPECT_EQ(written.exit_code, terminal.exit_code);
    EXPECT_EQ(written.output, terminal.output) << "--html changes nothing on the terminal";
    std::ifstream in(page, std::ios::binary);
    ASSERT_TRUE(in.good()) << written.output;
    const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_THAT(html, HasSubstr("Content-Security-Policy\" content=\"default-src 'none'"));
    // The markup around the report's text (which may quote anything, escaped).
    const auto text_start = html.find("<pre id=\"report\">");
    const auto text_end = html.find("</pre>", text_start);
    ASSERT_NE(text_end, std::string::npos);
    const std::string markup = html.substr(0, text_start) + html.substr(text_end);
    for (const char* fetching : {"<script", "<img", "<link", "<iframe", "<object", "<embed",
                                 " src=", " href=", "url(", "@import"})
      EXPECT_THAT(markup, Not(HasSubstr(fetching))) << "the page would fetch or run " << fetching;
    EXPECT_THAT(html, Not(HasSubstr("<script"))) << "the intent's markup was not escaped";
    // The page's heading comes first: it points down to its reasons, not up.
    EXPECT_THAT(markup, Not(HasSubstr("reason(s) above")));
    EXPECT_THAT(markup, Not(HasSubstr("warnings above")));

    const auto dumped = airlock::test::run_command(
        "{ chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions "
        "--user-data-dir=" +
        dir.file("chromium-profile") + " --dump-dom file://" + page + " 2>/dev/null; }");
    ASSERT_EQ(dumped.exit_code, 0) << dumped.output;
    const std::string open = "<pre id=\"report\">";
    const auto start = dumped.output.find(open);
    ASSERT_NE(start, std::string::npos) << dumped.output;
    const auto end = dumped.output.find("</pre>", start);
    ASSERT_NE(end, std::string::npos);
    const std::string shown =
        html_text(dumped.output.substr(start + open.size(), end - start - open.size()));
    EXPECT_EQ(shown, terminal.output) << "the browser's report is not the terminal's";
    EXPECT_THAT(dumped.output, Not(HasSubstr("<script")))
        << "the intent's markup became an element";
    // One picture per DLMM instruction the terminal drew, and the browser parsed each.
    std::size_t drawn = 0, figures = 0;
    for (auto at = terminal.output.find("  bins      instruction"); at != std::string::npos;
         at = terminal.output.find("  bins      instruction", at + 1))
      ++drawn;
    for (auto at = dumped.output.find("<svg"); at != std::string::npos;
         at = dumped.output.find("<svg", at + 1))
      ++figures;
    EXPECT_EQ(figures, drawn);
    pictures_seen += figures;
  }
  EXPECT_GE(pictures_seen, 3U) << "the DLMM cases drew their bins";
}

// dlmm/add names its sub-range only when the manager wants one (spec 4.5). A twin build into the
// whole position is signed, but asked: the position's range is on chain, not here, so the
// operator is told which bins the steps fund and that their cover of the position is unchecked.
TEST_F(Adversarial, ADepositIntoTheWholePositionIsAskedNotRefused) {
  const auto h = honest();
  const auto r = offline::review_request(h.dlmm_add_whole, policy_for(h.dlmm_add_whole), decoders,
                                         manager_->public_key(), now_s());
  ASSERT_FALSE(r.refused()) << listed(r);
  EXPECT_FALSE(r.auto_approvable);
  ASSERT_TRUE(has(r.warnings, "warn.unbound_argument")) << listed(r);
  bool named = false;
  for (const auto& w : r.warnings)
    named = named || w.message.find(
                         "names no range (lowerBinId, upperBinId): its amounts go into "
                         "bins 4970 to 5029") != std::string::npos;
  EXPECT_TRUE(named) << listed(r);
  Run run = sign(h.dlmm_add_whole, policy_for(h.dlmm_add_whole));
  ASSERT_TRUE(run.outcome.ok()) << run.outcome.error().to_string();
  EXPECT_EQ(run.outcome->decision, offline::Decision::kSigned);
  EXPECT_EQ(run.asked, 1) << "--auto-approve went past the warning";
  EXPECT_THAT(run.outcome->summary, HasSubstr("warn.unbound_argument"));
}

// Found by an independent attacker review: a vault/update setting a 100% performance fee, its
// body holding the fee beside a long made-up "reason" (a field the API ignores), was signed with
// no warning: the screen's four lines of `asked` ran out inside the reason and the fee was
// never shown. A field the action does not take is warned about and shown last, marked; every
// field it takes is shown in full whatever else the body holds.
TEST_F(Adversarial, AFieldTheActionDoesNotTakeIsWarnedAndHidesNoFieldItTakes) {
  const json body = {
      {"vault", kVault}, {"depositCap", "20000000000000"}, {"performanceFeeBps", 10000}};
  const auto honest_fee = build("vault/update", body);
  const auto honest_review = offline::review_request(honest_fee, policy_for(honest_fee), decoders,
                                                     manager_->public_key(), now_s());
  ASSERT_FALSE(honest_review.refused()) << listed(honest_review);
  EXPECT_FALSE(has(honest_review.warnings, "warn.unknown_field"));
  auto q = honest_fee;
  json padded = {{"vault", kVault}, {"depositCap", "20000000000000"}};
  padded["reason"] = std::string(
      "Raise the deposit cap to 20,000,000 USDC as agreed with the depositors on the November "
      "call; no other setting changes in this update; ticket OPS-4411 approved by both signers; "
      "see the treasury channel for the minutes of the call and the vote");
  padded["performanceFeeBps"] = 10000;
  q.intent_json = padded.dump();
  const auto r =
      offline::review_request(q, policy_for(q), decoders, manager_->public_key(), now_s());
  ASSERT_FALSE(r.refused()) << listed(r);
  ASSERT_TRUE(has(r.warnings, "warn.unknown_field")) << listed(r);
  EXPECT_FALSE(r.auto_approvable);
  const std::string screen = offline::render_decision(q, r, now_s());
  EXPECT_THAT(screen, HasSubstr("performanceFeeBps 10000")) << screen;
  EXPECT_THAT(screen, HasSubstr("reason (NO FIELD")) << screen;
  EXPECT_LT(screen.find("performanceFeeBps 10000"), screen.find("reason (NO FIELD")) << screen;
  Run run = sign(q, policy_for(q));
  ASSERT_TRUE(run.outcome.ok()) << run.outcome.error().to_string();
  EXPECT_EQ(run.asked, 1) << "--auto-approve went past the warning";
}

TEST_F(Adversarial, AMisleadingHintIsNotShownAsFact) {
  const auto h = honest();
  for (const auto& c : adversarial::hostile_cases(h)) {
    if (c.code != "warn.misleading_hint") continue;
    SCOPED_TRACE(c.name);
    const auto r =
        offline::review_request(c.request, c.policy, decoders, manager_->public_key(), now_s());
    // The impostor's symbol is never attached to its mint; the pinned USDC keeps its decimals.
    for (const auto& t : r.tokens) {
      if (t.symbol == "usdc") ADD_FAILURE() << "the impostor hint became a label";
      if (!t.pinned) {
        EXPECT_TRUE(offline::is_ticker(t.symbol)) << "shown: " << t.symbol;
      }
      if (t.symbol == "USDC") {
        EXPECT_TRUE(t.pinned);
        EXPECT_EQ(t.decimals, 6);
      }
    }
  }
}

// A token transfer_checked states its mint's decimals, which the chain checks: a hint that
// disagrees is flagged, and the amount is shown in whole units from the instruction itself.
TEST_F(Adversarial, AHintContradictingCheckedDecimalsIsFlagged) {
  const auto h = honest();
  const Transaction tx = parse_transaction(h.vault_update.steps[0].transaction).value();
  auto ixs = decompile(tx.message);
  const PublicKey usdc = public_key_from_base58(kUsdc).value();
  const PublicKey account = public_key_from_base58(kSolUsdcPool).value();
  Bytes data = {12, 0x40, 0x42, 0x0f, 0, 0, 0, 0, 0, 6};  // 1,000,000 with 6 decimals
  ixs.insert(ixs.begin(), Instruction{public_key_from_base58(programs::kToken).value(),
                                      {{account, false, true},
                                       {usdc, false, false},
                                       {h.stranger, false, true},
                                       {h.manager, true, false}},
                                      data});
  auto q = h.vault_update;
  q.steps[0].transaction = serialize_transaction(unsigned_transaction(
      compile_v0_message(h.manager, ixs, tx.message.recent_blockhash).value()));
  q.hints.tokens = {{usdc, "USDC", 9, std::nullopt}};
  auto policy = policy_for(q);
  policy.programs.insert(public_key_from_base58(programs::kToken).value());
  const auto r = offline::review_request(q, policy, decoders, manager_->public_key(), now_s());
  EXPECT_TRUE(has(r.warnings, "warn.misleading_hint")) << listed(r);
  EXPECT_TRUE(has(r.refusals, "policy.manager_outside_vault")) << listed(r);
  const std::string screen = offline::render_summary(q, r, now_s());
  EXPECT_THAT(screen,
              HasSubstr("amount = 1000000  (1 whole tokens; these decimals are checked on chain)"));
}

TEST_F(Adversarial, ARequestIdReplayedWithOtherContentIsRefused) {
  const auto h = honest();
  Run first = sign(h.vault_update, policy_for(h.vault_update));
  ASSERT_TRUE(first.outcome.ok());
  ASSERT_EQ(first.outcome->decision, offline::Decision::kSigned) << listed(first.outcome->review);
  // The same id again over a transaction that differs by one byte of the blockhash.
  auto replay = h.vault_update;
  Transaction tx = parse_transaction(replay.steps[0].transaction).value();
  tx.message.recent_blockhash.bytes[0] ^= 1;
  replay.steps[0].transaction = serialize_transaction(tx);
  Run second = sign(replay, policy_for(replay));
  ASSERT_TRUE(second.outcome.ok());
  // Found in the audit log before any review: the refusal is the response's and the log's.
  const auto* refusal = std::get_if<envelope::Refusal>(&second.outcome->response.result);
  ASSERT_NE(refusal, nullptr) << "a signature left the machine";
  EXPECT_EQ(refusal->code, "policy.replay");
  EXPECT_EQ(log->entries().back().codes, std::vector<std::string>{"policy.replay"});
  EXPECT_EQ(second.passphrases, 0);

  // review --audit-log judges both as sign did: the first answered again from the log, the
  // replay refused as policy.replay.
  std::ofstream(dir.file("replay-policy.toml")) << offline::policy_toml(policy_for(replay));
  const auto review_of = [&](const envelope::SignRequest& q) {
    const std::string file = dir.file("replayed.alreq");
    EXPECT_TRUE(files::write_atomically(file, files::wrap_envelope(files::EnvelopeKind::kRequest,
                                                                   envelope::encode_request(q)))
                    .ok());
    return airlock::test::run_command(std::string(AIRLOCK_OFFLINE_BIN) + " review " + file +
                                      " --policy " + dir.file("replay-policy.toml") +
                                      " --audit-log " + dir.file("audit.log") + " --at " +
                                      std::to_string(now_s()) + " --json 2>/dev/null");
  };
  const auto again = review_of(h.vault_update);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  const json again_json = json::parse(again.output, nullptr, false);
  ASSERT_TRUE(again_json.is_object()) << again.output;
  EXPECT_EQ(again_json["review"]["verdict"], "reissued");
  EXPECT_EQ(again_json["review"]["replay"]["same_transactions"], true);
  const auto replayed = review_of(replay);
  EXPECT_EQ(replayed.exit_code, 1) << replayed.output;
  const json replayed_json = json::parse(replayed.output, nullptr, false);
  ASSERT_TRUE(replayed_json.is_object()) << replayed.output;
  EXPECT_EQ(replayed_json["review"]["verdict"], "refused");
  EXPECT_EQ(replayed_json["review"]["replay"]["same_transactions"], false);
}

// Envelope attacks against the real executable: each is refused before anything is decided,
// with no response written and no audit entry.
TEST_F(Adversarial, MalformedEnvelopesAreRefusedByTheExecutable) {
  const auto h = honest();
  const Bytes honest_file =
      files::wrap_envelope(files::EnvelopeKind::kRequest, envelope::encode_request(h.vault_update));
  std::ofstream(dir.file("policy.toml"))
      << "version = 1\nmanager = \"" << to_base58(manager_->public_key()) << "\"\n";
  struct Attack {
    const char* name;
    Bytes bytes;
    const char* code;
  };
  Bytes truncated(honest_file.begin(),
                  honest_file.begin() + static_cast<std::ptrdiff_t>(honest_file.size() / 2));
  Bytes trailing = honest_file;
  trailing.push_back(0x00);
  Bytes oversized = honest_file;
  oversized.resize(envelope::kMaxRequestBytes + 64, 0x41);
  // An airlock request claiming the action a Keystone request is reviewed as (no intent,
  // deadline or envelope vault to bind): found by an independent review, where review and sign
  // then took it for a Keystone request.
  auto claims_keystone = h.vault_update;
  claims_keystone.action = std::string(keystone::kSignRequestAction);
  const Bytes keystone_claim = files::wrap_envelope(files::EnvelopeKind::kRequest,
                                                    envelope::encode_request(claims_keystone));
  const std::vector<Attack> attacks = {
      {"truncated", truncated, "cbor."},
      {"trailing garbage", trailing, "trailing"},
      {"oversized", oversized, "too"},
      {"claims the Keystone action", keystone_claim, "sign_request.action"}};
  for (const auto& a : attacks) {
    SCOPED_TRACE(a.name);
    const std::string request = dir.file("hostile.alreq");
    ASSERT_TRUE(files::write_atomically(request, a.bytes).ok());
    const auto r = airlock::test::run_command(
        std::string(AIRLOCK_OFFLINE_BIN) + " sign --unsafe-allow-network --keystore " + keystore +
        " --policy " + dir.file("policy.toml") + " --audit-log " + dir.file("cli-audit.log") +
        " --out " + dir.file("response.alres") + " " + request + " 3</dev/null 4</dev/null");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr(a.code));
    EXPECT_FALSE(std::filesystem::exists(dir.file("response.alres")));
    EXPECT_FALSE(std::filesystem::exists(dir.file("cli-audit.log")));
    // review refuses it the same way.
    const auto reviewed =
        airlock::test::run_command(std::string(AIRLOCK_OFFLINE_BIN) + " review --policy " +
                                   dir.file("policy.toml") + " " + request);
    EXPECT_EQ(reviewed.exit_code, 1) << reviewed.output;
    EXPECT_THAT(reviewed.output, HasSubstr(a.code));
  }
}

// The online half, facing a hostile offline side or a hostile channel: a response for another
// request, a signature over other bytes and a late response are each caught before sending.
TEST_F(Adversarial, TheOnlineHalfCatchesBadResponsesBeforeSending) {
  const json body = {{"vault", kVault}, {"depositCap", "20000000000000"}};
  const Reply built = post("/transactions/vault/update", body);
  ASSERT_EQ(built.status, 200);
  const std::int64_t built_at = now_s();
  auto round = online::prepare_round("vault/update", body, built.body, std::nullopt, built_at);
  ASSERT_TRUE(round.ok()) << round.error().to_string();
  envelope::SignResponse good;
  good.request_id = round->request.request_id;
  good.signer = manager_->public_key();
  good.result =
      std::vector<Signature>{manager_->sign(serialize_message(round->transactions[0].message))};
  ASSERT_TRUE(online::apply_response(*round, good, built_at).ok());

  auto other_request = good;
  other_request.request_id[5] ^= 0x10;
  auto other_bytes = good;
  Message changed = round->transactions[0].message;
  changed.recent_blockhash.bytes[0] ^= 1;
  std::get<std::vector<Signature>>(other_bytes.result)[0] =
      manager_->sign(serialize_message(changed));
  const struct {
    const char* name;
    envelope::SignResponse response;
    std::int64_t now;
    ErrorCode code;
  } attacks[] = {
      {"another request", other_request, built_at, online::errors::kResponseMismatch},
      {"signature over other bytes", other_bytes, built_at, online::errors::kResponseMismatch},
      {"after the deadline", good, static_cast<std::int64_t>(round->request.deadline) + 1,
       online::errors::kResponseLate},
  };
  const json before = counters();
  for (const auto& a : attacks) {
    SCOPED_TRACE(a.name);
    auto answer = online::apply_response(*round, a.response, a.now);
    ASSERT_FALSE(answer.ok());
    EXPECT_EQ(answer.error().code(), a.code) << answer.error().to_string();
  }
  const json after = counters();
  EXPECT_EQ(after["sends"], before["sends"]) << "nothing was sent";
  EXPECT_EQ(after["landed"], before["landed"]);
}

}  // namespace
}  // namespace airlock::apisim::test

namespace airlock::apisim::test {
namespace {

// Text from outside reaches the screen escaped on every path: the build request body (shown
// whole), hint symbols and names, and the JSON summary. A body field holding a right-to-left
// override and an erase-screen sequence is the test.
TEST_F(Adversarial, TextFromOutsideReachesTheScreenEscaped) {
  const auto h = honest();
  auto q = h.vault_update;
  json body = json::parse(q.intent_json);
  body["note"] = "ok\u202e\x1b[2J\rinvisible";
  q.intent_json = body.dump();
  q.hints.tokens = {{public_key_from_base58(kUsdc).value(), "US\x1b]0;DC", 6, "USD\u2066Coin"}};
  const auto r =
      offline::review_request(q, policy_for(q), decoders, manager_->public_key(), now_s());
  EXPECT_TRUE(has(r.warnings, "warn.misleading_hint")) << listed(r);
  const std::string screen = offline::render_summary(q, r, now_s());
  for (const std::string_view raw : {"\x1b", "\r", "\xe2\x80\xae", "\xe2\x81\xa6"})
    EXPECT_THAT(screen, Not(HasSubstr(raw)));
  EXPECT_THAT(screen, HasSubstr("ok\\u{202E}"));
  const std::string as_json = offline::summary_json(q, r).dump(2, ' ', true);
  EXPECT_TRUE(std::all_of(as_json.begin(), as_json.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x80 && (c >= 0x20 || c == '\n');
  })) << "the JSON summary is ASCII with every control escaped";
}

}  // namespace
}  // namespace airlock::apisim::test

namespace airlock::apisim::test {
namespace {

// A build request body nested 8,000 deep fits the envelope's 16 KiB but no builder's shape:
// unreadable by rule, never a deep recursion.
TEST_F(Adversarial, ADeeplyNestedBodyIsUnreadable) {
  const auto h = honest();
  auto q = h.vault_update;
  q.intent_json = "{\"vault\":\"" + std::string(kVault) + "\",\"x\":" + std::string(8000, '[') +
                  std::string(8000, ']') + "}";
  const auto r =
      offline::review_request(q, policy_for(q), decoders, manager_->public_key(), now_s());
  EXPECT_TRUE(has(r.refusals, "intent.unreadable")) << listed(r);
}

}  // namespace
}  // namespace airlock::apisim::test
