// Which fields of a manager's body are token amounts, and in which token: read from the
// action's descriptor, so the screens can show the manager's own figures in whole tokens before
// anything is built (an approval) and beside the transactions (the decision screen).
//
// An instruction's stated amount (DescribedAmount) is tied to the body by its argument rule
// (equal to a body field, or each element of a body list) or by the action's step rule (a
// ranged batch's shares of a body total); its unit account is tied to the body when its source
// is a body field (a mint, or a pool whose token X or Y it is), or, for a pool the chain checks
// against the online half's hint, to the one pool the hints name. Anything else has no unit
// here and stays in base units. Nothing here binds: the review does that.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <airlock/offline/descriptor.h>
#include <airlock/offline/review.h>

namespace airlock::offline {

[[nodiscard]] std::vector<BodyAmount> body_amounts(const Descriptor& descriptor,
                                                   const DescribedAction& action,
                                                   const nlohmann::ordered_json& body,
                                                   const std::vector<PublicKey>& hinted_pools);

// With the transactions reviewed: the body fields whose unit account the chain checks rather
// than the body names (a perp deposit's mint is the vault's deposit mint, which the program
// holds the account to), in the unit each step's stated amount (StepReview::amounts) reads from
// its transaction. Fields `amounts` already has a unit for are left as they are.
void add_stated_units(const Descriptor& descriptor, const DescribedAction& action,
                      const nlohmann::ordered_json& body, const std::vector<StepReview>& steps,
                      std::vector<BodyAmount>& amounts);

// The pairs the action's swapping instructions (a descriptor's "swaps") would trade, as far as
// the body names their mints (nullopt for a mint it does not name, e.g. a sweep's deposit mint):
// an approval says before the build whether the policy prices each.
struct BodySwap {
  std::string instruction;
  std::optional<PublicKey> sells, buys;
};
[[nodiscard]] std::vector<BodySwap> body_swaps(const Descriptor& descriptor,
                                               const DescribedAction& action,
                                               const nlohmann::ordered_json& body);

}  // namespace airlock::offline
