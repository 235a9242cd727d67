// The API twin's world: tokens, vaults with their strategies, pools, perp markets and API keys,
// loaded from a fixtures file (docs/apisim.md) and changed by confirmed transactions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>

namespace airlock::apisim {

struct Token {
  PublicKey mint;
  std::string symbol;
  std::string name;
  int decimals = 0;
  std::optional<double> price_usd;
  bool verified = true;
};

struct Pool {
  PublicKey lb_pair;
  PublicKey token_x, token_y;
  int bin_step = 0;
  int active_bin_id = 0;
};

struct PerpMarket {
  std::string symbol;
  std::uint32_t asset_id = 0;
  std::string mark_price;  // USD per whole unit, decimal string
  std::uint64_t base_lots_per_unit = 0;
  std::uint64_t ticks_per_usd = 0;
};

struct ApiKey {
  std::string id, secret;
  PublicKey manager;
  std::optional<std::vector<PublicKey>> vaults;  // allowlist; none = every vault the manager runs
  std::set<std::string> actions;                 // scopes: "read", "send", builder action names
  std::optional<std::int64_t> expires_ms;
  bool revoked = false;
};

struct Bin {
  int bin_id = 0;
  std::uint64_t amount_x = 0, amount_y = 0;
};

struct Strategy {
  PublicKey address;
  std::uint64_t id = 0;
  std::string type;  // aggregator, dlmm, dlmm_limit_order, perp
  std::int64_t created_ts = 0, last_action_ts = 0;
  // aggregator
  PublicKey target_mint;
  // dlmm and limit orders
  PublicKey position;  // position or limit-order account
  PublicKey lb_pair;
  int lower_bin = 0, upper_bin = 0;  // inclusive
  std::vector<Bin> bins;
  std::uint64_t fee_x = 0, fee_y = 0;
  std::string side;  // limit orders: "bid" or "ask"
  // perp
  PublicKey trader_account;
  bool onboarded = false;
  std::uint64_t collateral = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> open_orders;  // price in ticks, sequence
};

struct NavPoint {
  std::uint64_t epoch = 0;
  std::int64_t ts = 0;
  std::uint64_t total_assets = 0;
  std::uint64_t nav_per_share = 0;  // scaled by 1e9
  std::uint64_t high_water_mark = 0;
};

struct StrategyHistoryItem {
  Strategy strategy;
  std::int64_t closed_ts = 0;
};

struct Vault {
  PublicKey address, authority, deposit_mint;
  std::map<PublicKey, std::uint64_t> balances;  // idle tokens by mint
  std::uint64_t share_supply = 0;
  bool paused = false;
  std::uint64_t deposit_cap = 0, min_deposit = 0, min_withdrawal_shares = 0;
  std::uint16_t max_slippage_bps = 0, management_fee_bps = 0, performance_fee_bps = 0;
  std::uint64_t unclaimed_fee_shares = 0;
  std::vector<Strategy> strategies;
  std::vector<StrategyHistoryItem> history;
  std::vector<NavPoint> nav;
  std::uint64_t next_strategy_id = 1;
  bool closed = false;
};

struct World {
  std::uint64_t seed = 0;
  std::vector<Token> tokens;
  std::vector<Vault> vaults;
  std::vector<Pool> pools;
  std::vector<PerpMarket> perp_markets;
  std::vector<ApiKey> keys;

  const Token* token(const PublicKey& mint) const;
  Vault* vault(const PublicKey& address);
  const Pool* pool(const PublicKey& lb_pair) const;
  const PerpMarket* perp_market(std::string_view symbol) const;
};

// Reads fixtures (docs/apisim.md); every field is checked and a bad one named.
[[nodiscard]] Result<World> load_world(const nlohmann::json& fixtures);
[[nodiscard]] Result<World> load_world_file(const std::string& path);

// A deterministic address for anything the twin creates: SHA-256 of the parts.
[[nodiscard]] PublicKey derive_address(std::string_view tag, const PublicKey& base,
                                       std::uint64_t n);

}  // namespace airlock::apisim
