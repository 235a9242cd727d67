// Ed25519 through libsodium: the ledger's signature scheme.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>
#include <airlock/common/secret.h>

namespace airlock {

inline constexpr std::size_t kEd25519SeedBytes = 32;

// A signing key: the 32-byte seed and its public key. The secret half lives only in SecretBytes.
class Keypair {
 public:
  // Derives the keypair from a 32-byte seed (what Solana CLI keypair files and SLIP-0010
  // derivation produce). Fails with kWrongLength for another size.
  [[nodiscard]] static Result<Keypair> from_seed(std::span<const std::uint8_t> seed);

  [[nodiscard]] const PublicKey& public_key() const noexcept { return public_key_; }
  // A deterministic Ed25519 signature (RFC 8032) over `message`.
  [[nodiscard]] Signature sign(ByteView message) const;

 private:
  Keypair(SecretBytes secret, const PublicKey& public_key)
      : secret_(std::move(secret)), public_key_(public_key) {}

  SecretBytes secret_;  // libsodium's 64-byte form: seed || public key
  PublicKey public_key_;
};

// Verifies `signature` by `key` over `message`. libsodium's verification is strict: it rejects
// a non-canonical S, a small-order or non-canonical public key or R.
[[nodiscard]] bool verify_signature(const PublicKey& key, ByteView message,
                                    const Signature& signature);

}  // namespace airlock
