// The audit log's record: one line of JSON per decision of the offline half, each bound to the
// one before by a SHA-256 chain (docs/audit-log.md). The offline half writes and checks it
// (offline/audit.h); the online half reads an exported copy to account for every signature
// (airlock-online reconcile), so the format lives here, between them.
//
// Line format:
//   {"seq":N,"time":UNIX,"prev":HEX,...fields...,"hash":HEX}
// where hash = SHA-256(prev bytes || the line's text up to, and without, `,"hash":...`, then
// "}"). The first entry's prev is 32 zero bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>
#include <airlock/formats/envelope.h>

namespace airlock::audit {

// This module's error codes (their kinds and the exit codes: common/error.h).
namespace errors {
// The audit log (or an export of it) does not verify.
inline constexpr ErrorCode kBroken{ErrorKind::kCorruption, "audit.broken"};
// The offline half's log has reached its size bound: it must be continued in a new one.
inline constexpr ErrorCode kFull{ErrorKind::kIo, "audit.full"};
}  // namespace errors

// signed, refused, declined, reissued: a request's decision. started: the first entry of a log
// begun by `airlock-offline log start`, saying what came before it (Start). carried: a signed
// entry of the previous log's last day, copied after the started entry so that the limits'
// windows (docs/policy.md) and the request ids signed stay counted across the change of log.
// closing and closed: the two last entries of a log that `log start --continue-from` continued
// in another. closing is written before the new log, naming its head as begun and its file;
// closed after it, naming the same head. From closing on nothing is decided in the log, and it
// is continued into no other file: an interrupted start is recognisable, and is finished by
// the same command (docs/audit-log.md).
// approved: an intent the operator approved before its build (an approval request,
// docs/approvals.md); the build of exactly that intent is then signed without a second
// question, once, until the approval expires.
enum class Decision {
  kSigned,
  kRefused,
  kDeclined,
  kReissued,
  kStarted,
  kCarried,
  kClosing,
  kClosed,
  kApproved
};

// How long before a new log's start the signed entries of the log it continues are carried
// into it: the policy's longest window, and longer than any request's deadline, so a request
// id signed before the change of log is still known after it.
inline constexpr std::int64_t kCarriedSeconds = 86400;

[[nodiscard]] const char* decision_name(Decision d) noexcept;

// What a signed request moves out of the vault in one token (swapped away, or sent to a
// venue), in the token's base units, as the offline half read it from the instructions. A
// move whose amount (or token) the bytes do not state is recorded without it ("unknown" in
// the line), so a limit set later still refuses to count it as nothing.
struct Outflow {
  std::optional<PublicKey> mint;
  std::optional<std::uint64_t> amount;
  friend bool operator==(const Outflow&, const Outflow&) = default;
};

// What a log started by `log start` says came before it.
struct Start {
  enum class Previous {
    kNone,       // --first: the key has signed nothing before this log
    kLost,       // --previous-lost: an earlier log existed and is gone
    kContinued,  // --continue-from: the log with previous_head, its last day carried over
  };
  Previous previous = Previous::kNone;
  Hash previous_head{};                // kContinued: the earlier log's head
  std::uint64_t previous_entries = 0;  // kContinued: how many entries it held
  // The time from which this chain of logs holds every signature the key made: none when it
  // holds them all (a first log, or a chain of continued logs back to one).
  std::optional<std::int64_t> complete_since;
  friend bool operator==(const Start&, const Start&) = default;
};

struct Entry {
  std::uint64_t seq = 0;  // 1, 2, ...
  std::int64_t time = 0;  // unix seconds, offline clock
  Hash prev{};
  envelope::RequestId request_id{};
  std::string action;
  PublicKey manager;
  PublicKey vault;
  Decision decision = Decision::kRefused;
  std::vector<std::string> codes;     // refusal or warning codes
  std::vector<Hash> message_hashes;   // SHA-256 of each step's message, in request order
  std::vector<Signature> signatures;  // for signed and reissued entries
  // Every entry written since limits exist carries this (empty unless signed); an entry
  // without it was written before, and its amounts are unknown.
  std::optional<std::vector<Outflow>> outflows = std::vector<Outflow>{};
  std::optional<Start> start;  // a started entry's, and only its
  // A closing and a closed entry's, and only theirs: the new log's head as begun.
  std::optional<Hash> successor;
  // A closing entry's, and only its: the new log's file, as a full path.
  std::optional<std::string> successor_file;
  // An approved entry's, and only its: the intent approved (envelope::intent_hash), until when
  // (unix seconds, offline clock) and under which policy (SHA-256 of its canonical text).
  struct Approved {
    Hash intent{};
    std::int64_t expires = 0;
    Hash policy{};
    friend bool operator==(const Approved&, const Approved&) = default;
  };
  std::optional<Approved> approved;
  // A signed entry's made without a question under an approval, and only such: the approval's
  // request id (each approval is used once).
  std::optional<envelope::RequestId> under_approval;
  Hash hash{};
  friend bool operator==(const Entry&, const Entry&) = default;
};

// The entry's canonical text without the hash (what the chain hashes), and its hash after prev.
[[nodiscard]] std::string body_text(const Entry& entry);
[[nodiscard]] Hash chain_hash(const Hash& prev, std::string_view body);
// Numbers and chains `entries` from the start of a log: seq 1, 2, ..., each prev the hash before
// it (zero for the first), each hash computed.
void chain(std::vector<Entry>& entries);
// The whole line as the log holds it, without the line end; `entry.hash` is taken as given.
[[nodiscard]] std::string line_of(const Entry& entry);

// Parses and checks a whole log's text, from its first entry: each line canonical, numbered in
// order, following the line before and matching its hash; a started entry only first (saying
// only what `log start` says), carried entries only right after it and from its last day, a
// closing entry naming the head a continuation begun at its time has, followed by nothing but
// the closed entry naming the same; a last line without its line end is a write cut short.
// Errors are audit.broken naming `where` and the line.
[[nodiscard]] Result<std::vector<Entry>> verify_lines(std::string_view text,
                                                      const std::string& where);

// The first line of a `log export` file: an export is the log's lines under this header, so it
// is never taken for the log itself (a copy, perhaps cut short, would count the limits and the
// replays from less than the log holds).
inline constexpr std::string_view kExportHeader = "{\"airlock_audit_export\":1}";
// The log's lines inside an export (after its header line), or nullopt when `text` does not
// begin with the header.
[[nodiscard]] std::optional<std::string_view> export_lines(std::string_view text);

// Whether the entry records a signature the key made: signed, reissued, or carried over.
[[nodiscard]] bool holds_signatures(const Entry& entry) noexcept;
// Whether `path` is a successor_file as a closing entry may hold it: absolute, without empty,
// "." or ".." parts or a trailing "/", printable UTF-8, at most 4096 bytes.
[[nodiscard]] bool is_plain_full_path(const std::string& path);

// Whether the entry ends a log (closing or closed): it records no request, and nothing more is
// decided in that log.
[[nodiscard]] bool ends_log(const Entry& entry) noexcept;

// The time from which `entries` (a verified log) hold every signature the key made, or none
// when they hold them all: a log started by `log start` says so in its started entry; a log
// begun by sign itself holds them since its first entry (it was created just before); an
// empty one since `now`.
[[nodiscard]] std::optional<std::int64_t> complete_since(const std::vector<Entry>& entries,
                                                         std::int64_t now);

// The entries `log start` begins a log with at `now`: the started entry saying what came
// before (`previous` the earlier log's entries, without its closing entry, for kContinued), then
// for a continuation copies of the earlier log's signed and carried entries of the
// kCarriedSeconds before `now`, as `carried`. Determined by its inputs alone, so the log a
// continuation names can be rebuilt and compared.
[[nodiscard]] std::vector<Entry> begun_entries(Start::Previous kind,
                                               const std::vector<Entry>& previous,
                                               std::int64_t now);

// The head of a log as `log start` began it: its started entry's, or the last carried one's
// (what the entry closing the log before it names); zero for a log not begun that way.
[[nodiscard]] Hash head_as_begun(const std::vector<Entry>& entries);

// Whether `next` (a verified log) continues `before` (another): `before` ends with the closing
// and closed entries naming `next`'s head as begun, and `next` begins exactly as `log start`
// begins it from `before` (begun_entries at the closing entry's time: the time, the head, the
// count, the completeness and every carried entry). usage.invalid saying which link is missing
// otherwise.
[[nodiscard]] Status check_continues(const std::vector<Entry>& before,
                                     const std::vector<Entry>& next);

// A head as a person types it from a screen (log export, a sign response): exactly 64 hex
// digits, either case, nothing around them. Anything else is usage.invalid naming `option`.
[[nodiscard]] Result<Hash> parse_head(std::string_view text, std::string_view option);

// How many of the 64 hex digits of two heads differ. Heads of different entries differ in about
// 60; a head typed off a screen with a few digits wrong is a typing mistake, not a cut log.
[[nodiscard]] int hex_digits_apart(const Hash& a, const Hash& b);
inline constexpr int kMistypedHeadDigits = 6;  // at most this many apart: said to be mistyped

}  // namespace airlock::audit
