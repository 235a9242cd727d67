#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/hash.h>
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

// Issue 32: an approved entry records the intent, its expiry and the policy, and nothing
// signed; a signed entry may name the approval it was signed under. Either field on another
// kind of entry does not verify.
TEST(AuditRecord, AnApprovalAndTheSignatureUnderItAreRecordedAndOnlyThere) {
  Entry approved = entry_after(nullptr, std::vector<Outflow>{});
  approved.decision = Decision::kApproved;
  approved.request_id[0] = 9;
  approved.approved = Entry::Approved{sha256(Bytes{1}), 1'790'000'000, sha256(Bytes{2})};
  Entry under = entry_after(&approved, std::vector<Outflow>{});
  under.under_approval = approved.request_id;
  std::vector<Entry> entries{approved, under};
  chain(entries);
  std::string text = line_of(entries[0]) + "\n" + line_of(entries[1]) + "\n";
  EXPECT_THAT(text, HasSubstr("\"decision\":\"approved\""));
  auto read = verify_lines(text, "log");
  ASSERT_TRUE(read.ok()) << read.error().to_string();
  EXPECT_EQ((*read)[0].approved, approved.approved);
  EXPECT_EQ((*read)[1].under_approval, approved.request_id);
  const auto broken = [](std::vector<Entry> es) {
    chain(es);
    std::string t;
    for (const auto& e : es) t += line_of(e) + "\n";
    return !verify_lines(t, "log").ok();
  };
  Entry no_field = approved;
  no_field.approved.reset();
  EXPECT_TRUE(broken({no_field})) << "an approved entry without what it approved";
  Entry signed_with = under;
  signed_with.approved = approved.approved;
  EXPECT_TRUE(broken({approved, signed_with})) << "a signed entry claiming an approval";
  Entry refused_under = under;
  refused_under.decision = Decision::kRefused;
  EXPECT_TRUE(broken({approved, refused_under})) << "under_approval on a refused entry";
  Entry approving_tx = approved;
  approving_tx.message_hashes.push_back(sha256(Bytes{3}));
  EXPECT_TRUE(broken({approving_tx})) << "an approval records no transaction";
  // Continued in a new log, the entry signed under the approval is carried whole (the approval
  // itself is not), and the new log verifies.
  auto begun = begun_entries(Start::Previous::kContinued, *read, under.time + 10);
  std::string continued;
  for (const auto& e : begun) continued += line_of(e) + "\n";
  auto next = verify_lines(continued, "next");
  ASSERT_TRUE(next.ok()) << next.error().to_string();
  ASSERT_EQ(next->size(), 2U);
  EXPECT_EQ((*next)[1].decision, Decision::kCarried);
  EXPECT_EQ((*next)[1].under_approval, approved.request_id);
}

// A chain of `entries` as lines, each hashed onto the one before (so only the rule between
// entries can fail, never the hash).
std::string chained(std::vector<Entry> entries) {
  chain(entries);
  std::string text;
  for (const auto& e : entries) text += line_of(e) + "\n";
  return text;
}

// Issue 17: a log started by `log start` says what came before it in its first entry, and the
// entries carried over from the log before follow it; a log continued in another ends with the
// entry that closed it. The places are part of the format: a started entry anywhere else or
// saying what `log start` never says, one that records a request, a carried entry that does
// not follow the started one or is not from the day before it, or anything after a closed
// entry does not verify, even when every hash matches.
TEST(AuditRecord, AStartedEntryIsFirstAndCarriedEntriesFollowIt) {
  Entry started;
  started.time = 2000;
  started.decision = Decision::kStarted;
  Start start;
  start.previous = Start::Previous::kContinued;
  start.previous_head.bytes.fill(0xab);
  start.previous_entries = 12;
  start.complete_since = 5;
  started.start = start;
  Entry carried = entry_after(nullptr, std::vector<Outflow>{});
  carried.decision = Decision::kCarried;
  carried.signatures.push_back(Signature{});
  const Entry signed_entry = entry_after(nullptr, std::vector<Outflow>{});

  const std::string good = chained({started, carried, carried, signed_entry});
  EXPECT_THAT(good, HasSubstr("\"decision\":\"started\""));
  std::string head_hex;
  for (int i = 0; i < 32; ++i) head_hex += "ab";
  EXPECT_THAT(good, HasSubstr(",\"start\":{\"previous\":\"" + head_hex +
                              "\",\"entries\":12,\"complete_since\":5},\"hash\""));
  auto entries = verify_lines(good, "log");
  ASSERT_TRUE(entries.ok()) << entries.error().to_string();
  ASSERT_TRUE((*entries)[0].start.has_value());
  EXPECT_EQ(*(*entries)[0].start, start);
  EXPECT_EQ(complete_since(*entries, 100), std::optional<std::int64_t>(5));
  EXPECT_TRUE(holds_signatures((*entries)[1]));
  EXPECT_FALSE(holds_signatures((*entries)[0]));

  // How the log began, as the line says it.
  for (const auto& [previous, text] : std::vector<std::pair<Start::Previous, std::string>>{
           {Start::Previous::kNone,
            "{\"previous\":\"none\",\"entries\":0,\"complete_since\":null}"},
           {Start::Previous::kLost,
            "{\"previous\":\"lost\",\"entries\":0,\"complete_since\":7}"}}) {
    Entry e = started;
    e.time = 7;
    e.start =
        Start{previous,
              {},
              0,
              previous == Start::Previous::kLost ? std::optional<std::int64_t>(7) : std::nullopt};
    const std::string line = chained({e});
    EXPECT_THAT(line, HasSubstr(",\"start\":" + text + ",\"hash\""));
    auto parsed = verify_lines(line, "log");
    ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
    EXPECT_EQ(complete_since(*parsed, 100), e.start->complete_since);
  }
  // A log begun by its first decision holds every signature since that decision; an empty one
  // since now.
  EXPECT_EQ(complete_since({signed_entry}, 5000), std::optional<std::int64_t>(signed_entry.time));
  EXPECT_EQ(complete_since({}, 5000), std::optional<std::int64_t>(5000));

  Entry with_request = started;
  with_request.action = "aggregator/swap";
  Entry signed_with_start = signed_entry;
  signed_with_start.start = start;
  Entry started_without = started;
  started_without.start.reset();
  const auto starting = [&](Start::Previous previous, std::uint64_t counted,
                            std::optional<std::int64_t> since) {
    Entry e = started;
    e.start = Start{previous, {}, counted, since};
    return e;
  };
  // A log continued in another ends with a closing entry (the new log's head as begun at its
  // time, and its file) and the closed entry naming the same head.
  std::vector<Entry> before_close = {signed_entry};
  chain(before_close);
  Entry closing;
  closing.time = 3000;
  closing.decision = Decision::kClosing;
  closing.successor =
      head_as_begun(begun_entries(Start::Previous::kContinued, before_close, closing.time));
  closing.successor_file = "/var/lib/airlock/next.log";
  Entry closed;
  closed.time = 3001;
  closed.decision = Decision::kClosed;
  closed.successor = closing.successor;
  Entry closed_without = closed;
  closed_without.successor.reset();
  Entry closed_elsewhere = closed;
  closed_elsewhere.successor = Hash{};
  Entry closing_without_file = closing;
  closing_without_file.successor_file.reset();
  Entry closing_relative = closing;
  closing_relative.successor_file = "next.log";
  Entry closing_elsewhere = closing;
  closing_elsewhere.successor = Hash{};
  Entry closing_with_request = closing;
  closing_with_request.action = "aggregator/swap";
  Entry signed_with_successor = signed_entry;
  signed_with_successor.successor = Hash{};
  Entry signed_with_file = signed_entry;
  signed_with_file.successor_file = "/next.log";
  // Found by an independent review: times that overflow a day's arithmetic, carried entries
  // after a start that continues nothing, ends written before what they end, paths log start
  // never writes, signatures on entries that sign nothing.
  Entry signed_at_dawn_of_time = signed_entry;
  signed_at_dawn_of_time.time = std::numeric_limits<std::int64_t>::min();
  Entry first_start = started;
  first_start.start = Start{};
  Entry late_signed = signed_entry;
  late_signed.time = closing.time + 1;
  Entry closed_too_early = closed;
  closed_too_early.time = closing.time - 1;
  Entry closing_dotdot = closing;
  closing_dotdot.successor_file = "/var/lib/../../etc/next.log";
  Entry closing_control = closing;
  closing_control.successor_file = "/var/lib/airlock/next\n.log";
  Entry many_codes = signed_entry;
  many_codes.codes.assign(257, "warn.x");
  Entry empty_code = signed_entry;
  empty_code.codes = {""};
  Entry refused_with_signature = signed_entry;
  refused_with_signature.decision = Decision::kRefused;
  refused_with_signature.signatures.push_back(Signature{});
  Entry later_start = started;
  later_start.time = 100'000;
  Entry old_carried = carried;
  old_carried.time = later_start.time - kCarriedSeconds;
  Entry future_carried = carried;
  future_carried.time = started.time + 1;
  const std::string closed_log = chained({signed_entry, closing, closed});
  ASSERT_TRUE(verify_lines(closed_log, "log").ok())
      << verify_lines(closed_log, "log").error().to_string();
  EXPECT_TRUE(verify_lines(chained({signed_entry, closing}), "log").ok())
      << "a start interrupted before the new log was closed still verifies";
  EXPECT_THAT(closed_log, HasSubstr("\"decision\":\"closing\""));
  EXPECT_THAT(closed_log,
              HasSubstr(",\"successor\":\"" + to_hex(closing.successor->view()) +
                        "\",\"successor_file\":\"/var/lib/airlock/next.log\",\"hash\""));
  EXPECT_THAT(closed_log, HasSubstr("\"decision\":\"closed\""));
  const std::vector<std::pair<std::vector<Entry>, std::string>> cases = {
      {{signed_entry, started}, "line 2: is a started entry, which only a log's first line can be"},
      {{with_request}, "line 1: is a started entry that records a request"},
      {{started_without}, "line 1: is a started entry without its \"start\""},
      {{signed_with_start}, "line 1: has a \"start\" but is not a started entry"},
      {{carried}, "line 1: is a carried entry that does not follow the started one"},
      {{started, signed_entry, carried},
       "line 3: is a carried entry that does not follow the started one"},
      {{later_start, old_carried}, "line 2: is a carried entry from outside the day before"},
      {{started, future_carried}, "line 2: is a carried entry from outside the day before"},
      {{starting(Start::Previous::kNone, 3, std::nullopt)},
       "line 1: says it follows nothing but counts entries before it"},
      {{starting(Start::Previous::kNone, 0, 5)},
       "line 1: says it follows nothing but counts entries before it"},
      {{starting(Start::Previous::kLost, 0, std::nullopt)},
       "line 1: follows a lost log but does not hold every signature from its own time"},
      {{starting(Start::Previous::kContinued, 4, 2001)},
       "line 1: holds every signature only from after its own time"},
      {{signed_entry, closing, closed_without},
       "line 3: is a closed entry without its \"successor\""},
      {{signed_with_successor}, "line 1: has a \"successor\" but does not end the log"},
      {{signed_with_file}, "line 1: has a \"successor_file\" but is not a closing entry"},
      {{signed_entry, closing_without_file},
       "line 2: is a closing entry without its \"successor_file\""},
      {{signed_entry, closing_relative},
       "line 2: is a closing entry whose successor_file is not a full path"},
      {{signed_entry, closing_elsewhere},
       "line 2: is a closing entry naming a successor that does not begin as a continuation"},
      {{signed_entry, closing_with_request}, "line 2: is a closing entry that records a request"},
      {{signed_entry, closed},
       "line 2: is a closed entry that does not follow the closing entry naming the same log"},
      {{signed_entry, closing, closed_elsewhere},
       "line 3: is a closed entry that does not follow the closing entry naming the same log"},
      {{signed_entry, closing, signed_entry},
       "line 3: follows the closing entry: only the entry that closes the log may"},
      {{signed_entry, closing, closing}, "line 3: follows the closing entry"},
      {{signed_entry, closing, closed, signed_entry},
       "line 4: follows the entry that closed this log: it was continued in another"},
      {{signed_entry, closing, closed, closed}, "line 4: follows the entry that closed this log"},
      {{signed_at_dawn_of_time}, "line 1: time is not a unix time from 1970 to 9999"},
      {{first_start, carried}, "line 2: is a carried entry in a log that continues no other"},
      {{late_signed, closing}, "line 2: is a closing entry written before an entry it follows"},
      {{signed_entry, closing, closed_too_early},
       "line 3: is a closed entry written before an entry it follows"},
      {{signed_entry, closing_dotdot}, "line 2: is a closing entry whose successor_file is not"},
      {{signed_entry, closing_control}, "line 2: is a closing entry whose successor_file is not"},
      {{many_codes}, "line 1: holds more codes, messages, signatures or outflows than an entry"},
      {{empty_code}, "line 1: a code is not a string of 1 to 64 bytes"},
      {{refused_with_signature},
       "line 1: is a refused entry with signatures, which only a signed, reissued or carried"},
  };
  for (const auto& [log, rule] : cases) {
    auto r = verify_lines(chained(log), "log");
    ASSERT_FALSE(r.ok()) << rule;
    EXPECT_EQ(r.error().code(), errors::kBroken);
    EXPECT_THAT(r.error().message(), HasSubstr(rule));
  }
}

// A line is checked for its length and nesting before it is parsed: 10 MiB of "[" made the
// JSON parser build a structure of a gigabyte (65 MiB, seven), found by an independent review.
TEST(AuditRecord, ALineNestedOrLongerThanAnyEntryIsRefusedBeforeItIsParsed) {
  const std::string deep = std::string(1 << 20, '[') + "\n";
  auto nested = verify_lines(deep.substr(deep.size() - 1000), "log");
  ASSERT_FALSE(nested.ok());
  EXPECT_THAT(nested.error().message(), HasSubstr("line 1: nests deeper than an entry does"));
  auto long_line = verify_lines(std::string((1 << 20) + 1, ' ') + "\n", "log");
  ASSERT_FALSE(long_line.ok());
  EXPECT_THAT(long_line.error().message(), HasSubstr("line 1: is longer than 1048576 bytes"));
  // Brackets inside strings are text, not nesting.
  Entry e = entry_after(nullptr, std::vector<Outflow>{});
  e.action = "[[[[{{{{";
  EXPECT_TRUE(verify_lines(chained({e}), "log").ok());
}

// A log that held nothing (a file sign created and never decided in) ends and is continued as
// any other: the head before its closing entry is zero, and the later log must begin at the
// closing entry's time.
TEST(AuditRecord, ALogThatHeldNothingIsContinuedLikeAnyOther) {
  const std::vector<Entry> next = begun_entries(Start::Previous::kContinued, {}, 500);
  Entry closing;
  closing.time = 500;
  closing.decision = Decision::kClosing;
  closing.successor = head_as_begun(next);
  closing.successor_file = "/next.log";
  Entry closed;
  closed.time = 501;
  closed.decision = Decision::kClosed;
  closed.successor = closing.successor;
  std::vector<Entry> before = {closing, closed};
  chain(before);
  std::string text;
  for (const auto& e : before) text += line_of(e) + "\n";
  auto verified = verify_lines(text, "log");
  ASSERT_TRUE(verified.ok()) << verified.error().to_string();
  const Status continues = check_continues(*verified, next);
  EXPECT_TRUE(continues.ok()) << continues.error().to_string();
  const auto at_another_time = begun_entries(Start::Previous::kContinued, {}, 499);
  EXPECT_FALSE(check_continues(*verified, at_another_time).ok());
}

}  // namespace
}  // namespace airlock::audit
