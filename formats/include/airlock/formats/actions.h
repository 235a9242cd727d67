// The Manager Bot API's 28 builder actions (spec part 1), in the spec's order: the values a
// sign request's action may take. Both halves know them: the online half offers their fields as
// flags, the offline half refuses any other.
#pragma once

#include <array>
#include <string_view>

namespace airlock {

inline constexpr std::array<std::string_view, 28> kBuilderActions = {"aggregator/initialize",
                                                                     "aggregator/swap",
                                                                     "aggregator/sweep",
                                                                     "dlmm/initialize",
                                                                     "dlmm/open",
                                                                     "dlmm/add",
                                                                     "dlmm/remove",
                                                                     "dlmm/flip",
                                                                     "dlmm/claim-fee",
                                                                     "dlmm/zap-out",
                                                                     "dlmm/close",
                                                                     "dlmm/extend",
                                                                     "dlmm/add-range",
                                                                     "dlmm/zap-out/swap",
                                                                     "dlmm/limit-order/place",
                                                                     "dlmm/limit-order/cancel",
                                                                     "perp/initialize",
                                                                     "perp/onboard",
                                                                     "perp/deposit",
                                                                     "perp/withdraw",
                                                                     "perp/order",
                                                                     "perp/cancel",
                                                                     "perp/sweep",
                                                                     "vault/initialize",
                                                                     "vault/update",
                                                                     "vault/claim-fee",
                                                                     "vault/close",
                                                                     "strategy/close"};

}  // namespace airlock
