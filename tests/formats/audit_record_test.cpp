#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/formats/audit_record.h>

namespace airlock::audit {
namespace {

using ::testing::HasSubstr;

// One rule for a typed head, shared by `log verify --head` and `reconcile --head`.
TEST(AuditHead, SixtyFourHexDigitsInEitherCaseAreTheSameHead) {
  const std::string lower = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
  std::string upper = lower;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto a = parse_head(lower, "--head");
  auto b = parse_head(upper, "--head");
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(to_hex(a->view()), lower);
}

TEST(AuditHead, AnythingElseIsAUsageErrorNamingTheOptionAndTheRule) {
  const std::string good(64, 'a');
  const struct {
    std::string text, rule;
  } cases[] = {
      {"", "got 0 characters"},
      {"00ff", "got 4 characters"},
      {good + "a", "got 65 characters"},
      {good.substr(0, 63) + "\n", "character 64 is not a hex digit"},
      {"0x" + good.substr(2), "character 2 is not a hex digit"},
      {good.substr(0, 10) + " " + good.substr(11), "character 11 is not a hex digit"},
      {std::string(64, 'g'), "character 1 is not a hex digit"},
  };
  for (const auto& c : cases) {
    auto r = parse_head(c.text, "--the-head");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().code(), ErrorCode::kUsage);
    EXPECT_THAT(r.error().message(), HasSubstr("--the-head: must be the 64 hex digits"));
    EXPECT_THAT(r.error().message(), HasSubstr(c.rule));
  }
}

}  // namespace
}  // namespace airlock::audit
