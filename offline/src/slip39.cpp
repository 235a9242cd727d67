#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <utility>

#include <sodium.h>

#include <airlock/common/bytes.h>
#include <airlock/offline/derivation.h>
#include <airlock/offline/slip39.h>

#include "slip39_words.h"

namespace airlock::offline::slip39 {
namespace {

// Share layout (big-endian bits): identifier 15, extendable 1, iteration exponent 4, group index 4,
// group threshold - 1 4, group count - 1 4, member index 4, member threshold - 1 4 (40 bits, four
// words), then the share value left-padded with zero bits to whole words, then a three-word RS1024
// checksum.
constexpr std::size_t kWordBits = 10;
constexpr std::size_t kHeaderWords = 4;
constexpr std::size_t kChecksumWords = 3;
constexpr std::size_t kHeaderBits = kHeaderWords * kWordBits;
constexpr std::size_t value_words(std::size_t bytes) {
  return (bytes * 8 + kWordBits - 1) / kWordBits;
}
constexpr std::size_t kMinWords = kHeaderWords + value_words(kMinSecretBytes) + kChecksumWords;
constexpr std::size_t kMaxWords = kHeaderWords + value_words(kMaxSecretBytes) + kChecksumWords;
// Padding is what is left over after whole 16-bit units; more than 8 bits would be a whole byte.
constexpr std::size_t kMaxPaddingBits = 8;

// The two customization strings: the checksum's, and (non-extendable only) the salt prefix.
constexpr std::string_view kShamir = "shamir";
constexpr std::string_view kShamirExtendable = "shamir_extendable";

// SplitSecret keeps the secret at x = 255 and its digest at x = 254, so no share index (0..15) can
// ever stand for the secret itself.
constexpr std::uint8_t kSecretIndex = 255;
constexpr std::uint8_t kDigestIndex = 254;
constexpr std::size_t kDigestBytes = 4;

// The Feistel cipher: four rounds of PBKDF2, 10000 << e iterations shared between them.
constexpr std::uint8_t kRounds = 4;
constexpr std::uint32_t kBaseIterationsPerRound = 2500;

Error bad(std::string message) {
  return Error(offline::errors::kBackupInvalid, std::move(message));
}

std::string share_name(std::size_t i) { return "share " + std::to_string(i + 1); }

// --- Words

char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Compares typed text (any case) with a list word, without copying the typed text anywhere.
int compare_typed(std::string_view typed, std::string_view word) {
  const std::size_t n = std::min(typed.size(), word.size());
  for (std::size_t i = 0; i < n; ++i) {
    const char a = to_lower(typed[i]);
    if (a != word[i]) return a < word[i] ? -1 : 1;
  }
  if (typed.size() == word.size()) return 0;
  return typed.size() < word.size() ? -1 : 1;
}

const std::string_view* first_not_below(std::string_view typed) {
  return std::lower_bound(
      kWords.begin(), kWords.end(), typed,
      [](std::string_view w, std::string_view t) { return compare_typed(t, w) > 0; });
}

int word_index(std::string_view typed) {
  const auto* it = first_not_below(typed);
  if (it == kWords.end() || compare_typed(typed, *it) != 0) return -1;
  return static_cast<int>(it - kWords.begin());
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Calls f(word) for each whitespace-separated word; returns how many there were.
template <class F>
std::size_t for_each_word(std::string_view text, F&& f) {
  std::size_t count = 0, i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    std::size_t j = i;
    while (j < text.size() && !is_space(text[j])) ++j;
    if (j > i) {
      f(text.substr(i, j - i));
      ++count;
    }
    i = j;
  }
  return count;
}

// --- Bit strings

std::uint32_t get_bits(std::span<const std::uint8_t> buf, std::size_t pos, std::size_t len) {
  std::uint32_t v = 0;
  for (std::size_t i = pos; i < pos + len; ++i)
    v = (v << 1) | ((static_cast<unsigned>(buf[i / 8]) >> (7 - i % 8)) & 1U);
  return v;
}

void put_bits(std::span<std::uint8_t> buf, std::size_t pos, std::size_t len, std::uint32_t v) {
  for (std::size_t i = 0; i < len; ++i) {
    const std::size_t at = pos + i;
    const auto bit = static_cast<std::uint8_t>(((v >> (len - 1 - i)) & 1U) << (7 - at % 8));
    buf[at / 8] = static_cast<std::uint8_t>((buf[at / 8] & ~(1U << (7 - at % 8))) | bit);
  }
}

// --- RS1024 checksum (the spec's rs1024_polymod)

class Rs1024 {
 public:
  explicit Rs1024(bool extendable) {
    for (const char c : extendable ? kShamirExtendable : kShamir)
      feed(static_cast<std::uint8_t>(c));
  }
  void feed(std::uint32_t value) {
    static constexpr std::array<std::uint32_t, 10> kGen = {
        0xE0E040,   0x1C1C080,  0x3838100,  0x7070200,  0xE0E0009,
        0x1C0C2412, 0x38086C24, 0x3090FC48, 0x21B1F890, 0x3F3F120};
    const std::uint32_t top = chk_ >> 20;
    chk_ = ((chk_ & 0xFFFFF) << 10) ^ value;
    for (std::size_t i = 0; i < kGen.size(); ++i) {
      if ((top >> i) & 1U) chk_ ^= kGen[i];
    }
  }
  [[nodiscard]] std::uint32_t value() const { return chk_; }

