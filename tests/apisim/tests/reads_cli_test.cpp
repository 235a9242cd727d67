// Every read command of the real airlock-online executable against the twin: tables with what
// the twin holds, --json exactly the reply, and bad arguments refused before any request.
#include <fstream>

#include "conformance_support.h"
#include "support/helpers.h"

namespace airlock::apisim::test {
namespace {

class ReadsCli : public Twin {
 protected:
  void SetUp() override {
    Twin::SetUp();
    std::ofstream(dir.file("api.key")) << kDemoKey << "\n";
  }
  airlock::test::CommandResult online(const std::string& args) {
    return airlock::test::run_command(std::string(AIRLOCK_ONLINE_BIN) + " " + args +
                                      " --api http://127.0.0.1:" + std::to_string(server_->port()) +
                                      std::string(kApiPrefix) + " --api-key-file " +
                                      dir.file("api.key"));
  }
  airlock::test::ScratchDir dir{"airlock-reads"};
};

TEST_F(ReadsCli, EveryReadShowsWhatTheTwinHolds) {
  const std::string v = kVault;
  const std::vector<std::pair<std::string, std::string>> reads = {
      {"vaults", v},
      {"vault " + v, "depositMint"},
      {"holdings " + v, "USDC"},
      {"strategies " + v, "last action"},
      {"nav " + v + " --limit 3", "NAV/share"},
      {"requests " + v, "deposits"},
      {"strategy-history " + v, "vault " + v},
      {"perp " + v, "markets"},
      {"quote --vault " + v + " --input-mint " + kUsdc + " --output-mint " + kJup +
           " --amount 5000000 --slippage-bps 50",
       "outAmount"},
      {"pools --page 1", kSolUsdcPool},
      {std::string("pool ") + kSolUsdcPool + " --vault " + v, "activeBinId"},
      {std::string("token ") + kUsdc + " --vault " + v, "USD Coin"},
  };
  for (const auto& [args, expected] : reads) {
    SCOPED_TRACE(args);
    const auto r = online(args);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << r.output;
  }
}

TEST_F(ReadsCli, JsonIsTheReplyAsSent) {
  const auto r = online(std::string("holdings ") + kVault + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(json::parse(r.output), get(std::string("/vaults/") + kVault + "/holdings").body);
}

TEST_F(ReadsCli, BadArgumentsAreRefusedBeforeAnyRequest) {
  const json before = counters();
  const auto bad_key = online("holdings not-a-vault");
  EXPECT_EQ(bad_key.exit_code, 2) << bad_key.output;
  EXPECT_NE(bad_key.output.find("VAULT: must be a base58 public key"), std::string::npos);
  const auto bad_amount = online(std::string("quote --vault ") + kVault + " --input-mint " + kUsdc +
                                 " --output-mint " + kJup + " --amount 1.5 --slippage-bps 50");
  EXPECT_EQ(bad_amount.exit_code, 2);
  EXPECT_NE(bad_amount.output.find("--amount: must be a base-unit amount"), std::string::npos);
  EXPECT_EQ(counters()["requests"], before["requests"].get<int>() + 1)
      << "only the counters read itself reached the twin";
  const auto missing = online(std::string("token ") + kUsdc);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("--vault: is required"), std::string::npos);
  const auto unknown_mint = online(std::string("token ") + kOtherVault + " --vault " + kVault);
  EXPECT_EQ(unknown_mint.exit_code, 1) << unknown_mint.output;
  EXPECT_NE(unknown_mint.output.find("404"), std::string::npos) << unknown_mint.output;
}

}  // namespace
}  // namespace airlock::apisim::test
