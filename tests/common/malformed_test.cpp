// Every malformed input is rejected, each with its own error code, and the message names the
// field and the rule.
#include <functional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/transaction.h>

#include "common/message_builder.h"

using ::testing::HasSubstr;

namespace airlock {
namespace {

using test::numbered_key;
using test::simple_message;

struct MessageCase {
  const char* name;
  std::function<Message(Message)> mutate;
  ErrorCode code;
  const char* field;  // must appear in the error message
};

const MessageCase kMessageCases[] = {
    {"readonly unsigned overlaps signers",
     [](Message m) {
       m.header = {2, 0, 2};
       return m;
     },
     ErrorCode::kMessageHeaderCounts, "header"},
    {"fee payer readonly",
     [](Message m) {
       m.header.num_readonly_signed = 1;
       return m;
     },
     ErrorCode::kMessageNoWritableFeePayer, "fee payer"},
    {"no signer at all",
     [](Message m) {
       m.header = {0, 0, 0};
       return m;
     },
     ErrorCode::kMessageNoWritableFeePayer, "header"},
    {"lookup loading nothing",
     [](Message m) {
       m.lookups.push_back({numbered_key(50), {}, {}});
       return m;
     },
     ErrorCode::kMessageEmptyLookup, "lookups[0]"},
    {"more than 256 accounts",
     [](Message m) {
       AddressTableLookup lookup{numbered_key(50), {}, {}};
       for (int i = 0; i < 254; ++i)
         lookup.writable_indexes.push_back(static_cast<std::uint8_t>(i));
       m.lookups.push_back(lookup);
       return m;
     },
     ErrorCode::kMessageTooManyAccounts, "256"},
    {"program is the fee payer",
     [](Message m) {
       m.instructions[0].program_index = 0;
       return m;
     },
     ErrorCode::kMessageProgramIsFeePayer, "instructions[0].program_index"},
    {"program loaded from a lookup table",
     [](Message m) {
       m.lookups.push_back({numbered_key(50), {0}, {}});
       m.instructions[0].program_index = 3;
       return m;
     },
     ErrorCode::kMessageProgramIndexOutOfRange, "instructions[0].program_index"},
    {"account index past the end",
     [](Message m) {
       m.instructions.push_back({2, {0, 3}, {}});
       return m;
     },
     ErrorCode::kMessageAccountIndexOutOfRange, "instructions[1].accounts[1]"},
    {"static key twice",
     [](Message m) {
       m.static_keys.insert(m.static_keys.begin() + 2, m.static_keys[1]);
       m.instructions[0].program_index = 3;
       return m;
     },
     ErrorCode::kMessageDuplicateAccount, "static_keys[2]"},
};

class MalformedMessage : public ::testing::TestWithParam<MessageCase> {};

TEST_P(MalformedMessage, IsRejectedWithItsOwnCode) {
  const auto& c = GetParam();
  const Bytes wire = serialize_message(c.mutate(simple_message()));
  auto parsed = parse_message(wire);
  ASSERT_FALSE(parsed.ok()) << c.name;
  EXPECT_EQ(parsed.error().code(), c.code) << c.name << ": " << parsed.error().to_string();
  EXPECT_THAT(parsed.error().message(), HasSubstr(c.field))
      << c.name << ": " << parsed.error().message();
  // Inside a transaction the same rule applies.
  Transaction tx = unsigned_transaction(c.mutate(simple_message()));
  auto parsed_tx = parse_transaction(serialize_transaction(tx));
  ASSERT_FALSE(parsed_tx.ok());
  EXPECT_EQ(parsed_tx.error().code(), c.code);
}

INSTANTIATE_TEST_SUITE_P(Sanitize, MalformedMessage, ::testing::ValuesIn(kMessageCases),
                         [](const auto& p) { return "case" + std::to_string(p.index); });

TEST(MalformedMessage, BaseMessageIsValid) {
  auto parsed = parse_message(serialize_message(simple_message()));
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  EXPECT_EQ(*parsed, simple_message());
}

TEST(MalformedWire, EachDefectHasItsCode) {
  const Bytes good = serialize_message(simple_message());
  // Byte 4 is the static key count (after 0x80 and the 3-byte header).
  ASSERT_EQ(good[4], 3);
  struct Case {
    const char* name;
    Bytes bytes;
    ErrorCode code;
  };
  std::vector<Case> cases;
  auto edit = [&](const char* name, std::function<void(Bytes&)> f, ErrorCode code) {
    Bytes b = good;
    f(b);
    cases.push_back({name, b, code});
  };
  edit(
      "version 1", [](Bytes& b) { b[0] = 0x81; }, ErrorCode::kMessageUnsupportedVersion);
  edit(
      "version 127", [](Bytes& b) { b[0] = 0xff; }, ErrorCode::kMessageUnsupportedVersion);
  edit(
      "trailing byte", [](Bytes& b) { b.push_back(0); }, ErrorCode::kTrailingBytes);
  edit(
      "lookup count missing", [](Bytes& b) { b.pop_back(); }, ErrorCode::kShortvecTruncated);
  edit(
      "instruction data cut", [](Bytes& b) { b.resize(b.size() - 2); }, ErrorCode::kTruncated);
  edit(
      "empty", [](Bytes& b) { b.clear(); }, ErrorCode::kTruncated);
  edit(
      "header cut", [](Bytes& b) { b.resize(3); }, ErrorCode::kTruncated);
  edit(
      "key count aliased",
      [](Bytes& b) {
        b[4] = 0x83;
        b.insert(b.begin() + 5, 0x00);
      },
      ErrorCode::kShortvecAlias);
  edit(
      "key count past the end", [](Bytes& b) { b[4] = 0x7f; }, ErrorCode::kTruncated);
  edit(
      "key count overflows",
      [](Bytes& b) {
        b[4] = 0xff;
        b.insert(b.begin() + 5, {0xff, 0x04});
      },
      ErrorCode::kShortvecOverflow);
  edit(
      "key count four bytes",
      [](Bytes& b) {
        b[4] = 0x80;
        b.insert(b.begin() + 5, {0x80, 0x80, 0x01});
      },
      ErrorCode::kShortvecTooLong);
  edit(
      "oversized", [](Bytes& b) { b.resize(kMaxTransactionBytes + 1, 0); }, ErrorCode::kTooLarge);

  for (const auto& c : cases) {
    auto parsed = parse_message(c.bytes);
    ASSERT_FALSE(parsed.ok()) << c.name;
    EXPECT_EQ(parsed.error().code(), c.code) << c.name << ": " << parsed.error().to_string();
  }
}

TEST(MalformedTransaction, SignatureCountMustMatchTheHeader) {
  Transaction tx = unsigned_transaction(simple_message());
  tx.signatures.push_back({});
  auto extra = parse_transaction(serialize_transaction(tx));
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.error().code(), ErrorCode::kTransactionSignatureCount);
  EXPECT_THAT(extra.error().message(), HasSubstr("2 signatures"));

