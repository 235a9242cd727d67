// The 28 builder actions. Each validates its body (400 naming the field and the rule), checks
// the world (404/409), and returns real version-0 transactions: compute-budget instructions and
// one instruction of the twin's vault program (offline/idl/airlock_vault.json) whose arguments
// carry the request, plus what confirming each step does to the world.
#include <algorithm>
#include <charconv>
#include <cmath>

#include <airlock/common/hash.h>
#include <airlock/common/pda.h>
#include <airlock/common/programs.h>

#include "borsh.h"
#include "engine.h"

namespace airlock::apisim {
namespace {

#define TRY_API(var, expr)                                              \
  auto var##_r = (expr);                                                \
  if (auto* var##_e = std::get_if<ApiError>(&var##_r)) return *var##_e; \
  auto var = std::get<0>(std::move(var##_r))

constexpr std::string_view kVaultProgram = "AirLockVau1t1111111111111111111111111111111";
constexpr std::string_view kJupiterProgram = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";
constexpr std::string_view kDlmmProgram = "LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo";
constexpr std::string_view kPerpProgram = "PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY";
// Jupiter v6 `route` discriminator and the Swap variants the twin's routes use.
constexpr std::array<std::uint8_t, 8> kJupiterRoute{229, 23, 203, 151, 122, 227, 173, 42};
constexpr std::uint8_t kSwapRaydium = 7, kSwapWhirlpool = 17, kSwapMeteoraDlmm = 38;
constexpr std::uint64_t kPriorityMicroLamports = 50'000;
constexpr std::uint64_t kAmmFeeBps = 30;

const PublicKey& key_of(std::string_view base58) { return programs::key(base58); }

Bytes discriminator(std::string_view name) {
  const std::string preimage = "global:" + std::string(name);
  const Hash h = sha256(text_bytes(preimage));
  return Bytes(h.bytes.begin(), h.bytes.begin() + 8);
}

// ---- body fields -------------------------------------------------------------------------

ApiResult<PublicKey> req_key(const json& body, const char* name) {
  if (!body.contains(name)) return validation(name, "is required");
  if (!body[name].is_string()) return validation(name, "must be a base58 public key string");
  auto key = public_key_from_base58(body[name].get<std::string>());
  if (!key.ok()) return validation(name, "must be a base58 public key that decodes to 32 bytes");
  return key.value();
}

ApiResult<std::uint64_t> req_amount(const json& body, const char* name) {
  if (!body.contains(name)) return validation(name, "is required");
  if (!body[name].is_string())
    return validation(name, "must be a string of decimal digits, not a JSON number");
  const std::string s = body[name].get<std::string>();
  if (s.empty() || s.size() > 20 ||
      !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return validation(name, "must be 1 to 20 decimal digits");
  }
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size())
    return validation(name, "must be at most 18446744073709551615");
  return v;
}

ApiResult<std::int64_t> req_int(const json& body, const char* name, std::int64_t min,
                                std::int64_t max) {
  if (!body.contains(name)) return validation(name, "is required");
  if (!body[name].is_number_integer()) return validation(name, "must be an integer");
  const auto v = body[name].get<std::int64_t>();
  if (v < min || v > max)
    return validation(name, "must be " + std::to_string(min) + " to " + std::to_string(max));
  return v;
}

ApiResult<bool> req_bool(const json& body, const char* name) {
  if (!body.contains(name)) return validation(name, "is required");
  if (!body[name].is_boolean()) return validation(name, "must be true or false");
  return body[name].get<bool>();
}

ApiResult<std::string> req_choice(const json& body, const char* name,
                                  std::initializer_list<const char*> allowed) {
  if (!body.contains(name)) return validation(name, "is required");
  std::string list;
  for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
  if (!body[name].is_string()) return validation(name, "must be one of " + list);
  const auto v = body[name].get<std::string>();
  for (const char* a : allowed) {
    if (v == a) return v;
  }
  return validation(name, "must be one of " + list);
}

// Phoenix-style decimal: up to 15 integer digits and 12 fractional digits. Returns value * 1e12.
ApiResult<unsigned __int128> req_decimal(const json& body, const char* name) {
  if (!body.contains(name)) return validation(name, "is required");
  if (!body[name].is_string()) return validation(name, "must be a decimal string");
  const std::string s = body[name].get<std::string>();
  const auto dot = s.find('.');
  const std::string whole = s.substr(0, dot),
                    frac = dot == std::string::npos ? "" : s.substr(dot + 1);
  const auto digits = [](const std::string& t) {
    return std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (whole.empty() || whole.size() > 15 || frac.size() > 12 || !digits(whole) || !digits(frac) ||
      (dot != std::string::npos && frac.empty())) {
    return validation(name, "must be a decimal with up to 15 integer and 12 fractional digits");
  }
  unsigned __int128 v = 0;
  for (char c : whole) v = v * 10 + static_cast<unsigned>(c - '0');
  std::string padded = frac + std::string(12 - frac.size(), '0');
  for (char c : padded) v = v * 10 + static_cast<unsigned>(c - '0');
  return v;
}

// `slippageBps` 1..10000, lowered to the protocol's maxSlippageBps.
ApiResult<std::uint16_t> slippage(const json& body, const Vault& vault) {
  TRY_API(bps, req_int(body, "slippageBps", 1, 10000));
  return static_cast<std::uint16_t>(std::min<std::int64_t>(bps, vault.max_slippage_bps));
}

ApiError conflict(const std::string& code, const std::string& message) {
  return ApiError{409, code, message};
}
ApiError not_found(const std::string& what) {
  return ApiError{404, "NotFound", what + " does not exist"};
}

// ---- world helpers ----------------------------------------------------------------------

std::int64_t now_s(const Engine& e) { return e.now_ms() / 1000; }

Strategy* find_strategy(Vault& v, const std::function<bool(const Strategy&)>& match) {
  for (auto& s : v.strategies) {
    if (match(s)) return &s;
  }
  return nullptr;
}

Strategy* strategy_by_position(Vault& v, const PublicKey& position) {
  return find_strategy(v, [&](const Strategy& s) {
    return (s.type == "dlmm" || s.type == "dlmm_limit_order") && s.position == position;
  });
}

std::uint64_t value_in_deposit(const World& w, const Vault& v, const PublicKey& mint,
                               std::uint64_t amount) {
  const Token* t = w.token(mint);
  const Token* d = w.token(v.deposit_mint);
  if (t == nullptr || d == nullptr || !t->price_usd || !d->price_usd || *d->price_usd <= 0)
    return 0;
  const double whole = static_cast<double>(amount) / std::pow(10.0, t->decimals);
  return static_cast<std::uint64_t>(whole * *t->price_usd / *d->price_usd *
                                    std::pow(10.0, d->decimals));
}

// What `amount` of `from` buys of `to` at fixture prices, less a 0.3% pool fee.
std::uint64_t quote_out(const World& w, const PublicKey& from, const PublicKey& to,
                        std::uint64_t amount) {
  const Token* a = w.token(from);
  const Token* b = w.token(to);
  if (a == nullptr || b == nullptr || !a->price_usd || !b->price_usd || *b->price_usd <= 0)
    return 0;
  const double usd = static_cast<double>(amount) / std::pow(10.0, a->decimals) * *a->price_usd;
  const double out =
      usd / *b->price_usd * std::pow(10.0, b->decimals) * (10000.0 - kAmmFeeBps) / 10000.0;
  return out >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(out);
}

void record_nav(Engine& e, Vault& v) {
  std::uint64_t total = 0;
  for (const auto& [mint, amount] : v.balances) total += value_in_deposit(e.world, v, mint, amount);
  for (const auto& s : v.strategies) {
    for (const auto& bin : s.bins) {
      const Pool* p = e.world.pool(s.lb_pair);
      if (p)
        total += value_in_deposit(e.world, v, p->token_x, bin.amount_x) +
                 value_in_deposit(e.world, v, p->token_y, bin.amount_y);
    }
    total += s.collateral;
  }
  NavPoint point;
  point.epoch = v.nav.size() + 1;
  point.ts = now_s(e);
  point.total_assets = total;
  point.nav_per_share = v.share_supply == 0
                            ? 1'000'000'000ULL
                            : static_cast<std::uint64_t>(static_cast<unsigned __int128>(total) *
                                                         1'000'000'000ULL / v.share_supply);
  point.high_water_mark =
      std::max(point.nav_per_share, v.nav.empty() ? 0 : v.nav.back().high_water_mark);
  v.nav.push_back(point);
}

// Applies `change` to the vault if it still exists, then records a NAV point.
std::function<void(Engine&)> on_vault(const PublicKey& vault,
                                      std::function<void(Engine&, Vault&)> change) {
  return [vault, change](Engine& e) {
    Vault* v = e.world.vault(vault);
    if (v == nullptr) return;
    change(e, *v);
    record_nav(e, *v);
  };
}

// ---- transactions -------------------------------------------------------------------------

struct Accounts {
  std::vector<AccountMeta> metas;
  Accounts& w(const PublicKey& k) {
    metas.push_back({k, false, true});
    return *this;
  }
  Accounts& r(const PublicKey& k) {
    metas.push_back({k, false, false});
    return *this;
  }
  Accounts& s(const PublicKey& k) {
    metas.push_back({k, true, true});
    return *this;
  }
};

Accounts base_accounts(const Vault& v, const ApiKey& key) {
  Accounts a;
  a.w(v.address).s(key.manager);
  return a;
}

struct StepSpec {
  StepSpec() = default;
  StepSpec(std::string ix, Accounts a, Bytes data = {}, std::uint64_t compute_units = 120'000)
      : instruction(std::move(ix)),
        accounts(std::move(a)),
        args(std::move(data)),
        units(compute_units) {}

  std::string instruction;  // vault program instruction name
  Accounts accounts;
  Bytes args;
  std::uint64_t units = 120'000;
  std::vector<Keypair> cosigners;  // pre-signed extra signers
  std::vector<LoadedTable> tables;
};

ApiResult<BuiltStep> make_step(BuildContext& ctx, StepSpec spec) {
  std::vector<Instruction> ixs;
  Borsh limit;
  limit.u8(2).u32(static_cast<std::uint32_t>(spec.units + spec.units / 5));
  ixs.push_back({key_of(programs::kComputeBudget), {}, limit.data()});
  Borsh price;
  price.u8(3).u64(kPriorityMicroLamports);
  ixs.push_back({key_of(programs::kComputeBudget), {}, price.data()});
  Bytes data = discriminator(spec.instruction);
  data.insert(data.end(), spec.args.begin(), spec.args.end());
  ixs.push_back({key_of(kVaultProgram), spec.accounts.metas, data});
  const std::uint64_t slot = ctx.engine.slot();
  auto message =
      compile_v0_message(ctx.key.manager, ixs, ctx.engine.blockhash_for(slot), spec.tables);
  if (!message.ok()) return ApiError{500, "BuildFailed", message.error().to_string()};
  BuiltStep step;
  step.tx = unsigned_transaction(std::move(message).value());
  if (serialize_transaction(step.tx).size() > kMaxTransactionBytes) {
    return ApiError{422, "TransactionTooLarge", "the action does not fit in one transaction"};
  }
  for (const auto& signer : spec.cosigners) {
    if (auto s = sign_transaction(step.tx, signer); !s.ok())
      return ApiError{500, "BuildFailed", s.error().to_string()};
  }
  step.units = spec.units;
  return step;
}

// A Jupiter v6 route between two mints: one hop when either is the vault's deposit token,
// otherwise two hops through it. Route accounts (pools, their vaults, tick arrays, oracles)
// travel through a lookup table the twin publishes on /rpc.
struct Route {
  Bytes data;  // Jupiter `route` instruction data
  std::vector<AccountMeta> accounts;
  LoadedTable table;
  int hops = 1;
};

Route make_route(Engine& e, const Vault& v, const PublicKey& from, const PublicKey& to,
                 std::uint64_t in, std::uint64_t out, std::uint16_t slippage_bps) {
  Route r;
  r.hops = (from == v.deposit_mint || to == v.deposit_mint) ? 1 : 2;
  Borsh b;
  b.raw(kJupiterRoute).u32(static_cast<std::uint32_t>(r.hops));
  if (r.hops == 1) {
    b.u8(kSwapWhirlpool).boolean(true).u8(100).u8(0).u8(1);
  } else {
    b.u8(kSwapRaydium).u8(100).u8(0).u8(1);
    b.u8(kSwapMeteoraDlmm).u8(100).u8(1).u8(2);
  }
  b.u64(in).u64(out).u16(slippage_bps).u8(0);
  r.data = b.data();
  Bytes seed(from.bytes.begin(), from.bytes.end());
  seed.insert(seed.end(), to.bytes.begin(), to.bytes.end());
  const PublicKey pair = sha256(seed);
  r.table.table = derive_address("lookup-table", pair, 0);
  for (std::uint64_t i = 0; i < 6U * static_cast<std::uint64_t>(r.hops); ++i) {
    const PublicKey account = derive_address("route-account", pair, i);
    r.table.addresses.push_back(account);
    r.accounts.push_back({account, false, i % 3 != 2});
  }
  e.lookup_tables[r.table.table] = r.table.addresses;
  return r;
}

// The vault program's own accounts are program-derived from the vault (docs/apisim.md), so the
// offline half can compute every one of them: strategies per kind, the perp trader account,
// the manager's fee shares. The vault's token accounts are its associated token accounts.
PublicKey vault_pda(std::vector<Bytes> seeds) {
  return find_program_address(seeds, key_of(kVaultProgram))->first;
}
PublicKey aggregator_strategy(const Vault& v, const PublicKey& mint) {
  return vault_pda({seed("aggregator"), seed(v.address), seed(mint)});
}
PublicKey dlmm_strategy(const Vault& v, const PublicKey& position) {
  return vault_pda({seed("dlmm"), seed(v.address), seed(position)});
}
PublicKey limit_order_strategy(const Vault& v, const PublicKey& order) {
  return vault_pda({seed("limit_order"), seed(v.address), seed(order)});
}
PublicKey perp_strategy_address(const Vault& v) {
  return vault_pda({seed("perp"), seed(v.address)});
}
PublicKey trader_address(const Vault& v) { return vault_pda({seed("trader"), seed(v.address)}); }

PublicKey token_account(const Vault& v, const PublicKey& mint) {
  return associated_token_address(v.address, mint, key_of(programs::kToken));
}

// ---- the builders ---------------------------------------------------------------------------

using Steps = ApiResult<std::vector<BuiltStep>>;

Steps swap_steps(BuildContext& ctx, Vault& v, const PublicKey& from, const PublicKey& to,
                 std::uint64_t amount, std::uint16_t bps, bool sweep) {
  if (ctx.engine.faults.venue_failure) return ApiError{502, *ctx.engine.faults.venue_failure, ""};
  if (from == to) return validation("destinationMint", "must differ from sourceMint");
  if (ctx.engine.world.token(from) == nullptr) return not_found("token " + to_base58(from));
  if (ctx.engine.world.token(to) == nullptr) return not_found("token " + to_base58(to));
  const std::uint64_t out = quote_out(ctx.engine.world, from, to, amount);
  if (out == 0) return ApiError{422, "SweepUnroutable", "no route between these tokens"};
  const std::uint64_t min_out = out * (10000U - bps) / 10000U;
  Route route = make_route(ctx.engine, v, from, to, amount, out, bps);
  const PublicKey target = to == v.deposit_mint ? from : to;
  Strategy* existing = find_strategy(
      v, [&](const Strategy& s) { return s.type == "aggregator" && s.target_mint == target; });
  const bool opens = !sweep && to != v.deposit_mint && existing == nullptr;
  const bool sells_all = from != v.deposit_mint && v.balances[from] == amount;
  const PublicKey strategy = existing ? existing->address : aggregator_strategy(v, target);

  // A two-hop route leaves no room for the strategy's setup or close in the same transaction:
  // the step does what fits and `next` asks for the rest (spec 3.4). Setting up alone is the
  // strategy-creation instruction; the swap itself comes in the follow-up.
  const bool setup_only = opens && route.hops == 2;
  const bool close_later = !sweep && sells_all && route.hops == 2;
  StepSpec spec;
  if (setup_only) {
    spec = StepSpec("aggregator_initialize", base_accounts(v, ctx.key), Borsh().key(target).data());
    spec.accounts.w(strategy).r(target).r(key_of(programs::kSystem));
  } else {
    spec.instruction = sweep ? "aggregator_sweep" : "aggregator_swap";
    spec.accounts = base_accounts(v, ctx.key);
    spec.accounts.w(strategy);
    if (!sweep) spec.accounts.r(from).r(to);
    if (sweep) spec.accounts.r(from).r(to);
    spec.accounts.w(token_account(v, from))
        .w(token_account(v, to))
        .r(key_of(kJupiterProgram))
        .r(key_of(programs::kToken));
    for (const auto& meta : route.accounts) spec.accounts.metas.push_back(meta);
    Borsh args;
    if (sweep) {
      args.key(from).u64(amount).u16(bps).bytes(route.data);
    } else {
      args.key(from).key(to).u64(amount).u64(min_out).u16(bps).bytes(route.data);
    }
    spec.args = args.data();
    spec.units = 180'000 + 90'000 * static_cast<std::uint64_t>(route.hops);
    spec.tables.push_back(route.table);
  }
  TRY_API(step, make_step(ctx, std::move(spec)));

  if (setup_only) {
    step.next = std::make_pair(std::string("aggregator/swap"), ctx.body);
  } else if (close_later) {
    step.next = std::make_pair(
        std::string("aggregator/sweep"),
        json{{"vault", to_base58(v.address)}, {"mint", to_base58(from)}, {"slippageBps", bps}});
  }
  if (!sweep) step.metadata["initializesStrategy"] = opens;
  step.metadata["quote"] = {{"inAmount", std::to_string(amount)},
                            {"outAmount", std::to_string(out)},
                            {"minimumOut", std::to_string(min_out)},
                            {"slippageBps", bps}};
  step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
    Strategy* s = find_strategy(vault, [&](const Strategy& x) {
      return x.type == "aggregator" && x.target_mint == target;
    });
    if (s == nullptr && opens) {
      Strategy created;
      created.address = strategy;
      created.id = vault.next_strategy_id++;
      created.type = "aggregator";
      created.target_mint = target;
      created.created_ts = now_s(e);
      vault.strategies.push_back(created);
      s = &vault.strategies.back();
    }
    if (s) s->last_action_ts = now_s(e);
    if (setup_only) return;  // the swap itself comes in the follow-up
    const std::uint64_t sold = std::min(vault.balances[from], amount);
    vault.balances[from] -= sold;
    vault.balances[to] += quote_out(e.world, from, to, sold);
    if (s && vault.balances[target] == 0 && !close_later) {
      vault.history.push_back({*s, now_s(e)});
      const PublicKey gone = s->address;
      std::erase_if(vault.strategies, [&](const Strategy& x) { return x.address == gone; });
    }
  });
  return std::vector<BuiltStep>{std::move(step)};
}

Steps build_aggregator_initialize(BuildContext& ctx, Vault& v) {
  TRY_API(mint, req_key(ctx.body, "mint"));
  if (ctx.engine.world.token(mint) == nullptr) return not_found("token " + to_base58(mint));
  if (mint == v.deposit_mint) return validation("mint", "must not be the vault's deposit token");
  if (find_strategy(
          v, [&](const Strategy& s) { return s.type == "aggregator" && s.target_mint == mint; })) {
    return conflict("Stale", "an aggregator strategy for this token is already open");
  }
  const PublicKey strategy = aggregator_strategy(v, mint);
  StepSpec spec{"aggregator_initialize", base_accounts(v, ctx.key), Borsh().key(mint).data()};
  spec.accounts.w(strategy).r(mint).r(key_of(programs::kSystem));
  TRY_API(step, make_step(ctx, std::move(spec)));
  step.metadata["strategy"] = to_base58(strategy);
  step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
    Strategy s;
    s.address = strategy;
    s.id = vault.next_strategy_id++;
    s.type = "aggregator";
    s.target_mint = mint;
    s.created_ts = s.last_action_ts = now_s(e);
    vault.strategies.push_back(s);
  });
  return std::vector<BuiltStep>{std::move(step)};
}

Steps build_aggregator_swap(BuildContext& ctx, Vault& v) {
  TRY_API(from, req_key(ctx.body, "sourceMint"));
  TRY_API(to, req_key(ctx.body, "destinationMint"));
  TRY_API(amount, req_amount(ctx.body, "amount"));
  TRY_API(bps, slippage(ctx.body, v));
  if (amount == 0) return validation("amount", "must be greater than 0");
  if (from == to) return validation("destinationMint", "must differ from sourceMint");
  if (v.balances[from] < amount)
    return conflict("Stale", "the vault holds less than amount of sourceMint");
  return swap_steps(ctx, v, from, to, amount, bps, false);
}

Steps build_aggregator_sweep(BuildContext& ctx, Vault& v) {
  TRY_API(mint, req_key(ctx.body, "mint"));
  TRY_API(bps, slippage(ctx.body, v));
  if (mint == v.deposit_mint) return validation("mint", "must not be the vault's deposit token");
  const std::uint64_t amount = v.balances[mint];
  if (amount == 0) return conflict("NothingToSweep", "the vault holds none of this token");
  return swap_steps(ctx, v, mint, v.deposit_mint, amount, bps, true);
}

// ---- liquidity pools ----

struct BinRange {
  int lower = 0, upper = 0;  // inclusive
  std::size_t count() const { return static_cast<std::size_t>(upper - lower + 1); }
};

std::uint8_t shape_index(const std::string& shape) {
  return shape == "spot" ? 0 : shape == "curve" ? 1 : 2;
}

// Spreads amounts over bins as the Meteora SDK's strategies do: Y at and below the active bin,
// X above it (and at it when no Y is added); a range beside the active bin holds only the token
// of its side. Spot weighs every bin alike; curve rises from 1 at a side's far end towards the
// active bin; bid-ask rises from 1 at its near end away from it.
std::vector<Bin> distribute(const BinRange& r, int active, std::uint64_t x, std::uint64_t y,
                            const std::string& shape) {
  std::vector<Bin> bins;
  for (int b = r.lower; b <= r.upper; ++b) bins.push_back({b, 0, 0});
  const int x_from = y > 0 ? active + 1 : active;  // the lowest bin that takes X
  // One side's bins, [lo, hi] clipped to the range; `near` is the end beside the active bin.
  const auto spread = [&](int lo, int hi, bool near_is_low, std::uint64_t total, bool is_x) {
    lo = std::max(lo, r.lower);
    hi = std::min(hi, r.upper);
    if (total == 0 || lo > hi) return;
    std::vector<double> weights;
    double sum = 0;
    const double far = hi - lo;  // the far end's distance from the near end
    for (int b = lo; b <= hi; ++b) {
      const double from_near = near_is_low ? b - lo : hi - b;  // 0 at the near end
      const double w = shape == "spot"    ? 1.0
                       : shape == "curve" ? far - from_near + 1
                                          : from_near + 1;
      weights.push_back(w);
      sum += w;
    }
    std::uint64_t given = 0;
    for (int b = lo; b <= hi; ++b) {
      const auto i = static_cast<std::size_t>(b - lo);
      const auto part = static_cast<std::uint64_t>(static_cast<double>(total) * weights[i] / sum);
      Bin& bin = bins[static_cast<std::size_t>(b - r.lower)];
      (is_x ? bin.amount_x : bin.amount_y) += part;
      given += part;
    }
    // The rounding remainder to the near bin.
    Bin& near_bin = bins[static_cast<std::size_t>((near_is_low ? lo : hi) - r.lower)];
    (is_x ? near_bin.amount_x : near_bin.amount_y) += total - given;
  };
  spread(x_from, r.upper, true, x, true);
  spread(r.lower, active, false, y, false);
  // An amount with no bin on its side (X into a range wholly below the active bin, or Y into
  // one wholly above) stays in the range's nearest bin, as before.
  if (x > 0 && x_from > r.upper) bins.back().amount_x += x;
  if (y > 0 && active < r.lower) bins.front().amount_y += y;
  return bins;
}

ApiResult<std::optional<BinRange>> optional_range(const json& body) {
  const bool has_lower = body.contains("lowerBinId"), has_upper = body.contains("upperBinId");
  if (has_lower != has_upper) {
    return validation(has_lower ? "upperBinId" : "lowerBinId",
                      "must be sent together with the other bound");
  }
  if (!has_lower) return std::optional<BinRange>();
  TRY_API(lower, req_int(body, "lowerBinId", -443636, 443636));
  TRY_API(upper, req_int(body, "upperBinId", -443636, 443636));
  if (upper < lower) return validation("upperBinId", "must not be below lowerBinId");
  return std::optional<BinRange>(BinRange{static_cast<int>(lower), static_cast<int>(upper)});
}

ApiResult<Strategy*> position_of(BuildContext& ctx, Vault& v, const char* field = "position") {
  TRY_API(position, req_key(ctx.body, field));
  Strategy* s = strategy_by_position(v, position);
  if (s == nullptr)
    return not_found(std::string(field) + " " + to_base58(position) + " of this vault");
  return s;
}

PublicKey bin_array(const PublicKey& lb_pair, int bin) {
  return bin_array_address(lb_pair, bin, key_of(kDlmmProgram));
}

Accounts pool_accounts(const Vault& v, const ApiKey& key, const Strategy& s, const BinRange& r) {
  Accounts a = base_accounts(v, key);
  a.w(s.position).w(s.lb_pair).w(bin_array(s.lb_pair, r.lower)).w(bin_array(s.lb_pair, r.upper));
  a.r(key_of(kDlmmProgram)).r(key_of(programs::kToken));
  return a;
}

Bytes strategy_args(std::uint64_t x, std::uint64_t y, int active, int max_slip, const BinRange& r,
                    const std::string& shape) {
  return Borsh()
      .u64(x)
      .u64(y)
      .i32(active)
      .i32(max_slip)
      .i32(r.lower)
      .i32(r.upper)
      .u8(shape_index(shape))
      .data();
}

// Splits a range into transaction-sized chunks of at most 70 bins.
std::vector<BinRange> chunks(const BinRange& r) {
  std::vector<BinRange> out;
  for (int lo = r.lower; lo <= r.upper; lo += static_cast<int>(kBinsPerTransaction)) {
    out.push_back({lo, std::min(r.upper, lo + static_cast<int>(kBinsPerTransaction) - 1)});
  }
  return out;
}

struct Chunk {
  BinRange range;
  std::uint64_t x = 0, y = 0;
};

// Transaction-sized chunks of a range with each amount split over the bins on its side of the
// active bin (a DLMM pool takes token X only at and above the active bin, Y only at and below
// it), by how many of those bins each chunk holds; an amount with no bin on its side of the range
// is split by bin count instead. The last chunk holding bins of a side takes that side's rounding
// remainder, so the chunks add up to the totals exactly.
std::vector<Chunk> split_amounts(const BinRange& whole, std::uint64_t x, std::uint64_t y,
                                 int active) {
  const auto ranges = chunks(whole);
  const auto split = [&](std::uint64_t total, bool above) {
    int lo = above ? std::max(whole.lower, active) : whole.lower;
    int hi = above ? whole.upper : std::min(whole.upper, active);
    if (lo > hi) {  // no bin of the range on this side: by bin count
      lo = whole.lower;
      hi = whole.upper;
    }
    const auto side = static_cast<unsigned __int128>(hi - lo + 1);
    std::vector<std::uint64_t> out(ranges.size(), 0);
    std::uint64_t left = total;
    std::size_t last = 0;
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      const int a = std::max(ranges[i].lower, lo), b = std::min(ranges[i].upper, hi);
      if (a > b) continue;
      out[i] = static_cast<std::uint64_t>(static_cast<unsigned __int128>(total) *
                                          static_cast<unsigned>(b - a + 1) / side);
      left -= out[i];
      last = i;
    }
    out[last] += left;
    return out;
  };
  const auto xs = split(x, true), ys = split(y, false);
  std::vector<Chunk> out;
  for (std::size_t i = 0; i < ranges.size(); ++i) out.push_back({ranges[i], xs[i], ys[i]});
  return out;
}

Strategy new_strategy(Engine& e, Vault& vault, const PublicKey& address, const char* type) {
  Strategy s;
  s.address = address;
  s.id = vault.next_strategy_id++;
  s.type = type;
  s.created_ts = s.last_action_ts = now_s(e);
  return s;
}

Steps build_dlmm_initialize(BuildContext& ctx, Vault& v) {
  TRY_API(lb_pair, req_key(ctx.body, "lbPair"));
  if (ctx.engine.world.pool(lb_pair) == nullptr) return not_found("pool " + to_base58(lb_pair));
  TRY_API(lower, req_int(ctx.body, "lowerBinId", -443636, 443636));
  TRY_API(upper_exclusive, req_int(ctx.body, "upperBinId", -443636, 443637));
  if (upper_exclusive <= lower)
    return validation("upperBinId", "must be above lowerBinId (it is exclusive here)");
  if (upper_exclusive - lower > static_cast<std::int64_t>(kBinsPerTransaction)) {
    return validation("upperBinId", "a position created in one transaction spans at most 70 bins");
  }
  auto position_key = ctx.engine.derived_keypair("position", v.address, ctx.engine.nonce++);
  const PublicKey position = position_key->public_key();
  const PublicKey strategy = dlmm_strategy(v, position);
  const BinRange range{static_cast<int>(lower), static_cast<int>(upper_exclusive - 1)};
  StepSpec spec{"dlmm_initialize", base_accounts(v, ctx.key),
                Borsh().i32(range.lower).i32(static_cast<std::int32_t>(range.count())).data()};
  spec.accounts.w(strategy).s(position).r(lb_pair).r(key_of(programs::kSystem));
  spec.cosigners.push_back(std::move(position_key).value());
  TRY_API(step, make_step(ctx, std::move(spec)));
  step.metadata["position"] = to_base58(position);
  step.metadata["lowerBinId"] = range.lower;
  step.metadata["upperBinId"] = range.upper;
  step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
    Strategy s = new_strategy(e, vault, strategy, "dlmm");
    s.position = position;
    s.lb_pair = lb_pair;
    s.lower_bin = range.lower;
    s.upper_bin = range.upper;
    vault.strategies.push_back(s);
  });
  return std::vector<BuiltStep>{std::move(step)};
}

