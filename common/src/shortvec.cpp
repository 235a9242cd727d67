#include <string>

#include <airlock/common/shortvec.h>

namespace airlock {

Result<ShortvecValue> decode_shortvec(ByteView in) {
  std::uint32_t value = 0;
  for (std::size_t nth = 0; nth < kShortvecMaxBytes; ++nth) {
    if (nth >= in.size()) {
      return Error(ErrorCode::kShortvecTruncated,
                   "compact-u16 ends after " + std::to_string(nth) + " bytes, inside the value");
    }
    const std::uint8_t byte = in[nth];
    if (byte == 0 && nth != 0) {
      return Error(ErrorCode::kShortvecAlias, "compact-u16 has a zero byte at position " +
                                                  std::to_string(nth) +
                                                  ", a non-canonical (longer) encoding");
    }
    const bool more = (byte & 0x80) != 0;
    if (nth == kShortvecMaxBytes - 1 && more) {
      return Error(ErrorCode::kShortvecTooLong,
                   "compact-u16 continues past its third byte; at most 3 bytes are allowed");
    }
    value |= static_cast<std::uint32_t>(byte & 0x7f) << (7 * nth);
    if (value > 0xffff) {
      return Error(ErrorCode::kShortvecOverflow,
                   "compact-u16 value " + std::to_string(value) + " exceeds 65535");
    }
    if (!more) return ShortvecValue{static_cast<std::uint16_t>(value), nth + 1};
  }
  // Unreachable: the loop returns or fails by the third byte.
  return Error(ErrorCode::kShortvecTooLong, "compact-u16 longer than 3 bytes");
}

void encode_shortvec(std::uint16_t value, Bytes& out) {
  unsigned rest = value;
  do {
    auto byte = static_cast<std::uint8_t>(rest & 0x7f);
    rest >>= 7;
    if (rest != 0) byte |= 0x80;
    out.push_back(byte);
  } while (rest != 0);
}

}  // namespace airlock
