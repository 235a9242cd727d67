#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <sstream>
#include <utility>

#include <fcntl.h>
#include <sodium.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <airlock/common/bytes.h>
#include <airlock/common/hash.h>
#include <airlock/formats/files.h>
#include <airlock/online/api.h>
#include <airlock/online/journal.h>

namespace airlock::online {
namespace {

using json = nlohmann::json;

constexpr int kSchemaVersion = 2;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  started_at INTEGER NOT NULL,
  api TEXT NOT NULL,
  action TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL,
  note TEXT NOT NULL DEFAULT '',
  finished_at INTEGER
);
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  at INTEGER NOT NULL,
  kind TEXT NOT NULL,
  detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS steps (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  round INTEGER NOT NULL,
  step INTEGER NOT NULL,
  action TEXT NOT NULL,
  ticket TEXT NOT NULL,
  built_at INTEGER NOT NULL,
  concurrent INTEGER NOT NULL,
  submit INTEGER NOT NULL,
  transaction_b64 TEXT NOT NULL,
  signature TEXT NOT NULL,
  receipt TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  code TEXT NOT NULL DEFAULT '',
  message TEXT NOT NULL DEFAULT '',
  next TEXT,
  sent_at INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  body TEXT NOT NULL DEFAULT '{}',
  metadata TEXT NOT NULL DEFAULT '{}',
  UNIQUE (run_id, round, step)
);
CREATE INDEX IF NOT EXISTS steps_by_status ON steps(status);
CREATE TABLE IF NOT EXISTS identity (
  id TEXT NOT NULL,
  changes INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS count_run_insert AFTER INSERT ON runs
  BEGIN UPDATE identity SET changes = changes + 1; END;
CREATE TRIGGER IF NOT EXISTS count_run_update AFTER UPDATE ON runs
  BEGIN UPDATE identity SET changes = changes + 1; END;
CREATE TRIGGER IF NOT EXISTS count_step_insert AFTER INSERT ON steps
  BEGIN UPDATE identity SET changes = changes + 1; END;
CREATE TRIGGER IF NOT EXISTS count_step_update AFTER UPDATE ON steps
  BEGIN UPDATE identity SET changes = changes + 1; END;
CREATE TRIGGER IF NOT EXISTS count_event_insert AFTER INSERT ON events
  BEGIN UPDATE identity SET changes = changes + 1; END;
)sql";

Error db_error(sqlite3* db, const std::string& what) {
  return Error(ErrorCode::kIo, "journal: " + what + ": " + sqlite3_errmsg(db));
}

// One prepared statement, finalized on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  [[nodiscard]] bool ok() const { return stmt_ != nullptr; }
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind_null(int i) {
    sqlite3_bind_null(stmt_, i);
    return *this;
  }
  int step() { return sqlite3_step(stmt_); }
  [[nodiscard]] std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  [[nodiscard]] std::string text(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    return p == nullptr ? std::string()
                        : std::string(reinterpret_cast<const char*>(p),
                                      static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)));
  }
  [[nodiscard]] bool is_null(int col) const {
    return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

Status exec(sqlite3* db, const char* sql, const std::string& what) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message != nullptr ? message : "unknown error";
    sqlite3_free(message);
    return Error(ErrorCode::kIo, "journal: " + what + ": " + text);
  }
  return {};
}

// Runs one statement that changes rows; fails unless it completes.
Status run_change(sqlite3* db, Statement& s, const std::string& what) {
  if (!s.ok()) return db_error(db, what);
  if (s.step() != SQLITE_DONE) return db_error(db, what);
  return {};
}

const char* kStepColumns =
    "id, run_id, round, step, action, ticket, built_at, concurrent, submit, transaction_b64, "
    "signature, receipt, status, code, message, next, updated_at, sent_at, body, metadata";

JournalStep step_from(const Statement& s) {
  JournalStep st;
  st.id = s.integer(0);
  st.run_id = s.integer(1);
  st.round = static_cast<int>(s.integer(2));
  st.step = static_cast<int>(s.integer(3));
  st.action = s.text(4);
  st.ticket = s.text(5);
  st.built_at = s.integer(6);
  st.concurrent = s.integer(7) != 0;
  st.submit = s.integer(8) != 0;
  st.transaction = s.text(9);
  st.signature = s.text(10);
  st.receipt = s.text(11);
  st.status = s.text(12);
  st.code = s.text(13);
  st.message = s.text(14);
  if (!s.is_null(15)) st.next = json::parse(s.text(15), nullptr, false);
  st.updated_at = s.integer(16);
  st.sent_at = s.integer(17);
  st.body = json::parse(s.text(18), nullptr, false);
  st.metadata = json::parse(s.text(19), nullptr, false);
  return st;
}

Result<std::vector<JournalStep>> select_steps(sqlite3* db, const std::string& where,
                                              std::optional<std::int64_t> run_id) {
  const std::string sql = std::string("SELECT ") + kStepColumns + " FROM steps WHERE " + where +
                          " ORDER BY run_id, round, step";
  Statement s(db, sql.c_str());
  if (!s.ok()) return db_error(db, "reading steps");
  if (run_id) s.bind(1, *run_id);
  std::vector<JournalStep> out;
  int rc = 0;
  while ((rc = s.step()) == SQLITE_ROW) out.push_back(step_from(s));
  if (rc != SQLITE_DONE) return db_error(db, "reading steps");
  return out;
}

// The seal beside the journal: which journal this is and how many changes it has seen. An
// emptied, replaced or rolled-back file is then refused by name instead of started anew.
struct Seal {
  std::string id;
  std::int64_t changes = 0;
};

