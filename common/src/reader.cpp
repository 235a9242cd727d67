#include <cstdlib>
#include <string>

#include <airlock/common/reader.h>
#include <airlock/common/shortvec.h>

namespace airlock {

std::uint8_t ByteReader::u8(std::string_view field) {
  auto bytes = take(1, field);
  return bytes.empty() ? 0 : bytes[0];
}

ByteView ByteReader::take(std::size_t n, std::string_view field) {
  if (!ok()) return {};
  if (n > remaining()) {
    fail(Error(ErrorCode::kTruncated, std::string(field) + ": needs " + std::to_string(n) +
                                          " bytes at offset " + std::to_string(pos_) +
                                          " but only " + std::to_string(remaining()) + " remain"));
    return {};
  }
  auto out = data_.subspan(pos_, n);
  pos_ += n;
  return out;
}

std::uint64_t ByteReader::le(std::size_t n, std::string_view field) {
  if (n == 0 || n > 8) std::abort();  // a caller asked for a width no field has: a bug, not input
  std::uint64_t v = 0;
  const ByteView bytes = take(n, field);
  for (std::size_t i = bytes.size(); i-- > 0;) v = (v << 8) | bytes[i];
  return v;
}

std::uint64_t ByteReader::be(std::size_t n, std::string_view field) {
  if (n == 0 || n > 8) std::abort();
  std::uint64_t v = 0;
  for (std::uint8_t b : take(n, field)) v = (v << 8) | b;
  return v;
}

std::uint16_t ByteReader::shortvec(std::string_view field) {
  if (!ok()) return 0;
  auto decoded = decode_shortvec(data_.subspan(pos_));
  if (!decoded.ok()) {
    fail(decoded.error().in_field(std::string(field) + " (offset " + std::to_string(pos_) + ")"));
    return 0;
  }
  pos_ += decoded->length;
  return decoded->value;
}

bool ByteReader::fail(Error error) {
  if (ok()) error_ = std::move(error);
  return false;
}

bool ByteReader::expect_end(std::string_view what) {
  if (ok() && remaining() != 0) {
    fail(Error(ErrorCode::kTrailingBytes, std::string(what) + " ends at offset " +
                                              std::to_string(pos_) + " but " +
                                              std::to_string(remaining()) + " more bytes follow"));
  }
  return ok();
}

}  // namespace airlock
