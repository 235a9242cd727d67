#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <vector>

#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <airlock/common/display.h>
#include <airlock/common/fd.h>
#include <airlock/formats/files.h>
#include <airlock/formats/json_fields.h>
#include <airlock/offline/keystore.h>

namespace airlock::offline {
namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxKeystoreBytes = 16384;
constexpr const char* kKdfId = "argon2id13";
constexpr const char* kCipherId = "xchacha20poly1305-ietf";

Error malformed(const std::string& rule) {
  return Error(offline::errors::kKeystoreInvalid, "keystore: " + rule);
}

std::string utc_now() {
  return iso_utc(std::chrono::duration_cast<std::chrono::seconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count());
}

// A header of the wrong shape is refused by rule, never by a JSON type exception.
using json_fields::member;

struct Parsed {
  std::string header_text;
  json header;
  Bytes ciphertext;
};

// `name` names the input in errors: the file's path.
Result<Parsed> parse_text(std::string_view text, const std::string& name) {
  if (text.size() > kMaxKeystoreBytes) return malformed("'" + name + "' is too large");
  const json file = json::parse(text, nullptr, false);
  if (file.is_discarded() || !file.is_object() || !file.contains("header") ||
      !file["header"].is_string() || !file.contains("ciphertext") ||
      !file["ciphertext"].is_string()) {
    return malformed("'" + name + "' is not an airlock keystore ({header, ciphertext})");
  }
  Parsed p;
  p.header_text = file["header"];
  p.header = json::parse(p.header_text, nullptr, false);
  if (p.header.is_discarded() || !p.header.is_object())
    return malformed("header: is not a JSON object");
  const json* version = member(p.header, "airlock_keystore");
  if (version == nullptr || !version->is_number_unsigned() ||
      version->get<std::uint64_t>() != static_cast<std::uint64_t>(kKeystoreVersion)) {
    return malformed("header.airlock_keystore: version " +
                     (version != nullptr ? version->dump() : std::string("(missing)")) +
                     " is not supported; this build reads version 1");
  }
  auto ct = from_base64(file["ciphertext"].get<std::string>(), 256);
  if (!ct.ok()) return malformed("ciphertext: " + ct.error().message());
  p.ciphertext = std::move(ct).value();
  return p;
}

Result<Parsed> parse_file(const std::string& path) {
  AIRLOCK_TRY(raw, files::read_limited(path, kMaxKeystoreBytes));
  return parse_text(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size()), path);
}

Result<KeystoreInfo> info_of(const json& h) {
  KeystoreInfo info;
  const json* kdf = member(h, "kdf");
  if (kdf == nullptr || json_fields::text(*kdf, "id") != kKdfId)
    return malformed("header.kdf.id: must be argon2id13");
  const json* ops = member(*kdf, "opslimit");
  const json* mem = member(*kdf, "memlimit");
  if (ops == nullptr || !ops->is_number_unsigned() || mem == nullptr ||
      !mem->is_number_unsigned()) {
    return malformed("header.kdf: opslimit and memlimit must be unsigned integers");
  }
  info.kdf = {ops->get<unsigned long long>(), mem->get<std::size_t>()};
  const json* cipher = member(h, "cipher");
  if (cipher == nullptr || json_fields::text(*cipher, "id") != kCipherId)
    return malformed("header.cipher.id: must be xchacha20poly1305-ietf");
  auto key = public_key_from_base58(json_fields::text(h, "public_key"));
  if (!key.ok()) return malformed("header.public_key: " + key.error().message());
  info.public_key = key.value();
  if (const json* origin = member(h, "origin")) {
    info.origin.source = json_fields::text(*origin, "source");
    if (const json* path = member(*origin, "path"); path != nullptr && path->is_string())
      info.origin.path = path->get<std::string>();
  }
  info.created = json_fields::text(h, "created");
  return info;
}

}  // namespace

KdfLimits default_kdf_limits() {
  return {crypto_pwhash_OPSLIMIT_MODERATE, crypto_pwhash_MEMLIMIT_MODERATE};
}
KdfLimits minimum_kdf_limits() {
  return {crypto_pwhash_OPSLIMIT_INTERACTIVE, crypto_pwhash_MEMLIMIT_INTERACTIVE};
}

