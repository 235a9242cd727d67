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

}  // namespace
}  // namespace airlock::offline
