// Every command of both executables answers --help with exit 0, even where it has required
// options, and names what it takes; an action's help lists that action's fields.
#include <gmock/gmock.h>

#include "conformance_support.h"
#include "support/helpers.h"

using ::testing::HasSubstr;
using ::testing::Not;

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
    EXPECT_THAT(r.output, HasSubstr("usage:"));
  }
}

// One name for one idea in every program (issue 16): each command that reads a camera takes its
// frame size as --camera-size (sign and review took --size, act --camera-size).
TEST(CliHelp, EveryCameraReaderTakesTheSameSizeOption) {
  for (const std::string& command :
       {std::string(AIRLOCK_OFFLINE_BIN) + " sign --help",
        std::string(AIRLOCK_OFFLINE_BIN) + " review --help",
        std::string(AIRLOCK_QR_BIN) + " decode --help",
        std::string(AIRLOCK_ONLINE_BIN) + " act vault/claim-fee --help"}) {
    const auto r = airlock::test::run_command(command);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("--camera-size")) << command;
    EXPECT_THAT(r.output, Not(HasSubstr("--size"))) << command;
  }
}

// The QR outputs are one family in every program (issue 16): --qr-png, --qr-html and
// --qr-terminal where a command sends one way; in act, which carries both ways, the same names
// after the direction (--request-qr-png, --response-qr-png). The old names say the new ones.
TEST(CliHelp, EveryQrOutputIsNamedByOneFamily) {
  for (const auto& [command, names] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {std::string(AIRLOCK_OFFLINE_BIN) + " sign --help", {"--qr-png", "--qr-terminal"}},
           {std::string(AIRLOCK_OFFLINE_BIN) + " log export --help", {"--qr-png", "--qr-terminal"}},
           {std::string(AIRLOCK_QR_BIN) + " encode --help",
            {"--qr-png", "--qr-html", "--qr-terminal"}},
           {std::string(AIRLOCK_ONLINE_BIN) + " act vault/claim-fee --help",
            {"--request-qr-png", "--request-qr-html", "--request-qr-terminal",
             "--response-qr-png"}}}) {
    const auto r = airlock::test::run_command(command);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.output;
    for (const auto& name : names) EXPECT_THAT(r.output, HasSubstr(name)) << command;
    for (const char* old : {"--png ", "--terminal ", "--request-png", "--request-terminal",
                            "--request-html", "--response-qr "})
      EXPECT_THAT(r.output, Not(HasSubstr(old))) << command;
  }
  const auto renamed =
      airlock::test::run_command(std::string(AIRLOCK_QR_BIN) + " encode --png frames file.bin");
  EXPECT_EQ(renamed.exit_code, 2) << renamed.output;
  EXPECT_THAT(renamed.output, HasSubstr("--png is now --qr-png"));
  const auto act = airlock::test::run_command(std::string(AIRLOCK_ONLINE_BIN) +
                                              " act vault/claim-fee --request-png req");
  EXPECT_EQ(act.exit_code, 2) << act.output;
  EXPECT_THAT(act.output, HasSubstr("--request-png is now --request-qr-png"));
}

// Option names are matched whole: an abbreviation is a usage error, so `--api-key SECRET`
// (a secret typed as an argument) is refused instead of being read as --api-key-file.
TEST(CliHelp, AnAbbreviatedOptionIsRefused) {
  for (const std::string& line :
       {std::string(AIRLOCK_ONLINE_BIN) + " vaults --api http://127.0.0.1:9 --api-key SECRET",
        std::string(AIRLOCK_OFFLINE_BIN) + " pubkey --key k"}) {
    const auto r = airlock::test::run_command(line);
    EXPECT_EQ(r.exit_code, 2) << line << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("unrecognised option"));
  }
}

// A misspelt action is named as such, whatever follows it (it used to surface as an unknown
// --vault option, or as a missing body).
TEST(CliHelp, AnUnknownActionIsNamed) {
  for (const char* rest : {" --vault x", " --body '{}'", " --help"}) {
    const auto r = airlock::test::run_command(std::string(AIRLOCK_ONLINE_BIN) +
                                              " act aggregator/swapp" + rest);
    EXPECT_EQ(r.exit_code, 2) << rest << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("unknown action 'aggregator/swapp'")) << rest << "\n"
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
    EXPECT_THAT(r.output, HasSubstr("--density: must be low, medium or high"));
  }
}

// The twin says it serves only once it does: an address it refuses prints no "serving".
TEST(CliHelp, TheTwinRefusesAnAddressBeforeSayingItServes) {
  const auto r =
      airlock::test::run_command(std::string(AIRLOCK_APISIM_BIN) + " --listen 0.0.0.0:28080");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("loopback addresses only"));
  EXPECT_THAT(r.output, Not(HasSubstr("serving")));
}

TEST(CliHelp, TheTwinRefusesAManagerThatIsNoKeyBeforeServing) {
  const auto r = airlock::test::run_command(std::string(AIRLOCK_APISIM_BIN) +
                                            " --listen 127.0.0.1:0 --manager not-a-key");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--manager: not a base58 public key of 32 bytes"));
  EXPECT_THAT(r.output, Not(HasSubstr("serving")));
}

TEST(CliHelp, AnActionsHelpListsItsFields) {
  const auto r = airlock::test::run_command(std::string(AIRLOCK_ONLINE_BIN) +
                                            " act dlmm/limit-order/place --help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* flag : {"--lb-pair", "--side", "--bins", "--vault"})
    EXPECT_THAT(r.output, HasSubstr(flag)) << flag << "\n" << r.output;
  const auto all = airlock::test::run_command(std::string(AIRLOCK_ONLINE_BIN) + " act --help");
  EXPECT_THAT(all.output, HasSubstr("strategy/close"));
}

}  // namespace
}  // namespace airlock::apisim::test
