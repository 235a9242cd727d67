// Runs the real airlock-offline executable: exit codes, stdout and stderr as a user sees them.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "support/vectors.h"

namespace {

struct CliRun {
  int exit_code = -1;
  std::string out;  // stdout and stderr, interleaved
};

CliRun run(const std::string& args) {
  const std::string command = std::string(AIRLOCK_OFFLINE_BIN) + " " + args + " 2>&1";
  CliRun result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
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
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["header"]["required_signatures"], 2);
  EXPECT_EQ(j["signatures"][1]["status"], "valid");
}

TEST_F(InspectCli, ReadsStdinAndRawBytes) {
  const auto b64 = vector_field("transfer", "signed_tx_base64");
  const auto text_path = write("tx.b64", b64);
  const CliRun from_stdin = run("inspect - < " + text_path);
  ASSERT_EQ(from_stdin.exit_code, 0) << from_stdin.out;
  EXPECT_NE(from_stdin.out.find("Transaction, version 0"), std::string::npos);
  EXPECT_NE(from_stdin.out.find("System Program"), std::string::npos);

  const auto raw = airlock::test::b64(b64);
  const auto bin_path = write("tx.bin", std::string(raw.begin(), raw.end()));
  const CliRun binary = run("inspect --binary --json " + bin_path);
  ASSERT_EQ(binary.exit_code, 0) << binary.out;
  EXPECT_EQ(nlohmann::json::parse(binary.out)["size"], raw.size());
}

TEST_F(InspectCli, ExitCodesNameTheProblem) {
  const CliRun rejected = run("inspect " + write("bad.b64", "AQID\n"));
  EXPECT_EQ(rejected.exit_code, 1) << rejected.out;
  EXPECT_NE(rejected.out.find("bytes.truncated"), std::string::npos) << rejected.out;

  const CliRun bad_base64 = run("inspect " + write("bad2.b64", "AQ ID"));
  EXPECT_EQ(bad_base64.exit_code, 1);
  EXPECT_NE(bad_base64.out.find("encoding.base64_invalid"), std::string::npos) << bad_base64.out;

  const CliRun usage = run("inspect --no-such-flag");
  EXPECT_EQ(usage.exit_code, 2) << usage.out;
  const CliRun both = run("inspect --message --transaction x");
  EXPECT_EQ(both.exit_code, 2) << both.out;
  const CliRun unknown = run("frobnicate");
  EXPECT_EQ(unknown.exit_code, 2);

  const CliRun missing = run("inspect " + (dir_ / "absent").string());
  EXPECT_EQ(missing.exit_code, 3) << missing.out;
  EXPECT_NE(missing.out.find("io.failed"), std::string::npos);
}

TEST_F(InspectCli, HelpOnEveryCommand) {
  const CliRun top = run("--help");
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.out.find("inspect"), std::string::npos);
  const CliRun inspect = run("inspect --help");
  EXPECT_EQ(inspect.exit_code, 0);
  EXPECT_NE(inspect.out.find("--json"), std::string::npos);
  EXPECT_NE(inspect.out.find("Exit codes"), std::string::npos);
}

}  // namespace
