#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/hash.h>
#include <airlock/formats/cbor.h>
#include <airlock/formats/dense.h>
#include <airlock/formats/envelope.h>
#include <airlock/formats/keystone.h>
#include <airlock/formats/qr.h>

#include "support/vectors.h"

using ::testing::HasSubstr;

namespace airlock::envelope {
namespace {

SignRequest sample_request(std::size_t steps) {
  SignRequest q;
  q.request_id = random_request_id();
  q.created_at = 1'795'000'000;
  q.deadline = q.created_at + 90;
  q.manager = test::key("AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax");
  q.vault = test::key("9WmmvBxK6x2kQhY66XGo29HNYrsySaPef34DTLK3wPk");
  q.action = "aggregator/swap";
  q.intent_json = R"({"vault":"9WmmvBxK6x2kQhY66XGo29HNYrsySaPef34DTLK3wPk","amount":"1000"})";
  const Bytes tx = test::b64(
      test::vector_named("solana-v0-transactions.json", "lookup-table").at("unsigned_tx_base64"));
  for (std::size_t i = 0; i < steps; ++i) {
    Step s;
    s.transaction = tx;
    s.send_concurrently = i % 2 == 1;
    s.units_consumed = 150'000 + i;
    if (i == 0) s.next_action = "aggregator/sweep";
    q.steps.push_back(s);
  }
  LookupTableHint table;
  table.table = test::key("Goit9kYh1RcYobLYbfWf1URCwvJCENkZ2S7dckVJKoeX");
  table.entries = {{0, test::key("H7f9KC3GjxZ7qWbRQusHBt9gUFWS5JDfjHMqwiZW1egM")}};
  q.hints.lookup_tables.push_back(table);
  q.hints.tokens.push_back(
      {test::key("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"), "USDC", 6, "USD Coin"});
  q.hints.pools.push_back({test::key("Goit9kYh1RcYobLYbfWf1URCwvJCENkZ2S7dckVJKoeX"),
                           test::key("So11111111111111111111111111111111111111112"),
                           test::key("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")});
  return q;
}

SignResponse sample_response(std::size_t steps) {
  SignResponse r;
  r.request_id = random_request_id();
  r.signer = test::key("AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax");
  std::vector<Signature> sigs(steps);
  for (std::size_t i = 0; i < steps; ++i) sigs[i].bytes.fill(static_cast<std::uint8_t>(i + 1));
  r.result = sigs;
  r.audit_head.bytes.fill(0x77);
  return r;
}

TEST(Envelope, RequestRoundTrips) {
  const SignRequest q = sample_request(3);
  const Bytes wire = encode_request(q);
  auto decoded = decode_request(wire);
  ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
  EXPECT_EQ(*decoded, q);
  EXPECT_EQ(encode_request(*decoded), wire);
}

TEST(Envelope, AnIntentObjectMayHaveBlanksAroundIt) {
  SignRequest q = sample_request(1);
  q.intent_json = " \n{\"amount\": \"1\"}\t";
  auto decoded = decode_request(encode_request(q));
  ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
  EXPECT_EQ(decoded->intent_json, q.intent_json);
}

TEST(Envelope, ResponseRoundTripsBothForms) {
  const SignResponse signed_response = sample_response(2);
  auto decoded = decode_response(encode_response(signed_response));
  ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
  EXPECT_EQ(*decoded, signed_response);

  SignResponse refused = sample_response(1);
  refused.result = Refusal{"policy.fee_payer", "the fee payer is not the manager key"};
  auto decoded_refusal = decode_response(encode_response(refused));
  ASSERT_TRUE(decoded_refusal.ok()) << decoded_refusal.error().to_string();
  EXPECT_EQ(*decoded_refusal, refused);
}

TEST(Envelope, ResponsesStaySmall) {
  // One step fits a byte-mode QR code of version 9 at level L (230 bytes) with the dense-frame
  // header; 20 steps fit three version-17 level-L frames (644 bytes each).
  EXPECT_EQ(qr::byte_capacity(9, qr::EcLevel::kL), 230U);
  EXPECT_LE(encode_response(sample_response(1)).size() + dense::kHeaderBytes, 230U);
  EXPECT_LE(encode_response(sample_response(20)).size(), 3U * (644 - dense::kHeaderBytes));
}

// Decodes the encoding of `q` after `edit` changes its CBOR tree.
Result<SignRequest> decode_edited(
    const SignRequest& q, const std::function<void(std::vector<cbor::Value::Entry>&)>& edit) {
  auto root = cbor::decode_strict(encode_request(q), {kMaxRequestBytes, kMaxDepth, 100000});
  EXPECT_TRUE(root.ok());
  auto entries = root->entries();
  edit(entries);
  return decode_request(cbor::encode(cbor::Value::map(entries)));
}

void set_key(std::vector<cbor::Value::Entry>& e, std::uint64_t key, cbor::Value v) {
  for (auto& [k, value] : e) {
    if (k.number() == key) {
      value = std::move(v);
      return;
    }
  }
  e.emplace_back(cbor::Value::unsigned_int(key), std::move(v));
}

void drop_key(std::vector<cbor::Value::Entry>& e, std::uint64_t key) {
  std::erase_if(e, [&](const auto& entry) { return entry.first.number() == key; });
}

TEST(Envelope, RequestSchemaViolationsNameTheField) {
  using cbor::Value;
  const SignRequest q = sample_request(1);
  struct Case {
    const char* name;
    std::function<void(std::vector<Value::Entry>&)> edit;
    ErrorCode code;
    const char* field;
  };
  const std::vector<Case> cases = {
      {"version 2", [](auto& e) { set_key(e, 0, Value::unsigned_int(2)); },
       envelope::errors::kVersion, "sign_request.version"},
      {"no request id", [](auto& e) { drop_key(e, 1); }, envelope::errors::kFieldMissing,
       "sign_request.request_id"},
      {"short request id", [](auto& e) { set_key(e, 1, Value::bytes(Bytes(15, 1))); },
       envelope::errors::kBadValue, "sign_request.request_id"},
      {"manager as text", [](auto& e) { set_key(e, 4, Value::text("key")); },
       envelope::errors::kWrongType, "sign_request.manager"},
      {"deadline before creation", [](auto& e) { set_key(e, 3, Value::unsigned_int(5)); },
       envelope::errors::kBadValue, "sign_request.deadline"},
      // The Keystone action is what the offline half names a ur:sol-sign-request it read
      // itself (no intent, deadline or vault to bind): an envelope cannot claim it.
      {"the Keystone action",
       [](auto& e) { set_key(e, 6, Value::text(std::string(keystone::kSignRequestAction))); },
       envelope::errors::kBadValue, "sign_request.action"},
      {"intent not an object", [](auto& e) { set_key(e, 7, Value::text("[1,2]")); },
       envelope::errors::kBadValue, "sign_request.intent"},
      {"intent a string", [](auto& e) { set_key(e, 7, Value::text(R"("{}")")); },
       envelope::errors::kBadValue, "sign_request.intent"},
      {"intent an unclosed object", [](auto& e) { set_key(e, 7, Value::text(R"( {"a":1)")); },
       envelope::errors::kBadValue, "sign_request.intent"},
      {"intent an object then more", [](auto& e) { set_key(e, 7, Value::text("{} {}")); },
       envelope::errors::kBadValue, "sign_request.intent"},
      {"intent only blanks", [](auto& e) { set_key(e, 7, Value::text("  \n ")); },
       envelope::errors::kBadValue, "sign_request.intent"},
      {"no steps", [](auto& e) { set_key(e, 8, Value::array({})); }, envelope::errors::kBadValue,
       "sign_request.steps"},
      {"unknown key", [](auto& e) { set_key(e, 42, Value::null()); }, envelope::errors::kUnknownKey,
       "sign_request"},
      {"empty hints", [](auto& e) { set_key(e, 9, Value::map({})); }, envelope::errors::kBadValue,
       "sign_request.hints"},
      {"oversized transaction",
       [](auto& e) {
         set_key(e, 8,
                 Value::array({Value::map({{Value::unsigned_int(1), Value::bytes(Bytes(1233, 1))},
                                           {Value::unsigned_int(2), Value::boolean(false)},
                                           {Value::unsigned_int(3), Value::boolean(false)}})}));
       },
       envelope::errors::kBadValue, "sign_request.steps[0].transaction"},
      {"step flag missing",
       [](auto& e) {
         set_key(e, 8,
                 Value::array({Value::map({{Value::unsigned_int(1), Value::bytes(Bytes(10, 1))},
                                           {Value::unsigned_int(2), Value::boolean(false)}})}));
       },
       envelope::errors::kFieldMissing, "sign_request.steps[0].deferred"},
  };
  for (const auto& c : cases) {
    auto decoded = decode_edited(q, c.edit);
    ASSERT_FALSE(decoded.ok()) << c.name;
    EXPECT_EQ(decoded.error().code(), c.code) << c.name << ": " << decoded.error().to_string();
    EXPECT_THAT(decoded.error().message(), HasSubstr(c.field))
        << c.name << ": " << decoded.error().message();
  }
}

TEST(Envelope, LookupHintEntriesMustBeOrderedAndWellFormed) {
  SignRequest q = sample_request(1);
  q.hints.lookup_tables[0].entries = {{3, q.manager}, {3, q.vault}};
  auto decoded = decode_request(encode_request(q));
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().code(), envelope::errors::kBadValue);
  EXPECT_THAT(decoded.error().message(), HasSubstr("lookup_tables[0].entries[1]"));
}

TEST(Envelope, PoolHintsNameEachPoolOnceWithTwoDifferentTokens) {
  SignRequest q = sample_request(1);
  q.hints.pools.push_back(q.hints.pools[0]);
  auto twice = decode_request(encode_request(q));
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.error().message(), HasSubstr("pools[1]"));
  q.hints.pools = {{q.vault, q.manager, q.manager}};
  auto same = decode_request(encode_request(q));
  ASSERT_FALSE(same.ok());
  EXPECT_THAT(same.error().message(), HasSubstr("pools[0].token_y"));
}

