// Descriptors (offline/src/descriptor.cpp, interfaces.cpp): the shipped one covers every
// instruction of the vault IDL and every builder action with the IDL's own accounts in order;
// a descriptor that breaks its format or does not fit its IDLs is refused naming the path; and
// only files with the SHA-256 the policy pins are loaded.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include <airlock/common/hash.h>
#include <airlock/formats/actions.h>
#include <airlock/offline/descriptor.h>
#include <airlock/offline/interfaces.h>
#include <airlock/offline/policy.h>
#include <airlock/offline/templates.h>

#include "support/helpers.h"
#include "support/interfaces.h"

namespace airlock::offline {
namespace {

using ojson = nlohmann::ordered_json;

std::string shipped_text() { return test::text_of(test::twin_descriptor_path()).value(); }

ojson shipped() { return ojson::parse(shipped_text()); }

// The message check_descriptor_files gives for `text` as a descriptor in a scratch folder, or
// "" when it holds.
std::string problem_with(const std::string& text) {
  test::ScratchDir dir{"descriptor"};
  std::ofstream(dir.file("d.json")) << text;
  DecoderRegistry registry;
  auto checked = check_descriptor_files(dir.file("d.json"), test::idl_dir(), registry);
  return checked.ok() ? std::string() : checked.error().message();
}

TEST(Descriptor, TheShippedOneDescribesEveryVaultInstructionWithItsIdlAccountsInOrder) {
  DecoderRegistry registry;
  const auto checked =
      check_descriptor_files(test::twin_descriptor_path(), test::idl_dir(), registry);
  ASSERT_TRUE(checked.ok()) << checked.error().to_string();
  const Descriptor& d = checked->descriptor;
  const auto vault = load_idl_file(test::idl_dir() + "/airlock_vault.json").value();
  std::set<std::string> described;
  for (const auto& ix : d.instructions) {
    if (ix.program_id != vault.program) continue;
    const IdlInstruction* idl = find_instruction(vault, ix.instruction);
    ASSERT_NE(idl, nullptr) << ix.instruction;
    ASSERT_EQ(ix.accounts.size(), idl->accounts.size()) << ix.instruction;
    for (std::size_t i = 0; i < ix.accounts.size(); ++i)
      EXPECT_EQ(ix.accounts[i].name, idl->accounts[i].name) << ix.instruction;
    described.insert(ix.instruction);
  }
  for (const auto& ix : vault.instructions)
    EXPECT_EQ(described.count(ix.name), 1U) << ix.name << " is not described";
  for (const std::string_view action : kBuilderActions)
    EXPECT_NE(d.action(action), nullptr) << action << " has no template";
  EXPECT_EQ(d.actions.size(), kBuilderActions.size());
}

TEST(Descriptor, ActionNamesAreTheOneList) {
  for (int i = 0; i < kActionCount; ++i) {
    const auto action = static_cast<Action>(i);
    ASSERT_EQ(parse_action(action_name(action)), action);
  }
  EXPECT_FALSE(parse_action("dlmm/teleport").has_value());
}

// Each broken descriptor is refused, and the error names where and why.
TEST(Descriptor, ABrokenOneIsRefusedNamingThePathAndTheRule) {
  struct Case {
    const char* what;
    std::function<void(ojson&)> change;
    const char* says;
  };
  const std::vector<Case> cases = {
      {"an unknown top-level key", [](ojson& j) { j["extra"] = 1; }, "unknown key \"extra\""},
      {"another version", [](ojson& j) { j["airlock_descriptor"] = 2; }, "airlock_descriptor"},
      {"an unknown key in a source",
       [](ojson& j) {
         j["instructions"]["vault_update"]["accounts"]["vault"] = {{"vault", 1}};
       },
       "instructions.vault_update.accounts.vault"},
      {"a source of two kinds",
       [](ojson& j) {
         j["instructions"]["strategy_close"]["accounts"]["strategy"] = {{"body", {"/strategy"}},
                                                                        {"checked", "x"}};
       },
       "exactly one of"},
      {"a type error",
       [](ojson& j) { j["instructions"]["strategy_close"]["accounts"]["strategy"]["body"] = 5; },
       "must be an array of strings"},
      {"an unknown program",
       [](ojson& j) {
         j["account_defaults"]["dlmm_program"] = {{"program", "dlmn"}};
       },
       "\"dlmn\" is not one of programs"},
      {"an account without a source",
       [](ojson& j) { j["account_defaults"].erase("trader_account"); },
       "account trader_account of the IDL has no source"},
      {"a source for an account the IDL lacks",
       [](ojson& j) { j["instructions"]["vault_update"]["accounts"]["treasury"] = "vault"; },
       "has no such account"},
      {"a derivation from an account the instruction lacks",
       [](ojson& j) {
         j["instructions"]["aggregator_swap"]["accounts"]["strategy"]["derived"]["any_of"][0]["pda"]
          ["seeds"][1] = {{"account", "position"}};
       },
       "derives from account position"},
      {"a bin from an argument that is no integer",
       [](ojson& j) {
         j["instructions"]["dlmm_remove"]["accounts"]["bin_array_lower"]["derived"]["bin_array"]
          ["bin"][0] = {{"arg", "bps_to_remove_typo"}};
       },
       "no integer argument"},
      {"an own address from an account the request does not name",
       [](ojson& j) {
         j["own_addresses"][0]["pda"]["seeds"][1] = {{"account", "position"}};
       },
       "own_addresses[0].pda.seeds[1]: \"position\" is not vault, mint or holding"},
      {"an own address for a mint and a holding at once",
       [](ojson& j) {
         j["own_addresses"][6]["pda"]["seeds"].push_back({{"account", "holding"}});
       },
       "own_addresses[6].pda.seeds[3]: an own address is for one mint or one holding"},
      {"an own address not of the vault",
       [](ojson& j) {
         j["own_addresses"][0]["pda"]["seeds"] = {{{"const", "perp"}}};
       },
       "own_addresses[0].pda: an own address derives from the vault"},
      {"an own address's token accounts of an owner never named",
       [](ojson& j) {
         j["own_addresses"].push_back({{"what", "x"}, {"ata", {{"owner", "idle"}}}});
       },
       "\"idle\" is no earlier pda entry derived for the vault alone, for each mint or for each "
       "holding"},
      {"an own address without its wording", [](ojson& j) { j["own_addresses"][1]["what"] = ""; },
       "own_addresses[1].what: must say why"},
      {"an own address worded over two lines",
       [](ojson& j) { j["own_addresses"][1]["what"] = "the vault's\nown"; },
       "own_addresses[1].what: must be printable text"},
      {"an IDL pinned with a bad hash",
       [](ojson& j) { j["programs"]["vault"]["idl"][0]["sha256"] = std::string(64, 'a'); },
       "has SHA-256"},
      {"an IDL outside the folder",
       [](ojson& j) { j["programs"]["vault"]["idl"][0]["file"] = "../idl/airlock_vault.json"; },
       "plain file name"},
      {"an action naming an undescribed instruction",
       [](ojson& j) { j["actions"]["vault/close"]["instructions"] = {"vault_burn"}; },
       "\"vault_burn\" is not one of instructions"},
      {"an unknown follow-up",
       [](ojson& j) { j["actions"]["dlmm/zap-out"]["follow_ups"] = {"aggregator/drain"}; },
       "\"aggregator/drain\" is not one of actions"},
      {"an unknown named checker",
       [](ojson& j) { j["instructions"]["aggregator_swap"]["remaining_accounts"] = "anything"; },
       "no named checker"},
      // A route's price is judged by its pair: the instruction must say which mints it swaps.
      {"a Jupiter route with no pair named",
       [](ojson& j) { j["instructions"]["aggregator_sweep"].erase("swaps"); },
       "must say which mints it swaps"},
      {"a pair named on an instruction with no route",
       [](ojson& j) {
         j["instructions"]["perp_deposit"]["swaps"] = {"deposit_mint", "vault"};
       },
       "only for an instruction that passes a Jupiter route"},
      {"a pair of one mint",
       [](ojson& j) {
         j["instructions"]["aggregator_swap"]["swaps"] = {"source_mint", "source_mint"};
       },
       "must name two accounts"},
      {"a pair naming an account the instruction lacks",
       [](ojson& j) {
         j["instructions"]["aggregator_swap"]["swaps"] = {"source_mint", "other_mint"};
       },
       "names account other_mint, which aggregator_swap lacks"},
      // An amount the screens show in a token's units: a u64 the instruction takes, in the
      // units of a mint or pool account it names, by every variant of a real enum.
      {"an amount that is no u64",
       [](ojson& j) {
         j["instructions"]["perp_deposit"]["amounts"] = {{"slippage", {{"mint", "deposit_mint"}}}};
         j["instructions"]["perp_deposit"]["outflows"] = ojson::array();
       },
       "is no u64 argument of perp_deposit"},
      // What leaves the vault, for the token limits: amounts the instruction states, once each.
      {"an outflow that is none of the amounts",
       [](ojson& j) {
         j["instructions"]["perp_deposit"]["outflows"] = {"amount", "fee"};
       },
       "outflows: names \"fee\", which is none of amounts"},
      {"an outflow named twice",
       [](ojson& j) {
         j["instructions"]["dlmm_open"]["outflows"] = {"amount_x", "amount_x"};
       },
       "outflows: names \"amount_x\" twice"},
      {"outflows that are no list of names",
       [](ojson& j) { j["instructions"]["perp_deposit"]["outflows"] = "amount"; },
       "outflows: must be an array of strings"},
      {"an amount in the units of an account the instruction lacks",
       [](ojson& j) {
         j["instructions"]["perp_deposit"]["amounts"]["amount"]["mint"] = "source_mint";
       },
       "names account source_mint, which perp_deposit lacks"},
      {"an amount of a pool side that is neither token",
       [](ojson& j) {
         j["instructions"]["dlmm_add"]["amounts"]["amount_x"]["mint"] = "lb_pair.token_z";
       },
       "after the account comes token_x or token_y"},
      {"an amount whose unit one variant of its enum does not give",
       [](ojson& j) {
         j["instructions"]["dlmm_limit_order_place"]["amounts"]["bins.amount"]["mint"].erase("Bid");
       },
       "gives no unit for side Bid"},
      {"an amount chosen by an argument that is no enum",
       [](ojson& j) {
         j["instructions"]["dlmm_limit_order_place"]["amounts"]["bins.amount"]["mint"]["by"] =
             "bins";
       },
       "bins is no enum argument of dlmm_limit_order_place"},
      {"an amount with an unknown key",
       [](ojson& j) { j["instructions"]["perp_deposit"]["amounts"]["amount"]["to"] = "x"; }, "to"},
      {"a ranged rule with neither shares nor cover",
       [](ojson& j) {
         j["actions"]["dlmm/add"]["steps"]["ranged"].erase("shares");
         j["actions"]["dlmm/add"]["steps"]["ranged"].erase("sides");
       },
       "must hold shares, cover: true, or both"},
      {"sides naming an argument the rule does not share",
       [](ojson& j) { j["actions"]["dlmm/add"]["steps"]["ranged"]["sides"]["above"] = "width"; },
       "steps.ranged.sides.above: must be one of the arguments shares names"},
      {"sides with one argument on both",
       [](ojson& j) { j["actions"]["dlmm/add"]["steps"]["ranged"]["sides"]["below"] = "amount_x"; },
       "steps.ranged.sides.below: must not be the same as above"},
      {"sides whose active bin is no integer argument",
       [](ojson& j) {
         j["actions"]["dlmm/add"]["steps"]["ranged"]["sides"]["active"] = "active_bin";
       },
       "active_bin is no integer argument of dlmm_add"},
      {"sides with a key of its own",
       [](ojson& j) { j["actions"]["dlmm/add"]["steps"]["ranged"]["sides"]["split"] = "even"; },
       "steps.ranged.sides: unknown key \"split\""},
      {"a derivation the IDL states, contradicted",
       [](ojson& j) {
         j["instructions"]["perp_initialize"]["accounts"]["strategy"]["derived"]["pda"]["seeds"]
          [0] = {{"const", "trader"}};
       },
       "the IDL derives this account"},
      {"a derivation the IDL states, loosened",
       [](ojson& j) {
         j["instructions"]["vault_claim_fee"]["accounts"]["manager_share_account"] = {
             {"unconstrained", "anything"}};
       },
       "the IDL derives this account"},
      {"an address the IDL fixes, replaced",
       [](ojson& j) {
         j["account_defaults"]["system_program"] = {{"program", "jupiter"}};
       },
       "the IDL fixes this account"},
      {"a rule for an argument the IDL lacks",
       [](ojson& j) {
         j["instructions"]["vault_update"]["args"] = {{"updates", {{"equals", "/update"}}}};
       },
       "instructions.vault_update.args.updates: the IDL's vault_update has no such argument"},
      {"an argument left without a rule",
       [](ojson& j) { j["instructions"]["vault_update"]["args"].erase("update.paused"); },
       "argument update.paused of vault_update has no rule"},
      {"a struct argument with one field left without a rule",
       [](ojson& j) { j["instructions"]["dlmm_open"]["args"].erase("strategy.shape"); },
       "argument strategy.shape of dlmm_open has no rule"},
      {"an argument rule of two kinds",
       [](ojson& j) {
         j["instructions"]["perp_deposit"]["args"]["amount"] = {{"equals", "/amount"},
                                                                {"shown", "x"}};
       },
       "must hold exactly one of equals"},
      {"an argument ruled whole and in part",
       [](ojson& j) {
         j["instructions"]["vault_update"]["args"]["update"] = {{"shown", "everything"}};
       },
       "rules update whole, and update.deposit_cap again"},
      {"an enum map to a variant the IDL lacks",
       [](ojson& j) {
         j["instructions"]["perp_order"]["args"]["order.side"]["map"]["long"] = "Up";
       },
       "\"Up\" is no variant of Side"},
      {"a variant rule on something that is no enum",
       [](ojson& j) {
         j["instructions"]["perp_deposit"]["args"]["amount"] = {{"variant", "/amount"},
                                                                {"map", {{"a", "A"}}}};
       },
       "amount is not an enum"},
      {"a list rule naming a field the elements lack",
       [](ojson& j) {
         j["instructions"]["dlmm_limit_order_place"]["args"]["bins"]["fields"]["price"] = "/price";
       },
       "is no field of BinAmount"},
      {"a list rule that leaves a field of the entries unruled",
       [](ojson& j) {
         j["instructions"]["dlmm_limit_order_place"]["args"]["bins"]["fields"].erase("amount");
       },
       "BinAmount's field amount has no rule"},
      {"a ceiling on something that is no integer",
       [](ojson& j) {
         j["instructions"]["aggregator_swap"]["args"]["source_mint"]["ceiling"] =
             "max_slippage_bps";
       },
       "a ceiling holds an integer"},
      {"an unknown ceiling",
       [](ojson& j) {
         j["instructions"]["aggregator_swap"]["args"]["slippage_bps"]["ceiling"] = "max_fee";
       },
       "is no policy ceiling"},
      {"\"absent\": \"none\" on an argument that is no option",
       [](ojson& j) { j["instructions"]["perp_deposit"]["args"]["amount"]["absent"] = "none"; },
       "fits an option"},
      {"a named checker the instruction lacks the arguments of",
       [](ojson& j) {
         j["instructions"]["perp_deposit"]["args"]["amount"] = {{"checker", "jupiter_route"}};
       },
       "jupiter_route reads argument route, which perp_deposit lacks"},
      {"a named checker on an argument it does not read",
       [](ojson& j) {
         j["instructions"]["aggregator_swap"]["args"]["amount"] = {{"checker", "perp_order_type"}};
       },
       "perp_order_type does not read amount"},
      {"an argument rule naming an unknown checker",
       [](ojson& j) {
         j["instructions"]["perp_deposit"]["args"]["amount"] = {{"checker", "trust_me"}};
       },
       "\"trust_me\" is no named checker"},
      {"step_shares on an argument the step rule does not share",
       [](ojson& j) {
         j["actions"]["dlmm/add"]["steps"]["ranged"]["shares"].erase("amount_y");
         j["actions"]["dlmm/add"]["steps"]["ranged"].erase("sides");
       },
       "amount_y is held by step_shares"},
      {"a refusal code that is no intent code",
       [](ojson& j) {
         j["instructions"]["perp_deposit"]["args"]["amount"]["refuses"] = "warn.unpause";
       },
       "is no intent.* code"},
      {"a warning code on a rule that refuses",
       [](ojson& j) {
         j["instructions"]["perp_deposit"]["args"]["amount"]["warns"] = "warn.unverifiable";
       },
       "does not fit this rule"},
      {"a preparing instruction whose follow-up the action may not announce",
       [](ojson& j) {
         j["actions"]["aggregator/swap"]["then"]["aggregator_initialize"] = "dlmm/open";
       },
       "\"dlmm/open\" is not one of the action's follow_ups"},
      {"an instruction described twice",
       [](ojson& j) {
         j["instructions"]["vault_update_again"] = j["instructions"]["vault_update"];
         j["instructions"]["vault_update_again"]["instruction"] = "vault_update";
       },
       "describes vault_update again"},
  };
  ASSERT_EQ(problem_with(shipped_text()), "");
  for (const auto& c : cases) {
    ojson j = shipped();
    c.change(j);
    const std::string problem = problem_with(j.dump(2));
    EXPECT_NE(problem.find(c.says), std::string::npos)
        << c.what << ": the error was \"" << problem << "\"";
  }
}

// Where the IDL states an account's derivation, the descriptor need not repeat it.
TEST(Descriptor, AnAccountTheIdlDerivesNeedsNoSourceOfItsOwn) {
  ojson j = shipped();
  j["instructions"]["vault_claim_fee"]["accounts"].erase("manager_share_account");
  test::ScratchDir dir{"descriptor"};
  std::ofstream(dir.file("d.json")) << j.dump(2);
  DecoderRegistry registry;
  auto checked = check_descriptor_files(dir.file("d.json"), test::idl_dir(), registry);
  ASSERT_TRUE(checked.ok()) << checked.error().to_string();
  const auto* account =
      checked->descriptor.instruction("vault_claim_fee")->account("manager_share_account");
  ASSERT_NE(account, nullptr);
  EXPECT_EQ(account->source.kind, AccountSource::Kind::kDerived);
  EXPECT_EQ(account->source.text, "the address the IDL derives for manager_share_account");
  ASSERT_EQ(account->source.any_of.size(), 1U);
  EXPECT_EQ(account->source.any_of[0].seeds.size(), 2U);
}

TEST(Descriptor, AKeyTwiceInOneObjectIsRefused) {
  std::string text = shipped_text();
  const std::string once = "\"name\": \"airlock_vault\",";
  ASSERT_NE(text.find(once), std::string::npos);
  text.replace(text.find(once), once.size(), once + "\n  \"name\": \"other_vault\",");
  EXPECT_NE(problem_with(text).find("key \"name\" appears twice"), std::string::npos)
      << problem_with(text);
}

// Another program's actions may be ruled by name; a misspelt builder action still may not.
TEST(Descriptor, APolicyMayRuleAnotherProgramsActionsButNotMisspellTheBuilders) {
  const std::string head =
      "version = 1\nmanager = \"AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax\"\n";
  const auto parsed =
      parse_policy(head + "[actions.\"voltr/deposit-strategy\"]\nauto_approve = true\n");
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  EXPECT_TRUE(parsed->rule("voltr/deposit-strategy").auto_approve);
  for (const char* name : {"dlmm/teleport", "aggregator/swapp", "keystone/sol-sign",
                           "Voltr/Deposit", "voltr", "voltr/deposit strategy"}) {
    const auto bad =
        parse_policy(head + "[actions.\"" + std::string(name) + "\"]\nallowed = false\n");
    ASSERT_FALSE(bad.ok()) << name;
    EXPECT_NE(bad.error().message().find("not an action this version knows"), std::string::npos)
        << name << ": " << bad.error().message();
  }
}

// A folder with the shipped descriptor and IDLs, which a test may change.
class Pinned : public ::testing::Test {
 protected:
  void SetUp() override {
    namespace fs = std::filesystem;
    fs::create_directories(dir.file("idl"));
    fs::create_directories(dir.file("descriptors"));
    for (const auto& e : fs::directory_iterator(test::idl_dir()))
      fs::copy_file(e.path(), dir.file("idl/" + e.path().filename().string()));
    fs::copy_file(test::twin_descriptor_path(), dir.file("descriptors/airlock_vault.json"));
    policy.descriptors = test::twin_pins();
  }
  std::string load() {
    DecoderRegistry registry;
    auto s = load_pinned_interfaces(policy, {dir.file("idl"), dir.file("descriptors")}, registry);
    if (s.ok()) return registry.descriptor_for("aggregator/swap") != nullptr ? "" : "no swap";
    EXPECT_EQ(s.error().code(), errors::kDescriptorUnpinned) << s.error().to_string();
    return s.error().message();
  }
  test::ScratchDir dir{"descriptor"};
  Policy policy;
};

TEST_F(Pinned, TheShippedFilesLoadUnderTheirPins) { EXPECT_EQ(load(), ""); }

TEST_F(Pinned, NothingLoadsWithoutAPin) {
  policy.descriptors.clear();
  DecoderRegistry registry;
  ASSERT_TRUE(
      load_pinned_interfaces(policy, {dir.file("idl"), dir.file("descriptors")}, registry).ok());
  EXPECT_TRUE(registry.descriptors().empty());
  EXPECT_FALSE(registry.knows(public_key_from_base58(kVaultProgram).value()));
}

TEST_F(Pinned, AChangedDescriptorIsRefusedNamingBothHashes) {
  std::ofstream(dir.file("descriptors/airlock_vault.json"), std::ios::app) << "\n";
  const std::string problem = load();
  EXPECT_NE(problem.find("airlock_vault.json has SHA-256"), std::string::npos) << problem;
  EXPECT_NE(problem.find("the policy pins"), std::string::npos) << problem;
}

TEST_F(Pinned, AChangedIdlIsRefused) {
  std::ofstream(dir.file("idl/jupiter_v6.json"), std::ios::app) << " ";
  EXPECT_NE(load().find("IDL " + dir.file("idl") + "/jupiter_v6.json has SHA-256"),
            std::string::npos)
      << load();
}

TEST_F(Pinned, AnIdlThePolicyDoesNotPinIsRefused) {
  policy.descriptors[0].idls.erase("meteora_dlmm.json");
  EXPECT_NE(load().find("uses IDL meteora_dlmm.json, which the policy does not pin"),
            std::string::npos)
      << load();
  policy.descriptors = test::twin_pins();
  policy.descriptors[0].idls["meteora_dlmm.json"] = Hash{};
  EXPECT_NE(load().find("names IDL meteora_dlmm.json with SHA-256"), std::string::npos) << load();
}

// A rule for an action of another program holds only where a pinned descriptor describes it.
TEST_F(Pinned, APolicyRuleForAnActionNoDescriptorDescribesIsRefused) {
  policy.actions["treasury/rebalance"] = ActionRule{};
  DecoderRegistry registry;
  auto s = load_pinned_interfaces(policy, {dir.file("idl"), dir.file("descriptors")}, registry);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), errors::kPolicyInvalid);
  EXPECT_NE(s.error().message().find("actions.treasury/rebalance: no descriptor the policy pins "
                                     "describes treasury/rebalance"),
            std::string::npos)
      << s.error().message();
}