 private:
  std::uint32_t chk_ = 1;
};

// --- GF(256) with the Rijndael polynomial, and Lagrange interpolation

// Shift-and-add with masks instead of log tables, so no table lookup is indexed by secret bytes.
std::uint8_t gf_mul(std::uint8_t a, std::uint8_t b) {
  unsigned r = 0, x = a;
  for (unsigned i = 0; i < 8; ++i) {
    r ^= x & (0U - ((static_cast<unsigned>(b) >> i) & 1U));
    x <<= 1;
    x ^= 0x11BU & (0U - (x >> 8));
  }
  return static_cast<std::uint8_t>(r);
}

// a^254 = a^-1 for a != 0.
std::uint8_t gf_inv(std::uint8_t a) {
  std::uint8_t power = a, result = 1;
  for (int i = 0; i < 7; ++i) {
    power = gf_mul(power, power);
    result = gf_mul(result, power);
  }
  return result;
}

struct Point {
  std::uint8_t x;
  ByteView y;
};

// out = f(x) for the polynomial through `points`, byte by byte. The x values must differ.
void interpolate(std::uint8_t x, std::span<const Point> points, std::span<std::uint8_t> out) {
  std::fill(out.begin(), out.end(), 0);
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::uint8_t basis = 1;
    for (std::size_t j = 0; j < points.size(); ++j) {
      if (j == i) continue;
      basis = gf_mul(basis, gf_mul(x ^ points[j].x, gf_inv(points[i].x ^ points[j].x)));
    }
    for (std::size_t k = 0; k < out.size(); ++k) out[k] ^= gf_mul(basis, points[i].y[k]);
  }
}

// --- Hashes

// The first four bytes of HMAC-SHA256(key = random part, msg = secret).
void digest_of(ByteView random_part, ByteView secret, std::uint8_t out[kDigestBytes]) {
  std::uint8_t mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_state state;
  crypto_auth_hmacsha256_init(&state, random_part.data(), random_part.size());
  crypto_auth_hmacsha256_update(&state, secret.data(), secret.size());
  crypto_auth_hmacsha256_final(&state, mac);
  std::memcpy(out, mac, kDigestBytes);
  sodium_memzero(mac, sizeof mac);
  sodium_memzero(&state, sizeof state);
}

// PBKDF2-HMAC-SHA256 (RFC 8018). The keyed HMAC state is made once and copied for every iteration,
// which halves the work of re-keying.
void pbkdf2_sha256(ByteView password, ByteView salt, std::uint32_t iterations,
                   std::span<std::uint8_t> out) {
  crypto_auth_hmacsha256_state keyed, state;
  crypto_auth_hmacsha256_init(&keyed, password.data(), password.size());
  std::uint8_t u[crypto_auth_hmacsha256_BYTES], t[crypto_auth_hmacsha256_BYTES];
  for (std::uint32_t block = 1, done = 0; done < out.size(); ++block) {
    const std::uint8_t index[4] = {
        static_cast<std::uint8_t>(block >> 24), static_cast<std::uint8_t>(block >> 16),
        static_cast<std::uint8_t>(block >> 8), static_cast<std::uint8_t>(block)};
    state = keyed;
    crypto_auth_hmacsha256_update(&state, salt.data(), salt.size());
    crypto_auth_hmacsha256_update(&state, index, sizeof index);
    crypto_auth_hmacsha256_final(&state, u);
    std::memcpy(t, u, sizeof t);
    for (std::uint32_t i = 1; i < iterations; ++i) {
      state = keyed;
      crypto_auth_hmacsha256_update(&state, u, sizeof u);
      crypto_auth_hmacsha256_final(&state, u);
      for (std::size_t k = 0; k < sizeof t; ++k) t[k] ^= u[k];
    }
    const std::size_t take = std::min(sizeof t, out.size() - done);
    std::memcpy(out.data() + done, t, take);
    done += static_cast<std::uint32_t>(take);
  }
  sodium_memzero(u, sizeof u);
  sodium_memzero(t, sizeof t);
  sodium_memzero(&keyed, sizeof keyed);
  sodium_memzero(&state, sizeof state);
}

// --- Encryption of the master secret

// The spec's four-round Feistel network; decryption runs the rounds in reverse order.
Result<SecretBytes> feistel(ByteView input, std::string_view passphrase, std::uint8_t exponent,
                            std::uint16_t identifier, bool extendable, bool decrypt) {
  const std::size_t half = input.size() / 2;
  AIRLOCK_TRY(left, SecretBytes::allocate(half));
  AIRLOCK_TRY(right, SecretBytes::allocate(half));
  AIRLOCK_TRY(round_out, SecretBytes::allocate(half));
  std::memcpy(left.bytes().data(), input.data(), half);
  std::memcpy(right.bytes().data(), input.data() + half, half);
  // Password = round number (one byte) || passphrase.
  AIRLOCK_TRY(password, SecretBytes::allocate(1 + passphrase.size()));
  std::memcpy(password.bytes().data() + 1, passphrase.data(), passphrase.size());
  // Salt = "shamir" || identifier (big-endian) || R, or just R for extendable sets.
  const std::size_t prefix = extendable ? 0 : kShamir.size() + 2;
  AIRLOCK_TRY(salt, SecretBytes::allocate(prefix + half));
  if (!extendable) {
    std::memcpy(salt.bytes().data(), kShamir.data(), kShamir.size());
    salt.bytes()[kShamir.size()] = static_cast<std::uint8_t>(identifier >> 8);
    salt.bytes()[kShamir.size() + 1] = static_cast<std::uint8_t>(identifier);
  }
  const std::uint32_t iterations = kBaseIterationsPerRound << exponent;
  for (std::uint8_t r = 0; r < kRounds; ++r) {
    password.bytes()[0] = decrypt ? static_cast<std::uint8_t>(kRounds - 1 - r) : r;
    std::memcpy(salt.bytes().data() + prefix, right.bytes().data(), half);
    pbkdf2_sha256(password.bytes(), salt.bytes(), iterations, round_out.bytes());
    for (std::size_t k = 0; k < half; ++k) left.bytes()[k] ^= round_out.bytes()[k];
    std::swap(left, right);  // (L, R) = (R, L xor F(i, R))
  }
  AIRLOCK_TRY(output, SecretBytes::allocate(input.size()));  // R || L
  std::memcpy(output.bytes().data(), right.bytes().data(), half);
  std::memcpy(output.bytes().data() + half, left.bytes().data(), half);
  return output;
}

// --- One level of sharing

// The spec's SplitSecret: shares for x = 0 .. count-1. With threshold t >= 2, t-2 shares are random
// and the rest follow from them, the digest at 254 and the secret at 255.
Result<std::vector<SecretBytes>> split_secret(std::uint8_t threshold, std::uint8_t count,
                                              ByteView secret, const RandomFill& random) {
  std::vector<SecretBytes> shares;
  if (threshold == 1) {
    for (std::uint8_t i = 0; i < count; ++i) {
      AIRLOCK_TRY(share, SecretBytes::copy_of(secret));
      shares.push_back(std::move(share));
    }
    return shares;
  }
  const std::size_t n = secret.size();
  const std::size_t random_shares = threshold - 2U;
  // The value at x = 254: the digest (4 bytes) || a random part (n - 4 bytes).
  AIRLOCK_TRY(digest, SecretBytes::allocate(n));
  random(digest.bytes().subspan(kDigestBytes));
  digest_of(digest.bytes().subspan(kDigestBytes), secret, digest.bytes().data());
  AIRLOCK_TRY(randoms, SecretBytes::allocate(random_shares * n));
  random(randoms.bytes());
  std::vector<Point> points;
  for (std::size_t i = 0; i < random_shares; ++i)
    points.push_back({static_cast<std::uint8_t>(i), randoms.bytes().subspan(i * n, n)});
  points.push_back({kDigestIndex, digest.bytes()});
  points.push_back({kSecretIndex, secret});
  for (std::uint8_t i = 0; i < count; ++i) {
    AIRLOCK_TRY(share, SecretBytes::allocate(n));
    interpolate(i, points, share.bytes());
    shares.push_back(std::move(share));
  }
  return shares;
}

// The spec's RecoverSecret. `who` names the level in the error ("group 2", "groups'").
Result<SecretBytes> recover_secret(std::uint8_t threshold, std::span<const Point> points,
                                   const std::string& who) {
  if (threshold == 1) return SecretBytes::copy_of(points.front().y);
  const std::size_t n = points.front().y.size();
  AIRLOCK_TRY(secret, SecretBytes::allocate(n));
  AIRLOCK_TRY(digest, SecretBytes::allocate(n));
  interpolate(kSecretIndex, points, secret.bytes());
  interpolate(kDigestIndex, points, digest.bytes());
  std::uint8_t expected[kDigestBytes];
  digest_of(digest.bytes().subspan(kDigestBytes), secret.bytes(), expected);
  const bool match = sodium_memcmp(expected, digest.bytes().data(), kDigestBytes) == 0;
  sodium_memzero(expected, sizeof expected);
  if (!match) {
    return bad("shares: " + who +
               " digest does not verify; a share is wrong, from another set, or forged");
  }
  return secret;
}

// --- Share mnemonics

struct Share {
  ShareInfo info;
  SecretBytes value;
};

Status check_passphrase(std::string_view passphrase) {
  for (const char c : passphrase) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 32 || u > 126) {
      return bad("passphrase: SLIP-0039 allows printable ASCII only (codes 32 to 126)");
    }
  }
  return {};
}