Result<SecretBytes> generate_seed() {
  AIRLOCK_TRY(seed, SecretBytes::allocate(32));
  randombytes_buf(seed.bytes().data(), 32);
  return seed;
}

namespace {

// The keystore file's text for `seed` under `passphrase`.
Result<std::string> keystore_text(const SecretBytes& seed, const SecretBytes& passphrase,
                                  const KeyOrigin& origin, KdfLimits limits,
                                  const std::string& created) {
  if (auto s = crypto_init(); !s.ok()) return s.error();
  if (seed.size() != 32) return Error(ErrorCode::kWrongLength, "seed: must be 32 bytes");
  if (passphrase.size() < 8)
    return Error(ErrorCode::kUsage, "passphrase: must be at least 8 characters");
  const KdfLimits minimum = minimum_kdf_limits();
  if (limits.opslimit < minimum.opslimit || limits.memlimit < minimum.memlimit) {
    return Error(ErrorCode::kUsage, "kdf: limits below libsodium's interactive level are refused");
  }
  AIRLOCK_TRY(keypair, Keypair::from_seed(seed.bytes()));

  std::uint8_t salt[crypto_pwhash_SALTBYTES];
  std::uint8_t nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES];
  randombytes_buf(salt, sizeof salt);
  randombytes_buf(nonce, sizeof nonce);
  json header = {
      {"airlock_keystore", kKeystoreVersion},
      {"kdf",
       {{"id", kKdfId},
        {"opslimit", limits.opslimit},
        {"memlimit", limits.memlimit},
        {"salt", to_base64(ByteView(salt, sizeof salt))}}},
      {"cipher", {{"id", kCipherId}, {"nonce", to_base64(ByteView(nonce, sizeof nonce))}}},
      {"public_key", to_base58(keypair.public_key())},
      {"origin", origin.path ? json{{"source", origin.source}, {"path", *origin.path}}
                             : json{{"source", origin.source}}},
      {"created", created}};
  const std::string header_text = header.dump();

  AIRLOCK_TRY(key, SecretBytes::allocate(crypto_aead_xchacha20poly1305_ietf_KEYBYTES));
  if (crypto_pwhash(key.bytes().data(), key.size(),
                    reinterpret_cast<const char*>(passphrase.bytes().data()), passphrase.size(),
                    salt, limits.opslimit, limits.memlimit, crypto_pwhash_ALG_ARGON2ID13) != 0) {
    return Error(ErrorCode::kOutOfSecureMemory, "Argon2id could not allocate its memory");
  }
  Bytes ciphertext(32 + crypto_aead_xchacha20poly1305_ietf_ABYTES);
  unsigned long long written = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(
      ciphertext.data(), &written, seed.bytes().data(), 32,
      reinterpret_cast<const std::uint8_t*>(header_text.data()), header_text.size(), nullptr, nonce,
      key.bytes().data());
  return json{{"header", header_text}, {"ciphertext", to_base64(ciphertext)}}.dump(1) + "\n";
}

}  // namespace

Status write_keystore(const std::string& path, const SecretBytes& seed,
                      const SecretBytes& passphrase, const KeyOrigin& origin, KdfLimits limits) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec))
    return Error(ErrorCode::kIo, "'" + path + "' exists; a keystore is never overwritten");
  AIRLOCK_TRY(text, keystore_text(seed, passphrase, origin, limits, utc_now()));
  return files::write_atomically(path, text_bytes(text));
}

Result<KeystoreInfo> parse_keystore_info(std::string_view text) {
  AIRLOCK_TRY(parsed, parse_text(text, "keystore"));
  return info_of(parsed.header);
}

Result<KeystoreInfo> read_keystore_info(const std::string& path) {
  AIRLOCK_TRY(parsed, parse_file(path));
  return info_of(parsed.header);
}

