// The strict IDL interpreter: shipped IDLs, every rule that makes data undecodable, legacy IDLs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/hash.h>
#include <airlock/offline/idl.h>

using ::testing::HasSubstr;

namespace airlock::offline {
namespace {

using json = nlohmann::json;

Idl sample_idl() {
  const json j = json::parse(R"({
    "address": "AirLockVau1t1111111111111111111111111111111",
    "metadata": {"name": "sample", "version": "1.0.0", "spec": "0.1.0"},
    "instructions": [{
      "name": "act", "discriminator": [1, 2, 3, 4, 5, 6, 7, 8],
      "accounts": [{"name": "vault", "writable": true}, {"name": "group", "accounts": [{"name": "inner", "signer": true}]}],
      "args": [
        {"name": "flag", "type": "bool"},
        {"name": "amount", "type": "u64"},
        {"name": "delta", "type": "i32"},
        {"name": "who", "type": "pubkey"},
        {"name": "maybe", "type": {"option": "u16"}},
        {"name": "list", "type": {"vec": {"defined": {"name": "Pair"}}}},
        {"name": "tag", "type": "string"},
        {"name": "side", "type": {"defined": {"name": "Side"}}},
        {"name": "big", "type": "u128"},
        {"name": "raw", "type": {"array": ["u8", 4]}}
      ]}],
    "types": [
      {"name": "Pair", "type": {"kind": "struct", "fields": [{"name": "a", "type": "u8"}, {"name": "b", "type": "i8"}]}},
      {"name": "Side", "type": {"kind": "enum", "variants": [{"name": "Bid"}, {"name": "Ask", "fields": [{"name": "price", "type": "u32"}]}]}}
    ]})");
  return parse_idl(j).value();
}

struct Writer {
  Bytes b{1, 2, 3, 4, 5, 6, 7, 8};
  Writer& u8(std::uint8_t v) {
    b.push_back(v);
    return *this;
  }
  Writer& le(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }
  Writer& raw(std::initializer_list<std::uint8_t> bytes) {
    b.insert(b.end(), bytes);
    return *this;
  }
};

// A valid encoding of act(flag=true, amount=2^60, delta=-5, who=11..1, maybe=7, list=[{1,-1}],
// tag="hi", side=Ask{9}, big=2^64+1, raw=deadbeef).
Bytes sample_data() {
  Writer w;
  w.u8(1).le(1ULL << 60, 8).le(static_cast<std::uint32_t>(-5), 4);
  w.b.insert(w.b.end(), 32, 0);
  w.u8(1)
      .le(7, 2)
      .le(1, 4)
      .u8(1)
      .u8(0xff)
      .le(2, 4)
      .raw({'h', 'i'})
      .u8(1)
      .le(9, 4)
      .le(1, 8)
      .le(1, 8)
      .raw({0xde, 0xad, 0xbe, 0xef});
  return w.b;
}

TEST(Idl, ShippedIdlsParse) {
  auto vault = load_idl_file(std::string(AIRLOCK_IDL_DIR) + "/airlock_vault.json");
  ASSERT_TRUE(vault.ok()) << vault.error().to_string();
  EXPECT_EQ(vault->instructions.size(), 28U);
  EXPECT_EQ(to_base58(vault->program), "AirLockVau1t1111111111111111111111111111111");
  for (const auto& ix : vault->instructions) {
    const std::string preimage = "global:" + ix.name;
    const Hash h = sha256(text_bytes(preimage));
    EXPECT_EQ(ix.discriminator, Bytes(h.bytes.begin(), h.bytes.begin() + 8)) << ix.name;
  }
  auto jupiter = load_idl_file(std::string(AIRLOCK_IDL_DIR) + "/jupiter_v6.json");
  ASSERT_TRUE(jupiter.ok()) << jupiter.error().to_string();
  EXPECT_EQ(jupiter->types.at("Swap").variants.size(), 62U);
}

TEST(Idl, DecodesEveryKindOfValue) {
  const Idl idl = sample_idl();
  auto decoded = decode_instruction(idl, sample_data());
  ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
  const auto& a = decoded->args;
  EXPECT_EQ(decoded->instruction->name, "act");
  EXPECT_EQ(a["flag"], true);
  EXPECT_EQ(a["amount"], "1152921504606846976") << "u64 as a string";
  EXPECT_EQ(a["delta"], -5);
  EXPECT_EQ(a["who"], "11111111111111111111111111111111");
  EXPECT_EQ(a["maybe"], 7);
  EXPECT_EQ(a["list"][0]["a"], 1);
  EXPECT_EQ(a["list"][0]["b"], -1);
  EXPECT_EQ(a["tag"], "hi");
  EXPECT_EQ(a["side"]["variant"], "Ask");
  EXPECT_EQ(a["side"]["fields"]["price"], 9);
  EXPECT_EQ(a["big"], "18446744073709551617");
  EXPECT_EQ(a["raw"], "deadbeef");
  ASSERT_EQ(decoded->instruction->accounts.size(), 2U);
  EXPECT_EQ(decoded->instruction->accounts[1].name, "group.inner");
  EXPECT_TRUE(decoded->instruction->accounts[1].signer);
}

TEST(Idl, EveryViolationIsUndecodable) {
  const Idl idl = sample_idl();
  const Bytes good = sample_data();
  struct Case {
    const char* name;
    std::function<void(Bytes&)> edit;
    const char* message;
  };
  const std::size_t after_head = 8;  // discriminator
  const std::vector<Case> cases = {
      {"unknown discriminator", [](Bytes& b) { b[0] = 9; }, "no discriminator"},
      {"bool 2", [&](Bytes& b) { b[after_head] = 2; }, "neither 0 nor 1"},
      {"option tag 2", [&](Bytes& b) { b[after_head + 1 + 8 + 4 + 32] = 2; }, "option tag"},
      {"huge vector", [&](Bytes& b) { b[after_head + 1 + 8 + 4 + 32 + 3 + 3] = 0x7f; },
       "cannot fit"},
      {"invalid UTF-8", [&](Bytes& b) { b[after_head + 1 + 8 + 4 + 32 + 3 + 4 + 2 + 4] = 0xff; },
       "UTF-8"},
      {"enum tag out of range",
       [&](Bytes& b) { b[after_head + 1 + 8 + 4 + 32 + 3 + 4 + 2 + 4 + 2] = 5; }, "no variant 5"},
      {"trailing byte", [](Bytes& b) { b.push_back(0); }, "refusing to guess"},
      {"truncated", [](Bytes& b) { b.resize(b.size() - 1); }, "ends"},
  };
  for (const auto& c : cases) {
    Bytes data = good;
    c.edit(data);
    auto decoded = decode_instruction(idl, data);
    ASSERT_FALSE(decoded.ok()) << c.name;
    EXPECT_EQ(decoded.error().code(), offline::errors::kIdlUndecodable) << c.name;
    EXPECT_THAT(decoded.error().message(), HasSubstr(c.message))
        << c.name << ": " << decoded.error().message();
  }
}

TEST(Idl, LegacyIdlsUseTheGlobalNamespaceRule) {
  const json legacy = json::parse(R"({
    "version": "0.1.0", "name": "old",
    "instructions": [{"name": "initializeVault", "accounts": [{"name": "vault", "isMut": true, "isSigner": false}],
                      "args": [{"name": "owner", "type": "publicKey"}]}]})");
  PublicKey program;
  program.bytes.fill(3);
  auto idl = parse_idl(legacy, program);
  ASSERT_TRUE(idl.ok()) << idl.error().to_string();
  const std::string preimage = "global:initialize_vault";
  const Hash h = sha256(text_bytes(preimage));
  EXPECT_EQ(idl->instructions[0].discriminator, Bytes(h.bytes.begin(), h.bytes.begin() + 8));
  EXPECT_TRUE(idl->instructions[0].accounts[0].writable);
  EXPECT_FALSE(parse_idl(legacy).ok()) << "no address and no fallback";
}

