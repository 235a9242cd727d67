// The compiler reproduces @solana/web3.js's compileToV0Message: each vector's instructions,
// recompiled, give the vector's message byte for byte.
#include <gtest/gtest.h>

#include <airlock/apisim/message_builder.h>
#include <airlock/common/transaction.h>

#include "support/vectors.h"

namespace airlock {
namespace {

// The instructions of a message without lookups, with each account's role from the header.
std::vector<Instruction> instructions_of(const Message& m) {
  auto roles = account_roles(m);
  std::vector<Instruction> out;
  for (const auto& ix : m.instructions) {
    Instruction instruction{m.static_keys[ix.program_index], {}, ix.data};
    for (std::uint8_t a : ix.accounts) {
      const auto& role = (*roles)[a];
      instruction.accounts.push_back({*role.key, role.signer, role.writable_requested});
    }
    out.push_back(std::move(instruction));
  }
  return out;
}

TEST(MessageBuilder, ReproducesTheWeb3jsVectors) {
  for (const char* name : {"transfer", "compute-budget-and-memo", "two-signers", "durable-nonce"}) {
    const Bytes wire =
        test::b64(test::vector_named("solana-v0-transactions.json", name).at("message_base64"));
    auto message = parse_message(wire);
    ASSERT_TRUE(message.ok()) << name;
    auto compiled = compile_v0_message(message->fee_payer(), instructions_of(*message),
                                       message->recent_blockhash);
    ASSERT_TRUE(compiled.ok()) << name << ": " << compiled.error().to_string();
    EXPECT_EQ(serialize_message(*compiled), wire) << name;
  }
}

TEST(MessageBuilder, LoadsNonSignersFromTablesAndKeepsSignersAndProgramsStatic) {
  PublicKey payer, program, a, b, c;
  payer.bytes.fill(1);
  program.bytes.fill(2);
  a.bytes.fill(3);
  b.bytes.fill(4);
  c.bytes.fill(5);
  PublicKey table_key;
  table_key.bytes.fill(9);
  const LoadedTable table{table_key, {c, program, b, a, payer}};
  const std::vector<Instruction> ixs = {
      {program, {{payer, true, true}, {a, false, true}, {b, false, false}, {c, false, true}}, {7}}};
  Hash blockhash;
  auto m = compile_v0_message(payer, ixs, blockhash, std::span<const LoadedTable>(&table, 1));
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->static_keys, (std::vector<PublicKey>{payer, program}));
  ASSERT_EQ(m->lookups.size(), 1U);
  EXPECT_EQ(m->lookups[0].writable_indexes, (std::vector<std::uint8_t>{3, 0}));  // a, then c
  EXPECT_EQ(m->lookups[0].readonly_indexes, (std::vector<std::uint8_t>{2}));     // b
  // Instruction indexes: static 0-1, then loaded writable a=2, c=3, then readonly b=4.
  EXPECT_EQ(m->instructions[0].accounts, (std::vector<std::uint8_t>{0, 2, 4, 3}));
  auto roles = account_roles(*m, std::span<const LoadedTable>(&table, 1));
  ASSERT_TRUE(roles.ok());
  EXPECT_EQ((*roles)[2].key, a);
  EXPECT_EQ((*roles)[4].key, b);
}

}  // namespace
}  // namespace airlock
