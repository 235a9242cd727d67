// The hand-written IDLs for Meteora DLMM and Phoenix against independent implementations:
// tests/oracle/idl_vectors.mjs (run by ctest just before this program) encodes instructions
// with Anchor's coder over Meteora's published IDL and with the Phoenix SDK's own instruction
// builders, and checks our DLMM interface equals Meteora's. Here each vector must decode to
// exactly the arguments the oracle was given, the IDL's account flags must be the oracle's,
// and one byte more or less must make the data undecodable.
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include <airlock/common/bytes.h>
#include <airlock/offline/decode.h>

namespace airlock::offline {
namespace {

using json = nlohmann::json;

json vectors() {
  std::ifstream in(AIRLOCK_IDL_VECTORS);
  EXPECT_TRUE(in) << "no oracle vectors at " << AIRLOCK_IDL_VECTORS
                  << " (ctest runs IdlOracle.Vectors first; it needs tests/oracle/node_modules)";
  return json::parse(in, nullptr, false);
}

const Idl* idl_with(const std::vector<Idl>& idls, const PublicKey& program,
                    const std::string& instruction) {
  for (const auto& idl : idls) {
    if (idl.program == program && find_instruction(idl, instruction) != nullptr) return &idl;
  }
  return nullptr;
}

class IdlOracle : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registry.add_idl_folder(AIRLOCK_IDL_DIR).ok());
    for (const char* file : {"meteora_dlmm.json", "phoenix_v1.json"}) {
      auto idl = load_idl_file(std::string(AIRLOCK_IDL_DIR) + "/" + file);
      ASSERT_TRUE(idl.ok()) << idl.error().to_string();
      idls.push_back(std::move(idl).value());
    }
    all = vectors();
    ASSERT_TRUE(all.is_object() && all["vectors"].is_array());
  }

  DecoderRegistry registry;
  std::vector<Idl> idls;
  json all;
};

TEST_F(IdlOracle, EveryVectorDecodesToTheArgumentsTheOracleEncoded) {
  std::set<std::string> programs;
  for (const auto& v : all["vectors"]) {
    const std::string name = v["instruction"];
    SCOPED_TRACE(name + " " + v["data"].get<std::string>());
    const auto program = public_key_from_base58(v["program"].get<std::string>());
    ASSERT_TRUE(program.ok());
    const auto data = from_hex(v["data"].get<std::string>(), 4096);
    ASSERT_TRUE(data.ok());
    auto decoded = registry.decode(*program, *data, v["accounts"].size());
    ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
    EXPECT_EQ(decoded->instruction, name);
    EXPECT_EQ(json::parse(decoded->args.dump()), v["args"]) << decoded->args.dump();
    programs.insert(decoded->program);
  }
  EXPECT_EQ(programs, (std::set<std::string>{"meteora_dlmm", "phoenix_v1"}));
  EXPECT_GE(all["vectors"].size(), 40U);
}

TEST_F(IdlOracle, AccountFlagsAreTheOraclesInOrder) {
  for (const auto& v : all["vectors"]) {
    const std::string name = v["instruction"];
    SCOPED_TRACE(name);
    const Idl* idl =
        idl_with(idls, public_key_from_base58(v["program"].get<std::string>()).value(), name);
    ASSERT_NE(idl, nullptr);
    const IdlInstruction* ix = find_instruction(*idl, name);
    ASSERT_EQ(ix->accounts.size(), v["accounts"].size());
    for (std::size_t i = 0; i < ix->accounts.size(); ++i) {
      EXPECT_EQ(ix->accounts[i].writable, v["accounts"][i]["writable"].get<bool>()) << i;
      EXPECT_EQ(ix->accounts[i].signer, v["accounts"][i]["signer"].get<bool>()) << i;
    }
  }
}

TEST_F(IdlOracle, OneByteMoreOrLessIsUndecodable) {
  for (const auto& v : all["vectors"]) {
    SCOPED_TRACE(v["instruction"].get<std::string>());
    const auto program = public_key_from_base58(v["program"].get<std::string>()).value();
    Bytes data = from_hex(v["data"].get<std::string>(), 4096).value();
    const std::size_t accounts = v["accounts"].size();
    Bytes longer = data;
    longer.push_back(0);
    EXPECT_FALSE(registry.decode(program, longer, accounts).ok());
    data.pop_back();
    EXPECT_FALSE(registry.decode(program, data, accounts).ok());
  }
}

}  // namespace
}  // namespace airlock::offline
