#include "hostile.h"

#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

#include <airlock/apisim/message_builder.h>
#include <airlock/apisim/world.h>
#include <airlock/common/display.h>
#include <airlock/common/ed25519.h>
#include <airlock/common/hash.h>
#include <airlock/common/pda.h>
#include <airlock/common/programs.h>
#include <airlock/common/transaction.h>
#include <airlock/formats/keystone.h>
#include <airlock/offline/templates.h>

#include "conformance_support.h"
#include "support/interfaces.h"

namespace airlock::adversarial {
namespace {

using apisim::test::decompile;
using json = nlohmann::json;

PublicKey key_of(std::string_view base58) { return public_key_from_base58(base58).value(); }

Transaction first_tx(const envelope::SignRequest& q) {
  return parse_transaction(q.steps.at(0).transaction).value();
}

// `q` with its first step recompiled from `ixs` (another fee payer and tables if given).
envelope::SignRequest recompiled(const envelope::SignRequest& q,
                                 const std::vector<Instruction>& ixs, const PublicKey& payer,
                                 std::vector<LoadedTable> tables = {}) {
  auto m = compile_v0_message(payer, ixs, first_tx(q).message.recent_blockhash, tables);
  auto out = q;
  out.steps[0].transaction = serialize_transaction(unsigned_transaction(std::move(m).value()));
  return out;
}

// `q` with its first step's message changed in place, bypassing the builder's rules: how an
// attacker writes bytes no honest compiler produces.
envelope::SignRequest rewritten(const envelope::SignRequest& q,
                                const std::function<void(Message&)>& change) {
  Transaction tx = first_tx(q);
  change(tx.message);
  auto out = q;
  out.steps[0].transaction = serialize_transaction(tx);
  return out;
}

// `q` claiming another build request body: the online half lying about what was asked.
envelope::SignRequest with_intent(const envelope::SignRequest& q,
                                  const std::function<void(json&)>& change) {
  json body = json::parse(q.intent_json);
  change(body);
  auto out = q;
  out.intent_json = body.dump();
  return out;
}

Bytes u64_le(std::uint64_t v) {
  Bytes out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  return out;
}

Bytes concat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The step's main instruction: the twin puts it last, after the compute budget.
std::size_t main_instruction(const Message& m) { return m.instructions.size() - 1; }

// Where `role` sits among the main instruction's accounts: the order the action's template
// (and so the vault IDL) gives them.
std::size_t position_of(const envelope::SignRequest& q, std::string_view role) {
  static const offline::DecoderRegistry registry = test::twin_registry();
  const offline::Descriptor* d = registry.descriptor_for(q.action);
  if (d == nullptr) return SIZE_MAX;
  const auto& accounts = d->instruction(d->action(q.action)->instructions.front())->accounts;
  for (std::size_t i = 0; i < accounts.size(); ++i) {
    if (accounts[i].name == role) return i;
  }
  return SIZE_MAX;
}

// `q` with one account of its main instruction (in `step`) replaced by `key`, a new static
// account with the same flags: a builder that put another account in that one place.
envelope::SignRequest with_account(const envelope::SignRequest& q, std::string_view role,
                                   const PublicKey& key, std::size_t step = 0) {
  const Transaction tx = parse_transaction(q.steps.at(step).transaction).value();
  const std::size_t ix = main_instruction(tx.message);
  const std::size_t at = position_of(q, role);
  auto accounts = apisim::test::static_accounts(tx);
  const std::uint8_t original = tx.message.instructions[ix].accounts.at(at);
  apisim::test::StaticAccount a;
  a.key = key;
  a.writable = original < accounts.size() ? accounts[original].writable : true;
  accounts.push_back(a);
  std::vector<std::uint8_t> placed;
  Transaction changed = apisim::test::rebuild_static_keys(tx, accounts, &placed);
  changed.message.instructions[ix].accounts[at] = placed.back();
  auto out = q;
  out.steps[step].transaction = serialize_transaction(changed);
  return out;
}

// The vault instruction's data, rewritten.
envelope::SignRequest with_data(const envelope::SignRequest& q,
                                const std::function<void(Bytes&)>& change) {
  return rewritten(q, [&](Message& m) { change(m.instructions[main_instruction(m)].data); });
}

// A swap whose `route` argument is `route` (aggregator_swap: discriminator, two mints, amount,
// minimum out, slippage, then the route's length and bytes).
envelope::SignRequest with_route(const envelope::SignRequest& swap, const Bytes& route) {
  return with_data(swap, [&](Bytes& data) {
    constexpr std::size_t kRouteAt = 8 + 32 + 32 + 8 + 8 + 2;
    data.resize(kRouteAt);
    const auto n = static_cast<std::uint32_t>(route.size());
    for (int i = 0; i < 4; ++i) data.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
    data.insert(data.end(), route.begin(), route.end());
  });
}

// The honest swap's Jupiter route bytes.
Bytes route_of(const envelope::SignRequest& swap) {
  const Transaction tx = first_tx(swap);
  const Bytes& data = tx.message.instructions[main_instruction(tx.message)].data;
  constexpr std::size_t kRouteAt = 8 + 32 + 32 + 8 + 8 + 2 + 4;
  return Bytes(data.begin() + kRouteAt, data.end());
}

// A little-endian u64 inside instruction data, read and written.
std::uint64_t u64_at(const Bytes& d, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | d[at + static_cast<std::size_t>(i)];
  return v;
}
std::int32_t i32_at(const Bytes& d, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | d[at + static_cast<std::size_t>(i)];
  return static_cast<std::int32_t>(v);
}
void put_u64(Bytes& d, std::size_t at, std::uint64_t v) {
  for (std::size_t i = 0; i < 8; ++i) d[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// Step `step`'s main instruction data, rewritten.
envelope::SignRequest with_step_data(const envelope::SignRequest& q, std::size_t step,
                                     const std::function<void(Bytes&)>& change) {
  Transaction tx = parse_transaction(q.steps.at(step).transaction).value();
  change(tx.message.instructions[main_instruction(tx.message)].data);
  auto out = q;
  out.steps[step].transaction = serialize_transaction(tx);
  return out;
}

Bytes anchor_discriminator(std::string_view name) {
  const std::string preimage = "global:" + std::string(name);
  const Hash h = sha256(Bytes(preimage.begin(), preimage.end()));
  return Bytes(h.bytes.begin(), h.bytes.begin() + 8);
}

using Add =
    std::function<void(std::string, envelope::SignRequest, offline::Policy, std::string, Expect)>;

// `q` with entry `index` of its first lookup table hint replaced by `key`: an attacker's table
// on chain holds it there (the policy pins the table as it is).
envelope::SignRequest with_table_entry(const envelope::SignRequest& q, std::uint8_t index,
                                       const PublicKey& key) {
  auto out = q;
  for (auto& [i, address] : out.hints.lookup_tables.at(0).entries) {
    if (i == index) address = key;
  }
  return out;
}

// Every account the vault instruction of an honest build names (neither a signer, the vault
// nor an invoked program) moved into a lookup table of the attacker's that the policy does not
// pin, with a hint naming it truly: what that index holds on chain is the table's to say, so an
// account this machine binds may not come from there (found by an independent attacker review:
// the swap's destination account, so moved, was shown "computed here" and signed). The honest
// tables stay as the request hints them; unverified tables are allowed.
void bound_accounts_in_unpinned_tables(const HonestBuilds& h, const Add& add) {
  const PublicKey attacker_table = key_of("AttackerTab1e1111111111111111111111111111111");
  for (const auto* honest : {&h.swap, &h.dlmm_open, &h.perp_deposit, &h.limit_order, &h.dlmm_remove,
                             &h.sweep, &h.vault_update}) {
    const Transaction tx = first_tx(*honest);
    std::vector<LoadedTable> tables;
    for (const auto& hint : honest->hints.lookup_tables) {
      LoadedTable t{hint.table, {}};
      for (const auto& [i, address] : hint.entries) {
        if (t.addresses.size() <= i) t.addresses.resize(i + 1U);
        t.addresses[i] = address;
      }
      tables.push_back(std::move(t));
    }
    const auto ixs = decompile(tx.message, tables);
    for (const auto& key : h.bound_keys(*honest)) {
      const bool signer = std::any_of(ixs.begin(), ixs.end(), [&](const Instruction& ix) {
        return std::any_of(ix.accounts.begin(), ix.accounts.end(),
                           [&](const AccountMeta& a) { return a.key == key && a.signer; });
      });
      const bool invoked = std::any_of(ixs.begin(), ixs.end(),
                                       [&](const Instruction& ix) { return ix.program == key; });
      const bool tabled = std::any_of(tables.begin(), tables.end(), [&](const LoadedTable& t) {
        return std::find(t.addresses.begin(), t.addresses.end(), key) != t.addresses.end();
      });
      // A signer, a program or the vault cannot come from a table (other rules); a key of an
      // honest table would stay there.
      if (signer || invoked || tabled || key == honest->vault) continue;
      auto with_attacker = tables;
      with_attacker.push_back({attacker_table, {key}});
      auto q = recompiled(*honest, ixs, h.manager, with_attacker);
      q.hints.lookup_tables.push_back({attacker_table, {{std::uint8_t{0}, key}}});
      auto p = h.policy_for(q);
      p.actions[q.action].auto_approve = true;
      p.allow_unverified_lookup_tables = true;
      std::erase_if(p.pinned_tables,
                    [&](const LoadedTable& t) { return t.table == attacker_table; });
      add(q.action + " with its account " + to_base58(key) +
              " loaded from an unpinned table of the attacker's",
          q, p, "policy.lookup_table_bound", Expect::kRefused);
    }
  }
}

// Issue 30's edges, each closed by a rule of the binder and tried here on several accounts,
// amounts and actions: accounts another party chooses that are the vault's own, floors that
// are no floor, resumed batches, wrapping sums, ceilings, runtime rules and requests with no
// intent.
void edge_cases(const HonestBuilds& h, const Add& add) {
  const envelope::SignRequest& swap = h.swap;
  const PublicKey vault = swap.vault;
  const PublicKey sol = key_of("So11111111111111111111111111111111111111112");
  const PublicKey jup = key_of("JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN");
  const PublicKey usdc_mint = key_of("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
  const PublicKey& vault_program = key_of("AirLockVau1t1111111111111111111111111111111");
  const auto pda = [&](std::vector<Bytes> seeds) {
    return find_program_address(seeds, vault_program)->first;
  };
  // The policy each case runs under: the action auto-approved (so only a rule stops it), the
  // tables pinned as the request carries them, and SOL pinned as a token of the vault's.
  const auto permissive = [&](const envelope::SignRequest& q) {
    auto p = h.policy_for(q);
    p.actions[q.action].auto_approve = true;
    p.tokens.push_back({sol, "SOL", 9});
    return p;
  };

  // 1. The router's choice that is the vault's own.
  for (const auto& [what, key] : std::vector<std::pair<std::string, PublicKey>>{
           {"the vault's token account for another mint (SOL)",
            associated_token_address(vault, sol, key_of(programs::kToken))},
           {"the vault's Token-2022 account for the swap's destination mint",
            associated_token_address(vault, jup, key_of(programs::kToken2022))},
           {"the vault's aggregator strategy for another mint",
            pda({seed("aggregator"), seed(vault), seed(sol)})},
           {"the vault's perp trader account", pda({seed("trader"), seed(vault)})},
           {"the vault's perp strategy", pda({seed("perp"), seed(vault)})},
           {"the manager's fee-share account", pda({seed("manager_shares"), seed(vault)})},
           // The token accounts those own, for a mint the swap names (found by a review).
           {"the perp strategy's token account for the swap's source mint",
            associated_token_address(pda({seed("perp"), seed(vault)}), usdc_mint,
                                     key_of(programs::kToken))},
           {"the trader account's token account for the swap's source mint",
            associated_token_address(pda({seed("trader"), seed(vault)}), usdc_mint,
                                     key_of(programs::kToken))},
           {"the fee-share account's token account for the swap's destination mint",
            associated_token_address(pda({seed("manager_shares"), seed(vault)}), jup,
                                     key_of(programs::kToken))},
           {"the aggregator strategy for SOL's token account for SOL",
            associated_token_address(pda({seed("aggregator"), seed(vault), seed(sol)}), sol,
                                     key_of(programs::kToken))}}) {
    for (const std::uint8_t index : {std::uint8_t{0}, std::uint8_t{2}}) {
      const auto q = with_table_entry(swap, index, key);
      add("a swap route account " + std::to_string(index + 1) + " that is " + what, q,
          permissive(q), "intent.account", Expect::kRefused);
    }
  }
  // The manager's own: its key (a signer, whose signature the vault program could pass on to
  // the route's programs) in a route account's place, and its token accounts in the table.
  {
    auto q = rewritten(swap, [](Message& m) {
      auto& ix = m.instructions[main_instruction(m)];
      ix.accounts.back() = 0;  // the fee payer: the manager
    });
    add("a swap route account that is the manager (a signer)", q, permissive(q), "intent.account",
        Expect::kRefused);
    for (const auto& [what, mint, program] :
         std::vector<std::tuple<std::string, PublicKey, std::string_view>>{
             {"the manager's token account for the swap's source mint", usdc_mint,
              programs::kToken},
             {"the manager's Token-2022 account for SOL", sol, programs::kToken2022}}) {
      const auto key = associated_token_address(h.manager, mint, key_of(program));
      const auto t = with_table_entry(swap, 2, key);
      add("a swap route account 3 that is " + what, t, permissive(t), "intent.account",
          Expect::kRefused);
    }
  }
  {
    // A market nothing pins, which is one of the vault's own accounts.
    for (const auto& [what, own_key] : std::vector<std::pair<std::string, PublicKey>>{
             {"perp strategy", pda({seed("perp"), seed(vault)})},
             {"USDC token account",
              associated_token_address(vault,
                                       key_of("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"),
                                       key_of(programs::kToken))}}) {
      // Put in the market's own place, flags and all, so nothing else about the step changes.
      const PublicKey own = own_key;
      const Transaction tx = first_tx(h.perp_order);
      const auto& ix = tx.message.instructions[main_instruction(tx.message)];
      const PublicKey market =
          tx.message.static_keys.at(ix.accounts.at(position_of(h.perp_order, "market")));
      auto q = rewritten(h.perp_order, [&](Message& m) {
        for (auto& k : m.static_keys) {
          if (k == market) k = own;
        }
      });
      auto p = permissive(q);
      p.markets.clear();
      p.tokens.push_back({key_of("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"), "USDC", 6});
      add("a perp order whose unpinned market is the vault's " + what, q, p, "intent.account",
          Expect::kRefused);
    }
  }

  // 2. A floor that is no floor. The swap's minimum_out sits after the two mints and the
  // amount; the route ends with its in-amount, quoted out-amount, slippage and platform fee.
  constexpr std::size_t kMinimumOut = 8 + 32 + 32 + 8;
  const Bytes route = route_of(swap);
  const std::size_t quoted_at = route.size() - (8 + 2 + 1);
  for (const auto& [quote, floor] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {0, 0}, {1, 1}, {1, 0}, {150, 150}, {199, 199}}) {
    const std::uint64_t minimum = floor;
    Bytes r = route;
    put_u64(r, quoted_at, quote);
    const auto q =
        with_data(with_route(swap, r), [&](Bytes& d) { put_u64(d, kMinimumOut, minimum); });
    add("a swap whose route quotes " + std::to_string(quote) + " out with a minimum of " +
            std::to_string(minimum),
        q, permissive(q), "intent.minimum_out", Expect::kRefused);
  }
  {
    const auto q = with_data(swap, [&](Bytes& d) { put_u64(d, kMinimumOut, 0); });
    add("a swap whose minimum out is zero under an honest quote", q, permissive(q),
        "intent.minimum_out", Expect::kRefused);
  }
  {
    // The route allows all of its quote to slip (10000 bps, as the request does): the route's
    // own floor is zero, whatever the vault instruction's minimum says.
    Bytes r = route;
    r[quoted_at + 8] = 10'000 & 0xff;
    r[quoted_at + 9] = 10'000 >> 8;
    auto q = with_route(swap, r);
    q = with_intent(q, [](json& b) { b["slippageBps"] = 10'000; });
    add("a swap whose route may slip all 10000 bps of its quote", q, permissive(q),
        "intent.minimum_out", Expect::kRefused);
  }
  {
    // A request that allows all of 10000 bps leaves the quote less the slippage at zero: the
    // minimum may still not be zero.
    constexpr std::size_t kSlippage = kMinimumOut + 8;
    auto q = with_data(swap, [&](Bytes& d) {
      put_u64(d, kMinimumOut, 0);
      d[kSlippage] = 10'000 & 0xff;
      d[kSlippage + 1] = 10'000 >> 8;
    });
    q = with_intent(q, [](json& b) { b["slippageBps"] = 10'000; });
    add("a swap allowing 10000 bps whose minimum out is zero", q, permissive(q),
        "intent.minimum_out", Expect::kRefused);
  }

  // 2b. A price the online half chose (attacker review F1): the route's quote is the online
  // half's alone, so a quote of 1 JUP for 5 USDC with a minimum that follows from it passes
  // every floor rule above. With a price floor pinned for the pair it is refused; without one
  // a person is asked, whatever auto_approve says.
  {
    const auto priced = [&](const envelope::SignRequest& q, bool reverse_only = false) {
      auto p = permissive(q);
      const offline::PinnedToken usdc{usdc_mint, "USDC", 6}, jupiter{jup, "JUP", 6};
      p.tokens.push_back(usdc);
      p.tokens.push_back(jupiter);
      offline::PriceFloor floor;
      floor.sells = reverse_only ? jupiter : usdc;
      floor.buys = reverse_only ? usdc : jupiter;
      floor.numerator = reverse_only ? 72 : 1125;  // 0.72 USDC per JUP, 1.125 JUP per USDC
      floor.scale = reverse_only ? 2 : 3;
      floor.text = reverse_only ? "0.72" : "1.125";
      p.price_floors.push_back(floor);
      return p;
    };
    Bytes r = route;
    put_u64(r, quoted_at, 1'000'000);
    const auto cheap =
        with_data(with_route(swap, r), [&](Bytes& d) { put_u64(d, kMinimumOut, 995'000); });
    add("a swap routed at the online half's price (1 JUP for 5 USDC) under a floor for the pair",
        cheap, priced(cheap), "policy.price_floor", Expect::kRefused);
    add("a swap routed at the online half's price with no floor for the pair", cheap,
        permissive(cheap), "warn.unpriced", Expect::kFlagged);
    add("a swap routed at the online half's price with a floor for the other direction only", cheap,
        priced(cheap, true), "warn.unpriced", Expect::kFlagged);
    add("a Keystone swap routed at the online half's price under a floor for the pair",
        as_keystone(cheap), priced(cheap), "policy.price_floor", Expect::kRefused);
    // An honest quote, but the request allows half of it to slip: every other rule holds (the
    // minimum follows from the request's slippage), the floor does not.
    constexpr std::size_t kSlippage = kMinimumOut + 8;
    Bytes loose_route = route;
    loose_route[quoted_at + 8] = 5'000 & 0xff;
    loose_route[quoted_at + 9] = 5'000 >> 8;
    std::uint64_t quoted = 0;
    for (std::size_t i = 0; i < 8; ++i)
      quoted |= static_cast<std::uint64_t>(route[quoted_at + i]) << (8 * i);
    auto loose = with_data(with_route(swap, loose_route), [&](Bytes& d) {
      put_u64(d, kMinimumOut, quoted / 2);
      d[kSlippage] = 5'000 & 0xff;
      d[kSlippage + 1] = 5'000 >> 8;
    });
    loose = with_intent(loose, [](json& b) { b["slippageBps"] = 5'000; });
    add("a swap whose request allows 5000 bps of slippage, below the pair's floor", loose,
        priced(loose), "policy.price_floor", Expect::kRefused);
  }

  // An extension wider or elsewhere than its request: the honest first step is bins 5031 +70
  // towards 5200 (found by an attacker review: 1400 bins, or one bin far below, were signed).
  {
    const auto put_i32 = [](Bytes& d, std::size_t at, std::int32_t v) {
      for (std::size_t i = 0; i < 4; ++i)
        d[at + i] = static_cast<std::uint8_t>(static_cast<std::uint32_t>(v) >> (8 * i));
    };
    for (const auto& [lower, width] : std::vector<std::pair<std::int32_t, std::int32_t>>{
             {3801, 1400}, {5031, 71}, {5031, 30}, {-400000, 1}}) {
      // Captured by name: clang 14 does not capture structured bindings.
      const auto q = with_data(h.dlmm_extend, [&, lower = lower, width = width](Bytes& d) {
        put_i32(d, 8, lower);
        put_i32(d, 12, width);
      });
      add("a position extended by bins " + std::to_string(lower) + " +" + std::to_string(width) +
              " towards 5200",
          q, permissive(q), "intent.bins", Expect::kRefused);
    }
    // Claimed as a follow-up whose extension began at 5031: the next step starts at 5101.
    auto follow = with_intent(h.dlmm_extend, [](json& b) { b["fromBinId"] = 5031; });
    follow = with_data(follow, [&](Bytes& d) { put_i32(d, 8, 5061); });
    add("an extension's follow-up that starts between whole steps", follow, permissive(follow),
        "intent.bins", Expect::kRefused);
  }

  // 3 and 4. A resumed batch: each step's share, and sums that wrap.
  {
    const auto& resumed = h.dlmm_open_resumed;
    constexpr std::size_t kX = 8 + 4 + 4;  // after lower_bin_id and width
    const auto data = [&](std::size_t step) {
      const auto tx = parse_transaction(resumed.steps.at(step).transaction).value();
      return tx.message.instructions.back().data;
    };
    const Bytes d1 = data(0), d2 = data(1);
    // The remainder is bins 5000 to 5139 of 4930 to 5139, the active bin 5000: X (at and above
    // it) is spread over both steps, Y (at and below it) all in the first, which holds bin 5000.
    // The steps' own amounts are changed: the position's signature on each no longer verifies,
    // but the share rule must refuse them first-hand (intent.amount) all the same.
    for (const std::size_t field : {kX, kX + 8}) {
      const std::uint64_t both = u64_at(d1, field) + u64_at(d2, field);
      if (field == kX) {
        auto q = with_step_data(resumed, 0, [&](Bytes& d) { put_u64(d, field, both); });
        q = with_step_data(q, 1, [&](Bytes& d) { put_u64(d, field, 0); });
        add("a resumed batch with all of its X in one step, the remainder's total unchanged", q,
            permissive(q), "intent.amount", Expect::kRefused);
      }  // Y all in the first step is the honest split (5000 is its only bin on Y's side)
      // 2^64 - 1 in one step and the rest plus one in the other: the plain sum wraps to the
      // remainder's total.
      const std::uint64_t huge = UINT64_MAX;
      auto wrap = with_step_data(resumed, 0, [&](Bytes& d) { put_u64(d, field, huge); });
      wrap = with_step_data(wrap, 1, [&](Bytes& d) { put_u64(d, field, both + 1); });
      add(std::string("a resumed batch whose ") + (field == kX ? "X" : "Y") +
              " amounts wrap past 2^64 to the remainder's total",
          wrap, permissive(wrap), "intent.amount", Expect::kRefused);
    }
    {
      const auto open_data = [&](std::size_t step) {
        const auto tx = parse_transaction(h.dlmm_open.steps.at(step).transaction).value();
        return tx.message.instructions.back().data;
      };
      const std::uint64_t x = u64_at(open_data(0), kX) + u64_at(open_data(1), kX);
      auto wrap = with_step_data(h.dlmm_open, 0, [&](Bytes& d) { put_u64(d, kX, UINT64_MAX); });
      wrap = with_step_data(wrap, 1, [&](Bytes& d) { put_u64(d, kX, x + 1); });
      add("a batch whose X amounts wrap past 2^64", wrap, permissive(wrap), "intent.amount",
          Expect::kRefused);
    }
  }

  // 3b. Shares by side of the active bin (token X at and above it, Y at and below): the honest
  // batch of bins 4930 to 5069 around the active bin 5000 puts no X in its first step. The
  // split point is each step's own active bin, so the steps must state one.
  {
    constexpr std::size_t kX = 8 + 4 + 4;
    constexpr std::size_t kActive = kX + 8 + 8;
    const auto put_i32 = [](Bytes& d, std::size_t at, std::int32_t v) {
      for (std::size_t i = 0; i < 4; ++i)
        d[at + i] = static_cast<std::uint8_t>(static_cast<std::uint32_t>(v) >> (8 * i));
    };
    auto apart = with_step_data(h.dlmm_open, 1, [&](Bytes& d) { put_i32(d, kActive, 5001); });
    add("a batch whose steps state different active bins (5000 and 5001)", apart, permissive(apart),
        "intent.bins", Expect::kRefused);
    const auto amount_x = [&](std::size_t step) {
      const auto tx = parse_transaction(h.dlmm_open.steps.at(step).transaction).value();
      return u64_at(tx.message.instructions.back().data, kX);
    };
    const std::uint64_t x = amount_x(0) + amount_x(1);
    auto below = with_step_data(h.dlmm_open, 0, [&](Bytes& d) { put_u64(d, kX, x); });
    below = with_step_data(below, 1, [&](Bytes& d) { put_u64(d, kX, 0); });
    add("a batch with all of its X moved to the step below the active bin", below,
        permissive(below), "intent.amount", Expect::kRefused);
  }

  // 3c. A resumed batch each of whose steps keeps the rounding its share allows (one base unit
  // per run of the whole range, 20 here): 70 bins done, so the remainder may hold at most 70
  // more than its share, and nineteen steps' rounding adds up past that. Token Y: bins 4930 to
  // 6329, the active bin 5000, so its share by bin count is the larger one in every step left
  // (X's side, 5000 and above, lies wholly in the remainder, whose side share is all of X).
  {
    const auto& early = h.dlmm_open_resumed_early;
    constexpr std::size_t kX = 8 + 4 + 4;
    constexpr std::size_t kY = kX + 8;
    constexpr std::size_t kMin = kX + 8 + 8 + 4 + 4;  // strategy.min_bin_id
    const unsigned __int128 total = 45'000'000, width = 1400, runs = 20;
    auto q = early;
    for (std::size_t step = 0; step < early.steps.size(); ++step) {
      const auto tx = parse_transaction(early.steps.at(step).transaction).value();
      const Bytes& d = tx.message.instructions.back().data;
      const auto bins = static_cast<std::uint64_t>(static_cast<std::int64_t>(i32_at(d, kMin + 4)) -
                                                   i32_at(d, kMin) + 1);
      const auto most = static_cast<std::uint64_t>((total * bins + width - 1) / width + runs);
      q = with_step_data(q, step, [&](Bytes& data) { put_u64(data, kY, most); });
    }
    add("a resumed batch whose steps each keep their rounding, past the remainder's share", q,
        permissive(q), "intent.amount", Expect::kRefused);
  }

  // 4a. A body key that is no field name of the API: a look-alike of the one a rule reads
  // ("\u0430mount", a Cyrillic a), which the API ignores, would show the operator a second
  // amount beside the signed one (an attacker review had an approval given on it), on a sign
  // request and on an approval request alike.
  {
    const auto lookalike = with_intent(swap, [](json& b) { b["\xd0\xb0mount"] = "5"; });
    add("a swap whose body holds a look-alike of amount (Cyrillic a)", lookalike,
        permissive(lookalike), "intent.unreadable", Expect::kRefused);
    auto approval = lookalike;
    approval.approval = true;
    approval.steps.clear();
    add("an approval request whose body holds a look-alike of amount", approval,
        permissive(lookalike), "intent.unreadable", Expect::kRefused);
    const auto nested = with_intent(swap, [](json& b) { b["route"] = {{"in amount", "5"}}; });
    add("a swap whose body nests a key with a space", nested, permissive(nested),
        "intent.unreadable", Expect::kRefused);
  }

  // 4b. Integers of the body outside the API's ranges: a slippage of -1 read as a ceiling of
  // 2^64 - 1, bin ids whose differences overflow.
  for (const auto& [what, base, field, value] :
       std::vector<std::tuple<std::string, const envelope::SignRequest*, std::string, json>>{
           {"a swap", &swap, "slippageBps", -1},
           {"a swap", &swap, "slippageBps", 10'001},
           {"a batch", &h.dlmm_open, "lowerBinId", INT64_MIN},
           {"a batch", &h.dlmm_open, "upperBinId", INT64_MAX},
           {"a batch", &h.dlmm_open, "maxActiveBinSlippage", 1'001},
           {"a resumed batch", &h.dlmm_open_resumed, "cursorBinId", UINT64_MAX},
           {"a resumed batch", &h.dlmm_open_resumed, "lowerBinId", -443'637},
           {"a removal", &h.dlmm_remove, "bpsToRemove", 0},
           {"a removal", &h.dlmm_remove, "upperBinId", 1e9}}) {
    const json v = value;
    const std::string f = field;
    const auto q = with_intent(*base, [&](json& b) { b[f] = v; });
    add(what + " whose body's " + field + " is " + value.dump() + ", outside the API's range", q,
        permissive(q), "intent.unreadable", Expect::kRefused);
  }

  // A nested integer of the body too: a limit order's bin ids, read as they are.
  for (const json& bad : {json(UINT64_MAX - 4), json(4990.7), json("4990")}) {
    const auto q = with_intent(h.limit_order, [&](json& b) { b["bins"][0]["binId"] = bad; });
    add("a limit order whose body's first binId is " + bad.dump(), q, permissive(q), "intent.bins",
        Expect::kRefused);
  }

  // 5. Ceilings on every slippage an action carries.
  for (const std::uint16_t ceiling : {std::uint16_t{0}, std::uint16_t{4}}) {
    for (const auto* q : {&h.dlmm_open, &h.dlmm_open_resumed}) {
      auto p = permissive(*q);
      p.actions[q->action].max_active_bin_slippage = ceiling;
      add("a deposit allowing 5 bins of slippage under a policy ceiling of " +
              std::to_string(ceiling) + (q == &h.dlmm_open ? "" : " (resumed)"),
          *q, p, "intent.slippage", Expect::kRefused);
    }
  }

  // 6. Runtime rules: an account loaded twice, and a compute budget instruction with a fee of
  // its own.
  {
    const Transaction tx = first_tx(swap);
    const PublicKey jupiter = key_of("JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4");
    for (const auto& [what, key] : std::vector<std::pair<std::string, PublicKey>>{
             {"the Jupiter program", jupiter}, {"the manager", h.manager}}) {
      const auto q = with_table_entry(swap, 1, key);
      add("a lookup table that loads " + what + ", already a static key", q, permissive(q),
          "policy.unparsable", Expect::kRefused);
    }
    const auto ixs = decompile(first_tx(h.vault_update).message);
    for (const std::uint32_t fee : {0U, 1U, 4'000'000'000U}) {
      auto with_fee = ixs;
      Bytes data = {0};
      for (const std::uint32_t v : {200'000U, fee})
        for (int i = 0; i < 4; ++i) data.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
      with_fee.insert(with_fee.begin(),
                      Instruction{key_of(programs::kComputeBudget), {}, std::move(data)});
      const auto q = recompiled(h.vault_update, with_fee, h.manager);
      add("a deprecated request_units with an additional fee of " + std::to_string(fee), q,
          permissive(q), "policy.priority_fee", Expect::kRefused);
    }
    // No builder writes a heap frame or an accounts-data limit (a small one makes the step fail
    // with its fee paid): only the unit limit and price are part of a build.
    for (const auto& [what, tag, value] :
         std::vector<std::tuple<std::string, std::uint8_t, std::uint32_t>>{
             {"a request_heap_frame of 256 KiB", 1, 256 * 1024},
             {"a loaded-accounts data limit of 1 byte", 4, 1},
             {"a loaded-accounts data limit of 64 MiB", 4, 64 * 1024 * 1024}}) {
      auto with_extra = ixs;
      Bytes data = {tag};
      for (int i = 0; i < 4; ++i) data.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
      with_extra.insert(with_extra.begin(),
                        Instruction{key_of(programs::kComputeBudget), {}, std::move(data)});
      const auto q = recompiled(h.vault_update, with_extra, h.manager);
      add(what + " in a compute budget instruction", q, permissive(q), "intent.instruction",
          Expect::kRefused);
    }
    // A unit limit no vault instruction runs in: the step could only fail, its fee paid.
    for (const std::uint32_t units : {0U, 9'999U}) {
      auto limited = ixs;
      bool set = false;
      for (auto& ix : limited) {
        if (ix.program != key_of(programs::kComputeBudget) || ix.data.empty() || ix.data[0] != 2)
          continue;
        ix.data.resize(1);
        for (int i = 0; i < 4; ++i) ix.data.push_back(static_cast<std::uint8_t>(units >> (8 * i)));
        set = true;
      }
      if (!set) throw std::logic_error("the honest vault update sets no compute-unit limit");
      const auto q = recompiled(h.vault_update, limited, h.manager);
      add("a compute-unit limit of " + std::to_string(units), q, permissive(q),
          "intent.instruction", Expect::kRefused);
    }
    (void)tx;
  }

  // 7. No intent: a Keystone request is bound as far as its bytes allow.
  {
    // A Keystone request carries no hints: its tables are the ones the policy pins.
    const auto keystone_policy = [&](const envelope::SignRequest& built) {
      auto p = permissive(built);
      p.actions.erase(std::string(keystone::kSignRequestAction));  // allowed, always asked
      return p;
    };
    for (const auto& [role, key] : std::vector<std::pair<std::string, PublicKey>>{
             {"vault_source_account",
              associated_token_address(vault, sol, key_of(programs::kToken))},
             {"vault_destination_account", h.stranger},
             {"strategy", pda({seed("aggregator"), seed(vault), seed(sol)})},
             {"source_mint", sol},
             {"jupiter_program", h.stranger},
             {"token_program", h.stranger}}) {
      const auto q = with_account(swap, role, key);
      add("a Keystone swap whose " + role + " is another", as_keystone(q), keystone_policy(q),
          "intent.account", Expect::kRefused);
    }
    {
      // The source mint account and the token account it pays from both SOL's, in place, so
      // every derivation holds; only the instruction's source_mint argument still says USDC,
      // the token the limits would count.
      const PublicKey usdc = key_of("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
      const PublicKey& token = key_of(programs::kToken);
      const PublicKey usdc_account = associated_token_address(vault, usdc, token);
      const PublicKey sol_account = associated_token_address(vault, sol, token);
      const auto q = rewritten(swap, [&](Message& m) {
        for (auto& k : m.static_keys) {
          if (k == usdc) k = sol;
          if (k == usdc_account) k = sol_account;
        }
      });
      add("a Keystone swap whose source_mint account is not its source_mint argument, its "
          "token account derived from the account",
          as_keystone(q), keystone_policy(q), "intent.account", Expect::kRefused);
    }
    // Rules that need no build request hold for one with none: the route's floor and the
    // policy's ceiling for the action the instruction belongs to.
    {
      Bytes r = route;
      put_u64(r, quoted_at, 0);
      const auto q = with_data(with_route(swap, r), [&](Bytes& d) { put_u64(d, kMinimumOut, 0); });
      add("a Keystone swap whose route quotes nothing with a minimum of zero", as_keystone(q),
          keystone_policy(q), "intent.minimum_out", Expect::kRefused);
      auto strict = keystone_policy(swap);
      strict.actions["aggregator/swap"].max_slippage_bps = 20;
      add("a Keystone swap allowing 50 bps under a policy ceiling of 20 for swaps",
          as_keystone(swap), strict, "intent.slippage", Expect::kRefused);
    }
    // The first builder instruction names a vault outside the policy: refused there, not
    // left for a check that looks at vault-program instructions only.
    {
      const auto q = with_account(h.perp_onboard, "vault", h.stranger);
      auto p = keystone_policy(q);
      p.vaults.erase(h.stranger);
      add("a Keystone perp onboarding for a vault outside the policy", as_keystone(q), p,
          "policy.vault_not_allowed", Expect::kRefused);
    }
    const auto trader = with_table_entry(swap, 0, pda({seed("trader"), seed(vault)}));
    add("a Keystone swap whose route holds the vault's trader account", as_keystone(trader),
        keystone_policy(trader), "intent.account", Expect::kRefused);
  }
}

}  // namespace

envelope::SignRequest as_keystone(const envelope::SignRequest& q) {
  auto out = q;
  out.action = std::string(keystone::kSignRequestAction);
  out.intent_json = "{}";
  out.vault = PublicKey{};
  out.deadline = static_cast<std::uint64_t>(INT64_MAX);
  out.hints = {};
  return out;
}

std::vector<HostileCase> hostile_cases(const HonestBuilds& h) {
  std::vector<HostileCase> cases;
  const PublicKey& manager = h.manager;
  const PublicKey& stranger = h.stranger;
  // Each case is a request of its own: the same id over the same bytes would be answered from
  // the audit log (a reissue) instead of being reviewed again.
  const auto add = [&](std::string name, envelope::SignRequest q, offline::Policy policy,
                       std::string code, Expect expect = Expect::kRefused) {
    q.request_id = envelope::random_request_id();
    cases.push_back({std::move(name), std::move(q), std::move(policy), std::move(code), expect});
  };

  // ---- The transaction: who pays, who signs, what the manager's signature authorises ----
  const envelope::SignRequest& update = h.vault_update;
  const offline::Policy update_policy = h.policy_for(update);
  const auto ixs = decompile(first_tx(update).message);
  const auto with_system = [&] {
    auto p = update_policy;
    p.programs.insert(key_of(programs::kSystem));
    return p;
  };
  const auto with_token = [&] {
    auto p = update_policy;
    p.programs.insert(key_of(programs::kToken));
    return p;
  };
  // Inserted just before the vault instruction, among the ordinary ones.
  const auto hidden = [&](Instruction extra) {
    auto out = ixs;
    out.insert(out.end() - 1, std::move(extra));
    return out;
  };

  add("fee payer swapped", recompiled(update, ixs, stranger), update_policy, "policy.fee_payer");
  add("the manager's signature required in another slot", recompiled(update, ixs, stranger),
      update_policy, "policy.signer_slot");

  const Bytes transfer = concat({2, 0, 0, 0}, u64_le(1'000'000'000));
  add("System transfer from the manager",
      recompiled(update,
                 hidden({key_of(programs::kSystem),
                         {{manager, true, true}, {stranger, false, true}},
                         transfer}),
                 manager),
      with_system(), "policy.manager_outside_vault");
  Bytes assign = {1, 0, 0, 0};
  assign.insert(assign.end(), stranger.bytes.begin(), stranger.bytes.end());
  add("System assign of the manager",
      recompiled(update, hidden({key_of(programs::kSystem), {{manager, true, true}}, assign}),
                 manager),
      with_system(), "policy.manager_outside_vault");

  const PublicKey token_account = key_of("8cGAuKv4FsExxYQE3XZUSGydbig6t2o28E3iSppYi1ht");
  add("token approve hidden among ordinary instructions",
      recompiled(
          update,
          hidden({key_of(programs::kToken),
                  {{token_account, false, true}, {stranger, false, false}, {manager, true, false}},
                  concat({4}, u64_le(~0ULL))}),
          manager),
      with_token(), "policy.manager_outside_vault");
  Bytes set_authority = {6, 2, 1};  // AccountOwner -> Some(stranger)
  set_authority.insert(set_authority.end(), stranger.bytes.begin(), stranger.bytes.end());
  add("token set-authority hidden among ordinary instructions",
      recompiled(update,
                 hidden({key_of(programs::kToken),
                         {{token_account, false, true}, {manager, true, false}},
                         set_authority}),
                 manager),
      with_token(), "policy.manager_outside_vault");
  add("token close hidden among ordinary instructions",
      recompiled(
          update,
          hidden({key_of(programs::kToken),
                  {{token_account, false, true}, {stranger, false, true}, {manager, true, false}},
                  {9}}),
          manager),
      with_token(), "policy.manager_outside_vault");

  auto nonce_ixs = ixs;
  nonce_ixs.insert(nonce_ixs.begin(),
                   Instruction{key_of(programs::kSystem),
                               {{stranger, false, true},
                                {key_of(programs::kSysvarRecentBlockhashes), false, false},
                                {manager, true, false}},
                               {4, 0, 0, 0}});
  add("durable nonce", recompiled(update, nonce_ixs, manager), with_system(),
      "policy.durable_nonce");

  const PublicKey unknown = key_of("Ansv9pZfqJNfXP3cbsSBVDhvKAYLt7dTkhhM2FwFyGnT");
  const auto unknown_call = hidden({unknown, {}, {1, 2, 3}});
  add("unknown program", recompiled(update, unknown_call, manager), update_policy,
      "policy.program_not_allowed");
  auto allows_unknown = update_policy;
  allows_unknown.programs.insert(unknown);
  add("unknown program the policy allows but nothing decodes",
      recompiled(update, unknown_call, manager), allows_unknown, "policy.undecodable");

  // Duplicated account keys: the runtime would refuse them; so does the parser, by rule.
  add("duplicated account keys",
      rewritten(update, [](Message& m) { m.static_keys.back() = m.static_keys[1]; }), update_policy,
      "policy.unparsable");

  auto late = update;
  late.deadline = static_cast<std::uint64_t>(h.now - 1);
  add("deadline passed", late, update_policy, "policy.deadline_passed");

  // ---- Lookup tables ----
  const envelope::SignRequest& swap = h.swap;
  const offline::Policy swap_policy = h.policy_for(swap);
  add("program loaded from a lookup table",
      rewritten(swap,
                [](Message& m) {
                  m.instructions.back().program_index =
                      static_cast<std::uint8_t>(m.static_keys.size());
                }),
      swap_policy, "policy.unparsable");

  const LoadedTable vault_table{token_account, {key_of(to_base58(update.vault))}};
  auto pins_vault_table = update_policy;
  pins_vault_table.pinned_tables.push_back(vault_table);
  add("vault reachable only through a lookup table",
      recompiled(update, ixs, manager, {vault_table}), pins_vault_table, "policy.vault_not_static");

  auto unpinned = swap_policy;
  unpinned.pinned_tables.clear();
  unpinned.allow_unverified_lookup_tables = false;
  add("unpinned lookup table", swap, unpinned, "policy.lookup_table_unpinned");
  auto mismatched = swap_policy;
  if (!mismatched.pinned_tables.empty()) {
    auto& addresses = mismatched.pinned_tables.front().addresses;
    addresses.front() = stranger;
  }
  add("lookup table whose pinned contents differ", swap, mismatched,
      "policy.lookup_table_mismatch");

  // ---- Intent: the transaction does something other than the build request asked ----
  add("swap amount differs", with_intent(swap, [](json& b) { b["amount"] = "5000001"; }),
      swap_policy, "intent.amount");
  add("swap mint differs",
      with_intent(
          swap,
          [](json& b) { b["destinationMint"] = "So11111111111111111111111111111111111111112"; }),
      swap_policy, "intent.mint");
  add("swap slippage above the request", with_intent(swap, [](json& b) { b["slippageBps"] = 10; }),
      swap_policy, "intent.slippage");
  auto strict = swap_policy;
  strict.actions["aggregator/swap"].max_slippage_bps = 20;
  add("swap slippage above the policy's ceiling", swap, strict, "intent.slippage");

  const offline::Policy open_policy = h.policy_for(h.dlmm_open);
  add("position bins differ",
      with_intent(h.dlmm_open, [](json& b) { b["lowerBinId"] = b["lowerBinId"].get<int>() + 1; }),
      open_policy, "intent.bins");
  add("position amount differs",
      with_intent(h.dlmm_open, [](json& b) { b["amountX"] = "200000001"; }), open_policy,
      "intent.amount");

  const offline::Policy order_policy = h.policy_for(h.limit_order);
  add("limit order side differs", with_intent(h.limit_order, [](json& b) { b["side"] = "ask"; }),
      order_policy, "intent.side");
  add("limit order price (bin) differs",
      with_intent(h.limit_order, [](json& b) { b["bins"][0]["binId"] = 4989; }), order_policy,
      "intent.bins");
  add("limit order size differs",
      with_intent(h.limit_order, [](json& b) { b["bins"][0]["amount"] = "1000001"; }), order_policy,
      "intent.amount");

  // Perp sizes and prices are in the venue's lots and ticks, which the offline half cannot
  // check: always flagged, so a person compares them, and never auto-approved.
  add("perp order size differs", with_intent(h.perp_order, [](json& b) { b["size"] = "15"; }),
      h.policy_for(h.perp_order), "warn.unverifiable", Expect::kFlagged);

  // ---- Hints: display only, but they must not mislead ----
  auto pins_usdc = swap_policy;
  pins_usdc.tokens.push_back({key_of("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"), "USDC", 6});
  pins_usdc.actions["aggregator/swap"].auto_approve = true;
  auto impostor = swap;
  impostor.hints.tokens = {
      {key_of("JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN"), "usdc", 6, std::nullopt}};
  add("token symbol claimed for the wrong mint", impostor, pins_usdc, "warn.misleading_hint",
      Expect::kFlagged);
  auto wrong_decimals = swap;
  wrong_decimals.hints.tokens = {
      {key_of("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"), "USDC", 9, std::nullopt}};
  add("token decimals contradicting the policy", wrong_decimals, pins_usdc, "warn.misleading_hint",
      Expect::kFlagged);

  // ==== The templates (issue 12): every account, program, signer and step bound ====
  // Every policy below auto-approves, so a case that is merely "not refused" would be signed.
  const auto permissive = [&](const envelope::SignRequest& q) {
    auto p = h.policy_for(q);
    p.actions[q.action].auto_approve = true;
    p.vaults.insert(stranger);
    return p;
  };
  // The order type the request asks for. OrderPacket: asset_id (u32), side, then the order type's
  // variant (PostOnly in the build).
  add("perp order placed as a plain limit order though the request asks post-only",
      with_data(h.perp_order, [](Bytes& d) { d.at(8 + 4 + 1) = 0; }), permissive(h.perp_order),
      "intent.order_type");
  add("vault update setting a deposit cap the request leaves out",
      with_intent(h.vault_update, [](json& b) { b.erase("depositCap"); }),
      permissive(h.vault_update), "intent.amount");
  // Fields the action does not take, which the API ignores: free text that would read as asked
  // and push what is asked off the screen (an attacker review), and a look-alike of a field.
  add("vault update whose body adds a long made-up reason",
      with_intent(
          h.vault_update,
          [](json& b) { b["reason"] = std::string(300, 'x') + " no other setting changes"; }),
      permissive(h.vault_update), "warn.unknown_field", Expect::kFlagged);
  add("vault update whose body adds a field of another action",
      with_intent(h.vault_update, [](json& b) { b["slippageBps"] = 50; }),
      permissive(h.vault_update), "warn.unknown_field", Expect::kFlagged);
  // A member the API does not take inside a list of objects (a second attacker review had a
  // note in each bin read as the order's total, pushing a real amount off the screen).
  add("limit order whose bins each carry a made-up note",
      with_intent(h.limit_order,
                  [](json& b) {
                    for (auto& bin : b["bins"])
                      bin["note"] = "order total 1 USDC: the amounts below are in micro-USDC";
                  }),
      permissive(h.limit_order), "warn.unknown_field", Expect::kFlagged);
  add("limit order whose bins nest an object",
      with_intent(h.limit_order,
                  [](json& b) {
                    b["bins"][0]["amount2"] = {{"amount", "1"}};
                  }),
      permissive(h.limit_order), "warn.unknown_field", Expect::kFlagged);
  const PublicKey other_pool = key_of("Ev1odcsBx9zUWfTrbTfPr82M5rQj25x32sApftABPjxp");
  const PublicKey attacker = sha256(Bytes{'a', 't', 't', 'a', 'c', 'k', 'e', 'r'});

  // 1. Accounts of the vault instruction.
  add("dlmm/open into another pool than the request's lbPair",
      with_account(h.dlmm_open, "lb_pair", other_pool), permissive(h.dlmm_open), "intent.account");
  add("limit order placed on another pool", with_account(h.limit_order, "lb_pair", other_pool),
      permissive(h.limit_order), "intent.account");
  add("removal from another position", with_account(h.dlmm_remove, "position", attacker),
      permissive(h.dlmm_remove), "intent.account");
  add("removal from another pool", with_account(h.dlmm_remove, "lb_pair", other_pool),
      permissive(h.dlmm_remove), "intent.account");
  add("strategy/close of another strategy", with_account(h.strategy_close, "strategy", attacker),
      permissive(h.strategy_close), "intent.account");
  add("swap whose mint account differs from its mint argument",
      with_account(swap, "destination_mint", key_of("So11111111111111111111111111111111111111112")),
      permissive(swap), "intent.account");
  add("swap paying out to the attacker's token account",
      with_account(swap, "vault_destination_account", attacker), permissive(swap),
      "intent.account");
  add("swap under another strategy", with_account(swap, "strategy", attacker), permissive(swap),
      "intent.account");
  add("perp deposit from another token account",
      with_account(h.perp_deposit, "vault_deposit_account", attacker), permissive(h.perp_deposit),
      "intent.account");
  add("perp order in another market (BTC's for SOL)",
      with_account(h.perp_order, "market",
                   key_of(to_base58(apisim::derive_address("perp-market", PublicKey{}, 1)))),
      permissive(h.perp_order), "intent.account");
  add("perp deposit into another trader account",
      with_account(h.perp_deposit, "trader_account", attacker), permissive(h.perp_deposit),
      "intent.account");

  // 2. Programs reached through the vault instruction (its CPI targets).
  add("swap routed through an attacker's program instead of Jupiter",
      with_account(swap, "jupiter_program", attacker), permissive(swap), "intent.account");
  add("swap with an attacker's token program", with_account(swap, "token_program", attacker),
      permissive(swap), "intent.account");
  add("dlmm/open calling an attacker's program as DLMM",
      with_account(h.dlmm_open, "dlmm_program", attacker), permissive(h.dlmm_open),
      "intent.account");
  add("perp order sent to an attacker's venue program",
      with_account(h.perp_order, "perp_program", attacker), permissive(h.perp_order),
      "intent.account");

  // 3. Nested data: decoded only as Jupiter, and only an exact-in route with no fee.
  const Bytes route = route_of(swap);
  add("a Meteora remove_all_liquidity passed off as the swap's route",
      with_route(swap, anchor_discriminator("remove_all_liquidity")), permissive(swap),
      "policy.undecodable");
  {
    // exact_out_route: route_plan, out_amount, quoted_in_amount, slippage, platform fee.
    Bytes exact_out = {208, 51, 239, 151, 123, 43, 237, 92};
    exact_out.insert(exact_out.end(), route.begin() + 8, route.end());
    add("an exact-out route, which skips the in-amount check", with_route(swap, exact_out),
        permissive(swap), "intent.route");
  }
  {
    Bytes more = route;
    const std::size_t in_at = route.size() - (8 + 8 + 2 + 1);
    put_u64(more, in_at, u64_at(route, in_at) + 1);
    add("a route that spends one base unit more than the swap's amount", with_route(swap, more),
        permissive(swap), "intent.amount");
  }
  {
    Bytes fee = route;
    fee.back() = 255;
    add("a route taking a 255 bps platform fee", with_route(swap, fee), permissive(swap),
        "intent.fee");
  }
  {
    Bytes half = route;
    half[8 + 4 + 2] = 50;  // the only hop's percent
    add("a route that swaps only half of what it takes", with_route(swap, half), permissive(swap),
        "intent.route");
  }
  {
    // route_with_token_ledger: no in_amount at all.
    Bytes ledger = {150, 86, 71, 116, 167, 93, 14, 104};
    const std::size_t plan_end = route.size() - (8 + 8 + 2 + 1);
    ledger.insert(ledger.end(), route.begin() + 8, route.begin() + static_cast<long>(plan_end));
    ledger.insert(ledger.end(), route.begin() + static_cast<long>(plan_end) + 8, route.end());
    add("a token-ledger route that names no in-amount", with_route(swap, ledger), permissive(swap),
        "intent.route");
  }

  // A swap of what the vault holds sells what the online half says it holds: a sweep of a
  // hundredth of the balance, its route's amount and quote in proportion, keeps the price and
  // passes the floor, so it is shown and asked, never signed unasked (found by an attacker
  // review on a zap-out's swap, where no argument bound the route's amount at all).
  {
    const auto scaled = [&](std::uint64_t divisor) {
      return with_data(h.sweep, [&](Bytes& data) {
        constexpr std::size_t kAmountAt = 8 + 32;
        put_u64(data, kAmountAt, u64_at(data, kAmountAt) / divisor);
        const std::size_t in_at = data.size() - (8 + 8 + 2 + 1), out_at = in_at + 8;
        put_u64(data, in_at, u64_at(data, in_at) / divisor);
        put_u64(data, out_at, u64_at(data, out_at) / divisor);
      });
    };
    add("a sweep of a hundredth of the balance, priced in proportion", scaled(100),
        permissive(h.sweep), "warn.unverifiable", Expect::kFlagged);
    add("a sweep of a third of the balance, priced in proportion", scaled(3), permissive(h.sweep),
        "warn.unverifiable", Expect::kFlagged);
  }

  // 4. How many steps an action may produce.
  {
    auto twice = swap;
    twice.steps.push_back(twice.steps[0]);
    add("a one-step swap answered with the same step twice", twice, permissive(swap),
        "intent.steps");
    auto deposit_twice = h.perp_deposit;
    deposit_twice.steps.push_back(deposit_twice.steps[0]);
    add("a perp deposit answered twice", deposit_twice, permissive(h.perp_deposit), "intent.steps");
    // A deposit whose bins lie outside the requested range: neither the tiling (an add need
    // not cover its range) nor the shares (one step, its whole share) see it; the range rule
    // on each step's bins does.
    // (The honest add's step covers bins 4990 to 5010.)
    const auto add_asking = [&](int lower, int upper) {
      return with_intent(h.dlmm_add, [=](json& b) {
        b["lowerBinId"] = lower;
        b["upperBinId"] = upper;
      });
    };
    add("a deposit into bins beside the requested ones", add_asking(4995, 5015),
        permissive(h.dlmm_add), "intent.bins");
    add("a deposit past the requested range's last bin", add_asking(4985, 5005),
        permissive(h.dlmm_add), "intent.bins");
    // A deposit into the whole position (no sub-range) is held to the body's totals all the
    // same, and a range is both bounds or none.
    // Where its steps go inside the position, only the chain bounds: the operator is asked.
    add("a deposit into the whole position, auto-approved", h.dlmm_add_whole,
        permissive(h.dlmm_add_whole), "warn.unbound_argument", Expect::kFlagged);
    add("a whole-position deposit of more token X than asked",
        with_intent(h.dlmm_add_whole, [](json& b) { b["amountX"] = "999999"; }),
        permissive(h.dlmm_add_whole), "intent.amount");
    add("a whole-position deposit of less token Y than asked",
        with_intent(h.dlmm_add_whole, [](json& b) { b["amountY"] = "1000001"; }),
        permissive(h.dlmm_add_whole), "intent.amount");
    add("a deposit whose request names only the range's first bin",
        with_intent(h.dlmm_add_whole, [](json& b) { b["lowerBinId"] = 4970; }),
        permissive(h.dlmm_add_whole), "intent.bins");
    add("a deposit whose request names only the range's last bin",
        with_intent(h.dlmm_add_whole, [](json& b) { b["upperBinId"] = 5029; }),
        permissive(h.dlmm_add_whole), "intent.bins");
    auto remove_twice = h.dlmm_remove;
    remove_twice.steps.push_back(remove_twice.steps[0]);
    add("two removals of 50% of one range (75% removed)", remove_twice, permissive(h.dlmm_remove),
        "intent.bins");
    // A step that only opens the swap's strategy, its follow-up (the swap itself) dropped: the
    // manager would pay for a set-up with nothing after it.
    auto setup_alone = h.swap_setup;
    setup_alone.steps.at(0).next_action.reset();
    add("a swap's set-up step that does not announce the swap", setup_alone,
        permissive(h.swap_setup), "intent.instruction");
    // Another mint's strategy set-up passed off as the swap's, the body naming that mint by
    // the initialize action's field beside the swap's destinationMint: which field binds the
    // strategy's token is ambiguous, so neither does.
    {
      auto relabeled = h.bonk_initialize;
      json body = json::parse(h.swap_setup.intent_json);
      body["mint"] = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
      relabeled.action = h.swap_setup.action;
      relabeled.intent_json = body.dump();
      relabeled.steps.at(0).next_action = h.swap_setup.action;
      add("another mint's strategy set-up passed off as a swap's, its body naming both mints",
          relabeled, permissive(relabeled), "intent.account");
    }
    auto follow_up = h.perp_deposit;
    follow_up.steps[0].next_action = "perp/withdraw";
    add("a follow-up the action never needs", follow_up, permissive(h.perp_deposit),
        "intent.steps");
  }

  // 5. The vault redirected: envelope and transaction name another vault than the body.
  {
    auto redirected = rewritten(update, [&](Message& m) {
      for (auto& k : m.static_keys) {
        if (k == update.vault) k = stranger;
      }
    });
    redirected.vault = stranger;
    add("vault B signed for a body that names vault A (both in the policy)", redirected,
        permissive(update), "intent.vault");
  }

  // 6. Position geometry.
  add("dlmm/initialize of other bins than the request's",
      with_data(h.dlmm_initialize, [](Bytes& d) { d[8 + 4] ^= 0x01; }),
      permissive(h.dlmm_initialize), "intent.bins");
  add("a position one bin wide whose liquidity spans 70 bins",
      with_data(h.dlmm_open,
                [](Bytes& d) {
                  d[8 + 4] = 1;
                  d[8 + 5] = d[8 + 6] = d[8 + 7] = 0;
                }),
      permissive(h.dlmm_open), "intent.bins");
  {
    // Both positions' tokens moved into the first, the totals unchanged.
    auto lopsided = h.dlmm_open;
    const Transaction first = parse_transaction(lopsided.steps[0].transaction).value();
    const Transaction second = parse_transaction(lopsided.steps[1].transaction).value();
    const auto amount_at = u64_at;
    const auto put = put_u64;
    constexpr std::size_t kX = 8 + 4 + 4;  // after lower_bin_id and width
    const Bytes& d1 = first.message.instructions.back().data;
    const Bytes& d2 = second.message.instructions.back().data;
    const std::uint64_t x = amount_at(d1, kX) + amount_at(d2, kX);
    const std::uint64_t y = amount_at(d1, kX + 8) + amount_at(d2, kX + 8);
    lopsided = with_data(lopsided, [&](Bytes& d) {
      put(d, kX, x);
      put(d, kX + 8, y);
    });
    auto emptied = parse_transaction(lopsided.steps[1].transaction).value();
    put(emptied.message.instructions.back().data, kX, 0);
    put(emptied.message.instructions.back().data, kX + 8, 0);
    lopsided.steps[1].transaction = serialize_transaction(emptied);
    add("all of a batch's tokens in one of its positions, the totals unchanged", lopsided,
        permissive(h.dlmm_open), "intent.amount");
  }

  // 7. The screen: hint text that would rewrite the terminal, and look-alike symbols.
  {
    auto pins_jup = permissive(swap);
    pins_jup.tokens.push_back({key_of("JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN"), "JUP", 6});
    for (const auto& [name, symbol] : std::vector<std::pair<std::string, std::string>>{
             {"an ESC sequence that erases the warnings", "USDC\x1b[1A\x1b[2K"},
             {"a carriage return that overwrites the line", "USDC\rJUP"},
             {"a right-to-left override that reorders the line", "USDC\xe2\x80\xae"}}) {
      auto q = swap;
      q.hints.tokens = {
          {key_of("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"), symbol, 6, std::nullopt}};
      add("token symbol with " + name, q, pins_jup, "warn.misleading_hint", Expect::kFlagged);
    }
    auto greek = swap;
    greek.hints.tokens = {
        {key_of("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"), "JU\xce\xa1", 6, std::nullopt}};
    add("a symbol that looks like a pinned one (JU with a Greek Rho)", greek, pins_jup,
        "warn.misleading_hint", Expect::kFlagged);
    // Symbols are pasted into sentences: one that writes its own provenance, or a phrase.
    for (const auto& [name, symbol] : std::vector<std::pair<std::string, std::string>>{
             {"writes its own provenance", "JUP, pinned) (aka Jupiter"},
             {"is a phrase", "JUP pinned"},
             {"is longer than any ticker", "JUPITERJUPITERJUP"}}) {
      auto q = swap;
      q.hints.tokens = {
          {key_of("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"), symbol, 6, std::nullopt}};
      add("a token symbol that " + name, q, pins_jup, "warn.misleading_hint", Expect::kFlagged);
    }
    // Decimals no token is shown with: 255 would once read as 0, a floor 10^6 times larger.
    for (const int decimals : {19, 40, 255}) {
      auto q = swap;
      q.hints.tokens = {{key_of("JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN"), "JUP",
                         static_cast<std::uint8_t>(decimals), std::nullopt}};
      add("a token hint of " + std::to_string(decimals) + " decimals", q, permissive(q),
          "warn.misleading_hint", Expect::kFlagged);
    }
    // A look-alike in plain ASCII: a zero reads as an O.
    auto pins_msol = permissive(swap);
    pins_msol.tokens.push_back({key_of("mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So"), "mSOL", 9});
    auto ascii = swap;
    ascii.hints.tokens = {
        {key_of("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"), "mS0L", 6, std::nullopt}};
    add("a symbol that looks like a pinned one in ASCII (mS0L, with a zero, for mSOL)", ascii,
        pins_msol, "warn.misleading_hint", Expect::kFlagged);
    // The name is not shown, but one that needs escaping says what the hint is.
    auto named = swap;
    named.hints.tokens = {{key_of("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"), "WIF", 6,
                           std::string("dogwifhat\x1b[2K")}};
    add("a plain symbol whose name holds an ESC sequence", named, pins_jup, "warn.misleading_hint",
        Expect::kFlagged);
  }

  // 8. Signers and exemptions.
  {
    // An extra signer whose signature is already there.
    const Transaction tx = first_tx(update);
    auto accounts = apisim::test::static_accounts(tx);
    const Keypair cosigner = Keypair::from_seed(sha256(Bytes{'c', 'o'}).view()).value();
    apisim::test::StaticAccount extra;
    extra.key = cosigner.public_key();
    extra.signer = true;
    accounts.push_back(extra);
    Transaction changed = apisim::test::rebuild_static_keys(tx, accounts);
    (void)sign_transaction(changed, cosigner);
    auto q = update;
    q.steps[0].transaction = serialize_transaction(changed);
    add("an extra signer already signed by someone else", q, permissive(update), "intent.signer");
  }
  {
    // perp/onboard with a second empty slot, not the venue's.
    const Transaction tx = first_tx(h.perp_onboard);
    auto accounts = apisim::test::static_accounts(tx);
    apisim::test::StaticAccount extra;
    extra.key = attacker;
    extra.signer = true;
    accounts.push_back(extra);
    auto q = h.perp_onboard;
    q.steps[0].transaction = serialize_transaction(apisim::test::rebuild_static_keys(tx, accounts));
    add("perp/onboard with an empty signer slot that is not the venue's", q,
        permissive(h.perp_onboard), "policy.missing_signature");
  }
  {
    // An associated token account for an outsider, paid by the manager.
    const PublicKey usdc = key_of("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
    const PublicKey token = key_of(programs::kToken);
    auto with_ata = ixs;
    with_ata.insert(with_ata.end() - 1,
                    Instruction{key_of(programs::kAssociatedToken),
                                {{manager, true, true},
                                 {associated_token_address(attacker, usdc, token), false, true},
                                 {attacker, false, false},
                                 {usdc, false, false},
                                 {key_of(programs::kSystem), false, false},
                                 {token, false, false}},
                                {1}});
    auto ata_policy = permissive(update);
    ata_policy.programs.insert(key_of(programs::kAssociatedToken));
    add("an associated token account for an outsider, paid by the manager",
        recompiled(update, with_ata, manager), ata_policy, "intent.account");
  }
  {
    // Instructions of programs the policy allows, which the manager does not sign: only the
    // template knows they are no part of the action.
    auto memo_policy = permissive(update);
    memo_policy.programs.insert(key_of(programs::kMemo));
    auto with_memo = ixs;
    with_memo.insert(with_memo.end() - 1,
                     Instruction{key_of(programs::kMemo), {}, Bytes{'p', 'a', 'i', 'd'}});
    add("a memo the action never writes, its program allowed",
        recompiled(update, with_memo, manager), memo_policy, "intent.instruction");
    // A second vault instruction of another kind, on its own vault account: closing the vault
    // inside an update.
    auto close_too = ixs;
    Bytes close_data = anchor_discriminator("vault_close");
    close_too.insert(close_too.end() - 1,
                     Instruction{key_of("AirLockVau1t1111111111111111111111111111111"),
                                 {{update.vault, false, true},
                                  {manager, true, true},
                                  {key_of(programs::kSystem), false, false}},
                                 close_data});
    add("a vault_close smuggled into a vault/update", recompiled(update, close_too, manager),
        permissive(update), "intent.instruction");
    // A direct Meteora DLMM call beside a swap, the DLMM program allowed.
    auto dlmm_policy = permissive(update);
    dlmm_policy.programs.insert(key_of("LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo"));
    std::vector<AccountMeta> pool_accounts;
    for (std::uint8_t i = 0; i < 16; ++i)
      pool_accounts.push_back({sha256(Bytes{'p', 'o', 'o', 'l', i}), false, i < 4});
    auto direct = ixs;
    direct.insert(direct.end() - 1,
                  Instruction{key_of("LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo"), pool_accounts,
                              anchor_discriminator("remove_all_liquidity")});
    add("a direct DLMM instruction beside the vault's, the DLMM program allowed",
        recompiled(update, direct, manager), dlmm_policy, "intent.instruction");
  }
  {
    // A nonce advance that is not the first instruction (so the runtime would not treat the
    // transaction as a durable-nonce one, but the advance still runs).
    auto nonce_policy = permissive(update);
    nonce_policy.programs.insert(key_of(programs::kSystem));
    nonce_policy.allow_durable_nonce = true;
    auto later = ixs;
    later.insert(later.end() - 1,
                 Instruction{key_of(programs::kSystem),
                             {{stranger, false, true},
                              {key_of(programs::kSysvarRecentBlockhashes), false, false},
                              {manager, true, false}},
                             {4, 0, 0, 0}});
    add("a nonce advance that is not first", recompiled(update, later, manager), nonce_policy,
        "intent.instruction");
  }
  {
    // The header asks for a write lock the IDL does not: the swap's source mint writable.
    const Transaction tx = first_tx(swap);
    auto accounts = apisim::test::static_accounts(tx);
    const PublicKey usdc = key_of("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
    for (auto& a : accounts) {
      if (a.key == usdc) a.writable = true;
    }
    auto q = swap;
    q.steps[0].transaction = serialize_transaction(apisim::test::rebuild_static_keys(tx, accounts));
    add("a header that makes the source mint writable against the IDL", q, permissive(swap),
        "intent.account");
  }
  edge_cases(h, add);
  bound_accounts_in_unpinned_tables(h, add);
  return cases;
}

}  // namespace airlock::adversarial