TEST_F(Pinned, APinForAnIdlTheDescriptorDoesNotUseIsRefused) {
  policy.descriptors[0].idls["orca_whirlpool.json"] = Hash{};
  EXPECT_NE(load().find("pins IDL orca_whirlpool.json"), std::string::npos) << load();
}

// The example policy and every recipe of the operator's guide pin the files as shipped: a
// newcomer who copies one gets a policy that loads them.
TEST(Descriptor, TheDocumentedPoliciesPinTheShippedFiles) {
  const auto pins = test::twin_pins();
  const auto same = [&](const Policy& p, const std::string& where) {
    ASSERT_EQ(p.descriptors.size(), 1U) << where;
    EXPECT_EQ(p.descriptors[0].file, pins[0].file) << where;
    EXPECT_TRUE(p.descriptors[0].sha256 == pins[0].sha256)
        << where << " pins another descriptor; the shipped one's entry:\n"
        << test::twin_pin_toml();
    EXPECT_TRUE(p.descriptors[0].idls == pins[0].idls) << where << " pins other IDLs";
  };
  same(load_policy_file(AIRLOCK_POLICY_EXAMPLE).value(), "offline/policy.example.toml");
  const std::string guide = test::text_of(AIRLOCK_OPERATOR_GUIDE).value();
  int recipes = 0;
  for (auto at = guide.find("```toml\nversion = 1\n"); at != std::string::npos;
       at = guide.find("```toml\nversion = 1\n", at + 1)) {
    const auto body = at + 8;
    auto policy = parse_policy(guide.substr(body, guide.find("```", body) - body));
    ASSERT_TRUE(policy.ok()) << policy.error().to_string();
    same(*policy, "recipe " + std::to_string(++recipes) + " of the operator's guide");
  }
  EXPECT_GE(recipes, 4);
}

}  // namespace
// The twin's descriptor and IDLs in a scratch folder, the vault IDL changed by `change_idl` and
// the descriptor by `change` (its pin of the vault IDL kept true): the loaded descriptor, or the
// error that refused it.
Result<Descriptor> with_idl_change(const std::function<void(nlohmann::json&)>& change_idl,
                                   const std::function<void(ojson&)>& change) {
  test::ScratchDir dir{"relations"};
  std::filesystem::create_directories(dir.file("idl"));
  for (const auto& f : std::filesystem::directory_iterator(test::idl_dir()))
    std::filesystem::copy_file(f.path(), dir.file("idl/" + f.path().filename().string()));
  auto idl = nlohmann::json::parse(std::ifstream(test::idl_dir() + "/airlock_vault.json"));
  change_idl(idl);
  const std::string idl_text = idl.dump(2);
  std::ofstream(dir.file("idl/airlock_vault.json"), std::ios::trunc) << idl_text;
  ojson j = shipped();
  j["programs"]["vault"]["idl"][0]["sha256"] = to_hex(sha256(text_bytes(idl_text)).view());
  change(j);
  std::ofstream(dir.file("d.json")) << j.dump(2);
  DecoderRegistry registry;
  auto checked = check_descriptor_files(dir.file("d.json"), dir.file("idl"), registry);
  if (!checked.ok()) return checked.error();
  return checked->descriptor;
}

