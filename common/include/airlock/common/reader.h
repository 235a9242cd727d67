// A bounds-checked cursor over bytes, the one every decoder in airlock reads with: messages and
// transactions, the built-in programs' instructions, IDL-described arguments, lookup table
// accounts and QR frame headers. The first failure is remembered and every later read returns
// zeros, so a parser can read a whole section and check once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>

namespace airlock {

class ByteReader {
 public:
  explicit ByteReader(ByteView data) noexcept : data_(data) {}

  // One byte; `field` names it in the error when the input ends first.
  std::uint8_t u8(std::string_view field);
  // The next n bytes as a view into the input (valid as long as the input is).
  ByteView take(std::size_t n, std::string_view field);
  // The next N bytes as a fixed-size value; all zero once the reader has failed.
  template <std::size_t N>
  FixedBytes<N> fixed(std::string_view field) {
    FixedBytes<N> out;
    auto bytes = take(N, field);
    if (bytes.size() == N) out = fixed_from_view<N>(bytes);
    return out;
  }
  // An unsigned integer of n bytes (1 to 8), least significant byte first (Solana's programs,
  // Borsh, bincode) or most significant first (network order, the dense QR header).
  std::uint64_t le(std::size_t n, std::string_view field);
  std::uint64_t be(std::size_t n, std::string_view field);
  // A compact-u16 length with every rule of the runtime (see shortvec.h).
  std::uint16_t shortvec(std::string_view field);

  // Records an error unless one is already recorded; returns false for convenience.
  bool fail(Error error);

  [[nodiscard]] bool ok() const noexcept { return !error_.has_value(); }
  [[nodiscard]] const Error& error() const { return *error_; }
  [[nodiscard]] std::size_t position() const noexcept { return pos_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return data_.size() - pos_; }

  // Fails with kTrailingBytes unless every byte was consumed.
  bool expect_end(std::string_view what);

 private:
  ByteView data_;
  std::size_t pos_ = 0;
  std::optional<Error> error_;
};

}  // namespace airlock
