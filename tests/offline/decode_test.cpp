// Built-in decoders and the registry, on the web3.js vectors' instructions and hand-made data.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/programs.h>
#include <airlock/common/transaction.h>
#include <airlock/offline/decode.h>
#include <airlock/offline/idl.h>

#include "support/vectors.h"

using ::testing::HasSubstr;

namespace airlock::offline {
namespace {

const PublicKey& key(std::string_view k) { return programs::key(k); }

Result<Decoded> decode_vector_ix(const DecoderRegistry& registry, const std::string& name,
                                 std::size_t index) {
  auto tx =
      parse_transaction(
          test::b64(test::vector_named("solana-v0-transactions.json", name).at("signed_tx_base64")))
          .value();
  const auto& ix = tx.message.instructions[index];
  return registry.decode(tx.message.static_keys[ix.program_index], ix.data, ix.accounts.size());
}

TEST(BuiltinDecoders, TheVectorsInstructions) {
  const DecoderRegistry registry;
  auto transfer = decode_vector_ix(registry, "transfer", 0);
  ASSERT_TRUE(transfer.ok()) << transfer.error().to_string();
  EXPECT_EQ(transfer->program, "System Program");
  EXPECT_EQ(transfer->instruction, "transfer");
  EXPECT_EQ(transfer->args["lamports"], "1234567");
  EXPECT_EQ(transfer->account_names, (std::vector<std::string>{"from", "to"}));

  auto limit = decode_vector_ix(registry, "compute-budget-and-memo", 0);
  ASSERT_TRUE(limit.ok());
  EXPECT_EQ(limit->instruction, "set_compute_unit_limit");
  EXPECT_EQ(limit->args["units"], 400000);
  auto price = decode_vector_ix(registry, "compute-budget-and-memo", 1);
  EXPECT_EQ(price->instruction, "set_compute_unit_price");
  EXPECT_EQ(price->args["micro_lamports"], "25000");
  auto memo = decode_vector_ix(registry, "compute-budget-and-memo", 2);
  ASSERT_TRUE(memo.ok());
  EXPECT_EQ(memo->args["text"], "airlock vector");

  auto advance = decode_vector_ix(registry, "durable-nonce", 0);
  ASSERT_TRUE(advance.ok());
  EXPECT_EQ(advance->instruction, "advance_nonce_account");
  EXPECT_EQ(advance->account_names[2], "nonce_authority");

  auto unknown = decode_vector_ix(registry, "two-signers", 0);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code(), offline::errors::kIdlUndecodable);
  EXPECT_THAT(unknown.error().message(), HasSubstr("unknown"));
}

Bytes le(std::uint64_t v, int n) {
  Bytes out;
  for (int i = 0; i < n; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  return out;
}

Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(BuiltinDecoders, TokenInstructions) {
  const DecoderRegistry registry;
  const PublicKey& token = key(programs::kToken);
  auto checked = registry.decode(token, cat({{12}, le(1'000'000, 8), {6}}), 4);
  ASSERT_TRUE(checked.ok()) << checked.error().to_string();
  EXPECT_EQ(checked->instruction, "transfer_checked");
  EXPECT_EQ(checked->args["amount"], "1000000");
  EXPECT_EQ(checked->args["decimals"], 6);
  EXPECT_EQ(checked->account_names[3], "owner");

  PublicKey new_owner;
  new_owner.bytes.fill(7);
  auto set_authority = registry.decode(
      token, cat({{6, 2, 1}, Bytes(new_owner.bytes.begin(), new_owner.bytes.end())}), 2);
  ASSERT_TRUE(set_authority.ok());
  EXPECT_EQ(set_authority->args["authority_type"], "account_owner");
  EXPECT_EQ(set_authority->args["new_authority"], to_base58(new_owner));
  auto revoke_authority = registry.decode(token, Bytes{6, 3, 0}, 2);
  ASSERT_TRUE(revoke_authority.ok());
  EXPECT_TRUE(revoke_authority->args["new_authority"].is_null());

  EXPECT_EQ(registry.decode(token, cat({{4}, le(5, 8)}), 3)->instruction, "approve");
  EXPECT_EQ(registry.decode(key(programs::kToken2022), Bytes{9}, 3)->instruction, "close_account");
  EXPECT_EQ(registry.decode(key(programs::kToken2022), Bytes{9}, 3)->program,
            "SPL Token-2022 Program");

  EXPECT_FALSE(registry.decode(token, Bytes{6, 9, 0}, 2).ok()) << "authority type 9 does not exist";
  EXPECT_FALSE(registry.decode(token, cat({{12}, le(1, 8)}), 4).ok()) << "missing decimals";
  EXPECT_FALSE(registry.decode(token, cat({{3}, le(1, 8), {0}}), 3).ok()) << "trailing byte";
  EXPECT_FALSE(registry.decode(token, cat({{3}, le(1, 8)}), 2).ok()) << "too few accounts";
  EXPECT_FALSE(registry.decode(token, Bytes{26, 0}, 3).ok()) << "extensions are not decoded";
  EXPECT_FALSE(registry.decode(token, Bytes{6, 0, 2}, 2).ok()) << "option tag 2";
}

TEST(BuiltinDecoders, ARefusalNamesTheFieldWhereTheDataFails) {
  const DecoderRegistry registry;
  const auto message = [&](std::string_view program, const Bytes& data, std::size_t accounts) {
    auto decoded = registry.decode(key(program), data, accounts);
    EXPECT_FALSE(decoded.ok());
    return decoded.ok() ? std::string() : decoded.error().message();
  };
  EXPECT_THAT(message(programs::kToken, cat({{12}, le(1, 8)}), 4),
              HasSubstr("transfer_checked: decimals: needs 1 bytes at offset 9"));
  EXPECT_THAT(message(programs::kToken, Bytes{6, 0, 2}, 2),
              HasSubstr("set_authority: new_authority: option tag 2 is neither 0 nor 1"));
  EXPECT_THAT(message(programs::kToken, Bytes{6, 9, 0}, 2),
              HasSubstr("set_authority: authority_type: 9 is not one of 0 to 3"));
  EXPECT_THAT(message(programs::kSystem, cat({le(2, 4), le(1, 4)}), 2),
              HasSubstr("transfer: lamports: needs 8 bytes at offset 4"));
  EXPECT_THAT(message(programs::kSystem, cat({le(3, 4), Bytes(32, 1), le(1000, 8)}), 2),
              HasSubstr("create_account_with_seed: seed: needs 1000 bytes"));
  EXPECT_THAT(message(programs::kComputeBudget, Bytes{0, 1, 0, 0, 0}, 0),
              HasSubstr("request_units: additional_fee: needs 4 bytes at offset 5"));
}

TEST(BuiltinDecoders, AssociatedTokenComputeBudgetSystemAndMemoEdges) {
  const DecoderRegistry registry;
  const PublicKey& ata = key(programs::kAssociatedToken);
  EXPECT_EQ(registry.decode(ata, Bytes{}, 6)->instruction, "create");
  EXPECT_EQ(registry.decode(ata, Bytes{1}, 6)->instruction, "create_idempotent");
  EXPECT_EQ(registry.decode(ata, Bytes{2}, 7)->instruction, "recover_nested");
  EXPECT_FALSE(registry.decode(ata, Bytes{3}, 7).ok());
  EXPECT_FALSE(registry.decode(ata, Bytes{1, 0}, 6).ok());
  EXPECT_FALSE(registry.decode(ata, Bytes{1}, 5).ok());

  const PublicKey& budget = key(programs::kComputeBudget);
  EXPECT_FALSE(registry.decode(budget, Bytes{2, 1, 2, 3, 4, 5}, 0).ok()) << "trailing byte";
  EXPECT_FALSE(registry.decode(budget, Bytes{9}, 0).ok());
  EXPECT_FALSE(registry.decode(budget, Bytes{}, 0).ok());

  const PublicKey& system = key(programs::kSystem);
  EXPECT_FALSE(registry.decode(system, Bytes{2, 0}, 2).ok()) << "tag cut short";
  EXPECT_EQ(registry.decode(system, cat({le(1, 4), Bytes(32, 9)}), 1)->instruction, "assign");
  const std::string seed = "vault";
  auto with_seed =
      registry.decode(system,
                      cat({le(3, 4), Bytes(32, 1), le(seed.size(), 8),
                           Bytes(seed.begin(), seed.end()), le(10, 8), le(0, 8), Bytes(32, 2)}),
                      2);
  ASSERT_TRUE(with_seed.ok()) << with_seed.error().to_string();
  EXPECT_EQ(with_seed->args["seed"], "vault");
  EXPECT_FALSE(registry.decode(system, cat({le(3, 4), Bytes(32, 1), le(1000, 8)}), 2).ok())
      << "seed longer than the data";

  EXPECT_FALSE(registry.decode(key(programs::kMemo), Bytes{0xc3, 0x28}, 0).ok()) << "invalid UTF-8";
}

TEST(Registry, IdlProgramsDecodeWithNamesAndNestedRoutes) {
  DecoderRegistry registry;
  ASSERT_TRUE(registry.add_idl_folder(AIRLOCK_IDL_DIR).ok());
  const PublicKey& vault = key("AirLockVau1t1111111111111111111111111111111");
  EXPECT_TRUE(registry.knows(vault));
  // aggregator_sweep(mint, amount, slippage, route) with a one-hop Whirlpool route inside.
  Bytes route = cat({{229, 23, 203, 151, 122, 227, 173, 42},
                     le(1, 4),
                     {17, 1, 100, 0, 1},
                     le(1000, 8),
                     le(990, 8),
                     le(50, 2),
                     {0}});
  auto idl = load_idl_file(std::string(AIRLOCK_IDL_DIR) + "/airlock_vault.json").value();
  const Bytes sweep = find_instruction(idl, "aggregator_sweep")->discriminator;
  auto decoded = registry.decode(
      vault, cat({sweep, Bytes(32, 4), le(1000, 8), le(50, 2), le(route.size(), 4), route}), 10);
  ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
  EXPECT_EQ(decoded->program, "airlock_vault");
  EXPECT_EQ(decoded->instruction, "aggregator_sweep");
  EXPECT_EQ(decoded->account_names[0], "vault");
  // The route is decoded only as the program the instruction passes for it: nothing is nested
  // until the accounts say which program that is.
  EXPECT_EQ(decoded->nested.count("route"), 0U);
  std::vector<std::optional<PublicKey>> keys(9, key("11111111111111111111111111111111"));
  ASSERT_EQ(decoded->account_names[7], "jupiter_program");
  {
    // Addressed to another program (Meteora DLMM), the same bytes are not Jupiter's.
    auto other = *decoded;
    keys[7] = key("LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo");
    EXPECT_FALSE(registry.decode_cpi_arguments(other, keys).ok());
    EXPECT_EQ(other.nested.count("route"), 0U);
  }
  keys[7] = key("JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4");
  ASSERT_TRUE(registry.decode_cpi_arguments(*decoded, keys).ok());
  ASSERT_EQ(decoded->nested.count("route"), 1U);
  EXPECT_EQ(decoded->nested.at("route").instruction, "route");
  EXPECT_EQ(decoded->nested.at("route").args["route_plan"][0]["swap"]["variant"], "Whirlpool");
  EXPECT_EQ(decoded->nested.at("route").args["quoted_out_amount"], "990");
  EXPECT_FALSE(registry.decode(vault, cat({sweep, Bytes(32, 4)}), 10).ok());
  EXPECT_FALSE(
      registry
          .decode(vault,
                  cat({sweep, Bytes(32, 4), le(1000, 8), le(50, 2), le(route.size(), 4), route}), 3)
          .ok())
      << "too few accounts for the IDL";
  EXPECT_EQ(registry.add_idl_folder("/nonexistent").error().code(), ErrorCode::kIo);
}

// One program may have several IDLs (Phoenix's published one and the twin's onboarding), but
// never two instructions whose data could be confused: a discriminator that is a prefix of
// another's is refused, inside one IDL or across a program's IDLs.
TEST(Registry, SeveralIdlsForOneProgramNeverOverlap) {
  const auto idl = [](const std::string& name, const nlohmann::json& instructions) {
    return parse_idl({{"address", "PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY"},
                      {"metadata", {{"name", name}, {"version", "1"}, {"spec", "0.1.0"}}},
                      {"instructions", instructions}});
  };
  const auto ix = [](const std::string& name, const std::vector<unsigned>& disc) {
    return nlohmann::json{{"name", name},
                          {"discriminator", disc},
                          {"accounts", nlohmann::json::array()},
                          {"args", nlohmann::json::array()}};
  };
  auto within = idl("one", nlohmann::json::array({ix("a", {14}), ix("b", {14, 89})}));
  ASSERT_FALSE(within.ok());
  EXPECT_THAT(within.error().message(), HasSubstr("overlaps a's"));

  DecoderRegistry registry;
  ASSERT_TRUE(
      registry.add_idl(idl("tags", nlohmann::json::array({ix("request_seat", {14})})).value())
          .ok());
  auto clash =
      registry.add_idl(idl("twin", nlohmann::json::array({ix("onboard", {14, 89, 65})})).value());
  ASSERT_FALSE(clash.ok());
  EXPECT_THAT(clash.error().message(), HasSubstr("onboard"));
  EXPECT_THAT(clash.error().message(), HasSubstr("request_seat"));
  ASSERT_TRUE(
      registry.add_idl(idl("twin", nlohmann::json::array({ix("onboard", {84, 87})})).value()).ok());
  const PublicKey& program = key("PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY");
  EXPECT_EQ(registry.decode(program, Bytes{14}, 0).value().program, "tags");
  EXPECT_EQ(registry.decode(program, Bytes{84, 87}, 0).value().instruction, "onboard");
  EXPECT_FALSE(registry.decode(program, Bytes{15}, 0).ok());
  // A later IDL with the same name replaces the earlier one.
  ASSERT_TRUE(registry.add_idl(idl("tags", nlohmann::json::array({ix("log", {15})})).value()).ok());
  EXPECT_FALSE(registry.decode(program, Bytes{14}, 0).ok());
  EXPECT_EQ(registry.decode(program, Bytes{15}, 0).value().instruction, "log");
}

// The shipped folder holds both IDLs of the Phoenix address; the twin's onboarding and a
// Phoenix order decode side by side, each named by its own IDL.
TEST(Registry, TheShippedPhoenixAndTwinVenueIdlsCoexist) {
  DecoderRegistry registry;
  ASSERT_TRUE(registry.add_idl_folder(AIRLOCK_IDL_DIR).ok());
  const PublicKey& program = key("PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY");
  auto onboard = registry.decode(program, Bytes{'T', 'W', 'I', 'N', 'O', 'N', 'B', 'D'}, 4);
  ASSERT_TRUE(onboard.ok()) << onboard.error().to_string();
  EXPECT_EQ(onboard->program, "airlock_perp_venue");
  auto seat = registry.decode(program, Bytes{14}, 6);
  ASSERT_TRUE(seat.ok()) << seat.error().to_string();
  EXPECT_EQ(seat->program, "phoenix_v1");
  EXPECT_EQ(seat->instruction, "request_seat");
  EXPECT_EQ(seat->account_names[3], "payer");
}

}  // namespace
}  // namespace airlock::offline
