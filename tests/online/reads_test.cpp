// The read commands: arguments checked by rule before anything is sent, paths and queries as
// the spec names them, and replies shown with every field, known or not.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/online/reads.h>

using ::testing::HasSubstr;
using ::testing::Not;

namespace airlock::online {
namespace {

using json = nlohmann::json;

constexpr const char* kVault = "CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT";
constexpr const char* kUsdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
constexpr const char* kJup = "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN";

std::string error_of(const std::string& command, const ReadArgs& a) {
  auto p = read_path(command, a);
  return p.ok() ? "ok: " + *p : p.error().message();
}

TEST(Reads, PathsFollowTheSpec) {
  ReadArgs a;
  a.target = kVault;
  EXPECT_EQ(read_path("holdings", a).value(), std::string("/vaults/") + kVault + "/holdings");
  EXPECT_EQ(read_path("strategy-history", a).value(),
            std::string("/vaults/") + kVault + "/strategy-history");
  a.limit = 5;
  EXPECT_EQ(read_path("nav", a).value(), std::string("/vaults/") + kVault + "/nav?limit=5");
  ReadArgs q;
  q.vault = kVault;
  q.input_mint = kUsdc;
  q.output_mint = kJup;
  q.amount = "5000000";
  q.slippage_bps = 50;
  EXPECT_EQ(read_path("quote", q).value(), std::string("/aggregator/quote?vault=") + kVault +
                                               "&inputMint=" + kUsdc + "&outputMint=" + kJup +
                                               "&amount=5000000&slippageBps=50");
  ReadArgs pools;
  pools.page = 2;
  pools.query = {{"search", "SOL/USDC & more"}};
  EXPECT_EQ(read_path("pools", pools).value(), "/dlmm/pools?search=SOL%2FUSDC%20%26%20more&page=2");
  EXPECT_EQ(read_path("vaults", {}).value(), "/vaults");
  EXPECT_EQ(read_commands().size(), 12U);
}

TEST(Reads, BadArgumentsNameTheFieldAndTheRule) {
  ReadArgs none;
  EXPECT_EQ(error_of("holdings", none), "VAULT: is required");
  ReadArgs bad;
  bad.target = "not-a-key";
  EXPECT_THAT(error_of("vault", bad), HasSubstr("VAULT: must be a base58 public key"));
  ReadArgs q;
  q.vault = kVault;
  q.input_mint = kUsdc;
  q.output_mint = kJup;
  q.slippage_bps = 50;
  for (const char* amount : {"", "-5", "1.5", "007", "18446744073709551616", "1e6"}) {
    q.amount = amount;
    EXPECT_THAT(error_of("quote", q), HasSubstr("--amount: must be a base-unit amount")) << amount;
  }
  q.amount = "18446744073709551615";
  EXPECT_EQ(error_of("quote", q).rfind("ok", 0), 0U);
  q.slippage_bps = 10001;
  EXPECT_THAT(error_of("quote", q),
              HasSubstr("--slippage-bps: must be an integer from 1 to 10000"));
  ReadArgs token;
  token.target = kUsdc;
  EXPECT_EQ(error_of("token", token), "--vault: is required");
  ReadArgs nav;
  nav.target = kVault;
  nav.limit = 0;
  EXPECT_EQ(error_of("nav", nav), "--limit: must be a positive integer");
  EXPECT_THAT(error_of("balances", {}), HasSubstr("is not a read"));
}

TEST(Reads, HoldingsShowUnitsPartialPricesAndEveryPositionKind) {
  const json usdc = {{"mint", kUsdc}, {"symbol", "USDC"}, {"decimals", 6}};
  const json reply = {
      {"vault", kVault},
      {"data",
       {{"depositToken", usdc},
        {"totalValue", "2500150000000"},
        {"totalUsd", 2500150.0},
        {"navTotalAssets", "2500000000000"},
        {"navDeltaBps", 6},
        {"partial", true},
        {"unpriced", {"BONK"}},
        {"tokens",
         {{{"token", usdc}, {"amount", "2500000000000"}, {"usd", 2500000.0}, {"shareBps", 9999}}}},
        {"positions",
         {{{"kind", "lp"},
           {"strategy", "S1"},
           {"position", "P1"},
           {"tokenX", {{"symbol", "SOL"}}},
           {"tokenY", usdc},
           {"range", {{"lowerBinId", 4930}, {"upperBinId", 5070}, {"inRange", false}}},
           {"value", "150000000"},
           {"usd", 150.0},
           {"closable", false}},
          {{"kind", "error"}, {"strategy", "S2"}, {"protocol", "perp"}, {"reason", "gone"}},
          {{"kind", "vesting"}, {"strategy", "S3"}, {"value", "1"}}}}}}};
  const std::string text = render_read("holdings", reply);
  EXPECT_THAT(text, HasSubstr("total     2500150 USDC  ($2500150.00)"));
  EXPECT_THAT(text, HasSubstr("PARTIAL   no price for: [\"BONK\"]"));
  EXPECT_THAT(text, HasSubstr("99.99%"));
  EXPECT_THAT(text, HasSubstr("SOL/USDC bins 4930..5070 OUT OF RANGE"));
  EXPECT_THAT(text, HasSubstr("UNREADABLE perp: gone"));
  EXPECT_THAT(text, HasSubstr("(a kind this version does not know)"));
  // Each holding by the account its actions take (operator review F10: the strategy was shown
  // where dlmm/remove needs the position).
  EXPECT_THAT(text, HasSubstr("lp       P1 (position)"));
  EXPECT_THAT(text, Not(HasSubstr("S1")));
  EXPECT_THAT(text, HasSubstr("S2 (strategy)")) << "an unreadable one without its position";
}

TEST(Reads, RepliesOfAnUnexpectedShapeAreShownNotThrown) {
  for (const char* text : {R"({"data": [1, 2]})", R"({"data": {"partial": "yes", "tokens": 5,
                           "positions": [{"kind": "lp", "range": 3}]}})",
                           R"([])", R"({"vaults": {"a": 1}})"}) {
    const json reply = json::parse(text);
    for (const char* command : {"holdings", "strategies", "nav", "vaults", "quote", "perp"})
      EXPECT_NO_THROW((void)render_read(command, reply)) << command << " " << text;
  }
}

