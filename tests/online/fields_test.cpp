// The builder body fields: every action has its table, flags read by rule, and a body's fields
// checked before anything is sent, each error naming the field and the rule.
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/online/fields.h>

using ::testing::HasSubstr;

namespace airlock::online {
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

}  // namespace
}  // namespace airlock::online
