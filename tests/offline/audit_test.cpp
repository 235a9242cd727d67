// The audit log: entries chain, survive reopening, and any removal, reordering, edit or torn
// line is found and named; a locked log cannot be opened twice.
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <airlock/common/hash.h>
#include <airlock/offline/audit.h>

#include "support/helpers.h"

using ::testing::HasSubstr;

namespace airlock::offline {
namespace {

AuditEntry entry(std::uint8_t n, Decision decision) {
  AuditEntry e;
  e.time = 1'800'000'000 + n;
  e.request_id.fill(n);
  e.action = "aggregator/swap";
  e.manager.bytes.fill(1);
  e.vault.bytes.fill(2);
  e.decision = decision;
  if (decision == Decision::kRefused) e.codes = {"policy.fee_payer"};
  e.message_hashes = {sha256(Bytes{n})};
  if (decision == Decision::kSigned) e.signatures.push_back(Signature{});
  return e;
}

// The lines of `entries` as a log holds them.
std::string text_of_entries(const std::vector<AuditEntry>& entries) {
  std::string text;
  for (const auto& e : entries) text += audit::line_of(e) + "\n";
  return text;
}

// The text `log start --continue-from` begins a new log with at `time` from the log at `old`.
std::string begun_text(const std::string& old, std::int64_t time) {
  return text_of_entries(audit::begun_entries(audit::Start::Previous::kContinued,
                                              verify_audit_log(old).value(), time));
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines,
                 bool final_newline = true) {
  std::ofstream out(path, std::ios::trunc);
  for (std::size_t i = 0; i < lines.size(); ++i)
    out << lines[i] << (i + 1 < lines.size() || final_newline ? "\n" : "");
}

std::string verify_error(const std::string& path) {
  auto r = verify_audit_log(path);
  return r.ok() ? "ok" : r.error().message();
}

class AuditTest : public ::testing::Test {
 protected:
  // Three entries: signed, refused, signed.
  void SetUp() override {
    auto log = AuditLog::open(path);
    ASSERT_TRUE(log.ok()) << log.error().to_string();
    EXPECT_EQ(log->head(), Hash{}) << "an empty log's head is zero";
    for (const std::uint8_t n : {std::uint8_t{1}, std::uint8_t{2}, std::uint8_t{3}}) {
      auto head = log->append(entry(n, n == 2 ? Decision::kRefused : Decision::kSigned));
      ASSERT_TRUE(head.ok()) << head.error().to_string();
      heads.push_back(*head);
    }
  }