// Anchor's `relations` (has_one): an account the IDL relates to an account bound here is bound
// by the chain, and needs no source of its own; a signer, or a relation to an account nothing
// binds, still does.
TEST(Descriptor, AnAccountTheIdlRelatesToABoundOneIsCheckedByTheChain) {
  const auto relate = [](const std::string& account, const std::vector<std::string>& to) {
    return [=](nlohmann::json& idl) {
      for (auto& ix : idl["instructions"]) {
        for (auto& a : ix["accounts"]) {
          if (a["name"] == account) a["relations"] = to;
        }
      }
    };
  };
  const auto no_default = [](ojson& j) { j["account_defaults"].erase("deposit_mint"); };
  // Without the relation, the mint has no source once the default is gone.
  const auto unrelated = with_idl_change([](nlohmann::json&) {}, no_default);
  ASSERT_FALSE(unrelated.ok());
  EXPECT_NE(unrelated.error().message().find("account deposit_mint of the IDL has no source"),
            std::string::npos)
      << unrelated.error().message();
  // With it, every instruction naming the mint binds it as the vault's, checked by the chain;
  // vault_initialize's own source (the body's) stands.
  const auto related = with_idl_change(relate("deposit_mint", {"vault"}), no_default);
  ASSERT_TRUE(related.ok()) << related.error().message();
  int bound = 0;
  for (const auto& ix : related->instructions) {
    const DescribedAccount* mint = ix.account("deposit_mint");
    if (mint == nullptr) continue;
    if (ix.instruction == "vault_initialize") {
      EXPECT_EQ(mint->source.kind, AccountSource::Kind::kBody);
      continue;
    }
    ++bound;
    EXPECT_EQ(mint->source.kind, AccountSource::Kind::kChecked) << ix.key;
    EXPECT_NE(mint->source.text.find("the deposit_mint that vault's data names"), std::string::npos)
        << mint->source.text;
  }
  EXPECT_EQ(bound, 5);
  // A relation to an account nothing binds, or to one bound only by a relation, proves nothing.
  const auto to_unbound = with_idl_change(relate("deposit_mint", {"token_program"}), no_default);
  ASSERT_FALSE(to_unbound.ok());
  EXPECT_NE(to_unbound.error().message().find("whose own source binds no one key"),
            std::string::npos)
      << to_unbound.error().message();
  // A relation to an account that derives from this one proves nothing (a cycle): the vault's
  // deposit account is the vault's token account for this very mint.
  const auto cycle = with_idl_change(relate("deposit_mint", {"vault_deposit_account"}), no_default);
  ASSERT_FALSE(cycle.ok());
  EXPECT_NE(cycle.error().message().find("derives from one that does not"), std::string::npos)
      << cycle.error().message();
  // A signer's relation says whose key it is, not who signs for it.
  const auto signer = with_idl_change(
      [&](nlohmann::json& idl) {
        relate("deposit_mint", {"vault"})(idl);
        for (auto& ix : idl["instructions"]) {
          for (auto& a : ix["accounts"]) {
            if (a["name"] == "deposit_mint") a["signer"] = true;
          }
        }
      },
      no_default);
  ASSERT_FALSE(signer.ok());
  EXPECT_NE(signer.error().message().find("signs; its IDL relation to vault"), std::string::npos)
      << signer.error().message();
}