// cursorBinId (spec 4.10) resumes a ranged build after its last confirmed range: it must be the
// first bin of one of the ranges the same body builds without it, and the ranges before it are
// left out, each remaining one with the same bins and amounts as in the first build.
ApiResult<std::vector<Chunk>> resume_at_cursor(const json& body, std::vector<Chunk> parts) {
  if (!body.contains("cursorBinId")) return parts;
  TRY_API(cursor, req_int(body, "cursorBinId", -443636, 443636));
  const auto at = std::find_if(parts.begin(), parts.end(),
                               [&](const Chunk& c) { return c.range.lower == cursor; });
  if (at == parts.end()) {
    return validation("cursorBinId", "must be the first bin of one of the request's 70-bin ranges");
  }
  parts.erase(parts.begin(), at);
  return parts;
}

// The chunks of `whole` a funding build (dlmm/open, add, add-range) makes: amountX and amountY
// split by side of the pool's active bin, resumed at cursorBinId when the body gives one. The vault
// must hold what these chunks deposit.
ApiResult<std::vector<Chunk>> funded_chunks(const json& body, Vault& v, const Pool& pool,
                                            const BinRange& whole) {
  TRY_API(x, req_amount(body, "amountX"));
  TRY_API(y, req_amount(body, "amountY"));
  if (x == 0 && y == 0) return validation("amountX", "amountX and amountY cannot both be 0");
  TRY_API(parts, resume_at_cursor(body, split_amounts(whole, x, y, pool.active_bin_id)));
  std::uint64_t deposit_x = 0, deposit_y = 0;
  for (const Chunk& c : parts) {
    deposit_x += c.x;
    deposit_y += c.y;
  }
  if (v.balances[pool.token_x] < deposit_x)
    return conflict("Stale", "the vault holds less than amountX of token X");
  if (v.balances[pool.token_y] < deposit_y)
    return conflict("Stale", "the vault holds less than amountY of token Y");
  return parts;
}

