// The one error style of airlock: parsers and protocol code return Result<T>, which holds either
// a value or an Error with a stable machine-readable code and a message for people that names
// the field and the rule it broke. Exceptions appear only at the command-line edge.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace airlock {

// What kind of failure an error is, as a caller decides what to do about it (LevelDB's
// Status has the same idea). The kind alone gives a command's exit code (cli::exit_code_for).
enum class ErrorKind : std::uint8_t {
  kInvalidInput,  // the input breaks a rule of its format or protocol: refused (exit 1)
  kRefused,       // well-formed, but a rule says no: the environment or the other side (exit 1)
  kCorruption,    // stored data that must verify does not: a log, an installed file (exit 1)
  kIo,            // files, devices or the machine's resources failed; nothing decided (exit 3)
  kUsage,         // the command's own arguments or configuration; nothing read (exit 2)
  kInternal,      // a bug (exit 4)
};

// A stable error code: its kind and its dotted name ("cbor.malformed"). Names are part of the
// CLI and JSON output: never rename one. Each module declares its own codes beside its code,
// as constants in a nested `errors` namespace (`cbor::errors::kMalformed` in formats/cbor.h);
// the codes of the transaction core are the static members below. Two codes are the same code
// when their names are.
class ErrorCode {
 public:
  constexpr ErrorCode(ErrorKind kind, std::string_view name) noexcept : kind_(kind), name_(name) {}

  [[nodiscard]] constexpr ErrorKind kind() const noexcept { return kind_; }
  [[nodiscard]] constexpr std::string_view name() const noexcept { return name_; }
  friend constexpr bool operator==(const ErrorCode& a, const ErrorCode& b) noexcept {
    return a.name_ == b.name_;
  }

  // Text encodings.
  static const ErrorCode kHexInvalid;
  static const ErrorCode kBase58Invalid;
  static const ErrorCode kBase64Invalid;
  static const ErrorCode kWrongLength;
  // Reading bytes.
  static const ErrorCode kTruncated;
  static const ErrorCode kTrailingBytes;
  static const ErrorCode kTooLarge;
  // Compact-u16 ("shortvec") lengths.
  static const ErrorCode kShortvecTruncated;
  static const ErrorCode kShortvecTooLong;
  static const ErrorCode kShortvecOverflow;
  static const ErrorCode kShortvecAlias;
  // Messages (the runtime's sanitize rules, plus what it rejects before execution).
  static const ErrorCode kMessageUnsupportedVersion;
  static const ErrorCode kMessageHeaderCounts;
  static const ErrorCode kMessageNoWritableFeePayer;
  static const ErrorCode kMessageTooManyAccounts;
  static const ErrorCode kMessageEmptyLookup;
  static const ErrorCode kMessageProgramIsFeePayer;
  static const ErrorCode kMessageProgramIndexOutOfRange;
  static const ErrorCode kMessageAccountIndexOutOfRange;
  static const ErrorCode kMessageDuplicateAccount;
  // Transactions.
  static const ErrorCode kTransactionSignatureCount;
  static const ErrorCode kTransactionTooLarge;
  static const ErrorCode kNotASigner;
  // Lookup tables supplied for resolution.
  static const ErrorCode kLookupIndexOutOfRange;
  static const ErrorCode kLookupTableAccount;
  // Cryptography and the environment.
  static const ErrorCode kCryptoUnavailable;
  static const ErrorCode kOutOfSecureMemory;
  static const ErrorCode kIo;
  static const ErrorCode kUsage;

 private:
  ErrorKind kind_;
  std::string_view name_;
};

inline constexpr ErrorCode ErrorCode::kHexInvalid{ErrorKind::kInvalidInput, "encoding.hex_invalid"};
inline constexpr ErrorCode ErrorCode::kBase58Invalid{ErrorKind::kInvalidInput,
                                                     "encoding.base58_invalid"};
