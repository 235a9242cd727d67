// DLMM pictures: which bins get which token and how much, drawn in the terminal and as SVG.
// The drawings are compared with golden files in tests/data/bins (AIRLOCK_UPDATE_GOLDEN=1
// rewrites them after a deliberate change); the numbers under them are checked by rule.
#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/display.h>
#include <airlock/offline/bins.h>

#include "support/helpers.h"

namespace airlock::offline {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ojson = nlohmann::ordered_json;

Decoded deposit(const char* instruction, std::int64_t lo, std::int64_t hi, std::int64_t active,
                const char* shape, const char* x = "1000", const char* y = "1000") {
  Decoded d;
  d.program = "airlock_vault";
  d.instruction = instruction;
  d.args = {
      {"amount_x", x},
      {"amount_y", y},
      {"active_id", active},
      {"max_active_bin_slippage", 5},
      {"strategy", {{"min_bin_id", lo}, {"max_bin_id", hi}, {"shape", {{"variant", shape}}}}}};
  return d;
}

Decoded limit_order(const char* side, const ojson& bins) {
  Decoded d;
  d.program = "airlock_vault";
  d.instruction = "dlmm_limit_order_place";
  d.args = {{"side", {{"variant", side}}}, {"bins", bins}};
  return d;
}

Decoded ranged(const char* instruction, std::int64_t from, std::int64_t to, const ojson& extra) {
  Decoded d;
  d.program = "airlock_vault";
  d.instruction = instruction;
  d.args = {{"from_bin_id", from}, {"to_bin_id", to}};
  for (const auto& [k, v] : extra.items()) d.args[k] = v;
  return d;
}

std::string drawn(const Decoded& d, const char* x = "X SOL", const char* y = "Y USDC") {
  const auto p = bin_picture(d);
  EXPECT_TRUE(p.has_value()) << d.instruction;
  return p ? draw_bins_text(*p, "  ", x, y) : std::string();
}

// As Meteora's strategies spread a deposit (DlmmOracle.* checks 702 of them against the SDK):
// Y at and below the active bin and X above it, and X at the active bin too when no Y is added.
TEST(BinPicture, ShapesPutYAtAndBelowTheActiveBinAndXAbove) {
  for (const char* shape : {"Spot", "Curve", "BidAsk"}) {
    const auto p = bin_picture(deposit("dlmm_open", 100, 120, 110, shape));
    ASSERT_TRUE(p.has_value()) << shape;
    ASSERT_EQ(p->x.size(), 21U);
    ASSERT_EQ(p->y.size(), 21U);
    for (std::size_t i = 0; i < 21; ++i) {
      const auto bin = 100 + static_cast<std::int64_t>(i);
      EXPECT_EQ(p->x[i] > 0, bin > 110) << shape << " X at bin " << bin;
      EXPECT_EQ(p->y[i] > 0, bin <= 110) << shape << " Y at bin " << bin;
    }
    const auto top_x = std::max_element(p->x.begin(), p->x.end()) - p->x.begin();
    const auto top_y = std::max_element(p->y.begin(), p->y.end()) - p->y.begin();
    if (std::string(shape) == "Curve") {
      EXPECT_EQ(top_x, 11) << "a curve is highest next to the active bin";
      EXPECT_EQ(top_y, 10);
      EXPECT_EQ(p->x[20], 1U) << "and 1 at the far end";
      EXPECT_EQ(p->y[0], 1U);
    } else if (std::string(shape) == "BidAsk") {
      EXPECT_EQ(top_x, 20) << "a bid-ask is highest at the edges";
      EXPECT_EQ(top_y, 0);
      EXPECT_EQ(p->x[11], 1U) << "and 1 next to the active bin";
      EXPECT_EQ(p->y[10], 1U);
    } else {
      EXPECT_EQ(p->x[11], p->x[20]) << "spot is even";
    }
    const auto x_only = bin_picture(deposit("dlmm_open", 100, 120, 110, shape, "1000", "0"));
    ASSERT_TRUE(x_only.has_value());
    EXPECT_GT(x_only->x[10], 0U) << shape << ": with no Y, X fills the active bin too";
    EXPECT_TRUE(x_only->y.empty());
  }
}

// With the active bin outside the range, the whole range holds the token of that side, the
// curve highest at the end nearer the active bin and the bid-ask 1 there.
TEST(BinPicture, ARangeBesideTheActiveBinHoldsOneTokenShapedFromItsNearEnd) {
  const auto curve = bin_picture(deposit("dlmm_add", 10, 14, 0, "Curve"));
  ASSERT_TRUE(curve.has_value());
  EXPECT_EQ(curve->x, (std::vector<std::uint64_t>{5, 4, 3, 2, 1}));
  EXPECT_TRUE(curve->y_stranded);
  const auto bid_ask = bin_picture(deposit("dlmm_add", 10, 14, 0, "BidAsk"));
  ASSERT_TRUE(bid_ask.has_value());
  EXPECT_EQ(bid_ask->x, (std::vector<std::uint64_t>{1, 2, 3, 4, 5}))
      << "the bid-ask starts at 1 in the nearest bin, however far the active bin is";
  const auto below = bin_picture(deposit("dlmm_add", 10, 14, 20, "BidAsk"));
  ASSERT_TRUE(below.has_value());
  EXPECT_EQ(below->y, (std::vector<std::uint64_t>{5, 4, 3, 2, 1}));
  EXPECT_TRUE(below->x_stranded);
}

TEST(BinPicture, EachKindDrawsAsTheGoldenFile) {
  std::string all;
  all += "curve, active in the middle\n" + drawn(deposit("dlmm_open", 4990, 5010, 5000, "Curve"));
  all += "\nbid-ask, only Y\n" +
         drawn(deposit("dlmm_add", 4980, 5000, 5000, "BidAsk", "0", "5000000"));
  all += "\nspot, X asked but every bin below the active bin\n" +
         drawn(deposit("dlmm_add_range", 4900, 4909, 5000, "Spot", "10", "10"));
  all += "\nlimit order, exact amounts with a gap\n" +
         drawn(limit_order("Ask", {{{"bin_id", 5001}, {"amount", "100"}},
                                   {{"bin_id", 5002}, {"amount", "400"}},
                                   {{"bin_id", 5005}, {"amount", "800"}}}));
  all += "\nremoval of 25.5%\n" + drawn(ranged("dlmm_remove", 10, 29, {{"bps_to_remove", 2550}}));
  all += "\nflip below the active bin\n" +
         drawn(ranged("dlmm_flip", 90, 99, {{"active_id", 100}, {"max_active_bin_slippage", 3}}));
  ojson wide = ojson::array();
  for (int b = 0; b < 200; ++b) wide.push_back({{"bin_id", -100 + b}, {"amount", "7"}});
  all +=
      "\nlimit order over 200 bins, three per column\n" + drawn(limit_order("Bid", wide), "X", "Y");
  test::expect_golden("bins/pictures.txt", all);

  const auto curve = bin_picture(deposit("dlmm_open", 4990, 5010, 5000, "Curve"));
  ASSERT_TRUE(curve.has_value());
  test::expect_golden("bins/curve.svg", draw_bins_svg(*curve, "X SOL", "Y USDC"));
}

TEST(BinPicture, AStrandedAmountIsSaidNotHidden) {
  const auto p = bin_picture(deposit("dlmm_add_range", 4900, 4909, 5000, "Spot", "10", "10"));
  ASSERT_TRUE(p.has_value());
  EXPECT_TRUE(p->x_stranded) << "X goes above the active bin; every bin here is below it";
  EXPECT_FALSE(p->y_stranded);
  EXPECT_THAT(draw_bins_text(*p, "", "X", "Y"), HasSubstr("no bin here is on its side"));
  EXPECT_THAT(draw_bins_svg(*p, "X", "Y"), HasSubstr("no bin here is on its side"));
}

// Found by an independent review: a hinted symbol with combining marks or wide characters
// shifted its row, so X's bars seemed to start on the other side of the active bin.
TEST(BinPicture, RowsStayAlignedWhateverTheLabels) {
  const auto p = bin_picture(deposit("dlmm_open", 1, 9, 5, "Spot"));
  ASSERT_TRUE(p.has_value());
  for (const std::string& x : {std::string("X BONK\u0301\u0301\u0301\u0301\u0301"),
                               std::string("X \u65e5\u672c\u5186"), std::string("X")}) {
    const std::string text = draw_bins_text(*p, "", x, "Y USDC");
    std::istringstream lines(text);
    std::optional<std::size_t> bar_column;
    for (std::string line; std::getline(lines, line);) {
      const auto bar = line.find('|');
      if (bar == std::string::npos) continue;
      const std::size_t column = display_width(line.substr(0, bar));
      if (!bar_column) bar_column = column;
      EXPECT_EQ(column, *bar_column) << x << "\n" << text;
    }
    EXPECT_TRUE(bar_column.has_value());
  }
}

// A step's 70 bins drawn one column each under the summary's 12-column indent were 92 columns
// wide: an 80-column terminal wrapped every bar row (issue 32, F5). Every kind, every width,
// whatever the tokens' names: no line of the picture is wider than 80 columns.
TEST(BinPicture, EveryLineFitsEightyColumns) {
  ojson wide = ojson::array();
  for (int b = 0; b < 200; ++b) wide.push_back({{"bin_id", -100 + b}, {"amount", "7"}});
  const std::vector<Decoded> cases = {
      deposit("dlmm_open", 4930, 4999, 4960, "Spot"),
      deposit("dlmm_add", 4930, 4999, 5100, "Curve"),
      deposit("dlmm_add_range", -443636, -443567, 0, "BidAsk", "10", "10"),
      limit_order("Bid", wide),
      ranged("dlmm_remove", 4930, 4999, {{"bps_to_remove", 2550}}),
      ranged("dlmm_flip", -443636, -443567,
             {{"active_id", -443500}, {"max_active_bin_slippage", 3}}),
      deposit("dlmm_open", 1, 9, 5, "Spot")};
  for (const auto& d : cases) {
    const auto p = bin_picture(d);
    ASSERT_TRUE(p.has_value()) << d.instruction;
    const std::string text = draw_bins_text(*p, "            ", "X BONKBONKBONK", "Y USDC");
    std::istringstream lines(text);
    std::size_t bars = 0;
    for (std::string line; std::getline(lines, line);) {
      EXPECT_LE(display_width(line), 80U) << d.instruction << ":\n" << text;
      if (line.find('|') != std::string::npos) ++bars;
    }
    EXPECT_GE(bars, 2U) << text;
  }
  // A narrow picture keeps the indentation of the lines around it.
  const auto narrow = bin_picture(deposit("dlmm_open", 1, 9, 5, "Spot"));
  ASSERT_TRUE(narrow.has_value());
  EXPECT_THAT(draw_bins_text(*narrow, "            ", "X SOL", "Y USDC"),
              HasSubstr("\n              X |"));
}

TEST(BinPicture, AFlipIsItsShapeAndARemovalOverTheWholeIsDrawnFull) {
  const auto across = bin_picture(
      ranged("dlmm_flip", 95, 105, {{"active_id", 100}, {"max_active_bin_slippage", 3}}));
  ASSERT_TRUE(across.has_value());
  ASSERT_EQ(across->out.size(), 11U);
  EXPECT_EQ(across->out[5], 1U) << "bid-ask: lowest at the active bin";
  EXPECT_EQ(across->out[0], 6U);
  EXPECT_EQ(across->out[10], 6U);
  EXPECT_THAT(draw_bins_text(*across, "", "X", "Y"), HasSubstr("re-add |"));
  const auto over = bin_picture(ranged("dlmm_remove", 0, 3, {{"bps_to_remove", 65535}}));
  ASSERT_TRUE(over.has_value());
  const std::string svg = draw_bins_svg(*over, "X", "Y");
  EXPECT_THAT(svg, Not(HasSubstr("y=\"-"))) << "no bar above the pane";
}

TEST(BinPicture, LabelsFromOutsideCannotOpenMarkup) {
  const auto p = bin_picture(deposit("dlmm_open", 1, 5, 3, "Spot"));
  ASSERT_TRUE(p.has_value());
  const std::string svg = draw_bins_svg(*p, "X <script>alert(1)</script>", "Y \"onload=\"x");
  EXPECT_THAT(svg, Not(HasSubstr("<script")));
  EXPECT_THAT(svg, Not(HasSubstr("\"onload")));
  EXPECT_THAT(svg, HasSubstr("&lt;script&gt;"));
}

TEST(BinPicture, WhatCannotBeDrawnIsNotDrawn) {
  EXPECT_FALSE(bin_picture(deposit("dlmm_open", 10, 9, 10, "Spot"))) << "an empty range";
  EXPECT_FALSE(bin_picture(deposit("dlmm_open", 0, kMaxPictureBins, 10, "Spot")))
      << "wider than a position can be";
  EXPECT_FALSE(bin_picture(deposit("dlmm_open", -443636, 443636, 0, "Spot")));
  EXPECT_FALSE(bin_picture(deposit("dlmm_open", 0, 10, 5, "Sideways"))) << "an unknown shape";
  Decoded other = deposit("dlmm_open", 0, 10, 5, "Spot");
  other.program = "meteora_dlmm";
  EXPECT_FALSE(bin_picture(other)) << "only the vault program's instructions";
  EXPECT_FALSE(bin_picture(limit_order("Ask", ojson::array()))) << "no bins";
  EXPECT_FALSE(bin_picture(limit_order("Ask", {{{"bin_id", 1}, {"amount", "-5"}}})));
  EXPECT_FALSE(bin_picture(limit_order(
      "Ask", {{{"bin_id", -400000}, {"amount", "1"}}, {{"bin_id", 400000}, {"amount", "1"}}})))
      << "bins too far apart to draw";
  EXPECT_FALSE(bin_picture(ranged("dlmm_remove", 0, 5, {{"bps_to_remove", "x"}})));
  Decoded swap;
  swap.program = "airlock_vault";
  swap.instruction = "aggregator_swap";
  EXPECT_FALSE(bin_picture(swap));
}

TEST(BinPicture, AmountsNearTheTopOfSixtyFourBitsDoNotWrap) {
  const auto p =
      bin_picture(limit_order("Bid", {{{"bin_id", 1}, {"amount", "18446744073709551615"}},
                                      {{"bin_id", 1}, {"amount", "18446744073709551615"}},
                                      {{"bin_id", 2}, {"amount", "1"}}}));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->y[0], UINT64_MAX) << "the same bin twice saturates";
  const std::string text = draw_bins_text(*p, "", "X", "Y");
  EXPECT_THAT(text, HasSubstr("|█▁|")) << text;
}

}  // namespace
}  // namespace airlock::offline