Steps build_dlmm_open(BuildContext& ctx, Vault& v) {
  TRY_API(lb_pair, req_key(ctx.body, "lbPair"));
  const Pool* pool = ctx.engine.world.pool(lb_pair);
  if (pool == nullptr) return not_found("pool " + to_base58(lb_pair));
  TRY_API(lower, req_int(ctx.body, "lowerBinId", -443636, 443636));
  TRY_API(upper_exclusive, req_int(ctx.body, "upperBinId", -443636, 443637));
  TRY_API(shape, req_choice(ctx.body, "shape", {"spot", "curve", "bidAsk"}));
  TRY_API(max_slip, req_int(ctx.body, "maxActiveBinSlippage", 0, 1000));
  if (upper_exclusive <= lower)
    return validation("upperBinId", "must be above lowerBinId (it is exclusive here)");
  if (upper_exclusive - lower > static_cast<std::int64_t>(kMaxOpenBins)) {
    return validation("upperBinId", "dlmm/open accepts at most 1400 bins");
  }
  const BinRange whole{static_cast<int>(lower), static_cast<int>(upper_exclusive - 1)};
  TRY_API(parts, funded_chunks(ctx.body, v, *pool, whole));
  std::vector<BuiltStep> steps;
  for (const Chunk& chunk : parts) {
    // Plain copies: lambdas below capture them (clang 14 cannot capture structured bindings).
    const BinRange r = chunk.range;
    const std::uint64_t x = chunk.x, y = chunk.y;
    auto position_key = ctx.engine.derived_keypair("position", v.address, ctx.engine.nonce++);
    const PublicKey position = position_key->public_key();
    const PublicKey strategy = dlmm_strategy(v, position);
    Borsh args;
    args.i32(r.lower).i32(static_cast<std::int32_t>(r.count()));
    args.raw(strategy_args(x, y, pool->active_bin_id, static_cast<int>(max_slip), r, shape));
    StepSpec spec{"dlmm_open", base_accounts(v, ctx.key), args.data(), 250'000};
    spec.accounts.w(strategy)
        .s(position)
        .w(lb_pair)
        .w(bin_array(lb_pair, r.lower))
        .w(bin_array(lb_pair, r.upper));
    spec.accounts.r(key_of(kDlmmProgram)).r(key_of(programs::kToken)).r(key_of(programs::kSystem));
    spec.cosigners.push_back(std::move(position_key).value());
    TRY_API(step, make_step(ctx, std::move(spec)));
    step.send_concurrently = parts.size() > 1;
    step.metadata["position"] = to_base58(position);
    step.metadata["lowerBinId"] = r.lower;
    step.metadata["upperBinId"] = r.upper;
    const int active = pool->active_bin_id;
    step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
      const Pool* p = e.world.pool(lb_pair);
      Strategy s = new_strategy(e, vault, strategy, "dlmm");
      s.position = position;
      s.lb_pair = lb_pair;
      s.lower_bin = r.lower;
      s.upper_bin = r.upper;
      s.bins = distribute(r, active, x, y, shape);
      vault.balances[p->token_x] -= std::min(vault.balances[p->token_x], x);
      vault.balances[p->token_y] -= std::min(vault.balances[p->token_y], y);
      vault.strategies.push_back(s);
    });
    steps.push_back(std::move(step));
  }
  return steps;
}

