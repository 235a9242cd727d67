#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/bytes.h>

#include "support/vectors.h"

using ::testing::HasSubstr;

namespace airlock {
namespace {

TEST(Hex, RoundTripsAndAcceptsEitherCase) {
  const Bytes bytes{0x00, 0x01, 0xab, 0xff};
  EXPECT_EQ(to_hex(bytes), "0001abff");
  auto decoded = from_hex("0001ABff", 16);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, bytes);
}

TEST(Hex, RejectsOddLengthBadDigitsAndOversize) {
  EXPECT_EQ(from_hex("abc", 16).error().code(), ErrorCode::kHexInvalid);
  auto bad = from_hex("00zz", 16);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::kHexInvalid);
  EXPECT_THAT(bad.error().message(), HasSubstr("'z'"));
  EXPECT_EQ(from_hex("00 1", 16).error().code(), ErrorCode::kHexInvalid);
  EXPECT_EQ(from_hex("000000", 2).error().code(), ErrorCode::kTooLarge);
}

TEST(Base58, KnownValues) {
  EXPECT_EQ(to_base58(Bytes(32, 0)), "11111111111111111111111111111111");
  EXPECT_EQ(to_base58(Bytes{}), "");
  EXPECT_EQ(to_base58(Bytes{0x00, 0x00, 0x01}), "112");
  EXPECT_EQ(to_base58(Bytes{0xff}), "5Q");
  // "Hello World!" in the Bitcoin alphabet.
  const std::string hello = "Hello World!";
  EXPECT_EQ(to_base58(Bytes(hello.begin(), hello.end())), "2NEpo7TZRRrLZSi2U");
  auto decoded = from_base58("2NEpo7TZRRrLZSi2U", 64);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(std::string(decoded->begin(), decoded->end()), hello);
}

TEST(Base58, SignaturesFromTheVectorsMatchTheirWireBytes) {
  // The vectors give each signature in base58 and inside the base64 transaction: two independent
  // encodings of the same 64 bytes made by web3.js.
  for (const auto& v : test::vector_list("solana-v0-transactions.json")) {
    const Bytes wire = test::b64(v["signed_tx_base64"]);
    for (std::size_t i = 0; i < v["signatures_base58"].size(); ++i) {
      auto sig = fixed_from_base58<64>(v["signatures_base58"][i].get<std::string>());
      ASSERT_TRUE(sig.ok()) << sig.error().to_string();
      Signature on_wire = fixed_from_view<64>(ByteView(wire).subspan(1 + 64 * i, 64));
      EXPECT_EQ(*sig, on_wire);
      EXPECT_EQ(to_base58(on_wire), v["signatures_base58"][i].get<std::string>());
    }
  }
}

TEST(Base58, RandomRoundTrips) {
  std::mt19937 rng(58);
  for (int i = 0; i < 2000; ++i) {
    Bytes bytes(rng() % 80);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng() % 4 == 0 ? 0 : rng());
    auto decoded = from_base58(to_base58(bytes), 80);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(*decoded, bytes);
  }
}

TEST(Base58, RejectsCharactersOutsideTheAlphabet) {
  for (const char* bad : {"0", "O", "I", "l", "abc+", " 2NE", "2NE\n", "\xc3\xa9"}) {
    auto decoded = from_base58(bad, 64);
    ASSERT_FALSE(decoded.ok()) << bad;
    EXPECT_EQ(decoded.error().code(), ErrorCode::kBase58Invalid) << bad;
  }
}

TEST(PublicKeyText, FollowsTheApiRule) {
  EXPECT_TRUE(public_key_from_base58("11111111111111111111111111111111").ok());
  EXPECT_TRUE(public_key_from_base58("AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax").ok());
  // 31 characters, and 45.
  EXPECT_EQ(public_key_from_base58("1111111111111111111111111111111").error().code(),
            ErrorCode::kWrongLength);
  EXPECT_EQ(public_key_from_base58("AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2paxA").error().code(),
            ErrorCode::kWrongLength);
  // 44 characters that decode to 33 bytes.
  EXPECT_EQ(public_key_from_base58("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz").error().code(),
            ErrorCode::kWrongLength);
  // 32 characters decoding to 31 bytes: 29 leading '1' digits are 29 zero bytes, "211" is two.
  EXPECT_EQ(public_key_from_base58("11111111111111111111111111111211").error().code(),
            ErrorCode::kWrongLength);
}

TEST(Base64, RoundTripsAllLengths) {
  for (std::size_t n = 0; n < 70; ++n) {
    Bytes bytes(n);
    for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::uint8_t>(i * 37 + n);
    auto decoded = from_base64(to_base64(bytes), 100);
    ASSERT_TRUE(decoded.ok()) << n;
    EXPECT_EQ(*decoded, bytes);
  }
  EXPECT_EQ(to_base64(Bytes{'f', 'o', 'o', 'b'}), "Zm9vYg==");
}

TEST(Base64, IsStrict) {
  struct Case {
    const char* text;
    ErrorCode code;
  };
  const Case cases[] = {
      {"Zm9vYg", ErrorCode::kBase64Invalid},        // padding missing
      {"Zm9vYg=", ErrorCode::kBase64Invalid},       // padding short
      {"Zm9vYh==", ErrorCode::kBase64Invalid},      // non-zero pad bits
      {"Zm9v\nYg==", ErrorCode::kBase64Invalid},    // line break
      {"Zm9v Yg==", ErrorCode::kBase64Invalid},     // space
      {"Zm9v-_==", ErrorCode::kBase64Invalid},      // URL-safe alphabet
      {"Zm9vYg==Zm9v", ErrorCode::kBase64Invalid},  // data after padding
      {"====", ErrorCode::kBase64Invalid},
  };
  for (const auto& c : cases) {
    auto decoded = from_base64(c.text, 100);
    ASSERT_FALSE(decoded.ok()) << c.text;
    EXPECT_EQ(decoded.error().code(), c.code) << c.text << ": " << decoded.error().to_string();
  }
  auto line = from_base64("Zm9v\nYg==", 100);
  EXPECT_THAT(line.error().message(), HasSubstr("line break"));
  EXPECT_EQ(from_base64("Zm9vYmFy", 5).error().code(), ErrorCode::kTooLarge);
}

}  // namespace
}  // namespace airlock
