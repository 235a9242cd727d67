// The operator's screen, exactly: the summary of one request per family of programs the twin
// builds for (Jupiter route inside a vault swap, a DLMM batch, a perp order, a vault update
// that unpauses, a perp onboarding through the venue), compared line by line with the golden
// files in tests/data/summaries. What changes from run to run (request id, deadline, hashes
// and keys that depend on the blockhash) is masked. AIRLOCK_UPDATE_GOLDEN=1 rewrites the files
// after a deliberate change; the diff is then reviewed like code.
#include <regex>

#include <airlock/offline/review.h>
#include <airlock/offline/summary.h>
#include <airlock/online/api.h>
#include <airlock/online/round.h>

#include "conformance_support.h"
#include "support/helpers.h"
#include "support/interfaces.h"

namespace airlock::apisim::test {
namespace {

// Keys and vectors as secrets, for the functions that take only SecretText.
airlock::test::SecretArena as_secret;

class SummaryGolden : public SigningTwin {
 protected:
  envelope::SignRequest build(const std::string& action, const json& body) {
    advance(4000);
    const Reply built = post("/transactions/" + action, body);
    EXPECT_EQ(built.status, 200) << action << ": " << built.body.dump();
    auto q = request_of(action, body, built.body);
    q.hints.tokens = {{public_key_from_base58(kUsdc).value(), "USDC", 6, "USD Coin"},
                      {public_key_from_base58(kJup).value(), "JUP", 6, std::nullopt}};
    return q;
  }

  // The request with the hints the online half adds to it (online::add_token_hints against
  // the twin): for DLMM, the pool's token X and Y.
  envelope::SignRequest with_online_hints(const std::string& action, const json& body) {
    auto q = build(action, body);
    auto client = online::ApiClient::create(
        "http://127.0.0.1:" + std::to_string(server_->port()) + std::string(kApiPrefix),
        online::ApiKey::parse(as_secret(kDemoKey)).value());
    EXPECT_TRUE(client.ok());
    online::Round round;
    round.action = action;
    round.body = body;
    round.request = q;
    online::add_token_hints(*client, round);
    return round.request;
  }

  void confirm(const std::string& action, const json& body) {
    advance(4000);
    const Reply built = post("/transactions/" + action, body);
    ASSERT_EQ(built.status, 200) << built.body.dump();
    for (const auto& step : steps_of(built.body)) ASSERT_EQ(send_and_confirm(step), "confirmed");
  }

  // The review under the demo policy, with the perp venue allowed.
  offline::Review reviewed(const envelope::SignRequest& q) {
    auto policy = demo_policy(q, "allow_unverified_lookup_tables = true\n" + extra_policy);
    policy.programs.insert(
        public_key_from_base58("PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY").value());
    return offline::review_request(q, policy, decoders, manager_->public_key(), now_s());
  }

  // The summary with what varies between runs masked.
  std::string screen(const envelope::SignRequest& q) {
    std::string text = offline::render_summary(q, reviewed(q), now_s());
    text = std::regex_replace(text, std::regex("Sign request [0-9a-f]{32}"), "Sign request <id>");
    text = std::regex_replace(text, std::regex("in [0-9]+ s \\(unix [0-9]+\\)"),
                              "in <s> (unix <deadline>)");
    text = std::regex_replace(text, std::regex("sha256 [0-9a-f]{64}"), "sha256 <hash>");
    return text;
  }

  // The decision screen (what the operator sees above the prompt), masked the same way.
  std::string decision(const envelope::SignRequest& q) {
    std::string text = offline::render_decision(q, reviewed(q), now_s());
    text = std::regex_replace(text, std::regex("Sign request [0-9a-f]{32}"), "Sign request <id>");
    text = std::regex_replace(text, std::regex("deadline  in [0-9]+ s"), "deadline  in <s> s");
    return text;
  }

  std::string extra_policy;  // added to the demo policy (TOML)

  void compare(const std::string& name, const std::string& text) {
    airlock::test::expect_golden("summaries/" + name + ".txt", text);
  }