// dlmm/add and dlmm/add-range: fund bins of an existing position, 70 bins per step.
Steps fund_position(BuildContext& ctx, Vault& v, const char* instruction, bool range_required) {
  TRY_API(s, position_of(ctx, v));
  const Pool* pool = ctx.engine.world.pool(s->lb_pair);
  TRY_API(shape, req_choice(ctx.body, "shape", {"spot", "curve", "bidAsk"}));
  TRY_API(max_slip, req_int(ctx.body, "maxActiveBinSlippage", 0, 1000));
  TRY_API(sub, optional_range(ctx.body));
  if (range_required && !sub) return validation("lowerBinId", "is required");
  const BinRange whole = sub ? *sub : BinRange{s->lower_bin, s->upper_bin};
  if (whole.lower < s->lower_bin || whole.upper > s->upper_bin) {
    return validation("lowerBinId", "the range must lie inside the position");
  }
  TRY_API(parts, funded_chunks(ctx.body, v, *pool, whole));
  std::vector<BuiltStep> steps;
  for (const Chunk& chunk : parts) {
    // Plain copies: lambdas below capture them (clang 14 cannot capture structured bindings).
    const BinRange r = chunk.range;
    const std::uint64_t x = chunk.x, y = chunk.y;
    StepSpec spec{instruction, pool_accounts(v, ctx.key, *s, r),
                  strategy_args(x, y, pool->active_bin_id, static_cast<int>(max_slip), r, shape),
                  220'000};
    TRY_API(step, make_step(ctx, std::move(spec)));
    step.send_concurrently = parts.size() > 1;
    step.metadata["lowerBinId"] = r.lower;
    step.metadata["upperBinId"] = r.upper;
    const PublicKey position = s->position;
    const int active = pool->active_bin_id;
    step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
      Strategy* st = strategy_by_position(vault, position);
      const Pool* p = st ? e.world.pool(st->lb_pair) : nullptr;
      if (st == nullptr || p == nullptr) return;
      for (const auto& add : distribute(r, active, x, y, shape)) {
        auto it = std::find_if(st->bins.begin(), st->bins.end(),
                               [&](const Bin& b) { return b.bin_id == add.bin_id; });
        if (it == st->bins.end()) {
          st->bins.push_back(add);
        } else {
          it->amount_x += add.amount_x;
          it->amount_y += add.amount_y;
        }
      }
      vault.balances[p->token_x] -= std::min(vault.balances[p->token_x], x);
      vault.balances[p->token_y] -= std::min(vault.balances[p->token_y], y);
      st->last_action_ts = now_s(e);
    });
    steps.push_back(std::move(step));
  }
  return steps;
}

Steps build_dlmm_add(BuildContext& ctx, Vault& v) {
  return fund_position(ctx, v, "dlmm_add", false);
}
Steps build_dlmm_add_range(BuildContext& ctx, Vault& v) {
  return fund_position(ctx, v, "dlmm_add_range", true);
}

Steps build_dlmm_remove(BuildContext& ctx, Vault& v) {
  TRY_API(s, position_of(ctx, v));
  TRY_API(bps, req_int(ctx.body, "bpsToRemove", 1, 10000));
  TRY_API(sub, optional_range(ctx.body));
  const BinRange whole = sub ? *sub : BinRange{s->lower_bin, s->upper_bin};
  if (whole.lower < s->lower_bin || whole.upper > s->upper_bin) {
    return validation("lowerBinId", "the range must lie inside the position");
  }
  TRY_API(parts, resume_at_cursor(ctx.body, split_amounts(whole, 0, 0, whole.lower)));
  std::vector<BuiltStep> steps;
  for (const Chunk& chunk : parts) {
    const BinRange r = chunk.range;
    StepSpec spec{"dlmm_remove", pool_accounts(v, ctx.key, *s, r),
                  Borsh().i32(r.lower).i32(r.upper).u16(static_cast<std::uint16_t>(bps)).data(),
                  200'000};
    TRY_API(step, make_step(ctx, std::move(spec)));
    step.send_concurrently = parts.size() > 1;
    step.metadata["lowerBinId"] = r.lower;
    step.metadata["upperBinId"] = r.upper;
    const PublicKey position = s->position;
    step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
      Strategy* st = strategy_by_position(vault, position);
      const Pool* p = st ? e.world.pool(st->lb_pair) : nullptr;
      if (st == nullptr || p == nullptr) return;
      for (auto& b : st->bins) {
        if (b.bin_id < r.lower || b.bin_id > r.upper) continue;
        const auto x = static_cast<std::uint64_t>(static_cast<unsigned __int128>(b.amount_x) *
                                                  static_cast<std::uint64_t>(bps) / 10000);
        const auto y = static_cast<std::uint64_t>(static_cast<unsigned __int128>(b.amount_y) *
                                                  static_cast<std::uint64_t>(bps) / 10000);
        b.amount_x -= x;
        b.amount_y -= y;
        vault.balances[p->token_x] += x;
        vault.balances[p->token_y] += y;
      }
      st->last_action_ts = now_s(e);
    });
    steps.push_back(std::move(step));
  }
  return steps;
}

