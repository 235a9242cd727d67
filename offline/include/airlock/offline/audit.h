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

// An open, verified log, locked against other writers for as long as it is open.
class AuditLog {
 public:
  enum class IfMissing {
    kCreate,  // create the file (mode 0600): a log begun by its first decision
    kRefuse,  // usage.invalid, pointing to `log start` (a policy with limits needs one)
  };
  // Reads and verifies every line first: a broken chain, a malformed line or a torn last line
  // is an error naming the line, and nothing is appended to a log that does not verify.
  [[nodiscard]] static Result<AuditLog> open(const std::string& path,
                                             IfMissing if_missing = IfMissing::kCreate);

  [[nodiscard]] const Hash& head() const noexcept { return head_; }
  [[nodiscard]] const std::vector<AuditEntry>& entries() const noexcept { return entries_; }
  // The latest entry for this request id that signed (signed or reissued), if any.
  [[nodiscard]] const AuditEntry* signed_entry(const envelope::RequestId& id) const;

  // Fills seq, prev and hash, writes the line and flushes it to disk before returning.
  [[nodiscard]] Result<Hash> append(AuditEntry entry);

 private:
  AuditLog(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  UniqueFd fd_;  // closing it releases the lock
  std::string path_;
  Hash head_{};
  std::vector<AuditEntry> entries_;
};

// The latest entry of `entries` for this request id that signed (signed or reissued), if any.
[[nodiscard]] const AuditEntry* latest_signed(const std::vector<AuditEntry>& entries,
                                              const envelope::RequestId& id);

// How long before a new log's start the signed entries of the log it continues are carried
// into it: the policy's longest window (limits.h checks), and longer than any request's
// deadline, so a request id signed before the change of log is still known after it.
inline constexpr std::int64_t kCarriedSeconds = 86400;

// `airlock-offline log start`: begins a new log at `path` (which must not exist) with a
// started entry saying what came before it, and, when it continues an earlier log, copies of
// that log's signed (and carried) entries from the last kCarriedSeconds. The earlier log is
// verified and locked meanwhile, and must not be ahead of the clock. The new file appears
// whole or not at all.
struct StartFrom {
  audit::Start::Previous previous = audit::Start::Previous::kNone;
  std::string previous_path;  // kContinued: the earlier log's file
};
struct Started {
  std::vector<AuditEntry> entries;  // as written: the started entry, then the carried ones
  Hash head{};
};
[[nodiscard]] Result<Started> start_audit_log(const std::string& path, const StartFrom& from,
                                              std::int64_t now);

// Reads and checks a log without locking or changing it (for `log verify`).
[[nodiscard]] Result<std::vector<AuditEntry>> verify_audit_log(const std::string& path);

}  // namespace airlock::offline
