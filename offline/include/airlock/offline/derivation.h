// Deriving the manager key: BIP39 mnemonics and SLIP-0010 Ed25519 paths (what common wallets
// use for Solana, default m/44'/501'/0'/0'), and Solana CLI keypair files. Every secret stays in
// SecretBytes; errors never contain secret material.
#pragma once

#include <string_view>
#include <vector>

#include <airlock/common/ed25519.h>
#include <airlock/common/error.h>
#include <airlock/common/secret.h>
#include <airlock/formats/keystone.h>

namespace airlock::offline {

// This module's error codes (their kinds and the exit codes: common/error.h).
namespace errors {
// A recovery phrase or SLIP-0039 share that breaks a rule.
inline constexpr ErrorCode kBackupInvalid{ErrorKind::kInvalidInput, "backup.invalid"};
}  // namespace errors

inline constexpr std::string_view kDefaultDerivationPath = "m/44'/501'/0'/0'";
// PBKDF2-HMAC-SHA512 with 2048 rounds, as BIP39 fixes it.
inline constexpr unsigned kBip39Rounds = 2048;

// The 64-byte BIP39 seed. The mnemonic must be 12, 15, 18, 21 or 24 words of the English list
// with a valid checksum (single spaces or any whitespace between words). The passphrase is
// taken as ASCII: non-ASCII would need Unicode NFKD normalisation, which this build does not
// do, so it is refused rather than silently deriving a different key.
[[nodiscard]] Result<SecretBytes> mnemonic_to_seed(SecretText mnemonic, SecretText passphrase);

// The words of text separated by any whitespace, as views into it.
[[nodiscard]] std::vector<SecretText> words_of_text(SecretText text);

// The entropy a mnemonic encodes (16 to 32 bytes), after checking its words and checksum.
[[nodiscard]] Result<SecretBytes> mnemonic_entropy(SecretText mnemonic);

// The English BIP39 mnemonic of `entropy` (16, 20, 24, 28 or 32 bytes: 12 to 24 words), the
// words joined by single spaces.
[[nodiscard]] Result<SecretBytes> mnemonic_from_entropy(const SecretBytes& entropy);

// SLIP-0010 for Ed25519: the 32-byte key at `path`. Ed25519 allows only hardened levels. The
// seed is a BIP39 seed (64 bytes) or, for a SLIP-0039 backup, its master secret (16 to 64).
[[nodiscard]] Result<SecretBytes> derive_ed25519(const SecretBytes& seed,
                                                 const keystone::DerivationPath& path);

// A Solana CLI keypair file: a JSON array of 64 numbers, secret seed then public key. The public
// half must match the key the seed makes.
[[nodiscard]] Result<SecretBytes> seed_from_solana_keypair_json(SecretText json_text);

}  // namespace airlock::offline
