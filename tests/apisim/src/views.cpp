// Read views (spec part 2), built from the world.
#include <cmath>

#include "engine.h"

namespace airlock::apisim {
namespace {

json money(const World& w, const Vault& v, const PublicKey& mint, std::uint64_t amount,
           std::uint64_t total) {
  const Token* t = w.token(mint);
  const Token* d = w.token(v.deposit_mint);
  if (t == nullptr || d == nullptr || !t->price_usd || !d->price_usd) {
    return {{"value", nullptr}, {"usd", nullptr}, {"shareBps", nullptr}};
  }
  const double whole = static_cast<double>(amount) / std::pow(10.0, t->decimals);
  const double usd = whole * *t->price_usd;
  const auto value = static_cast<std::uint64_t>(usd / *d->price_usd * std::pow(10.0, d->decimals));
  return {{"value", std::to_string(value)},
          {"usd", usd},
          {"shareBps", total == 0
                           ? json(nullptr)
                           : json(static_cast<std::int64_t>(static_cast<double>(value) * 10000.0 /
                                                            static_cast<double>(total)))}};
}

std::uint64_t value_of(const World& w, const Vault& v, const PublicKey& mint,
                       std::uint64_t amount) {
  const json m = money(w, v, mint, amount, 0);
  return m["value"].is_string() ? std::stoull(m["value"].get<std::string>()) : 0;
}

std::string bin_price(const Pool& p, int bin) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", std::pow(1.0 + p.bin_step / 10000.0, bin));
  return buf;
}

}  // namespace

json token_info(const Token& t) {
  return {{"mint", to_base58(t.mint)},
          {"symbol", t.symbol},
          {"name", t.name},
          {"decimals", t.decimals},
          {"logo", nullptr},
          {"priceUsd", t.price_usd ? json(*t.price_usd) : json(nullptr)}};
}

json vault_summary(const World& w, const Vault& v) {
  const Token* d = w.token(v.deposit_mint);
  return {{"address", to_base58(v.address)},
          {"depositMint", to_base58(v.deposit_mint)},
          {"depositDecimals", d ? d->decimals : 0},
          {"authority", to_base58(v.authority)},
          {"paused", v.paused}};
}

json vault_detail(const World& w, const Vault& v) {
  json d = vault_summary(w, v);
  auto idle = v.balances.find(v.deposit_mint);
  d["shareSupply"] = std::to_string(v.share_supply);
  d["idleBalance"] = std::to_string(idle == v.balances.end() ? 0 : idle->second);
  d["pendingDeposits"] = "0";
  d["pendingWithdrawals"] = "0";
  d["unclaimedFeeShares"] = std::to_string(v.unclaimed_fee_shares);
  d["limits"] = {{"depositCap", std::to_string(v.deposit_cap)},
                 {"minDeposit", std::to_string(v.min_deposit)},
                 {"minWithdrawalShares", std::to_string(v.min_withdrawal_shares)}};
  d["fees"] = {{"managementFeeBps", v.management_fee_bps},
               {"performanceFeeBps", v.performance_fee_bps}};
  d["pendingFeeChanges"] = json::array();
  d["openStrategies"] = v.strategies.size();
  d["protocol"] = {{"maxSlippageBps", v.max_slippage_bps}, {"paused", false}};
  return d;
}