inline constexpr ErrorCode ErrorCode::kBase64Invalid{ErrorKind::kInvalidInput,
                                                     "encoding.base64_invalid"};
inline constexpr ErrorCode ErrorCode::kWrongLength{ErrorKind::kInvalidInput,
                                                   "encoding.wrong_length"};
inline constexpr ErrorCode ErrorCode::kTruncated{ErrorKind::kInvalidInput, "bytes.truncated"};
inline constexpr ErrorCode ErrorCode::kTrailingBytes{ErrorKind::kInvalidInput, "bytes.trailing"};
inline constexpr ErrorCode ErrorCode::kTooLarge{ErrorKind::kInvalidInput, "bytes.too_large"};
inline constexpr ErrorCode ErrorCode::kShortvecTruncated{ErrorKind::kInvalidInput,
                                                         "shortvec.truncated"};
inline constexpr ErrorCode ErrorCode::kShortvecTooLong{ErrorKind::kInvalidInput,
                                                       "shortvec.too_long"};
inline constexpr ErrorCode ErrorCode::kShortvecOverflow{ErrorKind::kInvalidInput,
                                                        "shortvec.overflow"};
inline constexpr ErrorCode ErrorCode::kShortvecAlias{ErrorKind::kInvalidInput, "shortvec.alias"};
inline constexpr ErrorCode ErrorCode::kMessageUnsupportedVersion{ErrorKind::kInvalidInput,
                                                                 "message.unsupported_version"};
inline constexpr ErrorCode ErrorCode::kMessageHeaderCounts{ErrorKind::kInvalidInput,
                                                           "message.header_counts"};
inline constexpr ErrorCode ErrorCode::kMessageNoWritableFeePayer{ErrorKind::kInvalidInput,
                                                                 "message.no_writable_fee_payer"};
inline constexpr ErrorCode ErrorCode::kMessageTooManyAccounts{ErrorKind::kInvalidInput,
                                                              "message.too_many_accounts"};
inline constexpr ErrorCode ErrorCode::kMessageEmptyLookup{ErrorKind::kInvalidInput,
                                                          "message.empty_lookup"};
inline constexpr ErrorCode ErrorCode::kMessageProgramIsFeePayer{ErrorKind::kInvalidInput,
                                                                "message.program_is_fee_payer"};
inline constexpr ErrorCode ErrorCode::kMessageProgramIndexOutOfRange{
    ErrorKind::kInvalidInput, "message.program_index_out_of_range"};
inline constexpr ErrorCode ErrorCode::kMessageAccountIndexOutOfRange{
    ErrorKind::kInvalidInput, "message.account_index_out_of_range"};
inline constexpr ErrorCode ErrorCode::kMessageDuplicateAccount{ErrorKind::kInvalidInput,
                                                               "message.duplicate_account"};
inline constexpr ErrorCode ErrorCode::kTransactionSignatureCount{ErrorKind::kInvalidInput,
                                                                 "transaction.signature_count"};
inline constexpr ErrorCode ErrorCode::kTransactionTooLarge{ErrorKind::kInvalidInput,
                                                           "transaction.too_large"};
inline constexpr ErrorCode ErrorCode::kNotASigner{ErrorKind::kInvalidInput,
                                                  "transaction.not_a_signer"};
inline constexpr ErrorCode ErrorCode::kLookupIndexOutOfRange{ErrorKind::kInvalidInput,
                                                             "lookup.index_out_of_range"};
inline constexpr ErrorCode ErrorCode::kLookupTableAccount{ErrorKind::kInvalidInput,
                                                          "lookup.table_account"};
// The machine could not supply the library or the locked memory: nothing was decided.
inline constexpr ErrorCode ErrorCode::kCryptoUnavailable{ErrorKind::kIo, "crypto.unavailable"};
inline constexpr ErrorCode ErrorCode::kOutOfSecureMemory{ErrorKind::kIo,
                                                         "crypto.out_of_secure_memory"};
