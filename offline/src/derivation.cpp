#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <mutex>
#include <vector>

#include <sodium.h>

#include <airlock/offline/derivation.h>

#include "bip39_words.h"

namespace airlock::offline {
namespace {

Error bad_mnemonic(const std::string& rule) {
  return Error(offline::errors::kBackupInvalid, "mnemonic: " + rule);
}

// HMAC-SHA512 (libsodium) over a key and up to two message parts.
void hmac_sha512(ByteView key, ByteView a, ByteView b, std::uint8_t out[64]) {
  crypto_auth_hmacsha512_state state;
  crypto_auth_hmacsha512_init(&state, key.data(), key.size());
  crypto_auth_hmacsha512_update(&state, a.data(), a.size());
  if (!b.empty()) crypto_auth_hmacsha512_update(&state, b.data(), b.size());
  crypto_auth_hmacsha512_final(&state, out);
  sodium_memzero(&state, sizeof state);
}

// PBKDF2-HMAC-SHA512 for a 64-byte output (one block), as BIP39 uses it. The salt block and
// every intermediate live in secure memory or are wiped.
Status pbkdf2_sha512_one_block(ByteView password, ByteView salt, unsigned rounds,
                               std::uint8_t out[64]) {
  AIRLOCK_TRY(salt_block, SecretBytes::allocate(salt.size() + 4));
  std::memcpy(salt_block.bytes().data(), salt.data(), salt.size());
  salt_block.bytes()[salt.size() + 3] = 1;  // block index 1, big-endian
  AIRLOCK_TRY(u, SecretBytes::allocate(64));
  hmac_sha512(password, salt_block.bytes(), {}, u.bytes().data());
  std::memcpy(out, u.bytes().data(), 64);
  for (unsigned i = 1; i < rounds; ++i) {
    hmac_sha512(password, u.bytes(), {}, u.bytes().data());
    for (std::size_t k = 0; k < 64; ++k) out[k] ^= u.bytes()[k];
  }
  return {};
}

// Bit `i` (from the most significant of byte 0) of a buffer.
bool bit(std::span<const std::uint8_t> bytes, std::size_t i) {
  return ((bytes[i / 8] >> (7 - i % 8)) & 1) != 0;
}

}  // namespace

std::vector<SecretText> words_of_text(SecretText secret) {
  const std::string_view text = secret.view();
  std::vector<SecretText> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) words.push_back(secret.substr(i, j - i));
    i = j;
  }
  return words;
}

Result<SecretBytes> mnemonic_entropy(SecretText mnemonic) {
  if (auto s = crypto_init(); !s.ok()) return s.error();
  const auto words = words_of_text(mnemonic);
  if (words.size() < 12 || words.size() > 24 || words.size() % 3 != 0) {
    return bad_mnemonic("must be 12, 15, 18, 21 or 24 words, got " + std::to_string(words.size()));
  }
  // 11 bits a word: the entropy, then its SHA-256's first entropy_bits / 32 bits.
  AIRLOCK_TRY(packed, SecretBytes::allocate(33));
  std::size_t at = 0;
  for (std::size_t w = 0; w < words.size(); ++w) {
    // Words as typed, in any case: looked up in lower case (no English word exceeds 8 letters).
    const std::string_view word = words[w].view();
    char lower[9] = {};
    const std::size_t length = std::min<std::size_t>(word.size(), 9);
    for (std::size_t i = 0; i < length; ++i)
      lower[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(word[i])));
    const int index = word.size() > 8 ? -1 : bip39_word_index(std::string_view(lower, length));
    sodium_memzero(lower, sizeof lower);
    if (index < 0)
      return bad_mnemonic("word " + std::to_string(w + 1) + " is not in the BIP39 English list");
    for (int b = 10; b >= 0; --b, ++at) {
      if (((index >> b) & 1) != 0)
        packed.bytes()[at / 8] =
            static_cast<std::uint8_t>(packed.bytes()[at / 8] | (0x80 >> (at % 8)));
    }
  }
  const std::size_t checksum_bits = at / 33;
  const std::size_t entropy_bytes = (at - checksum_bits) / 8;
  AIRLOCK_TRY(entropy, SecretBytes::allocate(entropy_bytes));
  std::memcpy(entropy.bytes().data(), packed.bytes().data(), entropy_bytes);
  AIRLOCK_TRY(hash, SecretBytes::allocate(crypto_hash_sha256_BYTES));
  crypto_hash_sha256(hash.bytes().data(), entropy.bytes().data(), entropy_bytes);
  for (std::size_t i = 0; i < checksum_bits; ++i) {
    if (bit(packed.bytes(), entropy_bytes * 8 + i) != bit(hash.bytes(), i))
      return bad_mnemonic("checksum does not match; a word is wrong or out of order");
  }
  return entropy;
}

Result<SecretBytes> mnemonic_from_entropy(const SecretBytes& entropy) {
  if (auto s = crypto_init(); !s.ok()) return s.error();
  if (entropy.size() < 16 || entropy.size() > 32 || entropy.size() % 4 != 0)
    return Error(ErrorCode::kUsage, "entropy: must be 16, 20, 24, 28 or 32 bytes");
  AIRLOCK_TRY(packed, SecretBytes::allocate(33));
  std::memcpy(packed.bytes().data(), entropy.bytes().data(), entropy.size());
  AIRLOCK_TRY(hash, SecretBytes::allocate(crypto_hash_sha256_BYTES));
  crypto_hash_sha256(hash.bytes().data(), entropy.bytes().data(), entropy.size());
  packed.bytes()[entropy.size()] = hash.bytes()[0];  // the checksum is at most 8 bits
  const std::size_t words = entropy.size() * 8 * 33 / 32 / 11;
  AIRLOCK_TRY(text, SecretBytes::allocate(words * 9));  // the longest word has 8 letters
  std::size_t n = 0;
  for (std::size_t w = 0; w < words; ++w) {
    unsigned index = 0;
    for (std::size_t b = 0; b < 11; ++b)
      index = (index << 1) | (bit(packed.bytes(), w * 11 + b) ? 1U : 0U);
    if (w != 0) text.bytes()[n++] = ' ';
    const std::string_view word = kBip39Words[index];
    std::memcpy(text.bytes().data() + n, word.data(), word.size());
    n += word.size();
  }
  AIRLOCK_TRY(exact, SecretBytes::allocate(n));
  std::memcpy(exact.bytes().data(), text.bytes().data(), n);
  return exact;
}

