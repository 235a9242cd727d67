#include <sodium.h>

#include <airlock/common/ed25519.h>

namespace airlock {

static_assert(crypto_sign_SEEDBYTES == kEd25519SeedBytes);
static_assert(crypto_sign_PUBLICKEYBYTES == PublicKey::kSize);
static_assert(crypto_sign_BYTES == Signature::kSize);

Result<Keypair> Keypair::from_seed(std::span<const std::uint8_t> seed) {
  if (seed.size() != kEd25519SeedBytes) {
    return Error(ErrorCode::kWrongLength,
                 "Ed25519 seed must be 32 bytes, got " + std::to_string(seed.size()));
  }
  auto secret = SecretBytes::allocate(crypto_sign_SECRETKEYBYTES);
  if (!secret.ok()) return std::move(secret).error();
  PublicKey public_key;
  crypto_sign_seed_keypair(public_key.bytes.data(), secret->bytes().data(), seed.data());
  return Keypair(std::move(secret).value(), public_key);
}

Signature Keypair::sign(ByteView message) const {
  Signature signature;
  crypto_sign_detached(signature.bytes.data(), nullptr, message.data(), message.size(),
                       secret_.bytes().data());
  return signature;
}

bool verify_signature(const PublicKey& key, ByteView message, const Signature& signature) {
  if (!crypto_init().ok()) return false;
  return crypto_sign_verify_detached(signature.bytes.data(), message.data(), message.size(),
                                     key.bytes.data()) == 0;
}

}  // namespace airlock
