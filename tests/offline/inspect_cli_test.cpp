// Runs the real airlock-offline executable: exit codes, stdout and stderr as a user sees them.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "support/helpers.h"
#include "support/vectors.h"

using ::testing::HasSubstr;

namespace {

using CliRun = airlock::test::CommandResult;

CliRun run(const std::string& args) {
  return airlock::test::run_command(std::string(AIRLOCK_OFFLINE_BIN) + " " + args);
}

class InspectCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("airlock-inspect-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& content) {
    const auto path = dir_ / name;
    std::ofstream(path, std::ios::binary) << content;
    return path.string();
  }
  std::filesystem::path dir_;
};

std::string vector_field(const std::string& name, const std::string& field) {
  return airlock::test::vector_named("solana-v0-transactions.json", name).at(field);
}

TEST_F(InspectCli, PrintsJsonForAFile) {
  const auto path = write("tx.b64", vector_field("two-signers", "signed_tx_base64") + "\n");
  const CliRun r = run("inspect --json " + path);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["header"]["required_signatures"], 2);
  EXPECT_EQ(j["signatures"][1]["status"], "valid");
}

TEST_F(InspectCli, DecodesInstructionsOfKnownPrograms) {
  const auto path =
      write("tx.b64", vector_field("compute-budget-and-memo", "unsigned_tx_base64") + "\n");
  const CliRun text = run("inspect " + path);
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("decoded  Compute Budget Program: set_compute_unit_limit\n"
                                     "        units = 400000"));
  EXPECT_THAT(text.output, HasSubstr("decoded  Memo Program: memo\n        text = airlock vector"));

  const CliRun json = run("inspect --json " + path);
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const auto j = nlohmann::json::parse(json.output);
  EXPECT_EQ(j["instructions"][1]["decoded"]["instruction"], "set_compute_unit_price");
  EXPECT_EQ(j["instructions"][1]["decoded"]["args"]["micro_lamports"], "25000");

  // A program no decoder knows is shown as such, never guessed.
  const auto unknown = write("lt.b64", vector_field("lookup-table", "unsigned_tx_base64") + "\n");
  const CliRun u = run("inspect --json " + unknown);
  ASSERT_EQ(u.exit_code, 0) << u.output;
  const auto uj = nlohmann::json::parse(u.output);
  EXPECT_FALSE(uj["instructions"][1].contains("decoded"));
  EXPECT_THAT(uj["instructions"][1]["decode_error"].get<std::string>(), HasSubstr("unknown"));
}

TEST_F(InspectCli, ReadsStdinAndRawBytes) {
  const auto b64 = vector_field("transfer", "signed_tx_base64");
  const auto text_path = write("tx.b64", b64);
  const CliRun from_stdin = run("inspect - < " + text_path);
  ASSERT_EQ(from_stdin.exit_code, 0) << from_stdin.output;
  EXPECT_THAT(from_stdin.output, HasSubstr("Transaction, version 0"));
  EXPECT_THAT(from_stdin.output, HasSubstr("System Program"));

  const auto raw = airlock::test::b64(b64);
  const auto bin_path = write("tx.bin", std::string(raw.begin(), raw.end()));
  const CliRun binary = run("inspect --binary --json " + bin_path);
  ASSERT_EQ(binary.exit_code, 0) << binary.output;
  EXPECT_EQ(nlohmann::json::parse(binary.output)["size"], raw.size());
}

TEST_F(InspectCli, ExitCodesNameTheProblem) {
  const CliRun rejected = run("inspect " + write("bad.b64", "AQID\n"));
  EXPECT_EQ(rejected.exit_code, 1) << rejected.output;
  EXPECT_THAT(rejected.output, HasSubstr("bytes.truncated"));

  const CliRun bad_base64 = run("inspect " + write("bad2.b64", "AQ ID"));
  EXPECT_EQ(bad_base64.exit_code, 1);
  EXPECT_THAT(bad_base64.output, HasSubstr("encoding.base64_invalid"));

  const CliRun usage = run("inspect --no-such-flag");
  EXPECT_EQ(usage.exit_code, 2) << usage.output;
  const CliRun both = run("inspect --message --transaction x");
  EXPECT_EQ(both.exit_code, 2) << both.output;
  const CliRun unknown = run("frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);

  const CliRun missing = run("inspect " + (dir_ / "absent").string());
  EXPECT_EQ(missing.exit_code, 3) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("io.failed"));
}

TEST_F(InspectCli, HelpOnEveryCommand) {
  const CliRun top = run("--help");
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_THAT(top.output, HasSubstr("inspect"));
  const CliRun inspect = run("inspect --help");
  EXPECT_EQ(inspect.exit_code, 0);
  EXPECT_THAT(inspect.output, HasSubstr("--json"));
  EXPECT_THAT(inspect.output, HasSubstr("Exit codes"));
}

}  // namespace
