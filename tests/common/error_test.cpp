// The error style's own rules: a result read as what it does not hold aborts and says what it
// held; codes map to the documented exit codes; an exception escaping a command is an internal
// error with its own exit code.
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

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
// The names std::expected gives them, with its meaning: an error passes through and_then and
// transform untouched, and value_or falls back only on an error.
TEST(ResultAsExpected, TheExpectedMembersKeepTheirMeaning) {
  const Result<int> seven = 7;
  EXPECT_TRUE(seven.has_value());
  EXPECT_FALSE(failing().has_value());
  EXPECT_EQ(seven.value_or(1), 7);
  EXPECT_EQ(failing().value_or(1), 1);

  const auto half = [](int v) -> Result<int> {
    if (v % 2 != 0) return Error(ErrorCode::kUsage, "odd");
    return v / 2;
  };
  EXPECT_EQ(Result<int>(8).and_then(half).value(), 4);
  EXPECT_EQ(seven.and_then(half).error().message(), "odd");
  EXPECT_EQ(failing().and_then(half).error().code(), ErrorCode::kTruncated)
      << "the first error passes through, and f is not called";

  const auto text = Result<int>(12).transform([](int v) { return std::to_string(v); });
  static_assert(std::is_same_v<std::decay_t<decltype(text)>, Result<std::string>>);
  EXPECT_EQ(text.value(), "12");
  EXPECT_EQ(failing().transform([](int v) { return v + 1; }).error().message(),
            "the input ends early");

  // A move-only value moves out of a temporary.
  auto owned =
      Result<std::unique_ptr<int>>(std::make_unique<int>(3)).transform([](std::unique_ptr<int> p) {
        return *p * 2;
      });
  EXPECT_EQ(owned.value(), 6);
  EXPECT_TRUE(Status().has_value());
  EXPECT_FALSE(Status(Error(ErrorCode::kUsage, "no")).has_value());
}

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