// A seal or a registry entry: "airlock-journal ID CHANGES", and for a registry entry the name
// the journal was last used under after it, then a line "in-flight API" for each API it has an
// action in flight with, "in-flight-vault VAULT" for each vault such an action is for and
// "in-flight-intent ID" for each such action's intent (intent_id).
struct Record {
  Seal seal;
  std::string path;
  std::vector<std::string> in_flight;
  std::vector<std::string> in_flight_vaults;
  std::vector<std::string> in_flight_intents;  // intent_id of each
};

// Every record airlock writes is far below this; a bigger file is not one of them.
constexpr std::size_t kLongestRecord = 1 << 20;

bool lower_hex(std::string_view text, std::size_t most) {
  return !text.empty() && text.size() <= most && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

// A value that fits one line of a record: not empty, no control character (a line break).
bool single_line(std::string_view text) {
  return !text.empty() && std::none_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

// The record in `text`, read strictly: a record that is cut short, holds a line of no known
// kind or a value out of its shape is no record (found by reading the registry leniently: an
// entry that could not be read, or whose tail was past the first 8 KiB, listed nothing in
// flight, and another journal's intent could be built again).
Result<Record> parse_record(const std::string& text) {
  const auto bad = [](std::size_t line, const std::string& rule) -> Error {
    return Error(ErrorCode::kIo, line == 0 ? rule : "line " + std::to_string(line) + ": " + rule);
  };
  if (text.empty()) return bad(0, "the file is empty");
  if (text.back() != '\n') return bad(0, "the file does not end with a line break: it is cut");
  Record record;
  std::size_t number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    const std::string_view line(text.data() + at, end - at);
    at = end + 1;
    ++number;
    if (number == 1) {
      // airlock-journal ID CHANGES[ PATH]
      constexpr std::string_view kHead = "airlock-journal ";
      if (line.substr(0, kHead.size()) != kHead)
        return bad(1, "does not start with 'airlock-journal '");
      const std::string_view rest = line.substr(kHead.size());
      const std::size_t id_end = rest.find(' ');
      if (id_end == std::string_view::npos || !lower_hex(rest.substr(0, id_end), 64))
        return bad(1, "the journal id is not lowercase hex of at most 64 digits");
      record.seal.id = std::string(rest.substr(0, id_end));
      const std::string_view after = rest.substr(id_end + 1);
      const std::size_t count_end = std::min(after.find(' '), after.size());
      const std::string_view count = after.substr(0, count_end);
      if (count.empty() || count.size() > 18 ||
          !std::all_of(count.begin(), count.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return bad(1, "the change count is not a decimal number of at most 18 digits");
      record.seal.changes = std::stoll(std::string(count));
      if (count_end < after.size()) {
        record.path = std::string(after.substr(count_end + 1));
        if (!single_line(record.path))
          return bad(1, "the journal's name is empty or not printable");
      }
      continue;
    }
    struct Kind {
      std::string_view prefix;
      std::vector<std::string>* into;
      bool (*valid)(std::string_view);
    };
    const Kind kinds[] = {
        {"in-flight ", &record.in_flight, single_line},
        {"in-flight-vault ", &record.in_flight_vaults,
         [](std::string_view v) { return public_key_from_base58(v).ok(); }},
        {"in-flight-intent ", &record.in_flight_intents,
         [](std::string_view v) { return v.size() == 32 && lower_hex(v, 32); }},
    };
    const Kind* kind = nullptr;
    for (const auto& k : kinds)
      if (line.substr(0, k.prefix.size()) == k.prefix) kind = &k;
    if (kind == nullptr)
      return bad(number, "is no line of a record (in-flight, in-flight-vault, in-flight-intent)");
    const std::string_view value = line.substr(kind->prefix.size());
    if (!kind->valid(value))
      return bad(number, "the value of '" +
                             std::string(kind->prefix.substr(0, kind->prefix.size() - 1)) +
                             "' is out of its shape");
    kind->into->emplace_back(value);
  }
  return record;
}

// The record in `file`: nullopt when the file is not there, an error saying why when it is
// there but is no record (which then never reads as "nothing in flight").
Result<std::optional<Record>> read_record(const std::string& file) {
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return std::optional<Record>();
    return Error(ErrorCode::kIo, "'" + file + "' cannot be opened: " + std::strerror(errno));
  }
  std::string text;
  char buffer[8192];
  for (ssize_t n = 0; (n = ::read(fd.get(), buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return Error(ErrorCode::kIo, "'" + file + "' cannot be read: " + std::strerror(errno));
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kLongestRecord)
      return Error(ErrorCode::kIo, "'" + file + "' is over " + std::to_string(kLongestRecord) +
                                       " bytes: no record is that long");
  }
  auto record = parse_record(text);
  if (!record.ok()) return Error(ErrorCode::kIo, "'" + file + "', " + record.error().message());
  return std::optional<Record>(std::move(record).value());
}

Result<std::optional<Seal>> read_seal(const std::string& path) {
  AIRLOCK_TRY(record, read_record(path));
  if (!record) return std::optional<Seal>();
  return std::optional<Seal>(record->seal);
}

// The registry's entries: the files named by a journal id (lowercase hex), not the act locks
// or an atomic write's temporary file beside them. A folder that is there but cannot be listed
// is an error: what it holds is unknown.
Result<std::vector<std::string>> registry_entries(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec == std::errc::no_such_file_or_directory) return out;
  for (const std::filesystem::directory_iterator end; !ec && it != end; it.increment(ec)) {
    if (lower_hex(it->path().filename().string(), 64)) out.push_back(it->path().string());
  }
  if (ec) {
    return Error(ErrorCode::kIo,
                 "journal: the registry folder '" + dir + "' cannot be read: " + ec.message());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Writes a record atomically; `what` names it in an error ("seal", "registry entry").
Status write_record(const std::string& file, const Record& record, const std::string& what) {
  // Each value is the rest of its line: one that could end the line, or add another, is not
  // written (parse_record would refuse it, and rightly).
  const auto one_line = [](const std::string& v) { return v.empty() || single_line(v); };
  const bool lines_hold =
      one_line(record.path) &&
      std::all_of(record.in_flight.begin(), record.in_flight.end(), single_line) &&
      std::all_of(record.in_flight_vaults.begin(), record.in_flight_vaults.end(), single_line) &&
      std::all_of(record.in_flight_intents.begin(), record.in_flight_intents.end(), single_line);
  if (!lines_hold) {
    return Error(ErrorCode::kIo, "journal: its " + what + " '" + file +
                                     "' would hold a name or API with a control character "
                                     "(a line break): use names without them");
  }
  std::string line = "airlock-journal " + record.seal.id + " " +
                     std::to_string(record.seal.changes) +
                     (record.path.empty() ? "" : " " + record.path) + "\n";
  for (const auto& api : record.in_flight) line += "in-flight " + api + "\n";
  for (const auto& vault : record.in_flight_vaults) line += "in-flight-vault " + vault + "\n";
  for (const auto& intent : record.in_flight_intents) line += "in-flight-intent " + intent + "\n";
  const auto written = files::write_atomically(file, text_bytes(line));
  if (!written.ok()) {
    return Error(ErrorCode::kIo, "journal: cannot write its " + what + " '" + file +
                                     "': " + written.error().message());
  }
  return {};
}

// The journal's own name: its real path where it can be resolved, else as given.
std::string real_name(const std::string& path) {
  std::error_code ec;
  const auto real = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : real.string();
}

Result<Seal> identity_of(sqlite3* db) {
  Statement s(db, "SELECT id, changes FROM identity");
  if (!s.ok()) return db_error(db, "reading the journal's identity");
  Seal found;
  int rows = 0;
  while (s.step() == SQLITE_ROW) {
    found = {s.text(0), s.integer(1)};
    ++rows;
  }
  if (rows > 1) return Error(ErrorCode::kIo, "journal: it holds more than one identity");
  return found;
}

// The journal against its seal: the same journal, with at least the changes the seal counted
// (a crash between a commit and the seal's update leaves the journal ahead, never behind).
Status check_identity(sqlite3* db, const std::string& path, const std::string& seal_path,
                      bool existed_empty) {
  AIRLOCK_TRY(mine, identity_of(db));
  const std::string undo =
      "put the journal back, or, to start a new journal knowingly, move '" + seal_path + "' away";
  const auto read = read_seal(seal_path);
  if (!read.ok()) {
    return Error(ErrorCode::kIo, "journal: its seal " + read.error().message() + ", so whether '" +
                                     path + "' is the journal it sealed cannot be told; " + undo);
  }
  const auto& seal = read.value();
  if (seal && mine.id.empty()) {
    return Error(ErrorCode::kIo, "journal: '" + path + "' is " +
                                     (existed_empty ? "empty" : "not the journal") +
                                     ", but its seal says journal " + seal->id + " had " +
                                     std::to_string(seal->changes) +
                                     " changes: the file was emptied or replaced; " + undo);
  }
  if (seal && seal->id != mine.id) {
    return Error(ErrorCode::kIo, "journal: '" + path + "' is journal " + mine.id +
                                     ", but its seal names journal " + seal->id +
                                     ": another journal was put in its place; " + undo);
  }
  if (seal && mine.changes < seal->changes) {
    return Error(ErrorCode::kIo,
                 "journal: '" + path + "' holds " + std::to_string(mine.changes) +
                     " changes, but its seal counted " + std::to_string(seal->changes) +
                     ": the file was rolled back (an older copy, or a disk that lost writes it "
                     "acknowledged), and the newest steps may be missing; " +
                     undo);
  }
  return {};
}

// The identity of the journal at `path`, read without creating, upgrading or sealing it: ""
// when it is a database with no identity (no journal of these versions), nullopt when it cannot
// be read at all.
std::optional<std::string> identity_at(const std::string& path) {
  sqlite3* db = nullptr;
  std::optional<std::string> id;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 1000);
    Statement s(db, "SELECT id FROM identity");
    if (s.ok()) {
      const int rc = s.step();
      if (rc == SQLITE_ROW) id = s.text(0);
      if (rc == SQLITE_DONE) id = std::string();
    } else if (sqlite3_errcode(db) == SQLITE_ERROR) {
      id = std::string();  // readable, but no such table: not a journal of these versions
    }
  }
  sqlite3_close(db);
  return id;
}

// The journal against what the registry knows of its id, wherever it was last used: it has at
// least the changes counted there (else it was moved or copied without its write-ahead log, or
// is an older copy), and no other file is the same journal.
Status check_registered(const Seal& mine, const std::string& path, const std::string& real,
                        const std::string& entry) {
  if (mine.id.empty() || entry.empty()) return {};
  const std::string undo = "to go on from this file knowingly, move '" + entry + "' away";
  const auto read = read_record(entry);
  if (!read.ok()) {
    return Error(ErrorCode::kIo, "journal: the registry entry for journal " + mine.id +
                                     " is unreadable (" + read.error().message() +
                                     "), so what it counted cannot be checked; look at it, or, " +
                                     undo);
  }
  const auto& known = read.value();
  if (!known) return {};
  if (known->seal.id != mine.id) {
    return Error(ErrorCode::kIo, "journal: the registry entry '" + entry + "' for journal " +
                                     mine.id + " is journal " + known->seal.id +
                                     "'s, so what it counted cannot be checked; look at it, or, " +
                                     undo);
  }
  if (mine.changes < known->seal.changes) {
    return Error(
        ErrorCode::kIo,
        "journal: '" + path + "' is journal " + mine.id + " with " + std::to_string(mine.changes) +
            " changes, but that journal had " + std::to_string(known->seal.changes) +
            " when last used as '" + known->path +
            "': it was moved or copied without its write-ahead log ('" + known->path +
            "-wal'), or is an older copy, and its newest steps may be missing; put it back as '" +
            known->path + "' beside its -wal file, or, " + undo);
  }
  if (known->path.empty() || known->path == real) return {};
  struct stat here {};
  struct stat there {};
  if (::stat(known->path.c_str(), &there) != 0) return {};  // moved whole: it goes on from here
  if (::stat(real.c_str(), &here) == 0 && here.st_dev == there.st_dev &&
      here.st_ino == there.st_ino)
    return {};
  const auto other = identity_at(known->path);
  if (!other) {
    return Error(ErrorCode::kIo, "journal: journal " + mine.id + " was last used as '" +
                                     known->path +
                                     "', which is there but cannot be read to tell whether it "
                                     "is this same journal; make it readable or move it away, "
                                     "or, " +
                                     undo);
  }
  if (*other == mine.id) {
    return Error(ErrorCode::kIo,
                 "journal: '" + path + "' and '" + known->path + "' are both journal " + mine.id +
                     ": a step sent through one is unknown to the other, so going on from "
                     "either could send it again; keep one (move the other away), or, " +
                     undo);
  }
  return {};
}

// The registry entry of journal `id` ("" without a registry).
Result<std::string> registry_entry(const std::string& id, bool create) {
  const std::string dir = journal_registry_dir();
  if (dir.empty() || id.empty()) return std::string();
  // From each working directory a relative folder is another folder: the registry would split.
  if (dir.front() != '/') {
    return Error(ErrorCode::kUsage,
                 "journal: AIRLOCK_JOURNAL_REGISTRY must be an absolute path, not '" + dir + "'");
  }
  if (create) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
      return Error(ErrorCode::kIo,
                   "journal: cannot create the registry folder '" + dir + "': " + ec.message() +
                       " (set AIRLOCK_JOURNAL_REGISTRY to a folder this user may write)");
  }
  return dir + "/" + id;
}

// A journal whose file is missing or empty while its write-ahead log or its seal is still
// beside its name was moved, deleted or emptied without them. Opening it (or making the file
// anew, as the lock would) lets SQLite discard that log, and the newest commits with it: it is
// refused before anything is touched.
Status check_not_orphaned(const std::string& path) {
  struct stat st {};
  const bool present = ::stat(path.c_str(), &st) == 0;
  if (present && st.st_size > 0) return {};
  const std::string named = real_name(path);
  struct stat side {};
  const std::string wal_path = named + "-wal";
  const bool wal = ::stat(wal_path.c_str(), &side) == 0 && side.st_size > 0;
  const auto read = read_seal(named + ".seal");
  if (!read.ok()) {
    return Error(ErrorCode::kIo, "journal: '" + path + "' " +
                                     (present ? "is empty" : "is not there") + ", and its seal " +
                                     read.error().message() +
                                     ": whether the journal was lost cannot be told; put it "
                                     "back, or, to start a new journal knowingly, move '" +
                                     named + ".seal' away");
  }
  const auto& seal = read.value();
  if (!wal && !seal) return {};
  std::string what = present ? "is empty" : "is not there";
  if (seal) {
    what += ", but its seal says journal " + seal->id + " had " + std::to_string(seal->changes) +
            " changes";
  }
  if (wal) what += (seal ? " and " : ", but ") + std::string("its write-ahead log is there");
  std::string away = "'" + named + ".seal'";
  if (wal) away = "'" + wal_path + "' and " + away;
  return Error(ErrorCode::kIo, "journal: '" + path + "' " + what +
                                   ": the journal was moved, deleted or emptied without them, "
                                   "and opening it would discard the log's newest commits; put "
                                   "the journal back beside them, or, to start a new journal "
                                   "knowingly, move " +
                                   away + " away");
}

// A journal file that is not there (or empty) whose name the registry still knows as a journal
// with changes: it was lost together with its write-ahead log and seal (a tmpfs wiped by a
// reboot, a folder deleted or restored), and an intent in it may be in flight. Starting a new
// journal under its name would let that intent be built again; it is refused by name instead.
Status check_not_forgotten(const std::string& path) {
  const std::string dir = journal_registry_dir();
  if (dir.empty() || dir.front() != '/') return {};
  const std::string named = real_name(path);
  AIRLOCK_TRY(entries, registry_entries(dir));
  for (const auto& entry : entries) {
    const auto read = read_record(entry);
    if (!read.ok()) {
      return Error(ErrorCode::kIo, "journal: '" + path +
                                       "' is not there or empty, and the registry entry " +
                                       read.error().message() +
                                       ", so whether it names this journal, lost with an action "
                                       "in flight, cannot be told; look at it, or move it away");
    }
    const auto& known = read.value();
    if (!known || known->path != named || known->seal.changes == 0) continue;
    return Error(ErrorCode::kIo,
                 "journal: '" + path + "' is not there or empty, but the registry entry '" + entry +
                     "' says journal " + known->seal.id + " had " +
                     std::to_string(known->seal.changes) +
                     " changes when last used under this name: it was lost with its seal (a "
                     "wiped tmpfs, a deleted or restored folder), and an action in it may be in "
                     "flight, which a new journal would build again; put it back, or, to start "
                     "a new journal here knowingly, move '" +
                     entry + "' away");
  }
  return {};
}

// The journal at `path` (its real name `real`) is the journal its seal and its registry entry
// know, or it is refused; its identity (empty for one from before identities).
Result<Seal> check_is_the_journal(sqlite3* db, const std::string& path, const std::string& real,
                                  bool existed_empty) {
  AIRLOCK_CHECK(check_identity(db, path, real + ".seal", existed_empty));
  AIRLOCK_TRY(mine, identity_of(db));
  AIRLOCK_TRY(entry, registry_entry(mine.id, false));
  AIRLOCK_CHECK(check_registered(mine, path, real, entry));
  return mine;
}

// The database at `path` opened with `flags`, or why not.
Result<sqlite3*> open_database(const std::string& path, int flags) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) == SQLITE_OK) return db;
  Error e = Error(ErrorCode::kIo, "journal: cannot open " + path + ": " +
                                      (db != nullptr ? sqlite3_errmsg(db) : "out of memory"));
  sqlite3_close(db);
  return e;
}

}  // namespace