json holdings_view(const World& w, const Vault& v) {
  std::uint64_t total = 0;
  for (const auto& [mint, amount] : v.balances) total += value_of(w, v, mint, amount);
  std::vector<json> positions;
  for (const auto& s : v.strategies) {
    if (s.type == "dlmm" || s.type == "dlmm_limit_order") {
      const Pool* p = w.pool(s.lb_pair);
      if (p == nullptr) continue;
      for (const auto& b : s.bins)
        total += value_of(w, v, p->token_x, b.amount_x) + value_of(w, v, p->token_y, b.amount_y);
    } else if (s.type == "perp") {
      total += s.collateral;
    }
  }
  json tokens = json::array();
  bool partial = false;
  json unpriced = json::array();
  for (const auto& [mint, amount] : v.balances) {
    const Token* t = w.token(mint);
    if (t == nullptr || amount == 0) continue;
    json item = money(w, v, mint, amount, total);
    if (item["value"].is_null()) {
      partial = true;
      unpriced.push_back(t->symbol);
    }
    item["token"] = token_info(*t);
    item["amount"] = std::to_string(amount);
    tokens.push_back(item);
    json idle = item;
    idle["kind"] = "idle";
    positions.push_back(idle);
  }
  for (const auto& s : v.strategies) {
    json p;
    if (s.type == "aggregator") {
      const Token* t = w.token(s.target_mint);
      auto balance = v.balances.find(s.target_mint);
      const std::uint64_t amount = balance == v.balances.end() ? 0 : balance->second;
      p = money(w, v, s.target_mint, amount, total);
      p.update({{"kind", "swap"},
                {"strategy", to_base58(s.address)},
                {"token", t ? token_info(*t) : json(nullptr)},
                {"amount", std::to_string(amount)},
                {"lastActionTs", s.last_action_ts},
                {"closable", amount == 0}});
    } else if (s.type == "dlmm") {
      const Pool* pool = w.pool(s.lb_pair);
      std::uint64_t x = 0, y = 0;
      json bins = json::array();
      for (const auto& b : s.bins) {
        x += b.amount_x;
        y += b.amount_y;
        bins.push_back({{"binId", b.bin_id},
                        {"amountX", std::to_string(b.amount_x)},
                        {"amountY", std::to_string(b.amount_y)}});
      }
      const std::uint64_t value =
          value_of(w, v, pool->token_x, x) + value_of(w, v, pool->token_y, y);
      p = {{"value", std::to_string(value)},
           {"usd", nullptr},
           {"shareBps", total ? json(value * 10000 / total) : json(nullptr)}};
      p.update({{"kind", "lp"},
                {"strategy", to_base58(s.address)},
                {"position", to_base58(s.position)},
                {"lbPair", to_base58(s.lb_pair)},
                {"tokenX", token_info(*w.token(pool->token_x))},
                {"tokenY", token_info(*w.token(pool->token_y))},
                {"amountX", std::to_string(x)},
                {"amountY", std::to_string(y)},
                {"feeX", std::to_string(s.fee_x)},
                {"feeY", std::to_string(s.fee_y)},
                {"lastActionTs", s.last_action_ts},
                {"range",
                 {{"lowerBinId", s.lower_bin},
                  {"upperBinId", s.upper_bin},
                  {"activeBinId", pool->active_bin_id},
                  {"binStep", pool->bin_step},
                  {"lowerPrice", bin_price(*pool, s.lower_bin)},
                  {"upperPrice", bin_price(*pool, s.upper_bin)},
                  {"activePrice", bin_price(*pool, pool->active_bin_id)},
                  {"inRange",
                   pool->active_bin_id >= s.lower_bin && pool->active_bin_id <= s.upper_bin}}},
                {"bins", bins},
                {"closable", x == 0 && y == 0},
                {"pnlUsd", nullptr},
                {"pnlPct", nullptr}});
    } else if (s.type == "dlmm_limit_order") {
      const Pool* pool = w.pool(s.lb_pair);
      std::uint64_t unfilled = 0;
      for (const auto& b : s.bins) unfilled += b.amount_x + b.amount_y;
      const PublicKey sells = s.side == "ask" ? pool->token_x : pool->token_y;
      const PublicKey buys = s.side == "ask" ? pool->token_y : pool->token_x;
      p = money(w, v, sells, unfilled, total);
      p.update({{"kind", "limit_order"},
                {"strategy", to_base58(s.address)},
                {"limitOrder", to_base58(s.position)},
                {"lbPair", to_base58(s.lb_pair)},
                {"tokenX", token_info(*w.token(pool->token_x))},
                {"tokenY", token_info(*w.token(pool->token_y))},
                {"sells", token_info(*w.token(sells))},
                {"buys", token_info(*w.token(buys))},
                {"side", s.side},
                {"binStep", pool->bin_step},
                {"lowerBinId", s.lower_bin},
                {"upperBinId", s.upper_bin},
                {"activeBinId", pool->active_bin_id},
                {"binCount", s.bins.size()},
                {"filledBps", 0},
                {"lastActionTs", s.last_action_ts},
                {"lowerPrice", bin_price(*pool, s.lower_bin)},
                {"upperPrice", bin_price(*pool, s.upper_bin)},
                {"activePrice", bin_price(*pool, pool->active_bin_id)},
                {"deposited", std::to_string(unfilled)},
                {"unfilled", std::to_string(unfilled)},
                {"proceeds", "0"},
                {"feeX", "0"},
                {"feeY", "0"},
                {"closable", true}});
    } else if (s.type == "perp") {
      p = money(w, v, v.deposit_mint, s.collateral, total);
      p.update({{"kind", "perp"},
                {"strategy", to_base58(s.address)},
                {"traderAccount", to_base58(s.trader_account)},
                {"equity", std::to_string(s.collateral)},
                {"collateral", std::to_string(s.collateral)},
                {"canonicalBalance", std::to_string(s.collateral)},
                {"leverage", nullptr},
                {"positions", json::array()},
                {"lastActionTs", s.last_action_ts},
                {"closable", s.collateral == 0}});
    }
    positions.push_back(p);
  }
  const Token* d = w.token(v.deposit_mint);
  const std::uint64_t nav_total = v.nav.empty() ? total : v.nav.back().total_assets;
  return {{"depositToken", token_info(*d)},
          {"totalValue", std::to_string(total)},
          {"totalUsd", d->price_usd ? json(static_cast<double>(total) /
                                           std::pow(10.0, d->decimals) * *d->price_usd)
                                    : json(nullptr)},
          {"navTotalAssets", std::to_string(nav_total)},
          {"navDeltaBps", nav_total == 0
                              ? json(nullptr)
                              : json((static_cast<double>(total) - static_cast<double>(nav_total)) *
                                     10000.0 / static_cast<double>(nav_total))},
          {"partial", partial},
          {"unpriced", unpriced},
          {"tokens", tokens},
          {"positions", positions}};
}

