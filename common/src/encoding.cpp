#include <algorithm>
#include <array>
#include <string>

#include <sodium.h>

#include <airlock/common/bytes.h>

namespace airlock {
namespace {

constexpr std::string_view kBase58Alphabet =
    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

// Maps an ASCII character to its base58 digit, or -1.
constexpr std::array<std::int8_t, 128> make_base58_digits() {
  std::array<std::int8_t, 128> digits{};
  for (auto& d : digits) d = -1;
  for (std::size_t i = 0; i < kBase58Alphabet.size(); ++i) {
    digits[static_cast<unsigned char>(kBase58Alphabet[i])] = static_cast<std::int8_t>(i);
  }
  return digits;
}
constexpr auto kBase58Digits = make_base58_digits();

// Base58 needs log(256)/log(58) ≈ 1.3657 characters per byte; 138/100 rounds that up.
constexpr std::size_t base58_max_chars(std::size_t bytes) { return bytes * 138 / 100 + 1; }

std::string describe_char(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return std::string("'") + c + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 0xf];
}

}  // namespace

bool is_valid_utf8(ByteView s) noexcept {
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned c = s[i];
    std::size_t len = 0;
    unsigned min = 0, cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xe0) == 0xc0) {
      len = 2, min = 0x80, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3, min = 0x800, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4, min = 0x10000, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3fU);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += len;
  }
  return true;
}

std::string to_hex(ByteView bytes) {
  if (bytes.empty()) return {};  // libsodium's arguments are declared non-null
  std::string out(bytes.size() * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), bytes.data(), bytes.size());
  out.pop_back();
  return out;
}

Result<Bytes> from_hex(std::string_view text, std::size_t max_bytes) {
  if (text.size() % 2 != 0) {
    return Error(ErrorCode::kHexInvalid,
                 "hex must have an even number of digits, got " + std::to_string(text.size()));
  }
  if (text.size() / 2 > max_bytes) {
    return Error(ErrorCode::kTooLarge, "hex decodes to " + std::to_string(text.size() / 2) +
                                           " bytes, more than the limit of " +
                                           std::to_string(max_bytes));
  }
  if (text.empty()) return Bytes{};
  Bytes out(text.size() / 2);
  std::size_t decoded = 0;
  const char* end = nullptr;
  if (sodium_hex2bin(out.data(), out.size(), text.data(), text.size(), nullptr, &decoded, &end) !=
          0 ||
      decoded != out.size()) {
    auto bad = static_cast<std::size_t>(end - text.data());
    return Error(ErrorCode::kHexInvalid, "hex has a non-hex character " +
                                             describe_char(text[std::min(bad, text.size() - 1)]) +
                                             " at offset " + std::to_string(bad));
  }
  return out;
}

std::string to_base58(ByteView bytes) {
  std::size_t zeros = 0;
  while (zeros < bytes.size() && bytes[zeros] == 0) ++zeros;
  // Big-endian base-58 digits of the value, computed by repeated multiply-add.
  std::vector<std::uint8_t> digits(base58_max_chars(bytes.size() - zeros), 0);
  std::size_t used = 0;
  for (std::size_t i = zeros; i < bytes.size(); ++i) {
    unsigned carry = bytes[i];
    std::size_t j = 0;
    for (auto it = digits.rbegin(); (carry != 0 || j < used) && it != digits.rend(); ++it, ++j) {
      carry += 256U * *it;
      *it = static_cast<std::uint8_t>(carry % 58);
      carry /= 58;
    }
    used = j;
  }
  std::string out(zeros, '1');
  auto first = digits.end() - static_cast<std::ptrdiff_t>(used);
  for (auto it = first; it != digits.end(); ++it) out += kBase58Alphabet[*it];
  return out;
}

