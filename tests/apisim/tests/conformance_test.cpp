// HTTP-level conformance of airlock-apisim to manager-bot-api.md. Each test names the section
// it checks.
#include <map>

#include <gmock/gmock.h>

#include <airlock/common/accounts.h>
#include <airlock/common/hash.h>

#include "conformance_support.h"

using ::testing::HasSubstr;

namespace airlock::apisim::test {
namespace {

json swap_body(const char* amount = "1000000000") {
  return {{"vault", kVault},
          {"sourceMint", kUsdc},
          {"destinationMint", kSol},
          {"amount", amount},
          {"slippageBps", 50}};
}

void expect_error(const Reply& r, int status, const std::string& code,
                  const std::string& message_part = "") {
  EXPECT_EQ(r.status, status) << r.body.dump();
  ASSERT_TRUE(r.body.is_object() && r.body.contains("error")) << r.body.dump();
  EXPECT_EQ(r.body["error"]["code"], code) << r.body.dump();
  EXPECT_TRUE(r.body["error"]["message"].is_string());
  if (!message_part.empty()) {
    EXPECT_THAT(r.body["error"]["message"].get<std::string>(), HasSubstr(message_part))
        << r.body.dump();
  }
}

// ---- 5. Authentication ----

TEST_F(Twin, Section5_1_MissingMalformedUnknownRevokedExpiredKeysAre401) {
  expect_error(get("/vaults", nullptr), 401, "Unauthorized");
  expect_error(get("/vaults", "hv1_x_short"), 401, "Unauthorized");
  expect_error(get("/vaults", "hv1_nobody_0123456789abcdefghijklmnopqrstuvwxyz"), 401,
               "Unauthorized");
  control("/_sim/keys/demo", {{"revoked", true}});
  expect_error(get("/vaults"), 401, "Unauthorized", "revoked");
  control("/_sim/keys/demo", {{"revoked", false}, {"expiresAt", 1}});
  expect_error(get("/vaults"), 401, "Unauthorized", "expired");
  control("/_sim/keys/demo", {{"expiresAt", nullptr}});
  EXPECT_EQ(get("/vaults").status, 200);
}

TEST_F(Twin, Section5_9_KeyLookupFailureIs503NotAPass) {
  control("/_sim/faults", {{"keyLookupFailure", true}});
  expect_error(get("/vaults"), 503, "ApiUnavailable", "Service temporarily unavailable");
}

TEST_F(Twin, Section5_3_ScopesAreEnforced) {
  expect_error(post("/transactions/aggregator/swap", swap_body(), kReadonlyKey), 403, "Forbidden");
  expect_error(get("/transactions/status?receipt=x", kReadonlyKey), 403, "Forbidden");
  control("/_sim/keys/demo", {{"actions", {"send", "aggregator/swap"}}});
  expect_error(get(std::string("/vaults/") + kVault), 403, "Forbidden");
}

TEST_F(Twin, Section5_4_AllowlistAndAuthorityAreCheckedOnEveryRequest) {
  expect_error(get(std::string("/vaults/") + kOtherVault), 403, "Denied", "authority");
  control("/_sim/keys/demo", {{"vaults", {kOtherVault}}});
  expect_error(get(std::string("/vaults/") + kVault), 403, "Denied", "allowlist");
  control("/_sim/keys/demo", {{"vaults", nullptr}});
  EXPECT_EQ(get(std::string("/vaults/") + kVault).status, 200);
  control(std::string("/_sim/vaults/") + kVault, {{"authority", kSol}});
  expect_error(get(std::string("/vaults/") + kVault + "/holdings"), 403, "Denied", "authority");
  expect_error(post("/transactions/aggregator/swap", swap_body()), 403, "Denied");
}

TEST_F(Twin, Section5_5_VaultInitializeNeedsAKeyWithoutAllowlist) {
  const json body = {{"depositMint", kUsdc},    {"depositCap", "1000"},
                     {"minDeposit", "1"},       {"minWithdrawalShares", "1"},
                     {"managementFeeBps", 100}, {"performanceFeeBps", 1000}};
  control("/_sim/keys/demo", {{"vaults", {kVault}}});
  expect_error(post("/transactions/vault/initialize", body), 403, "Forbidden");
  control("/_sim/keys/demo", {{"vaults", nullptr}});
  const Reply built = post("/transactions/vault/initialize", body);
  ASSERT_EQ(built.status, 200) << built.body.dump();
  const json step = steps_of(built.body)[0];
  // The new vault account's signature is already in the transaction (spec 4.15.7).
  const auto checks = check_signatures(tx_of(step));
  ASSERT_EQ(checks.size(), 2U);
  EXPECT_EQ(checks[0].state, SignatureState::kEmpty);
  EXPECT_EQ(checks[1].state, SignatureState::kValid);
  EXPECT_EQ(to_base58(checks[1].signer), step["vault"].get<std::string>());
  EXPECT_EQ(send_and_confirm(step), "confirmed");
  EXPECT_EQ(get("/vaults/" + step["vault"].get<std::string>()).status, 200);
}

// ---- 4.11 reads and 2. resources ----

TEST_F(Twin, Section4_11_ReadsAreNoStoreAndShaped) {
  const Reply holdings = get(std::string("/vaults/") + kVault + "/holdings");
  ASSERT_EQ(holdings.status, 200);
  EXPECT_EQ(holdings.headers.find("Cache-Control")->second, "no-store");
  // An error answer to a read is no-store too.
  const Reply missing = get("/vaults/11111111111111111111111111111111/holdings");
  EXPECT_GE(missing.status, 400);
  ASSERT_NE(missing.headers.find("Cache-Control"), missing.headers.end());
  EXPECT_EQ(missing.headers.find("Cache-Control")->second, "no-store");
  const json& data = holdings.body["data"];
  for (const char* field : {"depositToken", "totalValue", "totalUsd", "navTotalAssets",
                            "navDeltaBps", "partial", "unpriced", "tokens", "positions"}) {
    EXPECT_TRUE(data.contains(field)) << field;
  }
  EXPECT_TRUE(data["totalValue"].is_string()) << "BaseUnitAmount is a string, never a number";
  const Reply vaults = get("/vaults");
  ASSERT_EQ(vaults.body["vaults"].size(), 1U) << "only vaults whose authority is the key's manager";
  EXPECT_EQ(get(std::string("/vaults/") + kVault + "/strategies").status, 200);
  EXPECT_EQ(get(std::string("/vaults/") + kVault + "/requests").status, 200);
  EXPECT_EQ(get(std::string("/vaults/") + kVault + "/strategy-history").status, 200);
  const Reply perp = get(std::string("/vaults/") + kVault + "/perp");
  ASSERT_EQ(perp.status, 200);
  EXPECT_TRUE(perp.body["data"]["openOrders"].is_null()) << "null when there is no perp account";
  const Reply token = get(std::string("/tokens/") + kSol + "?vault=" + kVault);
  ASSERT_EQ(token.status, 200);
  EXPECT_EQ(token.body["data"]["decimals"], 9);
  expect_error(get(std::string("/tokens/") + kSolUsdcPool + "?vault=" + kVault), 404, "NotFound");
  const Reply pool = get(std::string("/dlmm/pools/") + kSolUsdcPool + "?vault=" + kVault);
  ASSERT_EQ(pool.status, 200);
  EXPECT_EQ(pool.body["data"]["activeBinId"], 5000);
  EXPECT_EQ(get("/dlmm/pools").body["pools"].size(), 2U);
}

TEST_F(Twin, Section4_11_NavLimitIsClampedAndValidated) {
  EXPECT_EQ(send_and_confirm(steps_of(post("/transactions/aggregator/swap", swap_body()).body)[0]),
            "confirmed");
  const Reply nav = get(std::string("/vaults/") + kVault + "/nav?limit=5000");
  ASSERT_EQ(nav.status, 200);
  EXPECT_EQ(nav.body["data"].size(), 1U);
  expect_error(get(std::string("/vaults/") + kVault + "/nav?limit=0"), 400, "Validation", "limit");
  expect_error(get(std::string("/vaults/") + kVault + "/nav?limit=abc"), 400, "Validation",
               "limit");
}

TEST_F(Twin, Section2_1_PublicKeysAndAmountsAreValidated) {
  expect_error(get("/vaults/not-a-key"), 400, "Validation", "vault");
  expect_error(get("/vaults/11111111111111111111111111111112222222222222"), 400, "Validation");
  json body = swap_body();
  body["amount"] = 1000;
  expect_error(post("/transactions/aggregator/swap", body), 400, "Validation", "amount");
  body["amount"] = "123456789012345678901";
  expect_error(post("/transactions/aggregator/swap", body), 400, "Validation", "amount");
  body["amount"] = "18446744073709551616";
  expect_error(post("/transactions/aggregator/swap", body), 400, "Validation", "amount");
  expect_error(get(std::string("/aggregator/quote?vault=") + kVault + "&inputMint=" + kUsdc +
                   "&outputMint=" + kSol + "&amount=1000&slippageBps=0"),
               400, "Validation", "slippageBps");
}

// ---- 4.1 builder rules ----

TEST_F(Twin, Section4_1_PayerIsRefusedUnknownFieldsIgnoredSlippageLowered) {
  json with_payer = swap_body();
  with_payer["payer"] = kVault;
  expect_error(post("/transactions/aggregator/swap", with_payer), 400, "Validation", "payer");
  json extra = swap_body();
  extra["somethingNew"] = {{"x", 1}};
  extra["slippageBps"] = 5000;
  const Reply built = post("/transactions/aggregator/swap", extra);
  ASSERT_EQ(built.status, 200) << built.body.dump();
  EXPECT_EQ(built.body["result"]["quote"]["slippageBps"], 300)
      << "lowered to the protocol's maxSlippageBps";
  json too_high = swap_body();
  too_high["slippageBps"] = 10001;
  expect_error(post("/transactions/aggregator/swap", too_high), 400, "Validation", "slippageBps");
  json same = swap_body();
  same["destinationMint"] = kUsdc;
  expect_error(post("/transactions/aggregator/swap", same), 400, "Validation", "destinationMint");
}

TEST_F(Twin, Section2_8_BuildStepIsARealUnsignedV0TransactionFromTheManager) {
  const Reply built = post("/transactions/aggregator/swap", swap_body());
  ASSERT_EQ(built.status, 200);
  const json& step = built.body["result"];
  for (const char* field : {"transaction", "simulation", "ticket", "blockhash"})
    EXPECT_TRUE(step.contains(field)) << field;
  EXPECT_TRUE(step["simulation"]["unitsConsumed"].is_number_integer());
  const Transaction tx = tx_of(step);
  EXPECT_EQ(tx.message.version, MessageVersion::kV0);
  EXPECT_EQ(to_base58(tx.message.fee_payer()), "AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax");
  EXPECT_EQ(to_base58(tx.message.recent_blockhash), step["blockhash"].get<std::string>());
  EXPECT_EQ(check_signatures(tx).front().state, SignatureState::kEmpty);
  ASSERT_EQ(tx.message.lookups.size(), 1U) << "swap route accounts come through a lookup table";
  // The vault-program instruction starts with the IDL's discriminator for aggregator_swap.
  const std::string preimage = "global:aggregator_swap";
  const Hash h = sha256(text_bytes(preimage));
  const auto& ix = tx.message.instructions.back();
  EXPECT_EQ(to_base58(tx.message.static_keys[ix.program_index]),
            "AirLockVau1t1111111111111111111111111111111");
  EXPECT_TRUE(std::equal(h.bytes.begin(), h.bytes.begin() + 8, ix.data.begin()));
}

// ---- 7. errors ----

TEST_F(Twin, Section7_BodyLimitUnknownRoutesAndInvalidJson) {
  expect_error(post_raw("/transactions/aggregator/swap", std::string(16385, ' ')), 413,
               "BodyTooLarge");
  expect_error(get("/no/such/route"), 404, "NotFound");
  expect_error(post("/transactions/no/such/action", swap_body()), 404, "NotFound");
  expect_error(post_raw("/transactions/aggregator/swap", "{not json"), 400, "Validation", "body");
  expect_error(get(std::string("/vaults/") + kSol), 404, "NotFound");
}

TEST_F(Twin, Section7_VenueFailuresAre502WithTheFixedMessage) {
  control("/_sim/faults", {{"venueFailure", "AggregatorQuoteFailed"}});
  expect_error(post("/transactions/aggregator/swap", swap_body()), 502, "AggregatorQuoteFailed",
               "Service temporarily unavailable");
  control("/_sim/faults", {{"venueFailure", nullptr}, {"rpcOutage", true}});
  expect_error(get(std::string("/vaults/") + kVault), 503, "RpcUnavailable",
               "Service temporarily unavailable");
}

// ---- 4.12 send checks and 3.2 status ----

TEST_F(Twin, Section4_12_TicketMessageFeePayerAndSignatureChecks) {
  const json step = post("/transactions/aggregator/swap", swap_body()).body["result"];
  const json good = signed_send_body(step);

  json unsigned_body = {{"transaction", step["transaction"]}, {"ticket", step["ticket"]}};
  expect_error(post("/transactions/send", unsigned_body), 403, "InvalidSignature");

  Transaction changed = tx_of(step);
  changed.message.instructions.back().data.back() ^= 1;
  ASSERT_TRUE(sign_transaction(changed, *manager_).ok());
  expect_error(
      post("/transactions/send", {{"transaction", to_base64(serialize_transaction(changed))},
                                  {"ticket", step["ticket"]}}),
      403, "InvalidTransaction");

  Transaction bad_sig = tx_of(step);
  ASSERT_TRUE(sign_transaction(bad_sig, *manager_).ok());
  bad_sig.signatures[0].bytes[3] ^= 1;
  expect_error(
      post("/transactions/send", {{"transaction", to_base64(serialize_transaction(bad_sig))},
                                  {"ticket", step["ticket"]}}),
      403, "InvalidSignature");

  expect_error(
      post("/transactions/send", {{"transaction", good["transaction"]}, {"ticket", "tkt_forged"}}),
      403, "InvalidTicket");
  json extra = good;
  extra["note"] = "hi";
  expect_error(post("/transactions/send", extra), 400, "Validation", "note");
  EXPECT_EQ(counters()["sends"], 0) << "nothing was sent by any refused request";
}

TEST_F(Twin, Section3_3_TicketExpiresAfter90Seconds) {
  const json step = post("/transactions/aggregator/swap", swap_body()).body["result"];
  advance(90'001);
  expect_error(post("/transactions/send", signed_send_body(step)), 403, "InvalidTicket", "expired");
}

TEST_F(Twin, Section5_6_TicketDiesWhenItsActionIsRemovedFromTheKey) {
  const json step = post("/transactions/aggregator/swap", swap_body()).body["result"];
  control("/_sim/keys/demo", {{"actions", {"read", "send"}}});
  expect_error(post("/transactions/send", signed_send_body(step)), 403, "Forbidden");
}

TEST_F(Twin, Section3_2_PendingThenConfirmedAndIdenticalBytesLandOnce) {
  const json step = post("/transactions/aggregator/swap", swap_body()).body["result"];
  const json body = signed_send_body(step);
  const Reply first = post("/transactions/send", body);
  ASSERT_EQ(first.status, 200);
  EXPECT_EQ(first.body["status"], "pending");
  const Reply again = post("/transactions/send", body);
  EXPECT_EQ(again.body["receipt"], first.body["receipt"]);
  EXPECT_EQ(get("/transactions/status?receipt=" + first.body["receipt"].get<std::string>())
                .body["status"],
            "confirmed");
  post("/transactions/send", body);
  const json c = counters();
  EXPECT_EQ(c["landed"], 1);
  EXPECT_EQ(c["landedBySignature"][first.body["signature"].get<std::string>()], 1);
  expect_error(get("/transactions/status?receipt=rcpt_unknown"), 404, "NotFound");
}

TEST_F(Twin, Section3_2_FailedAndExpiredOutcomes) {
  control("/_sim/faults", {{"nextLanding", "fails"}, {"failCode", "SlippageToleranceExceeded"}});
  const Reply failed =
      post("/transactions/send",
           signed_send_body(post("/transactions/aggregator/swap", swap_body()).body["result"]));
  const Reply failed_status =
      get("/transactions/status?receipt=" + failed.body["receipt"].get<std::string>());
  EXPECT_EQ(failed_status.body["status"], "failed");
  EXPECT_EQ(failed_status.body["code"], "SlippageToleranceExceeded");
  EXPECT_TRUE(failed_status.body["message"].is_string());

  control("/_sim/faults", {{"nextLanding", "never"}});
  const Reply lost = post(
      "/transactions/send",
      signed_send_body(post("/transactions/aggregator/swap", swap_body("500")).body["result"]));
  EXPECT_EQ(
      get("/transactions/status?receipt=" + lost.body["receipt"].get<std::string>()).body["status"],
      "pending");
  advance(61'000);  // past 150 slots: the blockhash ages out
  EXPECT_EQ(
      get("/transactions/status?receipt=" + lost.body["receipt"].get<std::string>()).body["status"],
      "expired");
}

TEST_F(Twin, Section3_1_RpcOutageAnswersUnknownAndTheSendMayStillLand) {
  const json step = post("/transactions/aggregator/swap", swap_body()).body["result"];
  control("/_sim/faults", {{"rpcOutage", true}});
  const Reply sent = post("/transactions/send", signed_send_body(step));
  ASSERT_EQ(sent.status, 200);
  EXPECT_EQ(sent.body["status"], "unknown");
  EXPECT_TRUE(sent.body.contains("receipt") && sent.body.contains("signature"));
  control("/_sim/faults", {{"rpcOutage", false}});
  EXPECT_EQ(
      get("/transactions/status?receipt=" + sent.body["receipt"].get<std::string>()).body["status"],
      "confirmed");
}

TEST_F(Twin, Section7_PreflightRejectionIs422AndNothingIsSent) {
  const json step = post("/transactions/aggregator/swap", swap_body()).body["result"];
  control("/_sim/faults", {{"preflightReject", "SlippageToleranceExceeded"}});
  expect_error(post("/transactions/send", signed_send_body(step)), 422, "SlippageToleranceExceeded",
               "Transaction rejected during simulation or preflight");
  EXPECT_EQ(counters()["sends"], 0);
}

// ---- 8. limits ----

TEST_F(Twin, Section8_RateLimitsRefillAndRejectedRequestsCostNothing) {
  for (int i = 0; i < 20; ++i) ASSERT_EQ(get("/vaults").status, 200) << i;
  expect_error(get("/vaults"), 429, "RateLimited");
  expect_error(get("/vaults"), 429, "RateLimited");
  advance(1000);  // the edge bucket (20 a second) refills; the refused requests took nothing
  for (int i = 0; i < 20; ++i) ASSERT_EQ(get("/vaults").status, 200) << i;
  advance(1000);
  for (int i = 0; i < 20; ++i) ASSERT_EQ(get("/vaults").status, 200) << i;
  // 60 a minute per address, refilled continuously at one a second: 60 spent over 2 s, so at
  // 3 s exactly 3 more pass and the next is refused by the per-address bucket.
  advance(1000);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(get("/vaults").status, 200) << i;
  expect_error(get("/vaults"), 429, "RateLimited", "ip:");
  advance(1000);
  EXPECT_EQ(get("/vaults").status, 200);
  expect_error(get("/vaults"), 429, "RateLimited", "ip:");
}

TEST_F(Twin, Section8_BuildsHaveTheirOwnTenSecondBucket) {
  // 30 builds per 10 s (3 a second). Spread over 1.5 s to stay under the edge's 20 a second:
  // 30 + 4 refilled pass, the 35th is refused by the build bucket.
  int built = 0;
  for (int i = 0; i < 34; ++i) {
    const Reply r =
        post("/transactions/aggregator/swap", swap_body(std::to_string(1000 + i).c_str()));
    ASSERT_EQ(r.status, 200) << i << ": " << r.body.dump();
    ++built;
    if (i == 14 || i == 29) advance(700);
  }
  EXPECT_EQ(built, 34);
  expect_error(post("/transactions/aggregator/swap", swap_body("9999")), 429, "RateLimited",
               "build:");
  advance(340);  // 1.02 tokens: exactly one more build, because the refused one cost nothing
  EXPECT_EQ(post("/transactions/aggregator/swap", swap_body("9998")).status, 200);
  expect_error(post("/transactions/aggregator/swap", swap_body("9997")), 429, "RateLimited",
               "build:");
}

// ---- 4.15 batches and next ----

TEST_F(Twin, Section4_6_OpenWiderThan70BinsIsABatchOfPreSignedPositions) {
  const Reply built = post("/transactions/dlmm/open", {{"vault", kVault},
                                                       {"lbPair", kSolUsdcPool},
                                                       {"lowerBinId", 4930},
                                                       {"upperBinId", 5070},
                                                       {"amountX", "500000000"},
                                                       {"amountY", "100000000"},
                                                       {"shape", "spot"},
                                                       {"maxActiveBinSlippage", 5}});
  ASSERT_EQ(built.status, 200) << built.body.dump();
  const auto steps = steps_of(built.body);
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_EQ(steps[0]["upperBinId"], 4999) << "metadata upperBinId is inclusive";
  EXPECT_EQ(steps[1]["lowerBinId"], 5000);
  EXPECT_EQ(steps[1]["upperBinId"], 5069);
  for (const auto& step : steps) {
    EXPECT_TRUE(step["sendConcurrently"].get<bool>());
    const auto checks = check_signatures(tx_of(step));
    ASSERT_EQ(checks.size(), 2U);
    EXPECT_EQ(to_base58(checks[1].signer), step["position"].get<std::string>());
    EXPECT_EQ(checks[1].state, SignatureState::kValid)
        << "the position's signature is already present";
  }
  for (const auto& step : steps) EXPECT_EQ(send_and_confirm(step), "confirmed");
  const Reply strategies = get(std::string("/vaults/") + kVault + "/strategies");
  EXPECT_EQ(strategies.body["data"].size(), 2U);
  expect_error(post("/transactions/dlmm/open", {{"vault", kVault},
                                                {"lbPair", kSolUsdcPool},
                                                {"lowerBinId", 0},
                                                {"upperBinId", 1401},
                                                {"amountX", "1"},
                                                {"amountY", "1"},
                                                {"shape", "spot"},
                                                {"maxActiveBinSlippage", 5}}),
               400, "Validation", "upperBinId");
}

// Where a deposit lands in the twin's world follows the real service (Meteora's SDK, which the
// offline half's pictures are checked against): Y at and below the active bin (5000), X above
// it; spot alike, curve highest beside the active bin, bid-ask lowest there.
TEST_F(Twin, Section4_5_ADepositPutsYAtAndBelowTheActiveBinAndXAboveItShaped) {
  for (const std::string shape : {"spot", "curve", "bidAsk"}) {
    const Reply built = post("/transactions/dlmm/open", {{"vault", kVault},
                                                         {"lbPair", kSolUsdcPool},
                                                         {"lowerBinId", 4996},
                                                         {"upperBinId", 5005},
                                                         {"amountX", "9000000"},
                                                         {"amountY", "5000000"},
                                                         {"shape", shape},
                                                         {"maxActiveBinSlippage", 5}});
    ASSERT_EQ(built.status, 200) << built.body.dump();
    const auto steps = steps_of(built.body);
    ASSERT_EQ(steps.size(), 1U);
    ASSERT_EQ(send_and_confirm(steps[0]), "confirmed");
    const Reply holdings = get(std::string("/vaults/") + kVault + "/holdings");
    std::map<int, std::pair<std::uint64_t, std::uint64_t>> bins;  // id -> (x, y)
    ASSERT_EQ(holdings.status, 200);
    for (const auto& p : holdings.body["data"]["positions"]) {
      if (p.value("position", "") != steps[0]["position"]) continue;
      for (const auto& b : p["bins"])
        bins[b["binId"].get<int>()] = {std::stoull(b["amountX"].get<std::string>()),
                                       std::stoull(b["amountY"].get<std::string>())};
    }
    ASSERT_EQ(bins.size(), 9U) << shape << ": bins 4996 to 5004";
    std::uint64_t x = 0, y = 0;
    std::vector<std::uint64_t> ys, xs;  // from the active bin outwards
    for (const auto& [id, amounts] : bins) {
      x += amounts.first;
      y += amounts.second;
      if (id <= 5000) {
        EXPECT_EQ(amounts.first, 0U) << shape << ": X in bin " << id;
        ys.insert(ys.begin(), amounts.second);
      } else {
        EXPECT_EQ(amounts.second, 0U) << shape << ": Y in bin " << id;
        xs.push_back(amounts.first);
      }
    }
    EXPECT_EQ(x, 9000000U) << shape;
    EXPECT_EQ(y, 5000000U) << shape;
    for (const auto* side : {&xs, &ys}) {
      for (std::size_t i = 1; i < side->size(); ++i) {
        const std::uint64_t nearer = (*side)[i - 1], farther = (*side)[i];
        if (shape == "spot") {
          EXPECT_NEAR(static_cast<double>(nearer), static_cast<double>(farther), 1.0) << shape;
        } else if (shape == "curve") {
          EXPECT_GT(nearer, farther) << shape << " step " << i;
        } else {
          EXPECT_LT(nearer, farther) << shape << " step " << i;
        }
      }
    }
  }
}

// cursorBinId (spec 4.10): the same body resumed at a range's first bin builds exactly the
// ranges from there, with the same bins and amounts as the first build; anything else is 400.
TEST_F(Twin, Section4_10_CursorBinIdResumesARangedBuildAtARangeStart) {
  json body = {{"vault", kVault},    {"lbPair", kSolUsdcPool},   {"lowerBinId", 4800},
               {"upperBinId", 5000}, {"amountX", "200000001"},   {"amountY", "30000000"},
               {"shape", "spot"},    {"maxActiveBinSlippage", 5}};
  const auto whole = steps_of(post("/transactions/dlmm/open", body).body);
  ASSERT_EQ(whole.size(), 3U);
  body["cursorBinId"] = 4870;
  const Reply resumed = post("/transactions/dlmm/open", body);
  ASSERT_EQ(resumed.status, 200) << resumed.body.dump();
  const auto rest = steps_of(resumed.body);
  ASSERT_EQ(rest.size(), 2U);
  for (std::size_t i = 0; i < rest.size(); ++i) {
    EXPECT_EQ(rest[i]["lowerBinId"], whole[i + 1]["lowerBinId"]);
    EXPECT_EQ(rest[i]["upperBinId"], whole[i + 1]["upperBinId"]);
    // The instruction data carries the bins and the amounts; the accounts differ (new keys).
    const Bytes ours = tx_of(rest[i]).message.instructions.back().data;
    const Bytes first = tx_of(whole[i + 1]).message.instructions.back().data;
    EXPECT_EQ(ours, first) << "range " << i + 1 << " is funded as in the first build";
  }
  for (const int bad : {4871, 4799, 5000}) {
    body["cursorBinId"] = bad;
    expect_error(post("/transactions/dlmm/open", body), 400, "Validation", "cursorBinId");
  }
}

TEST_F(Twin, Section3_4_TwoHopSwapIntoANewTokenSetsUpThenFollowsUpWithNext) {
  // Vault holds SOL; SOL -> JUP routes through USDC (two hops) and opens a JUP strategy.
  const json body = {{"vault", kVault},
                     {"sourceMint", kSol},
                     {"destinationMint", kJup},
                     {"amount", "100000000"},
                     {"slippageBps", 50}};
  const json first = post("/transactions/aggregator/swap", body).body["result"];
  EXPECT_TRUE(first["initializesStrategy"].get<bool>());
  ASSERT_TRUE(first.contains("next"));
  EXPECT_EQ(first["next"]["path"], "aggregator/swap");
  EXPECT_EQ(first["next"]["body"], body) << "next.body is the body to send unchanged";
  EXPECT_EQ(send_and_confirm(first), "confirmed");
  const json second =
      post("/transactions/" + first["next"]["path"].get<std::string>(), first["next"]["body"])
          .body["result"];
  EXPECT_FALSE(second["initializesStrategy"].get<bool>());
  EXPECT_FALSE(second.contains("next"));
  EXPECT_EQ(send_and_confirm(second), "confirmed");
  const Reply holdings = get(std::string("/vaults/") + kVault + "/strategies");
  ASSERT_EQ(holdings.body["data"].size(), 1U);
  EXPECT_EQ(holdings.body["data"][0]["targetMint"], kJup);
  EXPECT_NE(holdings.body["data"][0]["vaultBalance"], "0")
      << get(std::string("/vaults/") + kVault + "/holdings").body.dump();
}

TEST_F(Twin, Section4_13_PerpOnboardingIsDeferredCoSignedAndSubmittedSeparately) {
  EXPECT_EQ(
      send_and_confirm(post("/transactions/perp/initialize", {{"vault", kVault}}).body["result"]),
      "confirmed");
  const json onboard = post("/transactions/perp/onboard", {{"vault", kVault}}).body["result"];
  EXPECT_TRUE(onboard["simulation"]["deferred"].get<bool>());
  const auto checks = check_signatures(tx_of(onboard));
  ASSERT_EQ(checks.size(), 2U);
  EXPECT_EQ(checks[1].state, SignatureState::kEmpty) << "the venue signs at submit";
  expect_error(post("/transactions/send", signed_send_body(onboard)), 403, "InvalidTicket",
               "submit");
  control("/_sim/faults", {{"venueFailure", "PerpApi"}});
  expect_error(post("/transactions/perp/onboard/submit", signed_send_body(onboard)), 502,
               "PerpApi");
  control("/_sim/faults", {{"venueFailure", nullptr}});
  EXPECT_EQ(send_and_confirm(onboard), "confirmed");
  expect_error(post("/transactions/perp/onboard", {{"vault", kVault}}), 409,
               "PerpAlreadyOnboarded");
}

TEST_F(Twin, RpcServesTheLookupTablesInTheirOnChainLayout) {
  const json step = post("/transactions/aggregator/swap", swap_body()).body["result"];
  const Transaction tx = tx_of(step);
  ASSERT_EQ(tx.message.lookups.size(), 1U);
  const std::string table = to_base58(tx.message.lookups[0].table);
  auto r = client_->Post("/rpc",
                         json{{"jsonrpc", "2.0"},
                              {"id", 1},
                              {"method", "getAccountInfo"},
                              {"params", {table, {{"encoding", "base64"}}}}}
                             .dump(),
                         "application/json");
  ASSERT_TRUE(r);
  const json reply = json::parse(r->body);
  EXPECT_EQ(reply["result"]["value"]["owner"], "AddressLookupTab1e1111111111111111111111111");
  auto data = from_base64(reply["result"]["value"]["data"][0].get<std::string>(), 1 << 16);
  ASSERT_TRUE(data.ok());
  ASSERT_GE(data->size(), 56U);
  EXPECT_EQ((*data)[0], 1) << "ProgramState::LookupTable";
  ASSERT_EQ((data->size() - 56) % 32, 0U);
  LoadedTable loaded{tx.message.lookups[0].table, {}};
  for (std::size_t i = 56; i < data->size(); i += 32)
    loaded.addresses.push_back(fixed_from_view<32>(ByteView(*data).subspan(i, 32)));
  auto roles = account_roles(tx.message, std::span<const LoadedTable>(&loaded, 1));
  ASSERT_TRUE(roles.ok()) << roles.error().to_string();
  for (const auto& role : *roles) EXPECT_TRUE(role.key.has_value());
  auto slot =
      client_->Post("/rpc", R"({"jsonrpc":"2.0","id":2,"method":"getSlot"})", "application/json");
  EXPECT_TRUE(json::parse(slot->body)["result"].is_number_unsigned());
}

TEST_F(Twin, SimControlNeedsItsToken) {
  auto r = client_->Get("/_sim/counters");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
}

}  // namespace
}  // namespace airlock::apisim::test
