// Keystone's Solana registry types, so airlock interoperates with wallets that speak them:
// `ur:sol-sign-request` and `ur:sol-signature`. The request id is a UUID (tag 37), the
// derivation path a crypto-keypath (tag 304).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>

namespace airlock::keystone {

inline constexpr std::string_view kSignRequestType = "sol-sign-request";
// The action name a Keystone request is reviewed, logged and reconciled under.
inline constexpr std::string_view kSignRequestAction = "keystone/sol-sign-request";
inline constexpr std::string_view kSignatureType = "sol-signature";

using Uuid = std::array<std::uint8_t, 16>;

struct DerivationPath {
  std::vector<std::pair<std::uint32_t, bool>> components;  // index, hardened
  std::optional<std::uint32_t> source_fingerprint;
  std::optional<std::uint8_t> depth;

  // "m/44'/501'/0'/0'"; fails with envelope.bad_value for anything else. Indexes must be below
  // 2^31 (the hardened flag is separate).
  [[nodiscard]] static Result<DerivationPath> parse(std::string_view text);
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const DerivationPath&, const DerivationPath&) = default;
};

enum class SignType : std::uint8_t { kTransaction = 1, kMessage = 2 };

struct SolSignRequest {
  Uuid request_id{};
  Bytes sign_data;  // the message bytes to sign
  DerivationPath path;
  std::optional<Bytes> address;  // the signer's public key, when the requester names it
  std::optional<std::string> origin;
  SignType type = SignType::kTransaction;
  friend bool operator==(const SolSignRequest&, const SolSignRequest&) = default;
};

struct SolSignature {
  Uuid request_id{};
  Signature signature;
  friend bool operator==(const SolSignature&, const SolSignature&) = default;
};

[[nodiscard]] Bytes encode_sign_request(const SolSignRequest& request);
[[nodiscard]] Result<SolSignRequest> decode_sign_request(ByteView cbor);
[[nodiscard]] Bytes encode_signature(const SolSignature& signature);
[[nodiscard]] Result<SolSignature> decode_signature(ByteView cbor);

// "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"
[[nodiscard]] std::string uuid_to_string(const Uuid& id);

}  // namespace airlock::keystone
