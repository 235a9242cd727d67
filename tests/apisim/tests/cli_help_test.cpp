// Every command of both executables answers --help with exit 0, even where it has required
// options, and names what it takes; an action's help lists that action's fields.
#include "conformance_support.h"
#include "support/helpers.h"

namespace airlock::apisim::test {
namespace {

TEST(CliHelp, EveryCommandAnswersHelp) {
  const std::vector<std::pair<std::string, std::string>> commands = {
      {AIRLOCK_OFFLINE_BIN, "inspect"}, {AIRLOCK_OFFLINE_BIN, "init"},
      {AIRLOCK_OFFLINE_BIN, "import"},  {AIRLOCK_OFFLINE_BIN, "pubkey"},
      {AIRLOCK_OFFLINE_BIN, "sign"},    {AIRLOCK_OFFLINE_BIN, "log"},
      {AIRLOCK_OFFLINE_BIN, "backup"},  {AIRLOCK_OFFLINE_BIN, "passphrase"},
      {AIRLOCK_ONLINE_BIN, "act"},      {AIRLOCK_ONLINE_BIN, "get"},
      {AIRLOCK_ONLINE_BIN, "resume"},   {AIRLOCK_ONLINE_BIN, "history"},
      {AIRLOCK_ONLINE_BIN, "holdings"}, {AIRLOCK_ONLINE_BIN, "quote"},
  };
  for (const auto& [binary, command] : commands) {
    SCOPED_TRACE(command);
    const auto r = airlock::test::run_command(binary + " " + command + " --help");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("usage:"), std::string::npos) << r.output;
  }
}

// Option names are matched whole: an abbreviation is a usage error, so `--api-key SECRET`
// (a secret typed as an argument) is refused instead of being read as --api-key-file.
TEST(CliHelp, AnAbbreviatedOptionIsRefused) {
  for (const std::string& line :
       {std::string(AIRLOCK_ONLINE_BIN) + " vaults --api http://127.0.0.1:9 --api-key SECRET",
        std::string(AIRLOCK_OFFLINE_BIN) + " pubkey --key k"}) {
    const auto r = airlock::test::run_command(line);
    EXPECT_EQ(r.exit_code, 2) << line << "\n" << r.output;
    EXPECT_NE(r.output.find("unrecognised option"), std::string::npos) << r.output;
  }
}

// A misspelt action is named as such, whatever follows it (it used to surface as an unknown
// --vault option, or as a missing body).
TEST(CliHelp, AnUnknownActionIsNamed) {
  for (const char* rest : {" --vault x", " --body '{}'", " --help"}) {
    const auto r = airlock::test::run_command(std::string(AIRLOCK_ONLINE_BIN) +
                                              " act aggregator/swapp" + rest);
    EXPECT_EQ(r.exit_code, 2) << rest << "\n" << r.output;
    EXPECT_NE(r.output.find("unknown action 'aggregator/swapp'"), std::string::npos) << rest << "\n"
                                                                                     << r.output;
  }
}

// Both halves take the operator's QR density by name, and name a wrong one before doing anything.
TEST(CliHelp, AnUnknownDensityIsNamedByBothHalves) {
  for (const std::string& line :
       {std::string(AIRLOCK_ONLINE_BIN) +
            " act vault/claim-fee --api http://127.0.0.1:9/api/external/v1 --vault " + kVault +
            " --request-out /nonexistent/r --response /nonexistent/s --density ultra",
        std::string(AIRLOCK_OFFLINE_BIN) +
            " sign --keystore /nonexistent/k --policy /nonexistent/p --audit-log /nonexistent/a "
            "--out /nonexistent/o "
            "/nonexistent/q --density ultra"}) {
    const auto r = airlock::test::run_command(line);
    EXPECT_EQ(r.exit_code, 2) << line << "\n" << r.output;
    EXPECT_NE(r.output.find("--density: must be low, medium or high"), std::string::npos)
        << r.output;
  }
}

// The twin says it serves only once it does: an address it refuses prints no "serving".
TEST(CliHelp, TheTwinRefusesAnAddressBeforeSayingItServes) {
  const auto r =
      airlock::test::run_command(std::string(AIRLOCK_APISIM_BIN) + " --listen 0.0.0.0:28080");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("loopback addresses only"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("serving"), std::string::npos) << r.output;
}

TEST(CliHelp, AnActionsHelpListsItsFields) {
  const auto r = airlock::test::run_command(std::string(AIRLOCK_ONLINE_BIN) +
                                            " act dlmm/limit-order/place --help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* flag : {"--lb-pair", "--side", "--bins", "--vault"})
    EXPECT_NE(r.output.find(flag), std::string::npos) << flag << "\n" << r.output;
  const auto all = airlock::test::run_command(std::string(AIRLOCK_ONLINE_BIN) + " act --help");
  EXPECT_NE(all.output.find("strategy/close"), std::string::npos) << all.output;
}

}  // namespace
}  // namespace airlock::apisim::test
