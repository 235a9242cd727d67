// A small CBOR value type with a strict decoder and a deterministic encoder (RFC 8949 §4.2.1:
// shortest heads, definite lengths, map keys sorted by their encoded bytes). The envelopes and
// the Keystone registry types are built on it.
//
// Strict decoding refuses, each with its own code: malformed or truncated input
// (cbor.malformed), indefinite lengths (cbor.indefinite_length), anything not in deterministic
// form, such as a longer-than-needed head or unsorted map keys (cbor.not_deterministic),
// duplicate map keys (cbor.duplicate_key), nesting deeper than the limit (cbor.too_deep),
// floats, undefined and other simple values (cbor.unsupported_type), and input or item counts
// over the limits (bytes.too_large), the last before allocating for them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>

namespace airlock::cbor {

// This module's error codes (their kinds and the exit codes: common/error.h).
namespace errors {
inline constexpr ErrorCode kMalformed{ErrorKind::kInvalidInput, "cbor.malformed"};
inline constexpr ErrorCode kIndefiniteLength{ErrorKind::kInvalidInput, "cbor.indefinite_length"};
inline constexpr ErrorCode kNotDeterministic{ErrorKind::kInvalidInput, "cbor.not_deterministic"};
inline constexpr ErrorCode kDuplicateKey{ErrorKind::kInvalidInput, "cbor.duplicate_key"};
inline constexpr ErrorCode kTooDeep{ErrorKind::kInvalidInput, "cbor.too_deep"};
inline constexpr ErrorCode kUnsupportedType{ErrorKind::kInvalidInput, "cbor.unsupported_type"};
}  // namespace errors

class Value {
 public:
  enum class Kind : std::uint8_t {
    kUnsigned,
    kNegative,
    kBytes,
    kText,
    kArray,
    kMap,
    kTag,
    kBool,
    kNull
  };
  using Entry = std::pair<Value, Value>;

  static Value unsigned_int(std::uint64_t v);
  // The integer -1 - n (CBOR major type 1 carries n).
  static Value negative(std::uint64_t n);
  static Value bytes(Bytes b);
  static Value bytes(ByteView b) { return bytes(Bytes(b.begin(), b.end())); }
  static Value text(std::string s);
  static Value array(std::vector<Value> items);
  static Value map(std::vector<Entry> entries);
  static Value tag(std::uint64_t tag, Value inner);
  static Value boolean(bool v);
  static Value null();

  [[nodiscard]] Kind kind() const noexcept { return kind_; }
  [[nodiscard]] std::uint64_t number() const noexcept { return number_; }  // uint, neg n, tag
  [[nodiscard]] bool as_bool() const noexcept { return number_ != 0; }
  [[nodiscard]] const Bytes& byte_string() const noexcept { return data_; }
  [[nodiscard]] std::string_view text_string() const noexcept {
    return {reinterpret_cast<const char*>(data_.data()), data_.size()};
  }
  [[nodiscard]] const std::vector<Value>& items() const noexcept {
    return items_;
  }  // array; tag: 1
  [[nodiscard]] const std::vector<Entry>& entries() const noexcept { return entries_; }
  [[nodiscard]] const Value& tagged() const { return items_.front(); }

  // The value of an unsigned-integer key in a map, or nullptr.
  [[nodiscard]] const Value* find(std::uint64_t key) const;

  friend bool operator==(const Value&, const Value&) = default;

 private:
  Kind kind_ = Kind::kNull;
  std::uint64_t number_ = 0;
  Bytes data_;
  std::vector<Value> items_;
  std::vector<Entry> entries_;
};

struct DecodeLimits {
  std::size_t max_bytes;  // of the whole input
  std::size_t max_depth;  // nesting of arrays, maps and tags
  std::size_t max_items;  // every value counts, including map keys
};

// Decodes exactly one value that fills `input`, strictly (see above).
[[nodiscard]] Result<Value> decode_strict(ByteView input, const DecodeLimits& limits);

// The deterministic encoding of `value`. Map entries are written sorted by encoded key,
// whatever order they are stored in.
[[nodiscard]] Bytes encode(const Value& value);

[[nodiscard]] const char* kind_name(Value::Kind kind) noexcept;

}  // namespace airlock::cbor
