// What this machine can compute as a vault's own addresses (offline/src/vault_addresses.cpp),
// against the runtime's derivations computed directly, and the memo that derives each once.
#include <gmock/gmock.h>

#include <airlock/common/display.h>
#include <airlock/common/hash.h>
#include <airlock/common/pda.h>
#include <airlock/common/programs.h>
#include <airlock/offline/review.h>
#include <airlock/offline/vault_addresses.h>

using ::testing::HasSubstr;

namespace airlock::offline {
namespace {

PublicKey key_named(std::string_view name) { return sha256(Bytes(name.begin(), name.end())); }

PublicKey vault_pda(const std::vector<Bytes>& seeds) {
  return find_program_address(seeds, programs::key(kVaultProgram))->first;
}

TEST(Derivations, AgreeWithTheRuntimesFunctionsAndAreMadeOnce) {
  Derivations d;
  const PublicKey owner = key_named("owner"), mint = key_named("mint"), pool = key_named("pool");
  const PublicKey& token = programs::key(programs::kToken);
  const PublicKey& dlmm = programs::key("LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo");
  EXPECT_EQ(d.associated(owner, mint, token), associated_token_address(owner, mint, token));
  for (const std::int64_t bin : {-71, -70, -1, 0, 69, 70, 5000}) {
    EXPECT_EQ(d.bin_array(dlmm, pool, bin), bin_array_address(pool, bin, dlmm)) << bin;
  }
  EXPECT_EQ(d.vault_pda({seed("trader"), seed(owner)}), vault_pda({seed("trader"), seed(owner)}));
  // Asked again, and asked with the same bytes cut into other seeds, it answers as the runtime.
  EXPECT_EQ(d.vault_pda({seed("trader"), seed(owner)}), vault_pda({seed("trader"), seed(owner)}));
  EXPECT_EQ(d.vault_pda({seed("ab"), seed("c")}), vault_pda({seed("ab"), seed("c")}));
  EXPECT_EQ(d.vault_pda({seed("a"), seed("bc")}), vault_pda({seed("a"), seed("bc")}));
  // A seed over 32 bytes has no address, as in the runtime.
  EXPECT_FALSE(d.vault_pda({Bytes(33, 1)}).has_value());
}

TEST(VaultAddresses, NameEveryAddressComputableForTheVault) {
  Derivations d;
  const PublicKey vault = key_named("vault"), mint = key_named("mint"),
                  position = key_named("position");
  VaultAddresses own(vault, d);
  own.add_mint(mint);
  own.add_holding(position);
  const std::string m = to_base58(mint), p = to_base58(position);
  const std::vector<std::pair<PublicKey, std::string>> expected = {
      {vault, "the vault"},
      {vault_pda({seed("perp"), seed(vault)}), "perp strategy"},
      {vault_pda({seed("trader"), seed(vault)}), "perp trader account"},
      {vault_pda({seed("manager_shares"), seed(vault)}), "fee-share account"},
      {associated_token_address(vault, mint, programs::key(programs::kToken)),
       "token account for mint " + m},
      {associated_token_address(vault, mint, programs::key(programs::kToken2022)),
       "token account for mint " + m},
      {vault_pda({seed("aggregator"), seed(vault), seed(mint)}),
       "aggregator strategy for mint " + m},
      {position, "position or order " + p},
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
}

}  // namespace
}  // namespace airlock::offline
