#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/reader.h>

using ::testing::HasSubstr;

namespace airlock {
namespace {

TEST(ByteReader, NamesTheFieldAndKeepsTheFirstError) {
  const Bytes bytes{0x01, 0x80};
  ByteReader reader(bytes);
  EXPECT_EQ(reader.u8("first"), 0x01);
  EXPECT_EQ(reader.shortvec("count"), 0);
  EXPECT_FALSE(reader.ok());
  EXPECT_EQ(reader.error().code(), ErrorCode::kShortvecTruncated);
  EXPECT_THAT(reader.error().message(), HasSubstr("count"));
  EXPECT_TRUE(reader.take(5, "later").empty());
  EXPECT_EQ(reader.error().code(), ErrorCode::kShortvecTruncated);
}

TEST(ByteReader, ReadsIntegersInEitherByteOrder) {
  const Bytes bytes{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xff, 0xff};
  ByteReader le(bytes);
  EXPECT_EQ(le.le(2, "a"), 0x0201u);
  EXPECT_EQ(le.le(4, "b"), 0x06050403u);
  EXPECT_EQ(le.position(), 6u);
  ByteReader be(bytes);
  EXPECT_EQ(be.be(2, "a"), 0x0102u);
  EXPECT_EQ(be.be(8, "b"), 0x030405060708ffffu);
  EXPECT_TRUE(be.expect_end("the frame"));
  ByteReader full(bytes);
  EXPECT_EQ(full.le(8, "a"), 0x0807060504030201u);
}

TEST(ByteReader, AnIntegerPastTheEndReadsZeroAndNamesItsField) {
  const Bytes bytes{0x01, 0x02, 0x03};
  ByteReader reader(bytes);
  EXPECT_EQ(reader.le(4, "lamports"), 0u);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.error().code(), ErrorCode::kTruncated);
  EXPECT_THAT(reader.error().message(), HasSubstr("lamports: needs 4 bytes at offset 0"));
  EXPECT_EQ(reader.position(), 0u);
  EXPECT_EQ(reader.be(1, "next"), 0u);  // the first error stays, nothing more is read
  EXPECT_THAT(reader.error().message(), HasSubstr("lamports"));
}

TEST(ByteReaderDeathTest, AWidthNoFieldHasIsABug) {
  const Bytes bytes(16, 0);
  ByteReader reader(bytes);
  EXPECT_DEATH((void)reader.le(9, "x"), "");
  EXPECT_DEATH((void)reader.be(0, "x"), "");
}

}  // namespace
}  // namespace airlock
