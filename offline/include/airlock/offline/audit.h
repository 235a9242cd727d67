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
  // Creates the file (mode 0600) when it does not exist. Reads and verifies every line first:
  // a broken chain, a malformed line or a torn last line is an error naming the line, and
  // nothing is appended to a log that does not verify.
  [[nodiscard]] static Result<AuditLog> open(const std::string& path);

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

// Reads and checks a log without locking or changing it (for `log verify`).
[[nodiscard]] Result<std::vector<AuditEntry>> verify_audit_log(const std::string& path);

}  // namespace airlock::offline
