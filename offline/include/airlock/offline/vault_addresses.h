// The addresses this machine can compute for a vault by itself, and the derivations behind
// them, each made once per request.
//
// An account that the router or the online half chooses (a route account, a pool or market
// the chain checks, an unbound account) may be any account of the outside world, but never one
// of the vault's own: a route account that is the vault's token account for another mint, one of
// its strategies, its perp trader account or a position it holds would let the review call the
// vault's own money "the router's choice of pool". VaultAddresses says what such a key is.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <airlock/common/bytes.h>
#include <airlock/offline/descriptor.h>

namespace airlock::offline {

// find_program_address and the addresses built on it, memoised: a request derives each
// address once, however many steps and rules ask for it.
class Derivations {
 public:
  [[nodiscard]] std::optional<PublicKey> pda(const std::vector<Bytes>& seeds,
                                             const PublicKey& program);
  [[nodiscard]] PublicKey associated(const PublicKey& owner, const PublicKey& mint,
                                     const PublicKey& token_program);
  // Meteora DLMM's bin array holding `bin` in `pool`, under `program`.
  [[nodiscard]] PublicKey bin_array(const PublicKey& program, const PublicKey& pool,
                                    std::int64_t bin);

 private:
  std::map<Bytes, std::optional<PublicKey>> memo_;  // seeds (length-prefixed) then the program
};

// The vault itself, its token accounts for each mint (SPL Token and Token-2022) and the
// holdings are its own under every program; the rest are the own addresses the descriptor of
// the request's action states (OwnAddress), e.g. its strategies and its perp trader account.
// The manager's key and its token accounts for each mint count too: they are the signer's own
// money, which no route or market may be said to choose.
class VaultAddresses {
 public:
  VaultAddresses(const PublicKey& vault, const PublicKey& manager, Derivations& derivations);

  // The own addresses `descriptor` states for its vaults; several descriptors add up.
  void describe(const Descriptor& descriptor);
  // A mint the request, the policy or the hints name: the vault's token accounts for it (under
  // SPL Token and Token-2022) and its aggregator strategy for it are the vault's own.
  void add_mint(const PublicKey& mint);
  // A position or limit order the request names or makes: it and its strategy are the vault's.
  void add_holding(const PublicKey& account);

  // What `key` is to the vault ("the vault's token account for mint …"), or nullopt when it is
  // none of the addresses this machine can compute for it.
  [[nodiscard]] std::optional<std::string> what(const PublicKey& key);

 private:
  // What an address is, worded only when one is asked about (most never are).
  struct Own {
    std::string_view what;
    std::optional<PublicKey> subject;  // the mint or holding it is for, where it is for one
    std::optional<PublicKey> mint;     // and the mint, for a holding's token account
  };
  struct Rule {
    const OwnAddress* own;
    const OwnAddress* ata_owner;  // the own address whose token accounts these are, or nullptr
  };
  void compute_pending();
  void derive(const Rule& rule, const std::optional<PublicKey>& holding,
              const std::optional<PublicKey>& mint);

  PublicKey vault_;
  PublicKey manager_;
  PublicKey token_, token_2022_;  // the two token programs, each account is derived under
  Derivations& derive_;
  std::vector<Rule> rules_;
  // The addresses token-account rules are of: for the vault alone, and for each holding or
  // mint (by the holding's or the mint's key).
  std::map<const OwnAddress*, PublicKey> derived_;
  std::map<std::pair<const OwnAddress*, PublicKey>, PublicKey> derived_for_;
  std::size_t rules_done_ = 0;  // rules_[0, rules_done_) are derived for the mints and holdings
  std::vector<PublicKey> mints_, holdings_;
  std::size_t mints_done_ = 0, holdings_done_ = 0;
  std::map<PublicKey, Own> own_;
  bool fixed_done_ = false;
};

}  // namespace airlock::offline