Result<SecretBytes> mnemonic_to_seed(SecretText mnemonic, SecretText passphrase_text) {
  AIRLOCK_TRY(entropy, mnemonic_entropy(mnemonic));  // the words and their checksum
  const std::string_view passphrase = passphrase_text.view();
  if (!std::all_of(passphrase.begin(), passphrase.end(),
                   [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return Error(offline::errors::kBackupInvalid,
                 "passphrase: must be ASCII; non-ASCII passphrases need Unicode normalisation this "
                 "build does not do");
  }
  // The normalised mnemonic: the words joined by single spaces.
  const auto words = words_of_text(mnemonic);
  AIRLOCK_TRY(joined, SecretBytes::allocate(mnemonic.size() + 1));
  std::size_t n = 0;
  for (std::size_t w = 0; w < words.size(); ++w) {
    if (w != 0) joined.bytes()[n++] = ' ';
    for (const char c : words[w].view())
      joined.bytes()[n++] = static_cast<std::uint8_t>(std::tolower(static_cast<unsigned char>(c)));
  }
  AIRLOCK_TRY(salt, SecretBytes::allocate(8 + passphrase.size()));
  std::memcpy(salt.bytes().data(), "mnemonic", 8);
  std::memcpy(salt.bytes().data() + 8, passphrase.data(), passphrase.size());
  AIRLOCK_TRY(seed, SecretBytes::allocate(64));
  AIRLOCK_CHECK(pbkdf2_sha512_one_block(joined.bytes().first(n), salt.bytes(), kBip39Rounds,
                                        seed.bytes().data()));
  return seed;
}

Result<SecretBytes> derive_ed25519(const SecretBytes& seed, const keystone::DerivationPath& path) {
  static constexpr std::string_view kCurve = "ed25519 seed";
  AIRLOCK_TRY(node, SecretBytes::allocate(64));  // key (32) || chain code (32)
  hmac_sha512(text_bytes(kCurve), seed.bytes(), {}, node.bytes().data());
  for (const auto& [index, hardened] : path.components) {
    if (!hardened) {
      return Error(offline::errors::kBackupInvalid,
                   "derivation_path: Ed25519 allows hardened levels only ('" +
                       std::to_string(index) + "' needs an apostrophe)");
    }
    std::array<std::uint8_t, 37> data{};  // 0x00 || key || ser32(index + 2^31)
    std::memcpy(data.data() + 1, node.bytes().data(), 32);
    const std::uint32_t i = index | 0x80000000U;
    for (int b = 0; b < 4; ++b)
      data[33 + static_cast<std::size_t>(b)] = static_cast<std::uint8_t>(i >> (24 - 8 * b));
    AIRLOCK_TRY(child, SecretBytes::allocate(64));
    hmac_sha512(node.bytes().subspan(32, 32), data, {}, child.bytes().data());
    sodium_memzero(data.data(), data.size());
    node = std::move(child);
  }
  AIRLOCK_TRY(key, SecretBytes::allocate(32));
  std::memcpy(key.bytes().data(), node.bytes().data(), 32);
  return key;
}

Result<SecretBytes> seed_from_solana_keypair_json(SecretText secret) {
  const std::string_view text = secret.view();
  // [n0, n1, ..., n63]: parsed by hand so no copy of the secret lands in a JSON library's memory.
  AIRLOCK_TRY(bytes, SecretBytes::allocate(64));
  std::size_t count = 0, i = 0;
  const auto skip_space = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  const Error shape(
      offline::errors::kBackupInvalid,
      "keypair file: must be a JSON array of 64 numbers 0-255 (a Solana CLI keypair)");
  skip_space();
  if (i >= text.size() || text[i++] != '[') return shape;
  for (;;) {
    skip_space();
    unsigned value = 0;
    std::size_t digits = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && digits < 4) {
      value = value * 10 + static_cast<unsigned>(text[i++] - '0');
      ++digits;
    }
    if (digits == 0 || value > 255 || count == 64) return shape;
    bytes.bytes()[count++] = static_cast<std::uint8_t>(value);
    skip_space();
    if (i < text.size() && text[i] == ',') {
      ++i;
      continue;
    }
    if (i < text.size() && text[i] == ']') {
      ++i;
      break;
    }
    return shape;
  }
  skip_space();
  if (count != 64 || i != text.size()) return shape;
  AIRLOCK_TRY(seed, SecretBytes::allocate(32));
  std::memcpy(seed.bytes().data(), bytes.bytes().data(), 32);
  AIRLOCK_TRY(keypair, Keypair::from_seed(seed.bytes()));
  if (!std::equal(keypair.public_key().bytes.begin(), keypair.public_key().bytes.end(),
                  bytes.bytes().begin() + 32)) {
    return Error(offline::errors::kBackupInvalid,
                 "keypair file: its public half does not match its secret half");
  }
  return seed;
}

}  // namespace airlock::offline
