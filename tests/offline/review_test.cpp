// The offline review against requests the twin really builds: what the policy allows passes
// with nothing to report, and every kind of tampering or policy gap is refused by its rule.
#include <algorithm>

#include <airlock/apisim/message_builder.h>
#include <airlock/common/programs.h>
#include <airlock/offline/review.h>

#include "conformance_support.h"
#include "support/interfaces.h"

namespace airlock::apisim::test {
namespace {

std::string listed(const std::vector<offline::Finding>& findings) {
  std::string out;
  for (const auto& f : findings) out += f.code + ": " + f.message + "\n";
  return out;
}

class ReviewTest : public Twin {
 protected:
  void SetUp() override {
    Twin::SetUp();
    airlock::test::add_twin_interfaces(decoders);
  }

  envelope::SignRequest build(const std::string& action, const json& body) {
    const Reply built = post("/transactions/" + action, body);
    EXPECT_EQ(built.status, 200) << built.body.dump();
    return request_of(action, body, built.body);
  }

  offline::Review review(const envelope::SignRequest& q, const offline::Policy& policy) {
    return offline::review_request(q, policy, decoders, manager_->public_key(), now_s());
  }

  json swap_body(const char* amount = "5000000", int slippage = 50) {
    return {{"vault", kVault},
            {"sourceMint", kUsdc},
            {"destinationMint", kJup},
            {"amount", amount},
            {"slippageBps", slippage}};
  }