// Writes one share as words joined by single spaces.
Result<SecretBytes> encode_share(const ShareInfo& info, ByteView value) {
  const std::size_t words = kHeaderWords + value_words(value.size()) + kChecksumWords;
  const std::size_t padding = value_words(value.size()) * kWordBits - value.size() * 8;
  AIRLOCK_TRY(bits, SecretBytes::allocate((words * kWordBits + 7) / 8));
  const auto b = bits.bytes();
  put_bits(b, 0, 15, info.identifier);
  put_bits(b, 15, 1, info.extendable ? 1 : 0);
  put_bits(b, 16, 4, info.iteration_exponent);
  put_bits(b, 20, 4, info.group_index);
  put_bits(b, 24, 4, info.group_threshold - 1U);
  put_bits(b, 28, 4, info.group_count - 1U);
  put_bits(b, 32, 4, info.member_index);
  put_bits(b, 36, 4, info.member_threshold - 1U);
  for (std::size_t k = 0; k < value.size(); ++k)
    put_bits(b, kHeaderBits + padding + 8 * k, 8, value[k]);
  Rs1024 checksum(info.extendable);
  const std::size_t data_words = words - kChecksumWords;
  for (std::size_t w = 0; w < data_words; ++w) checksum.feed(get_bits(b, w * kWordBits, kWordBits));
  for (std::size_t w = 0; w < kChecksumWords; ++w) checksum.feed(0);
  const std::uint32_t tail = checksum.value() ^ 1;
  for (std::size_t w = 0; w < kChecksumWords; ++w) {
    put_bits(b, (data_words + w) * kWordBits, kWordBits,
             (tail >> (kWordBits * (kChecksumWords - 1 - w))) & 0x3FF);
  }
  std::size_t length = words - 1;  // the spaces
  for (std::size_t w = 0; w < words; ++w)
    length += kWords[get_bits(b, w * kWordBits, kWordBits)].size();
  AIRLOCK_TRY(text, SecretBytes::allocate(length));
  std::size_t at = 0;
  for (std::size_t w = 0; w < words; ++w) {
    if (w != 0) text.bytes()[at++] = ' ';
    const std::string_view word = kWords[get_bits(b, w * kWordBits, kWordBits)];
    std::memcpy(text.bytes().data() + at, word.data(), word.size());
    at += word.size();
  }
  return text;
}

