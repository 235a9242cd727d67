// Accounting for every signature the offline key made: the offline audit log (exported with
// `airlock-offline log export`) joined with this online half's journal, and, where the journal
// cannot settle it, the chain. A signature the log holds and the journal does not know was
// answered to someone other than this online half (a compromised channel, or another machine
// using the key's answers); a journal step the log does not hold means the log was cut or
// another log signed. Both are named, and either makes the report fail. docs/audit-log.md.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <airlock/common/error.h>
#include <airlock/formats/audit_record.h>
#include <airlock/online/api.h>
#include <airlock/online/chain.h>
#include <airlock/online/clock.h>
#include <airlock/online/journal.h>

namespace airlock::online {

// Where one signature of the log stands.
enum class Standing {
  kLanded,       // on chain without error (the journal's confirmation, or the node's proof)
  kFailed,       // on chain with an error: fees paid, nothing else happened
  kExpired,      // provably never lands (the service said expired, or the node proved it)
  kUnknown,      // sent or signed by this online half, its outcome not settled yet
  kNotSentHere,  // the journal has no step with this signature
  kOtherWallet,  // a Keystone request's signature, answered to another wallet (accepted)
};
[[nodiscard]] const char* standing_name(Standing s) noexcept;

struct SignatureAccount {
  std::string signature;    // base58
  std::uint64_t entry = 0;  // the audit entry (seq) that first holds it
  std::string export_name;  // in this export (over a chain of exports, seq is each log's own)
  std::string action;
  std::string vault;  // base58
  Standing standing = Standing::kUnknown;
  std::string detail;  // how it was settled, for people
  // On chain, per the node, though this online half never sent it.
  bool landed_elsewhere = false;
};

struct ReconcileReport {
  std::size_t entries = 0;  // in the export
  std::string export_head;  // its last entry's hash (hex), empty for an empty log
  std::vector<SignatureAccount> signatures;
  // Journal steps, by this log's managers, whose signatures the log does not hold.
  std::vector<std::string> journal_only;
  // Audit heads that responses carried (the journal's "response" events) and the export lacks.
  std::vector<std::string> missing_heads;
  // The first export continues an earlier log (its start names that log's head and count) that
  // was not given: its signatures are not accounted for. Empty when the chain is whole.
  std::string missing_earlier_log;

  // Every signature accounted for (landed, failed, expired, unknown in flight, or an accepted
  // Keystone answer), every journal step in the log and every head in it.
  [[nodiscard]] bool accounted() const;
};

struct ReconcileOptions {
  // Settles what the journal leaves open (and looks for a never-sent signature on chain);
  // absent: those stay unknown, and never-sent ones are not looked up.
  ChainProver prove;
  // Looks a signature up on chain: true when it is there (landed, with or without error).
  std::function<Result<bool>(const std::string& signature)> on_chain;
  // Reads a receipt's status from the API (GET /transactions/status): the spec's status word.
  // A step the journal left open with a receipt is settled by `confirmed` or `failed`; the
  // API's `expired` or `pending` is said, but only the node (`prove`) settles those. Absent:
  // receipts are not read. Nothing is written to the journal (resume records).
  std::function<Result<std::string>(const std::string& receipt)> receipt_status;
  // Keystone signatures were answered to another wallet: listed, but accounted for.
  bool accept_keystone = false;
  // The boot clock a step's age is measured on (clock.h); empty: the wall clock alone.
  BootClock boot = boot_now;
  // The head the offline machine showed when it exported (`log export` prints it), read off its
  // screen: the export must end exactly there. A chain checks itself only from within, so
  // without this anchor whoever carries the export could cut its tail, or build another chain.
  std::optional<Hash> expected_head;
};

// A GET /transactions/status reply as ReconcileOptions::receipt_status gives it: the status
// word, when it is one the spec names for a receipt; an error reply, or any other word (the
// reply is the API's, so a word this does not know settles nothing), is an error naming the
// receipt.
[[nodiscard]] Result<std::string> receipt_status_of(const Reply& reply, const std::string& receipt);

// One exported log: its text and a name for errors.
struct AuditExport {
  std::string_view text;
  std::string name;
};

// `exports` are the exported logs of one chain, oldest first: each is checked from its first
// entry, each continues the one before it (`log start --continue-from` closed it naming the
// next), and the last ends at `expected_head` when given. An export that does not verify, a
// link missing between two, or an end elsewhere is audit.broken, and nothing is reported.
// Their entries are then joined with the journal as one log.
[[nodiscard]] Result<ReconcileReport> reconcile(const std::vector<AuditExport>& exports,
                                                const Journal& journal,
                                                const ReconcileOptions& options, std::int64_t now);
// One export alone.
[[nodiscard]] Result<ReconcileReport> reconcile(std::string_view export_text,
                                                const std::string& export_name,
                                                const Journal& journal,
                                                const ReconcileOptions& options, std::int64_t now);

}  // namespace airlock::online