TEST(Reads, UnknownFieldsAreShownNotDropped) {
  const json reply = json::parse(R"({
    "vault": "CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT",
    "data": {
      "address": "CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT",
      "protocol": {"maxSlippageBps": 300},
      "newFieldFromTheFuture": "kept",
      "queue": [{"id": 1, "extra": true}]
    }
  })");
  const std::string text = render_read("vault", reply);
  EXPECT_THAT(text, HasSubstr("protocol.maxSlippageBps  300"));
  EXPECT_THAT(text, HasSubstr("newFieldFromTheFuture"));
  EXPECT_THAT(text, HasSubstr("kept"));
  EXPECT_THAT(text, HasSubstr("extra"));
}

}  // namespace
}  // namespace airlock::online

namespace airlock::online {
namespace {

// Issue 13: an error message or field with escape sequences set the terminal's title and
// printed a fake green line. Every string of a reply reaches the terminal escaped.
TEST(Reads, ServerStringsReachTheTerminalEscaped) {
  const json reply = {{"vault", "CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT"},
                      {"data",
                       {{"name", "\x1b]0;owned\x07\x1b[32maggregator/swap done\x1b[0m"},
                        {"note", "ok\rFAKE \xe2\x80\xae reversed"}}}};
  const std::string shown = render_read("vault", reply);
  for (const std::string_view raw : {"\x1b", "\x07", "\r", "\xe2\x80\xae"})
    EXPECT_THAT(shown, Not(HasSubstr(raw)));
  EXPECT_THAT(shown, HasSubstr("\\u{001B}[32maggregator/swap done"));
}

}  // namespace
}  // namespace airlock::online
