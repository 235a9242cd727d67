#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <airlock/common/hash.h>
#include <airlock/formats/audit_record.h>
#include <airlock/formats/files.h>
#include <airlock/offline/audit.h>

namespace airlock::offline {
namespace {

Error io(const std::string& path, const std::string& what) {
  return Error(ErrorCode::kIo, "audit log " + path + ": " + what + ": " + std::strerror(errno));
}

// The log's text checked, with the offline half's consequence in the error.
Result<std::vector<AuditEntry>> verify_text(std::string_view text, const std::string& path) {
  if (audit::export_lines(text))
    return Error(ErrorCode::kUsage,
                 "audit log " + path +
                     " is an export of a log (airlock-offline log export), not the log: give the "
                     "log itself (a copy may be cut short, and the limits and replays would be "
                     "counted from less than the log holds)");
  auto entries = audit::verify_lines(text, path);
  if (!entries.ok() && entries.error().code() == audit::errors::kBroken)
    return Error(audit::errors::kBroken,
                 entries.error().message() + "; nothing is signed while the log does not verify");
  return entries;
}

// Opens the log's file: only a regular file (a FIFO would block a read forever), opened
// without waiting on one, then read normally.
Result<UniqueFd> open_log_file(const std::string& path, int flags, const std::string& missing) {
  UniqueFd fd(::open(path.c_str(), flags | O_NONBLOCK | O_CLOEXEC, 0600));
  if (!fd.valid() && errno == ENOENT && !missing.empty()) return Error(ErrorCode::kUsage, missing);
  if (!fd.valid()) return io(path, "cannot open");
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return io(path, "cannot stat");
  if (!S_ISREG(st.st_mode))
    return Error(ErrorCode::kUsage, "audit log " + path + " is not a regular file");
  if (::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) return io(path, "cannot open");
  return fd;
}

Result<std::string> read_all(int fd, const std::string& path, std::size_t bound) {
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io(path, "cannot read");
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > bound)
      return Error(audit::errors::kFull,
                   "audit log " + path + " is larger than " + std::to_string(bound >> 20) + " MiB");
  }
  return text;
}

std::string missing_log(const std::string& path) {
  return "audit log " + path +
         " does not exist: begin it with `airlock-offline log start --audit-log " + path +
         "` and --first (a key that has never signed), --continue-from OLD (the log before it) "
         "or --previous-lost (docs/audit-log.md)";
}

// What a log that is being continued, or was, says of the log that continues it.
std::string continued_in(const std::vector<AuditEntry>& entries) {
  const AuditEntry& end = entries.back();
  const AuditEntry& closing = end.decision == Decision::kClosed ? entries[entries.size() - 2] : end;
  return std::string(end.decision == Decision::kClosed ? "it was closed" : "it is being closed") +
         " at " + std::to_string(end.time) + " and continued in " + *closing.successor_file +
         " (head as begun " + to_hex(closing.successor->view()) + ")";
}

// The full path recorded for a log's file: the folder's real path (symbolic links resolved)
// and the name, so the same file is named the same way from any working folder.
Result<std::string> full_path(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p(path);
  const auto folder = std::filesystem::canonical(
      p.has_parent_path() ? p.parent_path() : std::filesystem::path("."), ec);
  if (ec || !p.has_filename())
    return Error(ErrorCode::kUsage, "--audit-log " + path + ": not a file in an existing folder");
  std::string full = (folder / p.filename()).string();
  // The old log records it: it must be what a closing entry may hold.
  if (!audit::is_plain_full_path(full))
    return Error(ErrorCode::kUsage,
                 "--audit-log " + path +
                     ": a continued log's full path is recorded in the old one, so it must be "
                     "printable UTF-8 of at most 4096 bytes, without . or .. parts");
  return full;
}

// A log's beginning written whole at `path`, which must not exist (files::write_new).
Status write_new_log(const std::string& path, const std::vector<AuditEntry>& entries) {
  std::string text;
  for (const auto& e : entries) text += audit::line_of(e) + "\n";
  return files::write_new(path, Bytes(text.begin(), text.end()));
}

// The new log of a continuation is written whole beside its name before the old log's closing
// entry, and moved to its name after it: which of the two names exists tells whether the start
// put the new log in place, so a new log lost after that is never written again as if whole.
std::string staging_of(const std::string& path) { return path + ".starting"; }

bool exists(const std::string& path) {
  struct stat there {};
  return ::lstat(path.c_str(), &there) == 0;
}

// A staged log is a regular file of its own: not a symbolic or hard link to another file,
// which moving or removing would not make the new log.
bool own_file(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1;
}