Steps build_dlmm_flip(BuildContext& ctx, Vault& v) {
  TRY_API(s, position_of(ctx, v));
  TRY_API(lower, req_int(ctx.body, "lowerBinId", -443636, 443636));
  TRY_API(upper, req_int(ctx.body, "upperBinId", -443636, 443636));
  TRY_API(active, req_int(ctx.body, "activeBinId", -443636, 443636));
  TRY_API(max_slip, req_int(ctx.body, "maxActiveBinSlippage", 0, 1000));
  const BinRange r{static_cast<int>(lower), static_cast<int>(upper)};
  if (r.upper < r.lower) return validation("upperBinId", "must not be below lowerBinId");
  if (r.lower < s->lower_bin || r.upper > s->upper_bin)
    return validation("lowerBinId", "the bins must lie inside the position");
  if (r.count() > kBinsPerTransaction) {
    return validation("upperBinId", "the selection does not fit one transaction (at most 70 bins)");
  }
  const Pool* pool = ctx.engine.world.pool(s->lb_pair);
  if (std::abs(pool->active_bin_id - active) > max_slip) {
    return conflict("Stale",
                    "the active bin moved more than maxActiveBinSlippage from activeBinId");
  }
  if (!(r.lower > pool->active_bin_id || r.upper < pool->active_bin_id)) {
    return validation("lowerBinId",
                      "the bins must lie entirely above or entirely below the active bin");
  }
  StepSpec spec{"dlmm_flip", pool_accounts(v, ctx.key, *s, r),
                Borsh()
                    .i32(r.lower)
                    .i32(r.upper)
                    .i32(static_cast<std::int32_t>(active))
                    .i32(static_cast<std::int32_t>(max_slip))
                    .data(),
                230'000};
  TRY_API(step, make_step(ctx, std::move(spec)));
  const PublicKey position = s->position;
  const bool above = r.lower > pool->active_bin_id;
  step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
    Strategy* st = strategy_by_position(vault, position);
    if (st == nullptr) return;
    // Bins above the active bin held X and now hold the Y it buys, and the reverse below.
    for (auto& b : st->bins) {
      if (b.bin_id < r.lower || b.bin_id > r.upper) continue;
      const Pool* p = e.world.pool(st->lb_pair);
      if (above) {
        b.amount_y += quote_out(e.world, p->token_x, p->token_y, b.amount_x);
        b.amount_x = 0;
      } else {
        b.amount_x += quote_out(e.world, p->token_y, p->token_x, b.amount_y);
        b.amount_y = 0;
      }
    }
    st->last_action_ts = now_s(e);
  });
  return std::vector<BuiltStep>{std::move(step)};
}

