#include <gtest/gtest.h>
#include <sodium.h>

#include <airlock/common/ed25519.h>
#include <airlock/common/hash.h>
#include <airlock/common/secret.h>

#include "support/vectors.h"

namespace airlock {
namespace {

using test::hex;

// RFC 8032 §7.1, tests 1 and 2.
struct Rfc8032Case {
  const char* seed;
  const char* public_key;
  const char* message;
  const char* signature;
};
constexpr Rfc8032Case kRfc8032[] = {
    {"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
     "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
    {"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
     "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
};

TEST(Ed25519, Rfc8032Vectors) {
  for (const auto& c : kRfc8032) {
    auto keypair = Keypair::from_seed(hex(c.seed));
    ASSERT_TRUE(keypair.ok());
    EXPECT_EQ(to_hex(keypair->public_key().view()), c.public_key);
    const Bytes message = hex(c.message);
    const Signature signature = keypair->sign(message);
    EXPECT_EQ(to_hex(signature.view()), c.signature);
    EXPECT_TRUE(verify_signature(keypair->public_key(), message, signature));
  }
}

TEST(Ed25519, RejectsTamperingAndNonCanonicalSignatures) {
  auto keypair = Keypair::from_seed(hex(kRfc8032[1].seed));
  ASSERT_TRUE(keypair.ok());
  const Bytes message = hex(kRfc8032[1].message);
  const Signature good = keypair->sign(message);

  Bytes other = message;
  other[0] ^= 1;
  EXPECT_FALSE(verify_signature(keypair->public_key(), other, good));
  Signature flipped = good;
  flipped.bytes[10] ^= 0x40;
  EXPECT_FALSE(verify_signature(keypair->public_key(), message, flipped));

  // S + L is the same scalar written non-canonically: a malleated signature. It must fail.
  const Bytes order_l = hex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");
  Signature malleated = good;
  unsigned carry = 0;
  for (std::size_t i = 0; i < 32; ++i) {
    carry += unsigned{malleated.bytes[32 + i]} + order_l[i];
    malleated.bytes[32 + i] = static_cast<std::uint8_t>(carry & 0xff);
    carry >>= 8;
  }
  EXPECT_FALSE(verify_signature(keypair->public_key(), message, malleated));

  // A small-order public key (the identity point) must be refused whatever the signature.
  PublicKey identity;
  identity.bytes[0] = 1;
  EXPECT_FALSE(verify_signature(identity, message, good));
}

TEST(Ed25519, SeedMustBe32Bytes) {
  auto short_seed = Keypair::from_seed(Bytes(31, 7));
  ASSERT_FALSE(short_seed.ok());
  EXPECT_EQ(short_seed.error().code(), ErrorCode::kWrongLength);
  EXPECT_FALSE(Keypair::from_seed(Bytes(33, 7)).ok());
}

TEST(SecretBytes, MovesOwnershipAndStartsZeroed) {
  auto secret = SecretBytes::allocate(64);
  ASSERT_TRUE(secret.ok());
  for (auto b : secret->bytes()) EXPECT_EQ(b, 0);
  secret->bytes()[0] = 42;
  SecretBytes moved = std::move(secret).value();
  EXPECT_EQ(moved.size(), 64U);
  EXPECT_EQ(moved.bytes()[0], 42);
  static_assert(!std::is_copy_constructible_v<SecretBytes>);
  static_assert(!std::is_copy_assignable_v<SecretBytes>);
  static_assert(!std::is_copy_constructible_v<Keypair>);
}

// FIPS 180-2's examples (appendix B): one block, two blocks, a million bytes; and the empty
// message.
TEST(Sha256, KnownAnswer) {
  const auto hex_of = [](const std::string& text) {
    return to_hex(sha256(Bytes(text.begin(), text.end())).view());
  };
  EXPECT_EQ(hex_of("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex_of(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex_of(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Against libsodium's own SHA-256, an independent implementation, at every length around the
// block and padding boundaries up to five blocks.
TEST(Sha256, AgreesWithLibsodiumAtEveryLengthAcrossBlockBoundaries) {
  Bytes data(5 * 64 + 1);
  randombytes_buf(data.data(), data.size());
  for (std::size_t n = 0; n <= data.size(); ++n) {
    Hash theirs;
    crypto_hash_sha256(theirs.bytes.data(), data.data(), n);
    EXPECT_EQ(sha256(ByteView(data.data(), n)), theirs) << n << " bytes";
  }
}

}  // namespace
}  // namespace airlock