// A log is started only into a file that does not exist, so no decision already recorded in
// one can be lost.
Status check_new(const std::string& path) {
  if (exists(path))
    return Error(ErrorCode::kUsage, "--audit-log " + path +
                                        ": already exists; a log is started into a new file, so "
                                        "no decision already recorded can be lost");
  return {};
}

// The new log's entries: the started entry, then the earlier log's signed and carried
// entries of the day before `now`.
Result<std::vector<AuditEntry>> begin_entries(const StartFrom& from, const AuditLog* previous,
                                              std::int64_t now) {
  if (previous == nullptr) return audit::begun_entries(from.previous, {}, now);
  for (const auto& e : previous->entries()) {
    if (e.time > now)
      return Error(ErrorCode::kUsage, "--continue-from " + from.previous_path + ": entry " +
                                          std::to_string(e.seq) + " was written at " +
                                          std::to_string(e.time) + ", after the offline clock's " +
                                          std::to_string(now) +
                                          ": the last day cannot be placed; set the clock");
  }
  return audit::begun_entries(from.previous, previous->entries(), now);
}

// The new log of a start that was interrupted after `closing` was written to the old log:
// the file at `path` if it begins exactly as `begun` (what was recorded in it since is kept),
// else the staged file moved there if it is exactly `begun`. Anything else is refused and left
// as it is; so is a new log that was put in place and is gone since.
Result<std::vector<AuditEntry>> finish_new_log(const std::string& path, const AuditEntry& closing,
                                               std::vector<AuditEntry> begun) {
  const std::string staging = staging_of(path);
  if (exists(path)) {
    auto entries = verify_audit_log(path);
    if (!entries.ok() || entries->empty() || entries->front().time != closing.time ||
        audit::head_as_begun(*entries) != *closing.successor)
      return Error(ErrorCode::kUsage,
                   "--audit-log " + path +
                       ": exists, and does not begin as the interrupted start began it; it is "
                       "left as it is (move it aside and run the same command again)");
    return std::move(entries).value();
  }
  if (!exists(staging))
    return Error(ErrorCode::kUsage,
                 "--audit-log " + path +
                     ": the interrupted start had put this log in place, and it is gone since: "
                     "what was recorded in it is lost. Begin a new log with --previous-lost (the "
                     "old log stays closed to decisions)");
  auto staged = verify_audit_log(staging);
  if (!own_file(staging) || !staged.ok() || *staged != begun)
    return Error(ErrorCode::kUsage, staging +
                                        ": is not the new log as the interrupted start began it; "
                                        "it is left as it is");
  AIRLOCK_CHECK(files::move_new(staging, path));
  return begun;
}

// A staging file left by a start that stopped before it wrote the old log's closing entry (so
// nothing came of it): removed when it is one, refused otherwise.
Status clear_staging(const std::string& staging, const AuditLog& previous) {
  if (!exists(staging)) return {};
  auto left = verify_audit_log(staging);
  // Exactly as a start of this log at its time begins it, and nothing recorded since (it may
  // have been signed into as a log of its own: found by an independent review).
  if (own_file(staging) && left.ok() && !left->empty() &&
      *left == audit::begun_entries(audit::Start::Previous::kContinued, previous.entries(),
                                    left->front().time) &&
      ::unlink(staging.c_str()) == 0)
    return {};
  return Error(ErrorCode::kUsage,
               staging + ": exists and is not a start of this log that stopped early" +
                   (left.ok() ? std::string() : " (" + left.error().message() + ")") +
                   "; move it aside and run the command again");
}

}  // namespace

Result<AuditLog> AuditLog::open(const std::string& path, IfMissing if_missing, LogBounds bounds) {
  const int create = if_missing == IfMissing::kCreate ? O_CREAT : 0;
  AIRLOCK_TRY(fd, open_log_file(path, O_RDWR | create | O_APPEND,
                                if_missing == IfMissing::kRefuse ? missing_log(path) : ""));
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    return Error(ErrorCode::kIo, "audit log " + path + " is in use by another airlock-offline");
  }
  AIRLOCK_TRY(text, read_all(fd.get(), path, bounds.read));
  AuditLog log(std::move(fd), path, bounds);
  AIRLOCK_TRY(entries, verify_text(text, path));
  log.bytes_ = text.size();
  log.entries_ = std::move(entries);
  if (!log.entries_.empty()) log.head_ = log.entries_.back().hash;
  return log;
}

std::optional<std::string> log_ended(const std::vector<AuditEntry>& entries) {
  if (entries.empty() || (entries.back().decision != Decision::kClosed &&
                          entries.back().decision != Decision::kClosing))
    return std::nullopt;
  return continued_in(entries);
}