TEST(Idl, MalformedIdlsAreRefusedWithThePath) {
  const auto refuse = [](const char* text, const char* path) {
    auto idl = parse_idl(json::parse(text));
    ASSERT_FALSE(idl.ok()) << text;
    EXPECT_EQ(idl.error().code(), offline::errors::kIdlInvalid);
    EXPECT_THAT(idl.error().message(), HasSubstr(path));
  };
  refuse(
      R"({"address": "11111111111111111111111111111111", "instructions": [{"name": "x", "args": [{"name": "a", "type": "u7"}]}]})",
      "instructions[0].args[0].type");
  refuse(
      R"({"address": "11111111111111111111111111111111", "instructions": [{"name": "x", "args": [{"name": "a", "type": {"defined": "Nope"}}]}]})",
      "undefined type 'Nope'");
  refuse(
      R"({"address": "11111111111111111111111111111111", "instructions": [{"name": "x", "discriminator": [1]}, {"name": "y", "discriminator": [1]}]})",
      "repeats x");
  refuse(R"({"address": "not-a-key", "instructions": []})", "address");
  // Fields of the wrong JSON type are refused by path, not thrown (found by the idl_file fuzz
  // target; tests/fuzz/corpus/idl_file/regression-accounts-not-an-array).
  refuse(
      R"({"address": "11111111111111111111111111111111", "instructions": [{"name": "x", "accounts": "1.0.0"}]})",
      "instructions[0].accounts: must be an array");
  refuse(
      R"({"address": "11111111111111111111111111111111", "instructions": [{"name": "x", "accounts": [{"name": 5}]}]})",
      "instructions[0].accounts[0].name: must be a string");
  refuse(
      R"({"address": "11111111111111111111111111111111", "instructions": [{"name": "x", "accounts": [{"name": "a", "isMut": "yes"}]}]})",
      "instructions[0].accounts[0].isMut: must be true or false");
  refuse(
      R"({"address": "11111111111111111111111111111111", "metadata": {"name": 7}, "instructions": []})",
      "metadata.name: must be a string");
  refuse(R"({"metadata": {"address": 7}, "instructions": []})", "metadata.address");
  refuse(
      R"({"address": "11111111111111111111111111111111", "instructions": [], "types": [{"name": "T", "type": {"kind": 3}}]})",
      "types[0].type.kind: must be a string");
}

}  // namespace
}  // namespace airlock::offline