json strategies_view(const World& w, const Vault& v) {
  json out = json::array();
  std::vector<const Strategy*> sorted;
  for (const auto& s : v.strategies) sorted.push_back(&s);
  std::sort(sorted.begin(), sorted.end(),
            [](const Strategy* a, const Strategy* b) { return a->id < b->id; });
  for (const Strategy* s : sorted) {
    json j = {{"type", s->type},
              {"address", to_base58(s->address)},
              {"id", s->id},
              {"createdTs", s->created_ts},
              {"lastActionTs", s->last_action_ts}};
    if (s->type == "aggregator") {
      const Token* t = w.token(s->target_mint);
      auto balance = v.balances.find(s->target_mint);
      j.update(
          {{"targetMint", to_base58(s->target_mint)},
           {"symbol", t ? t->symbol : ""},
           {"decimals", t ? t->decimals : 0},
           {"logo", nullptr},
           {"priceUsd", t && t->price_usd ? *t->price_usd : 0.0},
           {"uiMultiplier", 1.0},
           {"vaultBalance", std::to_string(balance == v.balances.end() ? 0 : balance->second)}});
    } else if (s->type == "dlmm" || s->type == "dlmm_limit_order") {
      j.update({{"position", to_base58(s->position)},
                {"lbPair", to_base58(s->lb_pair)},
                {"lowerBinId", s->lower_bin},
                {"upperBinId", s->upper_bin}});
    } else if (s->type == "perp") {
      j.update({{"traderAccount", to_base58(s->trader_account)}, {"onboarded", s->onboarded}});
    }
    out.push_back(j);
  }
  return out;
}

}  // namespace airlock::apisim