// Reads and checks one share; `who` names it in errors ("share 3").
Result<Share> decode_share(std::string_view mnemonic, const std::string& who) {
  const std::size_t words = for_each_word(mnemonic, [](std::string_view) {});
  if (words < kMinWords || words > kMaxWords) {
    return bad(who + ": has " + std::to_string(words) + " words; a share has " +
               std::to_string(kMinWords) + " to " + std::to_string(kMaxWords));
  }
  // The words' 10-bit values, packed big-endian.
  AIRLOCK_TRY(bits, SecretBytes::allocate((words * kWordBits + 7) / 8));
  const auto b = bits.bytes();
  std::size_t w = 0, unknown = 0;
  for_each_word(mnemonic, [&](std::string_view word) {
    const int index = word_index(word);
    if (index < 0 && unknown == 0) unknown = w + 1;
    put_bits(b, w++ * kWordBits, kWordBits, index < 0 ? 0 : static_cast<std::uint32_t>(index));
  });
  if (unknown != 0) {
    return bad(who + ": word " + std::to_string(unknown) + " is not in the SLIP-0039 word list");
  }
  ShareInfo info{};
  info.identifier = static_cast<std::uint16_t>(get_bits(b, 0, 15));
  info.extendable = get_bits(b, 15, 1) != 0;
  info.iteration_exponent = static_cast<std::uint8_t>(get_bits(b, 16, 4));
  info.group_index = static_cast<std::uint8_t>(get_bits(b, 20, 4));
  info.group_threshold = static_cast<std::uint8_t>(get_bits(b, 24, 4) + 1);
  info.group_count = static_cast<std::uint8_t>(get_bits(b, 28, 4) + 1);
  info.member_index = static_cast<std::uint8_t>(get_bits(b, 32, 4));
  info.member_threshold = static_cast<std::uint8_t>(get_bits(b, 36, 4) + 1);
  info.words = words;

  Rs1024 checksum(info.extendable);
  for (std::size_t i = 0; i < words; ++i) checksum.feed(get_bits(b, i * kWordBits, kWordBits));
  if (checksum.value() != 1) {
    return bad(who + ": checksum does not verify; a word is wrong, missing or out of order");
  }
  const std::size_t value_bits = (words - kHeaderWords - kChecksumWords) * kWordBits;
  const std::size_t padding = value_bits % 16;
  if (padding > kMaxPaddingBits) {
    return bad(who + ": " + std::to_string(words) +
               " words do not hold a whole number of 16-bit units (padding would be " +
               std::to_string(padding) + " bits, at most 8 allowed)");
  }
  if (get_bits(b, kHeaderBits, padding) != 0) return bad(who + ": padding bits are not zero");
  if (info.group_threshold > info.group_count) {
    return bad(who + ": group threshold " + std::to_string(info.group_threshold) +
               " is greater than the group count " + std::to_string(info.group_count));
  }
  const std::size_t n = (value_bits - padding) / 8;
  AIRLOCK_TRY(value, SecretBytes::allocate(n));
  for (std::size_t k = 0; k < n; ++k)
    value.bytes()[k] = static_cast<std::uint8_t>(get_bits(b, kHeaderBits + padding + 8 * k, 8));
  return Share{info, std::move(value)};
}

