#include <airlock/common/display.h>
#include <airlock/common/pda.h>
#include <airlock/common/programs.h>
#include <airlock/offline/review.h>
#include <airlock/offline/templates.h>
#include <airlock/offline/vault_addresses.h>

namespace airlock::offline {
std::optional<PublicKey> Derivations::pda(const std::vector<Bytes>& seeds,
                                          const PublicKey& program) {
  Bytes key;
  for (const auto& s : seeds) {
    key.push_back(static_cast<std::uint8_t>(s.size()));  // a seed is at most 32 bytes
    key.insert(key.end(), s.begin(), s.end());
  }
  key.insert(key.end(), program.bytes.begin(), program.bytes.end());
  if (const auto it = memo_.find(key); it != memo_.end()) return it->second;
  const auto found = find_program_address(seeds, program);
  std::optional<PublicKey> address;
  if (found) address = found->first;
  memo_.emplace(std::move(key), address);
  return address;
}

std::optional<PublicKey> Derivations::vault_pda(const std::vector<Bytes>& seeds) {
  return pda(seeds, programs::key(kVaultProgram));
}

PublicKey Derivations::associated(const PublicKey& owner, const PublicKey& mint,
                                  const PublicKey& token_program) {
  // Three 32-byte seeds always find an address; an all-zero key never matches a real one.
  return pda(associated_token_seeds(owner, mint, token_program),
             programs::key(programs::kAssociatedToken))
      .value_or(PublicKey{});
}

PublicKey Derivations::bin_array(const PublicKey& program, const PublicKey& pool,
                                 std::int64_t bin) {
  return pda(bin_array_seeds(pool, bin), program).value_or(PublicKey{});
}

VaultAddresses::VaultAddresses(const PublicKey& vault, Derivations& derivations)
    : vault_(vault), derive_(derivations) {}

void VaultAddresses::add_mint(const PublicKey& mint) { pending_mints_.push_back(mint); }
void VaultAddresses::add_holding(const PublicKey& account) { pending_holdings_.push_back(account); }

std::optional<std::string> VaultAddresses::what(const PublicKey& key) {
  compute_pending();
  const auto it = own_.find(key);
  if (it == own_.end()) return std::nullopt;
  const std::string subject = to_base58(it->second.subject);
  switch (it->second.kind) {
    case Kind::kVault:
      return "the vault";
    case Kind::kPerpStrategy:
      return "the vault's perp strategy";
    case Kind::kTrader:
      return "the vault's perp trader account";
    case Kind::kManagerShares:
      return "the manager's fee-share account of the vault";
    case Kind::kTokenAccount:
      return "the vault's token account for mint " + subject;
    case Kind::kAggregatorStrategy:
      return "the vault's aggregator strategy for mint " + subject;
    case Kind::kHolding:
      return "the vault's position or order " + subject;
    case Kind::kPositionStrategy:
      return "the vault's strategy for position " + subject;
    case Kind::kOrderStrategy:
      return "the vault's strategy for limit order " + subject;
  }
  return std::nullopt;
}

void VaultAddresses::compute_pending() {
  const auto note = [&](const std::optional<PublicKey>& address, Kind kind,
                        const PublicKey& subject) {
    if (address) own_.emplace(*address, Own{kind, subject});
  };
  if (!fixed_done_) {
    fixed_done_ = true;
    note(vault_, Kind::kVault, vault_);
    note(derive_.vault_pda({seed("perp"), seed(vault_)}), Kind::kPerpStrategy, vault_);
    note(derive_.vault_pda({seed("trader"), seed(vault_)}), Kind::kTrader, vault_);
    note(derive_.vault_pda({seed("manager_shares"), seed(vault_)}), Kind::kManagerShares, vault_);
  }
  for (const auto& mint : pending_mints_) {
    for (const auto program : {programs::kToken, programs::kToken2022})
      note(derive_.associated(vault_, mint, programs::key(program)), Kind::kTokenAccount, mint);
    note(derive_.vault_pda({seed("aggregator"), seed(vault_), seed(mint)}),
         Kind::kAggregatorStrategy, mint);
  }
  pending_mints_.clear();
  for (const auto& holding : pending_holdings_) {
    note(holding, Kind::kHolding, holding);
    note(derive_.vault_pda({seed("dlmm"), seed(vault_), seed(holding)}), Kind::kPositionStrategy,
         holding);
    note(derive_.vault_pda({seed("limit_order"), seed(vault_), seed(holding)}),
         Kind::kOrderStrategy, holding);
  }
  pending_holdings_.clear();
}

}  // namespace airlock::offline
