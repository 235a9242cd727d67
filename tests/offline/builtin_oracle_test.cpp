// The hand-written System Program and SPL Token decoders (offline/src/decode_builtin.cpp)
// against independent implementations: tests/oracle/builtin_vectors.mjs (run by ctest just
// before this program) builds instructions with @solana/web3.js's SystemProgram helpers and
// @solana/spl-token's instruction builders, for Token and Token-2022. Here each vector must
// decode to exactly the arguments the oracle was given, in the order of the library's layout,
// airlock must name the accounts that have a fixed role, and one byte more or less must make
// the data undecodable.
#include <algorithm>
#include <fstream>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/bytes.h>
#include <airlock/offline/decode.h>

namespace airlock::offline {
namespace {

// Ordered, so that arguments must come in the oracle's order too.
using ojson = nlohmann::ordered_json;

ojson vectors() {
  std::ifstream in(AIRLOCK_BUILTIN_VECTORS);
  EXPECT_TRUE(in)
      << "no oracle vectors at " << AIRLOCK_BUILTIN_VECTORS
      << " (ctest runs BuiltinOracle.Vectors first; it needs tests/oracle/node_modules)";
  return ojson::parse(in, nullptr, false);
}

// spl-token writes an empty COption<Pubkey> as the tag 0 and 32 zero bytes; the Rust client
// writes the tag alone. The oracle gives both, marking the SDK's form.
bool padded(const ojson& v) { return v.value("padded_none", false); }

class BuiltinOracle : public ::testing::Test {
 protected:
  void SetUp() override {
    all = vectors();
    ASSERT_TRUE(all.is_object() && all["vectors"].is_array());
  }

  DecoderRegistry registry;
  ojson all;
};

TEST_F(BuiltinOracle, EveryVectorDecodesToTheArgumentsTheOracleEncoded) {
  std::set<std::string> programs;
  std::set<std::string> instructions;
  for (const auto& v : all["vectors"]) {
    if (padded(v)) continue;
    const std::string name = v["instruction"];
    SCOPED_TRACE(name + " " + v["data"].get<std::string>());
    const auto program = public_key_from_base58(v["program"].get<std::string>());
    ASSERT_TRUE(program.ok());
    const auto data = from_hex(v["data"].get<std::string>(), 1024);
    ASSERT_TRUE(data.ok());
    const std::size_t accounts = v["accounts"].get<std::size_t>();
    auto decoded = registry.decode(*program, *data, accounts);
    ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
    EXPECT_EQ(decoded->instruction, name);
    EXPECT_EQ(decoded->args, v["args"]) << decoded->args.dump() << " vs " << v["args"].dump();
    // Names past the accounts given are optional ones left out (create_account_with_seed's
    // base); the accounts after the named ones are a multisig's signers.
    EXPECT_EQ(std::min(decoded->account_names.size(), accounts),
              v["account_names_count"].get<std::size_t>())
        << "airlock names " << decoded->account_names.size() << " of " << accounts << " accounts";
    // Every one of these instructions needs an account.
    EXPECT_FALSE(registry.decode(*program, *data, 0).ok()) << "decodes with no accounts";
    programs.insert(decoded->program);
    instructions.insert(decoded->program + " " + name);
  }
  EXPECT_EQ(programs, (std::set<std::string>{"System Program", "SPL Token Program",
                                             "SPL Token-2022 Program"}));
  // 13 System instructions and 24 of each token program.
  EXPECT_EQ(instructions.size(), 13U + 2 * 24U);
  EXPECT_GE(all["vectors"].size(), 299U);
}

TEST_F(BuiltinOracle, OneByteMoreOrLessIsUndecodable) {
  for (const auto& v : all["vectors"]) {
    if (padded(v)) continue;
    SCOPED_TRACE(v["instruction"].get<std::string>() + " " + v["data"].get<std::string>());
    const auto program = public_key_from_base58(v["program"].get<std::string>()).value();
    Bytes data = from_hex(v["data"].get<std::string>(), 1024).value();
    const std::size_t accounts = v["accounts"].get<std::size_t>();
    Bytes longer = data;
    longer.push_back(0);
    EXPECT_FALSE(registry.decode(program, longer, accounts).ok());
    data.pop_back();
    EXPECT_FALSE(registry.decode(program, data, accounts).ok());
  }
}

// The SDK's padded empty option: the programs read the tag and ignore what follows, so this is
// the same instruction as the Rust client's, and airlock reads it as none (it refused the 32
// zero bytes before). Any other byte in the padding is still refused: data nothing reads.
TEST_F(BuiltinOracle, SdkPaddedEmptyOptionsReadAsNone) {
  std::size_t seen = 0;
  for (const auto& v : all["vectors"]) {
    if (!padded(v)) continue;
    ++seen;
    SCOPED_TRACE(v["instruction"].get<std::string>() + " " + v["data"].get<std::string>());
    const auto program = public_key_from_base58(v["program"].get<std::string>()).value();
    const Bytes data = from_hex(v["data"].get<std::string>(), 1024).value();
    auto decoded = registry.decode(program, data, v["accounts"].get<std::size_t>());
    ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
    EXPECT_EQ(decoded->instruction, v["instruction"].get<std::string>());
    EXPECT_EQ(decoded->args, v["args"]) << decoded->args.dump();
    Bytes marked = data;
    marked.back() = 1;
    auto refused = registry.decode(program, marked, v["accounts"].get<std::size_t>());
    ASSERT_FALSE(refused.ok());
    EXPECT_THAT(refused.error().message(),
                testing::HasSubstr("none, followed by 32 bytes that are not all zero"));
  }
  EXPECT_GE(seen, 24U);
}

}  // namespace
}  // namespace airlock::offline
