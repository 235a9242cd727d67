// The two envelopes that cross the air gap, as CBOR (docs/envelope.md has the CDDL):
// a SignRequest from the online half and a SignResponse from the offline half.
//
// Decoding is strict: deterministic CBOR only, every required field present with the right type
// and size, no unknown key (the offline half never signs what it does not understand), and
// every limit below checked before anything is allocated for it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>
#include <airlock/common/message.h>

namespace airlock::envelope {

// This module's error codes (their kinds and the exit codes: common/error.h).
namespace errors {
inline constexpr ErrorCode kVersion{ErrorKind::kInvalidInput, "envelope.unsupported_version"};
inline constexpr ErrorCode kFieldMissing{ErrorKind::kInvalidInput, "envelope.field_missing"};
inline constexpr ErrorCode kWrongType{ErrorKind::kInvalidInput, "envelope.wrong_type"};
inline constexpr ErrorCode kBadValue{ErrorKind::kInvalidInput, "envelope.bad_value"};
inline constexpr ErrorCode kUnknownKey{ErrorKind::kInvalidInput, "envelope.unknown_key"};
}  // namespace errors

inline constexpr std::uint64_t kVersion = 1;

// Limits, each with its reason.
// A request id is 128 random bits: collisions are out of reach for any number of requests.
inline constexpr std::size_t kRequestIdBytes = 16;
// `dlmm/open` accepts up to 1400 bins at 70 per position, 20 steps, plus a few funding and
// setup steps; 32 leaves room without letting a request grow unbounded.
inline constexpr std::size_t kMaxSteps = 32;
// The API's request-body limit; the intent is that body.
inline constexpr std::size_t kMaxIntentBytes = 16384;
// Builder action names are short paths such as "dlmm/limit-order/place".
inline constexpr std::size_t kMaxActionChars = 64;
// A transaction can reference at most 256 accounts, so no more than 256 tables or entries.
inline constexpr std::size_t kMaxLookupHints = 64;
inline constexpr std::size_t kMaxLookupEntries = 256;
inline constexpr std::size_t kMaxTokenHints = 64;
// A request touches a few pools at most; one per step is already generous.
inline constexpr std::size_t kMaxPoolHints = 32;
inline constexpr std::size_t kMaxHintTextChars = 64;
// Refusal codes and reasons are for people; long enough for a named rule and its details.
inline constexpr std::size_t kMaxRefusalCodeChars = 64;
inline constexpr std::size_t kMaxRefusalReasonChars = 1024;
// 32 full transactions are 39 KB; hints and intent bring a worst case near 64 KiB. Larger
// would take minutes to move by QR, far past the 90 s ticket window.
inline constexpr std::size_t kMaxRequestBytes = 65536;
// 32 signatures of 64 bytes, keys and framing stay well under 4 KiB.
inline constexpr std::size_t kMaxResponseBytes = 4096;
// Deepest nesting in either envelope: request > hints > tables > table > entries > entry.
inline constexpr std::size_t kMaxDepth = 8;

using RequestId = std::array<std::uint8_t, kRequestIdBytes>;

struct Step {
  Bytes transaction;  // unsigned version-0 transaction, wire bytes, as the API built it
  bool send_concurrently = false;
  bool deferred = false;                        // checked by preflight at send time, not at build
  std::optional<std::uint64_t> units_consumed;  // from the build-time simulation
  std::optional<std::string> next_action;       // a follow-up build will come after this step
  friend bool operator==(const Step&, const Step&) = default;
};

// Addresses the online half says sit in a lookup table. A hint: the offline half trusts them
// only when its policy pins the same table contents.
struct LookupTableHint {
  PublicKey table;
  std::vector<std::pair<std::uint8_t, PublicKey>> entries;  // table index -> address
  friend bool operator==(const LookupTableHint&, const LookupTableHint&) = default;
};

struct TokenHint {
  PublicKey mint;
  std::string symbol;
  std::uint8_t decimals = 0;
  std::optional<std::string> name;
  friend bool operator==(const TokenHint&, const TokenHint&) = default;
};

// Which mints are a liquidity pool's token X and token Y, so amounts the pool's instructions
// carry without their mints (amount_x, amount_y) can be shown in whole tokens, labelled as hints.
struct PoolHint {
  PublicKey pool;
  PublicKey token_x;
  PublicKey token_y;
  friend bool operator==(const PoolHint&, const PoolHint&) = default;
};

struct Hints {
  std::vector<LookupTableHint> lookup_tables;
  std::vector<TokenHint> tokens;
  std::vector<PoolHint> pools;
  friend bool operator==(const Hints&, const Hints&) = default;
};

// A sign request, or with `approval` an approval request: the intent alone (no steps), sent
// before anything is built, so the manager decides on what was asked at leisure and the build
// that follows is signed without a second question (docs/approvals.md). Its deadline is when
// the approval asked for ends.
struct SignRequest {
  RequestId request_id{};
  std::uint64_t created_at = 0;  // unix seconds, online clock
  std::uint64_t deadline = 0;    // unix seconds: the earliest ticket expiry
  PublicKey manager;
  PublicKey vault;
  std::string action;       // builder action, e.g. "aggregator/swap"
  std::string intent_json;  // the builder request body as sent, a JSON object
  std::vector<Step> steps;  // in the order they must be sent; none in an approval request
  Hints hints;
  bool approval = false;
  friend bool operator==(const SignRequest&, const SignRequest&) = default;
};

// What an approval covers: SHA-256 over a domain tag, the manager, the vault, the action and
// the intent's exact text, so a build request whose body differs in one byte is another intent.
[[nodiscard]] Hash intent_hash(const SignRequest& request);

// An intent approved by the offline half, recorded in its audit log: the build of exactly that
// intent is signed without a second question until `expires_at`, once.
struct Approval {
  Hash intent{};                 // intent_hash of the approval request
  std::uint64_t expires_at = 0;  // unix seconds, offline clock
  friend bool operator==(const Approval&, const Approval&) = default;
};

struct Refusal {
  std::string code;    // a stable rule name, e.g. "policy.fee_payer"
  std::string reason;  // for people
  friend bool operator==(const Refusal&, const Refusal&) = default;
};

// "code: reason" for people, or the reason alone when it already starts with the code (the
// offline half's reasons list every refusal by code, the first being `code`). Not escaped:
// callers print it through printable().
[[nodiscard]] std::string describe(const Refusal& r);

struct SignResponse {
  RequestId request_id{};
  PublicKey signer;
  // One signature per step in request order, or a refusal of the whole request, or for an
  // approval request the approval.
  std::variant<std::vector<Signature>, Refusal, Approval> result;
  Hash audit_head;  // the audit log's head after recording this decision
  friend bool operator==(const SignResponse&, const SignResponse&) = default;
};

[[nodiscard]] Bytes encode_request(const SignRequest& request);
[[nodiscard]] Result<SignRequest> decode_request(ByteView bytes);
[[nodiscard]] Bytes encode_response(const SignResponse& response);
[[nodiscard]] Result<SignResponse> decode_response(ByteView bytes);

// 16 bytes from the operating system's random source.
[[nodiscard]] RequestId random_request_id();

}  // namespace airlock::envelope
