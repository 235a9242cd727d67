#include <gtest/gtest.h>

#include <airlock/formats/cbor.h>

#include "support/vectors.h"

namespace airlock::cbor {
namespace {

constexpr DecodeLimits kLimits{4096, 8, 1000};

TEST(CborEncode, DeterministicForm) {
  // Shortest heads.
  EXPECT_EQ(to_hex(encode(Value::unsigned_int(23))), "17");
  EXPECT_EQ(to_hex(encode(Value::unsigned_int(24))), "1818");
  EXPECT_EQ(to_hex(encode(Value::unsigned_int(1000))), "1903e8");
  EXPECT_EQ(to_hex(encode(Value::unsigned_int(1000000))), "1a000f4240");
  EXPECT_EQ(to_hex(encode(Value::unsigned_int(1000000000000))), "1b000000e8d4a51000");
  EXPECT_EQ(to_hex(encode(Value::negative(0))), "20");
  EXPECT_EQ(to_hex(encode(Value::negative(999))), "3903e7");
  EXPECT_EQ(to_hex(encode(Value::text("IETF"))), "6449455446");
  EXPECT_EQ(to_hex(encode(Value::bytes(Bytes{1, 2, 3, 4}))), "4401020304");
  EXPECT_EQ(to_hex(encode(Value::tag(37, Value::bytes(Bytes{})))), "d82540");
  EXPECT_EQ(to_hex(encode(Value::boolean(true))), "f5");
  EXPECT_EQ(to_hex(encode(Value::null())), "f6");
  // Map keys sorted by their encoded bytes: 10 (0a) < 100 (1864) < -1 (20) < "z" (617a).
  const Value map = Value::map({{Value::text("z"), Value::null()},
                                {Value::negative(0), Value::null()},
                                {Value::unsigned_int(100), Value::null()},
                                {Value::unsigned_int(10), Value::null()}});
  EXPECT_EQ(to_hex(encode(map)), "a40af61864f620f6617af6");
}

TEST(CborDecode, RoundTripsWhatItEncodes) {
  const Value v = Value::map(
      {{Value::unsigned_int(1), Value::array({Value::unsigned_int(0), Value::negative(5),
                                              Value::text("héllo"), Value::boolean(false)})},
       {Value::unsigned_int(2),
        Value::tag(304, Value::map({{Value::unsigned_int(1), Value::null()}}))},
       {Value::unsigned_int(3), Value::bytes(Bytes(300, 0xab))}});
  const Bytes wire = encode(v);
  auto decoded = decode_strict(wire, kLimits);
  ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
  EXPECT_EQ(encode(*decoded), wire);
  ASSERT_NE(decoded->find(3), nullptr);
  EXPECT_EQ(decoded->find(3)->byte_string().size(), 300U);
  EXPECT_EQ(decoded->find(2)->tagged().kind(), Value::Kind::kMap);
}

TEST(CborDecode, RefusesHostileInputWithNamedErrors) {
  struct Case {
    const char* name;
    const char* hex;
    ErrorCode code;
  };
  const Case cases[] = {
      {"empty", "", cbor::errors::kMalformed},
      {"truncated byte string", "5810", cbor::errors::kMalformed},
      {"truncated head", "19", cbor::errors::kMalformed},
      {"array missing items", "83 01 02", cbor::errors::kMalformed},
      {"array count past the input", "9bffffffffffffffff00", cbor::errors::kMalformed},
      {"map count past the input", "bbffffffffffffffff00", cbor::errors::kMalformed},
      {"byte string length past the input", "5bffffffffffffffff00", cbor::errors::kMalformed},
      {"indefinite byte string", "5f4101ff", cbor::errors::kIndefiniteLength},
      {"indefinite text", "7f6161ff", cbor::errors::kIndefiniteLength},
      {"indefinite array", "9f01ff", cbor::errors::kIndefiniteLength},
      {"indefinite map", "bf0101ff", cbor::errors::kIndefiniteLength},
      {"overlong integer", "1805", cbor::errors::kNotDeterministic},
      {"overlong length", "590001ff", cbor::errors::kNotDeterministic},
      {"unsorted map", "a2020001 00", cbor::errors::kNotDeterministic},
      {"duplicate key", "a2010001 00", cbor::errors::kDuplicateKey},
      {"half float", "f93c00", cbor::errors::kUnsupportedType},
      {"double", "fb3ff0000000000000", cbor::errors::kUnsupportedType},
      {"undefined", "f7", cbor::errors::kUnsupportedType},
      {"lone break", "ff", cbor::errors::kMalformed},
      {"reserved head", "1c", cbor::errors::kMalformed},
      {"invalid UTF-8", "62c328", cbor::errors::kMalformed},
      {"UTF-8 surrogate", "63eda080", cbor::errors::kMalformed},
      {"overlong UTF-8", "62c0af", cbor::errors::kMalformed},
      {"trailing bytes", "0000", ErrorCode::kTrailingBytes},
      {"too deep", "81818181818181818100", cbor::errors::kTooDeep},
      {"tags count as depth", "c1c1c1c1c1c1c1c1c100", cbor::errors::kTooDeep},
  };
  for (const auto& c : cases) {
    std::string hex;
    for (const char* p = c.hex; *p != 0; ++p) {
      if (*p != ' ') hex += *p;
    }
    auto decoded = decode_strict(test::hex(hex), kLimits);
    ASSERT_FALSE(decoded.ok()) << c.name;
    EXPECT_EQ(decoded.error().code(), c.code) << c.name << ": " << decoded.error().to_string();
  }
}

TEST(CborDecode, DepthLimitIsInclusive) {
  EXPECT_TRUE(decode_strict(test::hex("818181818181818100"), kLimits).ok()) << "8 levels fit";
}

TEST(CborDecode, LimitsApplyBeforeAllocation) {
  EXPECT_EQ(decode_strict(Bytes(5000, 0), kLimits).error().code(), ErrorCode::kTooLarge);
  // 1001 values (an array of 1000 zeros) is over the item limit.
  Bytes many{0x99, 0x03, 0xe8};
  many.insert(many.end(), 1000, 0x00);
  auto decoded = decode_strict(many, kLimits);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().code(), ErrorCode::kTooLarge);
}

}  // namespace
}  // namespace airlock::cbor
