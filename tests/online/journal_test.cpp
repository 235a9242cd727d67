// The journal on its own: what is written survives closing and reopening, steps keep their
// order and status, unresolved sends are found, and a journal of another schema is refused.
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <airlock/online/journal.h>

#include "support/helpers.h"

using ::testing::HasSubstr;
using json = nlohmann::json;

namespace airlock::online {
namespace {

JournalStep step(std::int64_t run, int round, int number) {
  JournalStep st;
  st.run_id = run;
  st.round = round;
  st.step = number;
  st.action = "dlmm/open";
  st.ticket = "tkt_" + std::to_string(number);
  st.built_at = 1000;
  st.concurrent = true;
  st.transaction = "AQID";
  st.signature = "sig" + std::to_string(number);
  st.status = step_status::kSigned;
  st.updated_at = 1001;
  return st;
}

TEST(Journal, WhatIsWrittenSurvivesReopening) {
  airlock::test::ScratchDir dir("airlock-journal");
  const std::string path = dir.file("journal.sqlite");
  std::int64_t run = 0;
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j.ok()) << j.error().to_string();
    auto r =
        j->begin_run("http://127.0.0.1:1/api/external/v1", "dlmm/open", {{"amountX", "5"}}, 1000);
    ASSERT_TRUE(r.ok());
    run = *r;
    ASSERT_TRUE(j->event(run, "build", "3 step(s)", 1000).ok());
    std::vector<JournalStep> steps = {step(run, 1, 1), step(run, 1, 2), step(run, 1, 3)};
    steps[2].next = nlohmann::json{{"path", "dlmm/add"}, {"body", {{"x", 1}}}};
    ASSERT_TRUE(j->add_signed_steps(steps).ok());
    EXPECT_GT(steps[0].id, 0);
    steps[0].status = step_status::kPending;
    steps[0].receipt = "rcpt_1";
    ASSERT_TRUE(j->update_step(steps[0]).ok());
    steps[1].status = step_status::kSending;
    ASSERT_TRUE(j->update_step(steps[1]).ok());
  }
  auto j = Journal::open(path);
  ASSERT_TRUE(j.ok());
  auto runs = j->runs(true);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1U);
  EXPECT_EQ((*runs)[0].action, "dlmm/open");
  EXPECT_EQ((*runs)[0].body["amountX"], "5");
  auto steps = j->steps(run);
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->size(), 3U);
  EXPECT_EQ((*steps)[0].status, "pending");
  EXPECT_EQ((*steps)[0].receipt, "rcpt_1");
  EXPECT_EQ((*steps)[1].status, "sending");
  EXPECT_EQ((*steps)[2].status, "signed");
  ASSERT_TRUE((*steps)[2].next.has_value());
  EXPECT_EQ((*(*steps)[2].next)["path"], "dlmm/add");
  EXPECT_TRUE((*steps)[0].concurrent);
  auto events = j->events(run);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1U);
  EXPECT_EQ((*events)[0].kind, "build");

  // Sending and pending steps are unresolved, whatever their run's state: a step that may
  // land is open until its outcome is known, even in a run closed meanwhile.
  auto open = j->unresolved();
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 2U);
  EXPECT_EQ((*open)[0].step, 1);
  EXPECT_EQ((*open)[1].step, 2);
  ASSERT_TRUE(j->finish_run(run, "failed", "test", 1002).ok());
  EXPECT_EQ(j->unresolved()->size(), 2U);
  EXPECT_TRUE(j->runs(true)->empty());
  // And a closed run takes no more signed steps.
  std::vector<JournalStep> late = {step(run, 2, 1)};
  auto refused = j->add_signed_steps(late);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message(), HasSubstr("no longer open"));
  EXPECT_EQ(j->runs(false)->front().note, "test");
}

TEST(Journal, AStepIsRecordedOncePerRoundAndPosition) {
  airlock::test::ScratchDir dir("airlock-journal");
  auto j = Journal::open(dir.file("journal.sqlite"));
  ASSERT_TRUE(j.ok());
  const auto run = j->begin_run("api", "vault/update", nlohmann::json::object(), 1);
  ASSERT_TRUE(run.ok());
  std::vector<JournalStep> once = {step(*run, 1, 1)};
  ASSERT_TRUE(j->add_signed_steps(once).ok());
  // The same round and step again, with another step first: the whole batch is refused and
  // nothing of it is kept.
  std::vector<JournalStep> twice = {step(*run, 1, 2), step(*run, 1, 1)};
  EXPECT_FALSE(j->add_signed_steps(twice).ok());
  EXPECT_EQ(j->steps(*run)->size(), 1U) << "the failed batch was rolled back";
  JournalStep missing = step(*run, 9, 9);
  missing.id = 12345;
  EXPECT_FALSE(j->update_step(missing).ok());
}

