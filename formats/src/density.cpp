#include <string>

#include <airlock/formats/density.h>

namespace airlock::density {

Result<Density> parse(std::string_view text) {
  if (text == "low") return Density::kLow;
  if (text == "medium") return Density::kMedium;
  if (text == "high") return Density::kHigh;
  return Error(ErrorCode::kUsage,
               "--density: must be low, medium or high, not '" + std::string(text) + "'");
}

void apply(Density density, transfer::Options& options) {
  options.level = qr::EcLevel::kL;  // M and Q cost more frames than they win in reads, measured
  switch (density) {
    case Density::kLow:
      options.max_version = 8;
      return;
    case Density::kMedium:
      options.max_version = 12;
      return;
    case Density::kHigh:
      options.max_version = 17;
      return;
  }
}

}  // namespace airlock::density
