// The price rule (offline/src/prices.cpp) tested directly: exact comparison at the floor, the
// warnings when nothing prices a swap, and amounts at the edges of 64 bits and 18 decimals.
#include <gtest/gtest.h>

#include <airlock/offline/prices.h>

namespace airlock::offline {
namespace {

PublicKey key(std::uint8_t n) {
  PublicKey k{};
  k.bytes[0] = n;
  return k;
}

struct Fixture {
  PinnedToken usdc{key(1), "USDC", 6};
  PinnedToken jup{key(2), "JUP", 6};
  PinnedToken heavy{key(3), "HVY", 18};
  Policy policy;

  void floor(const PinnedToken& sells, const PinnedToken& buys, std::uint64_t numerator,
             std::uint8_t scale, std::string text) {
    PriceFloor f;
    f.sells = sells;
    f.buys = buys;
    f.numerator = numerator;
    f.scale = scale;
    f.text = std::move(text);
    policy.price_floors.push_back(std::move(f));
  }

  Fixture() { policy.tokens = {usdc, jup, heavy}; }

  TemplateFindings judge(const PinnedToken& sells, const PinnedToken& buys,
                         std::optional<std::uint64_t> spends,
                         std::optional<std::uint64_t> guaranteed) {
    TemplateFindings out;
    judge_price(policy, SwapTerms{sells.mint, buys.mint, spends, guaranteed, {}}, "swap", out);
    return out;
  }
};

bool refused(const TemplateFindings& f) {
  return f.refusals.size() == 1 && f.refusals[0].code == "policy.price_floor" && f.warnings.empty();
}
bool unpriced(const TemplateFindings& f) {
  return f.refusals.empty() && f.warnings.size() == 1 && f.warnings[0].code == "warn.unpriced";
}
bool clean(const TemplateFindings& f) { return f.refusals.empty() && f.warnings.empty(); }

TEST(Prices, TheFloorIsComparedExactly) {
  Fixture x;
  x.floor(x.usdc, x.jup, 12400186, 7, "1.2400186");
  // 5 USDC for 6.200093 JUP is 1.2400186 JUP per USDC exactly.
  EXPECT_TRUE(clean(x.judge(x.usdc, x.jup, 5'000'000, 6'200'093)));
  EXPECT_TRUE(refused(x.judge(x.usdc, x.jup, 5'000'000, 6'200'092)));
  EXPECT_TRUE(refused(x.judge(x.usdc, x.jup, 5'000'001, 6'200'093)));
  const auto f = x.judge(x.usdc, x.jup, 5'000'000, 1'000'000);
  ASSERT_TRUE(refused(f));
  EXPECT_EQ(f.refusals[0].message,
            "swap: the swap guarantees at least 1 JUP for 5 USDC, 0.2 JUP per USDC: below the "
            "policy's floor of 1.2400186 JUP per USDC");
}

TEST(Prices, ASwapNothingHerePricesWarns) {
  Fixture x;
  x.floor(x.usdc, x.jup, 11, 1, "1.1");
  EXPECT_TRUE(unpriced(x.judge(x.jup, x.usdc, 1'000'000, 1))) << "a floor prices one direction";
  PinnedToken stranger{key(9), "ZZZ", 6};
  EXPECT_TRUE(unpriced(x.judge(stranger, x.jup, 1'000'000, 1'000'000))) << "an unpinned token";
  EXPECT_TRUE(unpriced(x.judge(x.usdc, stranger, 1'000'000, 1'000'000)));
  EXPECT_TRUE(unpriced(x.judge(x.usdc, x.jup, std::nullopt, 2'000'000))) << "no amount spent";
  EXPECT_TRUE(unpriced(x.judge(x.usdc, x.jup, 0, 2'000'000)));
  // No guarantee at all is intent.minimum_out's refusal, not this rule's.
  EXPECT_TRUE(clean(x.judge(x.usdc, x.jup, 1'000'000, std::nullopt)));
}

TEST(Prices, AmountsAtTheEdgesDoNotOverflow) {
  Fixture x;
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  // 10^-24 HVY per USDC at most 24 places; the largest amounts on both sides.
  x.floor(x.usdc, x.heavy, 1, 24, "0.000000000000000000000001");
  EXPECT_TRUE(clean(x.judge(x.usdc, x.heavy, kMax, kMax)));
  EXPECT_TRUE(refused(x.judge(x.usdc, x.heavy, kMax, 1)));
  // 19 significant digits of floor, an 18-decimal token sold.
  x.floor(x.heavy, x.usdc, 9'999'999'999'999'999'999ULL, 0, "9999999999999999999");
  EXPECT_TRUE(refused(x.judge(x.heavy, x.usdc, 1'000'000'000'000'000'000ULL, kMax)));
  EXPECT_TRUE(clean(x.judge(x.heavy, x.usdc, 1, kMax)));
}

TEST(Prices, ThePriceIsShownRoundedDown) {
  EXPECT_EQ(whole_price(6'200'093, 6, 5'000'000, 6), "1.2400186");
  EXPECT_EQ(whole_price(2, 6, 3, 6), "0.66666666");  // 8 significant digits, rounded down
  EXPECT_EQ(whole_price(148'802'250, 6, 1'000'000'000, 9), "148.80225");
  EXPECT_EQ(whole_price(1, 0, 0, 0), "0");
  EXPECT_EQ(whole_price(0, 6, 5, 6), "0");
  EXPECT_EQ(route_guarantee(6'231'250, 50), 6'200'093U);
  EXPECT_EQ(route_guarantee(100, 10'001), std::nullopt);
  EXPECT_EQ(route_guarantee(std::nullopt, 50), std::nullopt);
}

}  // namespace
}  // namespace airlock::offline
