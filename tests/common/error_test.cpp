// The error style's own rules: a result read as what it does not hold aborts and says what it
// held; codes map to the documented exit codes; an exception escaping a command is an internal
// error with its own exit code.
#include <stdexcept>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/cli/cli.h>
#include <airlock/common/error.h>

using ::testing::HasSubstr;

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

// The exit code follows from the kind alone (docs/cli.md's table), whatever module owns the code.
TEST(ErrorCodes, EachKindExitsWithItsDocumentedCode) {
  const struct {
    ErrorKind kind;
    int exit;
  } table[] = {
      {ErrorKind::kInvalidInput, 1}, {ErrorKind::kRefused, 1}, {ErrorKind::kCorruption, 1},
      {ErrorKind::kUsage, 2},        {ErrorKind::kIo, 3},      {ErrorKind::kInternal, 4},
  };
  for (const auto& row : table) {
    const ErrorCode code{row.kind, "test.code"};
    EXPECT_EQ(cli::exit_code_for(Error(code, "")), row.exit) << error_kind_name(row.kind);
  }
  EXPECT_EQ(cli::exit_code_for(Error(ErrorCode::kUsage, "")), cli::kExitUsage);
  EXPECT_EQ(cli::exit_code_for(Error(ErrorCode::kIo, "")), cli::kExitIo);
  EXPECT_EQ(cli::exit_code_for(Error(ErrorCode::kTruncated, "")), cli::kExitRejected);
  EXPECT_EQ(cli::exit_code_for(Error(ErrorCode::kOutOfSecureMemory, "")), cli::kExitIo);
}

// A code is its name: two constants with one name are one code, the message says the name.
TEST(ErrorCodes, ACodeIsItsNameAndTheMessageSaysIt) {
  constexpr ErrorCode a{ErrorKind::kRefused, "module.rule"};
  constexpr ErrorCode b{ErrorKind::kRefused, "module.rule"};
  static_assert(a == b);
  static_assert(!(a == ErrorCode::kUsage));
  const Error e(a, "what broke");
  EXPECT_EQ(e.code(), b);
  EXPECT_EQ(e.code_name(), "module.rule");
  EXPECT_EQ(e.kind(), ErrorKind::kRefused);
  EXPECT_EQ(e.to_string(), "module.rule: what broke");
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
  EXPECT_THAT(said, HasSubstr("internal error: bug"));
}

}  // namespace
}  // namespace airlock
