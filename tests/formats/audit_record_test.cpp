#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/formats/audit_record.h>

namespace airlock::audit {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

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

Entry entry_after(const Entry* before, std::optional<std::vector<Outflow>> outflows) {
  Entry e;
  e.seq = before ? before->seq + 1 : 1;
  e.time = 1000 + static_cast<std::int64_t>(e.seq);
  e.prev = before ? before->hash : Hash{};
  e.action = "aggregator/swap";
  e.decision = Decision::kSigned;
  e.outflows = std::move(outflows);
  e.hash = chain_hash(e.prev, body_text(e));
  return e;
}

// Issue 17: an entry records what it moved out (for the limits); one written before that
// field existed still verifies, and its amounts stay unknown rather than zero.
TEST(AuditRecord, OutflowsAreRecordedAndAnEntryWithoutThemStillVerifies) {
  PublicKey usdc;
  usdc.bytes[0] = 7;
  const Entry legacy = entry_after(nullptr, std::nullopt);
  const Entry moved = entry_after(&legacy, std::vector<Outflow>{{usdc, 5'000'000}});
  const Entry none = entry_after(&moved, std::vector<Outflow>{});
  const std::string text = line_of(legacy) + "\n" + line_of(moved) + "\n" + line_of(none) + "\n";
  EXPECT_THAT(line_of(legacy), Not(HasSubstr("outflows")));
  EXPECT_THAT(line_of(moved), HasSubstr(",\"outflows\":[{\"mint\":\"" + to_base58(usdc) +
                                        "\",\"amount\":\"5000000\"}],\"hash\""));
  EXPECT_THAT(line_of(none), HasSubstr(",\"outflows\":[],\"hash\""));
  auto entries = verify_lines(text, "log");
  ASSERT_TRUE(entries.ok()) << entries.error().to_string();
  ASSERT_EQ(entries->size(), 3U);
  EXPECT_FALSE((*entries)[0].outflows.has_value());
  ASSERT_TRUE((*entries)[1].outflows.has_value());
  EXPECT_EQ(*(*entries)[1].outflows, (std::vector<Outflow>{{usdc, 5'000'000}}));
  EXPECT_TRUE((*entries)[2].outflows->empty());
  // An amount written otherwise than this program writes it, or a changed one, does not verify.
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{{"\"5000000\"", "\"05000000\""},
                                                        {"\"5000000\"", "\"5000001\""},
                                                        {"\"5000000\"", "5000000"},
                                                        {"\"5000000\"", "\"-5000000\""},
                                                        {"\"amount\"", "\"amounts\""}}) {
    std::string edited = text;
    edited.replace(edited.find(from), from.size(), to);
    auto r = verify_lines(edited, "log");
    EXPECT_FALSE(r.ok()) << to;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code(), errors::kBroken);
    }
  }
}

}  // namespace
}  // namespace airlock::audit
