// Every one of the 28 builder actions, in an order that makes each valid, through the real
// HTTP API: each step is checked against the vault program's IDL, signed, sent and confirmed,
// and the world changes as the reads then show.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>

#include <airlock/common/display.h>
#include <airlock/common/hash.h>
#include <airlock/offline/idl.h>
#include <airlock/offline/review.h>
#include <airlock/offline/summary.h>
#include <airlock/formats/action_fields.h>

#include "conformance_support.h"
#include "support/helpers.h"
#include "support/interfaces.h"

namespace airlock::apisim::test {
namespace {

constexpr const char* kPhoenix = "PhoeNiXZ8ByJGLkxNfZRnkUfjvmuYqLR89jjFHGqdXY";

struct IdlInstruction {
  std::string name;
  Bytes discriminator;
  std::size_t accounts = 0;
};

std::map<std::string, IdlInstruction> load_idl() {
  std::ifstream in(AIRLOCK_VAULT_IDL);
  const json idl = json::parse(in);
  std::map<std::string, IdlInstruction> out;
  for (const auto& ix : idl["instructions"]) {
    IdlInstruction i;
    i.name = ix["name"];
    i.discriminator = ix["discriminator"].get<Bytes>();
    i.accounts = ix["accounts"].size();
    out[i.name] = i;
  }
  return out;
}

// "dlmm/limit-order/place" -> "dlmm_limit_order_place"
std::string instruction_name(std::string action) {
  for (auto& c : action) {
    if (c == '/' || c == '-') c = '_';
  }
  return action;
}

// AIRLOCK_REVIEW_SEEDS=FOLDER writes each honest request built here as an envelope: the seeds
// of the review_request fuzz target (tests/fuzz/corpus/review_request), real twin builds of
// every action.
void write_review_seed(const std::string& action, const envelope::SignRequest& request) {
  const char* folder = std::getenv("AIRLOCK_REVIEW_SEEDS");
  if (folder == nullptr) return;
  std::string name = "seed-" + action;
  std::replace(name.begin(), name.end(), '/', '-');
  const Bytes cbor = envelope::encode_request(request);
  std::ofstream(std::string(folder) + "/" + name, std::ios::binary)
      .write(reinterpret_cast<const char*>(cbor.data()), static_cast<std::streamsize>(cbor.size()));
}

class AllActions : public Twin {
 protected:
  // Builds `action`, checks every step against the IDL, sends and confirms each; returns steps.
  std::vector<json> run(const std::string& action, const json& body) {
    advance(4000);  // a polite client: the per-address buckets refill between actions
    // airlock-online's field table agrees with what the twin builds from.
    const auto checked = check_body(action, body);
    EXPECT_TRUE(checked.ok()) << action << ": " << checked.error().to_string();
    const Reply built = post("/transactions/" + action, body);
    EXPECT_EQ(built.status, 200) << action << ": " << built.body.dump();
    if (built.status != 200) return {};
    const bool first_build = covered.insert(action).second;
    // The offline review of what the twin built, as an honest online half would request it,
    // under a policy that allows this world: nothing is refused.
    auto request = request_of(action, body, built.body);
    // The pool hint airlock-online adds to every DLMM request (the world's one pool).
    if (action.rfind("dlmm/", 0) == 0) {
      request.hints.pools.push_back({public_key_from_base58(kSolUsdcPool).value(),
                                     public_key_from_base58(kSol).value(),
                                     public_key_from_base58(kUsdc).value()});
    }
    // Every action auto-approved by the policy: an honest build of each must come out clean
    // enough to be signed without asking, but for the warnings its own content earns.
    auto policy = demo_policy(
        request, "allow_vault_initialize = true\n" + airlock::test::twin_price_floors_toml());
    policy.actions[action].auto_approve = true;
    policy.programs.insert(public_key_from_base58(kPhoenix).value());
    policy.vaults.insert(request.vault);
    const auto review =
        offline::review_request(request, policy, decoders, manager_->public_key(), now_s());
    write_review_seed(action, request);
    if (first_build && decision_goldens) check_decision(action, request, review);
    for (const auto& refusal : review.refusals)
      ADD_FAILURE() << action << ": " << refusal.code << ": " << refusal.message;
    if (!review.refused()) reviewed.insert(action);
    if (review.auto_approvable) {
      auto_approved.insert(action);
    } else {
      for (const auto& w : review.warnings) warned.insert(action + " " + w.code);
    }
    // Every account, flag, signer and step of this honest build, changed alone, is refused.
    std::size_t tried = 0;
    for (const auto& missed :
         binding_sweep(request, policy, decoders, manager_->public_key(), now_s(), tried))
      ADD_FAILURE() << "signed although changed: " << missed;
    mutations += tried;
    const auto steps = steps_of(built.body);
    for (const auto& step : steps) {
      const Transaction tx = tx_of(step);
      EXPECT_EQ(to_base58(tx.message.fee_payer()), "AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax")
          << action;
      const auto& ix = tx.message.instructions.back();
      const std::string program = to_base58(tx.message.static_keys[ix.program_index]);
      const std::string name = instruction_name(action);
      if (action != "perp/onboard") {
        EXPECT_EQ(program, "AirLockVau1t1111111111111111111111111111111") << action;
        const auto& expected =
            idl.at(name == "aggregator_swap" && step.value("initializesStrategy", false) &&
                           step.contains("next")
                       ? std::string("aggregator_initialize")
                       : name);
        EXPECT_GE(ix.data.size(), 8U);
        if (ix.data.size() < 8) continue;
        EXPECT_EQ(Bytes(ix.data.begin(), ix.data.begin() + 8), expected.discriminator) << action;
        EXPECT_GE(ix.accounts.size(), expected.accounts)
            << action << ": fewer accounts than the IDL names";
        // The offline half's interpreter decodes every argument, exactly, with the same IDL;
        // a route argument holds Jupiter `route` data that the Jupiter IDL decodes in turn.
        auto decoded = offline::decode_instruction(vault_idl, ix.data);
        EXPECT_TRUE(decoded.ok()) << action << ": "
                                  << (decoded.ok() ? "" : decoded.error().to_string());
        if (decoded.ok() && decoded->args.contains("route")) {
          auto route = from_hex(decoded->args["route"].get<std::string>(), 4096);
          auto nested = offline::decode_instruction(jupiter_idl, *route);
          EXPECT_TRUE(nested.ok())
              << action << ": " << (nested.ok() ? "" : nested.error().to_string());
          if (nested.ok()) {
            EXPECT_EQ(nested->instruction->name, "route");
            EXPECT_FALSE(nested->args["route_plan"].empty());
            ++routes_decoded;
          }
        }
      }
      EXPECT_EQ(send_and_confirm(step), "confirmed") << action;
    }
    return steps;
  }

