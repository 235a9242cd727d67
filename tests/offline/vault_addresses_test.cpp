// What this machine can compute as a vault's own addresses (offline/src/vault_addresses.cpp),
// from the descriptor's own_addresses, against the runtime's derivations computed directly, and
// the memo that derives each once.
#include <gmock/gmock.h>

#include <airlock/common/display.h>
#include <airlock/common/hash.h>
#include <airlock/common/pda.h>
#include <airlock/common/programs.h>
#include <airlock/offline/descriptor.h>
#include <airlock/offline/review.h>
#include <airlock/offline/vault_addresses.h>

#include "support/interfaces.h"

using ::testing::HasSubstr;

namespace airlock::offline {
namespace {

PublicKey key_named(std::string_view name) { return sha256(Bytes(name.begin(), name.end())); }

PublicKey vault_pda(const std::vector<Bytes>& seeds) {
  return find_program_address(seeds, programs::key(kVaultProgram))->first;
}

Descriptor descriptor_at(const std::string& path) { return load_descriptor_file(path).value(); }

TEST(Derivations, AgreeWithTheRuntimesFunctionsAndAreMadeOnce) {
  Derivations d;
  const PublicKey owner = key_named("owner"), mint = key_named("mint"), pool = key_named("pool");
  const PublicKey& token = programs::key(programs::kToken);
  const PublicKey& dlmm = programs::key("LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo");
  EXPECT_EQ(d.associated(owner, mint, token), associated_token_address(owner, mint, token));
  for (const std::int64_t bin : {-71, -70, -1, 0, 69, 70, 5000}) {
    EXPECT_EQ(d.bin_array(dlmm, pool, bin), bin_array_address(pool, bin, dlmm)) << bin;
  }
  const PublicKey& vault = programs::key(kVaultProgram);
  EXPECT_EQ(d.pda({seed("trader"), seed(owner)}, vault), vault_pda({seed("trader"), seed(owner)}));
  // Asked again, and asked with the same bytes cut into other seeds, it answers as the runtime.
  EXPECT_EQ(d.pda({seed("trader"), seed(owner)}, vault), vault_pda({seed("trader"), seed(owner)}));
  EXPECT_EQ(d.pda({seed("ab"), seed("c")}, vault), vault_pda({seed("ab"), seed("c")}));
  EXPECT_EQ(d.pda({seed("a"), seed("bc")}, vault), vault_pda({seed("a"), seed("bc")}));
  // A seed over 32 bytes has no address, as in the runtime.
  EXPECT_FALSE(d.pda({Bytes(33, 1)}, vault).has_value());
}

TEST(VaultAddresses, NameEveryAddressComputableForTheVault) {
  Derivations d;
  const PublicKey vault = key_named("vault"), mint = key_named("mint"),
                  position = key_named("position"), manager = key_named("manager");
  const Descriptor twin = descriptor_at(test::twin_descriptor_path());
  VaultAddresses own(vault, manager, d);
  own.add_mint(mint);
  own.add_holding(position);
  own.describe(twin);  // after the mint and the holding: they are derived for it all the same
  const std::string m = to_base58(mint), p = to_base58(position);
  const std::vector<std::pair<PublicKey, std::string>> expected = {
      {vault, "the vault"},
      {manager, "the manager's key"},
      {associated_token_address(manager, mint, programs::key(programs::kToken)),
       "the manager's token account for mint " + m},
      {associated_token_address(manager, mint, programs::key(programs::kToken2022)),
       "the manager's token account for mint " + m},
      {vault_pda({seed("perp"), seed(vault)}), "perp strategy"},
      {vault_pda({seed("trader"), seed(vault)}), "perp trader account"},
      {vault_pda({seed("manager_shares"), seed(vault)}), "fee-share account"},
      {associated_token_address(vault, mint, programs::key(programs::kToken)),
       "token account for mint " + m},
      {associated_token_address(vault, mint, programs::key(programs::kToken2022)),
       "token account for mint " + m},
      {vault_pda({seed("aggregator"), seed(vault), seed(mint)}),
       "aggregator strategy for mint " + m},
      {associated_token_address(vault_pda({seed("aggregator"), seed(vault), seed(mint)}), mint,
                                programs::key(programs::kToken)),
       "aggregator strategy's token account for mint " + m},
      {associated_token_address(vault_pda({seed("aggregator"), seed(vault), seed(mint)}), mint,
                                programs::key(programs::kToken2022)),
       "aggregator strategy's token account for mint " + m},
      {position, "position, order or strategy " + p},
      {vault_pda({seed("dlmm"), seed(vault), seed(position)}), "strategy for position " + p},
      {vault_pda({seed("limit_order"), seed(vault), seed(position)}),
       "strategy for limit order " + p}};
  for (const auto& [key, what] : expected) {
    const auto said = own.what(key);
    ASSERT_TRUE(said.has_value()) << what;
    EXPECT_THAT(*said, HasSubstr(what));
  }
  // Another vault's, and a mint added after the first question, are told apart.
  const PublicKey other = key_named("other vault");
  EXPECT_FALSE(own.what(associated_token_address(other, mint, programs::key(programs::kToken))));
  EXPECT_FALSE(own.what(mint)) << "a mint is no account of the vault's";
  const PublicKey later = key_named("later mint");
  own.add_mint(later);
  EXPECT_TRUE(own.what(associated_token_address(vault, later, programs::key(programs::kToken))));
  EXPECT_TRUE(own.what(associated_token_address(manager, later, programs::key(programs::kToken))));
  EXPECT_TRUE(own.what(vault_pda({seed("aggregator"), seed(vault), seed(later)})));
  EXPECT_TRUE(
      own.what(associated_token_address(vault_pda({seed("aggregator"), seed(vault), seed(later)}),
                                        later, programs::key(programs::kToken))));
  EXPECT_FALSE(own.what(
      associated_token_address(key_named("someone"), mint, programs::key(programs::kToken))));
}

// What is the vault's own beyond its token accounts and holdings is the descriptor's to say: with
// none, the twin's strategies are nobody's; with Voltr's, Voltr's vault accounts are the vault's.
TEST(VaultAddresses, BeyondTheTokenAccountsEachProgramsOwnAddressesComeFromItsDescriptor) {
  Derivations d;
  const PublicKey vault = key_named("vault"), mint = key_named("mint"),
                  strategy = key_named("strategy"), manager = key_named("manager");
  VaultAddresses bare(vault, manager, d);
  bare.add_mint(mint);
  EXPECT_TRUE(bare.what(associated_token_address(vault, mint, programs::key(programs::kToken))));
  EXPECT_FALSE(bare.what(vault_pda({seed("perp"), seed(vault)})));

  const Descriptor voltr = descriptor_at(AIRLOCK_VOLTR_DESCRIPTOR);
  const PublicKey program = voltr.program_named("voltr")->id;
  const auto voltr_pda = [&](const std::vector<Bytes>& seeds) {
    return find_program_address(seeds, program)->first;
  };
  VaultAddresses own(vault, manager, d);
  own.describe(voltr);
  own.describe(voltr);  // twice is once
  own.add_mint(mint);
  own.add_holding(strategy);
  const PublicKey idle = voltr_pda({seed("vault_asset_idle_auth"), seed(vault)});
  const std::string m = to_base58(mint), s = to_base58(strategy);
  const std::vector<std::pair<PublicKey, std::string>> expected = {
      {voltr_pda({seed("vault_lp_mint"), seed(vault)}), "the vault's LP mint"},
      {idle, "the authority over the vault's idle asset"},
      {associated_token_address(idle, mint, programs::key(programs::kToken)),
       "idle asset account for mint " + m},
      {associated_token_address(idle, mint, programs::key(programs::kToken2022)),
       "idle asset account for mint " + m},
      {voltr_pda({seed("vault_strategy_auth"), seed(vault), seed(strategy)}),
       "authority over strategy " + s},
      {associated_token_address(
           voltr_pda({seed("vault_strategy_auth"), seed(vault), seed(strategy)}), mint,
           programs::key(programs::kToken)),
       "the vault's asset account for strategy " + s + ", mint " + m},
      {voltr_pda({seed("strategy_init_receipt"), seed(vault), seed(strategy)}),
       "init receipt for strategy " + s}};
  for (const auto& [key, what] : expected) {
    const auto said = own.what(key);
    ASSERT_TRUE(said.has_value()) << what;
    EXPECT_THAT(*said, HasSubstr(what));
  }
  EXPECT_FALSE(own.what(vault_pda({seed("perp"), seed(vault)}))) << "the twin's, not Voltr's";
}

}  // namespace
}  // namespace airlock::offline