// What `descriptor check` prints is what a person reads before pinning: every rule in its own
// words (an at-most, a range, an enum, a list, a named checker is none of "bound to nothing"),
// and the vault's own addresses the descriptor states.
TEST(Descriptor, CheckPrintsEveryRuleAndOwnAddressAsItIs) {
  const auto run =
      test::run_command(std::string(AIRLOCK_OFFLINE_BIN) + " descriptor check " +
                        test::twin_descriptor_path() + " --idl-dir " + test::idl_dir() + " 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  for (const std::string line :
       {"argument slippage_bps: at most the build request's /slippageBps; at most the policy's "
        "max_slippage_bps",
        "argument from_bin_id: within the build request's /lowerBinId .. /upperBinId, from "
        "/cursorBinId",
        "argument strategy.shape: the variant the build request's /shape names (spot -> Spot",
        "argument bins: each entry equal to the build request's /bins (bin_id = /binId",
        "argument route: held by the named checker jupiter_route",
        "argument amount: equals the build request's /amount; else intent.amount",
        "the vault's perp strategy: address of AirLockVau1t1111111111111111111111111111111 from "
        "[\"perp\", vault]",
        "the vault's strategy for position: address of AirLockVau1t1111111111111111111111111111111 "
        "from [\"dlmm\", vault, holding], for each holding"}) {
    EXPECT_NE(run.output.find(line), std::string::npos) << line;
  }
  // A rule printed as "bound to nothing" says why, and only a shown argument is printed so.
  std::istringstream lines(run.output);
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find("bound to nothing");
    if (at == std::string::npos) continue;
    EXPECT_NE(line.find("(asked): "), std::string::npos) << line;
    EXPECT_GT(line.size(), line.find("(asked): ") + 10) << line;
  }
}

}  // namespace airlock::offline
