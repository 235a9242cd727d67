#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/shortvec.h>

using ::testing::HasSubstr;

namespace airlock {
namespace {

TEST(Shortvec, KnownEncodings) {
  struct Case {
    Bytes bytes;
    std::uint16_t value;
  };
  const Case cases[] = {
      {{0x00}, 0},
      {{0x7f}, 127},
      {{0x80, 0x01}, 128},
      {{0xff, 0x01}, 255},
      {{0xff, 0x7f}, 16383},
      {{0x80, 0x80, 0x01}, 16384},
      {{0xff, 0xff, 0x03}, 65535},
  };
  for (const auto& c : cases) {
    auto decoded = decode_shortvec(c.bytes);
    ASSERT_TRUE(decoded.ok()) << c.value << ": " << decoded.error().to_string();
    EXPECT_EQ(decoded->value, c.value);
    EXPECT_EQ(decoded->length, c.bytes.size());
    Bytes encoded;
    encode_shortvec(c.value, encoded);
    EXPECT_EQ(encoded, c.bytes) << c.value;
  }
}

TEST(Shortvec, EveryValueRoundTripsInItsShortestForm) {
  for (unsigned v = 0; v <= 0xffff; ++v) {
    Bytes encoded;
    encode_shortvec(static_cast<std::uint16_t>(v), encoded);
    const std::size_t expected_length = v < 0x80 ? 1 : v < 0x4000 ? 2 : 3;
    ASSERT_EQ(encoded.size(), expected_length) << v;
    encoded.push_back(0xaa);  // trailing data is not part of the value
    auto decoded = decode_shortvec(encoded);
    ASSERT_TRUE(decoded.ok()) << v;
    ASSERT_EQ(decoded->value, v);
    ASSERT_EQ(decoded->length, expected_length);
  }
}

TEST(Shortvec, RejectsWhatTheRuntimeRejects) {
  struct Case {
    Bytes bytes;
    ErrorCode code;
  };
  const Case cases[] = {
      {{}, ErrorCode::kShortvecTruncated},
      {{0x80}, ErrorCode::kShortvecTruncated},
      {{0xff, 0xff}, ErrorCode::kShortvecTruncated},
      {{0x80, 0x00}, ErrorCode::kShortvecAlias},        // 0 written in two bytes
      {{0x81, 0x80, 0x00}, ErrorCode::kShortvecAlias},  // 1 written in three bytes
      {{0x80, 0x80, 0x80}, ErrorCode::kShortvecTooLong},
      {{0xff, 0xff, 0xff, 0x01}, ErrorCode::kShortvecTooLong},
      {{0xff, 0xff, 0x04}, ErrorCode::kShortvecOverflow},  // 65536
      {{0x80, 0x80, 0x7f}, ErrorCode::kShortvecOverflow},
  };
  for (const auto& c : cases) {
    auto decoded = decode_shortvec(c.bytes);
    ASSERT_FALSE(decoded.ok()) << to_hex(c.bytes);
    EXPECT_EQ(decoded.error().code(), c.code)
        << to_hex(c.bytes) << ": " << decoded.error().to_string();
  }
}

}  // namespace
}  // namespace airlock