Steps build_dlmm_claim_fee(BuildContext& ctx, Vault& v) {
  TRY_API(s, position_of(ctx, v));
  Accounts a = base_accounts(v, ctx.key);
  a.w(s->position).w(s->lb_pair).r(key_of(kDlmmProgram)).r(key_of(programs::kToken));
  TRY_API(step, make_step(ctx, StepSpec{"dlmm_claim_fee", a, {}, 90'000}));
  const PublicKey position = s->position;
  step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
    Strategy* st = strategy_by_position(vault, position);
    const Pool* p = st ? e.world.pool(st->lb_pair) : nullptr;
    if (st == nullptr || p == nullptr) return;
    vault.balances[p->token_x] += st->fee_x;
    vault.balances[p->token_y] += st->fee_y;
    st->fee_x = st->fee_y = 0;
  });
  return std::vector<BuiltStep>{std::move(step)};
}

void close_position(Engine& e, Vault& vault, const PublicKey& position, bool withdraw) {
  Strategy* st = strategy_by_position(vault, position);
  const Pool* p = st ? e.world.pool(st->lb_pair) : nullptr;
  if (st == nullptr || p == nullptr) return;
  if (withdraw) {
    for (const auto& b : st->bins) {
      vault.balances[p->token_x] += b.amount_x;
      vault.balances[p->token_y] += b.amount_y;
    }
    vault.balances[p->token_x] += st->fee_x;
    vault.balances[p->token_y] += st->fee_y;
  }
  vault.history.push_back({*st, now_s(e)});
  std::erase_if(vault.strategies, [&](const Strategy& x) { return x.position == position; });
}

Steps build_dlmm_zap_out(BuildContext& ctx, Vault& v) {
  TRY_API(s, position_of(ctx, v));
  TRY_API(bps, slippage(ctx.body, v));
  const Pool* pool = ctx.engine.world.pool(s->lb_pair);
  Accounts a = base_accounts(v, ctx.key);
  a.w(s->address).w(s->position).w(s->lb_pair).r(key_of(kDlmmProgram)).r(key_of(programs::kToken));
  TRY_API(step, make_step(ctx, StepSpec{"dlmm_zap_out", a, Borsh().u16(bps).data(), 260'000}));
  const PublicKey other = pool->token_x == v.deposit_mint ? pool->token_y : pool->token_x;
  std::uint64_t returned = 0;
  for (const auto& b : s->bins) returned += other == pool->token_x ? b.amount_x : b.amount_y;
  if (returned > 0 && other != v.deposit_mint) {
    step.next = std::make_pair(
        std::string("aggregator/sweep"),
        json{{"vault", to_base58(v.address)}, {"mint", to_base58(other)}, {"slippageBps", bps}});
  }
  const PublicKey position = s->position;
  step.effect = on_vault(
      v.address, [=](Engine& e, Vault& vault) { close_position(e, vault, position, true); });
  return std::vector<BuiltStep>{std::move(step)};
}

bool position_empty(const Strategy& s) {
  return std::all_of(s.bins.begin(), s.bins.end(),
                     [](const Bin& b) { return b.amount_x == 0 && b.amount_y == 0; }) &&
         s.fee_x == 0 && s.fee_y == 0;
}

Steps build_dlmm_close(BuildContext& ctx, Vault& v) {
  TRY_API(s, position_of(ctx, v));
  if (!position_empty(*s)) return conflict("Stale", "the position still holds liquidity or fees");
  Accounts a = base_accounts(v, ctx.key);
  a.w(s->address).w(s->position).r(s->lb_pair).r(key_of(kDlmmProgram));
  TRY_API(step, make_step(ctx, StepSpec{"dlmm_close", a, {}, 80'000}));
  const PublicKey position = s->position;
  step.effect = on_vault(
      v.address, [=](Engine& e, Vault& vault) { close_position(e, vault, position, false); });
  return std::vector<BuiltStep>{std::move(step)};
}

// dlmm/extend grows a position to `upperBinId` (inclusive), 70 bins per step; `next` repeats it
// until the range is reached, and then, when the body carries amounts, funds the new bins
// through dlmm/add-range (spec 5.7).
Steps build_dlmm_extend(BuildContext& ctx, Vault& v) {
  TRY_API(s, position_of(ctx, v));
  TRY_API(upper, req_int(ctx.body, "upperBinId", -443636, 443636));
  if (upper <= s->upper_bin) {
    return validation("upperBinId",
                      "must be above the position's upper bin " + std::to_string(s->upper_bin));
  }
  const int from = s->upper_bin + 1;
  const int to = static_cast<int>(
      std::min<std::int64_t>(upper, from + static_cast<int>(kBinsPerTransaction) - 1));
  Accounts a = base_accounts(v, ctx.key);
  a.w(s->position).r(s->lb_pair).r(key_of(kDlmmProgram)).r(key_of(programs::kSystem));
  TRY_API(step, make_step(ctx, StepSpec{"dlmm_extend", a,
                                        Borsh().i32(from).i32(to - from + 1).data(), 100'000}));
  if (to < upper) {
    step.next = std::make_pair(std::string("dlmm/extend"), ctx.body);
  } else if (ctx.body.contains("amountX") || ctx.body.contains("amountY")) {
    const int first_new =
        ctx.body.contains("fromBinId") && ctx.body["fromBinId"].is_number_integer()
            ? ctx.body["fromBinId"].get<int>()
            : from;
    json next = {{"vault", to_base58(v.address)},
                 {"position", to_base58(s->position)},
                 {"lowerBinId", first_new},
                 {"upperBinId", upper},
                 {"amountX", ctx.body.value("amountX", std::string("0"))},
                 {"amountY", ctx.body.value("amountY", std::string("0"))},
                 {"shape", ctx.body.value("shape", std::string("spot"))},
                 {"maxActiveBinSlippage", ctx.body.value("maxActiveBinSlippage", 10)}};
    step.next = std::make_pair(std::string("dlmm/add-range"), next);
  }
  if (to < upper && !ctx.body.contains("fromBinId")) {
    json body = ctx.body;
    body["fromBinId"] = from;  // remembered so the funding covers every new bin
    step.next = std::make_pair(std::string("dlmm/extend"), body);
  }
  const PublicKey position = s->position;
  step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
    Strategy* st = strategy_by_position(vault, position);
    if (st == nullptr) return;
    st->upper_bin = std::max(st->upper_bin, to);
    st->last_action_ts = now_s(e);
  });
  return std::vector<BuiltStep>{std::move(step)};
}

ApiResult<std::tuple<PublicKey, std::uint64_t, bool>> zap_source(const json& source) {
  if (!source.is_object())
    return validation("sources[0]", "must be an object {mint, balanceBefore, closeWhenEmpty}");
  auto mint = req_key(source, "mint");
  if (std::holds_alternative<ApiError>(mint))
    return validation("sources[0].mint", "must be a base58 public key that decodes to 32 bytes");
  auto before = req_amount(source, "balanceBefore");
  if (std::holds_alternative<ApiError>(before))
    return validation("sources[0].balanceBefore", "must be a string of 1 to 20 decimal digits");
  auto close = req_bool(source, "closeWhenEmpty");
  if (std::holds_alternative<ApiError>(close))
    return validation("sources[0].closeWhenEmpty", "must be true or false");
  return std::make_tuple(std::get<PublicKey>(mint), std::get<std::uint64_t>(before),
                         std::get<bool>(close));
}

Steps build_dlmm_zap_out_swap(BuildContext& ctx, Vault& v) {
  if (!ctx.body.contains("sources") || !ctx.body["sources"].is_array() ||
      ctx.body["sources"].empty() || ctx.body["sources"].size() > 2) {
    return validation("sources", "must be an array of 1 or 2 objects");
  }
  TRY_API(bps, slippage(ctx.body, v));
  TRY_API(source, zap_source(ctx.body["sources"][0]));
  // Plain copies rather than structured bindings: the lambda below captures them,
  // which clang 14 (the fuzz preset) does not allow for bindings.
  const PublicKey mint = std::get<0>(source);
  const std::uint64_t before = std::get<1>(source);
  const bool close_when_empty = std::get<2>(source);
  const std::uint64_t balance = v.balances[mint];
  if (balance < before)
    return conflict("ZapBalanceChanged", "the vault balance fell below balanceBefore");
  if (balance == before)
    return conflict("ZapNothingToSwap", "the position returned nothing to swap");
  if (ctx.engine.faults.venue_failure) return ApiError{502, *ctx.engine.faults.venue_failure, ""};
  const std::uint64_t amount = balance - before;
  const std::uint64_t out = quote_out(ctx.engine.world, mint, v.deposit_mint, amount);
  if (out == 0) return ApiError{422, "SweepUnroutable", "no route between these tokens"};
  Route route = make_route(ctx.engine, v, mint, v.deposit_mint, amount, out, bps);
  Strategy* strategy = find_strategy(
      v, [&](const Strategy& s) { return s.type == "aggregator" && s.target_mint == mint; });
  const PublicKey strategy_key = strategy ? strategy->address : aggregator_strategy(v, mint);
  StepSpec spec{
      "dlmm_zap_out_swap", base_accounts(v, ctx.key),
      Borsh().key(mint).u64(before).boolean(close_when_empty).u16(bps).bytes(route.data).data(),
      300'000};
  spec.accounts.w(strategy_key)
      .r(mint)
      .r(v.deposit_mint)
      .w(token_account(v, mint))
      .w(token_account(v, v.deposit_mint));
  spec.accounts.r(key_of(kJupiterProgram)).r(key_of(programs::kToken));
  for (const auto& meta : route.accounts) spec.accounts.metas.push_back(meta);
  spec.tables.push_back(route.table);
  TRY_API(step, make_step(ctx, std::move(spec)));
  if (ctx.body["sources"].size() == 2) {
    json next = ctx.body;
    next["sources"] = json::array({ctx.body["sources"][1]});
    step.next = std::make_pair(std::string("dlmm/zap-out/swap"), next);
  }
  const PublicKey deposit = v.deposit_mint;
  step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
    const std::uint64_t sold =
        std::min(vault.balances[mint] - std::min(vault.balances[mint], before), amount);
    vault.balances[mint] -= sold;
    vault.balances[deposit] += quote_out(e.world, mint, deposit, sold);
    if (close_when_empty) {
      Strategy* st = find_strategy(vault, [&](const Strategy& s) {
        return s.type == "aggregator" && s.target_mint == mint;
      });
      if (st && vault.balances[mint] == 0) {
        vault.history.push_back({*st, now_s(e)});
        std::erase_if(vault.strategies, [&](const Strategy& s) {
          return s.type == "aggregator" && s.target_mint == mint;
        });
      }
    }
  });
  return std::vector<BuiltStep>{std::move(step)};
}

Steps build_limit_order_place(BuildContext& ctx, Vault& v) {
  TRY_API(lb_pair, req_key(ctx.body, "lbPair"));
  const Pool* pool = ctx.engine.world.pool(lb_pair);
  if (pool == nullptr) return not_found("pool " + to_base58(lb_pair));
  TRY_API(side, req_choice(ctx.body, "side", {"bid", "ask"}));
  if (!ctx.body.contains("bins") || !ctx.body["bins"].is_array() || ctx.body["bins"].empty() ||
      ctx.body["bins"].size() > kBinsPerTransaction) {
    return validation("bins", "must be an array of 1 to 70 {binId, amount}");
  }
  Borsh args;
  args.u8(side == "bid" ? 0 : 1).u32(static_cast<std::uint32_t>(ctx.body["bins"].size()));
  std::vector<Bin> bins;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < ctx.body["bins"].size(); ++i) {
    const json& b = ctx.body["bins"][i];
    const std::string field = "bins[" + std::to_string(i) + "]";
    if (!b.is_object() || !b.contains("binId") || !b["binId"].is_number_integer()) {
      return validation(field + ".binId", "must be an integer");
    }
    auto amount = req_amount(b, "amount");
    if (std::holds_alternative<ApiError>(amount)) {
      return validation(field + ".amount", "must be a string of 1 to 20 decimal digits");
    }
    const int id = b["binId"].get<int>();
    if ((side == "bid" && id >= pool->active_bin_id) ||
        (side == "ask" && id <= pool->active_bin_id)) {
      return validation(field + ".binId", side == "bid" ? "bids must sit below the active bin"
                                                        : "asks must sit above the active bin");
    }
    const std::uint64_t a = std::get<std::uint64_t>(amount);
    bins.push_back({id, side == "ask" ? a : 0, side == "bid" ? a : 0});
    total += a;
    args.i32(id).u64(a);
  }
  const PublicKey sells = side == "ask" ? pool->token_x : pool->token_y;
  if (v.balances[sells] < total)
    return conflict("Stale", "the vault holds less than the bins' total of the token it sells");
  auto order_key = ctx.engine.derived_keypair("limit-order", v.address, ctx.engine.nonce++);
  const PublicKey order = order_key->public_key();
  const PublicKey strategy = limit_order_strategy(v, order);
  StepSpec spec{"dlmm_limit_order_place", base_accounts(v, ctx.key), args.data(), 210'000};
  spec.accounts.w(strategy)
      .s(order)
      .w(lb_pair)
      .r(key_of(kDlmmProgram))
      .r(key_of(programs::kToken))
      .r(key_of(programs::kSystem));
  spec.cosigners.push_back(std::move(order_key).value());
  TRY_API(step, make_step(ctx, std::move(spec)));
  step.metadata["limitOrder"] = to_base58(order);
  step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
    Strategy s = new_strategy(e, vault, strategy, "dlmm_limit_order");
    s.position = order;
    s.lb_pair = lb_pair;
    s.side = side;
    s.bins = bins;
    s.lower_bin = bins.front().bin_id;
    s.upper_bin = bins.front().bin_id;
    for (const auto& b : bins) {
      s.lower_bin = std::min(s.lower_bin, b.bin_id);
      s.upper_bin = std::max(s.upper_bin, b.bin_id);
    }
    vault.balances[sells] -= std::min(vault.balances[sells], total);
    vault.strategies.push_back(s);
  });
  return std::vector<BuiltStep>{std::move(step)};
}

Steps build_limit_order_cancel(BuildContext& ctx, Vault& v) {
  TRY_API(s, position_of(ctx, v, "limitOrder"));
  if (s->type != "dlmm_limit_order") return not_found("limit order " + to_base58(s->position));
  Accounts a = base_accounts(v, ctx.key);
  a.w(s->address).w(s->position).w(s->lb_pair).r(key_of(kDlmmProgram)).r(key_of(programs::kToken));
  TRY_API(step, make_step(ctx, StepSpec{"dlmm_limit_order_cancel", a, {}, 150'000}));
  const PublicKey order = s->position;
  step.effect =
      on_vault(v.address, [=](Engine& e, Vault& vault) { close_position(e, vault, order, true); });
  return std::vector<BuiltStep>{std::move(step)};
}

// ---- perpetuals ----

Strategy* perp_strategy(Vault& v) {
  return find_strategy(v, [](const Strategy& s) { return s.type == "perp"; });
}

ApiResult<Strategy*> require_perp(Vault& v, bool onboarded) {
  Strategy* s = perp_strategy(v);
  if (s == nullptr)
    return conflict("Stale", "the vault has no perpetuals account; call perp/initialize first");
  if (onboarded && !s->onboarded)
    return conflict("Stale", "the perpetuals account is not onboarded; call perp/onboard first");
  return s;
}

ApiResult<const PerpMarket*> market_of(BuildContext& ctx) {
  if (!ctx.body.contains("symbol") || !ctx.body["symbol"].is_string())
    return validation("symbol", "must be a market symbol");
  const PerpMarket* market = ctx.engine.world.perp_market(ctx.body["symbol"].get<std::string>());
  if (market == nullptr) return not_found("market " + ctx.body["symbol"].get<std::string>());
  return market;
}

Steps build_perp_initialize(BuildContext& ctx, Vault& v) {
  if (perp_strategy(v)) return conflict("Stale", "the vault already has a perpetuals account");
  const PublicKey strategy = perp_strategy_address(v);
  const PublicKey trader = trader_address(v);
  Accounts a = base_accounts(v, ctx.key);
  a.w(strategy).w(trader).r(key_of(kPerpProgram)).r(key_of(programs::kSystem));
  TRY_API(step, make_step(ctx, StepSpec{"perp_initialize", a, {}, 120'000}));
  step.metadata["traderAccount"] = to_base58(trader);
  step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
    Strategy s = new_strategy(e, vault, strategy, "perp");
    s.trader_account = trader;
    vault.strategies.push_back(s);
  });
  return std::vector<BuiltStep>{std::move(step)};
}

Steps build_perp_onboard(BuildContext& ctx, Vault& v) {
  TRY_API(s, require_perp(v, false));
  if (s->onboarded)
    return conflict("PerpAlreadyOnboarded", "the perpetuals account is already onboarded");
  if (ctx.engine.faults.venue_failure) return ApiError{502, *ctx.engine.faults.venue_failure, ""};
  auto venue = ctx.engine.derived_keypair("perp-venue", PublicKey{}, 0);
  // Only the venue program is invoked (spec 4.10), so no compute-budget instructions.
  std::vector<AccountMeta> metas{{v.address, false, true},
                                 {ctx.key.manager, true, true},
                                 {s->trader_account, false, true},
                                 {venue->public_key(), true, false}};
  // The twin's own onboarding instruction (offline/idl/airlock_perp_venue.json): an explicit
  // discriminator that overlaps none of Phoenix's one-byte instruction tags.
  static const Bytes kOnboard = {'T', 'W', 'I', 'N', 'O', 'N', 'B', 'D'};
  std::vector<Instruction> ixs{{key_of(kPerpProgram), metas, kOnboard}};
  auto message =
      compile_v0_message(ctx.key.manager, ixs, ctx.engine.blockhash_for(ctx.engine.slot()));
  if (!message.ok()) return ApiError{500, "BuildFailed", message.error().to_string()};
  BuiltStep step;
  step.tx = unsigned_transaction(std::move(message).value());
  step.deferred = true;  // not simulated; the venue co-signs at submit
  step.cosigner_slot_for_venue = venue->public_key();
  step.effect = on_vault(v.address, [](Engine&, Vault& vault) {
    if (Strategy* st = perp_strategy(vault)) st->onboarded = true;
  });
  return std::vector<BuiltStep>{std::move(step)};
}

Steps build_perp_move(BuildContext& ctx, Vault& v, bool deposit) {
  TRY_API(s, require_perp(v, true));
  TRY_API(amount, req_amount(ctx.body, "amount"));
  if (amount == 0) return validation("amount", "must be greater than 0");
  if (deposit && v.balances[v.deposit_mint] < amount)
    return conflict("Stale", "the vault holds less than amount of its deposit token");
  if (!deposit && s->collateral < amount)
    return conflict("Stale", "the margin account holds less than amount");
  Accounts a = base_accounts(v, ctx.key);
  a.w(s->trader_account)
      .r(v.deposit_mint)
      .w(token_account(v, v.deposit_mint))
      .r(key_of(kPerpProgram))
      .r(key_of(programs::kToken));
  TRY_API(step, make_step(ctx, StepSpec{deposit ? "perp_deposit" : "perp_withdraw", a,
                                        Borsh().u64(amount).data(), 140'000}));
  step.effect = on_vault(v.address, [=](Engine&, Vault& vault) {
    Strategy* st = perp_strategy(vault);
    if (st == nullptr) return;
    if (deposit) {
      const std::uint64_t moved = std::min(vault.balances[vault.deposit_mint], amount);
      vault.balances[vault.deposit_mint] -= moved;
      st->collateral += moved;
    } else {
      const std::uint64_t moved = std::min(st->collateral, amount);
      st->collateral -= moved;
      vault.balances[vault.deposit_mint] += moved;
    }
  });
  return std::vector<BuiltStep>{std::move(step)};
}

Steps build_perp_deposit(BuildContext& ctx, Vault& v) { return build_perp_move(ctx, v, true); }
Steps build_perp_withdraw(BuildContext& ctx, Vault& v) { return build_perp_move(ctx, v, false); }

Steps build_perp_order(BuildContext& ctx, Vault& v) {
  TRY_API(s, require_perp(v, true));
  TRY_API(market, market_of(ctx));
  if (ctx.engine.faults.venue_failure) return ApiError{502, *ctx.engine.faults.venue_failure, ""};
  if (market->mark_price.empty())
    return ApiError{422, "PerpNoMark", "the market has no mark price"};
  TRY_API(side, req_choice(ctx.body, "side", {"long", "short"}));
  TRY_API(size, req_decimal(ctx.body, "size"));
  TRY_API(reduce_only, req_bool(ctx.body, "reduceOnly"));
  if (!ctx.body.contains("order") || !ctx.body["order"].is_object()) {
    return validation("order", "must be an object {type, price, postOnly}");
  }
  const json& order = ctx.body["order"];
  auto type_r = req_choice(order, "type", {"limit", "market"});
  if (std::holds_alternative<ApiError>(type_r))
    return validation("order.type", "must be one of limit, market");
  const std::string type = std::get<std::string>(type_r);
  unsigned __int128 price = 0;
  bool post_only = false;
  if (type == "limit") {
    auto price_r = req_decimal(order, "price");
    if (std::holds_alternative<ApiError>(price_r)) {
      return validation("order.price",
                        "must be a decimal with up to 15 integer and 12 fractional digits");
    }
    price = std::get<unsigned __int128>(price_r);
    auto post_r = req_bool(order, "postOnly");
    if (std::holds_alternative<ApiError>(post_r))
      return validation("order.postOnly", "must be true or false");
    post_only = std::get<bool>(post_r);
  }
  // Sizes round down to base lots and prices to ticks, as the builder does (spec 2.2).
  const auto lots =
      static_cast<std::uint64_t>(size * market->base_lots_per_unit / 1'000'000'000'000ULL);
  const auto ticks =
      static_cast<std::uint64_t>(price * market->ticks_per_usd / 1'000'000'000'000ULL);
  if (lots == 0) return validation("size", "rounds down to zero base lots");
  if (type == "limit" && ticks == 0) return validation("order.price", "rounds down to zero ticks");
  const std::uint8_t order_type = type == "market" ? 2 : post_only ? 1 : 0;
  Accounts a = base_accounts(v, ctx.key);
  a.w(s->trader_account)
      .w(derive_address("perp-market", PublicKey{}, market->asset_id))
      .r(key_of(kPerpProgram));
  Borsh args;
  args.u32(market->asset_id)
      .u8(side == "long" ? 0 : 1)
      .u8(order_type)
      .u64(ticks)
      .u64(lots)
      .boolean(reduce_only);
  TRY_API(step, make_step(ctx, StepSpec{"perp_order", a, args.data(), 160'000}));
  step.metadata["baseLots"] = std::to_string(lots);
  step.metadata["priceInTicks"] = std::to_string(ticks);
  const bool resting = type == "limit";
  step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
    Strategy* st = perp_strategy(vault);
    if (st && resting) st->open_orders.emplace_back(ticks, ++e.nonce);
  });
  return std::vector<BuiltStep>{std::move(step)};
}

Steps build_perp_cancel(BuildContext& ctx, Vault& v) {
  TRY_API(s, require_perp(v, true));
  TRY_API(market, market_of(ctx));
  if (!ctx.body.contains("orders")) return validation("orders", "is required");
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ids;
  const json& orders = ctx.body["orders"];
  if (orders.is_string() && orders.get<std::string>() == "all") {
    // an empty list cancels every order in the market
  } else if (orders.is_array() && !orders.empty() && orders.size() <= 20) {
    for (std::size_t i = 0; i < orders.size(); ++i) {
      const std::string field = "orders[" + std::to_string(i) + "]";
      std::uint64_t values[2] = {0, 0};
      const char* names[2] = {"priceInTicks", "orderSequenceNumber"};
      for (std::size_t k = 0; k < 2; ++k) {
        auto value = orders[i].is_object() ? req_amount(orders[i], names[k])
                                           : ApiResult<std::uint64_t>(validation("", ""));
        if (std::holds_alternative<ApiError>(value)) {
          return validation(field + "." + names[k], "must be an integer string of up to 20 digits");
        }
        values[k] = std::get<std::uint64_t>(value);
      }
      ids.emplace_back(values[0], values[1]);
    }
  } else {
    return validation("orders", "must be \"all\" or an array of 1 to 20 order identifiers");
  }
  Accounts a = base_accounts(v, ctx.key);
  a.w(s->trader_account)
      .w(derive_address("perp-market", PublicKey{}, market->asset_id))
      .r(key_of(kPerpProgram));
  Borsh args;
  args.u32(market->asset_id).u32(static_cast<std::uint32_t>(ids.size()));
  for (const auto& [price, seq] : ids) args.u64(price).u64(seq);
  TRY_API(step, make_step(ctx, StepSpec{"perp_cancel", a, args.data(), 120'000}));
  step.effect = on_vault(v.address, [=](Engine&, Vault& vault) {
    Strategy* st = perp_strategy(vault);
    if (st == nullptr) return;
    if (ids.empty()) {
      st->open_orders.clear();
    } else {
      std::erase_if(st->open_orders, [&](const auto& o) {
        return std::find(ids.begin(), ids.end(), o) != ids.end();
      });
    }
  });
  return std::vector<BuiltStep>{std::move(step)};
}

Steps build_perp_sweep(BuildContext& ctx, Vault& v) {
  TRY_API(s, require_perp(v, false));
  Accounts a = base_accounts(v, ctx.key);
  a.w(s->address)
      .w(s->trader_account)
      .r(v.deposit_mint)
      .w(token_account(v, v.deposit_mint))
      .r(key_of(kPerpProgram))
      .r(key_of(programs::kToken));
  TRY_API(step, make_step(ctx, StepSpec{"perp_sweep", a, {}, 180'000}));
  step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
    Strategy* st = perp_strategy(vault);
    if (st == nullptr) return;
    vault.balances[vault.deposit_mint] += st->collateral;
    st->collateral = 0;
    st->open_orders.clear();
    vault.history.push_back({*st, now_s(e)});
    std::erase_if(vault.strategies, [](const Strategy& x) { return x.type == "perp"; });
  });
  return std::vector<BuiltStep>{std::move(step)};
}

// ---- vault ----

Steps build_vault_initialize(BuildContext& ctx) {
  TRY_API(mint, req_key(ctx.body, "depositMint"));
  if (ctx.engine.world.token(mint) == nullptr) return not_found("token " + to_base58(mint));
  TRY_API(cap, req_amount(ctx.body, "depositCap"));
  TRY_API(min_deposit, req_amount(ctx.body, "minDeposit"));
  TRY_API(min_shares, req_amount(ctx.body, "minWithdrawalShares"));
  TRY_API(mgmt, req_int(ctx.body, "managementFeeBps", 0, 10000));
  TRY_API(perf, req_int(ctx.body, "performanceFeeBps", 0, 10000));
  auto vault_key = ctx.engine.derived_keypair("vault", ctx.key.manager, ctx.engine.nonce++);
  const PublicKey vault = vault_key->public_key();
  Accounts a;
  a.s(vault).s(ctx.key.manager).r(mint).r(key_of(programs::kToken)).r(key_of(programs::kSystem));
  Borsh args;
  args.u64(cap)
      .u64(min_deposit)
      .u64(min_shares)
      .u16(static_cast<std::uint16_t>(mgmt))
      .u16(static_cast<std::uint16_t>(perf));
  StepSpec spec{"vault_initialize", a, args.data(), 150'000};
  spec.cosigners.push_back(std::move(vault_key).value());
  TRY_API(step, make_step(ctx, std::move(spec)));
  step.metadata["vault"] = to_base58(vault);
  const PublicKey manager = ctx.key.manager;
  step.effect = [=](Engine& e) {
    Vault created;
    created.address = vault;
    created.authority = manager;
    created.deposit_mint = mint;
    created.deposit_cap = cap;
    created.min_deposit = min_deposit;
    created.min_withdrawal_shares = min_shares;
    created.max_slippage_bps = 300;
    created.management_fee_bps = static_cast<std::uint16_t>(mgmt);
    created.performance_fee_bps = static_cast<std::uint16_t>(perf);
    e.world.vaults.push_back(created);
  };
  return std::vector<BuiltStep>{std::move(step)};
}

template <class T>
std::optional<ApiError> read_optional(
    const json& body, const char* name, std::optional<T>& out, bool& any,
    const std::function<ApiResult<T>(const json&, const char*)>& read) {
  if (!body.contains(name)) return std::nullopt;
  auto r = read(body, name);
  if (auto* e = std::get_if<ApiError>(&r)) return *e;
  out = std::get<T>(r);
  any = true;
  return std::nullopt;
}

Steps build_vault_update(BuildContext& ctx, Vault& v) {
  std::optional<std::uint64_t> cap, min_deposit, min_shares;
  std::optional<bool> paused;
  std::optional<std::int64_t> mgmt, perf;
  bool any = false;
  const std::function<ApiResult<std::uint64_t>(const json&, const char*)> amount = req_amount;
  const std::function<ApiResult<std::int64_t>(const json&, const char*)> bps =
      [](const json& b, const char* n) { return req_int(b, n, 0, 10000); };
  const std::function<ApiResult<bool>(const json&, const char*)> flag = req_bool;
  for (auto e : {read_optional(ctx.body, "depositCap", cap, any, amount),
                 read_optional(ctx.body, "minDeposit", min_deposit, any, amount),
                 read_optional(ctx.body, "minWithdrawalShares", min_shares, any, amount),
                 read_optional(ctx.body, "managementFeeBps", mgmt, any, bps),
                 read_optional(ctx.body, "performanceFeeBps", perf, any, bps),
                 read_optional(ctx.body, "paused", paused, any, flag)}) {
    if (e) return *e;
  }
  if (!any) {
    return validation(
        "(body)",
        "vault/update needs at least one of depositCap, minDeposit, minWithdrawalShares, paused, "
        "managementFeeBps, performanceFeeBps");
  }
  Borsh args;
  const auto u64w = [](Borsh& b, std::uint64_t x) { b.u64(x); };
  const auto u16w = [](Borsh& b, std::int64_t x) { b.u16(static_cast<std::uint16_t>(x)); };
  args.option(cap, u64w).option(min_deposit, u64w).option(min_shares, u64w);
  args.option(paused, [](Borsh& b, bool x) { b.boolean(x); });
  args.option(mgmt, u16w).option(perf, u16w);
  TRY_API(step,
          make_step(ctx, StepSpec{"vault_update", base_accounts(v, ctx.key), args.data(), 60'000}));
  step.effect = on_vault(v.address, [=](Engine&, Vault& vault) {
    if (cap) vault.deposit_cap = *cap;
    if (min_deposit) vault.min_deposit = *min_deposit;
    if (min_shares) vault.min_withdrawal_shares = *min_shares;
    if (paused) vault.paused = *paused;
    if (mgmt) vault.management_fee_bps = static_cast<std::uint16_t>(*mgmt);
    if (perf) vault.performance_fee_bps = static_cast<std::uint16_t>(*perf);
  });
  return std::vector<BuiltStep>{std::move(step)};
}

Steps build_vault_claim_fee(BuildContext& ctx, Vault& v) {
  Accounts a = base_accounts(v, ctx.key);
  a.w(vault_pda({seed("manager_shares"), seed(v.address)})).r(key_of(programs::kToken));
  TRY_API(step, make_step(ctx, StepSpec{"vault_claim_fee", a, {}, 90'000}));
  step.effect = on_vault(v.address, [](Engine&, Vault& vault) {
    vault.share_supply += vault.unclaimed_fee_shares;
    vault.unclaimed_fee_shares = 0;
  });
  return std::vector<BuiltStep>{std::move(step)};
}

Steps build_vault_close(BuildContext& ctx, Vault& v) {
  if (!v.strategies.empty()) return conflict("Stale", "the vault still has open strategies");
  for (const auto& [mint, amount] : v.balances) {
    if (amount != 0) return conflict("Stale", "the vault still holds tokens");
  }
  if (v.share_supply != 0) return conflict("Stale", "the vault still has shares outstanding");
  Accounts a = base_accounts(v, ctx.key);
  a.r(key_of(programs::kSystem));
  TRY_API(step, make_step(ctx, StepSpec{"vault_close", a, {}, 60'000}));
  const PublicKey address = v.address;
  step.effect = [=](Engine& e) {
    if (Vault* vault = e.world.vault(address)) vault->closed = true;
  };
  return std::vector<BuiltStep>{std::move(step)};
}

Steps build_strategy_close(BuildContext& ctx, Vault& v) {
  TRY_API(address, req_key(ctx.body, "strategy"));
  Strategy* s = find_strategy(v, [&](const Strategy& x) { return x.address == address; });
  if (s == nullptr) return not_found("strategy " + to_base58(address));
  const bool empty = (s->type == "aggregator" && v.balances[s->target_mint] == 0) ||
                     ((s->type == "dlmm" || s->type == "dlmm_limit_order") && position_empty(*s)) ||
                     (s->type == "perp" && s->collateral == 0 && s->open_orders.empty());
  if (!empty) return conflict("Stale", "the strategy still holds value");
  Accounts a = base_accounts(v, ctx.key);
  a.w(address);
  TRY_API(step, make_step(ctx, StepSpec{"strategy_close", a, {}, 60'000}));
  step.effect = on_vault(v.address, [=](Engine& e, Vault& vault) {
    Strategy* st = find_strategy(vault, [&](const Strategy& x) { return x.address == address; });
    if (st == nullptr) return;
    vault.history.push_back({*st, now_s(e)});
    std::erase_if(vault.strategies, [&](const Strategy& x) { return x.address == address; });
  });
  return std::vector<BuiltStep>{std::move(step)};
}

using VaultBuilder = Steps (*)(BuildContext&, Vault&);

const std::map<std::string, VaultBuilder, std::less<>>& vault_builders() {
  static const std::map<std::string, VaultBuilder, std::less<>> table = {
      {"aggregator/initialize", build_aggregator_initialize},
      {"aggregator/swap", build_aggregator_swap},
      {"aggregator/sweep", build_aggregator_sweep},
      {"dlmm/initialize", build_dlmm_initialize},
      {"dlmm/open", build_dlmm_open},
      {"dlmm/add", build_dlmm_add},
      {"dlmm/remove", build_dlmm_remove},
      {"dlmm/flip", build_dlmm_flip},
      {"dlmm/claim-fee", build_dlmm_claim_fee},
      {"dlmm/zap-out", build_dlmm_zap_out},
      {"dlmm/close", build_dlmm_close},
      {"dlmm/extend", build_dlmm_extend},
      {"dlmm/add-range", build_dlmm_add_range},
      {"dlmm/zap-out/swap", build_dlmm_zap_out_swap},
      {"dlmm/limit-order/place", build_limit_order_place},
      {"dlmm/limit-order/cancel", build_limit_order_cancel},
      {"perp/initialize", build_perp_initialize},
      {"perp/onboard", build_perp_onboard},
      {"perp/deposit", build_perp_deposit},
      {"perp/withdraw", build_perp_withdraw},
      {"perp/order", build_perp_order},
      {"perp/cancel", build_perp_cancel},
      {"perp/sweep", build_perp_sweep},
      {"vault/update", build_vault_update},
      {"vault/claim-fee", build_vault_claim_fee},
      {"vault/close", build_vault_close},
      {"strategy/close", build_strategy_close},
  };
  return table;
}

}  // namespace

ApiError validation(const std::string& field, const std::string& rule) {
  return ApiError{400, "Validation", field + ": " + rule};
}

const std::vector<std::string>& builder_actions() {
  static const std::vector<std::string> actions = [] {
    std::vector<std::string> out{"vault/initialize"};
    for (const auto& [name, fn] : vault_builders()) out.push_back(name);
    return out;
  }();
  return actions;
}

bool is_builder_action(std::string_view action) {
  return action == "vault/initialize" || vault_builders().count(action) > 0;
}

ApiResult<std::vector<BuiltStep>> build_action(BuildContext& ctx) {
  if (ctx.action == "vault/initialize") return build_vault_initialize(ctx);
  const auto builder = vault_builders().find(ctx.action);
  TRY_API(address, req_key(ctx.body, "vault"));
  Vault* vault = ctx.engine.world.vault(address);
  if (vault == nullptr) return not_found("vault " + to_base58(address));
  if (vault->paused && ctx.action != "vault/update") {
    return conflict("Stale", "the vault is paused; vault/update can lift the pause");
  }
  return builder->second(ctx, *vault);
}

}  // namespace airlock::apisim