const AuditEntry* AuditLog::closed() const noexcept {
  return !entries_.empty() && entries_.back().decision == Decision::kClosed ? &entries_.back()
                                                                            : nullptr;
}

const AuditEntry* AuditLog::closing() const noexcept {
  return !entries_.empty() && entries_.back().decision == Decision::kClosing ? &entries_.back()
                                                                             : nullptr;
}

const AuditEntry* AuditLog::signed_entry(const envelope::RequestId& id) const {
  return latest_signed(entries_, id);
}

const AuditEntry* latest_signed(const std::vector<AuditEntry>& entries,
                                const envelope::RequestId& id) {
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    if (it->request_id == id && audit::holds_signatures(*it)) return &*it;
  }
  return nullptr;
}

Status AuditLog::check_not_closed() const {
  if (closed())
    return Error(ErrorCode::kUsage, "audit log " + path_ + " records nothing more: " +
                                        continued_in(entries_) + "; use that log");
  if (const AuditEntry* c = closing())
    return Error(ErrorCode::kUsage,
                 "audit log " + path_ + " records nothing more: " + continued_in(entries_) +
                     ", a start that was interrupted: finish it with "
                     "`airlock-offline log start --audit-log " +
                     *c->successor_file + " --continue-from " + path_ + "`, then use that log");
  return {};
}

Result<Hash> AuditLog::append(AuditEntry entry) {
  AIRLOCK_CHECK(check_not_closed());
  return write(std::move(entry), bounds_.decisions);
}

Result<Hash> AuditLog::begin_close(const Hash& successor, const std::string& successor_file,
                                   std::int64_t time) {
  AIRLOCK_CHECK(check_not_closed());
  AuditEntry entry;
  entry.time = time;
  entry.decision = Decision::kClosing;
  entry.successor = successor;
  entry.successor_file = successor_file;
  return write(std::move(entry));
}

Result<Hash> AuditLog::close(std::int64_t time) {
  const AuditEntry* c = closing();
  if (c == nullptr)
    return Error(ErrorCode::kUsage, "audit log " + path_ + " is not being closed" +
                                        (closed() ? ": " + continued_in(entries_) : ""));
  AuditEntry entry;
  entry.time = time;
  entry.decision = Decision::kClosed;
  entry.successor = c->successor;
  return write(std::move(entry));
}

Result<Hash> AuditLog::write(AuditEntry entry, std::size_t bound) {
  entry.seq = entries_.size() + 1;
  entry.prev = head_;
  entry.hash = audit::chain_hash(entry.prev, audit::body_text(entry));
  const std::string line = audit::line_of(entry) + "\n";
  if (bytes_ + line.size() > bound)
    return Error(audit::errors::kFull,
                 "audit log " + path_ + " is full (" + std::to_string(bytes_) + " bytes of " +
                     std::to_string(bound) +
                     "): nothing more is decided in it; move it aside and continue it in a new "
                     "one: airlock-offline log start --audit-log " +
                     path_ + " --continue-from OLD (docs/audit-log.md)");
  struct stat before {};
  if (::fstat(fd_.get(), &before) != 0) return io(path_, "cannot stat");
  // On any failure the file is cut back to where it was, so no torn line stays behind.
  const auto undo = [&](const char* what) {
    Error e = io(path_, what);
    if (::ftruncate(fd_.get(), before.st_size) == 0) (void)::fsync(fd_.get());
    return e;
  };
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd_.get(), line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return undo("cannot append");
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd_.get()) != 0) return undo("cannot flush to disk");
  bytes_ += line.size();
  head_ = entry.hash;
  entries_.push_back(std::move(entry));
  return head_;
}