  offline::DecoderRegistry decoders;
};

TEST_F(ReviewTest, ASwapThePolicyAllowsPassesAndIsFullyDecoded) {
  const auto q = build("aggregator/swap", swap_body());
  ASSERT_FALSE(q.steps.empty());
  const auto r = review(q, demo_policy(q, airlock::test::twin_price_floors_toml()));
  EXPECT_FALSE(r.refused()) << listed(r.refusals);
  EXPECT_TRUE(r.warnings.empty()) << listed(r.warnings);
  EXPECT_FALSE(r.auto_approvable) << "no action rule says auto_approve";
  ASSERT_EQ(r.steps.size(), q.steps.size());
  const auto& last = r.steps.back();
  ASSERT_FALSE(last.instructions.empty());
  ASSERT_TRUE(last.instructions.back().has_value());
  EXPECT_EQ(last.instructions.back()->instruction, "aggregator_swap");
  EXPECT_TRUE(last.instructions.back()->nested.count("route"));
  for (const auto& role : last.roles)
    EXPECT_TRUE(role.key.has_value()) << "pinned tables resolve every account";
}

TEST_F(ReviewTest, AutoApprovalNeedsTheRuleAndACleanReview) {
  const auto q = build("aggregator/swap", swap_body());
  const auto policy = demo_policy(q, "[actions.\"aggregator/swap\"]\nauto_approve = true\n" +
                                         airlock::test::twin_price_floors_toml());
  EXPECT_TRUE(review(q, policy).auto_approvable);
  const auto loose = demo_policy(
      q, "allow_unverified_lookup_tables = true\n" + airlock::test::twin_price_floors_toml());
  auto unpinned = loose;
  unpinned.pinned_tables.clear();
  unpinned.actions["aggregator/swap"].auto_approve = true;
  const auto r = review(q, unpinned);
  EXPECT_FALSE(r.refused()) << listed(r.refusals);
  EXPECT_TRUE(has(r.warnings, "warn.unverified_lookup_table"));
  EXPECT_FALSE(r.auto_approvable) << "a warning always needs a person";
}

// This machine holds no prices: a swap's quote is the online half's. With no floor for its pair
// the swap asks a person, whatever auto_approve says; with one, the swap must guarantee at least
// the floor's price, exactly (attacker review F1: a route at the attacker's price signed).
TEST_F(ReviewTest, ASwapIsPricedOnlyByTheFloorThePolicyPinsForItsPair) {
  const auto q = build("aggregator/swap", swap_body());
  const std::string automatic = "[actions.\"aggregator/swap\"]\nauto_approve = true\n";
  const auto unpriced = review(q, demo_policy(q, automatic));
  EXPECT_FALSE(unpriced.refused()) << listed(unpriced.refusals);
  EXPECT_TRUE(has(unpriced.warnings, "warn.unpriced")) << listed(unpriced.warnings);
  EXPECT_FALSE(unpriced.auto_approvable);

  // The twin quotes 5 USDC at 1.25 JUP each less its 0.3% fee, and the swap slips 50 bps: it
  // guarantees the quote less 0.5%. A floor at exactly that price holds; one base unit of price
  // more (in the floor's last decimal place) does not.
  const auto reviewed = review(q, demo_policy(q, airlock::test::twin_price_floors_toml()));
  ASSERT_FALSE(reviewed.steps.empty());
  const auto& swap = reviewed.steps.back().instructions.back();
  ASSERT_TRUE(swap.has_value());
  const auto quoted = offline::integer_arg(swap->nested.at("route").args["quoted_out_amount"]);
  ASSERT_TRUE(quoted.has_value());
  const auto minimum = offline::integer_arg(swap->args["minimum_out"]);
  ASSERT_TRUE(minimum.has_value());
  const std::uint64_t guaranteed = std::max(*quoted * (10'000 - 50) / 10'000, *minimum);
  // guaranteed / 5 JUP per USDC, written with 7 decimal places (5 USDC: exact)
  const std::uint64_t per_usdc = guaranteed * 10 / 5;  // price * 10^7
  const auto floor_toml = [&](std::uint64_t price_e7) {
    std::string text = std::to_string(price_e7);
    text.insert(text.size() - 7, ".");
    const std::string pins = airlock::test::twin_price_floors_toml();
    // the pinned tokens of the twin, and one floor: USDC for JUP at `text`
    const std::string toml = pins.substr(0, pins.find("[[price_floors]]")) +
                             "[[price_floors]]\nsell = \"USDC\"\nbuy = \"JUP\"\nat_least = \"" +
                             text + "\"\n";
    return automatic + toml;
  };
  const auto at = review(q, demo_policy(q, floor_toml(per_usdc)));
  EXPECT_FALSE(at.refused()) << listed(at.refusals);
  EXPECT_TRUE(at.warnings.empty()) << listed(at.warnings);
  EXPECT_TRUE(at.auto_approvable);
  const auto above = review(q, demo_policy(q, floor_toml(per_usdc + 1)));
  EXPECT_TRUE(has(above.refusals, "policy.price_floor")) << listed(above.refusals);
  EXPECT_FALSE(above.auto_approvable);
}

// A deposit of token X into bins that all lie at or below the active bin, where X cannot go:
// the deposit line would read as if it lands; it is asked, never auto-approved. The same
// build with bins on X's side does not warn.
TEST_F(ReviewTest, ADepositIntoBinsOffItsTokensSideWarns) {
  const auto open = [&](int lower, int upper) {
    return build("dlmm/open", {{"vault", kVault},
                               {"lbPair", kSolUsdcPool},
                               {"lowerBinId", lower},
                               {"upperBinId", upper},
                               {"amountX", "1000000"},
                               {"amountY", "0"},
                               {"shape", "spot"},
                               {"maxActiveBinSlippage", 5}});
  };
  const auto below = open(4900, 4950);
  const auto policy = demo_policy(below, "[actions.\"dlmm/open\"]\nauto_approve = true");
  const auto r = review(below, policy);
  EXPECT_FALSE(r.refused()) << listed(r.refusals);
  EXPECT_TRUE(has(r.warnings, "warn.deposit_off_side")) << listed(r.warnings);
  EXPECT_FALSE(r.auto_approvable);
  const auto above = open(5010, 5060);
  const auto fine =
      review(above, demo_policy(above, "[actions.\"dlmm/open\"]\nauto_approve = true"));
  EXPECT_FALSE(has(fine.warnings, "warn.deposit_off_side")) << listed(fine.warnings);
}

TEST_F(ReviewTest, AnIntentThatDiffersFromTheTransactionIsRefused) {
  const auto q = build("aggregator/swap", swap_body("5000000"));
  auto lied = q;
  lied.intent_json = swap_body("4000000").dump();  // the operator is shown a smaller amount
  EXPECT_TRUE(has(review(lied, demo_policy(q)).refusals, "intent.amount"));

  auto other_mint = q;
  json body = swap_body();
  body["destinationMint"] = kSol;
  other_mint.intent_json = body.dump();
  EXPECT_TRUE(has(review(other_mint, demo_policy(q)).refusals, "intent.mint"));

  auto not_json = q;
  not_json.intent_json = "[1,2]";
  EXPECT_TRUE(has(review(not_json, demo_policy(q)).refusals, "intent.unreadable"));

  auto wrong_types = q;
  json odd = swap_body();
  odd["slippageBps"] = "fifty";
  wrong_types.intent_json = odd.dump();
  EXPECT_TRUE(review(wrong_types, demo_policy(q)).refused());
}

TEST_F(ReviewTest, SlippageAboveThePolicyCeilingIsRefused) {
  const auto q = build("aggregator/swap", swap_body("5000000", 300));
  EXPECT_FALSE(review(q, demo_policy(q)).refused());
  const auto strict = demo_policy(q, "[actions.\"aggregator/swap\"]\nmax_slippage_bps = 100");
  const auto r = review(q, strict);
  EXPECT_TRUE(has(r.refusals, "intent.slippage")) << listed(r.refusals);
}

TEST_F(ReviewTest, TheTransactionMustBeTheActionTheRequestNames) {
  const json body = {{"vault", kVault}, {"depositCap", "20000000000000"}};
  auto q = build("vault/update", body);
  EXPECT_FALSE(review(q, demo_policy(q)).refused()) << listed(review(q, demo_policy(q)).refusals);
  q.action = "vault/claim-fee";  // the same bytes under a milder name
  EXPECT_TRUE(has(review(q, demo_policy(q)).refusals, "intent.instruction"));
  q.action = "vault/drain";
  EXPECT_TRUE(has(review(q, demo_policy(q)).refusals, "policy.action_unknown"));
}

TEST_F(ReviewTest, PolicyGapsAreRefusedByName) {
  const auto q = build("aggregator/swap", swap_body());
  const auto base = demo_policy(q);

  auto no_vault = base;
  no_vault.vaults.clear();
  EXPECT_TRUE(has(review(q, no_vault).refusals, "policy.vault_not_allowed"));

  auto no_compute_budget = base;
  no_compute_budget.programs.erase(
      public_key_from_base58("ComputeBudget111111111111111111111111111111").value());
  EXPECT_TRUE(has(review(q, no_compute_budget).refusals, "policy.program_not_allowed"));

  auto stingy = base;
  stingy.max_priority_fee_lamports = 0;
  const auto fee = review(q, stingy);
  EXPECT_GT(fee.steps.back().priority_fee_lamports, 0U) << "every twin step sets a unit price";
  EXPECT_TRUE(has(fee.refusals, "policy.priority_fee"));

  auto unpinned = base;
  unpinned.pinned_tables.clear();
  EXPECT_TRUE(has(review(q, unpinned).refusals, "policy.lookup_table_unpinned"));

  auto forbidden = base;
  forbidden.actions["aggregator/swap"].allowed = false;
  EXPECT_TRUE(has(review(q, forbidden).refusals, "policy.action_not_allowed"));

  auto other_manager = base;
  other_manager.manager = public_key_from_base58(kOtherVault).value();
  EXPECT_TRUE(has(review(q, other_manager).refusals, "policy.manager"));
}

TEST_F(ReviewTest, HintsThatContradictPinnedTablesOrLeaveGapsAreRefused) {
  const auto q = build("aggregator/swap", swap_body());
  ASSERT_FALSE(q.hints.lookup_tables.empty()) << "the swap's route uses a lookup table";
  const auto policy = demo_policy(q);

  auto swapped = q;
  auto& entries = swapped.hints.lookup_tables[0].entries;
  ASSERT_GE(entries.size(), 2U);
  std::swap(entries[0].second, entries[1].second);
  EXPECT_TRUE(has(review(swapped, policy).refusals, "policy.lookup_table_mismatch"));

  auto loose = policy;
  loose.pinned_tables.clear();
  loose.allow_unverified_lookup_tables = true;
  auto gaps = q;
  gaps.hints.lookup_tables[0].entries.pop_back();
  gaps.hints.lookup_tables[0].entries.erase(gaps.hints.lookup_tables[0].entries.begin());
  EXPECT_TRUE(has(review(gaps, loose).refusals, "policy.lookup_hint_incomplete"));
}

TEST_F(ReviewTest, APassedDeadlineIsRefusedByTheOfflineClock) {
  const auto q = build("aggregator/swap", swap_body());
  const auto policy = demo_policy(q);
  const auto late = offline::review_request(q, policy, decoders, manager_->public_key(),
                                            static_cast<std::int64_t>(q.deadline) + 1);
  EXPECT_TRUE(has(late.refusals, "policy.deadline_passed"));
  const auto on_time = offline::review_request(q, policy, decoders, manager_->public_key(),
                                               static_cast<std::int64_t>(q.deadline));
  EXPECT_FALSE(has(on_time.refusals, "policy.deadline_passed"));
  // A deadline past 2^63 - 1 is later than any clock, not a negative number long passed (an
  // attacker review saw the screen say "in 18446744071913572181 s" above a refusal that said
  // it passed 1795979435 s ago).
  auto far = q;
  far.deadline = UINT64_MAX;
  const auto later = offline::review_request(far, policy, decoders, manager_->public_key(),
                                             static_cast<std::int64_t>(q.deadline));
  EXPECT_FALSE(has(later.refusals, "policy.deadline_passed"));
}

TEST_F(ReviewTest, ABatchMustDeliverExactlyTheRequestedTotals) {
  const json body = {{"vault", kVault},    {"lbPair", kSolUsdcPool},   {"lowerBinId", 4800},
                     {"upperBinId", 5000}, {"amountX", "200000000"},   {"amountY", "30000000"},
                     {"shape", "spot"},    {"maxActiveBinSlippage", 5}};
  const auto q = build("dlmm/open", body);
  ASSERT_GE(q.steps.size(), 2U) << "200 bins take several positions";
  const auto policy = demo_policy(q);
  const auto r = review(q, policy);
  EXPECT_FALSE(r.refused()) << listed(r.refusals);

  auto more = q;
  json asked = body;
  asked["amountX"] = "200000001";
  more.intent_json = asked.dump();
  EXPECT_TRUE(has(review(more, policy).refusals, "intent.amount"));

  auto dropped = q;  // a step left out: the rest no longer add up
  dropped.steps.pop_back();
  EXPECT_TRUE(review(dropped, policy).refused());

  auto shape = q;
  asked = body;
  asked["shape"] = "curve";
  shape.intent_json = asked.dump();
  EXPECT_TRUE(has(review(shape, policy).refusals, "intent.shape"));
}

// An amount in the request is read by the API's rule for BaseUnitAmount and nothing looser: the
// same value spelt another way ("0200000000", a JSON number) or not a value at all ("", " 1")
// is refused, never read as zero or as the number it resembles.
TEST_F(ReviewTest, AnAmountIsReadOnlyAsTheApiWritesIt) {
  const json body = {{"vault", kVault},    {"lbPair", kSolUsdcPool},   {"lowerBinId", 4800},
                     {"upperBinId", 5000}, {"amountX", "200000000"},   {"amountY", "30000000"},
                     {"shape", "spot"},    {"maxActiveBinSlippage", 5}};
  const auto q = build("dlmm/open", body);
  const auto policy = demo_policy(q);
  ASSERT_FALSE(review(q, policy).refused());
  for (const json& spelt : {json("0200000000"), json(200000000), json(""), json(" 200000000"),
                            json("200000000 "), json("+200000000"), json("2e8")}) {
    auto other = q;
    json asked = body;
    asked["amountX"] = spelt;
    other.intent_json = asked.dump();
    const auto r = review(other, policy);
    EXPECT_TRUE(has(r.refusals, "intent.amount")) << spelt.dump() << "\n" << listed(r.refusals);
  }

  const auto swap = build("aggregator/swap", swap_body());
  const auto swap_policy = demo_policy(swap);
  ASSERT_FALSE(review(swap, swap_policy).refused());
  for (const json& spelt : {json("05000000"), json(5000000), json("")}) {
    auto other = swap;
    json asked = swap_body();
    asked["amount"] = spelt;
    other.intent_json = asked.dump();
    EXPECT_TRUE(review(other, swap_policy).refused()) << spelt.dump();
  }
}

// A build resumed at cursorBinId must cover the bins from the cursor on and deposit no more than
// their share: an online half that answers a resume with the whole batch again, or with the
// rest of the bins at the full amounts, would fund the done ranges twice.
TEST_F(ReviewTest, AResumedBatchMayDepositOnlyTheShareLeft) {
  json body = {{"vault", kVault},    {"lbPair", kSolUsdcPool},   {"lowerBinId", 4800},
               {"upperBinId", 5000}, {"amountX", "200000001"},   {"amountY", "30000000"},
               {"shape", "spot"},    {"maxActiveBinSlippage", 5}};
  const auto whole = build("dlmm/open", body);
  json resumed_body = body;
  resumed_body["cursorBinId"] = 4870;
  const auto resumed = build("dlmm/open", resumed_body);
  ASSERT_EQ(resumed.steps.size(), 2U);
  const auto policy = demo_policy(resumed);
  const auto honest = review(resumed, policy);
  EXPECT_FALSE(honest.refused()) << listed(honest.refusals);

  auto again = whole;  // the whole batch, presented as the resumed build
  again.intent_json = resumed_body.dump();
  EXPECT_TRUE(has(review(again, demo_policy(again)).refusals, "intent.bins"));

  json rest_body = body;  // bins 4870-4999 carrying the whole amounts
  rest_body["lowerBinId"] = 4870;
  auto full = build("dlmm/open", rest_body);
  full.intent_json = resumed_body.dump();
  const auto r = review(full, demo_policy(full));
  EXPECT_TRUE(has(r.refusals, "intent.amount")) << listed(r.refusals);
  EXPECT_FALSE(has(r.refusals, "intent.bins")) << "the bins are right; the amounts are not";

  json outside = resumed_body;
  outside["cursorBinId"] = 4800;  // the first bin: nothing was done, so no cursor either
  auto first = whole;
  first.intent_json = outside.dump();
  EXPECT_TRUE(has(review(first, demo_policy(first)).refusals, "intent.bins"));
}

TEST_F(ReviewTest, AMinimumOutBelowTheQuoteLessSlippageIsRefused) {
  const auto q = build("aggregator/swap", swap_body());
  const auto policy = demo_policy(q);
  ASSERT_FALSE(review(q, policy).refused());
  auto lowered = q;
  auto tx = parse_transaction(lowered.steps.back().transaction);
  ASSERT_TRUE(tx.ok());
  // aggregator_swap data: discriminator, source and destination mints, amount, minimum_out.
  auto& data = tx->message.instructions.back().data;
  ASSERT_GE(data.size(), 88U);
  std::fill(data.begin() + 80, data.begin() + 88, std::uint8_t{0});
  lowered.steps.back().transaction = serialize_transaction(*tx);
  const auto r = review(lowered, policy);
  EXPECT_TRUE(has(r.refusals, "intent.minimum_out")) << listed(r.refusals);
}

TEST_F(ReviewTest, AlteredBytesAreRefused) {
  const auto q = build("aggregator/swap", swap_body());
  auto truncated = q;
  truncated.steps.back().transaction.resize(truncated.steps.back().transaction.size() / 2);
  EXPECT_TRUE(has(review(truncated, demo_policy(q)).refusals, "policy.unparsable"));
}

PublicKey key_of(std::string_view base58) { return public_key_from_base58(base58).value(); }

// One request per rule, each made from an honest vault/update build by changing exactly what
// the rule is about; each must be refused (or warned) by that rule's code.
TEST_F(ReviewTest, EachRuleRefusesItsOwnTamperedRequest) {
  const json body = {{"vault", kVault}, {"depositCap", "20000000000000"}};
  const auto honest = build("vault/update", body);
  const auto policy = demo_policy(honest);
  ASSERT_FALSE(review(honest, policy).refused()) << listed(review(honest, policy).refusals);
  const Transaction tx = parse_transaction(honest.steps[0].transaction).value();
  ASSERT_TRUE(tx.message.lookups.empty());
  const PublicKey manager = manager_->public_key();
  const PublicKey stranger = key_of(kOtherVault);
  const Keypair cosigner = Keypair::from_seed(Bytes(32, 7)).value();
  const Hash blockhash = tx.message.recent_blockhash;

  // Recompiles the step from (changed) instructions, optionally with another fee payer and
  // lookup tables, and wraps it in a copy of the honest request.
  const auto with = [&](std::vector<Instruction> ixs, const PublicKey& payer,
                        std::vector<LoadedTable> tables = {}) {
    auto m = compile_v0_message(payer, ixs, blockhash, tables);
    EXPECT_TRUE(m.ok()) << m.error().to_string();
    auto q = honest;
    q.steps[0].transaction = serialize_transaction(unsigned_transaction(std::move(m).value()));
    return q;
  };
  const auto ixs = decompile(tx.message);
  const Instruction& vault_ix = ixs.back();
  struct Case {
    const char* name;
    envelope::SignRequest request;
    const char* code;
    bool warning = false;
  };
  std::vector<Case> cases;

  // The fee payer is someone else; the manager still signs, in another slot.
  cases.push_back({"fee payer", with(ixs, stranger), "policy.fee_payer"});
  cases.push_back({"signer slot", with(ixs, stranger), "policy.signer_slot"});

  // A durable nonce advanced first: refused by default.
  auto nonce_ixs = ixs;
  Bytes advance = {4, 0, 0, 0};
  nonce_ixs.insert(nonce_ixs.begin(),
                   Instruction{key_of(programs::kSystem),
                               {{stranger, false, true},
                                {key_of(programs::kSysvarRecentBlockhashes), false, false},
                                {manager, true, false}},
                               advance});
  cases.push_back({"durable nonce", with(nonce_ixs, manager), "policy.durable_nonce"});

  // Another signer the offline half holds no key for.
  auto cosigned = ixs;
  cosigned.back().accounts.push_back({cosigner.public_key(), true, false});
  cases.push_back({"missing signature", with(cosigned, manager), "policy.missing_signature"});

  // That signer's slot filled with a signature that does not verify.
  auto presigned = with(cosigned, manager);
  {
    auto t = parse_transaction(presigned.steps[0].transaction).value();
    t.signatures[1] = cosigner.sign(Bytes{1, 2, 3});  // over other bytes
    presigned.steps[0].transaction = serialize_transaction(t);
  }
  cases.push_back({"invalid presignature", presigned, "policy.invalid_presignature"});

  // The vault account reached through a lookup table instead of as a static key.
  const LoadedTable table{key_of("8cGAuKv4FsExxYQE3XZUSGydbig6t2o28E3iSppYi1ht"), {key_of(kVault)}};
  auto via_table = with(ixs, manager, {table});
  auto pinned = policy;
  pinned.pinned_tables.push_back(table);
  cases.push_back({"vault not static", via_table, "policy.vault_not_static"});

  // Instruction data no IDL entry describes.
  auto garbled = ixs;
  garbled.back().data[0] ^= 0xff;
  cases.push_back({"undecodable", with(garbled, manager), "policy.undecodable"});

  // A second vault instruction smuggled into the step.
  auto doubled = ixs;
  doubled.push_back(vault_ix);
  cases.push_back({"two vault instructions", with(doubled, manager), "intent.instruction"});

  // A transfer out of the manager's own account, with System allowed: a warning, not silence.
  auto drained = ixs;
  Bytes transfer = {2, 0, 0, 0, 0x00, 0xe1, 0xf5, 0x05, 0, 0, 0, 0};  // 1 SOL
  drained.insert(drained.begin(), Instruction{key_of(programs::kSystem),
                                              {{manager, true, true}, {stranger, false, true}},
                                              transfer});
  cases.push_back(
      {"transfer from manager", with(drained, manager), "warn.transfer_from_manager", true});

  for (const auto& c : cases) {
    auto p = std::string(c.name) == "vault not static" ? pinned : policy;
    if (c.warning) p.programs.insert(key_of(programs::kSystem));
    const auto r = review(c.request, p);
    EXPECT_TRUE(has(c.warning ? r.warnings : r.refusals, c.code))
        << c.name << ": expected " << c.code << "\nrefusals:\n"
        << listed(r.refusals) << "warnings:\n"
        << listed(r.warnings);
  }

  // Allowed by the policy, a durable nonce still warns: the transaction never expires.
  auto nonce_allowed = policy;
  nonce_allowed.allow_durable_nonce = true;
  nonce_allowed.programs.insert(key_of(programs::kSystem));
  const auto r = review(with(nonce_ixs, manager), nonce_allowed);
  EXPECT_FALSE(has(r.refusals, "policy.durable_nonce"));
  EXPECT_TRUE(has(r.warnings, "warn.durable_nonce")) << listed(r.warnings);
}

}  // namespace
}  // namespace airlock::apisim::test
