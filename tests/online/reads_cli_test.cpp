// Every read command of the real airlock-online executable against the twin: tables with what
// the twin holds, --json exactly the reply, and bad arguments refused before any request.
#include <filesystem>
#include <fstream>
#include <tuple>

#include <gmock/gmock.h>

#include "conformance_support.h"
#include "support/helpers.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace airlock::apisim::test {
namespace {

class ReadsCli : public Twin {
 protected:
  void SetUp() override {
    Twin::SetUp();
    std::ofstream(dir.file("api.key")) << kDemoKey << "\n";
    std::filesystem::permissions(dir.file("api.key"), std::filesystem::perms::owner_read |
                                                          std::filesystem::perms::owner_write);
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
    EXPECT_THAT(r.output, HasSubstr(expected));
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
  EXPECT_THAT(bad_key.output, HasSubstr("VAULT: must be a base58 public key"));
  const auto bad_amount = online(std::string("quote --vault ") + kVault + " --input-mint " + kUsdc +
                                 " --output-mint " + kJup + " --amount 1.5 --slippage-bps 50");
  EXPECT_EQ(bad_amount.exit_code, 2);
  EXPECT_THAT(bad_amount.output, HasSubstr("--amount: must be a base-unit amount"));
  EXPECT_EQ(counters()["requests"], before["requests"].get<int>() + 1)
      << "only the counters read itself reached the twin";
  const auto missing = online(std::string("token ") + kUsdc);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.output, HasSubstr("--vault: is required"));
  const auto unknown_mint = online(std::string("token ") + kOtherVault + " --vault " + kVault);
  EXPECT_EQ(unknown_mint.exit_code, 1) << unknown_mint.output;
  EXPECT_THAT(unknown_mint.output, HasSubstr("404"));
}

// Found by an independent review: the key pasted where its file's name belongs was printed
// back in full ("cannot open 'hv1_…'").
TEST_F(ReadsCli, AKeyGivenAsTheKeyFilesNameIsNotPrintedBack) {
  const std::string pasted = "hv1_demo_" + std::string("s3cr3t") + std::string(32, 'q');
  const auto r = airlock::test::run_command(
      std::string(AIRLOCK_ONLINE_BIN) + " vaults --api http://127.0.0.1:" +
      std::to_string(server_->port()) + std::string(kApiPrefix) + " --api-key-file " + pasted);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the API key file (--api-key-file): cannot open it"));
  EXPECT_THAT(r.output, Not(HasSubstr("s3cr3t")));
}

// The act and journal inputs: each bad one is refused by name and rule before anything is built.
// A key file others can read is said on every run; one only its owner reads is not.
TEST_F(ReadsCli, AKeyFileOthersCanReadIsWarnedAbout) {
  namespace fs = std::filesystem;
  fs::permissions(dir.file("api.key"), fs::perms::owner_read | fs::perms::owner_write |
                                           fs::perms::group_read | fs::perms::others_read);
  const auto shared = online("vaults");
  EXPECT_EQ(shared.exit_code, 0) << shared.output;
  EXPECT_THAT(shared.output, HasSubstr("warning: the API key file " + dir.file("api.key") +
                                       " can be read by other users (mode 644): chmod 600 it"));
  fs::permissions(dir.file("api.key"), fs::perms::owner_read | fs::perms::owner_write);
  const auto own = online("vaults");
  EXPECT_EQ(own.exit_code, 0) << own.output;
  EXPECT_THAT(own.output, Not(HasSubstr("can be read by other users")));
}

TEST_F(ReadsCli, BadActInputsAreRefusedBeforeAnyBuild) {
  const std::string out = " --request-out " + dir.file("req.alreq") + " --response " +
                          dir.file("res.alres") + " --journal " + dir.file("journal.sqlite");
  const json before = counters();
  std::filesystem::create_directories(dir.file("shots"));  // the operator's, never emptied
  std::ofstream(dir.file("shots/mine.txt")) << "kept";
  const std::vector<std::tuple<std::string, int, std::string>> cases = {
      {"pools --query nokey", 2, "--query: must be KEY=VALUE"},
      // A read refuses what it would ignore.
      {"vaults --input-mint " + std::string(kUsdc), 2, "unrecognised option '--input-mint'"},
      {"holdings " + std::string(kVault) + " --page 2", 2, "unrecognised option '--page'"},
      {"vaults " + std::string(kVault), 2, "vaults takes no argument, only options"},
      {"act vault/update --vault " + std::string(kVault) + " --request-out " +
           dir.file("journal.sqlite") + " --response " + dir.file("res.alres") + " --journal " +
           dir.file("journal.sqlite"),
       2, "--request-out: '" + dir.file("journal.sqlite") + "' is the file of --journal"},
      {"act vault/update --body '[1]'" + out, 2, "--body: must be a JSON object"},
      {"act vault/update --vault " + std::string(kVault) + " --deposit-cap 1.5" + out, 2,
       "--deposit-cap: must be a base-unit amount"},
      // The action may come after options, with their values: its fields are still known.
      {"act --journal " + dir.file("journal.sqlite") + " --request-qr-terminal vault/update " +
           "--vault " + std::string(kVault) + " --deposit-cap 1.5 --response " +
           dir.file("res.alres"),
       2, "--deposit-cap: must be a base-unit amount"},
      {"act vault/update --body '{\"vault\":\"" + std::string(kVault) + "\",\"paused\":\"no\"}'" +
           out,
       2, "body.paused: must be true or false"},
      {"act vault/explode --body '{\"vault\":\"" + std::string(kVault) + "\"}'" + out, 2,
       "not one of the 28 builder actions"},
      {"act vault/update --vault " + std::string(kVault) + " --request-out " +
           dir.file("req.alreq") + " --response " + dir.file("res.alres") +
           " --journal /nonexistent/dir/journal.sqlite",
       3, "journal: cannot open"},
      {"act dlmm/remove --vault " + std::string(kVault) + " --position " + std::string(kVault) +
           " --bps-to-remove 10 --cursor-bin-id abc" + out,
       2, "--cursor-bin-id: must be an integer"},
      {"act vault/update --vault " + std::string(kVault) + " --accept-landed not-a-signature" + out,
       2, "--accept-landed: must be a base58 transaction signature, not 'not-a-signature'"},
      {"act vault/update --vault " + std::string(kVault) + " --remaining maybe" + out, 2,
       "--remaining: must be ask, build or show"},
      {"act vault/update --vault " + std::string(kVault) + " --request-qr-png " +
           dir.file("shots") + " --response " + dir.file("res.alres") + " --journal " +
           dir.file("journal.sqlite"),
       2,
       "--request-qr-png: '" + dir.file("shots") + "' holds 'mine.txt', which is not a QR frame"},
      {"vaults --pace-file /nonexistent/dir/pacing", 3,
       "pacing file /nonexistent/dir/pacing: cannot open"},
  };
  std::ofstream(dir.file("journal.sqlite"), std::ios::app).close();  // exists, as a journal would
  for (const auto& [args, code, expected] : cases) {
    SCOPED_TRACE(args);
    const auto r = online(args);
    EXPECT_EQ(r.exit_code, code) << r.output;
    EXPECT_THAT(r.output, HasSubstr(expected));
    EXPECT_THAT(r.output, Not(HasSubstr("was given"))) << "a stray word is never repeated";
  }
  EXPECT_EQ(counters()["builds"], before["builds"]) << "nothing was built";
  EXPECT_TRUE(std::filesystem::exists(dir.file("shots/mine.txt")));
  const auto history = airlock::test::run_command(std::string(AIRLOCK_ONLINE_BIN) +
                                                  " history --journal /nonexistent/dir/j.sqlite");
  EXPECT_EQ(history.exit_code, 3) << history.output;
  EXPECT_THAT(history.output, HasSubstr("journal: there is no journal at"));
  // A command that only reads creates nothing: no journal, no seal (issue 31: history used to
  // make an empty journal, and seal it, where none was).
  const auto none = airlock::test::run_command(std::string(AIRLOCK_ONLINE_BIN) +
                                               " history --journal " + dir.file("none.sqlite"));
  EXPECT_EQ(none.exit_code, 3) << none.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("none.sqlite")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("none.sqlite.seal")));
}

}  // namespace
}  // namespace airlock::apisim::test