  tx.signatures.clear();
  auto missing = parse_transaction(serialize_transaction(tx));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kTransactionSignatureCount);
}

TEST(MalformedTransaction, SizeLimitAndTruncatedSignatures) {
  Bytes big(kMaxTransactionBytes + 1, 0);
  big[0] = 1;
  EXPECT_EQ(parse_transaction(big).error().code(), ErrorCode::kTransactionTooLarge);
  Bytes cut = serialize_transaction(unsigned_transaction(simple_message()));
  cut.resize(40);
  auto parsed = parse_transaction(cut);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().code(), ErrorCode::kTruncated);
  EXPECT_THAT(parsed.error().message(), HasSubstr("signatures"));
}

TEST(LegacyMessage, ParsesForInspection) {
  Message legacy = simple_message();
  legacy.version = MessageVersion::kLegacy;
  const Bytes wire = serialize_message(legacy);
  EXPECT_EQ(wire[0], 1) << "a legacy message starts with its header";
  auto parsed = parse_message(wire);
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  EXPECT_EQ(parsed->version, MessageVersion::kLegacy);
  EXPECT_EQ(serialize_message(*parsed), wire);
  auto tx = parse_transaction(serialize_transaction(unsigned_transaction(legacy)));
  ASSERT_TRUE(tx.ok());
  EXPECT_EQ(tx->message.version, MessageVersion::kLegacy);
}

TEST(Signing, RefusesAKeyThatIsNotASigner) {
  Transaction tx = unsigned_transaction(simple_message());
  auto keypair = Keypair::from_seed(Bytes(32, 5));
  ASSERT_TRUE(keypair.ok());
  auto status = sign_transaction(tx, *keypair);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code(), ErrorCode::kNotASigner);
  EXPECT_TRUE(tx.signatures[0].is_zero()) << "nothing may be signed on refusal";
}

}  // namespace
}  // namespace airlock