std::string journal_registry_dir() {
  if (const char* dir = std::getenv("AIRLOCK_JOURNAL_REGISTRY"); dir != nullptr && *dir != '\0')
    return dir;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return std::string(home) + "/.local/state/airlock/journals";
  return {};
}

Result<Journal> Journal::open(const std::string& path) {
  // One name only: SQLite keeps the write-ahead log beside the name it opens, so commits made
  // through another hard link would be invisible through this one.
  struct stat st {};
  const bool existed = ::stat(path.c_str(), &st) == 0;
  if (existed && st.st_nlink > 1) {
    return Error(ErrorCode::kIo, "journal: '" + path + "' has " + std::to_string(st.st_nlink) +
                                     " names (hard links); SQLite keeps its write-ahead log "
                                     "beside each name, so commits made through one are "
                                     "invisible through another: keep one name");
  }
  const bool existed_empty = existed && st.st_size == 0;
  AIRLOCK_CHECK(check_not_orphaned(path));
  if (!existed || existed_empty) AIRLOCK_CHECK(check_not_forgotten(path));
  AIRLOCK_TRY(db, open_database(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE));
  Journal journal(db);
  sqlite3_busy_timeout(db, 5000);
  // WAL with synchronous=FULL: every commit is on disk before it returns, and a crash at any
  // point leaves either the whole transaction or none of it.
  AIRLOCK_CHECK(exec(db, "PRAGMA journal_mode=WAL", "setting WAL mode"));
  AIRLOCK_CHECK(exec(db, "PRAGMA synchronous=FULL", "setting synchronous=FULL"));
  AIRLOCK_CHECK(exec(db, "PRAGMA foreign_keys=ON", "enabling foreign keys"));
  std::int64_t found = 0;
  {
    Statement version(db, "PRAGMA user_version");
    if (!version.ok() || version.step() != SQLITE_ROW) return db_error(db, "reading the version");
    found = version.integer(0);
  }
  // Version 1 lacked each step's build body and metadata, which planning the remaining work
  // after a stop reads; its rows get empty ones (the plan then asks the operator to decide).
  if (found == 1) {
    AIRLOCK_CHECK(exec(db,
                       "ALTER TABLE steps ADD COLUMN body TEXT NOT NULL DEFAULT '{}';"
                       "ALTER TABLE steps ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';",
                       "upgrading the journal from version 1"));
  } else if (found != 0 && found != kSchemaVersion) {
    return Error(ErrorCode::kIo, "journal: " + path + " has schema version " +
                                     std::to_string(found) + "; this build reads version " +
                                     std::to_string(kSchemaVersion));
  }
  AIRLOCK_CHECK(exec(db, kSchema, "creating the schema"));
  const std::string set_version = "PRAGMA user_version=" + std::to_string(kSchemaVersion);
  AIRLOCK_CHECK(exec(db, set_version.c_str(), "setting the version"));
  journal.real_path_ = real_name(path);
  journal.seal_path_ = journal.real_path_ + ".seal";
  AIRLOCK_TRY(mine, check_is_the_journal(db, path, journal.real_path_, existed_empty));
  if (mine.id.empty()) {
    // A new journal (or one from before identities): a random identity, and the changes it
    // already holds.
    std::uint8_t raw[16];
    randombytes_buf(raw, sizeof raw);
    mine.id = to_hex(ByteView(raw, sizeof raw));
    {
      Statement count(db,
                      "SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM steps) + "
                      "(SELECT count(*) FROM events)");
      if (!count.ok() || count.step() != SQLITE_ROW) return db_error(db, "counting the changes");
      mine.changes = count.integer(0);
      Statement insert(db, "INSERT INTO identity (id, changes) VALUES (?, ?)");
      insert.bind(1, mine.id).bind(2, mine.changes);
      AIRLOCK_CHECK(run_change(db, insert, "recording the journal's identity"));
    }
    // Into the file itself, out of the write-ahead log (no statement open, or it cannot be):
    // a copy of the file alone, made at any later time, then carries the identity the
    // registry knows it by.
    AIRLOCK_CHECK(exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", "writing the identity through"));
  }
  AIRLOCK_TRY(entry, registry_entry(mine.id, true));
  journal.registry_path_ = entry;
  AIRLOCK_CHECK(journal.seal());
  return journal;
}

Result<Journal> Journal::open_read_only(const std::string& path) {
  AIRLOCK_CHECK(check_not_orphaned(path));
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return Error(ErrorCode::kIo, "journal: there is no journal at '" + path +
                                     "' (nothing was recorded there; give --journal FILE)");
  if (st.st_nlink > 1) {
    return Error(ErrorCode::kIo, "journal: '" + path + "' has " + std::to_string(st.st_nlink) +
                                     " names (hard links); keep one name");
  }
  AIRLOCK_TRY(db, open_database(path, SQLITE_OPEN_READONLY));
  Journal journal(db);
  sqlite3_busy_timeout(db, 5000);
  Statement version(db, "PRAGMA user_version");
  if (!version.ok() || version.step() != SQLITE_ROW) return db_error(db, "reading the version");
  if (version.integer(0) != kSchemaVersion) {
    return Error(ErrorCode::kIo, "journal: " + path + " has schema version " +
                                     std::to_string(version.integer(0)) + "; this build reads " +
                                     std::to_string(kSchemaVersion) +
                                     " (airlock-online resume upgrades it)");
  }
  journal.real_path_ = real_name(path);
  journal.seal_path_ = journal.real_path_ + ".seal";
  AIRLOCK_CHECK(check_is_the_journal(db, path, journal.real_path_, st.st_size == 0));
  return journal;
}

Status Journal::seal() const {
  AIRLOCK_TRY(mine, identity_of(db_));
  AIRLOCK_CHECK(write_record(seal_path_, Record{mine, {}, {}, {}, {}}, "seal"));
  if (registry_path_.empty()) return {};
  // The APIs this journal has money in flight with, the vaults and the intents it is for, for
  // every other journal's act to see.
  Statement open(
      db_,
      "SELECT api, body, action FROM runs r WHERE r.state='open' OR EXISTS (SELECT 1 FROM "
      "steps s WHERE s.run_id=r.id AND s.status IN ('sending','pending','unknown')) "
      "ORDER BY api");
  if (!open.ok()) return db_error(db_, "reading the runs in flight");
  Record entry{mine, real_path_, {}, {}, {}};
  const auto add = [](std::vector<std::string>& to, std::string value) {
    if (std::find(to.begin(), to.end(), value) == to.end()) to.push_back(std::move(value));
  };
  int rc = 0;
  while ((rc = open.step()) == SQLITE_ROW) {
    add(entry.in_flight, open.text(0));
    const auto body = json::parse(open.text(1), nullptr, false);
    if (!body.is_discarded()) add(entry.in_flight_intents, intent_id(open.text(2), body));
    // A key of a line of its own: base58 text, nothing that could end the line.
    if (body.is_object() && body.contains("vault") && body["vault"].is_string() &&
        public_key_from_base58(body["vault"].get<std::string>()).ok())
      add(entry.in_flight_vaults, body["vault"].get<std::string>());
  }
  if (rc != SQLITE_DONE) return db_error(db_, "reading the runs in flight");
  return write_record(registry_path_, entry, "registry entry");
}

std::string intent_id(const std::string& action, const json& body) {
  const std::string text = action + '\n' + body.dump();
  return to_hex(sha256(text_bytes(text)).view().first(16));
}

std::vector<std::string> Journal::in_flight_elsewhere(const std::string& api,
                                                      const std::optional<std::string>& vault,
                                                      const std::string& intent) const {
  std::vector<std::string> out;
  const std::string dir = journal_registry_dir();
  if (dir.empty() || dir.front() != '/') return out;
  auto mine = identity_of(db_);
  const std::string asked = api_identity(api);
  const auto entries = registry_entries(dir);
  if (!entries.ok()) {
    out.push_back(entries.error().message() + ", so what other journals have in flight is unknown");
    return out;
  }
  for (const auto& entry : entries.value()) {
    const auto read = read_record(entry);
    if (!read.ok()) {
      out.push_back("the registry entry " + read.error().message() +
                    ", so what its journal has in flight is unknown (look at it, or move it away)");
      continue;
    }
    const auto& known = read.value();
    if (!known || (mine.ok() && known->seal.id == mine->id)) continue;
    const std::string named = "journal " + known->seal.id + ", last used as " + known->path;
    // An entry counting fewer changes than the journal's own seal is older than the journal:
    // the registry folder put back from an earlier copy (found by an independent fault review:
    // a step sending was no longer listed, and another journal built the intent again), or a
    // crash between the seal and the entry. What the journal has in flight is then unknown here.
    if (!known->path.empty()) {
      const auto read_sealed = read_seal(known->path + ".seal");
      if (!read_sealed.ok()) {
        out.push_back(named + ", has a seal that " + read_sealed.error().message() +
                      ", so what it has in flight is unknown");
        continue;
      }
      const auto& sealed = read_sealed.value();
      if (sealed && sealed->id == known->seal.id && sealed->changes > known->seal.changes) {
        out.push_back(named + ", has changes its registry entry does not count (" +
                      std::to_string(sealed->changes) + " sealed, " +
                      std::to_string(known->seal.changes) +
                      " in the entry: the registry folder is older than the journal), so what "
                      "it has in flight is unknown");
        continue;
      }
    }
    // This API however it is spelt, or this vault through any API (an independent fault review
    // landed an intent twice through "localhost" and "127.0.0.1").
    const bool same_api =
        std::any_of(known->in_flight.begin(), known->in_flight.end(),
                    [&](const std::string& other) { return api_identity(other) == asked; });
    const bool same_vault =
        vault && std::find(known->in_flight_vaults.begin(), known->in_flight_vaults.end(),
                           *vault) != known->in_flight_vaults.end();
    const bool same_intent = !intent.empty() && std::find(known->in_flight_intents.begin(),
                                                          known->in_flight_intents.end(),
                                                          intent) != known->in_flight_intents.end();
    if (!same_api && !same_vault && !same_intent) continue;
    out.push_back(named + ", has an action in flight " +
                  (same_api     ? std::string("with this API")
                   : same_vault ? "for vault " + *vault + " through another API"
                                : std::string("of this same intent through another API")));
  }
  return out;
}

Journal::~Journal() { sqlite3_close(db_); }

Journal::Journal(Journal&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      seal_path_(std::move(other.seal_path_)),
      real_path_(std::move(other.real_path_)),
      registry_path_(std::move(other.registry_path_)) {}

Journal& Journal::operator=(Journal&& other) noexcept {
  if (this != &other) {
    sqlite3_close(db_);
    db_ = std::exchange(other.db_, nullptr);
    seal_path_ = std::move(other.seal_path_);
    real_path_ = std::move(other.real_path_);
    registry_path_ = std::move(other.registry_path_);
  }
  return *this;
}

Result<std::int64_t> Journal::begin_run(const std::string& api, const std::string& action,
                                        const json& body, std::int64_t now) {
  Statement s(db_, "INSERT INTO runs (started_at, api, action, body, state) VALUES (?,?,?,?,?)");
  s.bind(1, now).bind(2, api).bind(3, action).bind(4, body.dump()).bind(5, std::string("open"));
  AIRLOCK_CHECK(run_change(db_, s, "recording the run"));
  const auto id = static_cast<std::int64_t>(sqlite3_last_insert_rowid(db_));
  AIRLOCK_CHECK(seal());
  return id;
}

Status Journal::event(std::int64_t run_id, const std::string& kind, const std::string& detail,
                      std::int64_t now) {
  Statement s(db_, "INSERT INTO events (run_id, at, kind, detail) VALUES (?,?,?,?)");
  s.bind(1, run_id).bind(2, now).bind(3, kind).bind(4, detail);
  AIRLOCK_CHECK(run_change(db_, s, "recording an event"));
  return seal();
}

Status Journal::add_signed_steps(std::vector<JournalStep>& steps) {
  AIRLOCK_CHECK(exec(db_, "BEGIN IMMEDIATE", "starting a transaction"));
  for (auto& st : steps) {
    // Steps go only into a run still open: one closed meanwhile was judged without them.
    Statement open(db_, "SELECT state FROM runs WHERE id = ?");
    open.bind(1, st.run_id);
    if (!open.ok() || open.step() != SQLITE_ROW || open.text(0) != "open") {
      (void)exec(db_, "ROLLBACK", "rolling back");
      return Error(ErrorCode::kIo, "journal: run " + std::to_string(st.run_id) +
                                       " is no longer open; its signed steps are not recorded "
                                       "and nothing is sent");
    }
    Statement s(db_,
                "INSERT INTO steps (run_id, round, step, action, ticket, built_at, concurrent, "
                "submit, transaction_b64, signature, status, next, updated_at, body, metadata) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    s.bind(1, st.run_id)
        .bind(2, st.round)
        .bind(3, st.step)
        .bind(4, st.action)
        .bind(5, st.ticket)
        .bind(6, st.built_at)
        .bind(7, std::int64_t{st.concurrent})
        .bind(8, std::int64_t{st.submit})
        .bind(9, st.transaction)
        .bind(10, st.signature)
        .bind(11, st.status)
        .bind(13, st.updated_at)
        .bind(14, st.body.dump())
        .bind(15, st.metadata.dump());
    if (st.next) {
      s.bind(12, st.next->dump());
    } else {
      s.bind_null(12);
    }
    if (auto status = run_change(db_, s, "recording a signed step"); !status.ok()) {
      (void)exec(db_, "ROLLBACK", "rolling back");
      return status;
    }
    st.id = static_cast<std::int64_t>(sqlite3_last_insert_rowid(db_));
  }
  AIRLOCK_CHECK(exec(db_, "COMMIT", "committing the signed steps"));
  return seal();
}

Status Journal::update_step(const JournalStep& st) {
  Statement s(db_,
              "UPDATE steps SET receipt=?, status=?, code=?, message=?, signature=?, updated_at=?, "
              "sent_at=? WHERE id=?");
  s.bind(1, st.receipt)
      .bind(2, st.status)
      .bind(3, st.code)
      .bind(4, st.message)
      .bind(5, st.signature)
      .bind(6, st.updated_at)
      .bind(7, st.sent_at)
      .bind(8, st.id);
  AIRLOCK_CHECK(run_change(db_, s, "updating a step"));
  if (sqlite3_changes(db_) != 1)
    return Error(ErrorCode::kIo, "journal: step " + std::to_string(st.id) + " does not exist");
  return seal();
}

Status Journal::finish_run(std::int64_t run_id, const std::string& state, const std::string& note,
                           std::int64_t now) {
  Statement s(db_, "UPDATE runs SET state=?, note=?, finished_at=? WHERE id=?");
  s.bind(1, state).bind(2, note).bind(3, now).bind(4, run_id);
  AIRLOCK_CHECK(run_change(db_, s, "closing the run"));
  return seal();
}

Result<std::vector<JournalRun>> Journal::runs(bool open_only) const {
  Statement s(db_, open_only ? "SELECT id, started_at, api, action, body, state, note FROM runs "
                               "WHERE state='open' ORDER BY id"
                             : "SELECT id, started_at, api, action, body, state, note FROM runs "
                               "ORDER BY id");
  if (!s.ok()) return db_error(db_, "reading runs");
  std::vector<JournalRun> out;
  int rc = 0;
  while ((rc = s.step()) == SQLITE_ROW) {
    JournalRun r;
    r.id = s.integer(0);
    r.started_at = s.integer(1);
    r.api = s.text(2);
    r.action = s.text(3);
    r.body = json::parse(s.text(4), nullptr, false);
    r.state = s.text(5);
    r.note = s.text(6);
    out.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) return db_error(db_, "reading runs");
  return out;
}

Result<std::vector<JournalStep>> Journal::steps(std::int64_t run_id) const {
  return select_steps(db_, "run_id=?", run_id);
}

Result<std::vector<JournalEvent>> Journal::events(std::int64_t run_id) const {
  Statement s(db_, "SELECT run_id, at, kind, detail FROM events WHERE run_id=? ORDER BY id");
  if (!s.ok()) return db_error(db_, "reading events");
  s.bind(1, run_id);
  std::vector<JournalEvent> out;
  int rc = 0;
  while ((rc = s.step()) == SQLITE_ROW)
    out.push_back({s.integer(0), s.integer(1), s.text(2), s.text(3)});
  if (rc != SQLITE_DONE) return db_error(db_, "reading events");
  return out;
}

Result<Journal::Known> Journal::known_signatures() const {
  Known known;
  Statement s(db_, "SELECT signature, status FROM steps ORDER BY signature");
  if (!s.ok()) return db_error(db_, "reading the journal's signatures");
  int rc = 0;
  while ((rc = s.step()) == SQLITE_ROW) {
    known.signatures.push_back(s.text(0));
    const std::string status = s.text(1);
    if (status == step_status::kConfirmed || status == step_status::kFailed)
      known.landed.push_back(s.text(0));
  }
  if (rc != SQLITE_DONE) return db_error(db_, "reading the journal's signatures");
  return known;
}

std::vector<std::string> Journal::signatures_elsewhere() const {
  std::vector<std::string> out;
  const std::string dir = journal_registry_dir();
  if (dir.empty() || dir.front() != '/') return out;
  const auto entries = registry_entries(dir);
  if (!entries.ok()) return out;
  for (const auto& entry : *entries) {
    const auto read = read_record(entry);
    if (!read.ok() || !*read || (*read)->path.empty() || (*read)->path == real_path_) continue;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2((*read)->path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
      sqlite3_busy_timeout(db, 1000);
      Statement s(db, "SELECT signature FROM steps");
      while (s.ok() && s.step() == SQLITE_ROW) out.push_back(s.text(0));
    }
    sqlite3_close(db);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<JournalStep>> Journal::unresolved() const {
  // Whatever state its run was closed in: a step that may land is open until its outcome is.
  return select_steps(db_, "status IN ('sending','pending','unknown')", std::nullopt);
}

Result<JournalLock> JournalLock::take(const std::string& journal_path, const std::string& who) {
  // The lock is the database file's own (an flock, which SQLite's fcntl locks do not touch):
  // every name of the file, symlink or hard link, meets the same lock. Who holds it is written
  // beside the file as its real path names it. A journal moved without its write-ahead log or
  // seal is not made anew here, which would let SQLite discard that log.
  AIRLOCK_CHECK(check_not_orphaned(journal_path));
  UniqueFd db(::open(journal_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!db.valid()) {
    return Error(ErrorCode::kIo,
                 "journal: cannot open '" + journal_path + "': " + std::strerror(errno));
  }
  std::error_code ec;
  const std::string path = std::filesystem::canonical(journal_path, ec).string() + ".lock";
  if (ec) {
    return Error(ErrorCode::kIo, "journal: cannot resolve '" + journal_path + "': " + ec.message());
  }
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) {
    return Error(ErrorCode::kIo,
                 "journal: cannot open its lock file '" + path + "': " + std::strerror(errno));
  }
  if (::flock(db.get(), LOCK_EX | LOCK_NB) != 0) {
    const int why = errno;
    if (why != EWOULDBLOCK) {
      return Error(ErrorCode::kIo, "cannot lock '" + path + "': " + std::strerror(why));
    }
    const std::string text = lock_holder(fd.get());
    return Error(ErrorCode::kUsage,
                 "the journal '" + journal_path + "' is in use by " +
                     (text.empty() ? std::string("another process") : text) +
                     "; one process at a time acts on a journal: wait for it to end (or stop it) "
                     "and run this again");
  }
  if (!write_lock_holder(fd.get(), who)) {
    return Error(ErrorCode::kIo, "cannot write the journal's lock file '" + path + "'");
  }
  return JournalLock(std::move(db));
}

std::string lock_holder(int fd) {
  char holder[256] = {};
  const ssize_t n = ::pread(fd, holder, sizeof holder - 1, 0);
  std::string text = n > 0 ? std::string(holder, static_cast<std::size_t>(n)) : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text;
}

bool write_lock_holder(int fd, const std::string& who) {
  const std::string line = who + ", pid " + std::to_string(::getpid()) + ", since unix " +
                           std::to_string(std::time(nullptr)) + "\n";
  return ::ftruncate(fd, 0) == 0 &&
         ::pwrite(fd, line.data(), line.size(), 0) == static_cast<ssize_t>(line.size());
}

}  // namespace airlock::online