namespace {

// The log to continue is closed already (a second run after a failure that was reported but had
// not happened): finished, when the same new log is there as it was begun; else refused.
Result<Started> already_continued(const AuditLog& previous, const std::string& file,
                                  const std::string& path, const StartFrom& from) {
  const auto& old = previous.entries();
  const AuditEntry& closing = old[old.size() - 2];
  if (file == *closing.successor_file && exists(path)) {
    auto entries = verify_audit_log(path);
    if (entries.ok() && !entries->empty() && entries->front().time == closing.time &&
        audit::head_as_begun(*entries) == *closing.successor)
      return Started{std::move(entries).value(), *closing.successor, true, true};
  }
  return Error(ErrorCode::kUsage,
               "--continue-from " + from.previous_path + ": " + continued_in(old) +
                   ". A log is continued once: continue from that log, or if it is gone, "
                   "start with --previous-lost");
}

// Interrupted after the closing entry: only the same new file is taken up again, begun at the
// closing entry's time exactly as then.
Result<std::vector<AuditEntry>> resume_start(const AuditLog& previous, const AuditEntry& closing,
                                             const std::string& file, const std::string& path,
                                             const StartFrom& from) {
  const auto& old = previous.entries();
  if (file != *closing.successor_file)
    return Error(ErrorCode::kUsage, "--continue-from " + from.previous_path + ": " +
                                        continued_in(old) +
                                        ", a start that was interrupted: finish it with "
                                        "--audit-log " +
                                        *closing.successor_file);
  const std::vector<AuditEntry> before(old.begin(), old.end() - 1);
  return finish_new_log(
      path, closing,
      audit::begun_entries(audit::Start::Previous::kContinued, before, closing.time));
}

// The new log is written whole beside its name (a name too long, or a folder that cannot take
// it, fails here, before anything changed); then the old log says where it goes on, so that
// from here it decides nothing and is continued into no other file; then the new log is moved
// to its name. Closing the old log is left to the caller.
Result<std::vector<AuditEntry>> stage_start(AuditLog& previous, const std::string& file,
                                            const std::string& path, const StartFrom& from,
                                            std::int64_t now) {
  const auto& old = previous.entries();
  AIRLOCK_CHECK(check_new(path));
  const std::string staging = staging_of(path);
  AIRLOCK_CHECK(clear_staging(staging, previous));
  AIRLOCK_TRY(entries, begin_entries(from, &previous, now));
  AIRLOCK_CHECK(write_new_log(staging, entries));
  if (auto begun = previous.begin_close(audit::head_as_begun(entries), file, now); !begun.ok()) {
    // The staged log goes only if the closing entry is certainly not in the old log (its
    // write was cut back): else the same command must find it to finish the start.
    auto on_disk = verify_audit_log(from.previous_path);
    const bool closing_written = !on_disk.ok() || on_disk->size() != old.size();
    if (!closing_written) ::unlink(staging.c_str());
    return Error(begun.error().code(),
                 begun.error().message() +
                     (closing_written ? "; " + from.previous_path +
                                            " may hold the closing entry: run the same command "
                                            "again to finish the start"
                                      : ""));
  }
  if (auto moved = files::move_new(staging, path); !moved.ok())
    return Error(moved.error().code(),
                 moved.error().message() + "; " + from.previous_path +
                     " records nothing more: run the same command again to finish the start");
  return entries;
}

}  // namespace

Result<Started> start_audit_log(const std::string& path, const StartFrom& from, std::int64_t now) {
  if (from.previous != audit::Start::Previous::kContinued) {
    AIRLOCK_CHECK(check_new(path));
    AIRLOCK_TRY(entries, begin_entries(from, nullptr, now));
    AIRLOCK_CHECK(write_new_log(path, entries));
    return Started{entries, audit::head_as_begun(entries), false};
  }
  if (files::same_file(path, from.previous_path))
    return Error(ErrorCode::kUsage, "--audit-log and --continue-from name the same file");
  if (!exists(from.previous_path))
    return Error(ErrorCode::kUsage, "--continue-from " + from.previous_path +
                                        ": no such file; if the log before this one is gone, "
                                        "start with --previous-lost instead");
  // Held open, so locked, until it is closed.
  AIRLOCK_TRY(previous, AuditLog::open(from.previous_path, AuditLog::IfMissing::kRefuse));
  AIRLOCK_TRY(file, full_path(path));
  if (previous.closed()) return already_continued(previous, file, path, from);
  Started out;
  if (const AuditEntry* closing = previous.closing()) {
    AIRLOCK_TRY(entries, resume_start(previous, *closing, file, path, from));
    out.entries = std::move(entries);
    out.resumed = true;
  } else {
    AIRLOCK_TRY(entries, stage_start(previous, file, path, from, now));
    out.entries = std::move(entries);
  }
  out.head = audit::head_as_begun(out.entries);
  if (auto closed = previous.close(now); !closed.ok())
    return Error(closed.error().code(),
                 closed.error().message() + "; " + path + " is in place and " + from.previous_path +
                     " may not be closed: run the same command again, which closes it or says "
                     "that it is");
  return out;
}

Result<std::vector<AuditEntry>> verify_audit_log(const std::string& path) {
  AIRLOCK_TRY(fd, open_log_file(path, O_RDONLY, "audit log " + path + " does not exist"));
  AIRLOCK_TRY(text, read_all(fd.get(), path, LogBounds{}.read));
  return verify_text(text, path);
}

}  // namespace airlock::offline