Result<Bytes> from_base58(std::string_view text, std::size_t max_bytes) {
  if (text.size() > base58_max_chars(max_bytes) + max_bytes) {
    return Error(ErrorCode::kTooLarge, "base58 text of " + std::to_string(text.size()) +
                                           " characters is longer than a " +
                                           std::to_string(max_bytes) + "-byte value can be");
  }
  std::size_t ones = 0;
  while (ones < text.size() && text[ones] == '1') ++ones;
  // Little-endian base-256 bytes of the value.
  std::vector<std::uint8_t> value;
  value.reserve(text.size());
  for (std::size_t i = ones; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    int digit = c < 128 ? kBase58Digits[c] : -1;
    if (digit < 0) {
      return Error(ErrorCode::kBase58Invalid, "base58 has a character outside the alphabet, " +
                                                  describe_char(text[i]) + " at offset " +
                                                  std::to_string(i));
    }
    auto carry = static_cast<unsigned>(digit);
    for (auto& b : value) {
      carry += 58U * b;
      b = static_cast<std::uint8_t>(carry & 0xff);
      carry >>= 8;
    }
    while (carry != 0) {
      value.push_back(static_cast<std::uint8_t>(carry & 0xff));
      carry >>= 8;
    }
  }
  if (ones + value.size() > max_bytes) {
    return Error(ErrorCode::kTooLarge, "base58 decodes to " + std::to_string(ones + value.size()) +
                                           " bytes, more than the limit of " +
                                           std::to_string(max_bytes));
  }
  Bytes out(ones, 0);
  out.insert(out.end(), value.rbegin(), value.rend());
  return out;
}

template <std::size_t N>
Result<FixedBytes<N>> fixed_from_base58(std::string_view text) {
  auto decoded = from_base58(text, N);
  if (!decoded.ok()) {
    if (decoded.error().code() == ErrorCode::kTooLarge) {
      return Error(ErrorCode::kWrongLength,
                   "base58 value must decode to exactly " + std::to_string(N) + " bytes, not more");
    }
    return std::move(decoded).error();
  }
  if (decoded->size() != N) {
    return Error(ErrorCode::kWrongLength, "base58 value must decode to exactly " +
                                              std::to_string(N) + " bytes, got " +
                                              std::to_string(decoded->size()));
  }
  return fixed_from_view<N>(*decoded);
}
template Result<FixedBytes<32>> fixed_from_base58<32>(std::string_view);
template Result<FixedBytes<64>> fixed_from_base58<64>(std::string_view);

Result<PublicKey> public_key_from_base58(std::string_view text) {
  // The API's pattern ^[1-9A-HJ-NP-Za-km-z]{32,44}$; the alphabet is checked while decoding.
  constexpr std::size_t kMinChars = 32, kMaxChars = 44;
  if (text.size() < kMinChars || text.size() > kMaxChars) {
    return Error(ErrorCode::kWrongLength, "public key must be 32 to 44 base58 characters, got " +
                                              std::to_string(text.size()));
  }
  return fixed_from_base58<32>(text);
}

std::string to_base64(ByteView bytes) {
  if (bytes.empty()) return {};
  constexpr int kVariant = sodium_base64_VARIANT_ORIGINAL;
  std::string out(sodium_base64_encoded_len(bytes.size(), kVariant), '\0');
  sodium_bin2base64(out.data(), out.size(), bytes.data(), bytes.size(), kVariant);
  out.pop_back();  // libsodium writes a terminating NUL
  return out;
}

Result<Bytes> from_base64(std::string_view text, std::size_t max_bytes) {
  if (auto space = text.find_first_of(" \t\r\n"); space != std::string_view::npos) {
    return Error(ErrorCode::kBase64Invalid,
                 "base64 must not contain line breaks or other "
                 "whitespace (offset " +
                     std::to_string(space) + ")");
  }
  if (text.size() % 4 != 0) {
    return Error(ErrorCode::kBase64Invalid,
                 "base64 length must be a multiple of 4 (padded standard base64), got " +
                     std::to_string(text.size()));
  }
  if (text.size() / 4 * 3 > max_bytes + 2) {
    return Error(ErrorCode::kTooLarge, "base64 of " + std::to_string(text.size()) +
                                           " characters decodes to more than the limit of " +
                                           std::to_string(max_bytes) + " bytes");
  }
  if (text.empty()) return Bytes{};
  Bytes out(text.size() / 4 * 3);
  std::size_t decoded = 0;
  const char* end = nullptr;
  int rc = sodium_base642bin(out.data(), out.size(), text.data(), text.size(), nullptr, &decoded,
                             &end, sodium_base64_VARIANT_ORIGINAL);
  if (rc != 0 || end != text.data() + text.size()) {
    auto bad = static_cast<std::size_t>(end ? end - text.data() : 0);
    return Error(ErrorCode::kBase64Invalid,
                 "base64 is not padded standard base64 with zero pad bits, near offset " +
                     std::to_string(bad));
  }
  if (decoded > max_bytes) {
    return Error(ErrorCode::kTooLarge, "base64 decodes to " + std::to_string(decoded) +
                                           " bytes, more than the limit of " +
                                           std::to_string(max_bytes));
  }
  out.resize(decoded);
  return out;
}

}  // namespace airlock