Status check_options(const SecretBytes& secret, const SplitOptions& o) {
  if (secret.size() < kMinSecretBytes || secret.size() > kMaxSecretBytes || secret.size() % 2) {
    return bad(
        "master secret: must be 16 to 64 bytes, an even number (128 to 512 bits in 16-bit "
        "steps), got " +
        std::to_string(secret.size()) + " bytes");
  }
  if (o.iteration_exponent > kMaxIterationExponent) {
    return bad("iteration_exponent: must be 0 to 15 (a 4-bit field)");
  }
  if (o.groups.empty() || o.groups.size() > kMaxGroups) {
    return bad("groups: must be 1 to 16, got " + std::to_string(o.groups.size()));
  }
  if (o.group_threshold < 1 || o.group_threshold > o.groups.size()) {
    return bad("group_threshold: must be 1 to the number of groups (" +
               std::to_string(o.groups.size()) + "), got " + std::to_string(o.group_threshold));
  }
  for (std::size_t g = 0; g < o.groups.size(); ++g) {
    const auto [threshold, count] = o.groups[g];
    const std::string who = "groups[" + std::to_string(g) + "]: ";
    if (count < 1 || count > kMaxMembers) return bad(who + "member count must be 1 to 16");
    if (threshold < 1 || threshold > count) {
      return bad(who + "member threshold must be 1 to the member count");
    }
    // The spec's advice: copies of one share add nothing over a 1-of-1 group.
    if (threshold == 1 && count > 1) {
      return bad(who + "a member threshold of 1 needs a member count of 1");
    }
  }
  return {};
}

}  // namespace

