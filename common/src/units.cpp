#include <algorithm>
#include <cctype>
#include <limits>

#include <airlock/common/units.h>

namespace airlock {

std::optional<std::uint64_t> parse_base_units(std::string_view text) {
  if (text.empty() || text.size() > 20 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  unsigned __int128 value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value > std::numeric_limits<std::uint64_t>::max()) return std::nullopt;
  return static_cast<std::uint64_t>(value);
}

std::string whole_units(const std::string& base_units, int decimals) {
  const bool digits =
      !base_units.empty() && std::all_of(base_units.begin(), base_units.end(),
                                         [](unsigned char c) { return std::isdigit(c) != 0; });
  if (!digits || decimals < 0 || decimals > 30) return base_units;
  const auto d = static_cast<std::size_t>(decimals);
  std::string padded = base_units;
  if (padded.size() <= d) padded.insert(0, d + 1 - padded.size(), '0');
  const std::string whole = padded.substr(0, padded.size() - d);
  std::string fraction = padded.substr(padded.size() - d);
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  return fraction.empty() ? whole : whole + "." + fraction;
}

}  // namespace airlock