TEST(Journal, UsesWalAndRefusesAnotherSchema) {
  airlock::test::ScratchDir dir("airlock-journal");
  const std::string path = dir.file("journal.sqlite");
  ASSERT_TRUE(Journal::open(path).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const auto pragma = [&](const char* sql) {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, sql, -1, &s, nullptr);
    std::string value;
    if (sqlite3_step(s) == SQLITE_ROW)
      value = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return value;
  };
  EXPECT_EQ(pragma("PRAGMA journal_mode"), "wal");
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version=7", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto again = Journal::open(path);
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.error().message(), HasSubstr("schema version 7"));
}

// A journal written by the first version (no step body or metadata) is upgraded in place: its
// rows stay readable, with empty ones, and new rows carry both.
TEST(Journal, AVersionOneJournalIsUpgradedInPlace) {
  airlock::test::ScratchDir dir("airlock-journal");
  const std::string path = dir.file("journal.sqlite");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const char* v1 =
      "CREATE TABLE runs (id INTEGER PRIMARY KEY, started_at INTEGER NOT NULL, api TEXT NOT NULL,"
      " action TEXT NOT NULL, body TEXT NOT NULL, state TEXT NOT NULL, note TEXT NOT NULL DEFAULT"
      " '', finished_at INTEGER);"
      "CREATE TABLE steps (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),"
      " round INTEGER NOT NULL, step INTEGER NOT NULL, action TEXT NOT NULL, ticket TEXT NOT NULL,"
      " built_at INTEGER NOT NULL, concurrent INTEGER NOT NULL, submit INTEGER NOT NULL,"
      " transaction_b64 TEXT NOT NULL, signature TEXT NOT NULL, receipt TEXT NOT NULL DEFAULT '',"
      " status TEXT NOT NULL, code TEXT NOT NULL DEFAULT '', message TEXT NOT NULL DEFAULT '',"
      " next TEXT, sent_at INTEGER NOT NULL DEFAULT 0, updated_at INTEGER NOT NULL,"
      " UNIQUE (run_id, round, step));"
      "INSERT INTO runs (started_at, api, action, body, state) VALUES (1, 'a', 'dlmm/open', '{}',"
      " 'failed');"
      "INSERT INTO steps (run_id, round, step, action, ticket, built_at, concurrent, submit,"
      " transaction_b64, signature, status, updated_at) VALUES (1, 1, 1, 'dlmm/open', 't', 1, 1,"
      " 0, 'AQID', 's', 'failed', 2);"
      "PRAGMA user_version=1;";
  ASSERT_EQ(sqlite3_exec(db, v1, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);

  auto j = Journal::open(path);
  ASSERT_TRUE(j.ok()) << j.error().to_string();
  auto old = j->steps(1);
  ASSERT_TRUE(old.ok()) << old.error().to_string();
  ASSERT_EQ(old->size(), 1U);
  EXPECT_EQ((*old)[0].status, step_status::kFailed);
  EXPECT_EQ((*old)[0].body, nlohmann::json::object());
  const auto run = j->begin_run("a", "dlmm/open", {{"vault", "V"}}, 3);
  ASSERT_TRUE(run.ok());
  std::vector<JournalStep> fresh = {step(*run, 1, 1)};
  fresh[0].body = {{"vault", "V"}};
  fresh[0].metadata = {{"lowerBinId", 1}};
  ASSERT_TRUE(j->add_signed_steps(fresh).ok());
  const auto now = j->steps(*run).value();
  ASSERT_EQ(now.size(), 1U);
  EXPECT_EQ(now[0].body["vault"], "V");
  EXPECT_EQ(now[0].metadata["lowerBinId"], 1);
}

}  // namespace
}  // namespace airlock::online

