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
#include <vector>

#include <airlock/common/bytes.h>

namespace airlock::offline {

// find_program_address and the addresses built on it, memoised: a request derives each
// address once, however many steps and rules ask for it.
class Derivations {
 public:
  [[nodiscard]] std::optional<PublicKey> pda(const std::vector<Bytes>& seeds,
                                             const PublicKey& program);
  // The vault program's address for `seeds`; nullopt only if no bump works.
  [[nodiscard]] std::optional<PublicKey> vault_pda(const std::vector<Bytes>& seeds);
  [[nodiscard]] PublicKey associated(const PublicKey& owner, const PublicKey& mint,
                                     const PublicKey& token_program);
  // Meteora DLMM's bin array holding `bin` in `pool`, under `program`.
  [[nodiscard]] PublicKey bin_array(const PublicKey& program, const PublicKey& pool,
                                    std::int64_t bin);

 private:
  std::map<Bytes, std::optional<PublicKey>> memo_;  // seeds (length-prefixed) then the program
};

class VaultAddresses {
 public:
  VaultAddresses(const PublicKey& vault, Derivations& derivations);

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
  enum class Kind {
    kVault,
    kPerpStrategy,
    kTrader,
    kManagerShares,
    kTokenAccount,
    kAggregatorStrategy,
    kHolding,
    kPositionStrategy,
    kOrderStrategy
  };
  struct Own {
    Kind kind;
    PublicKey subject;  // the mint or holding it is for, where it is for one
  };
  void compute_pending();

  PublicKey vault_;
  Derivations& derive_;
  std::vector<PublicKey> pending_mints_, pending_holdings_;
  std::map<PublicKey, Own> own_;
  bool fixed_done_ = false;
};

}  // namespace airlock::offline