Result<std::vector<std::vector<SecretBytes>>> split(const SecretBytes& master_secret,
                                                    SecretText passphrase_text,
                                                    const SplitOptions& options,
                                                    const RandomFill& random) {
  const std::string_view passphrase = passphrase_text.view();
  AIRLOCK_CHECK(crypto_init());
  AIRLOCK_CHECK(check_options(master_secret, options));
  AIRLOCK_CHECK(check_passphrase(passphrase));
  if (!random) return Error(ErrorCode::kUsage, "split: no source of random bytes");
  std::array<std::uint8_t, 2> id_bytes{};
  random(id_bytes);
  const auto identifier = static_cast<std::uint16_t>(((id_bytes[0] << 8) | id_bytes[1]) & 0x7FFF);
  AIRLOCK_TRY(encrypted, feistel(master_secret.bytes(), passphrase, options.iteration_exponent,
                                 identifier, options.extendable, /*decrypt=*/false));
  const auto group_count = static_cast<std::uint8_t>(options.groups.size());
  AIRLOCK_TRY(group_shares,
              split_secret(options.group_threshold, group_count, encrypted.bytes(), random));
  std::vector<std::vector<SecretBytes>> out(group_count);
  for (std::uint8_t g = 0; g < group_count; ++g) {
    const GroupSpec spec = options.groups[g];
    AIRLOCK_TRY(members, split_secret(spec.threshold, spec.count, group_shares[g].bytes(), random));
    for (std::uint8_t m = 0; m < spec.count; ++m) {
      const ShareInfo info{identifier, options.extendable,      options.iteration_exponent,
                           g,          options.group_threshold, group_count,
                           m,          spec.threshold,          0};
      AIRLOCK_TRY(text, encode_share(info, members[m].bytes()));
      out[g].push_back(std::move(text));
    }
  }
  return out;
}

