// Token amounts for people: base units (the integers in transactions and the API) shown as
// whole tokens, exactly, with no floating point.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace airlock {

// The one rule for an amount in base units wherever one is read: the API's BaseUnitAmount, an
// intent's amount, a decoded 64-bit argument, an audit log's outflow. One or more ASCII digits,
// no sign, no spaces, no leading zero unless the amount is "0", at most 18446744073709551615.
// Anything else is nullopt, so "" is never read as zero and "010" never as ten.
[[nodiscard]] std::optional<std::uint64_t> parse_base_units(std::string_view text);

// "6200093" with 6 decimals is "6.200093"; "5000000" is "5". Input that is not a plain
// non-negative decimal integer, or decimals outside 0..30, comes back unchanged.
[[nodiscard]] std::string whole_units(const std::string& base_units, int decimals);

}  // namespace airlock
