// Derived addresses against independent implementations: tests/oracle/pda_vectors.mjs (run by
// ctest just before this program) asks @solana/web3.js which strings lie on the curve and which
// program addresses it finds, @solana/spl-token for associated token accounts and
// @meteora-ag/dlmm for bin arrays. Every one must come out the same here.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <airlock/common/bytes.h>
#include <airlock/common/pda.h>

namespace airlock {
namespace {

using json = nlohmann::json;

json vectors() {
  std::ifstream in(AIRLOCK_PDA_VECTORS);
  EXPECT_TRUE(in) << "no oracle vectors at " << AIRLOCK_PDA_VECTORS
                  << " (ctest runs PdaOracle.Vectors first; it needs tests/oracle/node_modules)";
  return json::parse(in, nullptr, false);
}

PublicKey key(const json& v) { return public_key_from_base58(v.get<std::string>()).value(); }

TEST(PdaOracle, TheCurveTestAgreesWithWeb3OnEveryVector) {
  const json v = vectors();
  ASSERT_TRUE(v.is_object());
  std::size_t on = 0, off = 0;
  for (const auto& c : v["curve"]) {
    if (c["edge"].get<bool>()) continue;  // below: the runtime's rule, not web3's
    auto bytes = from_hex(c["key"].get<std::string>(), 32).value();
    const PublicKey k = fixed_from_view<32>(bytes);
    EXPECT_EQ(is_on_curve(k), c["on_curve"].get<bool>()) << c["key"];
    (c["on_curve"].get<bool>() ? on : off)++;
  }
  // Both answers are exercised, many times each.
  EXPECT_GT(on, 200U);
  EXPECT_GT(off, 200U);
}

// The runtime decompresses with curve25519-dalek: y is read modulo p with the top bit taken as
// x's sign and ignored for the test, so the sign bit never changes the answer, y + p answers as
// y does, and y = 1 (x = 0) and y = 0 (x^2 = -1, a square) are on the curve.
TEST(PdaOracle, NonCanonicalEncodingsFollowTheRuntimesDecompression) {
  const json v = vectors();
  std::size_t checked = 0;
  for (const auto& c : v["curve"]) {
    if (c["edge"].get<bool>()) continue;
    auto bytes = from_hex(c["key"].get<std::string>(), 32).value();
    PublicKey k = fixed_from_view<32>(bytes);
    const bool on = is_on_curve(k);
    k.bytes[31] ^= 0x80;
    EXPECT_EQ(is_on_curve(k), on) << c["key"];
    ++checked;
  }
  EXPECT_GT(checked, 600U);
  const auto encoded = [](std::uint8_t low, std::uint8_t fill, std::uint8_t top) {
    PublicKey k;
    k.bytes.fill(fill);
    k.bytes[0] = low;
    k.bytes[31] = top;
    return k;
  };
  EXPECT_TRUE(is_on_curve(encoded(1, 0, 0)));           // y = 1
  EXPECT_TRUE(is_on_curve(encoded(1, 0, 0x80)));        // y = 1, sign bit set
  EXPECT_TRUE(is_on_curve(encoded(0xee, 0xff, 0x7f)));  // p + 1 = 1
  EXPECT_TRUE(is_on_curve(encoded(0, 0, 0)));           // y = 0
  EXPECT_TRUE(is_on_curve(encoded(0xed, 0xff, 0x7f)));  // p = 0
  for (std::uint8_t y = 2; y < 19; ++y) {
    // y and y + p (the encodings 2^255 - 19 + y, which still fit in 255 bits) agree.
    PublicKey plus_p = encoded(static_cast<std::uint8_t>(0xed + y), 0xff, 0x7f);
    EXPECT_EQ(is_on_curve(plus_p), is_on_curve(encoded(y, 0, 0))) << int(y);
  }
}

TEST(PdaOracle, ProgramAddressesAndBumpsAreWeb3s) {
  const json v = vectors();
  ASSERT_GE(v["pdas"].size(), 50U);
  for (const auto& p : v["pdas"]) {
    std::vector<Bytes> seeds;
    for (const auto& s : p["seeds"]) seeds.push_back(from_hex(s.get<std::string>(), 32).value());
    const auto found = find_program_address(seeds, key(p["program"]));
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(to_base58(found->first), p["address"].get<std::string>());
    EXPECT_EQ(found->second, p["bump"].get<int>());
  }
}

TEST(PdaOracle, AssociatedTokenAccountsAreSplTokens) {
  const json v = vectors();
  ASSERT_GE(v["atas"].size(), 40U);
  for (const auto& a : v["atas"]) {
    EXPECT_EQ(to_base58(associated_token_address(key(a["owner"]), key(a["mint"]),
                                                 key(a["token_program"]))),
              a["address"].get<std::string>());
  }
}

TEST(PdaOracle, BinArraysAreMeteoras) {
  const json v = vectors();
  ASSERT_GE(v["bins"].size(), 18U);
  for (const auto& b : v["bins"]) {
    const auto bin = b["bin"].get<std::int64_t>();
    EXPECT_EQ(bin_array_index(bin), b["index"].get<std::int64_t>()) << bin;
    EXPECT_EQ(to_base58(bin_array_address(key(b["lb_pair"]), bin, key(b["program"]))),
              b["address"].get<std::string>())
        << bin;
  }
}

TEST(Pda, SeedsPastTheRuntimesLimitsFindNothing) {
  const PublicKey program = public_key_from_base58("11111111111111111111111111111111").value();
  EXPECT_FALSE(create_program_address({Bytes(33, 1)}, program).has_value());
  EXPECT_FALSE(find_program_address(std::vector<Bytes>(16, Bytes{1}), program).has_value());
  EXPECT_TRUE(find_program_address(std::vector<Bytes>(15, Bytes{1}), program).has_value());
}

}  // namespace
}  // namespace airlock
