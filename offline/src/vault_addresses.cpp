#include <algorithm>

#include <airlock/common/display.h>
#include <airlock/common/pda.h>
#include <airlock/common/programs.h>
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

PublicKey Derivations::associated(const PublicKey& owner, const PublicKey& mint,
                                  const PublicKey& token_program) {
  // Three 32-byte seeds always find an address; an all-zero key never matches a real one.
  static const PublicKey& program = programs::key(programs::kAssociatedToken);
  return pda(associated_token_seeds(owner, mint, token_program), program).value_or(PublicKey{});
}

PublicKey Derivations::bin_array(const PublicKey& program, const PublicKey& pool,
                                 std::int64_t bin) {
  return pda(bin_array_seeds(pool, bin), program).value_or(PublicKey{});
}

VaultAddresses::VaultAddresses(const PublicKey& vault, const PublicKey& manager,
                               Derivations& derivations)
    : vault_(vault),
      manager_(manager),
      token_(programs::key(programs::kToken)),
      token_2022_(programs::key(programs::kToken2022)),
      derive_(derivations) {}

void VaultAddresses::describe(const Descriptor& descriptor) {
  for (const auto& rule : descriptor.own_addresses) {
    if (std::any_of(rules_.begin(), rules_.end(), [&](const Rule& r) { return r.own == &rule; }))
      continue;
    rules_.push_back(
        {&rule, rule.ata_owner ? &descriptor.own_addresses[*rule.ata_owner] : nullptr});
  }
}
// A mint or holding named again (by the policy, the hints, the body and the step alike) adds
// nothing: each is derived for once.
void VaultAddresses::add_mint(const PublicKey& mint) {
  if (std::find(mints_.begin(), mints_.end(), mint) == mints_.end()) mints_.push_back(mint);
}
void VaultAddresses::add_holding(const PublicKey& account) {
  if (std::find(holdings_.begin(), holdings_.end(), account) == holdings_.end())
    holdings_.push_back(account);
}

std::optional<std::string> VaultAddresses::what(const PublicKey& key) {
  compute_pending();
  const auto it = own_.find(key);
  if (it == own_.end()) return std::nullopt;
  std::string text(it->second.what);
  if (it->second.subject) text += " " + to_base58(*it->second.subject);
  if (it->second.mint) text += ", mint " + to_base58(*it->second.mint);
  return text;
}

void VaultAddresses::derive(const Rule& rule, const std::optional<PublicKey>& holding,
                            const std::optional<PublicKey>& mint) {
  const OwnAddress& own = *rule.own;
  if (rule.ata_owner != nullptr) {
    std::optional<PublicKey> owner;
    if (holding) {
      const auto found = derived_for_.find({rule.ata_owner, *holding});
      if (found != derived_for_.end()) owner = found->second;
    } else if (rule.ata_owner->subject == OwnAddress::For::kMint) {
      const auto found = mint ? derived_for_.find({rule.ata_owner, *mint}) : derived_for_.end();
      if (found != derived_for_.end()) owner = found->second;
    } else if (const auto found = derived_.find(rule.ata_owner); found != derived_.end()) {
      owner = found->second;
    }
    if (!owner || !mint) return;  // no bump found for the owner: nothing to own
    const Own named = holding ? Own{own.what, holding, mint} : Own{own.what, mint, std::nullopt};
    for (const PublicKey* program : {&token_, &token_2022_})
      own_.emplace(derive_.associated(*owner, *mint, *program), named);
    return;
  }
  std::vector<Bytes> seeds;
  for (const auto& s : own.pda.seeds) {
    if (s.kind == SeedSource::Kind::kConst)
      seeds.push_back(s.bytes);
    else if (s.account == "vault")
      seeds.push_back(seed(vault_));
    else
      seeds.push_back(
          seed(s.account == "mint" ? mint.value_or(PublicKey{}) : holding.value_or(PublicKey{})));
  }
  const auto address = derive_.pda(seeds, own.pda.program);
  if (!address) return;
  own_.emplace(*address, Own{own.what, holding ? holding : mint, std::nullopt});
  if (own.subject == OwnAddress::For::kVault) derived_.emplace(rule.own, *address);
  if (own.subject == OwnAddress::For::kHolding && holding)
    derived_for_.emplace(std::make_pair(rule.own, *holding), *address);
  if (own.subject == OwnAddress::For::kMint && mint)
    derived_for_.emplace(std::make_pair(rule.own, *mint), *address);
}

// Each address once: new mints against the rules already applied (and the holdings already
// taken), new holdings against them (and every mint), then new rules against every mint and
// holding. A rule comes after the rule it takes token accounts of, so that one is derived first.
void VaultAddresses::compute_pending() {
  if (!fixed_done_) {
    fixed_done_ = true;
    own_.emplace(vault_, Own{"the vault", std::nullopt, std::nullopt});
    own_.emplace(manager_, Own{"the manager's key", std::nullopt, std::nullopt});
  }
  using For = OwnAddress::For;
  for (; mints_done_ < mints_.size(); ++mints_done_) {
    const PublicKey& mint = mints_[mints_done_];
    for (const PublicKey* program : {&token_, &token_2022_}) {
      own_.emplace(derive_.associated(vault_, mint, *program),
                   Own{"the vault's token account for mint", mint, std::nullopt});
      own_.emplace(derive_.associated(manager_, mint, *program),
                   Own{"the manager's token account for mint", mint, std::nullopt});
    }
    for (std::size_t r = 0; r < rules_done_; ++r) {
      if (rules_[r].own->subject == For::kMint) derive(rules_[r], std::nullopt, mint);
      if (rules_[r].own->subject != For::kHoldingMint) continue;
      for (std::size_t h = 0; h < holdings_done_; ++h) derive(rules_[r], holdings_[h], mint);
    }
  }
  for (; holdings_done_ < holdings_.size(); ++holdings_done_) {
    const PublicKey& holding = holdings_[holdings_done_];
    own_.emplace(holding, Own{"the vault's position, order or strategy", holding, std::nullopt});
    for (std::size_t r = 0; r < rules_done_; ++r) {
      if (rules_[r].own->subject == For::kHolding) derive(rules_[r], holding, std::nullopt);
      if (rules_[r].own->subject != For::kHoldingMint) continue;
      for (const auto& mint : mints_) derive(rules_[r], holding, mint);
    }
  }
  for (; rules_done_ < rules_.size(); ++rules_done_) {
    const Rule& rule = rules_[rules_done_];
    switch (rule.own->subject) {
      case For::kVault:
        derive(rule, std::nullopt, std::nullopt);
        break;
      case For::kMint:
        for (const auto& mint : mints_) derive(rule, std::nullopt, mint);
        break;
      case For::kHolding:
        for (const auto& holding : holdings_) derive(rule, holding, std::nullopt);
        break;
      case For::kHoldingMint:
        for (const auto& holding : holdings_) {
          for (const auto& mint : mints_) derive(rule, holding, mint);
        }
        break;
    }
  }
}

}  // namespace airlock::offline
