// The named checkers (offline/src/checkers.cpp) and the typed argument reads they and the
// generic binder use (offline/src/arguments.cpp), tested directly: each checker refuses what it
// exists to refuse, and passes the honest shape the twin builds.
#include <gtest/gtest.h>

#include <airlock/offline/arguments.h>
#include <airlock/offline/checkers.h>

namespace airlock::offline {
namespace {

using ojson = nlohmann::ordered_json;

std::vector<std::string> codes(const TemplateFindings& f) {
  std::vector<std::string> out;
  for (const auto& r : f.refusals) out.push_back(r.code);
  return out;
}

std::vector<std::string> warnings(const TemplateFindings& f) {
  std::vector<std::string> out;
  for (const auto& w : f.warnings) out.push_back(w.code);
  return out;
}

// Runs checker `name` on an instruction with `args` (and a nested route when given) against
// `body` (nullptr: a request with none).
TemplateFindings run(std::string_view name, const ojson& args, const ojson* body,
                     const std::optional<ojson>& route = std::nullopt, ActionRule rule = {}) {
  Decoded d;
  d.instruction = "under_test";
  d.args = args;
  if (route) {
    Decoded r;
    r.instruction = "route";
    r.args = *route;
    d.nested.emplace("route", std::move(r));
  }
  const Arguments a(d.args);
  const std::string where = "instruction 1 (under_test)";
  TemplateFindings out;
  const NamedChecker* c = argument_checker(name);
  EXPECT_NE(c, nullptr) << name;
  if (c != nullptr && c->check != nullptr) c->check({d, a, body, rule, "test/action", where}, out);
  return out;
}

TEST(Arguments, ReadsByTypeAndNeverThrows) {
  const ojson args = ojson::parse(
      R"({"amount":"18446744073709551615","bin":-5,"order":{"side":{"variant":"Long"},)"
      R"("price":"0012"},"flag":true})");
  const Arguments a(args);
  EXPECT_EQ(a.amount("amount"), 18446744073709551615ULL);
  EXPECT_EQ(a.integer("amount"), std::nullopt);  // past int64
  EXPECT_EQ(a.integer("bin"), -5);
  EXPECT_EQ(a.amount("bin"), std::nullopt);  // negative
  EXPECT_EQ(a.variant("order.side"), "Long");
  EXPECT_EQ(a.variant("order"), std::nullopt);
  EXPECT_EQ(a.integer("order.price"), std::nullopt);  // not canonical
  EXPECT_EQ(a.integer("flag"), std::nullopt);
  EXPECT_EQ(a.at("order.missing"), nullptr);
  EXPECT_EQ(a.at("flag.deeper"), nullptr);
  EXPECT_EQ(a.shown("nothing"), "missing");
}

TEST(Arguments, BodyPointersReadWithoutExceptions) {
  const ojson body = ojson::parse(R"({"a/b":1,"m~n":2,"list":[{"x":3}],"s":"t"})");
  EXPECT_EQ(*body_at(body, "/a~1b"), 1);
  EXPECT_EQ(*body_at(body, "/m~0n"), 2);
  EXPECT_EQ(*body_at(body, "/list/0/x"), 3);
  for (const char* absent : {"/list/1/x", "/list/01/x", "/list/-/x", "/list/x", "/s/0", "/bad~2",
                             "no-slash", "/missing"})
    EXPECT_EQ(body_at(body, absent), nullptr) << absent;
}

TEST(Arguments, ValuesCompareAsTheApiWritesThem) {
  EXPECT_TRUE(same_value(ojson("5000000"), ojson("5000000")));
  EXPECT_FALSE(same_value(ojson("5000000"), ojson(5000000)));  // an amount is a string
  EXPECT_TRUE(same_value(ojson(4990), ojson(4990)));
  EXPECT_FALSE(same_value(ojson(4990), ojson("4990")));  // a bin id is a number
  EXPECT_FALSE(same_value(ojson(4990), ojson(4990.0)));
  EXPECT_FALSE(same_value(ojson("5"), ojson("05")));
  EXPECT_FALSE(same_value(ojson(-5), ojson(18446744073709551611ULL)));
  EXPECT_TRUE(same_value(ojson(nullptr), ojson(nullptr)));
  EXPECT_FALSE(same_value(ojson(true), ojson(1)));
}

// An honest exact-in route of 1,000,000 in, quoting 990,000 out at 50 bps.
ojson route_of(std::string in, std::string quote, int bps) {
  return {
      {"in_amount", std::move(in)}, {"quoted_out_amount", std::move(quote)}, {"slippage_bps", bps}};
}
ojson swap_args(std::string minimum, int bps = 50) {
  return {{"amount", "1000000"}, {"minimum_out", std::move(minimum)}, {"slippage_bps", bps}};
}

TEST(JupiterRoute, AnHonestRouteAndFloorPass) {
  EXPECT_TRUE(run("jupiter_route", swap_args("985050"), nullptr, route_of("1000000", "990000", 50))
                  .refusals.empty());
}

TEST(JupiterRoute, EachBrokenFloorIsRefusedAsMinimumOut) {
  struct Case {
    const char* what;
    ojson args;
    std::optional<ojson> route;
    std::string code;
  };
  ojson no_quote = route_of("1000000", "1", 50);
  no_quote.erase("quoted_out_amount");
  const Case cases[] = {
      {"no quote", swap_args("1"), no_quote, "intent.minimum_out"},
      {"a quote of zero", swap_args("0"), route_of("1000000", "0", 50), "intent.minimum_out"},
      {"a slippage of everything", swap_args("1", 10000), route_of("1000000", "990000", 10000),
       "intent.minimum_out"},
      {"a quote smaller than its slippage", swap_args("9"), route_of("1000000", "9", 50),
       "intent.minimum_out"},
      {"a minimum out of zero", swap_args("0"), route_of("1000000", "990000", 50),
       "intent.minimum_out"},
      {"a minimum below the quote less slippage", swap_args("985049"),
       route_of("1000000", "990000", 50), "intent.minimum_out"},
      {"a route spending another amount", swap_args("985050"), route_of("999999", "990000", 50),
       "intent.amount"},
      {"a route slipping more than the instruction", swap_args("985050"),
       route_of("1000000", "990000", 51), "intent.slippage"},
      {"no route this machine decodes", swap_args("985050"), std::nullopt, "policy.undecodable"},
  };
  for (const auto& c : cases) {
    const auto found = run("jupiter_route", c.args, nullptr, c.route);
    const auto got = codes(found);
    EXPECT_NE(std::find(got.begin(), got.end(), c.code), got.end()) << c.what;
  }
}

// A swap of what the vault holds (a zap-out's returned tokens) names no amount: the route's
// in_amount is the online half's word, so it is shown and asked, never signed unasked (an
// attacker review had a zap-out swap's route spend a made-up amount, priced in proportion,
// signed under the price floor with no question). An honest route with its amount passes
// without the warning.
TEST(JupiterRoute, ARouteSpendingWhatNothingBindsIsAsked) {
  const ojson holds = {{"balance_before", "700000000"}, {"slippage_bps", 50}};
  const auto found = run("jupiter_route", holds, nullptr, route_of("1000", "990", 50));
  EXPECT_TRUE(found.refusals.empty()) << found.refusals.front().message;
  ASSERT_EQ(warnings(found), std::vector<std::string>{"warn.unverifiable"});
  EXPECT_NE(found.warnings.front().message.find("the route spends \"1000\""), std::string::npos)
      << found.warnings.front().message;
  EXPECT_TRUE(run("jupiter_route", swap_args("985050"), nullptr, route_of("1000000", "990000", 50))
                  .warnings.empty());
}

TEST(PositionChecks, TheNewPositionIsTheRequestsBins) {
  const ojson body = {{"lowerBinId", 4980}, {"upperBinId", 5050}};
  EXPECT_TRUE(
      run("position_of_body", {{"lower_bin_id", 4980}, {"width", 70}}, &body).refusals.empty());
  EXPECT_EQ(codes(run("position_of_body", {{"lower_bin_id", 4981}, {"width", 70}}, &body)),
            std::vector<std::string>{"intent.bins"});
  EXPECT_EQ(codes(run("position_of_body", {{"lower_bin_id", 4980}, {"width", 69}}, &body)),
            std::vector<std::string>{"intent.bins"});
  // Without a build request only the instruction itself says where the position lies.
  EXPECT_TRUE(
      run("position_of_body", {{"lower_bin_id", 1}, {"width", 1}}, nullptr).refusals.empty());
}

TEST(PositionChecks, LiquidityFillsExactlyThePositionItOpens) {
  const auto args = [](int lower, int width, int min, int max) {
    return ojson{{"lower_bin_id", lower},
                 {"width", width},
                 {"strategy", {{"min_bin_id", min}, {"max_bin_id", max}}}};
  };
  EXPECT_TRUE(run("liquidity_fills_position", args(100, 70, 100, 169), nullptr).refusals.empty());
  for (const auto& a : {args(100, 70, 101, 169), args(100, 70, 100, 170), args(100, 0, 100, 99),
                        args(100, 70, 99, 169)})
    EXPECT_EQ(codes(run("liquidity_fills_position", a, nullptr)),
              std::vector<std::string>{"intent.bins"})
        << a.dump();
}

TEST(PositionChecks, AnExtensionEndsWithinTheRequest) {
  const ojson body = {{"upperBinId", 5100}};
  const auto passes = [](const ojson& args, const ojson& b) {
    return run("extension_within", args, &b).refusals.empty();
  };
  const auto refused = [](const ojson& args, const ojson& b) {
    return codes(run("extension_within", args, &b)) == std::vector<std::string>{"intent.bins"};
  };
  // Ending at the request's upper bin, or a whole 70 bins short of it.
  EXPECT_TRUE(passes({{"lower_bin_id", 5050}, {"width", 51}}, body));
  EXPECT_TRUE(passes({{"lower_bin_id", 4000}, {"width", 70}}, body));
  EXPECT_TRUE(refused({{"lower_bin_id", 5050}, {"width", 52}}, body)) << "past upperBinId";
  // Found by an attacker review: 1400 bins (or one bin far below) signed as the extension.
  EXPECT_TRUE(refused({{"lower_bin_id", 3631}, {"width", 1400}}, body));
  EXPECT_TRUE(refused({{"lower_bin_id", 5030}, {"width", 71}}, body));
  EXPECT_TRUE(refused({{"lower_bin_id", -400000}, {"width", 1}}, body)) << "neither end nor whole";
  EXPECT_TRUE(refused({{"lower_bin_id", 4000}, {"width", 69}}, body));
  // A follow-up starts a whole number of 70-bin steps after the first new bin.
  const ojson follow = {{"upperBinId", 5300}, {"fromBinId", 5031}};
  EXPECT_TRUE(passes({{"lower_bin_id", 5101}, {"width", 70}}, follow));
  EXPECT_TRUE(passes({{"lower_bin_id", 5241}, {"width", 60}}, follow));
  EXPECT_TRUE(refused({{"lower_bin_id", 5100}, {"width", 70}}, follow));
  EXPECT_TRUE(refused({{"lower_bin_id", 4961}, {"width", 70}}, follow)) << "before fromBinId";
  for (const ojson& from : {ojson("5031"), ojson(-9223372036854775807LL), ojson(443637)}) {
    const ojson odd = {{"upperBinId", 5300}, {"fromBinId", from}};
    EXPECT_TRUE(refused({{"lower_bin_id", 5101}, {"width", 70}}, odd)) << from.dump();
  }
}

TEST(PerpOrderType, TheTypeFollowsTheRequestsTypeAndPostOnly) {
  const auto order = [](const char* variant) {
    return ojson{{"order", {{"order_type", {{"variant", variant}}}}}};
  };
  const ojson market = ojson::parse(R"({"order":{"type":"market"}})");
  const ojson post = ojson::parse(R"({"order":{"type":"limit","postOnly":true}})");
  const ojson limit = ojson::parse(R"({"order":{"type":"limit","postOnly":false}})");
  const ojson stop = ojson::parse(R"({"order":{"type":"stop"}})");
  EXPECT_TRUE(run("perp_order_type", order("ImmediateOrCancel"), &market).refusals.empty());
  EXPECT_TRUE(run("perp_order_type", order("PostOnly"), &post).refusals.empty());
  EXPECT_TRUE(run("perp_order_type", order("Limit"), &limit).refusals.empty());
  EXPECT_EQ(codes(run("perp_order_type", order("Limit"), &post)),
            std::vector<std::string>{"intent.order_type"});
  EXPECT_EQ(codes(run("perp_order_type", order("ImmediateOrCancel"), &limit)),
            std::vector<std::string>{"intent.order_type"});
  EXPECT_EQ(codes(run("perp_order_type", order("Limit"), &stop)),
            std::vector<std::string>{"intent.order_type"});
  // Only the values the API takes: a postOnly of "true" or 1 asks for no type at all (it must
  // not read as a plain limit order that may take liquidity).
  for (const char* body :
       {R"({"order":{"type":"limit","postOnly":"true"}})",
        R"({"order":{"type":"limit","postOnly":1}})", R"({"order":{"type":["limit"]}})"}) {
    const ojson odd = ojson::parse(body);
    EXPECT_EQ(codes(run("perp_order_type", order("Limit"), &odd)),
              std::vector<std::string>{"intent.order_type"})
        << body;
  }
}

TEST(VaultPause, APauseIsAsAskedAndLiftingItAlwaysAsks) {
  const auto update = [](ojson paused) { return ojson{{"update", {{"paused", paused}}}}; };
  const ojson none = ojson::object();
  const ojson pause = {{"paused", true}};
  const ojson unpause = {{"paused", false}};
  EXPECT_TRUE(run("vault_pause", update(nullptr), &none).refusals.empty());
  EXPECT_TRUE(run("vault_pause", update(true), &pause).refusals.empty());
  EXPECT_EQ(codes(run("vault_pause", update(true), &none)),
            std::vector<std::string>{"intent.flag"});
  EXPECT_EQ(codes(run("vault_pause", update(nullptr), &pause)),
            std::vector<std::string>{"intent.flag"});
  const auto lifted = run("vault_pause", update(false), &unpause);
  EXPECT_TRUE(lifted.refusals.empty());
  EXPECT_EQ(warnings(lifted), std::vector<std::string>{"warn.unpause"});
  EXPECT_EQ(warnings(run("vault_pause", update(false), nullptr)),
            std::vector<std::string>{"warn.unpause"});
}

TEST(NamedCheckers, EachIsFoundByNameAndStatesWhatItReads) {
  for (const char* name :
       {"jupiter_route", "step_shares", "position_of_body", "liquidity_fills_position",
        "extension_within", "perp_order_type", "vault_pause"}) {
    const NamedChecker* c = argument_checker(name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_FALSE(c->holds.empty()) << name;
    EXPECT_EQ(c->reads.empty(), c->check == nullptr) << name;
  }
  EXPECT_EQ(argument_checker("trust_me"), nullptr);
}

}  // namespace
}  // namespace airlock::offline
