#include <algorithm>

#include <boost/multiprecision/cpp_int.hpp>

#include <airlock/common/units.h>
#include <airlock/offline/prices.h>

namespace airlock::offline {
namespace {

using Big = boost::multiprecision::cpp_int;

Big pow10(unsigned n) {
  Big out = 1;
  for (unsigned i = 0; i < n; ++i) out *= 10;
  return out;
}

std::string base_text(std::uint64_t base, const PinnedToken& token) {
  return whole_units(std::to_string(base), token.decimals) + " " + token.symbol;
}

}  // namespace

std::optional<std::uint64_t> route_guarantee(std::optional<std::uint64_t> quoted,
                                             std::optional<std::uint64_t> bps) {
  if (!quoted || !bps || *bps > 10'000) return std::nullopt;
  return static_cast<std::uint64_t>(static_cast<unsigned __int128>(*quoted) * (10'000 - *bps) /
                                    10'000);
}

std::string whole_price(std::uint64_t guaranteed, int buy_decimals, std::uint64_t spends,
                        int sell_decimals, int digits) {
  if (spends == 0) return "0";
  // price * 10^kPlaces, rounded down: out * 10^sell / (in * 10^buy)
  constexpr unsigned kPlaces = 30;
  const Big scaled = Big(guaranteed) * pow10(static_cast<unsigned>(sell_decimals) + kPlaces) /
                     (Big(spends) * pow10(static_cast<unsigned>(buy_decimals)));
  std::string text = scaled.str();
  // Keep `digits` significant digits (rounding down: the price is a floor), then place the point.
  const auto first = text.find_first_not_of('0');
  if (first == std::string::npos) return "0";
  for (std::size_t i = first + static_cast<std::size_t>(digits); i < text.size(); ++i)
    text[i] = '0';
  return whole_units(text, static_cast<int>(kPlaces));
}

void judge_price(const Policy& policy, const SwapTerms& swap, const std::string& where,
                 TemplateFindings& out) {
  const PinnedToken* sells = policy.token(swap.sells);
  const PinnedToken* buys = policy.token(swap.buys);
  const PriceFloor* floor = policy.price_floor(swap.sells, swap.buys);
  const auto unpriced = [&](const std::string& why) {
    out.warnings.emplace_back(FindingCode::kWarnUnpriced,
                              where + ": the price is the online half's quote alone (" + why +
                                  "): check the amount out against a price you trust");
  };
  if (sells == nullptr || buys == nullptr) {
    unpriced(std::string(sells == nullptr ? "the token sold" : "the token bought") +
             " is not pinned in [[tokens]]");
    return;
  }
  const std::string pair = sells->symbol + " for " + buys->symbol;
  if (floor == nullptr) {
    unpriced("no [[price_floors]] entry for " + pair);
    return;
  }
  if (!swap.guaranteed) return;  // no floor at all: refused as intent.minimum_out
  if (!swap.spends || *swap.spends == 0) {
    unpriced("the route states no amount it spends, so the floor for " + pair +
             " cannot be applied");
    return;
  }
  // guaranteed / 10^buy >= at_least * spends / 10^sell, at_least = numerator / 10^scale
  const Big lhs = Big(*swap.guaranteed) * pow10(sells->decimals) * pow10(floor->scale);
  const Big rhs = Big(floor->numerator) * Big(*swap.spends) * pow10(buys->decimals);
  if (lhs >= rhs) return;
  out.refusals.emplace_back(
      FindingCode::kPolicyPriceFloor,
      where + ": the swap guarantees at least " + base_text(*swap.guaranteed, *buys) + " for " +
          base_text(*swap.spends, *sells) + ", " +
          whole_price(*swap.guaranteed, buys->decimals, *swap.spends, sells->decimals) + " " +
          buys->symbol + " per " + sells->symbol + ": below the policy's floor of " + floor->text +
          " " + buys->symbol + " per " + sells->symbol);
}

}  // namespace airlock::offline