namespace airlock::online {
namespace {

// One process at a time acts on a journal: a second act or resume is refused, naming the
// holder; the lock goes with the holder, however it ends (here: killed).
// Moves every commit of the journal at `path` from its WAL into the file itself, so a copy of
// the file holds them.
void checkpoint(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
}

// A journal with two names: SQLite keeps a WAL beside each, so one name's commits are
// invisible through the other, and an unfinished intent would look finished.
TEST(JournalIdentity, AJournalWithAnotherHardLinkIsRefused) {
  airlock::test::ScratchDir dir("airlock-journal");
  const std::string path = dir.file("journal.sqlite");
  ASSERT_TRUE(Journal::open(path).ok());
  ASSERT_EQ(::link(path.c_str(), dir.file("other-name.sqlite").c_str()), 0);
  auto again = Journal::open(path);
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.error().message(), HasSubstr("has 2 names (hard links)"));
  ASSERT_EQ(::unlink(dir.file("other-name.sqlite").c_str()), 0);
  EXPECT_TRUE(Journal::open(path).ok()) << "one name again";
}

// Emptied between runs (its side files still there), replaced by another journal, or rolled
// back to an older copy: each is refused by name, never started anew.
TEST(JournalIdentity, AnEmptiedReplacedOrRolledBackJournalIsRefused) {
  airlock::test::ScratchDir dir("airlock-journal");
  const std::string path = dir.file("journal.sqlite");
  const std::string older = dir.file("older.sqlite");
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j.ok()) << j.error().to_string();
    const auto run = j->begin_run("http://127.0.0.1:1/api", "vault/update", {}, 1000).value();
    std::vector<JournalStep> steps = {step(run, 1, 1)};
    ASSERT_TRUE(j->add_signed_steps(steps).ok());
    // A copy of the file as it is now, with every commit in it.
    checkpoint(path);
    std::filesystem::copy_file(path, older);
    steps[0].status = step_status::kSending;
    ASSERT_TRUE(j->update_step(steps[0]).ok());
  }
  const auto refused = [&](const std::string& says) {
    auto j = Journal::open(path);
    ASSERT_FALSE(j.ok()) << "opened: " << says;
    EXPECT_THAT(j.error().message(), HasSubstr(says));
    EXPECT_THAT(j.error().message(), HasSubstr(".seal' away"));
  };
  const auto put = [&](const std::string& from) {
    std::filesystem::remove(path + "-wal");
    std::filesystem::remove(path + "-shm");
    std::filesystem::copy_file(from, path, std::filesystem::copy_options::overwrite_existing);
  };
  // Rolled back: the copy from before the step was marked sending.
  const std::string newest = dir.file("newest.sqlite");
  checkpoint(path);
  std::filesystem::copy_file(path, newest);
  put(older);
  refused("the file was rolled back");
  // Emptied.
  std::filesystem::remove(path + "-wal");
  std::filesystem::resize_file(path, 0);
  refused("is empty, but its seal says journal");
  // Replaced by another journal.
  const std::string stranger = dir.file("stranger.sqlite");
  ASSERT_TRUE(Journal::open(stranger).ok());
  checkpoint(stranger);
  put(stranger);
  refused("another journal was put in its place");
  // A seal that is not one (garbage where the seal should be, or one cut short) is refused
  // with what is wrong with it.
  put(newest);
  std::filesystem::copy_file(path + ".seal", dir.file("seal.kept"));
  std::ofstream(path + ".seal", std::ios::trunc) << "not a seal\n";
  refused("line 1: does not start with 'airlock-journal '");
  const std::string kept = airlock::test::text_of(dir.file("seal.kept")).value();
  std::ofstream(path + ".seal", std::ios::trunc) << kept.substr(0, kept.size() - 1);
  refused("does not end with a line break: it is cut");
  std::filesystem::copy_file(dir.file("seal.kept"), path + ".seal",
                             std::filesystem::copy_options::overwrite_existing);
  // The newest copy back: it opens, with the step still sending.
  put(newest);
  auto j = Journal::open(path);
  ASSERT_TRUE(j.ok()) << j.error().to_string();
  EXPECT_EQ(j->unresolved().value().size(), 1U);
}

// One run whose one step is being sent: an intent in flight.
void record_a_sending_step(Journal& j) {
  const auto run = j.begin_run("http://127.0.0.1:1/api", "vault/update", {}, 1000).value();
  std::vector<JournalStep> steps = {step(run, 1, 1)};
  ASSERT_TRUE(j.add_signed_steps(steps).ok());
  steps[0].status = step_status::kSending;
  ASSERT_TRUE(j.update_step(steps[0]).ok());
}

