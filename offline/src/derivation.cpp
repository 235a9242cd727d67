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
  return Error(ErrorCode::kBackupInvalid, "mnemonic: " + rule);
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

// PBKDF2-HMAC-SHA512 for a 64-byte output (one block), as BIP39 uses it.
void pbkdf2_sha512_one_block(ByteView password, ByteView salt, unsigned rounds,
                             std::uint8_t out[64]) {
  std::vector<std::uint8_t> salt_block(salt.begin(), salt.end());
  salt_block.insert(salt_block.end(), {0, 0, 0, 1});  // block index 1, big-endian
  std::uint8_t u[64];
  hmac_sha512(password, salt_block, {}, u);
  std::memcpy(out, u, 64);
  for (unsigned i = 1; i < rounds; ++i) {
    hmac_sha512(password, ByteView(u, 64), {}, u);
    for (int k = 0; k < 64; ++k) out[k] ^= u[k];
  }
  sodium_memzero(u, sizeof u);
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) words.push_back(text.substr(i, j - i));
    i = j;
  }
  return words;
}

}  // namespace

Result<SecretBytes> mnemonic_to_seed(std::string_view mnemonic, std::string_view passphrase) {
  if (auto s = crypto_init(); !s.ok()) return s.error();
  const auto words = split_words(mnemonic);
  if (words.size() < 12 || words.size() > 24 || words.size() % 3 != 0) {
    return bad_mnemonic("must be 12, 15, 18, 21 or 24 words, got " + std::to_string(words.size()));
  }
  // 11 bits a word: entropy then a checksum of entropy_bits / 32 bits (the first bits of its
  // SHA-256).
  std::vector<bool> bits;
  for (std::size_t w = 0; w < words.size(); ++w) {
    const int index = bip39_word_index(words[w]);
    if (index < 0)
      return bad_mnemonic("word " + std::to_string(w + 1) + " is not in the BIP39 English list");
    for (int b = 10; b >= 0; --b) bits.push_back(((index >> b) & 1) != 0);
  }
  const std::size_t checksum_bits = bits.size() / 33;
  const std::size_t entropy_bits = bits.size() - checksum_bits;
  std::vector<std::uint8_t> entropy(entropy_bits / 8, 0);
  for (std::size_t i = 0; i < entropy_bits; ++i) {
    if (bits[i]) entropy[i / 8] = static_cast<std::uint8_t>(entropy[i / 8] | (0x80 >> (i % 8)));
  }
  std::uint8_t hash[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(hash, entropy.data(), entropy.size());
  sodium_memzero(entropy.data(), entropy.size());
  for (std::size_t i = 0; i < checksum_bits; ++i) {
    if (bits[entropy_bits + i] != (((hash[i / 8] >> (7 - i % 8)) & 1) != 0)) {
      return bad_mnemonic("checksum does not match; a word is wrong or out of order");
    }
  }
  if (!std::all_of(passphrase.begin(), passphrase.end(),
                   [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return Error(ErrorCode::kBackupInvalid,
                 "passphrase: must be ASCII; non-ASCII passphrases need Unicode normalisation this "
                 "build does not do");
  }
  // The normalised mnemonic: the words joined by single spaces.
  AIRLOCK_TRY(joined, SecretBytes::allocate(mnemonic.size() + 1));
  std::size_t n = 0;
  for (std::size_t w = 0; w < words.size(); ++w) {
    if (w != 0) joined.bytes()[n++] = ' ';
    std::memcpy(joined.bytes().data() + n, words[w].data(), words[w].size());
    n += words[w].size();
  }
  AIRLOCK_TRY(salt, SecretBytes::allocate(8 + passphrase.size()));
  std::memcpy(salt.bytes().data(), "mnemonic", 8);
  std::memcpy(salt.bytes().data() + 8, passphrase.data(), passphrase.size());
  AIRLOCK_TRY(seed, SecretBytes::allocate(64));
  pbkdf2_sha512_one_block(joined.bytes().first(n), salt.bytes(), kBip39Rounds, seed.bytes().data());
  return seed;
}

Result<SecretBytes> derive_ed25519(const SecretBytes& seed, const keystone::DerivationPath& path) {
  static constexpr std::string_view kCurve = "ed25519 seed";
  AIRLOCK_TRY(node, SecretBytes::allocate(64));  // key (32) || chain code (32)
  hmac_sha512(ByteView(reinterpret_cast<const std::uint8_t*>(kCurve.data()), kCurve.size()),
              seed.bytes(), {}, node.bytes().data());
  for (const auto& [index, hardened] : path.components) {
    if (!hardened) {
      return Error(ErrorCode::kBackupInvalid,
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

Result<SecretBytes> seed_from_solana_keypair_json(std::string_view text) {
  // [n0, n1, ..., n63]: parsed by hand so no copy of the secret lands in a JSON library's memory.
  AIRLOCK_TRY(bytes, SecretBytes::allocate(64));
  std::size_t count = 0, i = 0;
  const auto skip_space = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  const Error shape(
      ErrorCode::kBackupInvalid,
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
    return Error(ErrorCode::kBackupInvalid,
                 "keypair file: its public half does not match its secret half");
  }
  return seed;
}

}  // namespace airlock::offline
