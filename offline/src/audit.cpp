#include <cerrno>
#include <cstring>
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

// A log of a few hundred bytes per decision; 64 MiB is decades of use and bounds a read.
constexpr std::size_t kMaxLogBytes = 64u << 20;

Error io(const std::string& path, const std::string& what) {
  return Error(ErrorCode::kIo, "audit log " + path + ": " + what + ": " + std::strerror(errno));
}

// The log's text checked, with the offline half's consequence in the error.
Result<std::vector<AuditEntry>> verify_text(std::string_view text, const std::string& path) {
  auto entries = audit::verify_lines(text, path);
  if (!entries.ok() && entries.error().code() == audit::errors::kBroken)
    return Error(audit::errors::kBroken,
                 entries.error().message() + "; nothing is signed while the log does not verify");
  return entries;
}

Result<std::string> read_all(int fd, const std::string& path) {
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io(path, "cannot read");
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxLogBytes)
      return Error(ErrorCode::kIo,
                   "audit log " + path + " is larger than 64 MiB; archive it and start a new one");
  }
  return text;
}

}  // namespace

Result<AuditLog> AuditLog::open(const std::string& path, IfMissing if_missing) {
  const int create = if_missing == IfMissing::kCreate ? O_CREAT : 0;
  UniqueFd fd(::open(path.c_str(), O_RDWR | create | O_APPEND | O_CLOEXEC, 0600));
  if (!fd.valid() && errno == ENOENT && if_missing == IfMissing::kRefuse)
    return Error(ErrorCode::kUsage,
                 "audit log " + path +
                     " does not exist: begin it with `airlock-offline log start --audit-log " +
                     path +
                     "` and --first (a key that has never signed), --continue-from OLD "
                     "(the log before it) or --previous-lost (docs/audit-log.md)");
  if (!fd.valid()) return io(path, "cannot open");
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    return Error(ErrorCode::kIo, "audit log " + path + " is in use by another airlock-offline");
  }
  AIRLOCK_TRY(text, read_all(fd.get(), path));
  AuditLog log(std::move(fd), path);
  AIRLOCK_TRY(entries, verify_text(text, path));
  log.entries_ = std::move(entries);
  if (!log.entries_.empty()) log.head_ = log.entries_.back().hash;
  return log;
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

Result<Hash> AuditLog::append(AuditEntry entry) {
  entry.seq = entries_.size() + 1;
  entry.prev = head_;
  entry.hash = audit::chain_hash(entry.prev, audit::body_text(entry));
  const std::string line = audit::line_of(entry) + "\n";
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
  head_ = entry.hash;
  entries_.push_back(std::move(entry));
  return head_;
}

namespace {

// The chain's fields of the next entry after `entries`.
void chain_onto(std::vector<AuditEntry>& entries, AuditEntry entry) {
  entry.seq = entries.size() + 1;
  entry.prev = entries.empty() ? Hash{} : entries.back().hash;
  entry.hash = audit::chain_hash(entry.prev, audit::body_text(entry));
  entries.push_back(std::move(entry));
}

}  // namespace

Result<Started> start_audit_log(const std::string& path, const StartFrom& from, std::int64_t now) {
  using Previous = audit::Start::Previous;
  struct stat there {};
  if (::lstat(path.c_str(), &there) == 0)
    return Error(ErrorCode::kUsage, "--audit-log " + path +
                                        ": already exists; a log is started into a new file, "
                                        "so no decision already recorded can be lost");
  audit::Start start;
  start.previous = from.previous;
  std::vector<AuditEntry> carried;
  std::optional<AuditLog> previous;  // held open, so locked, until the new log is written
  if (from.previous == Previous::kContinued) {
    AIRLOCK_TRY(old, AuditLog::open(from.previous_path, AuditLog::IfMissing::kRefuse));
    previous.emplace(std::move(old));
    const auto& entries = previous->entries();
    for (const auto& e : entries) {
      if (e.time > now)
        return Error(ErrorCode::kUsage, "--continue-from " + from.previous_path + ": entry " +
                                            std::to_string(e.seq) + " was written at " +
                                            std::to_string(e.time) +
                                            ", after the offline clock's " + std::to_string(now) +
                                            ": the last day cannot be placed; set the clock");
      if (audit::holds_signatures(e) && e.decision != Decision::kReissued &&
          e.time > now - kCarriedSeconds) {
        AuditEntry copy = e;
        copy.decision = Decision::kCarried;
        carried.push_back(std::move(copy));
      }
    }
    start.previous_head = previous->head();
    start.previous_entries = entries.size();
    start.complete_since = audit::complete_since(entries, now);
  } else if (from.previous == Previous::kLost) {
    start.complete_since = now;
  }

  Started out;
  AuditEntry first;
  first.time = now;
  first.decision = Decision::kStarted;
  first.start = start;
  chain_onto(out.entries, std::move(first));
  for (auto& e : carried) chain_onto(out.entries, std::move(e));
  std::string text;
  for (const auto& e : out.entries) text += audit::line_of(e) + "\n";
  AIRLOCK_CHECK(files::write_new(path, Bytes(text.begin(), text.end())));
  out.head = out.entries.back().hash;
  return out;
}

Result<std::vector<AuditEntry>> verify_audit_log(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return io(path, "cannot open");
  AIRLOCK_TRY(text, read_all(fd.get(), path));
  return verify_text(text, path);
}

}  // namespace airlock::offline