  // The decision screen the operator answers, for the first build of each action: one 80x24
  // screen with the prompt (at most 23 lines of at most 80 columns), and as its golden file
  // (tests/data/decisions/every-action) says, with the request id and the seconds left masked.
  void check_decision(const std::string& action, const envelope::SignRequest& q,
                      const offline::Review& r) {
    std::string d = offline::render_decision(q, r, now_s());
    d = std::regex_replace(d, std::regex("Sign request [0-9a-f]{32}"), "Sign request <id>");
    d = std::regex_replace(d, std::regex("deadline  in [0-9]+ s"), "deadline  in <s> s");
    std::size_t lines = 0;
    std::istringstream rows(d);
    for (std::string row; std::getline(rows, row); ++lines)
      EXPECT_LE(display_width(row), 80U) << action << ": " << row;
    EXPECT_LE(lines, 23U) << action << ":\n" << d;
    std::string name = action;
    std::replace(name.begin(), name.end(), '/', '-');
    airlock::test::expect_golden("decisions/every-action/" + name + ".txt", d);
  }

  json strategies() { return get(std::string("/vaults/") + kVault + "/strategies").body["data"]; }

  std::map<std::string, IdlInstruction> idl = load_idl();
  offline::Idl vault_idl = offline::load_idl_file(AIRLOCK_VAULT_IDL).value();
  offline::Idl jupiter_idl = offline::load_idl_file(AIRLOCK_JUPITER_IDL).value();
  std::set<std::string> covered;
  std::set<std::string> reviewed;
  offline::DecoderRegistry decoders = airlock::test::twin_registry();
  int routes_decoded = 0;
  std::size_t mutations = 0;
  std::set<std::string> auto_approved;
  std::set<std::string> warned;
  bool decision_goldens = false;  // the flow of every action checks its decision screens
};

TEST_F(AllActions, EveryBuilderProducesATransactionTheIdlDescribesAndThatConfirms) {
  const std::string vault = kVault;
  decision_goldens = true;
  // Vault and aggregator.
  run("vault/update", {{"vault", vault}, {"depositCap", "20000000000000"}, {"paused", false}});
  run("vault/claim-fee", {{"vault", vault}});
  run("aggregator/initialize", {{"vault", vault}, {"mint", kJup}});
  run("aggregator/swap", {{"vault", vault},
                          {"sourceMint", kUsdc},
                          {"destinationMint", kJup},
                          {"amount", "5000000"},
                          {"slippageBps", 50}});
  run("aggregator/sweep", {{"vault", vault}, {"mint", kJup}, {"slippageBps", 50}});

  // Liquidity pools: initialize, open, add, flip, remove, claim, extend (+ add-range), zap out.
  const auto init =
      run("dlmm/initialize",
          {{"vault", vault}, {"lbPair", kSolUsdcPool}, {"lowerBinId", 4990}, {"upperBinId", 5010}});
  ASSERT_EQ(init.size(), 1U);
  const std::string empty_position = init[0]["position"];
  run("dlmm/close", {{"vault", vault}, {"position", empty_position}});
  const auto opened = run("dlmm/open", {{"vault", vault},
                                        {"lbPair", kSolUsdcPool},
                                        {"lowerBinId", 4980},
                                        {"upperBinId", 5020},
                                        {"amountX", "200000000"},
                                        {"amountY", "30000000"},
                                        {"shape", "curve"},
                                        {"maxActiveBinSlippage", 5}});
  ASSERT_EQ(opened.size(), 1U);
  const std::string position = opened[0]["position"];
  run("dlmm/add", {{"vault", vault},
                   {"position", position},
                   {"amountX", "1000000"},
                   {"amountY", "1000000"},
                   {"shape", "spot"},
                   {"maxActiveBinSlippage", 5},
                   {"lowerBinId", 4990},
                   {"upperBinId", 5010}});
  // The sub-range is optional: funding the whole position, which only the chain knows, asks.
  run("dlmm/add", {{"vault", vault},
                   {"position", position},
                   {"amountX", "1000000"},
                   {"amountY", "1000000"},
                   {"shape", "spot"},
                   {"maxActiveBinSlippage", 5}});
  run("dlmm/flip", {{"vault", vault},
                    {"position", position},
                    {"lowerBinId", 5005},
                    {"upperBinId", 5019},
                    {"activeBinId", 5000},
                    {"maxActiveBinSlippage", 3}});
  run("dlmm/remove", {{"vault", vault}, {"position", position}, {"bpsToRemove", 2500}});
  run("dlmm/claim-fee", {{"vault", vault}, {"position", position}});
  const auto extended = run("dlmm/extend", {{"vault", vault},
                                            {"position", position},
                                            {"upperBinId", 5030},
                                            {"amountX", "1000000"},
                                            {"amountY", "0"},
                                            {"shape", "spot"}});
  ASSERT_EQ(extended.size(), 1U);
  ASSERT_TRUE(extended[0].contains("next"));
  EXPECT_EQ(extended[0]["next"]["path"], "dlmm/add-range");
  run(extended[0]["next"]["path"], extended[0]["next"]["body"]);
  const auto zapped =
      run("dlmm/zap-out", {{"vault", vault}, {"position", position}, {"slippageBps", 100}});
  ASSERT_EQ(zapped.size(), 1U);
  ASSERT_TRUE(zapped[0].contains("next")) << "SOL came back from the position";
  EXPECT_EQ(zapped[0]["next"]["path"], "aggregator/sweep");

  // The zap follow-up swap: SOL returned above the balance the vault had before.
  const Reply holdings = get(std::string("/vaults/") + vault + "/holdings");
  std::string sol_before = "0";
  for (const auto& t : holdings.body["data"]["tokens"]) {
    if (t["token"]["mint"] == kSol) sol_before = t["amount"];
  }
  const std::uint64_t before =
      std::stoull(sol_before) - 100000000;  // pretend 0.1 SOL came from the zap
  run("dlmm/zap-out/swap",
      {{"vault", vault},
       {"slippageBps", 100},
       {"sources",
        {{{"mint", kSol}, {"balanceBefore", std::to_string(before)}, {"closeWhenEmpty", false}}}}});

  // Limit orders.
  const auto placed =
      run("dlmm/limit-order/place",
          {{"vault", vault},
           {"lbPair", kSolUsdcPool},
           {"side", "bid"},
           {"bins",
            {{{"binId", 4990}, {"amount", "1000000"}}, {{"binId", 4991}, {"amount", "2000000"}}}}});
  ASSERT_EQ(placed.size(), 1U);
  run("dlmm/limit-order/cancel", {{"vault", vault}, {"limitOrder", placed[0]["limitOrder"]}});

  // Perpetuals.
  run("perp/initialize", {{"vault", vault}});
  run("perp/onboard", {{"vault", vault}});
  run("perp/deposit", {{"vault", vault}, {"amount", "100000000"}});
  run("perp/order", {{"vault", vault},
                     {"symbol", "SOL"},
                     {"side", "long"},
                     {"size", "1.5"},
                     {"reduceOnly", false},
                     {"order", {{"type", "limit"}, {"price", "149.5"}, {"postOnly", true}}}});
  const Reply perp = get(std::string("/vaults/") + vault + "/perp");
  ASSERT_EQ(perp.body["data"]["openOrders"].size(), 1U);
  run("perp/cancel",
      {{"vault", vault}, {"symbol", "SOL"}, {"orders", perp.body["data"]["openOrders"]}});
  run("perp/withdraw", {{"vault", vault}, {"amount", "50000000"}});
  run("perp/sweep", {{"vault", vault}});

  // Strategy close: an aggregator strategy whose balance is now zero.
  run("aggregator/initialize", {{"vault", vault}, {"mint", kJup}});
  for (const auto& s : strategies()) {
    if (s["type"] == "aggregator" && s["vaultBalance"] == "0") {
      run("strategy/close", {{"vault", vault}, {"strategy", s["address"]}});
    }
  }

  // A fresh vault to initialize and close.
  const auto created = run("vault/initialize", {{"depositMint", kUsdc},
                                                {"depositCap", "1000000000"},
                                                {"minDeposit", "1"},
                                                {"minWithdrawalShares", "1"},
                                                {"managementFeeBps", 0},
                                                {"performanceFeeBps", 0}});
  ASSERT_EQ(created.size(), 1U);
  run("vault/close", {{"vault", created[0]["vault"]}});
  EXPECT_EQ(get("/vaults/" + created[0]["vault"].get<std::string>()).status, 404) << "closed";

  // Every action was built, checked and confirmed.
  std::set<std::string> missing;
  for (const auto& [name, ix] : idl) missing.insert(name);
  for (const auto& action : covered) missing.erase(instruction_name(action));
  EXPECT_TRUE(missing.empty()) << "not exercised: " << json(missing).dump();
  EXPECT_EQ(covered.size(), 28U);
  EXPECT_EQ(reviewed, covered) << "the offline review passed every action's honest build";
  EXPECT_GE(routes_decoded, 3) << "swap, sweep and zap swap carry Jupiter routes";
  EXPECT_GT(mutations, 1500U) << "the binding sweep changed every action's builds";
  // Only the order whose lots and ticks this machine cannot check, the swaps of what the vault
  // holds (a sweep's balance, a zap-out's returned tokens: how much they sell is the online
  // half's word), the update that lifts the pause, and a deposit into the whole of a position
  // whose range is on chain ask a person; every other honest build may be auto-approved.
  EXPECT_EQ(warned, (std::set<std::string>{
                        "aggregator/sweep warn.unverifiable", "dlmm/add warn.unbound_argument",
                        "dlmm/zap-out/swap warn.unverifiable", "perp/order warn.unverifiable",
                        "vault/update warn.unpause"}));
  EXPECT_EQ(auto_approved.size(), 24U);
  std::cout << "binding sweep: " << mutations << " single changes, every one refused\n";
  EXPECT_GT(get(std::string("/vaults/") + vault + "/nav").body["data"].size(), 20U)
      << "every confirmed write records a NAV point";
  EXPECT_FALSE(get(std::string("/vaults/") + vault + "/strategy-history").body["data"].empty());
}

// Every body airlock-online refuses for a rule between fields, the twin of the API refuses too:
// the rules are the spec's, not stricter guesses.
TEST_F(AllActions, WhatTheOnlineHalfRefusesBetweenFieldsTheApiRefusesToo) {
  const std::string vault = kVault;
  const json open_body = {{"vault", vault},    {"lbPair", kSolUsdcPool},
                          {"amountX", "1000"}, {"amountY", "1000"},
                          {"shape", "spot"},   {"maxActiveBinSlippage", 10}};
  const auto with = [](json body, const json& more) {
    body.update(more);
    return body;
  };
  const auto opened =
      run("dlmm/open", with(open_body, {{"lowerBinId", 4980}, {"upperBinId", 5020}}));
  ASSERT_FALSE(opened.empty());
  const std::string position = opened[0]["position"];
  const std::vector<std::pair<std::string, json>> refused = {
      {"vault/claim-fee", json::object()},
      {"aggregator/swap",
       {{"vault", vault},
        {"sourceMint", kUsdc},
        {"destinationMint", kUsdc},
        {"amount", "5000000"},
        {"slippageBps", 50}}},
      {"dlmm/add",
       {{"vault", vault},
        {"position", position},
        {"amountX", "1000"},
        {"amountY", "1000"},
        {"shape", "spot"},
        {"maxActiveBinSlippage", 10},
        {"lowerBinId", 4990}}},
      {"dlmm/remove",
       {{"vault", vault}, {"position", position}, {"bpsToRemove", 100}, {"upperBinId", 4990}}},
      {"dlmm/flip",
       {{"vault", vault},
        {"position", position},
        {"lowerBinId", 4985},
        {"upperBinId", 4984},
        {"activeBinId", 5000},
        {"maxActiveBinSlippage", 10}}},
      {"dlmm/open", with(open_body, {{"lowerBinId", 5000}, {"upperBinId", 5000}})},
      {"dlmm/open", with(open_body, {{"lowerBinId", 3000}, {"upperBinId", 4401}})},
  };
  for (const auto& [action, body] : refused) {
    SCOPED_TRACE(action + " " + body.dump());
    EXPECT_FALSE(check_body(action, body).ok());
    advance(4000);
    const Reply built = post("/transactions/" + action, body);
    EXPECT_EQ(built.status, 400) << built.body.dump();
  }
}

}  // namespace
}  // namespace airlock::apisim::test
