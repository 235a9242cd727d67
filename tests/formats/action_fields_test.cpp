// The builder body fields: every action has its table, flags read by rule, and a body's fields
// checked before anything is sent, each error naming the field and the rule.
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/formats/action_fields.h>

using ::testing::HasSubstr;

namespace airlock {
namespace {

using json = nlohmann::json;

const Field& field_of(const std::string& action, const std::string& name) {
  for (const auto& f : *action_fields(action)) {
    if (f.name == name) return f;
  }
  throw std::runtime_error("no field " + name);
}

std::string error_of(const Field& f, const std::string& text) {
  auto v = field_value(f, text);
  return v.ok() ? "ok: " + v->dump() : v.error().message();
}

TEST(Fields, EveryBuilderActionHasItsFields) {
  ASSERT_EQ(builder_actions().size(), 28U);
  std::set<std::string> unique(builder_actions().begin(), builder_actions().end());
  EXPECT_EQ(unique.size(), 28U);
  for (const auto& action : builder_actions()) {
    const auto* fields = action_fields(action);
    ASSERT_NE(fields, nullptr) << action;
    // Every action but vault/initialize names its vault.
    const bool has_vault = std::any_of(fields->begin(), fields->end(),
                                       [](const Field& f) { return f.name == "vault"; });
    EXPECT_EQ(has_vault, action != "vault/initialize") << action;
  }
  EXPECT_EQ(action_fields("vault/destroy"), nullptr);
  EXPECT_EQ(flag_name("sourceMint"), "source-mint");
  EXPECT_EQ(flag_name("amountX"), "amount-x");
  EXPECT_EQ(flag_name("maxActiveBinSlippage"), "max-active-bin-slippage");
}

TEST(Fields, FlagsAreReadByTheFieldsRule) {
  const Field& amount = field_of("aggregator/swap", "amount");
  EXPECT_EQ(error_of(amount, "5000000"), "ok: \"5000000\"");
  for (const char* bad : {"1.5", "-1", "05", "18446744073709551616", ""}) {
    EXPECT_THAT(error_of(amount, bad), HasSubstr("--amount: must be a base-unit amount")) << bad;
  }
  const Field& slip = field_of("aggregator/swap", "slippageBps");
  EXPECT_EQ(error_of(slip, "50"), "ok: 50");
  EXPECT_THAT(error_of(slip, "0"), HasSubstr("--slippage-bps: must be an integer from 1 to 10000"));
  EXPECT_THAT(error_of(slip, "5x"), HasSubstr("--slippage-bps"));
  EXPECT_THAT(error_of(field_of("aggregator/swap", "sourceMint"), "USDC"),
              HasSubstr("--source-mint: must be a base58 public key"));
  EXPECT_THAT(error_of(field_of("dlmm/open", "shape"), "flat"),
              HasSubstr("must be one of spot, curve"));
  EXPECT_EQ(error_of(field_of("perp/order", "reduceOnly"), "true"), "ok: true");
  EXPECT_THAT(error_of(field_of("perp/order", "reduceOnly"), "yes"), HasSubstr("true or false"));
  EXPECT_EQ(error_of(field_of("perp/order", "size"), "1.5"), "ok: \"1.5\"");
  EXPECT_THAT(error_of(field_of("perp/order", "size"), "1."), HasSubstr("decimal number"));
  EXPECT_EQ(error_of(field_of("perp/cancel", "orders"), "all"), "ok: \"all\"");
  EXPECT_EQ(
      error_of(field_of("dlmm/limit-order/place", "bins"), "[{\"binId\":4990,\"amount\":\"1\"}]"),
      "ok: [{\"amount\":\"1\",\"binId\":4990}]");
  EXPECT_THAT(error_of(field_of("dlmm/limit-order/place", "bins"), "[{"),
              HasSubstr("--bins: must be JSON"));
}

TEST(Fields, ABodyIsCheckedFieldByField) {
  const json good = {{"vault", "CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT"},
                     {"depositCap", "20000000000000"},
                     {"somethingNew", 1}};
  EXPECT_TRUE(check_body("vault/update", good).ok()) << "unknown fields pass: the API ignores them";
  auto bad = good;
  bad["managementFeeBps"] = 20000;
  EXPECT_EQ(check_body("vault/update", bad).error().message(),
            "body.managementFeeBps: must be an integer from 0 to 10000");
  bad = good;
  bad["depositCap"] = 5;
  EXPECT_THAT(check_body("vault/update", bad).error().message(), HasSubstr("body.depositCap"));
  bad = good;
  bad["payer"] = "AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax";
  EXPECT_THAT(check_body("vault/update", bad).error().message(), HasSubstr("body.payer"));
  EXPECT_THAT(check_body("vault/explode", good).error().message(), HasSubstr("not one of the 28"));
}

// The rules the spec states between fields, checked before anything is built.
TEST(Fields, TheRulesBetweenFieldsAreCheckedByName) {
  const std::string vault = "CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT";
  const std::string usdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
  const std::string sol = "So11111111111111111111111111111111111111112";
  const auto message = [](const std::string& action, const json& body) {
    const auto s = check_body(action, body);
    return s.ok() ? std::string("ok") : s.error().message();
  };
  EXPECT_EQ(message("vault/claim-fee", json::object()),
            "body.vault: is required: every builder but vault/initialize acts on a vault");
  EXPECT_EQ(message("vault/initialize", {{"depositMint", usdc}}), "ok");
  const json swap = {{"vault", vault},
                     {"sourceMint", usdc},
                     {"destinationMint", sol},
                     {"amount", "1"},
                     {"slippageBps", 50}};
  EXPECT_EQ(message("aggregator/swap", swap), "ok");
  auto same = swap;
  same["destinationMint"] = usdc;
  EXPECT_EQ(message("aggregator/swap", same), "body.destinationMint: must differ from sourceMint");
  const json add = {{"vault", vault}, {"position", sol}, {"lowerBinId", 10}};
  EXPECT_EQ(message("dlmm/add", add),
            "body.upperBinId: the sub-range is lowerBinId and upperBinId together, or neither");
  EXPECT_EQ(message("dlmm/remove", {{"vault", vault}, {"upperBinId", 10}}),
            "body.lowerBinId: the sub-range is lowerBinId and upperBinId together, or neither");
  EXPECT_EQ(message("dlmm/add", {{"vault", vault}, {"lowerBinId", 10}, {"upperBinId", 10}}), "ok")
      << "an inclusive range of one bin";
  EXPECT_EQ(message("dlmm/flip", {{"vault", vault}, {"lowerBinId", 11}, {"upperBinId", 10}}),
            "body.upperBinId: must not be below lowerBinId (it is inclusive)");
  EXPECT_EQ(message("dlmm/open", {{"vault", vault}, {"lowerBinId", 10}, {"upperBinId", 10}}),
            "body.upperBinId: must be above lowerBinId (it is exclusive)");
  EXPECT_EQ(message("dlmm/open", {{"vault", vault}, {"lowerBinId", 0}, {"upperBinId", 1400}}),
            "ok");
  EXPECT_EQ(message("dlmm/open", {{"vault", vault}, {"lowerBinId", 0}, {"upperBinId", 1401}}),
            "body.upperBinId: dlmm/open takes at most 1400 bins");
  // Fields a builder does not take are ignored, as the API ignores them.
  EXPECT_EQ(message("dlmm/close", {{"vault", vault}, {"lowerBinId", "x"}, {"upperBinId", -5}}),
            "ok");
}

// What a body may hold, leaf by leaf (the offline half's warn.unknown_field and NO FIELD): a
// field, an element of a list field, a member the field's objects hold; nothing deeper, no
// other member, no field of another action.
TEST(Fields, ABodyLeafIsTheApisOnlyWhereItsFieldAndMemberAre) {
  EXPECT_TRUE(takes_path("dlmm/limit-order/place", "bins[3].amount"));
  EXPECT_TRUE(takes_path("dlmm/limit-order/place", "bins[0].binId"));
  EXPECT_TRUE(takes_path("dlmm/limit-order/place", "bins"));  // an empty list
  EXPECT_FALSE(takes_path("dlmm/limit-order/place", "bins[0].note"));
  EXPECT_FALSE(takes_path("dlmm/limit-order/place", "bins[0].amount.x"));
  EXPECT_FALSE(takes_path("dlmm/limit-order/place", "bins[0][1]"));
  EXPECT_FALSE(takes_path("dlmm/limit-order/place", "slippageBps"));
  EXPECT_TRUE(takes_path("perp/order", "order.price"));
  EXPECT_FALSE(takes_path("perp/order", "order.leverage"));
  EXPECT_TRUE(takes_path("perp/cancel", "orders"));  // "all"
  EXPECT_TRUE(takes_path("perp/cancel", "orders[1].orderSequenceNumber"));
  EXPECT_TRUE(takes_path("dlmm/zap-out/swap", "sources[0].closeWhenEmpty"));
  EXPECT_FALSE(takes_path("vault/update", "depositCap.value"));
  EXPECT_FALSE(takes_path("vault/update", "reason"));
  EXPECT_TRUE(takes_path("voltr/deposit-strategy", "anything"));  // no table: its descriptor's
  const auto body = nlohmann::ordered_json::parse(
      R"({"vault":"v","bins":[{"binId":1,"amount":"2"}],"order":{},"orders":[]})");
  EXPECT_EQ(leaf_paths(body), (std::vector<std::string>{"vault", "bins[0].binId", "bins[0].amount",
                                                        "order", "orders"}));
}

}  // namespace
}  // namespace airlock