  // The summary and the decision screen of `q`, each against its golden file.
  void compare_both(const std::string& name, const envelope::SignRequest& q) {
    compare(name, screen(q));
    const std::string d = decision(q);
    airlock::test::expect_golden("decisions/" + name + ".txt", d);
    // At most 23 lines of at most 80 columns: with the prompt, one 80x24 screen.
    std::size_t lines = 0;
    std::size_t start = 0;
    for (std::size_t end = d.find('\n'); end != std::string::npos; end = d.find('\n', start)) {
      EXPECT_LE(end - start, 80U) << name << ": " << d.substr(start, end - start);
      start = end + 1;
      ++lines;
    }
    EXPECT_LE(lines, 23U) << name << ":\n" << d;
  }
};

TEST_F(SummaryGolden, EachFamilyReadsExactlyAsReviewed) {
  compare_both("aggregator-swap", build("aggregator/swap", {{"vault", kVault},
                                                            {"sourceMint", kUsdc},
                                                            {"destinationMint", kJup},
                                                            {"amount", "5000000"},
                                                            {"slippageBps", 50}}));
  // The same swap under a policy that pins the tokens and a price floor for the pair, and a
  // sweep of SOL back to USDC under it.
  extra_policy = airlock::test::twin_price_floors_toml();
  compare_both("aggregator-swap-priced", build("aggregator/swap", {{"vault", kVault},
                                                                   {"sourceMint", kUsdc},
                                                                   {"destinationMint", kJup},
                                                                   {"amount", "5000000"},
                                                                   {"slippageBps", 50}}));
  compare_both("aggregator-sweep-priced",
               build("aggregator/sweep", {{"vault", kVault}, {"mint", kSol}, {"slippageBps", 50}}));
  extra_policy.clear();
  compare_both("dlmm-open", with_online_hints("dlmm/open", {{"vault", kVault},
                                                            {"lbPair", kSolUsdcPool},
                                                            {"lowerBinId", 4960},
                                                            {"upperBinId", 5040},
                                                            {"amountX", "20000000"},
                                                            {"amountY", "3000000"},
                                                            {"shape", "spot"},
                                                            {"maxActiveBinSlippage", 5}}));
  // Twenty steps: the decision screen still fits one screen.
  compare_both("dlmm-open-20-steps", with_online_hints("dlmm/open", {{"vault", kVault},
                                                                     {"lbPair", kSolUsdcPool},
                                                                     {"lowerBinId", 4300},
                                                                     {"upperBinId", 5700},
                                                                     {"amountX", "200000000"},
                                                                     {"amountY", "30000000"},
                                                                     {"shape", "spot"},
                                                                     {"maxActiveBinSlippage", 5}}));
  // A limit order: the decision screen says what leaves the vault for it, in the pool's token
  // its side spends (a bid spends token Y).
  compare_both(
      "dlmm-limit-order-place",
      with_online_hints("dlmm/limit-order/place", {{"vault", kVault},
                                                   {"lbPair", kSolUsdcPool},
                                                   {"side", "bid"},
                                                   {"bins",
                                                    {{{"binId", 4990}, {"amount", "1000000"}},
                                                     {{"binId", 4991}, {"amount", "2000000"}}}}}));
  confirm("perp/initialize", {{"vault", kVault}});
  compare_both("perp-onboard", build("perp/onboard", {{"vault", kVault}}));
  confirm("perp/onboard", {{"vault", kVault}});
  compare_both("perp-deposit", build("perp/deposit", {{"vault", kVault}, {"amount", "100000000"}}));
  confirm("perp/deposit", {{"vault", kVault}, {"amount", "100000000"}});
  compare_both("perp-withdraw", build("perp/withdraw", {{"vault", kVault}, {"amount", "2500000"}}));
  compare_both("perp-order",
               build("perp/order",
                     {{"vault", kVault},
                      {"symbol", "SOL"},
                      {"side", "long"},
                      {"size", "1.5"},
                      {"reduceOnly", false},
                      {"order", {{"type", "limit"}, {"price", "149.5"}, {"postOnly", true}}}}));
  // Last: a paused vault refuses every other build.
  confirm("vault/update", {{"vault", kVault}, {"paused", true}});
  compare_both("vault-update-unpause",
               build("vault/update", {{"vault", kVault}, {"paused", false}}));
}

}  // namespace
}  // namespace airlock::apisim::test

