// The keystore: one file holding the manager key, encrypted under a passphrase.
//
// File (JSON): {"header": "<header JSON text>", "ciphertext": "<base64>"}. The header text names
// the format version, the KDF (Argon2id, libsodium crypto_pwhash) with its limits and salt, the
// cipher (XChaCha20-Poly1305) and nonce, the public key, and where the key came from (generated,
// a BIP39 mnemonic and path, or a Solana CLI keypair file). The exact header bytes are the
// AEAD's associated data, so any change to them makes decryption fail. The plaintext is the
// 32-byte Ed25519 seed.
#pragma once

#include <optional>
#include <string>

#include <airlock/common/ed25519.h>
#include <airlock/common/error.h>
#include <airlock/common/secret.h>
#include <airlock/hardening/locked_down.h>

namespace airlock::offline {

// This module's error codes (their kinds and the exit codes: common/error.h).
namespace errors {
// The keystore does not open (a wrong passphrase, or an altered file): nothing was decided.
inline constexpr ErrorCode kKeystoreLocked{ErrorKind::kIo, "keystore.locked"};
// A keystore file that breaks its format: damaged, or not a keystore.
inline constexpr ErrorCode kKeystoreInvalid{ErrorKind::kCorruption, "keystore.invalid"};
}  // namespace errors

inline constexpr int kKeystoreVersion = 1;

struct KdfLimits {
  unsigned long long opslimit;
  std::size_t memlimit;
};
// Writing uses the moderate limits (about 0.7 s and 256 MiB); reading refuses anything weaker
// than interactive, so a tampered or careless file cannot make the passphrase cheap to guess.
[[nodiscard]] KdfLimits default_kdf_limits();
[[nodiscard]] KdfLimits minimum_kdf_limits();

struct KeyOrigin {
  std::string source;               // "generated", "bip39", "slip39", "solana-keypair-file"
  std::optional<std::string> path;  // BIP39 or SLIP-0039 derivation path
};

struct KeystoreInfo {
  PublicKey public_key;
  KeyOrigin origin;
  std::string created;  // ISO 8601 UTC
  KdfLimits kdf{};
};

// Encrypts `seed` (32 bytes) under `passphrase` and writes the file atomically with mode 0600.
// Refuses to overwrite an existing file.
[[nodiscard]] Status write_keystore(const std::string& path, const SecretBytes& seed,
                                    const SecretBytes& passphrase, const KeyOrigin& origin,
                                    KdfLimits limits);

// The header, without the passphrase (for `pubkey`). Fails on a malformed file.
[[nodiscard]] Result<KeystoreInfo> read_keystore_info(const std::string& path);
// The same from the file's text (what read_keystore_info checks, without reading a file).
[[nodiscard]] Result<KeystoreInfo> parse_keystore_info(std::string_view text);

// Decrypts the key. A wrong passphrase and an altered file are the same failure to the AEAD:
// "cannot decrypt: wrong passphrase, or the file was altered". The public key in the header
// must match the decrypted seed's. Only a process under the syscall allowlist opens a keystore
// (`locked`, hardening/locked_down.h), as for the two below.
[[nodiscard]] Result<Keypair> open_keystore(const std::string& path, const SecretBytes& passphrase,
                                            const hardening::LockedDown& locked);

// The decrypted 32-byte seed, with the same checks as open_keystore.
[[nodiscard]] Result<SecretBytes> open_keystore_seed(const std::string& path,
                                                     const SecretBytes& passphrase,
                                                     const hardening::LockedDown& locked);

// Re-encrypts the keystore under `new_passphrase` (fresh salt and nonce, `limits`), keeping the
// key, its origin and creation time: the new file is written beside and renamed over the old
// one, then the old file's bytes, still open, are overwritten with zeros.
[[nodiscard]] Status change_keystore_passphrase(const std::string& path,
                                                const SecretBytes& old_passphrase,
                                                const SecretBytes& new_passphrase, KdfLimits limits,
                                                const hardening::LockedDown& locked);

// A fresh 32-byte seed from the operating system's random source.
[[nodiscard]] Result<SecretBytes> generate_seed();

}  // namespace airlock::offline