Result<SecretBytes> combine(const std::vector<SecretText>& mnemonics, SecretText passphrase_text) {
  const std::string_view passphrase = passphrase_text.view();
  AIRLOCK_CHECK(crypto_init());
  AIRLOCK_CHECK(check_passphrase(passphrase));
  if (mnemonics.empty()) return bad("shares: none given");
  if (mnemonics.size() > kMaxGroups * kMaxMembers) {
    return bad("shares: " + std::to_string(mnemonics.size()) + " given; a set has at most 256");
  }
  std::vector<Share> shares;
  for (std::size_t i = 0; i < mnemonics.size(); ++i) {
    AIRLOCK_TRY(share, decode_share(mnemonics[i].view(), share_name(i)));
    shares.push_back(std::move(share));
  }
  // Everything but the group and member fields must agree across the set.
  const ShareInfo& first = shares[0].info;
  for (std::size_t i = 1; i < shares.size(); ++i) {
    const ShareInfo& s = shares[i].info;
    const auto differ = [&](const char* what) {
      return bad("shares: " + std::string(what) + " differ (share 1 and " + share_name(i) +
                 "); they are not from the same set");
    };
    if (s.identifier != first.identifier) return differ("identifiers");
    if (s.extendable != first.extendable) return differ("extendable flags");
    if (s.iteration_exponent != first.iteration_exponent) return differ("iteration exponents");
    if (s.group_threshold != first.group_threshold) return differ("group thresholds");
    if (s.group_count != first.group_count) return differ("group counts");
    if (shares[i].value.size() != shares[0].value.size()) return differ("lengths");
  }
  // Shares by group index.
  std::array<std::vector<std::size_t>, kMaxGroups> groups;
  for (std::size_t i = 0; i < shares.size(); ++i) groups[shares[i].info.group_index].push_back(i);
  const auto groups_given = static_cast<std::size_t>(
      std::count_if(groups.begin(), groups.end(), [](const auto& g) { return !g.empty(); }));
  if (groups_given != first.group_threshold) {
    return bad("shares: " + std::to_string(first.group_threshold) + " groups needed, " +
               std::to_string(groups_given) + " given" +
               (groups_given > first.group_threshold ? " (give exactly the threshold)" : ""));
  }
  // The points view secure memory the SecretBytes own; moving a SecretBytes keeps its memory.
  std::vector<SecretBytes> group_secrets;
  std::vector<Point> group_points;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& members = groups[g];
    if (members.empty()) continue;
    const std::string group = "group " + std::to_string(g + 1);
    const std::uint8_t threshold = shares[members[0]].info.member_threshold;
    std::vector<Point> points;
    std::array<std::size_t, kMaxMembers> seen{};  // member index -> share number + 1
    for (const std::size_t i : members) {
      const ShareInfo& s = shares[i].info;
      if (s.member_threshold != threshold) {
        return bad("shares: " + group + " member thresholds differ (" + share_name(members[0]) +
                   " and " + share_name(i) + ")");
      }
      if (seen[s.member_index] != 0) {
        return bad("shares: " + group + " has member " + std::to_string(s.member_index + 1) +
                   " twice (" + share_name(seen[s.member_index] - 1) + " and " + share_name(i) +
                   ")");
      }
      seen[s.member_index] = i + 1;
      points.push_back({s.member_index, shares[i].value.bytes()});
    }
    if (members.size() != threshold) {
      return bad("shares: " + group + " needs " + std::to_string(threshold) + " shares, " +
                 std::to_string(members.size()) + " given" +
                 (members.size() > threshold ? " (give exactly the threshold)" : ""));
    }
    AIRLOCK_TRY(secret, recover_secret(threshold, points, group));
    group_secrets.push_back(std::move(secret));
    group_points.push_back({static_cast<std::uint8_t>(g), group_secrets.back().bytes()});
  }
  AIRLOCK_TRY(encrypted, recover_secret(first.group_threshold, group_points, "groups'"));
  return feistel(encrypted.bytes(), passphrase, first.iteration_exponent, first.identifier,
                 first.extendable, /*decrypt=*/true);
}

