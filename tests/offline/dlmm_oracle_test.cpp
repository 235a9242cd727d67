// The DLMM deposit pictures (offline/src/bins.cpp) against an independent implementation:
// tests/oracle/dlmm_vectors.mjs (run by ctest just before this program) asks @meteora-ag/dlmm's
// toAmountsBothSideByStrategy how each of 702 deposits spreads its X and Y over the bins. Here
// each deposit's picture must give X and Y to exactly the bins the SDK gives them to, and each
// bin's bar must be the same share of the token's value: the SDK's Y amount, or its X amount
// times the bin's price (the picture cannot know the pool's bin step, so it shows value).
#include <cmath>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <airlock/offline/bins.h>

namespace airlock::offline {
namespace {

using ojson = nlohmann::ordered_json;

ojson vectors() {
  std::ifstream in(AIRLOCK_DLMM_VECTORS);
  EXPECT_TRUE(in) << "no oracle vectors at " << AIRLOCK_DLMM_VECTORS
                  << " (ctest runs DlmmOracle.Vectors first; it needs tests/oracle/node_modules)";
  return ojson::parse(in, nullptr, false);
}

Decoded deposit_of(const ojson& v) {
  Decoded d;
  d.program = "airlock_vault";
  d.instruction = "dlmm_add";
  d.args = {
      {"amount_x", v["amount_x"]},
      {"amount_y", v["amount_y"]},
      {"active_id", v["active"]},
      {"max_active_bin_slippage", 5},
      {"strategy",
       {{"min_bin_id", v["min"]}, {"max_bin_id", v["max"]}, {"shape", {{"variant", v["shape"]}}}}}};
  return d;
}

// Each bin's share of the whole; empty when nothing is there.
std::vector<long double> shares(const std::vector<long double>& values) {
  long double sum = 0;
  for (long double v : values) sum += v;
  if (sum == 0) return {};
  std::vector<long double> out;
  for (long double v : values) out.push_back(v / sum);
  return out;
}

std::vector<long double> as_values(const std::vector<std::uint64_t>& weights) {
  return {weights.begin(), weights.end()};
}

void expect_same_spread(const std::vector<long double>& sdk, const std::vector<long double>& ours,
                        std::int64_t first_bin, const char* token) {
  const auto sdk_shares = shares(sdk);
  const auto our_shares = shares(ours);
  ASSERT_EQ(sdk_shares.empty(), our_shares.empty())
      << token
      << (sdk_shares.empty() ? ": the SDK deposits none, the picture draws some"
                             : ": the SDK deposits some, the picture draws none");
  for (std::size_t i = 0; i < sdk_shares.size(); ++i) {
    const auto bin = first_bin + static_cast<std::int64_t>(i);
    EXPECT_EQ(sdk[i] > 0, ours[i] > 0) << token << " at bin " << bin;
    EXPECT_NEAR(static_cast<double>(sdk_shares[i]), static_cast<double>(our_shares[i]), 1e-9)
        << token << "'s share at bin " << bin;
  }
}

TEST(DlmmOracle, EveryDepositPutsTheSameShareOfEachTokenInTheSameBins) {
  const ojson all = vectors();
  ASSERT_TRUE(all.is_object() && all["vectors"].is_array());
  std::set<std::string> shapes;
  std::size_t active_outside = 0, stranded = 0;
  for (const auto& v : all["vectors"]) {
    const std::int64_t first = v["min"], last = v["max"], active = v["active"];
    SCOPED_TRACE(v["shape"].get<std::string>() + " bins " + std::to_string(first) + ".." +
                 std::to_string(last) + " active " + std::to_string(active) + " x " +
                 v["amount_x"].get<std::string>() + " y " + v["amount_y"].get<std::string>());
    const auto picture = bin_picture(deposit_of(v));
    ASSERT_TRUE(picture.has_value());
    ASSERT_EQ(picture->first_bin, first);
    ASSERT_EQ(picture->last_bin, last);

    std::vector<long double> sdk_x, sdk_y;
    for (const auto& b : v["bins"]) {
      sdk_x.push_back(std::stold(b["x"].get<std::string>()) * b["price"].get<long double>());
      sdk_y.push_back(std::stold(b["y"].get<std::string>()));
    }
    const std::size_t bins = sdk_x.size();
    ASSERT_EQ(bins, static_cast<std::size_t>(last - first + 1));
    // A token not deposited is not drawn at all; one deposited is drawn over every bin.
    const auto drawn = [bins](const std::vector<std::uint64_t>& w) {
      return w.empty() ? std::vector<long double>(bins, 0) : as_values(w);
    };
    ASSERT_TRUE(picture->x.empty() || picture->x.size() == bins);
    ASSERT_TRUE(picture->y.empty() || picture->y.size() == bins);
    expect_same_spread(sdk_x, drawn(picture->x), first, "X");
    expect_same_spread(sdk_y, drawn(picture->y), first, "Y");

    // An amount the SDK puts in no bin is said in words.
    const auto none = [](const std::vector<long double>& s) { return shares(s).empty(); };
    EXPECT_EQ(picture->x_stranded, v["amount_x"] != "0" && none(sdk_x));
    EXPECT_EQ(picture->y_stranded, v["amount_y"] != "0" && none(sdk_y));
    shapes.insert(v["shape"].get<std::string>());
    active_outside += (active < first || active > last) ? 1U : 0U;
    stranded += (picture->x_stranded || picture->y_stranded) ? 1U : 0U;
  }
  EXPECT_EQ(shapes, (std::set<std::string>{"Spot", "Curve", "BidAsk"}));
  EXPECT_GE(all["vectors"].size(), 702U);
  EXPECT_GT(active_outside, 0U) << "no deposit with the active bin outside its range";
  EXPECT_GT(stranded, 0U) << "no deposit whose token has nowhere to go";
}

}  // namespace
}  // namespace airlock::offline
