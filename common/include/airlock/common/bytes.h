// Byte containers, fixed-size keys, and the text encodings the ledger and the API use:
// hex, base58 (keys, signatures, blockhashes) and standard base64 (transactions).
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <airlock/common/error.h>

namespace airlock {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;

// The bytes of a text, viewed in place (its characters as they are stored: UTF-8 here).
inline ByteView text_bytes(std::string_view text) noexcept {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

// A value of exactly N bytes: public keys, blockhashes, signatures.
template <std::size_t N>
struct FixedBytes {
  static constexpr std::size_t kSize = N;
  std::array<std::uint8_t, N> bytes{};

  [[nodiscard]] ByteView view() const noexcept { return ByteView(bytes); }
  [[nodiscard]] bool is_zero() const noexcept {
    for (auto b : bytes) {
      if (b != 0) return false;
    }
    return true;
  }
  // clang-tidy 14 misreads a defaulted <=> as comparing against a literal 0.
  // NOLINTNEXTLINE(modernize-use-nullptr)
  friend auto operator<=>(const FixedBytes&, const FixedBytes&) = default;
};

// A ledger account address (an Ed25519 public key or a program-derived address).
using PublicKey = FixedBytes<32>;
// A blockhash, or any 32-byte SHA-256 digest.
using Hash = FixedBytes<32>;
// An Ed25519 signature.
using Signature = FixedBytes<64>;

// Lower-case hex of the bytes.
[[nodiscard]] std::string to_hex(ByteView bytes);
// Decodes hex (either case), an even number of digits and nothing else. Rejects input longer
// than 2 * max_bytes digits before allocating.
[[nodiscard]] Result<Bytes> from_hex(std::string_view text, std::size_t max_bytes);

// Base58 with the Bitcoin alphabet, as the ledger writes keys and signatures.
[[nodiscard]] std::string to_base58(ByteView bytes);
// Decodes base58, rejecting any character outside the alphabet (including whitespace) and
// input longer than the base58 length of max_bytes bytes.
[[nodiscard]] Result<Bytes> from_base58(std::string_view text, std::size_t max_bytes);

// Decodes base58 into exactly N bytes; anything else is kWrongLength (or kBase58Invalid).
template <std::size_t N>
[[nodiscard]] Result<FixedBytes<N>> fixed_from_base58(std::string_view text);

template <std::size_t N>
[[nodiscard]] std::string to_base58(const FixedBytes<N>& value) {
  return to_base58(value.view());
}

// Parses a PublicKey as the API spec defines it: 32 to 44 base58 characters decoding to
// exactly 32 bytes.
[[nodiscard]] Result<PublicKey> public_key_from_base58(std::string_view text);

// Standard base64 (RFC 4648 §4) with padding, as transactions travel in the API.
[[nodiscard]] std::string to_base64(ByteView bytes);
// Strict decode: the standard alphabet, correct padding, zero pad bits, no line breaks or other
// whitespace. Rejects input that would decode to more than max_bytes before allocating.
[[nodiscard]] Result<Bytes> from_base64(std::string_view text, std::size_t max_bytes);

// RFC 3629 UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
[[nodiscard]] bool is_valid_utf8(ByteView bytes) noexcept;

// Copies the first N bytes of a view. Precondition: view.size() >= N (checked: a shorter view
// aborts rather than read past its end).
template <std::size_t N>
[[nodiscard]] FixedBytes<N> fixed_from_view(ByteView view) {
  if (view.size() < N) __builtin_trap();
  FixedBytes<N> out;
  for (std::size_t i = 0; i < N; ++i) out.bytes[i] = view[i];
  return out;
}

extern template Result<FixedBytes<32>> fixed_from_base58<32>(std::string_view);
extern template Result<FixedBytes<64>> fixed_from_base58<64>(std::string_view);

}  // namespace airlock