  test::ScratchDir dir{"airlock-audit"};
  std::string path = dir.file("audit.log");
  std::vector<Hash> heads;
};

TEST_F(AuditTest, EntriesChainAndSurviveReopening) {
  auto log = AuditLog::open(path);
  ASSERT_TRUE(log.ok()) << log.error().to_string();
  ASSERT_EQ(log->entries().size(), 3U);
  EXPECT_EQ(log->head(), heads.back());
  EXPECT_EQ(log->entries()[1].prev, heads[0]);
  EXPECT_EQ(log->entries()[2].prev, heads[1]);
  EXPECT_EQ(log->entries()[1].codes, std::vector<std::string>{"policy.fee_payer"});
  envelope::RequestId id;
  id.fill(3);
  ASSERT_NE(log->signed_entry(id), nullptr);
  EXPECT_EQ(log->signed_entry(id)->seq, 3U);
  id.fill(2);
  EXPECT_EQ(log->signed_entry(id), nullptr) << "a refusal is not a signature";
  EXPECT_EQ(verify_error(path), "ok");
  // The hash is SHA-256 over prev || the line without its hash field, as docs/audit-log.md says.
  const auto lines = lines_of(path);
  const std::string body = lines[0].substr(0, lines[0].rfind(",\"hash\":")) + "}";
  Bytes data(32, 0);
  data.insert(data.end(), body.begin(), body.end());
  EXPECT_EQ(sha256(data), heads[0]);
  EXPECT_EQ(std::filesystem::status(path).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

TEST_F(AuditTest, ALogInUseCannotBeOpenedAgain) {
  auto first = AuditLog::open(path);
  ASSERT_TRUE(first.ok());
  auto second = AuditLog::open(path);
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.error().message(), HasSubstr("in use"));
}

TEST_F(AuditTest, RemovedReorderedOrEditedEntriesAreFound) {
  const auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 3U);

  write_lines(path, {lines[0], lines[2]});
  EXPECT_THAT(verify_error(path), HasSubstr("line 2"));

  write_lines(path, {lines[1], lines[0], lines[2]});
  EXPECT_THAT(verify_error(path), HasSubstr("line 1"));

  write_lines(path, {lines[1], lines[2]});  // the first entry dropped: seq and prev both show it
  EXPECT_THAT(verify_error(path), HasSubstr("line 1"));

  std::string edited = lines[1];
  edited.replace(edited.find("policy.fee_payer"), 16, "policy.fee_payeR");
  write_lines(path, {lines[0], edited, lines[2]});
  EXPECT_THAT(verify_error(path), HasSubstr("altered"));

  std::string spaced = lines[0];
  spaced.insert(1, " ");
  write_lines(path, {spaced, lines[1], lines[2]});
  EXPECT_THAT(verify_error(path), HasSubstr("canonical"));

  write_lines(path, {lines[0], lines[1], "{}"});
  EXPECT_THAT(verify_error(path), HasSubstr("line 3"));

  // Cutting the tail of the log is only caught against a head recorded elsewhere: every sign
  // response carries the head, which is why it is sent back.
  write_lines(path, {lines[0], lines[1]});
  auto cut = verify_audit_log(path);
  ASSERT_TRUE(cut.ok());
  EXPECT_NE(cut->back().hash, heads.back());
}

TEST_F(AuditTest, ATornLastLineStopsSigningUntilRemoved) {
  auto lines = lines_of(path);
  lines[2].resize(lines[2].size() / 2);
  write_lines(path, lines, false);
  auto log = AuditLog::open(path);
  ASSERT_FALSE(log.ok());
  EXPECT_THAT(log.error().message(), HasSubstr("incomplete"));
  lines.pop_back();
  write_lines(path, lines);
  auto repaired = AuditLog::open(path);
  ASSERT_TRUE(repaired.ok()) << repaired.error().to_string();
  EXPECT_EQ(repaired->head(), heads[1]);
  auto next = repaired->append(entry(4, Decision::kDeclined));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(repaired->entries().back().seq, 3U);
  EXPECT_EQ(verify_error(path), "ok");
}

// `log export`: the whole log, line for line, once its chain verifies; nothing from a log that
// does not.
TEST_F(AuditTest, TheExportIsTheVerifiedLogLineForLine) {
  const std::string exported = dir.file("export.jsonl");
  const std::string command =
      std::string(AIRLOCK_OFFLINE_BIN) + " log export --audit-log " + path + " --out " + exported;
  const auto ok = test::run_command(command);
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  // The log's lines under the export's header line.
  auto exported_lines = lines_of(exported);
  ASSERT_EQ(exported_lines.size(), 4U);
  EXPECT_EQ(exported_lines.front(), audit::kExportHeader);
  exported_lines.erase(exported_lines.begin());
  EXPECT_EQ(exported_lines, lines_of(path));
  EXPECT_THAT(ok.output, HasSubstr(to_hex(heads.back().view())));
  // An export is never taken for the log (operator review F16): a copy on a stick, perhaps cut
  // short, would count the limits and the replays from less than the log holds.
  for (const char* use : {" log verify --audit-log ", " log export --out /dev/null --audit-log "}) {
    const auto as_log = test::run_command(std::string(AIRLOCK_OFFLINE_BIN) + use + exported);
    EXPECT_EQ(as_log.exit_code, 2) << use << as_log.output;
    EXPECT_THAT(as_log.output, HasSubstr("is an export of a log (airlock-offline log export), not "
                                         "the log: give the log itself"));
  }
  EXPECT_FALSE(offline::AuditLog::open(exported, offline::AuditLog::IfMissing::kCreate).ok());

  const auto nowhere =
      test::run_command(std::string(AIRLOCK_OFFLINE_BIN) + " log export --audit-log " + path);
  EXPECT_EQ(nowhere.exit_code, 2) << nowhere.output;
  const auto misplaced = test::run_command(std::string(AIRLOCK_OFFLINE_BIN) +
                                           " log verify --audit-log " + path + " --out x");
  EXPECT_EQ(misplaced.exit_code, 2) << misplaced.output;

  auto lines = lines_of(path);
  lines.erase(lines.begin() + 1);
  write_lines(path, lines);
  std::filesystem::remove(exported);
  const auto broken = test::run_command(command);
  EXPECT_EQ(broken.exit_code, 1) << broken.output;
  EXPECT_THAT(broken.output, HasSubstr("audit.broken"));
  EXPECT_FALSE(std::filesystem::exists(exported)) << "an export of a broken log was written";
}

// Issue 17: a new log that continues an archived one carries over the signed (and carried)
// entries of its last day, so the limits' windows and the request ids signed survive the
// change of log; it names the log it follows, and holds every signature as far back as that
// one did. Nothing is written when the old log cannot be read whole, is ahead of the clock or
// is in use, and a log is never started over an existing file.
TEST(LogStart, AContinuedLogCarriesTheLastDayAndSaysWhatItFollows) {
  test::ScratchDir dir{"airlock-log-start"};
  constexpr std::int64_t kNow = 1'800'000'000;
  const std::string old_path = dir.file("old.log");
  Hash old_head;
  {
    auto old = AuditLog::open(old_path);
    ASSERT_TRUE(old.ok());
    const std::vector<std::pair<std::int64_t, Decision>> made = {
        {kNow - 90'000, Decision::kSigned}, {kNow - 100, Decision::kSigned},
        {kNow - 50, Decision::kRefused},    {kNow - 40, Decision::kReissued},
        {kNow - 30, Decision::kDeclined},   {kNow - 10, Decision::kSigned}};
    std::uint8_t n = 0;
    for (const auto& [time, decision] : made) {
      AuditEntry e = entry(++n, decision);
      e.time = time;
      if (decision == Decision::kSigned) e.outflows = std::vector<audit::Outflow>{{{}, 7}};
      auto head = old->append(e);
      ASSERT_TRUE(head.ok());
      old_head = *head;
    }
  }
  const std::string old_text = test::text_of(old_path).value();
  const std::string path = dir.file("new.log");
  const StartFrom from{audit::Start::Previous::kContinued, old_path};
  auto started = start_audit_log(path, from, kNow);
  ASSERT_TRUE(started.ok()) << started.error().to_string();
  const auto& entries = started->entries;
  ASSERT_EQ(entries.size(), 3U) << "the started entry and the two signed in the last day";
  ASSERT_TRUE(entries[0].start.has_value());
  EXPECT_EQ(entries[0].decision, Decision::kStarted);
  EXPECT_EQ(entries[0].time, kNow);
  EXPECT_EQ(entries[0].start->previous_head, old_head);
  EXPECT_EQ(entries[0].start->previous_entries, 6U);
  EXPECT_EQ(entries[0].start->complete_since, std::optional<std::int64_t>(kNow - 90'000))
      << "the old log was begun by its first decision";
  EXPECT_EQ(entries[1].decision, Decision::kCarried);
  EXPECT_EQ(entries[1].time, kNow - 100);
  EXPECT_EQ(entries[2].request_id, entry(6, Decision::kSigned).request_id);
  EXPECT_EQ(entries[2].outflows, (std::vector<audit::Outflow>{{{}, 7}}));
  EXPECT_EQ(entries[2].signatures.size(), 1U);
  auto verified = verify_audit_log(path);
  ASSERT_TRUE(verified.ok()) << verified.error().to_string();
  EXPECT_EQ(verified->back().hash, started->head);
  // A request id signed in the last day is still known to the new log (a reissue, or a refusal
  // of other transactions under it).
  EXPECT_EQ(latest_signed(*verified, entry(6, Decision::kSigned).request_id), &(*verified)[2]);
  EXPECT_EQ(latest_signed(*verified, entry(1, Decision::kSigned).request_id), nullptr);

  // The old log is closed, naming the new one: nothing more is recorded in it, and it is not
  // continued a second time (which would leave out what the first continuation signed).
  EXPECT_EQ(test::text_of(old_path).value().substr(0, old_text.size()), old_text);
  {
    auto old = AuditLog::open(old_path);
    ASSERT_TRUE(old.ok()) << old.error().to_string();
    ASSERT_NE(old->closed(), nullptr);
    EXPECT_EQ(old->closed()->successor, std::optional<Hash>(started->head));
    EXPECT_EQ(old->entries().size(), 8U) << "closing and closed";
    auto appended = old->append(entry(9, Decision::kSigned));
    ASSERT_FALSE(appended.ok());
    EXPECT_THAT(appended.error().message(), HasSubstr("records nothing more: it was closed at"));
  }
  EXPECT_THAT(start_audit_log(dir.file("again.log"), from, kNow + 5).error().message(),
              HasSubstr("A log is continued once: continue from that log, or if it is gone, "
                        "start with --previous-lost"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("again.log")));

  // Continued again: what was carried is carried again, and the completeness stays.
  auto next =
      start_audit_log(dir.file("next.log"), {audit::Start::Previous::kContinued, path}, kNow + 50);
  ASSERT_TRUE(next.ok()) << next.error().to_string();
  EXPECT_EQ(next->entries.size(), 3U);
  EXPECT_EQ(next->entries[0].start->complete_since, std::optional<std::int64_t>(kNow - 90'000));

  // First and lost.
  auto first = start_audit_log(dir.file("first.log"), {}, kNow);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->entries.size(), 1U);
  EXPECT_EQ(first->entries[0].start->complete_since, std::nullopt);
  auto lost = start_audit_log(dir.file("lost.log"), {audit::Start::Previous::kLost, ""}, kNow);
  ASSERT_TRUE(lost.ok());
  EXPECT_EQ(lost->entries[0].start->complete_since, std::optional<std::int64_t>(kNow));

  // Refusals, each leaving nothing behind, on a copy of the old log as it was.
  const std::string copy = dir.file("copy.log");
  std::ofstream(copy) << old_text;
  const StartFrom from_copy{audit::Start::Previous::kContinued, copy};
  const std::string fresh = dir.file("fresh.log");
  const auto refusal = [&](const StartFrom& f, std::int64_t now, const std::string& where) {
    auto r = start_audit_log(where, f, now);
    EXPECT_FALSE(r.ok()) << where;
    return r.ok() ? std::string() : r.error().to_string();
  };
  const std::string first_text = test::text_of(dir.file("first.log")).value();
  EXPECT_THAT(refusal(from_copy, kNow, dir.file("first.log")), HasSubstr("already exists"));
  EXPECT_EQ(test::text_of(dir.file("first.log")), first_text);
  EXPECT_THAT(refusal(from_copy, kNow, copy), HasSubstr("name the same file"));
  EXPECT_THAT(refusal(from_copy, kNow - 20, fresh),
              HasSubstr("entry 6 was written at 1799999990, after the offline clock's "
                        "1799999980: the last day cannot be placed; set the clock"));
  EXPECT_THAT(refusal({audit::Start::Previous::kContinued, dir.file("missing.log")}, kNow, fresh),
              HasSubstr("missing.log: no such file; if the log before this one is gone, start "
                        "with --previous-lost instead"));
  {
    auto in_use = AuditLog::open(copy);
    ASSERT_TRUE(in_use.ok());
    EXPECT_THAT(refusal(from_copy, kNow, fresh), HasSubstr("in use by another airlock-offline"));
  }
  std::ofstream(dir.file("cut.log")) << old_text.substr(0, old_text.size() - 1);
  EXPECT_THAT(refusal({audit::Start::Previous::kContinued, dir.file("cut.log")}, kNow, fresh),
              HasSubstr("audit.broken"));
  // A FIFO is no log: refused at once, where a read would wait forever.
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  EXPECT_THAT(refusal({audit::Start::Previous::kContinued, dir.file("fifo")}, kNow, fresh),
              HasSubstr("is not a regular file"));
  EXPECT_FALSE(std::filesystem::exists(fresh));
  EXPECT_FALSE(std::filesystem::exists(dir.file("missing.log")));
  EXPECT_EQ(test::text_of(copy), old_text);

  // A file that names the old head but does not begin as this command begins it (here without
  // the carried entries) is not taken for an interrupted start: refused, the old log open
  // (found by an independent review, which had it close the old log and drop its last day).
  {
    auto copy_entries = verify_audit_log(copy);
    ASSERT_TRUE(copy_entries.ok());
    const auto begun =
        audit::begun_entries(audit::Start::Previous::kContinued, *copy_entries, kNow);
    ASSERT_GT(begun.size(), 1U);
    std::ofstream(dir.file("thin.log")) << audit::line_of(begun.front()) << "\n";
    EXPECT_THAT(refusal(from_copy, kNow, dir.file("thin.log")), HasSubstr("already exists"));
    EXPECT_EQ(test::text_of(copy), old_text) << "the old log was closed on a thin start";
  }

  // Interrupted after the closing entry and before the new log was moved to its name (a power
  // cut): the new log is staged whole beside its name, the old log decides nothing more and
  // names the one file it continues into; only that file finishes the start.
  const std::string interrupted_path =
      (std::filesystem::canonical(dir.path()) / "interrupted.log").string();
  const std::string staged = interrupted_path + ".starting";
  const auto begun_at = [&](std::int64_t time) {
    return audit::begun_entries(audit::Start::Previous::kContinued, verify_audit_log(copy).value(),
                                time);
  };
  const Hash expected = audit::head_as_begun(begun_at(kNow));
  const std::string staged_text = begun_text(copy, kNow);
  std::ofstream(staged) << staged_text;
  {
    auto old = AuditLog::open(copy);
    ASSERT_TRUE(old.ok());
    ASSERT_TRUE(old->begin_close(expected, interrupted_path, kNow).ok());
    auto refused = old->append(entry(9, Decision::kSigned));
    ASSERT_FALSE(refused.ok());
    EXPECT_THAT(refused.error().message(),
                HasSubstr("a start that was interrupted: finish it with `airlock-offline log "
                          "start --audit-log " +
                          interrupted_path + " --continue-from " + copy + "`"));
  }
  const std::string closing_text = test::text_of(copy).value();
  EXPECT_THAT(
      refusal(from_copy, kNow + 5, fresh),
      HasSubstr("a start that was interrupted: finish it with --audit-log " + interrupted_path));
  EXPECT_FALSE(std::filesystem::exists(fresh)) << "continued into a second file";
  std::ofstream(interrupted_path) << "not a log\n";
  EXPECT_THAT(refusal(from_copy, kNow + 5, interrupted_path),
              HasSubstr("does not begin as the interrupted start began it"));
  EXPECT_EQ(test::text_of(interrupted_path), "not a log\n");
  EXPECT_EQ(test::text_of(copy), closing_text);
  std::filesystem::remove(interrupted_path);

  auto finished = start_audit_log(interrupted_path, from_copy, kNow + 7);
  ASSERT_TRUE(finished.ok()) << finished.error().to_string();
  EXPECT_TRUE(finished->resumed);
  EXPECT_EQ(finished->head, expected);
  EXPECT_EQ(finished->entries.front().time, kNow) << "begun at the closing entry's time";
  EXPECT_EQ(test::text_of(interrupted_path), staged_text);
  EXPECT_FALSE(std::filesystem::exists(staged)) << "the staged log was moved, not copied";
  auto closed = verify_audit_log(copy);
  ASSERT_TRUE(closed.ok()) << closed.error().to_string();
  EXPECT_EQ(closed->back().decision, Decision::kClosed);
  EXPECT_EQ(closed->back().successor, std::optional<Hash>(expected));
  // Run again once finished (as after a failure reported for a write that had happened): it
  // says so and changes nothing; into another file it is refused.
  const std::string closed_text = test::text_of(copy).value();
  auto again_finished = start_audit_log(interrupted_path, from_copy, kNow + 9);
  ASSERT_TRUE(again_finished.ok()) << again_finished.error().to_string();
  EXPECT_TRUE(again_finished->finished_before);
  EXPECT_EQ(test::text_of(copy), closed_text);
  EXPECT_THAT(refusal(from_copy, kNow + 9, fresh), HasSubstr("A log is continued once"));

  // Interrupted after the new log was in place and before the old one was closed, and signed
  // into meanwhile: the same command closes the old log and keeps what the new one recorded.
  const std::string unclosed =
      closed_text.substr(0, closed_text.rfind('\n', closed_text.size() - 2) + 1);
  std::ofstream(copy, std::ios::trunc) << unclosed;
  {
    auto next_log = AuditLog::open(interrupted_path);
    ASSERT_TRUE(next_log.ok());
    ASSERT_TRUE(next_log->append(entry(10, Decision::kSigned)).ok());
  }
  const std::string recorded = test::text_of(interrupted_path).value();
  // Moved aside meanwhile: the start had put it in place, so it is not written again as if
  // nothing had been recorded in it (found by an independent review, which had a signature
  // vanish from the chain that way).
  std::filesystem::rename(interrupted_path, dir.file("moved.log"));
  EXPECT_THAT(refusal(from_copy, kNow + 20, interrupted_path),
              HasSubstr("had put this log in place, and it is gone since"));
  EXPECT_FALSE(std::filesystem::exists(interrupted_path));
  std::filesystem::rename(dir.file("moved.log"), interrupted_path);
  auto again = start_audit_log(interrupted_path, from_copy, kNow + 20);
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_TRUE(again->resumed);
  EXPECT_EQ(again->head, expected);
  EXPECT_EQ(test::text_of(interrupted_path), recorded);
  EXPECT_EQ(verify_audit_log(copy)->back().decision, Decision::kClosed);
}

// The new log is staged whole before the old log changes, so a name the folder cannot take
// fails with the old log untouched, not stuck in its closing (found by an independent review:
// a 256-byte name left the old log closing for good); a staging file left by a start that
// stopped before that is cleared, and anything else by that name is refused.
TEST(LogStart, ANewLogThatCannotBeWrittenLeavesTheOldOneOpen) {
  test::ScratchDir dir{"airlock-log-staging"};
  const std::string old_path = dir.file("old.log");
  {
    auto old = AuditLog::open(old_path);
    ASSERT_TRUE(old.ok());
    ASSERT_TRUE(old->append(entry(1, Decision::kSigned)).ok());
  }
  const std::string old_text = test::text_of(old_path).value();
  const StartFrom from{audit::Start::Previous::kContinued, old_path};
  constexpr std::int64_t kNow = 1'800'000'000;
  const auto too_long = start_audit_log(dir.file(std::string(250, 'n')), from, kNow + 100);
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(test::text_of(old_path), old_text) << "the old log changed";

  const std::string path = dir.file("new.log");
  // A link to another file by the staging name is never taken for a staged log, even when
  // that file is one.
  std::ofstream(dir.file("elsewhere.log")) << begun_text(old_path, kNow + 60);
  ASSERT_EQ(::symlink(dir.file("elsewhere.log").c_str(), (path + ".starting").c_str()), 0);
  EXPECT_THAT(start_audit_log(path, from, kNow + 100).error().message(),
              HasSubstr("is not a start of this log that stopped early"));
  std::filesystem::remove(path + ".starting");
  std::ofstream(path + ".starting") << "the operator's notes\n";
  const auto foreign = start_audit_log(path, from, kNow + 100);
  ASSERT_FALSE(foreign.ok());
  EXPECT_THAT(foreign.error().message(),
              HasSubstr("is not a start of this log that stopped early"));
  EXPECT_EQ(test::text_of(path + ".starting"), "the operator's notes\n");
  // A staged start that was then signed into as a log of its own holds decisions: never
  // removed as if nothing came of it (found by an independent review).
  {
    std::ofstream(path + ".starting", std::ios::trunc) << begun_text(old_path, kNow + 60);
    auto staged = AuditLog::open(path + ".starting");
    ASSERT_TRUE(staged.ok());
    AuditEntry signed_there = entry(7, Decision::kSigned);
    signed_there.time = kNow + 70;
    ASSERT_TRUE(staged->append(signed_there).ok());
  }
  const std::string signed_into = test::text_of(path + ".starting").value();
  EXPECT_THAT(start_audit_log(path, from, kNow + 100).error().message(),
              HasSubstr("is not a start of this log that stopped early"));
  EXPECT_EQ(test::text_of(path + ".starting"), signed_into);
  // A staged start of this log at another time, which never wrote the closing entry.
  std::ofstream(path + ".starting", std::ios::trunc) << begun_text(old_path, kNow + 60);
  auto started = start_audit_log(path, from, kNow + 100);
  ASSERT_TRUE(started.ok()) << started.error().to_string();
  EXPECT_EQ(started->entries.front().time, kNow + 100);
  EXPECT_FALSE(std::filesystem::exists(path + ".starting"));
  // A name the old log could not record as a closing entry holds it is refused before anything.
  const auto control = start_audit_log(dir.file("a\x1b.log"),
                                       {audit::Start::Previous::kContinued, path}, kNow + 200);
  ASSERT_FALSE(control.ok());
  EXPECT_THAT(control.error().message(), HasSubstr("must be printable UTF-8"));
  EXPECT_EQ(verify_audit_log(path)->back().decision, Decision::kCarried);
}

// A write past the file-size limit (ulimit -f) fails and is cut back instead of killing the
// program halfway through the old log's closing line, which left the log torn (found by an
// independent review): the start is refused with nothing changed.
TEST(LogStart, AFileSizeLimitFailsTheStartWithoutTearingTheOldLog) {
  test::ScratchDir dir{"airlock-log-fsize"};
  const std::string old_path = dir.file("old.log");
  std::size_t size = 0;
  {
    auto old = AuditLog::open(old_path);
    ASSERT_TRUE(old.ok());
    // Entries of two days ago (nothing carried, so the new log stays small), until the file
    // ends close below a KiB boundary: the closing line cannot fit under the limit.
    const std::int64_t then = static_cast<std::int64_t>(std::time(nullptr)) - 2 * 86'400;
    std::uint8_t n = 0;
    do {
      AuditEntry e = entry(++n, Decision::kSigned);
      e.time = then;
      ASSERT_TRUE(old->append(e).ok());
      size = old->bytes();
    } while (1024 - size % 1024 > 200 && n < 200);
  }
  const std::string old_text = test::text_of(old_path).value();
  const auto r = test::run_command("ulimit -f " + std::to_string(size / 1024 + 1) + "; " +
                                   AIRLOCK_OFFLINE_BIN + " log start --audit-log " +
                                   dir.file("new.log") + " --continue-from " + old_path);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cannot append"));
  EXPECT_EQ(test::text_of(old_path), old_text) << "the old log changed";
  EXPECT_TRUE(verify_audit_log(old_path).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.file("new.log")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("new.log.starting")));
}

// A log stops recording decisions at its bound (audit.full, naming how to continue it), and
// can still be closed when it is continued, so a full log is never a dead end.
TEST(LogStart, AFullLogRefusesDecisionsAndCanStillBeContinued) {
  test::ScratchDir dir{"airlock-log-full"};
  const std::string path = dir.file("audit.log");
  std::size_t size = 0;
  {
    auto log = AuditLog::open(path);
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE(log->append(entry(1, Decision::kSigned)).ok());
    size = log->bytes();
  }
  auto log = AuditLog::open(path, AuditLog::IfMissing::kRefuse, {size + 10, size * 4});
  ASSERT_TRUE(log.ok());
  auto refused = log->append(entry(2, Decision::kSigned));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), audit::errors::kFull);
  EXPECT_THAT(refused.error().message(),
              HasSubstr("is full (" + std::to_string(size) + " bytes of " +
                        std::to_string(size + 10) + "): nothing more is decided in it"));
  EXPECT_EQ(log->entries().size(), 1U);
  constexpr std::int64_t kLater = 1'800'000'100;
  const Hash next = audit::head_as_begun(
      audit::begun_entries(audit::Start::Previous::kContinued, log->entries(), kLater));
  auto closing = log->begin_close(next, dir.file("next.log"), kLater);
  EXPECT_TRUE(closing.ok()) << closing.error().to_string();
  auto closed = log->close(kLater);
  EXPECT_TRUE(closed.ok()) << closed.error().to_string();
  auto verified = verify_audit_log(path);
  ASSERT_TRUE(verified.ok()) << verified.error().to_string();
  EXPECT_EQ(verified->size(), 3U);
}

// `log start` repeats the file names it was given escaped: a name is outside text, and one
// holding a terminal escape must not reach the screen as one.
TEST(LogStart, TheNamesItRepeatsAreEscaped) {
  test::ScratchDir dir{"airlock-log-names"};
  const std::string name = dir.file("a\x1b[2Jb.log");
  const auto r = test::run_command(std::string(AIRLOCK_OFFLINE_BIN) +
                                   " log start --first --audit-log '" + name + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("started "));
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << r.output;
}

}  // namespace
}  // namespace airlock::offline
