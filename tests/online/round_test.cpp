// A signing round's inputs from outside: build replies the API might send and sign responses the
// offline side might send back. Each bad one is refused with the rule it breaks, before anything
// could be sent. Transactions come from ../shared/vectors (made by @solana/web3.js).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/ed25519.h>
#include <airlock/online/round.h>

#include "support/vectors.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace airlock::online {
namespace {

constexpr const char* kVault = "CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT";

json vector(const char* name) {
  return airlock::test::vector_named("solana-v0-transactions.json", name);
}

json reply_with(const json& steps) { return {{"vault", kVault}, {"result", steps}}; }

json step_of(const char* name) {
  return {{"transaction", vector(name)["unsigned_tx_base64"]},
          {"ticket", "t-" + std::string(name)}};
}

std::string error_of(const json& reply) {
  auto r =
      prepare_round("vault/claim-fee", {{"vault", kVault}}, reply, std::nullopt, 1'800'000'000);
  return r.ok() ? std::string("ok") : r.error().message();
}

TEST(PrepareRound, TurnsABuildReplyIntoASignRequest) {
  auto round = prepare_round("vault/claim-fee", {{"vault", kVault}},
                             reply_with(json::array({step_of("transfer"), step_of("two-signers")})),
                             std::nullopt, 1'800'000'000);
  ASSERT_TRUE(round.ok()) << round.error().to_string();
  EXPECT_EQ(round->request.steps.size(), 2U);
  // Without an RPC node the blockhash is taken to live 60 s, less than the tickets' 90 s: the
  // deadline is the earlier end, less the margin for sending.
  EXPECT_FALSE(round->blockhash_measured);
  EXPECT_EQ(round->request.deadline, 1'800'000'000U + kBlockhashSeconds - kSendMarginSeconds);
  EXPECT_EQ(to_base58(round->request.manager), vector("transfer")["static_keys"][0]);
  EXPECT_EQ(round->request.intent_json, json({{"vault", kVault}}).dump());
}

// The vault the offline half is asked to sign for is the one the manager's body names: a reply
// naming another is the API steering the signature to a vault of its choosing.
TEST(PrepareRound, TheVaultIsTheBodysAndAReplyNamingAnotherIsRefused) {
  constexpr const char* kOther = "Ansv9pZfqJNfXP3cbsSBVDhvKAYLt7dTkhhM2FwFyGnT";
  json steps = json::array({step_of("transfer")});
  auto steered = prepare_round("vault/claim-fee", {{"vault", kVault}},
                               {{"vault", kOther}, {"result", steps}}, std::nullopt, 1'800'000'000);
  ASSERT_FALSE(steered.ok());
  EXPECT_THAT(steered.error().message(), HasSubstr("is not the vault the request names"));
  auto silent = prepare_round("vault/claim-fee", {{"vault", kVault}}, {{"result", steps}},
                              std::nullopt, 1'800'000'000);
  ASSERT_TRUE(silent.ok()) << silent.error().to_string();
  EXPECT_EQ(to_base58(silent->request.vault), kVault);
  EXPECT_FALSE(prepare_round("vault/claim-fee", json::object(), reply_with(steps), std::nullopt,
                             1'800'000'000)
                   .ok())
      << "a body naming no vault";
  // vault/initialize names no vault in its body: the new vault is the reply's.
  auto created = prepare_round("vault/initialize", {{"depositMint", kVault}},
                               {{"vault", kOther}, {"result", steps}}, std::nullopt, 1'800'000'000);
  ASSERT_TRUE(created.ok()) << created.error().to_string();
  EXPECT_EQ(to_base58(created->request.vault), kOther);
}

TEST(PrepareRound, RefusesBuildRepliesItCannotTrustTheShapeOf) {
  EXPECT_THAT(error_of(json::object()), HasSubstr("no result"));
  EXPECT_THAT(error_of(reply_with(json::array())), HasSubstr("0 steps"));
  json many = json::array();
  for (int i = 0; i < 33; ++i) many.push_back(step_of("transfer"));
  EXPECT_THAT(error_of(reply_with(many)), HasSubstr("33 steps"));
  json no_ticket = step_of("transfer");
  no_ticket.erase("ticket");
  EXPECT_THAT(error_of(reply_with(no_ticket)), HasSubstr("lacks its transaction or ticket"));
  json numeric_ticket = step_of("transfer");
  numeric_ticket["ticket"] = 7;
  EXPECT_THAT(error_of(reply_with(numeric_ticket)), HasSubstr("lacks its transaction or ticket"));
  json not_base64 = step_of("transfer");
  not_base64["transaction"] = "AQID BA==";
  EXPECT_NE(error_of(reply_with(not_base64)), "ok");
  json not_a_transaction = step_of("transfer");
  not_a_transaction["transaction"] = "AAAA";
  EXPECT_NE(error_of(reply_with(not_a_transaction)), "ok");
  json bad_vault = reply_with(step_of("transfer"));
  bad_vault["vault"] = "not-a-key";
  EXPECT_NE(error_of(bad_vault), "ok");
}

// Found by the api_response fuzz target: fields of the wrong JSON type threw instead of being
// refused by rule.
TEST(PrepareRound, FieldsOfTheWrongTypeAreRefusedByRule) {
  const auto with = [](const char* key, const json& value) {
    json step = step_of("transfer");
    step[key] = value;
    return reply_with(step);
  };
  EXPECT_THAT(error_of(with("simulation", 7)),
              HasSubstr("build step 1: simulation must be an object"));
  EXPECT_THAT(error_of(with("simulation", {{"deferred", "yes"}})),
              HasSubstr("simulation.deferred"));
  EXPECT_THAT(error_of(with("sendConcurrently", 1)),
              HasSubstr("sendConcurrently must be true or false"));
  EXPECT_THAT(error_of(with("next", {{"path", 5}})), HasSubstr("next must be {path: string"));
  json bad_vault = reply_with(step_of("transfer"));
  bad_vault["vault"] = 42;
  EXPECT_THAT(error_of(bad_vault), HasSubstr("vault must be a base58 string"));
}

constexpr std::int64_t kBuiltAt = 1'800'000'000;

class ApplyResponse : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(crypto_init().ok());
    auto r = prepare_round("vault/claim-fee", {{"vault", kVault}}, reply_with(step_of("transfer")),
                           std::nullopt, 1'800'000'000);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    round = std::move(r).value();
    auto seed = from_hex(vector("transfer")["signer_secret_seeds_hex"][0].get<std::string>(), 32);
    manager.emplace(Keypair::from_seed(*seed).value());
    good.request_id = round.request.request_id;
    good.signer = manager->public_key();
    good.result =
        std::vector<Signature>{manager->sign(serialize_message(round.transactions[0].message))};
  }
  std::string error_of(const envelope::SignResponse& response) {
    auto a = apply_response(round, response, kBuiltAt);
    if (a.ok()) return "ok";
    EXPECT_EQ(a.error().code(), online::errors::kResponseMismatch);
    return a.error().message();
  }

  Round round;
  std::optional<Keypair> manager;
  envelope::SignResponse good;
};

TEST_F(ApplyResponse, PutsAVerifiedSignatureInTheFeePayerSlot) {
  auto a = apply_response(round, good, kBuiltAt);
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  ASSERT_EQ(a->signed_transactions.size(), 1U);
  // The result equals the transaction @solana/web3.js signed with the same key.
  EXPECT_EQ(to_base64(serialize_transaction(a->signed_transactions[0])),
            vector("transfer")["signed_tx_base64"]);
}

TEST_F(ApplyResponse, RefusesAnswersToAnythingElse) {
  auto other_id = good;
  other_id.request_id[0] ^= 1;
  EXPECT_THAT(error_of(other_id), HasSubstr("another request id"));

  auto other_signer = good;
  other_signer.signer = Keypair::from_seed(Bytes(32, 9)).value().public_key();
  EXPECT_THAT(error_of(other_signer), HasSubstr("not the manager"));
  // A refusal from another key's machine is unsigned: not called signed, and its reason shown.
  other_signer.result = envelope::Refusal{"policy.manager", "the key is not the\npolicy's"};
  EXPECT_THAT(error_of(other_signer), Not(HasSubstr("signed by")));
  EXPECT_THAT(error_of(other_signer),
              HasSubstr("; it refuses: policy.manager: the key is not the\\u{000A}policy's"));

  auto two = good;
  std::get<std::vector<Signature>>(two.result).push_back(Signature{});
  EXPECT_THAT(error_of(two), HasSubstr("2 signatures for 1 steps"));

  auto forged = good;
  std::get<std::vector<Signature>>(forged.result)[0] = manager->sign(Bytes{1, 2, 3});
  EXPECT_THAT(error_of(forged), HasSubstr("does not verify"));

  auto refusal = good;
  refusal.result = envelope::Refusal{"policy.fee_payer", "the fee payer is not the manager"};
  auto a = apply_response(round, refusal, kBuiltAt);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(a->refusal.has_value());
  EXPECT_EQ(a->refusal->code, "policy.fee_payer");
  EXPECT_TRUE(a->signed_transactions.empty()) << "nothing to send after a refusal";
}

TEST_F(ApplyResponse, SignaturesAfterTheDeadlineAreNotSent) {
  const std::int64_t deadline = static_cast<std::int64_t>(round.request.deadline);
  EXPECT_TRUE(apply_response(round, good, deadline).ok()) << "at the deadline itself: in time";
  auto late = apply_response(round, good, deadline + 1);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error().code(), online::errors::kResponseLate);
  EXPECT_THAT(late.error().message(), HasSubstr("1 s after the request's deadline"));
}

}  // namespace
}  // namespace airlock::online
