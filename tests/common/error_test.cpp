// The error style's own rules: a result read as what it does not hold aborts and says what it
// held; codes map to the documented exit codes; an exception escaping a command is an internal
// error with its own exit code.
#include <stdexcept>

#include <gtest/gtest.h>

#include <airlock/common/cli.h>
#include <airlock/common/error.h>

namespace airlock {
namespace {

Result<int> failing() { return Error(ErrorCode::kTruncated, "the input ends early"); }

TEST(ErrorDeathTest, TheValueOfAnErrorAbortsNamingTheError) {
  EXPECT_DEATH((void)failing().value(),
               "value\\(\\) of a result holding the error bytes.truncated");
  const Result<int> held = failing();
  EXPECT_DEATH((void)*held, "the input ends early");
}

TEST(ErrorDeathTest, TheErrorOfAValueAborts) {
  const Result<int> fine = 7;
  EXPECT_DEATH((void)fine.error(), "error\\(\\) of a result holding no error");
  const Status ok;
  EXPECT_DEATH((void)ok.error(), "error\\(\\) of a result holding no error");
}

TEST(ErrorCodes, EachKindExitsWithItsDocumentedCode) {
  EXPECT_EQ(cli::exit_code_for(Error(ErrorCode::kUsage, "")), cli::kExitUsage);
  EXPECT_EQ(cli::exit_code_for(Error(ErrorCode::kPolicyInvalid, "")), cli::kExitUsage);
  EXPECT_EQ(cli::exit_code_for(Error(ErrorCode::kIo, "")), cli::kExitIo);
  EXPECT_EQ(cli::exit_code_for(Error(ErrorCode::kKeystoreLocked, "")), cli::kExitIo);
  EXPECT_EQ(cli::exit_code_for(Error(ErrorCode::kAuditLogBroken, "")), cli::kExitRejected);
  EXPECT_EQ(error_code_name(ErrorCode::kPolicyInvalid), "policy.invalid");
}

TEST(ErrorCodes, AnExceptionEscapingACommandIsAnInternalError) {
  std::string program = "airlock-test", command = "boom";
  char* argv[] = {program.data(), command.data(), nullptr};
  const std::map<std::string, cli::Command, std::less<>> commands = {
      {"boom", [](const std::vector<std::string>&) -> int { throw std::runtime_error("bug"); }}};
  testing::internal::CaptureStderr();
  const int code = cli::dispatch("airlock-test", "usage\n", 2, argv, commands);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, cli::kExitInternal);
  EXPECT_EQ(code, 4);
  EXPECT_NE(said.find("internal error: bug"), std::string::npos) << said;
}

}  // namespace
}  // namespace airlock