namespace airlock::apisim::test {
namespace {

// The online half names a DLMM action's pool tokens whether the body gives the pool (lbPair) or
// only a position, whose pool it finds in the vault's strategies.
// A request past its deadline says so first, and the sentence of what it does keeps its label
// below that line (an operator walk-through found it blank there).
TEST_F(SummaryGolden, APastDeadlineScreenKeepsItsLabels) {
  auto q = build("aggregator/swap", {{"vault", kVault},
                                     {"sourceMint", kUsdc},
                                     {"destinationMint", kJup},
                                     {"amount", "5000000"},
                                     {"slippageBps", 50}});
  const auto text =
      offline::render_decision(q, reviewed(q), static_cast<std::int64_t>(q.deadline) + 105);
  EXPECT_EQ(text.rfind("DEADLINE PASSED 105 s ago", 0), 0U) << text;
  EXPECT_NE(text.find("\n  what      Swaps"), std::string::npos) << text;
}

// An amount whose token no label names is shown in base units and says so: a limit order on a
// pool neither the policy nor a hint names has no token to put its bins' sum in.
TEST_F(SummaryGolden, AnAmountNoLabelUnitsStaysInBaseUnitsAndSaysWhy) {
  auto q = build(
      "dlmm/limit-order/place",
      {{"vault", kVault},
       {"lbPair", kSolUsdcPool},
       {"side", "ask"},
       {"bins", {{{"binId", 5090}, {"amount", "1500"}}, {{"binId", 5091}, {"amount", "2500"}}}}});
  ASSERT_TRUE(q.hints.pools.empty());
  const auto text = decision(q);
  EXPECT_NE(text.find("  moves     4000 base units of token X (pool tokens unknown) from the "
                      "vault into\n            a limit order's bins"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("side ask"), std::string::npos) << text;
}

TEST_F(SummaryGolden, PoolHintsComeFromTheBodyOrThePositionsStrategy) {
  const json open = {{"vault", kVault},    {"lbPair", kSolUsdcPool},   {"lowerBinId", 4960},
                     {"upperBinId", 4970}, {"amountX", "2000000"},     {"amountY", "300000"},
                     {"shape", "spot"},    {"maxActiveBinSlippage", 5}};
  const auto opened = with_online_hints("dlmm/open", open);
  ASSERT_EQ(opened.hints.pools.size(), 1U);
  EXPECT_EQ(to_base58(opened.hints.pools[0].pool), kSolUsdcPool);
  EXPECT_EQ(to_base58(opened.hints.pools[0].token_x), kSol);
  EXPECT_EQ(to_base58(opened.hints.pools[0].token_y), kUsdc);

  advance(4000);
  const Reply built = post("/transactions/dlmm/open", open);
  ASSERT_EQ(built.status, 200);
  const auto steps = steps_of(built.body);
  for (const auto& step : steps) ASSERT_EQ(send_and_confirm(step), "confirmed");
  const auto removal = with_online_hints(
      "dlmm/remove",
      {{"vault", kVault}, {"position", steps[0]["position"]}, {"bpsToRemove", 5000}});
  ASSERT_EQ(removal.hints.pools.size(), 1U);
  EXPECT_EQ(to_base58(removal.hints.pools[0].pool), kSolUsdcPool);
  // The removal's screen says what the manager asked of which position.
  compare_both("dlmm-remove", removal);
  const auto swap = with_online_hints("aggregator/swap", {{"vault", kVault},
                                                          {"sourceMint", kUsdc},
                                                          {"destinationMint", kJup},
                                                          {"amount", "5000000"},
                                                          {"slippageBps", 50}});
  EXPECT_TRUE(swap.hints.pools.empty()) << "only DLMM actions name a pool";
}

}  // namespace
}  // namespace airlock::apisim::test