Result<SecretBytes> open_keystore_seed(const std::string& path, const SecretBytes& passphrase,
                                       const hardening::LockedDown& /*locked*/) {
  if (auto s = crypto_init(); !s.ok()) return s.error();
  AIRLOCK_TRY(parsed, parse_file(path));
  AIRLOCK_TRY(info, info_of(parsed.header));
  const KdfLimits minimum = minimum_kdf_limits();
  if (info.kdf.opslimit < minimum.opslimit || info.kdf.memlimit < minimum.memlimit) {
    return malformed("header.kdf: limits below the interactive level are refused");
  }
  auto salt = from_base64(json_fields::text(parsed.header["kdf"], "salt"), crypto_pwhash_SALTBYTES);
  auto nonce = from_base64(json_fields::text(parsed.header["cipher"], "nonce"),
                           crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
  if (!salt.ok() || salt->size() != crypto_pwhash_SALTBYTES)
    return malformed("header.kdf.salt: must be 16 bytes of base64");
  if (!nonce.ok() || nonce->size() != crypto_aead_xchacha20poly1305_ietf_NPUBBYTES) {
    return malformed("header.cipher.nonce: must be 24 bytes of base64");
  }
  if (parsed.ciphertext.size() != 32 + crypto_aead_xchacha20poly1305_ietf_ABYTES)
    return malformed("ciphertext: wrong length");
  AIRLOCK_TRY(key, SecretBytes::allocate(crypto_aead_xchacha20poly1305_ietf_KEYBYTES));
  if (crypto_pwhash(key.bytes().data(), key.size(),
                    reinterpret_cast<const char*>(passphrase.bytes().data()), passphrase.size(),
                    salt->data(), info.kdf.opslimit, info.kdf.memlimit,
                    crypto_pwhash_ALG_ARGON2ID13) != 0) {
    return Error(ErrorCode::kOutOfSecureMemory, "Argon2id could not allocate its memory");
  }
  AIRLOCK_TRY(seed, SecretBytes::allocate(32));
  unsigned long long got = 0;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(
          seed.bytes().data(), &got, nullptr, parsed.ciphertext.data(), parsed.ciphertext.size(),
          reinterpret_cast<const std::uint8_t*>(parsed.header_text.data()),
          parsed.header_text.size(), nonce->data(), key.bytes().data()) != 0 ||
      got != 32) {
    return Error(offline::errors::kKeystoreLocked,
                 "keystore: cannot decrypt: wrong passphrase, or the file was altered");
  }
  AIRLOCK_TRY(keypair, Keypair::from_seed(seed.bytes()));
  if (keypair.public_key() != info.public_key) {
    return malformed("header.public_key: does not match the decrypted key");
  }
  return seed;
}

Result<Keypair> open_keystore(const std::string& path, const SecretBytes& passphrase,
                              const hardening::LockedDown& locked) {
  AIRLOCK_TRY(seed, open_keystore_seed(path, passphrase, locked));
  return Keypair::from_seed(seed.bytes());
}

Status change_keystore_passphrase(const std::string& path, const SecretBytes& old_passphrase,
                                  const SecretBytes& new_passphrase, KdfLimits limits,
                                  const hardening::LockedDown& locked) {
  AIRLOCK_TRY(info, read_keystore_info(path));
  AIRLOCK_TRY(seed, open_keystore_seed(path, old_passphrase, locked));
  AIRLOCK_TRY(text, keystore_text(seed, new_passphrase, info.origin, limits, info.created));
  // The old file stays open across the rename, so its bytes can be overwritten once the new
  // file is in place: a crash before the rename leaves the old file whole, one after leaves the
  // new one.
  const UniqueFd old_fd(::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW));
  if (!old_fd.valid())
    return Error(ErrorCode::kIo, "cannot open '" + path + "': " + std::strerror(errno));
  struct stat st {};
  const bool sized = ::fstat(old_fd.get(), &st) == 0;
  if (sized && st.st_nlink > 1) {
    return Error(ErrorCode::kIo, "'" + path + "' has " + std::to_string(st.st_nlink) +
                                     " hard links; overwriting the old bytes would wipe the "
                                     "others too: remove the other links (or copy the file) "
                                     "first");
  }
  if (auto s = files::write_atomically(path, text_bytes(text)); !s.ok()) return s;
  bool wiped = sized;
  if (sized) {
    const std::vector<std::uint8_t> zeros(static_cast<std::size_t>(st.st_size), 0);
    wiped = ::pwrite(old_fd.get(), zeros.data(), zeros.size(), 0) ==
                static_cast<ssize_t>(zeros.size()) &&
            ::fsync(old_fd.get()) == 0;
  }
  if (!wiped) {
    return Error(ErrorCode::kIo,
                 "the keystore was re-encrypted, but the old file's bytes could "
                 "not be overwritten");
  }
  return {};
}

}  // namespace airlock::offline
