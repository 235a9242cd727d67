#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/offline/inspect.h>

#include "support/vectors.h"

using ::testing::HasSubstr;

namespace airlock::offline {
namespace {

nlohmann::json vector_named(const std::string& name) {
  return test::vector_named("solana-v0-transactions.json", name);
}

Bytes text_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

TEST(InspectInput, Base64IsTrimmedButInnerWhitespaceIsRejected) {
  const std::string b64 = vector_named("transfer")["signed_tx_base64"];
  auto bytes = decode_inspect_input(text_bytes("  " + b64 + "\n"), InputEncoding::kBase64);
  ASSERT_TRUE(bytes.ok()) << bytes.error().to_string();
  EXPECT_EQ(*bytes, test::b64(b64));

  std::string broken = b64;
  broken.insert(40, "\n");
  auto rejected = decode_inspect_input(text_bytes(broken), InputEncoding::kBase64);
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(rejected.error().code(), ErrorCode::kBase64Invalid);
  EXPECT_EQ(rejected.error().message().rfind("input:", 0), 0U) << rejected.error().message();

  EXPECT_EQ(decode_inspect_input(text_bytes(" \n"), InputEncoding::kBase64).error().code(),
            ErrorCode::kTruncated);
  EXPECT_EQ(decode_inspect_input(Bytes(kMaxInspectInputBytes + 1, 'A'), InputEncoding::kBase64)
                .error()
                .code(),
            ErrorCode::kTooLarge);
}

TEST(Inspect, JsonHasEveryPromisedField) {
  const auto v = vector_named("lookup-table");
  auto inspection = inspect_bytes(test::b64(v["signed_tx_base64"]), InputKind::kAuto);
  ASSERT_TRUE(inspection.ok()) << inspection.error().to_string();
  const auto j = inspection_to_json(*inspection);
  EXPECT_EQ(j["kind"], "transaction");
  EXPECT_EQ(j["version"], 0);
  EXPECT_EQ(j["header"]["required_signatures"], 1);
  EXPECT_EQ(j["header"]["readonly_signed"], 0);
  EXPECT_EQ(j["header"]["readonly_unsigned"], 2);
  EXPECT_EQ(j["fee_payer"], "AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax");
  EXPECT_EQ(j["static_keys"].size(), 4U);
  EXPECT_EQ(j["recent_blockhash"].dump(), v["recent_blockhash"].dump());
  ASSERT_EQ(j["instructions"].size(), 2U);
  EXPECT_EQ(j["instructions"][0]["program"], "ComputeBudget111111111111111111111111111111");
  EXPECT_EQ(j["instructions"][0]["program_name"], "Compute Budget Program");
  EXPECT_EQ(j["instructions"][1]["accounts"].dump(), v["instructions"][1]["accounts"].dump());
  EXPECT_EQ(j["instructions"][1]["data_hex"].dump(), v["instructions"][1]["data_hex"].dump());
  ASSERT_EQ(j["lookups"].size(), 1U);
  EXPECT_EQ(j["lookups"][0]["table"].dump(), v["lookups"][0]["table"].dump());
  EXPECT_EQ(j["lookups"][0]["writable"].dump(), v["lookups"][0]["writable"].dump());
  EXPECT_EQ(j["lookups"][0]["readonly"].dump(), v["lookups"][0]["readonly"].dump());
  ASSERT_EQ(j["signatures"].size(), 1U);
  EXPECT_EQ(j["signatures"][0]["status"], "valid");
  EXPECT_TRUE(j["durable_nonce"].is_null());
  ASSERT_EQ(j["accounts"].size(), 12U);
  EXPECT_TRUE(j["accounts"][4]["key"].is_null());
  EXPECT_EQ(j["accounts"][4]["origin"], "lookup_writable");
  EXPECT_EQ(j["accounts"][8]["origin"], "lookup_readonly");
}

TEST(Inspect, ReportsNonceEmptySignaturesAndBareMessages) {
  const auto nonce = vector_named("durable-nonce");
  auto with_nonce = inspect_bytes(test::b64(nonce["unsigned_tx_base64"]), InputKind::kAuto);
  ASSERT_TRUE(with_nonce.ok());
  const auto j = inspection_to_json(*with_nonce);
  EXPECT_EQ(j["durable_nonce"]["account"], "CFWdRHPKCx4RsLZVZA7eg8crvfkDrGittheeU2ypih2T");
  EXPECT_EQ(j["signatures"][0]["status"], "empty");
  const std::string text = inspection_to_text(*with_nonce);
  EXPECT_THAT(text, HasSubstr("WARNING: durable nonce"));

  auto message = inspect_bytes(test::b64(nonce["message_base64"]), InputKind::kAuto);
  ASSERT_TRUE(message.ok()) << message.error().to_string();
  EXPECT_FALSE(message->is_transaction);
  EXPECT_EQ(inspection_to_json(*message)["kind"], "message");
  EXPECT_EQ(message->message_sha256, with_nonce->message_sha256);

  // Forcing the wrong kind fails instead of guessing.
  EXPECT_FALSE(inspect_bytes(test::b64(nonce["message_base64"]), InputKind::kTransaction).ok());
  EXPECT_FALSE(inspect_bytes(test::b64(nonce["signed_tx_base64"]), InputKind::kMessage).ok());
}

TEST(Inspect, InvalidSignatureIsShownAsInvalid) {
  Bytes wire = test::b64(vector_named("transfer")["signed_tx_base64"]);
  wire[5] ^= 0x01;  // inside the signature
  auto inspection = inspect_bytes(wire, InputKind::kTransaction);
  ASSERT_TRUE(inspection.ok());
  EXPECT_EQ(inspection->signatures[0].state, SignatureState::kInvalid);
  EXPECT_THAT(inspection_to_text(*inspection), HasSubstr("invalid"));
}

TEST(Inspect, GarbageNamesBothAttempts) {
  const Bytes garbage{0x05, 0x01, 0x02};
  auto inspection = inspect_bytes(garbage, InputKind::kAuto);
  ASSERT_FALSE(inspection.ok());
  EXPECT_THAT(inspection.error().message(), HasSubstr("not a transaction"));
  EXPECT_THAT(inspection.error().message(), HasSubstr("nor a message"));
}

}  // namespace
}  // namespace airlock::offline