inline constexpr ErrorCode ErrorCode::kIo{ErrorKind::kIo, "io.failed"};
inline constexpr ErrorCode ErrorCode::kUsage{ErrorKind::kUsage, "usage.invalid"};

// The kind's name as docs/cli.md gives it ("invalid input", "I/O", ...).
[[nodiscard]] std::string_view error_kind_name(ErrorKind kind) noexcept;

// Prints the code's name (test failure messages use it).
std::ostream& operator<<(std::ostream& out, const ErrorCode& code);

class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  [[nodiscard]] const ErrorCode& code() const noexcept { return code_; }
  [[nodiscard]] std::string_view code_name() const noexcept { return code_.name(); }
  [[nodiscard]] ErrorKind kind() const noexcept { return code_.kind(); }
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
//
// The members are named as C++23's std::expected<T, Error> names them (has_value, value,
// error, value_or, and_then, transform), so that moving to it is a matter of spelling: ok() is
// has_value(), and `return Error(...)` becomes `return std::unexpected(Error(...))`.
template <class T>
class [[nodiscard]] Result {
 public:
  using value_type = T;

  Result(T value)
      : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  [[nodiscard]] bool ok() const noexcept { return state_.index() == 0; }
  [[nodiscard]] bool has_value() const noexcept { return ok(); }
  explicit operator bool() const noexcept { return ok(); }

  // The value, or `fallback` when this holds an error.
  template <class U>
  [[nodiscard]] T value_or(U&& fallback) const& {
    return ok() ? std::get<0>(state_) : static_cast<T>(std::forward<U>(fallback));
  }
  template <class U>
  [[nodiscard]] T value_or(U&& fallback) && {
    return ok() ? std::get<0>(std::move(state_)) : static_cast<T>(std::forward<U>(fallback));
  }

  // f(value), itself a Result, or this error unchanged.
  template <class F>
  [[nodiscard]] auto and_then(F&& f) && {
    using Next = std::invoke_result_t<F, T&&>;
    if (!ok()) return Next(std::get<1>(std::move(state_)));
    return std::invoke(std::forward<F>(f), std::get<0>(std::move(state_)));
  }
  template <class F>
  [[nodiscard]] auto and_then(F&& f) const& {
    using Next = std::invoke_result_t<F, const T&>;
    if (!ok()) return Next(std::get<1>(state_));
    return std::invoke(std::forward<F>(f), std::get<0>(state_));
  }

  // A Result of f(value), or this error unchanged.
  template <class F>
  [[nodiscard]] auto transform(F&& f) && {
    using Next = Result<std::invoke_result_t<F, T&&>>;
    if (!ok()) return Next(std::get<1>(std::move(state_)));
    return Next(std::invoke(std::forward<F>(f), std::get<0>(std::move(state_))));
  }
  template <class F>
  [[nodiscard]] auto transform(F&& f) const& {
    using Next = Result<std::invoke_result_t<F, const T&>>;
    if (!ok()) return Next(std::get<1>(state_));
    return Next(std::invoke(std::forward<F>(f), std::get<0>(state_)));
  }

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
  [[nodiscard]] bool has_value() const noexcept { return ok(); }  // as std::expected<void, E>
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
// otherwise declares `var` holding the value. (`var` is a name being declared: it cannot be
// parenthesised.)
// NOLINTBEGIN(bugprone-macro-parentheses)
#define AIRLOCK_TRY(var, expr)                                      \
  auto var##_result_ = (expr);                                      \
  if (!var##_result_.ok()) return std::move(var##_result_).error(); \
  auto var = std::move(var##_result_).value()
// NOLINTEND(bugprone-macro-parentheses)

// Evaluates `expr` (a Status); on error returns that error from the enclosing function.
#define AIRLOCK_CHECK(expr)                     \
  do {                                          \
    if (auto status_ = (expr); !status_.ok()) { \
      return status_.error();                   \
    }                                           \
  } while (false)