TEST(Envelope, ResponseMustHaveExactlyOneResult) {
  using cbor::Value;
  const Bytes wire = encode_response(sample_response(1));
  auto root = cbor::decode_strict(wire, {kMaxResponseBytes, kMaxDepth, 1000});
  ASSERT_TRUE(root.ok());
  auto entries = root->entries();
  entries.emplace_back(Value::unsigned_int(4),
                       Value::map({{Value::unsigned_int(1), Value::text("x")},
                                   {Value::unsigned_int(2), Value::text("y")}}));
  auto both = decode_response(cbor::encode(Value::map(entries)));
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().code(), envelope::errors::kBadValue);

  SignResponse bad = sample_response(1);
  auto bad_wire = encode_response(bad);
  bad_wire.push_back(0);
  EXPECT_EQ(decode_response(bad_wire).error().code(), ErrorCode::kTrailingBytes);
  auto as_request = decode_request(wire);
  ASSERT_FALSE(as_request.ok()) << "a response is not a request";
  EXPECT_EQ(as_request.error().code(), envelope::errors::kWrongType);
  EXPECT_THAT(as_request.error().message(), HasSubstr("created_at"));
}

// Issue 32: an approval request is the intent alone (key 10 true, no steps); its answer holds
// the approval (key 6). Neither spelling is ambiguous: an approval with steps, `false`, a sign
// request without steps, or a response holding an approval and signatures are refused.
TEST(Envelope, AnApprovalRequestAndItsApprovalRoundTripAndNothingElseReadsAsOne) {
  using cbor::Value;
  SignRequest q = sample_request(1);
  q.steps.clear();
  q.approval = true;
  const Bytes wire = encode_request(q);
  auto back = decode_request(wire);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, q);
  const auto refused = [&](const char* name,
                           const std::function<void(std::vector<Value::Entry>&)>& edit,
                           const char* field) {
    auto decoded = decode_edited(q, edit);
    ASSERT_FALSE(decoded.ok()) << name;
    EXPECT_THAT(decoded.error().message(), HasSubstr(field)) << name;
  };
  refused(
      "approval false", [](auto& e) { set_key(e, 10, Value::boolean(false)); },
      "sign_request.approval");
  refused(
      "approval as a number", [](auto& e) { set_key(e, 10, Value::unsigned_int(1)); },
      "sign_request.approval");
  refused(
      "approval with steps",
      [&](auto& e) {
        set_key(e, 8,
                Value::array({Value::map({{Value::unsigned_int(1), Value::bytes(Bytes(10, 1))},
                                          {Value::unsigned_int(2), Value::boolean(false)},
                                          {Value::unsigned_int(3), Value::boolean(false)}})}));
      },
      "sign_request.steps");
  refused(
      "neither steps nor approval", [](auto& e) { drop_key(e, 10); }, "sign_request.steps");

  SignResponse a = sample_response(1);
  a.result = Approval{sha256(Bytes{1, 2, 3}), 1'790'000'000};
  auto approval = decode_response(encode_response(a));
  ASSERT_TRUE(approval.ok()) << approval.error().to_string();
  EXPECT_EQ(*approval, a);
  auto root = cbor::decode_strict(encode_response(sample_response(1)),
                                  {kMaxResponseBytes, kMaxDepth, 1000});
  ASSERT_TRUE(root.ok());
  auto entries = root->entries();
  entries.emplace_back(Value::unsigned_int(6),
                       Value::map({{Value::unsigned_int(1), Value::bytes(Bytes(32, 7))},
                                   {Value::unsigned_int(2), Value::unsigned_int(5)}}));
  auto both = decode_response(cbor::encode(Value::map(entries)));
  ASSERT_FALSE(both.ok()) << "signatures and an approval";
  EXPECT_EQ(both.error().code(), envelope::errors::kBadValue);
}

