// Known-answer tests against transactions made by @solana/web3.js and signed by tweetnacl
// (../shared/vectors/solana-v0-transactions.json).
#include "support/vectors.h"

#include <set>

#include <gtest/gtest.h>

#include <airlock/common/accounts.h>
#include <airlock/common/ed25519.h>
#include <airlock/common/transaction.h>

namespace airlock {
namespace {

using test::b64;
using test::hex;
using test::key;

class V0Vectors : public ::testing::TestWithParam<std::string> {
 protected:
  nlohmann::json vector() const {
    return test::vector_named("solana-v0-transactions.json", GetParam());
  }
};

TEST_P(V0Vectors, SignedTransactionParsesWithEveryField) {
  const auto v = vector();
  const Bytes wire = b64(v["signed_tx_base64"]);
  auto tx = parse_transaction(wire);
  ASSERT_TRUE(tx.ok()) << tx.error().to_string();
  const Message& m = tx->message;

  EXPECT_EQ(m.version, MessageVersion::kV0);
  EXPECT_EQ(m.header.num_required_signatures, v["header"]["numRequiredSignatures"].get<int>());
  EXPECT_EQ(m.header.num_readonly_signed, v["header"]["numReadonlySignedAccounts"].get<int>());
  EXPECT_EQ(m.header.num_readonly_unsigned, v["header"]["numReadonlyUnsignedAccounts"].get<int>());
  ASSERT_EQ(m.static_keys.size(), v["static_keys"].size());
  for (std::size_t i = 0; i < m.static_keys.size(); ++i) {
    EXPECT_EQ(to_base58(m.static_keys[i]), v["static_keys"][i].get<std::string>()) << i;
  }
  EXPECT_EQ(to_base58(m.recent_blockhash), v["recent_blockhash"].get<std::string>());

  ASSERT_EQ(m.instructions.size(), v["instructions"].size());
  for (std::size_t i = 0; i < m.instructions.size(); ++i) {
    const auto& expected = v["instructions"][i];
    EXPECT_EQ(m.instructions[i].program_index, expected["program_index"].get<int>());
    EXPECT_EQ(m.instructions[i].accounts, expected["accounts"].get<std::vector<std::uint8_t>>());
    EXPECT_EQ(to_hex(m.instructions[i].data), expected["data_hex"].get<std::string>());
  }
  ASSERT_EQ(m.lookups.size(), v["lookups"].size());
  for (std::size_t i = 0; i < m.lookups.size(); ++i) {
    const auto& expected = v["lookups"][i];
    EXPECT_EQ(to_base58(m.lookups[i].table), expected["table"].get<std::string>());
    EXPECT_EQ(m.lookups[i].writable_indexes, expected["writable"].get<std::vector<std::uint8_t>>());
    EXPECT_EQ(m.lookups[i].readonly_indexes, expected["readonly"].get<std::vector<std::uint8_t>>());
  }
  ASSERT_EQ(tx->signatures.size(), v["signatures_base58"].size());
  for (std::size_t i = 0; i < tx->signatures.size(); ++i) {
    EXPECT_EQ(to_base58(tx->signatures[i]), v["signatures_base58"][i].get<std::string>());
  }
}

TEST_P(V0Vectors, ReserializesByteForByte) {
  const auto v = vector();
  for (const char* field : {"signed_tx_base64", "unsigned_tx_base64"}) {
    const Bytes wire = b64(v[field]);
    auto tx = parse_transaction(wire);
    ASSERT_TRUE(tx.ok()) << field << ": " << tx.error().to_string();
    EXPECT_EQ(serialize_transaction(*tx), wire) << field;
  }
  const Bytes message_wire = b64(v["message_base64"]);
  auto message = parse_message(message_wire);
  ASSERT_TRUE(message.ok()) << message.error().to_string();
  EXPECT_EQ(serialize_message(*message), message_wire);
  auto tx = parse_transaction(b64(v["signed_tx_base64"]));
  ASSERT_TRUE(tx.ok());
  EXPECT_EQ(serialize_message(tx->message), message_wire) << "the signed bytes differ";
}

TEST_P(V0Vectors, SignaturesVerifyAndUnsignedSlotsAreEmpty) {
  const auto v = vector();
  auto signed_tx = parse_transaction(b64(v["signed_tx_base64"]));
  ASSERT_TRUE(signed_tx.ok());
  for (const auto& check : check_signatures(*signed_tx)) {
    EXPECT_EQ(check.state, SignatureState::kValid) << to_base58(check.signer);
  }
  auto unsigned_tx = parse_transaction(b64(v["unsigned_tx_base64"]));
  ASSERT_TRUE(unsigned_tx.ok());
  for (const auto& check : check_signatures(*unsigned_tx)) {
    EXPECT_EQ(check.state, SignatureState::kEmpty);
  }
  // A signature moved to another message must not verify.
  Transaction tampered = *signed_tx;
  tampered.message.recent_blockhash.bytes[0] ^= 1;
  EXPECT_EQ(check_signatures(tampered).front().state, SignatureState::kInvalid);
}

TEST_P(V0Vectors, ResigningTheUnsignedBytesReproducesTheSignedTransaction) {
  const auto v = vector();
  auto tx = parse_transaction(b64(v["unsigned_tx_base64"]));
  ASSERT_TRUE(tx.ok());
  const auto seeds = v["signer_secret_seeds_hex"];
  ASSERT_EQ(seeds.size(), tx->message.header.num_required_signatures);
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    auto keypair = Keypair::from_seed(hex(seeds[i]));
    ASSERT_TRUE(keypair.ok());
    EXPECT_EQ(keypair->public_key(), tx->message.static_keys[i]);
    ASSERT_TRUE(sign_transaction(*tx, *keypair).ok());
  }
  EXPECT_EQ(serialize_transaction(*tx), b64(v["signed_tx_base64"]));
}

TEST_P(V0Vectors, DurableNonceOnlyWhereTheVectorUsesOne) {
  const auto v = vector();
  auto tx = parse_transaction(b64(v["signed_tx_base64"]));
  ASSERT_TRUE(tx.ok());
  auto nonce = durable_nonce(tx->message);
  if (GetParam() == "durable-nonce") {
    ASSERT_TRUE(nonce.has_value());
    EXPECT_EQ(to_base58(nonce->nonce_account), "CFWdRHPKCx4RsLZVZA7eg8crvfkDrGittheeU2ypih2T");
    ASSERT_TRUE(nonce->authority.has_value());
    EXPECT_EQ(*nonce->authority, tx->message.fee_payer());
  } else {
    EXPECT_FALSE(nonce.has_value());
  }
}

INSTANTIATE_TEST_SUITE_P(Web3js, V0Vectors,
                         ::testing::Values("transfer", "compute-budget-and-memo", "two-signers",
                                           "lookup-table", "durable-nonce"),
                         [](const auto& p) {
                           std::string name = p.param;
                           for (auto& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

TEST(V0VectorsCoverage, EveryVectorInTheFileIsTested) {
  std::set<std::string> tested{"transfer", "compute-budget-and-memo", "two-signers", "lookup-table",
                               "durable-nonce"};
  for (const auto& v : test::vector_list("solana-v0-transactions.json")) {
    EXPECT_TRUE(tested.count(v["name"].get<std::string>())) << v["name"] << " is not tested";
  }
}

TEST(V0VectorRoles, LookupTableAccountsFollowTheRuntimeOrder) {
  const auto v = test::vector_named("solana-v0-transactions.json", "lookup-table");
  auto tx = parse_transaction(b64(v["signed_tx_base64"]));
  ASSERT_TRUE(tx.ok());
  auto roles = account_roles(tx->message);
  ASSERT_TRUE(roles.ok());
  ASSERT_EQ(roles->size(), 12U);
  // Static: fee payer (writable signer), one writable, two readonly programs.
  EXPECT_TRUE((*roles)[0].signer && (*roles)[0].writable && (*roles)[0].fee_payer);
  EXPECT_TRUE(!(*roles)[1].signer && (*roles)[1].writable);
  EXPECT_TRUE((*roles)[2].invoked && !(*roles)[2].writable);
  // Loaded: every writable index of the table first (0, 2, 4, 6), then the readonly ones.
  const std::uint8_t expected_table_index[] = {0, 2, 4, 6, 1, 3, 5, 7};
  for (std::size_t i = 4; i < 12; ++i) {
    const auto& role = (*roles)[i];
    EXPECT_EQ(role.table_index, expected_table_index[i - 4]) << i;
    EXPECT_EQ(role.origin, i < 8 ? AccountOrigin::kLookupWritable : AccountOrigin::kLookupReadonly);
    EXPECT_EQ(role.writable, i < 8) << i;
    EXPECT_FALSE(role.key.has_value());
    EXPECT_FALSE(role.signer);
  }
}

}  // namespace
}  // namespace airlock
