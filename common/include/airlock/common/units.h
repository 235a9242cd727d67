// Token amounts for people: base units (the integers in transactions and the API) shown as
// whole tokens, exactly, with no floating point.
#pragma once

#include <string>

namespace airlock {

// "6200093" with 6 decimals is "6.200093"; "5000000" is "5". Input that is not a plain
// non-negative decimal integer, or decimals outside 0..30, comes back unchanged.
[[nodiscard]] std::string whole_units(const std::string& base_units, int decimals);

}  // namespace airlock