// What an approval covers: one byte of the body, the vault, the manager or the action changes
// the intent; the steps, hints and times of the request do not.
TEST(Envelope, TheIntentHashCoversManagerVaultActionAndTheBodysExactText) {
  const SignRequest q = sample_request(2);
  const Hash h = intent_hash(q);
  SignRequest same = sample_request(1);
  same.request_id = random_request_id();
  same.deadline += 100;
  same.hints = {};
  EXPECT_EQ(intent_hash(same), h);
  for (int field = 0; field < 4; ++field) {
    SignRequest other = q;
    if (field == 0) other.intent_json.insert(other.intent_json.size() - 1, " ");
    if (field == 1) other.vault.bytes[0] ^= 1;
    if (field == 2) other.manager.bytes[0] ^= 1;
    if (field == 3) other.action += "x";
    EXPECT_NE(intent_hash(other), h) << field;
  }
  // The lengths are hashed: moving a character between action and body is another intent.
  SignRequest a = q, b = q;
  a.action = "ab";
  a.intent_json = "{}";
  b.action = "a";
  b.intent_json = "b{}";
  EXPECT_NE(intent_hash(a), intent_hash(b));
}

TEST(Envelope, RequestIdsAreRandom) { EXPECT_NE(random_request_id(), random_request_id()); }

}  // namespace
}  // namespace airlock::envelope
