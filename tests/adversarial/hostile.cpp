#include "hostile.h"

#include <nlohmann/json.hpp>

#include <airlock/common/message_builder.h>
#include <airlock/common/programs.h>
#include <airlock/common/transaction.h>

#include "conformance_support.h"

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

}  // namespace

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
  return cases;
}

}  // namespace airlock::adversarial
