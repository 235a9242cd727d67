#include <charconv>
#include <fstream>

#include <airlock/apisim/world.h>
#include <airlock/common/hash.h>

namespace airlock::apisim {
namespace {

using json = nlohmann::json;

Error fixture_error(const std::string& field, const std::string& rule) {
  return Error(ErrorCode::kUsage, "fixtures: " + field + ": " + rule);
}

Result<PublicKey> key_field(const json& j, const char* name, const std::string& path) {
  if (!j.contains(name) || !j[name].is_string())
    return fixture_error(path + "." + name, "must be a base58 public key");
  auto key = public_key_from_base58(j[name].get<std::string>());
  if (!key.ok()) return fixture_error(path + "." + name, key.error().message());
  return key.value();
}

Result<std::uint64_t> amount_field(const json& j, const char* name, const std::string& path) {
  if (!j.contains(name) || !j[name].is_string())
    return fixture_error(path + "." + name, "must be a decimal string");
  const std::string s = j[name].get<std::string>();
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
    return fixture_error(path + "." + name, "must be an unsigned 64-bit decimal string");
  }
  return v;
}

template <class T>
Result<T> number_field(const json& j, const char* name, const std::string& path) {
  if (!j.contains(name) || !j[name].is_number())
    return fixture_error(path + "." + name, "must be a number");
  return j[name].get<T>();
}

Result<std::string> text_field(const json& j, const char* name, const std::string& path) {
  if (!j.contains(name) || !j[name].is_string())
    return fixture_error(path + "." + name, "must be a string");
  return j[name].get<std::string>();
}

}  // namespace

const Token* World::token(const PublicKey& mint) const {
  for (const auto& t : tokens) {
    if (t.mint == mint) return &t;
  }
  return nullptr;
}

Vault* World::vault(const PublicKey& address) {
  for (auto& v : vaults) {
    if (v.address == address && !v.closed) return &v;
  }
  return nullptr;
}

const Pool* World::pool(const PublicKey& lb_pair) const {
  for (const auto& p : pools) {
    if (p.lb_pair == lb_pair) return &p;
  }
  return nullptr;
}

const PerpMarket* World::perp_market(std::string_view symbol) const {
  for (const auto& m : perp_markets) {
    if (m.symbol == symbol) return &m;
  }
  return nullptr;
}

PublicKey derive_address(std::string_view tag, const PublicKey& base, std::uint64_t n) {
  Bytes input(tag.begin(), tag.end());
  input.insert(input.end(), base.bytes.begin(), base.bytes.end());
  for (int shift = 56; shift >= 0; shift -= 8)
    input.push_back(static_cast<std::uint8_t>(n >> shift));
  return sha256(input);
}