Result<ShareInfo> inspect(SecretText mnemonic) {
  AIRLOCK_TRY(share, decode_share(mnemonic.view(), "share"));
  return share.info;
}

bool is_word(SecretText word) { return word_index(word.view()) >= 0; }

std::vector<std::string_view> words_with_prefix(SecretText typed) {
  const std::string_view prefix = typed.view();
  std::vector<std::string_view> out;
  for (const auto* it = first_not_below(prefix); it != kWords.end(); ++it) {
    if (it->size() < prefix.size() || compare_typed(prefix, it->substr(0, prefix.size())) != 0)
      break;
    out.push_back(*it);
  }
  return out;
}

bool ShareSet::enough() const {
  if (infos_.empty()) return false;
  std::size_t complete = 0;
  for (const auto& [group, given] : members_)
    if (given.size() >= threshold_of(group)) ++complete;
  return complete >= infos_.front().group_threshold;
}

Status ShareSet::add(SecretBytes line, const ShareInfo& info) {
  const std::string which = "share " + std::to_string(shares_.size() + 1);
  if (!infos_.empty()) {
    const ShareInfo& first = infos_.front();
    if (info.identifier != first.identifier || info.extendable != first.extendable ||
        info.iteration_exponent != first.iteration_exponent ||
        info.group_threshold != first.group_threshold || info.group_count != first.group_count ||
        info.words != first.words) {
      return bad(which + ": not from the same set as share 1 (identifier or shape differs)");
    }
    for (const auto& earlier : infos_) {
      if (earlier.group_index != info.group_index) continue;
      if (earlier.member_threshold != info.member_threshold)
        return bad(which + ": its group's member threshold differs from an earlier share's");
      if (earlier.member_index == info.member_index) {
        return bad(which + ": repeats group " + std::to_string(info.group_index + 1) + " member " +
                   std::to_string(info.member_index + 1));
      }
    }
  }
  members_[info.group_index].insert(info.member_index);
  infos_.push_back(info);
  shares_.push_back(std::move(line));
  return {};
}

std::vector<SecretText> ShareSet::chosen() const {
  std::vector<SecretText> out;
  std::size_t groups_taken = 0;
  for (const auto& [group, given] : members_) {
    if (groups_taken == infos_.front().group_threshold) break;
    const std::size_t threshold = threshold_of(group);
    if (given.size() < threshold) continue;
    std::set<int> used;
    std::size_t taken = 0;
    for (std::size_t i = 0; i < infos_.size() && taken < threshold; ++i) {
      if (infos_[i].group_index != group || !used.insert(infos_[i].member_index).second) continue;
      out.emplace_back(shares_[i]);
      ++taken;
    }
    ++groups_taken;
  }
  if (out.empty()) {
    for (const auto& s : shares_) out.emplace_back(s);
  }
  return out;
}

// Every share of a group states the same member threshold (add checks it).
std::size_t ShareSet::threshold_of(int group) const {
  const auto it = std::find_if(infos_.begin(), infos_.end(),
                               [&](const ShareInfo& i) { return i.group_index == group; });
  return it == infos_.end() ? 0 : it->member_threshold;
}

}  // namespace airlock::offline::slip39