// A journal moved or copied to another name while its last commits were still in the
// write-ahead log beside the old name (a crash, then `mv` of the file alone): no seal is beside
// the new name, but the registry knows the journal by its id and how many changes it had.
TEST(JournalIdentity, AJournalMovedWithoutItsWriteAheadLogIsRefusedByItsId) {
  airlock::test::ScratchDir dir("airlock-journal");
  airlock::test::ScopedEnv state("AIRLOCK_JOURNAL_REGISTRY", dir.file("journals"));
  const std::string path = dir.file("journal.sqlite");
  const std::string moved = dir.file("moved.sqlite");
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j.ok()) << j.error().to_string();
    record_a_sending_step(*j);
    // The file alone, its newest commits still in journal.sqlite-wal.
    std::filesystem::copy_file(path, moved);
  }
  std::filesystem::remove(path);
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  for (const bool read_only : {false, true}) {
    auto j = read_only ? Journal::open_read_only(moved) : Journal::open(moved);
    ASSERT_FALSE(j.ok()) << "opened, a step that was sending unknown to it";
    EXPECT_THAT(j.error().message(), HasSubstr("when last used as '" + path + "'"));
    EXPECT_THAT(j.error().message(), HasSubstr("without its write-ahead log"));
  }
}

// Found by an independent fault review: a journal on a tmpfs wiped by a reboot (the file, its
// log and its seal gone together, the registry kept on disk) was started anew under its name,
// and the action in flight in it was built and landed again. The registry still names it.
TEST(JournalIdentity, AJournalLostWithItsSealIsNotStartedAnewUnderItsName) {
  airlock::test::ScratchDir dir("airlock-journal");
  airlock::test::ScopedEnv state("AIRLOCK_JOURNAL_REGISTRY", dir.file("journals"));
  const std::string path = dir.file("journal.sqlite");
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j.ok()) << j.error().to_string();
    record_a_sending_step(*j);
  }
  for (const char* gone : {"", "-wal", "-shm", ".seal"}) std::filesystem::remove(path + gone);
  auto lost = Journal::open(path);
  ASSERT_FALSE(lost.ok()) << "a new journal was started where the registry knows one";
  EXPECT_THAT(lost.error().message(), HasSubstr("when last used under this name"));
  EXPECT_THAT(lost.error().message(), HasSubstr("lost with its seal"));
  EXPECT_FALSE(std::filesystem::exists(path)) << "nothing is made";
  // Emptied, the same.
  std::ofstream(path).close();
  EXPECT_FALSE(Journal::open(path).ok());
  // With the registry entry moved away, knowingly, a new journal starts there.
  for (const auto& entry : std::filesystem::directory_iterator(dir.file("journals")))
    std::filesystem::rename(entry.path(), dir.file("moved-entry"));
  auto fresh = Journal::open(path);
  EXPECT_TRUE(fresh.ok()) << fresh.error().to_string();
}

// Found by an independent review: after a crash (the newest commits only in the write-ahead
// log) and a move of the file alone, act or resume at the old name took the lock, which made
// an empty file there, and SQLite then discarded the log beside it: the step in flight was
// gone for good. Nothing is made or opened at a name whose log or seal is still there.
TEST(JournalIdentity, NothingIsMadeWhereAMovedJournalLeftItsLog) {
  airlock::test::ScratchDir dir("airlock-journal");
  airlock::test::ScopedEnv state("AIRLOCK_JOURNAL_REGISTRY", dir.file("journals"));
  const std::string path = dir.file("journal.sqlite");
  const std::string moved = dir.file("moved.sqlite");
  // A process that records a step in flight and dies without closing the journal.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto j = Journal::open(path);
    if (!j.ok()) ::_exit(1);
    record_a_sending_step(*j);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_GT(std::filesystem::file_size(path + "-wal"), 0U) << "the commits are in the log";
  std::filesystem::rename(path, moved);
  const auto lock = JournalLock::take(path, "airlock-online resume");
  ASSERT_FALSE(lock.ok());
  EXPECT_THAT(lock.error().message(), HasSubstr("is not there, but its seal says journal"));
  EXPECT_THAT(lock.error().message(), HasSubstr("its write-ahead log is there"));
  EXPECT_FALSE(std::filesystem::exists(path)) << "the lock made the file anew";
  for (const bool read_only : {false, true}) {
    auto j = read_only ? Journal::open_read_only(path) : Journal::open(path);
    ASSERT_FALSE(j.ok());
  }
  EXPECT_GT(std::filesystem::file_size(path + "-wal"), 0U) << "the log was discarded";
  // Put back beside its log, the journal holds the step in flight.
  std::filesystem::rename(moved, path);
  auto back = Journal::open(path);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->unresolved().value().size(), 1U);
}

