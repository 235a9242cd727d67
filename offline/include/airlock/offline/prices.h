// The price rule: what a swap guarantees to receive, held against the policy's price floor for
// its pair ([[price_floors]], docs/policy.md). This machine holds no prices; a floor is the
// manager's own statement of the worst price they accept, and a swap with none is the online
// half's quote alone, which a person must look at.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <airlock/common/bytes.h>
#include <airlock/offline/policy.h>
#include <airlock/offline/review.h>

namespace airlock::offline {

// The route's own floor: its quote less its slippage, as Jupiter enforces it; nullopt when the
// route states no quote or slippage.
[[nodiscard]] std::optional<std::uint64_t> route_guarantee(std::optional<std::uint64_t> quoted,
                                                           std::optional<std::uint64_t> bps);

// Refuses a swap that guarantees less than its pair's floor (policy.price_floor); warns when
// nothing here prices it (warn.unpriced: no floor for the pair, a token not pinned, or a route
// that states no amount). `where` starts each message.
void judge_price(const Policy& policy, const SwapTerms& swap, const std::string& where,
                 TemplateFindings& out);

// `buys` per `sells` in whole units, rounded down to at most `digits` significant digits
// ("1.2376", "0.000019"); "0" when `spends` is zero.
[[nodiscard]] std::string whole_price(std::uint64_t guaranteed, int buy_decimals,
                                      std::uint64_t spends, int sell_decimals, int digits = 8);

}  // namespace airlock::offline
