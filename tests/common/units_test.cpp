#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include <airlock/common/units.h>

namespace airlock {
namespace {

TEST(Units, WholeTokensAreExact) {
  EXPECT_EQ(whole_units("6200093", 6), "6.200093");
  EXPECT_EQ(whole_units("5000000", 6), "5");
  EXPECT_EQ(whole_units("1", 9), "0.000000001");
  EXPECT_EQ(whole_units("18446744073709551615", 9), "18446744073.709551615");
  EXPECT_EQ(whole_units("n/a", 6), "n/a") << "not a number: shown as it came";
}

TEST(Units, BaseUnitsAreDigitsWithinSixtyFourBits) {
  EXPECT_EQ(parse_base_units("0"), std::optional<std::uint64_t>(0));
  EXPECT_EQ(parse_base_units("7"), std::optional<std::uint64_t>(7));
  EXPECT_EQ(parse_base_units("5000000"), std::optional<std::uint64_t>(5'000'000));
  EXPECT_EQ(parse_base_units("18446744073709551615"),
            std::optional<std::uint64_t>(std::numeric_limits<std::uint64_t>::max()));
  // Every value from 2^64 - 20 to 2^64 - 1 reads back as itself.
  for (std::uint64_t v = std::numeric_limits<std::uint64_t>::max() - 19; v != 0; ++v)
    EXPECT_EQ(parse_base_units(std::to_string(v)), std::optional<std::uint64_t>(v));
}

TEST(Units, AnythingElseIsNotAnAmount) {
  for (const char* text : {"", " ", "-1", "+1", " 1", "1 ", "1.0", "1e6", "0x10", "010", "00",
                           "1_000", "١", "18446744073709551616", "99999999999999999999",
                           "184467440737095516150", "000000000000000000001"}) {
    EXPECT_EQ(parse_base_units(text), std::nullopt) << '"' << text << '"';
  }
  EXPECT_EQ(parse_base_units(std::string("1\0", 2)), std::nullopt) << "an embedded NUL";
}

}  // namespace
}  // namespace airlock