// Two files that are one journal: a step sent through one is unknown to the other. Moved (the
// old name gone), it goes on from the new name.
TEST(JournalIdentity, TwoCopiesOfOneJournalAreRefusedAndAMovedOneGoesOn) {
  airlock::test::ScratchDir dir("airlock-journal");
  airlock::test::ScopedEnv state("AIRLOCK_JOURNAL_REGISTRY", dir.file("journals"));
  const std::string path = dir.file("journal.sqlite");
  const std::string copy = dir.file("copy.sqlite");
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j.ok()) << j.error().to_string();
    record_a_sending_step(*j);
  }
  std::filesystem::copy_file(path, copy);
  auto both = Journal::open(copy);
  ASSERT_FALSE(both.ok());
  EXPECT_THAT(both.error().message(), HasSubstr("are both journal"));
  EXPECT_THAT(both.error().message(), HasSubstr(path));
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".seal");
  auto moved = Journal::open(copy);
  ASSERT_TRUE(moved.ok()) << moved.error().to_string();
  EXPECT_EQ(moved->unresolved().value().size(), 1U);
}

// The registry itself: a relative folder (another folder from each working directory) and an
// entry that cannot be read are each refused by name, never taken as "nothing known".
TEST(JournalIdentity, ARegistryThatCannotBeTrustedIsRefusedByName) {
  airlock::test::ScratchDir dir("airlock-journal");
  const std::string path = dir.file("journal.sqlite");
  {
    airlock::test::ScopedEnv relative("AIRLOCK_JOURNAL_REGISTRY", "journals");
    auto j = Journal::open(path);
    ASSERT_FALSE(j.ok());
    EXPECT_THAT(j.error().message(), HasSubstr("must be an absolute path"));
  }
  airlock::test::ScopedEnv state("AIRLOCK_JOURNAL_REGISTRY", dir.file("journals"));
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".seal");
  ASSERT_TRUE(Journal::open(path).ok());
  const auto entries = std::filesystem::directory_iterator(dir.file("journals"));
  const auto entry = entries->path();
  std::ofstream(entry, std::ios::trunc) << "garbage\n";
  auto j = Journal::open(path);
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(j.error().message(), HasSubstr("is unreadable ('" + entry.string() +
                                             "', line 1: does not start with 'airlock-journal "
                                             "'), so what it counted cannot be checked"));
  EXPECT_THAT(j.error().message(), HasSubstr("move '" + entry.string() + "' away"));
}

