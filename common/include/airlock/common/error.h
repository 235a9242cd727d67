// The one error style of airlock: parsers and protocol code return Result<T>, which holds either
// a value or an Error with a stable machine-readable code and a message for people that names
// the field and the rule it broke. Exceptions appear only at the command-line edge.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace airlock {

// Stable error codes. The names (see error_code_name) are part of the CLI and JSON output:
// append new codes, never renumber or rename existing ones.
enum class ErrorCode : std::uint16_t {
  // Text encodings.
  kHexInvalid,
  kBase58Invalid,
  kBase64Invalid,
  kWrongLength,
  // Reading bytes.
  kTruncated,
  kTrailingBytes,
  kTooLarge,
  // Compact-u16 ("shortvec") lengths.
  kShortvecTruncated,
  kShortvecTooLong,
  kShortvecOverflow,
  kShortvecAlias,
  // Messages (the runtime's sanitize rules, plus what it rejects before execution).
  kMessageUnsupportedVersion,
  kMessageHeaderCounts,
  kMessageNoWritableFeePayer,
  kMessageTooManyAccounts,
  kMessageEmptyLookup,
  kMessageProgramIsFeePayer,
  kMessageProgramIndexOutOfRange,
  kMessageAccountIndexOutOfRange,
  kMessageDuplicateAccount,
  // Transactions.
  kTransactionSignatureCount,
  kTransactionTooLarge,
  kNotASigner,
  // Lookup tables supplied for resolution.
  kLookupIndexOutOfRange,
  kLookupTableAccount,
  // Cryptography and the environment.
  kCryptoUnavailable,
  kOutOfSecureMemory,
  kIo,
  kUsage,
  // CBOR (formats/cbor.h).
  kCborMalformed,
  kCborIndefiniteLength,
  kCborNotDeterministic,
  kCborDuplicateKey,
  kCborTooDeep,
  kCborUnsupportedType,
  // Envelopes and their schema (formats/envelope.h).
  kEnvelopeVersion,
  kEnvelopeFieldMissing,
  kEnvelopeWrongType,
  kEnvelopeBadValue,
  kEnvelopeUnknownKey,
  // Multipart framing and QR (formats/ur.h, formats/dense.h, formats/qr.h).
  kUrInvalid,
  kUrChecksum,
  kUrInconsistentPart,
  kFrameInvalid,
  kDenseOtherTransfer,  // a dense frame of another transfer than this decoder's
  kDenseMixed,          // reassembled dense content that does not hash to its transfer id
  kQrEncodeFailed,
  kImageInvalid,
  // Instruction decoding (offline/idl.h, offline/decode.h).
  kIdlInvalid,
  kIdlUndecodable,
  // The online half (online/).
  kApiKeyInvalid,     // not hv1_<id>_<secret>, or unreadable
  kHttp,              // the request could not be made or the reply was not JSON
  kApi,               // the service answered with its error envelope
  kResponseMismatch,  // a sign response that does not answer its request
  kResponseLate,      // a sign response that came back after the request's deadline
  kAuditLogBroken,    // the offline audit log does not verify (offline/audit.h)
  kBackupInvalid,     // a recovery phrase or SLIP-0039 share breaks a rule (offline/)
  kKeystoreLocked,    // the keystore does not open: a wrong passphrase, or an altered file
  // Process lock-down (hardening/).
  kNetworkUp,  // a non-loopback network interface is up where the offline half runs
  kLockdown,   // a lock-down step (rlimit, prctl, seccomp) failed
  // The offline policy file (offline/policy.h): a setting that breaks its rule.
  kPolicyInvalid,
};

// The stable snake_case name of a code, e.g. "message.no_writable_fee_payer".
[[nodiscard]] std::string_view error_code_name(ErrorCode code) noexcept;

class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  [[nodiscard]] ErrorCode code() const noexcept { return code_; }
  [[nodiscard]] std::string_view code_name() const noexcept { return error_code_name(code_); }
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

  // "<code>: <message>", the form shown to people.
  [[nodiscard]] std::string to_string() const;

  // Prefix the message with the field it concerns: "static_keys[3]: " + message.
  [[nodiscard]] Error in_field(std::string_view field) const;

 private:
  ErrorCode code_;
  std::string message_;
};

// Reports a Result accessed as what it does not hold (a programming error) and aborts.
[[noreturn]] void wrong_result_access(const char* asked, const Error* held) noexcept;

// A value or an Error. Accessing value() of an error result (or error() of a value) is a
// programming error: it prints what the result held and aborts.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value)
      : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  [[nodiscard]] bool ok() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  [[nodiscard]] T& value() & {
    check_value();
    return std::get<0>(state_);
  }
  [[nodiscard]] const T& value() const& {
    check_value();
    return std::get<0>(state_);
  }
  // From a temporary, the value moves out: `for (auto& x : f().value())` stays valid.
  [[nodiscard]] T value() && {
    check_value();
    return std::get<0>(std::move(state_));
  }
  [[nodiscard]] const Error& error() const& {
    check_error();
    return std::get<1>(state_);
  }
  [[nodiscard]] Error error() && {
    check_error();
    return std::get<1>(std::move(state_));
  }

  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  void check_value() const noexcept {
    if (state_.index() != 0) wrong_result_access("value()", std::get_if<1>(&state_));
  }
  void check_error() const noexcept {
    if (state_.index() != 1) wrong_result_access("error()", nullptr);
  }
  std::variant<T, Error> state_;
};

// Success or an Error, for operations that return nothing.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT: implicit by design

  [[nodiscard]] bool ok() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return ok(); }
  [[nodiscard]] const Error& error() const& {
    if (!failed_) wrong_result_access("error()", nullptr);
    return error_;
  }

 private:
  Error error_{ErrorCode::kUsage, {}};
  bool failed_ = false;
};

}  // namespace airlock

// Evaluates `expr` (a Result); on error returns that error from the enclosing function,
// otherwise declares `var` holding the value.
#define AIRLOCK_TRY(var, expr)                                      \
  auto var##_result_ = (expr);                                      \
  if (!var##_result_.ok()) return std::move(var##_result_).error(); \
  auto var = std::move(var##_result_).value()

// Evaluates `expr` (a Status); on error returns that error from the enclosing function.
#define AIRLOCK_CHECK(expr)                     \
  do {                                          \
    if (auto status_ = (expr); !status_.ok()) { \
      return status_.error();                   \
    }                                           \
  } while (false)
