// Which fields of a manager's body are token amounts, and in which token (amounts.h), read
// from the shipped descriptor: every way the descriptor ties an amount to the body, and the
// cases where nothing here can say the unit.
#include <gtest/gtest.h>

#include <airlock/offline/amounts.h>
#include <airlock/offline/descriptor.h>
#include <airlock/offline/interfaces.h>

#include "support/helpers.h"
#include "support/interfaces.h"

namespace airlock::offline {
namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kUsdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
constexpr const char* kJup = "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN";
constexpr const char* kPool = "8cGAuKv4FsExxYQE3XZUSGydbig6t2o28E3iSppYi1ht";
constexpr const char* kOtherPool = "5rCf1DM8LjKTw4YqhnoLcngyZYeNnQqztScTogYHAS6";

class BodyAmounts : public ::testing::Test {
 protected:
  void SetUp() override {
    auto checked = check_descriptor_files(test::twin_descriptor_path(), test::idl_dir(), registry_);
    ASSERT_TRUE(checked.ok()) << checked.error().to_string();
    descriptor_ = std::move(checked->descriptor);
  }

  std::vector<BodyAmount> of(const std::string& action, const ojson& body,
                             const std::vector<std::string>& hinted_pools = {}) {
    const DescribedAction* a = descriptor_.action(action);
    EXPECT_NE(a, nullptr) << action;
    if (a == nullptr) return {};
    std::vector<PublicKey> hinted;
    for (const auto& p : hinted_pools) hinted.push_back(public_key_from_base58(p).value());
    return body_amounts(descriptor_, *a, body, hinted);
  }

  static std::string str(const std::vector<BodyAmount>& amounts) {
    std::string out;
    for (const auto& a : amounts) {
      out += a.pointer + " " + to_base58(a.mint_or_pool) +
             (a.side == AmountUnit::Side::kTokenX   ? " X"
              : a.side == AmountUnit::Side::kTokenY ? " Y"
                                                    : "") +
             "; ";
    }
    return out;
  }

  DecoderRegistry registry_;
  Descriptor descriptor_;
};

TEST_F(BodyAmounts, AnEqualFieldTakesTheUnitOfTheMintTheBodyNames) {
  EXPECT_EQ(str(of("aggregator/swap", {{"vault", "x"},
                                       {"sourceMint", kUsdc},
                                       {"destinationMint", kJup},
                                       {"amount", "5000000"},
                                       {"slippageBps", 50}})),
            std::string("/amount ") + kUsdc + "; ");
  // A body whose mint field is no key gives the amount no unit.
  EXPECT_EQ(str(of("aggregator/swap", {{"sourceMint", 7}, {"amount", "5"}})), "");
}

TEST_F(BodyAmounts, ARangedBatchsTotalsTakeThePoolsSides) {
  EXPECT_EQ(str(of("dlmm/open", {{"lbPair", kPool}, {"amountX", "1"}, {"amountY", "2"}})),
            std::string("/amountX ") + kPool + " X; /amountY " + kPool + " Y; ");
}

TEST_F(BodyAmounts, APoolTheChainChecksTakesTheOnlyPoolTheHintsName) {
  const ojson body = {{"position", kJup}, {"amountX", "1"}, {"amountY", "2"}};
  EXPECT_EQ(str(of("dlmm/add", body, {kPool})),
            std::string("/amountX ") + kPool + " X; /amountY " + kPool + " Y; ");
  EXPECT_EQ(str(of("dlmm/add", body, {})), "") << "no hint: no unit";
  EXPECT_EQ(str(of("dlmm/add", body, {kPool, kOtherPool})), "") << "two hints: which one?";
}

TEST_F(BodyAmounts, AListsElementsTakeTheUnitTheirEnumPicks) {
  const ojson bins = {{{"binId", 1}, {"amount", "10"}}, {{"binId", 2}, {"amount", "20"}}};
  EXPECT_EQ(str(of("dlmm/limit-order/place", {{"lbPair", kPool}, {"side", "bid"}, {"bins", bins}})),
            std::string("/bins/0/amount ") + kPool + " Y; /bins/1/amount " + kPool + " Y; ");
  EXPECT_EQ(str(of("dlmm/limit-order/place", {{"lbPair", kPool}, {"side", "ask"}, {"bins", bins}})),
            std::string("/bins/0/amount ") + kPool + " X; /bins/1/amount " + kPool + " X; ");
  EXPECT_EQ(
      str(of("dlmm/limit-order/place", {{"lbPair", kPool}, {"side", "sideways"}, {"bins", bins}})),
      "")
      << "a side no variant maps: no unit";
}

TEST_F(BodyAmounts, AUnitNoBodyFieldNamesLeavesTheAmountInBaseUnits) {
  // The perp deposit's mint is the vault's deposit mint, which the body does not name.
  EXPECT_EQ(str(of("perp/deposit", {{"vault", "x"}, {"amount", "100"}})), "");
  EXPECT_EQ(str(of("perp/deposit", ojson::array())), "") << "a body that is no object";
}

// A perp deposit's mint is no body field: the program holds the account to the vault's deposit
// mint. Once the transactions are reviewed, the body's amount takes the unit its step states
// from that account; never from an account the descriptor leaves unconstrained.
TEST_F(BodyAmounts, ABodyAmountTakesTheUnitItsStepStatesWhereTheChainChecksIt) {
  const DescribedAction* action = descriptor_.action("perp/deposit");
  ASSERT_NE(action, nullptr);
  const DescribedInstruction* ix = descriptor_.instruction("perp_deposit");
  ASSERT_NE(ix, nullptr);
  const ojson body = {{"vault", "x"}, {"amount", "100000000"}};
  EXPECT_EQ(str(of("perp/deposit", body)), "") << "before the build: no unit";
  StepReview s;
  s.tx.message.static_keys = {PublicKey{}, ix->program_id};
  CompiledInstruction compiled;
  compiled.program_index = 1;
  s.tx.message.instructions = {compiled};
  Decoded d;
  d.instruction = ix->instruction;
  s.instructions.emplace_back(d);
  s.amounts.push_back({0, "amount", 100000000, public_key_from_base58(kUsdc).value(),
                       AmountUnit::Side::kKey, "from the vault", "deposit_mint"});
  std::vector<BodyAmount> amounts;
  add_stated_units(descriptor_, *action, body, {s}, amounts);
  EXPECT_EQ(str(amounts), std::string("/amount ") + kUsdc + "; ");
  // A unit the body already has stays; a second step adds nothing new.
  add_stated_units(descriptor_, *action, body, {s, s}, amounts);
  EXPECT_EQ(amounts.size(), 1U);
  // Another program's instruction of the same name states nothing about this body.
  StepReview other = s;
  other.tx.message.static_keys[1] = public_key_from_base58(kJup).value();
  std::vector<BodyAmount> none;
  add_stated_units(descriptor_, *action, body, {other}, none);
  EXPECT_TRUE(none.empty());
  // A unit account the descriptor leaves unconstrained labels nothing.
  for (auto& described : descriptor_.instructions) {
    if (described.key != "perp_deposit") continue;
    for (auto& account : described.accounts) {
      if (account.name == "deposit_mint") account.source.kind = AccountSource::Kind::kUnconstrained;
    }
  }
  add_stated_units(descriptor_, *action, body, {s}, none);
  EXPECT_TRUE(none.empty()) << str(none);
}

}  // namespace
}  // namespace airlock::offline