Result<World> load_world(const json& f) {
  World w;
  if (!f.is_object()) return fixture_error("(root)", "must be a JSON object");
  w.seed = f.value("seed", 0ULL);
  for (const char* section : {"tokens", "vaults", "pools", "perpMarkets", "keys"}) {
    if (!f.contains(section) || !f[section].is_array())
      return fixture_error(section, "must be an array");
  }
  for (std::size_t i = 0; i < f["tokens"].size(); ++i) {
    const auto& j = f["tokens"][i];
    const std::string path = "tokens[" + std::to_string(i) + "]";
    Token t;
    AIRLOCK_TRY(mint, key_field(j, "mint", path));
    t.mint = mint;
    AIRLOCK_TRY(symbol, text_field(j, "symbol", path));
    t.symbol = symbol;
    t.name = j.value("name", symbol);
    AIRLOCK_TRY(decimals, number_field<int>(j, "decimals", path));
    if (decimals < 0 || decimals > 18) return fixture_error(path + ".decimals", "must be 0 to 18");
    t.decimals = decimals;
    if (j.contains("priceUsd") && j["priceUsd"].is_number())
      t.price_usd = j["priceUsd"].get<double>();
    t.verified = j.value("verified", true);
    w.tokens.push_back(t);
  }
  for (std::size_t i = 0; i < f["vaults"].size(); ++i) {
    const auto& j = f["vaults"][i];
    const std::string path = "vaults[" + std::to_string(i) + "]";
    Vault v;
    AIRLOCK_TRY(address, key_field(j, "address", path));
    v.address = address;
    AIRLOCK_TRY(authority, key_field(j, "authority", path));
    v.authority = authority;
    AIRLOCK_TRY(mint, key_field(j, "depositMint", path));
    v.deposit_mint = mint;
    if (w.token(mint) == nullptr)
      return fixture_error(path + ".depositMint", "is not one of the tokens");
    if (!j.contains("balances") || !j["balances"].is_object())
      return fixture_error(path + ".balances", "must be an object");
    for (const auto& [mint_text, amount] : j["balances"].items()) {
      auto balance_mint = public_key_from_base58(mint_text);
      if (!balance_mint.ok() || w.token(*balance_mint) == nullptr) {
        return fixture_error(path + ".balances." + mint_text, "must name one of the tokens");
      }
      AIRLOCK_TRY(value, amount_field(json{{"v", amount}}, "v", path + ".balances." + mint_text));
      v.balances[*balance_mint] = value;
    }
    AIRLOCK_TRY(supply, amount_field(j, "shareSupply", path));
    v.share_supply = supply;
    v.paused = j.value("paused", false);
    AIRLOCK_TRY(cap, amount_field(j, "depositCap", path));
    v.deposit_cap = cap;
    AIRLOCK_TRY(min_deposit, amount_field(j, "minDeposit", path));
    v.min_deposit = min_deposit;
    AIRLOCK_TRY(min_shares, amount_field(j, "minWithdrawalShares", path));
    v.min_withdrawal_shares = min_shares;
    AIRLOCK_TRY(slippage, number_field<int>(j, "maxSlippageBps", path));
    if (slippage < 1 || slippage > 10000)
      return fixture_error(path + ".maxSlippageBps", "must be 1 to 10000");
    v.max_slippage_bps = static_cast<std::uint16_t>(slippage);
    v.management_fee_bps = static_cast<std::uint16_t>(j.value("managementFeeBps", 0));
    v.performance_fee_bps = static_cast<std::uint16_t>(j.value("performanceFeeBps", 0));
    w.vaults.push_back(v);
  }
  for (std::size_t i = 0; i < f["pools"].size(); ++i) {
    const auto& j = f["pools"][i];
    const std::string path = "pools[" + std::to_string(i) + "]";
    Pool p;
    AIRLOCK_TRY(lb_pair, key_field(j, "lbPair", path));
    p.lb_pair = lb_pair;
    AIRLOCK_TRY(x, key_field(j, "tokenX", path));
    AIRLOCK_TRY(y, key_field(j, "tokenY", path));
    if (w.token(x) == nullptr || w.token(y) == nullptr)
      return fixture_error(path, "tokenX and tokenY must be tokens");
    p.token_x = x;
    p.token_y = y;
    AIRLOCK_TRY(step, number_field<int>(j, "binStep", path));
    p.bin_step = step;
    AIRLOCK_TRY(active, number_field<int>(j, "activeBinId", path));
    p.active_bin_id = active;
    w.pools.push_back(p);
  }
  for (std::size_t i = 0; i < f["perpMarkets"].size(); ++i) {
    const auto& j = f["perpMarkets"][i];
    const std::string path = "perpMarkets[" + std::to_string(i) + "]";
    PerpMarket m;
    AIRLOCK_TRY(symbol, text_field(j, "symbol", path));
    m.symbol = symbol;
    AIRLOCK_TRY(asset, number_field<std::uint32_t>(j, "assetId", path));
    m.asset_id = asset;
    AIRLOCK_TRY(mark, text_field(j, "markPrice", path));
    m.mark_price = mark;
    AIRLOCK_TRY(lots, number_field<std::uint64_t>(j, "baseLotsPerUnit", path));
    m.base_lots_per_unit = lots;
    AIRLOCK_TRY(ticks, number_field<std::uint64_t>(j, "ticksPerUsd", path));
    m.ticks_per_usd = ticks;
    w.perp_markets.push_back(m);
  }
  for (std::size_t i = 0; i < f["keys"].size(); ++i) {
    const auto& j = f["keys"][i];
    const std::string path = "keys[" + std::to_string(i) + "]";
    ApiKey k;
    AIRLOCK_TRY(id, text_field(j, "id", path));
    AIRLOCK_TRY(secret, text_field(j, "secret", path));
    k.id = id;
    k.secret = secret;
    AIRLOCK_TRY(manager, key_field(j, "manager", path));
    k.manager = manager;
    if (j.contains("vaults") && j["vaults"].is_array()) {
      std::vector<PublicKey> allow;
      for (const auto& v : j["vaults"]) {
        auto key = public_key_from_base58(v.get<std::string>());
        if (!key.ok()) return fixture_error(path + ".vaults", key.error().message());
        allow.push_back(*key);
      }
      k.vaults = allow;
    }
    if (!j.contains("actions") || !j["actions"].is_array())
      return fixture_error(path + ".actions", "must be an array");
    for (const auto& a : j["actions"]) k.actions.insert(a.get<std::string>());
    if (j.contains("expiresAt") && j["expiresAt"].is_number())
      k.expires_ms = j["expiresAt"].get<std::int64_t>() * 1000;
    w.keys.push_back(k);
  }
  return w;
}

Result<World> load_world_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error(ErrorCode::kIo, "cannot open fixtures '" + path + "'");
  const auto j = json::parse(in, nullptr, false);
  if (j.is_discarded()) return fixture_error(path, "is not valid JSON");
  return load_world(j);
}

}  // namespace airlock::apisim
