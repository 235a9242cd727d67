// The audit log: one line of JSON per decision (signed, refused, declined), each line bound to
// the one before by a SHA-256 chain, so an entry cannot be removed, reordered or edited without
// `airlock-offline log verify` finding the break. The head hash travels back in every sign
// response, so the online side can record which log state each answer came from.
//
// Line format: formats/audit_record.h and docs/audit-log.md.
//
// The log holds no secret: request ids, actions, accounts, message hashes, signatures.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>
#include <airlock/common/fd.h>
#include <airlock/formats/audit_record.h>
#include <airlock/formats/envelope.h>

namespace airlock::offline {

// The record's format is shared with the online half (formats/audit_record.h).
using Decision = audit::Decision;
using AuditEntry = audit::Entry;
using audit::decision_name;

// The bound on a log's size: decisions stop being recorded (and so signing stops) at 64 MiB,
// decades of ordinary use; the entry that closes a full log when it is continued may pass it,
// and logs are read up to 65 MiB (an earlier version could append one entry past 64 MiB).
struct LogBounds {
  std::size_t decisions = std::size_t{64} << 20;
  std::size_t read = std::size_t{65} << 20;
};

// An open, verified log, locked against other writers for as long as it is open.
class AuditLog {
 public:
  enum class IfMissing {
    kCreate,  // create the file (mode 0600): a log begun by its first decision
    kRefuse,  // usage.invalid, pointing to `log start` (a policy with limits needs one)
  };
  // Reads and verifies every line first: a broken chain, a malformed line or a torn last line
  // is an error naming the line, and nothing is appended to a log that does not verify. Only a
  // regular file is a log.
  [[nodiscard]] static Result<AuditLog> open(const std::string& path,
                                             IfMissing if_missing = IfMissing::kCreate,
                                             LogBounds bounds = {});

  [[nodiscard]] const Hash& head() const noexcept { return head_; }
  [[nodiscard]] const std::vector<AuditEntry>& entries() const noexcept { return entries_; }
  // The entry that closed this log when `log start --continue-from` continued it in another,
  // if it did: then nothing more is appended (sign refuses it).
  [[nodiscard]] const AuditEntry* closed() const noexcept;
  // The closing entry, if it is the last: a continuation was begun and not finished. Nothing
  // more is decided in the log either.
  [[nodiscard]] const AuditEntry* closing() const noexcept;
  // usage.invalid naming the log that continues this one, if it is closing or closed.
  [[nodiscard]] Status check_not_closed() const;
  // The file's size, for a warning as it nears its bound.
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
  // The latest entry for this request id that signed (signed or reissued), if any.
  [[nodiscard]] const AuditEntry* signed_entry(const envelope::RequestId& id) const;

  // Fills seq, prev and hash, writes the line and flushes it to disk before returning. A
  // decision that would take the log past its bound is refused (audit.full), as is anything
  // after the closing entry.
  [[nodiscard]] Result<Hash> append(AuditEntry entry);
  // Ends the log in two steps (log start --continue-from), both allowed past the decisions'
  // bound: the closing entry, naming the head of the log that continues it as begun and its
  // file (a full path), written before that log; the closed entry after it.
  [[nodiscard]] Result<Hash> begin_close(const Hash& successor, const std::string& successor_file,
                                         std::int64_t time);
  [[nodiscard]] Result<Hash> close(std::int64_t time);

 private:
  AuditLog(UniqueFd fd, std::string path, LogBounds bounds)
      : fd_(std::move(fd)), path_(std::move(path)), bounds_(bounds) {}
  // Writes one line, cut back on any failure; audit.full if the file would pass `bound` bytes
  // (the closing entries have none).
  [[nodiscard]] Result<Hash> write(AuditEntry entry,
                                   std::size_t bound = std::numeric_limits<std::size_t>::max());
  UniqueFd fd_;  // closing it releases the lock
  std::string path_;
  LogBounds bounds_;
  std::size_t bytes_ = 0;
  Hash head_{};
  std::vector<AuditEntry> entries_;
};

// The latest entry of `entries` for this request id that signed (signed or reissued), if any.
[[nodiscard]] const AuditEntry* latest_signed(const std::vector<AuditEntry>& entries,
                                              const envelope::RequestId& id);

using audit::kCarriedSeconds;

// `airlock-offline log start`: begins a new log at `path` with a started entry saying what
// came before it. Continuing an earlier log (verified, and locked throughout) copies its
// signed and carried entries of the last kCarriedSeconds after the started entry. The new log
// is first written whole as `path`.starting; then the old log gets a closing entry naming the
// new log's head and file, so that from then on it can be neither signed into nor continued
// into any other file (a second continuation would leave out what the first one signed); then
// the staged file is moved to `path`; then the old log is closed. Interrupted anywhere, the
// same command finishes the start: it takes up the new log (or, if it was never moved, the
// staged one) when it begins exactly as begun at the closing entry's time, and closes the old
// log; run after that, it says the start was finished. Refused: a `path` that exists (but that
// one), an earlier log that is closed, missing, not a regular file or ahead of the clock,
// another new file for a start that was interrupted, a new log put in place and lost since.
struct StartFrom {
  audit::Start::Previous previous = audit::Start::Previous::kNone;
  std::string previous_path;  // kContinued: the earlier log's file
};
struct Started {
  std::vector<AuditEntry> entries;  // the started entry, then the carried ones (and, when
                                    // resumed, what was recorded since)
  Hash head{};                      // as begun: the last carried entry's, or the started one's
  bool resumed = false;             // an interrupted start, found at `path` and finished
  bool finished_before = false;     // nothing to do: the same start was finished already
};
[[nodiscard]] Result<Started> start_audit_log(const std::string& path, const StartFrom& from,
                                              std::int64_t now);

// Reads and checks a log without locking or changing it (for `log verify`).
[[nodiscard]] Result<std::vector<AuditEntry>> verify_audit_log(const std::string& path);

// When the log records nothing more (closed, or being closed by an interrupted start): what
// it says of the log that continues it; nullopt while decisions are recorded in it.
[[nodiscard]] std::optional<std::string> log_ended(const std::vector<AuditEntry>& entries);

}  // namespace airlock::offline