// Found reading the registry leniently: an entry that could not be read, or whose tail lay past
// its first 8 KiB, listed nothing in flight, so another journal's act built that intent again.
// Each line of an entry is read, and an entry that is no entry is "in flight: unknown".
TEST(JournalIdentity, ARegistryEntryIsReadWholeAndStrictly) {
  airlock::test::ScratchDir dir("airlock-journal-entries");
  airlock::test::ScopedEnv state("AIRLOCK_JOURNAL_REGISTRY", dir.file("journals"));
  const std::string api = "http://127.0.0.1:1/api";
  const std::string vault = "CVQ98jJHzDBqN2bzVxuHrq4ZdBqXCzh9dPTSfXLmvahT";
  const json body = {{"vault", vault}, {"name", "x"}};
  const std::string intent = intent_id("vault/update", body);
  std::string other_entry;
  {
    auto other = Journal::open(dir.file("other.sqlite")).value();
    ASSERT_TRUE(other.begin_run(api, "vault/update", body, 1000).ok());
  }
  for (const auto& e : std::filesystem::directory_iterator(dir.file("journals")))
    other_entry = e.path().string();
  auto mine = Journal::open(dir.file("mine.sqlite")).value();
  const std::string genuine = airlock::test::text_of(other_entry).value();
  ASSERT_EQ(mine.in_flight_elsewhere("http://elsewhere:1/api", std::nullopt, intent).size(), 1U);
  const auto held_as_unknown = [&](const std::string& text, const std::string& says) {
    std::ofstream(other_entry, std::ios::trunc | std::ios::binary) << text;
    const auto found = mine.in_flight_elsewhere("http://elsewhere:1/api", std::nullopt, intent);
    ASSERT_EQ(found.size(), 1U) << says;
    EXPECT_THAT(found[0], HasSubstr(other_entry));
    EXPECT_THAT(found[0], HasSubstr(says));
    EXPECT_THAT(found[0], HasSubstr("in flight is unknown"));
  };
  // The intent's line past the first 8 KiB, after lines of other intents: still found.
  std::string padded = genuine.substr(0, genuine.find('\n') + 1);
  for (int i = 0; i < 300; ++i)
    padded += "in-flight-intent " + intent_id("vault/update", {{"n", i}}) + "\n";
  padded += "in-flight-intent " + intent + "\n";
  ASSERT_GT(padded.size(), 8192U);
  std::ofstream(other_entry, std::ios::trunc) << padded;
  const auto found = mine.in_flight_elsewhere("http://elsewhere:1/api", std::nullopt, intent);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_THAT(found[0], HasSubstr("of this same intent through another API"));
  // Cut short, emptied, garbage, a line of no known kind, a value out of its shape.
  held_as_unknown(genuine.substr(0, genuine.size() - 5), "does not end with a line break");
  held_as_unknown("", "the file is empty");
  held_as_unknown(std::string("\x00\x01\xff\n", 4), "line 1: does not start with");
  held_as_unknown(genuine + "in-flight-vaults " + vault + "\n", "line");
  held_as_unknown(genuine + "in-flight-vault not-a-key\n", "'in-flight-vault' is out of its shape");
  held_as_unknown(genuine + "in-flight-intent ABC\n", "'in-flight-intent' is out of its shape");
  held_as_unknown("airlock-journal 0123 -5 /x\n", "the change count is not a decimal number");
  held_as_unknown(std::string(2 << 20, 'a'), "no record is that long");
  // An act lock or a temporary file beside the entries is no entry, and names nothing.
  std::ofstream(other_entry, std::ios::trunc) << genuine;
  std::ofstream(dir.file("journals/act-0123456789abcdef.lock")) << "pid 1\n";
  std::ofstream(dir.file("journals/.airlock-Ab12Cd")) << "airlock-jour";
  EXPECT_EQ(mine.in_flight_elsewhere("http://elsewhere:1/api", std::nullopt, intent).size(), 1U);
  // A new journal is not started while an entry cannot be read (it may name this one, lost).
  std::ofstream(other_entry, std::ios::trunc) << "garbage";
  auto fresh = Journal::open(dir.file("fresh.sqlite"));
  ASSERT_FALSE(fresh.ok());
  EXPECT_THAT(fresh.error().message(), HasSubstr("whether it names this journal"));
}

TEST(JournalLock, ASecondProcessIsRefusedUntilTheFirstIsGone) {
  airlock::test::ScratchDir dir("airlock-journal-lock");
  const std::string path = dir.file("journal.sqlite");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto held = JournalLock::take(path, "airlock-online act");
    const char ok = held.ok() ? 'y' : 'n';
    (void)::write(ready[1], &ok, 1);
    ::pause();  // holds the lock until killed
    ::_exit(0);
  }
  char ok = 0;
  ASSERT_EQ(::read(ready[0], &ok, 1), 1);
  ASSERT_EQ(ok, 'y');
  auto second = JournalLock::take(path, "airlock-online resume");
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.error().message(),
              HasSubstr("in use by airlock-online act, pid " + std::to_string(child)));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  auto after = JournalLock::take(path, "airlock-online resume");
  EXPECT_TRUE(after.ok()) << after.error().to_string();
  // Within one process too: a second take while the first is held is refused.
  EXPECT_FALSE(JournalLock::take(path, "airlock-online act").ok());
  // And by any other name of the same file: a symlink, a hard link.
  std::filesystem::create_symlink(path, dir.file("alias.sqlite"));
  std::filesystem::create_hard_link(path, dir.file("hard.sqlite"));
  for (const char* name : {"alias.sqlite", "hard.sqlite"}) {
    auto other = JournalLock::take(dir.file(name), "airlock-online act");
    ASSERT_FALSE(other.ok()) << name;
    EXPECT_THAT(other.error().message(), HasSubstr("is in use by"));
  }
}

}  // namespace
}  // namespace airlock::online
