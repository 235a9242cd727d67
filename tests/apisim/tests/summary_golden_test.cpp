// The operator's screen, exactly: the summary of one request per family of programs the twin
// builds for (Jupiter route inside a vault swap, a DLMM batch, a perp order, a vault update
// that unpauses, a perp onboarding through the venue), compared line by line with the golden
// files in tests/data/summaries. What changes from run to run (request id, deadline, hashes
// and keys that depend on the blockhash) is masked. AIRLOCK_UPDATE_GOLDEN=1 rewrites the files
// after a deliberate change; the diff is then reviewed like code.
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include <airlock/offline/review.h>
#include <airlock/offline/summary.h>

#include "conformance_support.h"

namespace airlock::apisim::test {
namespace {

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

  void confirm(const std::string& action, const json& body) {
    advance(4000);
    const Reply built = post("/transactions/" + action, body);
    ASSERT_EQ(built.status, 200) << built.body.dump();
    for (const auto& step : steps_of(built.body)) ASSERT_EQ(send_and_confirm(step), "confirmed");
  }

  // The summary with what varies between runs masked.
  std::string screen(const envelope::SignRequest& q) {
    auto policy = demo_policy(q, "allow_unverified_lookup_tables = true");
    policy.programs.insert(
        public_key_from_base58("PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY").value());
    const auto review =
        offline::review_request(q, policy, decoders, manager_->public_key(), now_s());
    std::string text = offline::render_summary(q, review, now_s());
    text = std::regex_replace(text, std::regex("Sign request [0-9a-f]{32}"), "Sign request <id>");
    text = std::regex_replace(text, std::regex("in [0-9]+ s \\(unix [0-9]+\\)"),
                              "in <s> (unix <deadline>)");
    text = std::regex_replace(text, std::regex("sha256 [0-9a-f]{64}"), "sha256 <hash>");
    return text;
  }

  void compare(const std::string& name, const std::string& text) {
    const std::string path = std::string(AIRLOCK_TEST_DATA_DIR) + "/summaries/" + name + ".txt";
    const char* update = std::getenv("AIRLOCK_UPDATE_GOLDEN");
    if (update != nullptr && std::string(update) == "1") {
      std::ofstream(path) << text;
      return;
    }
    std::ifstream in(path);
    ASSERT_TRUE(in.good()) << "no golden file " << path << "; run with AIRLOCK_UPDATE_GOLDEN=1";
    std::stringstream golden;
    golden << in.rdbuf();
    // Line by line, so a failure shows the first line that differs.
    std::istringstream want(golden.str());
    std::istringstream got(text);
    std::string w;
    std::string g;
    int line = 0;
    while (true) {
      const bool more_w = static_cast<bool>(std::getline(want, w));
      const bool more_g = static_cast<bool>(std::getline(got, g));
      ++line;
      if (!more_w && !more_g) break;
      ASSERT_EQ(g, w) << name << " line " << line << "\nwhole screen:\n" << text;
    }
  }
};

TEST_F(SummaryGolden, EachFamilyReadsExactlyAsReviewed) {
  compare("aggregator-swap", screen(build("aggregator/swap", {{"vault", kVault},
                                                              {"sourceMint", kUsdc},
                                                              {"destinationMint", kJup},
                                                              {"amount", "5000000"},
                                                              {"slippageBps", 50}})));
  compare("dlmm-open", screen(build("dlmm/open", {{"vault", kVault},
                                                  {"lbPair", kSolUsdcPool},
                                                  {"lowerBinId", 4960},
                                                  {"upperBinId", 5040},
                                                  {"amountX", "20000000"},
                                                  {"amountY", "3000000"},
                                                  {"shape", "spot"},
                                                  {"maxActiveBinSlippage", 5}})));
  confirm("perp/initialize", {{"vault", kVault}});
  compare("perp-onboard", screen(build("perp/onboard", {{"vault", kVault}})));
  confirm("perp/onboard", {{"vault", kVault}});
  confirm("perp/deposit", {{"vault", kVault}, {"amount", "100000000"}});
  compare("perp-order",
          screen(build("perp/order",
                       {{"vault", kVault},
                        {"symbol", "SOL"},
                        {"side", "long"},
                        {"size", "1.5"},
                        {"reduceOnly", false},
                        {"order", {{"type", "limit"}, {"price", "149.5"}, {"postOnly", true}}}})));
  // Last: a paused vault refuses every other build.
  confirm("vault/update", {{"vault", kVault}, {"paused", true}});
  compare("vault-update-unpause",
          screen(build("vault/update", {{"vault", kVault}, {"paused", false}})));
}

}  // namespace
}  // namespace airlock::apisim::test
