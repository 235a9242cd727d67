// compact-u16 ("shortvec"): the ledger's variable-length encoding of array lengths. Seven bits
// per byte, least significant first, high bit = more bytes follow. The runtime accepts exactly
// one encoding per value; so do we.
#pragma once

#include <cstddef>
#include <cstdint>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>

namespace airlock {

// At most three bytes encode any u16 (7 + 7 + 2 bits).
inline constexpr std::size_t kShortvecMaxBytes = 3;

struct ShortvecValue {
  std::uint16_t value = 0;
  std::size_t length = 0;  // bytes consumed, 1 to 3
};

// Decodes the compact-u16 at the start of `in`. Rejects, each with its own code:
// input ending inside the value (kShortvecTruncated), a third byte with its continuation bit set
// (kShortvecTooLong), a value above 0xFFFF (kShortvecOverflow), and a zero byte after the first,
// which would be a second, longer encoding of a smaller value (kShortvecAlias).
[[nodiscard]] Result<ShortvecValue> decode_shortvec(ByteView in);

// Appends the canonical (shortest) encoding of `value`.
void encode_shortvec(std::uint16_t value, Bytes& out);

}  // namespace airlock
