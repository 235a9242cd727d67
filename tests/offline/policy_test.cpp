// The policy file: safe defaults, every setting read, and every mistake named by key and rule.
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/offline/policy.h>
#include <airlock/offline/signing.h>

#include "support/helpers.h"

using ::testing::HasSubstr;

namespace airlock::offline {
namespace {

constexpr const char* kHead =
    "version = 1\nmanager = \"AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax\"\n";

std::string error_of(const std::string& text) {
  auto p = parse_policy(text);
  return p.ok() ? std::string("ok") : p.error().message();
}

TEST(Policy, TheExampleParsesAndMeansWhatItSays) {
  auto p = load_policy_file(AIRLOCK_POLICY_EXAMPLE);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(to_base58(p->manager), "AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax");
  EXPECT_EQ(p->vaults.size(), 1U);
  EXPECT_EQ(p->programs.size(), 2U);
  EXPECT_EQ(p->max_priority_fee_lamports, 100000U);
  EXPECT_EQ(p->rule("aggregator/swap").max_slippage_bps, 100);
  EXPECT_TRUE(p->rule("aggregator/swap").allowed);
  EXPECT_FALSE(p->rule("vault/close").allowed);
  EXPECT_FALSE(p->rule("dlmm/open").auto_approve) << "no section: allowed, never automatic";
  ASSERT_EQ(p->tokens.size(), 3U);
  const auto* usdc =
      p->token(public_key_from_base58("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v").value());
  ASSERT_NE(usdc, nullptr);
  EXPECT_EQ(usdc->symbol, "USDC");
  EXPECT_EQ(usdc->decimals, 6);
  const auto sol = public_key_from_base58("So11111111111111111111111111111111111111112").value();
  const auto* floor = p->price_floor(usdc->mint, sol);
  ASSERT_NE(floor, nullptr);
  EXPECT_EQ(floor->numerator, 6U);
  EXPECT_EQ(floor->scale, 3U);
  EXPECT_NE(p->price_floor(sol, usdc->mint), nullptr);
  EXPECT_EQ(p->price_floor(sol, sol), nullptr);
}

// Issue 32: `policy check` reads a policy as sign reads it, says what it will do, and gives the
// hash approvals are given under; a broken policy is refused by key and rule.
TEST(PolicyCheck, ThePolicyIsReadAsSignReadsItAndSaidInWords) {
  const auto ok = airlock::test::run_command(std::string(AIRLOCK_OFFLINE_BIN) + " policy check " +
                                             AIRLOCK_POLICY_EXAMPLE);
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_THAT(ok.output, HasSubstr("action    vault/close: refused"));
  EXPECT_THAT(ok.output, HasSubstr("action    aggregator/swap: asks, slippage at most 100 bps"));
  EXPECT_THAT(ok.output, HasSubstr("the files match their hashes"));
  EXPECT_THAT(ok.output, HasSubstr("price     selling USDC for JUP: at least 1.1 JUP per USDC"));
  const auto example = load_policy_file(AIRLOCK_POLICY_EXAMPLE);
  ASSERT_TRUE(example.ok());
  EXPECT_THAT(ok.output, HasSubstr("sha256    " + to_hex(policy_hash(*example).view())));

  airlock::test::ScratchDir dir("airlock-policy-check");
  const auto check = [&](const std::string& text) {
    std::ofstream(dir.file("p.toml")) << text;
    return airlock::test::run_command(std::string(AIRLOCK_OFFLINE_BIN) + " policy check " +
                                      dir.file("p.toml"));
  };
  const auto unknown = check(std::string(kHead) + "vault = []\n");
  EXPECT_EQ(unknown.exit_code, 2) << "policy.invalid, as --help and docs/cli.md say";
  EXPECT_THAT(unknown.output, HasSubstr("vault"));
  // The actions with no section are said too (allowed, asking), and a slippage ceiling set on
  // one swapping action but not on another it allows is a caution.
  const auto partial = check(std::string(kHead) +
                             "[actions.\"aggregator/swap\"]\nmax_slippage_bps = 100\n"
                             "[actions.\"dlmm/open\"]\nallowed = false\n");
  EXPECT_EQ(partial.exit_code, 0) << partial.output;
  EXPECT_THAT(partial.output, HasSubstr("the 26 other builder action(s), with no section of their "
                                        "own: allowed, and each asks"));
  EXPECT_THAT(partial.output, HasSubstr("caution   max_slippage_bps is set for aggregator/swap but "
                                        "not for "));
  EXPECT_THAT(partial.output, HasSubstr("aggregator/sweep"));
  // A swapping action auto-approved with no floor: every swap asks, and the check says so.
  const auto unpriced =
      check(std::string(kHead) + "[actions.\"aggregator/sweep\"]\nauto_approve = true\n");
  EXPECT_THAT(unpriced.output, HasSubstr("caution   aggregator/sweep auto-approve, but no "
                                         "[[price_floors]] prices a pair"));
  const auto bare = check(std::string(kHead) + "allow_unverified_lookup_tables = true\n");
  EXPECT_EQ(bare.exit_code, 0) << bare.output;
  EXPECT_THAT(bare.output, HasSubstr("caution   no vault: every request is refused"));
  EXPECT_THAT(bare.output, HasSubstr("caution   allow_unverified_lookup_tables"));
  EXPECT_THAT(bare.output, HasSubstr("caution   max_priority_fee_lamports is 0"));
}

// The operator's guide's cookbook: every ```toml block in it is a whole policy that loads.
TEST(Policy, EveryRecipeInTheOperatorsGuideLoads) {
  std::ifstream in(AIRLOCK_OPERATOR_GUIDE);
  ASSERT_TRUE(in) << AIRLOCK_OPERATOR_GUIDE;
  const std::string guide((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t recipes = 0;
  for (std::size_t at = guide.find("```toml\n"); at != std::string::npos;
       at = guide.find("```toml\n", at + 1)) {
    const std::size_t start = at + 8;
    const std::size_t end = guide.find("```", start);
    ASSERT_NE(end, std::string::npos);
    auto policy = parse_policy(guide.substr(start, end - start));
    EXPECT_TRUE(policy.ok()) << "recipe " << recipes + 1 << ": " << policy.error().to_string();
    ++recipes;
  }
  EXPECT_GE(recipes, 3U);
}

// policy_toml writes what parse_policy reads back: every setting of the example and of every
// recipe in the guide survives the round trip (compared as the text each policy writes).
TEST(Policy, WrittenOutItReadsBackTheSame) {
  std::ifstream in(AIRLOCK_OPERATOR_GUIDE);
  const std::string guide((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<Policy> policies;
  auto example = load_policy_file(AIRLOCK_POLICY_EXAMPLE);
  ASSERT_TRUE(example.ok());
  policies.push_back(*example);
  for (std::size_t at = guide.find("```toml\n"); at != std::string::npos;
       at = guide.find("```toml\n", at + 1)) {
    auto recipe = parse_policy(guide.substr(at + 8, guide.find("```", at + 8) - at - 8));
    ASSERT_TRUE(recipe.ok());
    policies.push_back(*recipe);
  }
  for (const auto& p : policies) {
    const std::string written = policy_toml(p);
    auto back = parse_policy(written);
    ASSERT_TRUE(back.ok()) << back.error().to_string() << "\n" << written;
    EXPECT_EQ(policy_toml(*back), written);
    EXPECT_EQ(back->manager, p.manager);
    EXPECT_EQ(back->vaults, p.vaults);
    EXPECT_EQ(back->programs, p.programs);
    EXPECT_EQ(back->tokens.size(), p.tokens.size());
    EXPECT_EQ(back->pinned_tables.size(), p.pinned_tables.size());
    EXPECT_EQ(back->actions.size(), p.actions.size());
    for (const auto& [name, rule] : p.actions) {
      EXPECT_EQ(back->rule(name).allowed, rule.allowed) << name;
      EXPECT_EQ(back->rule(name).auto_approve, rule.auto_approve) << name;
      EXPECT_EQ(back->rule(name).max_slippage_bps, rule.max_slippage_bps) << name;
      EXPECT_EQ(back->rule(name).max_active_bin_slippage, rule.max_active_bin_slippage) << name;
    }
    EXPECT_EQ(back->max_priority_fee_lamports, p.max_priority_fee_lamports);
  }
  // The example has every kind of section, so the round trip above covers them.
  EXPECT_FALSE(example->tokens.empty());
  EXPECT_FALSE(example->actions.empty());
}

// Issue 17: limits read in base units of pinned tokens; every mistake named by key and rule.
TEST(Policy, LimitsAreReadInBaseUnitsOfPinnedTokens) {
  const std::string tokens =
      "[[tokens]]\nmint = \"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v\"\nsymbol = \"USDC\"\n"
      "decimals = 6\n";
  auto p = parse_policy(std::string(kHead) + tokens +
                        "[limits]\nrounds_per_hour = 10\nrounds_per_day = 40\n"
                        "[limits.actions.\"aggregator/swap\"]\nrounds_per_day = 5\n"
                        "[limits.tokens.USDC]\nper_hour = \"2500.5\"\nper_day = \"10000\"\n");
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->limits.rounds.per_hour, 10U);
  EXPECT_EQ(p->limits.rounds.per_day, 40U);
  ASSERT_EQ(p->limits.actions.count("aggregator/swap"), 1U);
  EXPECT_FALSE(p->limits.actions.at("aggregator/swap").per_hour);
  EXPECT_EQ(p->limits.actions.at("aggregator/swap").per_day, 5U);
  ASSERT_EQ(p->limits.tokens.size(), 1U);
  EXPECT_EQ(p->limits.tokens[0].token.symbol, "USDC");
  EXPECT_EQ(p->limits.tokens[0].amount.per_hour, 2'500'500'000U);
  EXPECT_EQ(p->limits.tokens[0].amount.per_day, 10'000'000'000U);
  // Written out, it reads back the same.
  auto again = parse_policy(policy_toml(*p));
  ASSERT_TRUE(again.ok()) << again.error().to_string() << "\n" << policy_toml(*p);
  EXPECT_EQ(policy_toml(*again), policy_toml(*p));
  EXPECT_EQ(again->limits.tokens[0].amount.per_hour, 2'500'500'000U);

  const struct {
    std::string text, says;
  } bad[] = {
      {"[limits.tokens.JUP]\nper_day = \"5\"\n", "limits.tokens.JUP: names no pinned token"},
      {"[limits.tokens.USDC]\nper_day = \"0.0000001\"\n", "at most 6 decimal places"},
      {"[limits.tokens.USDC]\nper_day = 5\n", "must be an amount of whole tokens as a string"},
      {"[limits.tokens.USDC]\nper_day = \"0\"\n", "must be more than zero"},
      {"[limits.tokens.USDC]\nper_day = \"-1\"\n", "must be an amount of whole tokens"},
      {"[limits.tokens.USDC]\nper_day = \"1e3\"\n", "must be an amount of whole tokens"},
      {"[limits.tokens.USDC]\nper_day = \"99999999999999\"\n", "more than 64 bits"},
      {"[limits.tokens.USDC]\nper_week = \"5\"\n", "limits.tokens.USDC.per_week: unknown setting"},
      {"[limits.tokens.USDC]\n", "limits.tokens.USDC: sets no limit"},
      {"[limits]\nrounds_per_hour = 0\n", "limits.rounds_per_hour: must be a whole number"},
      {"[limits]\nrounds_per_hour = 2.5\n", "limits.rounds_per_hour: must be a whole number"},
      {"[limits]\nrounds_per_week = 2\n", "limits.rounds_per_week: unknown setting"},
      {"[limits.actions.\"aggregator/swapp\"]\nrounds_per_day = 1\n",
       "not an action this version knows"},
      {"[limits.actions.\"aggregator/swap\"]\nper_day = 1\n", "unknown setting"},
  };
  for (const auto& b : bad) {
    const std::string said = error_of(std::string(kHead) + tokens + b.text);
    EXPECT_THAT(said, HasSubstr(b.says)) << b.text;
  }
}

TEST(Policy, DefaultsRefuse) {
  auto p = parse_policy(kHead);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_TRUE(p->vaults.empty());
  EXPECT_TRUE(p->programs.empty());
  EXPECT_FALSE(p->allow_unverified_lookup_tables);
  EXPECT_FALSE(p->allow_durable_nonce);
  EXPECT_FALSE(p->allow_vault_initialize);
  EXPECT_EQ(p->max_priority_fee_lamports, 0U);
}

TEST(Policy, PinnedTablesKeepTheirOrder) {
  const std::string text =
      std::string(kHead) +
      "[[lookup_tables]]\naddress = \"CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT\"\n"
      "addresses = [\"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v\", "
      "\"So11111111111111111111111111111111111111112\"]\n";
  auto p = parse_policy(text);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  const auto* table =
      p->pinned(public_key_from_base58("CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT").value());
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->addresses.size(), 2U);
  EXPECT_EQ(to_base58(table->addresses[1]), "So11111111111111111111111111111111111111112");
  EXPECT_THAT(error_of(text + text.substr(std::string(kHead).size())), HasSubstr("pinned twice"));
}

TEST(Policy, MistakesNameTheKeyAndTheRule) {
  const std::string head = kHead;
  const std::string floor_tokens =
      "[[tokens]]\nmint = \"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v\"\nsymbol = \"USDC\"\n"
      "decimals = 6\n[[tokens]]\nmint = \"So11111111111111111111111111111111111111112\"\n"
      "symbol = \"SOL\"\ndecimals = 9\n";
  const std::string vault = "\"CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT\"";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"manager = \"AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax\"", "version: must be 1"},
      {"version = 2\n", "version: must be 1"},
      // Floats are not versions; a huge one was undefined behaviour (policy_file fuzz target).
      {"version = 1.0\nmanager = \"AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax\"",
       "version: must be 1"},
      {"version = 1e52\n", "version: must be 1"},
      {"version = 1\n", "manager:"},
      {"version = 1\nmanager = \"not-a-key\"", "manager:"},
      {head + "vaults = [" + vault + ", 7]", "vaults[1]"},
      {head + "vaults = " + vault, "vaults: must be an array"},
      {head + "allow_durable_nonce = \"yes\"", "allow_durable_nonce: must be true or false"},
      {head + "max_priority_fee_lamports = -1", "max_priority_fee_lamports"},
      // A misspelt action name would leave the action it meant allowed.
      {head + "[actions.\"keystone/sol-sign-requests\"]\nallowed = false",
       "not an action this version knows"},
      {head + "[actions.\"Aggregator/Swap\"]\nallowed = false", "not an action this version"},
      // A misspelt setting must not silently fall back to its default.
      {head + "alow_durable_nonce = true", "alow_durable_nonce: unknown setting"},
      {head + "[actions.\"aggregator/swap\"]\nmax_slippage_bps = 10001",
       "max_slippage_bps: must be 0 to 10000"},
      // A ceiling applies to every action that takes it, and to no other: one set where the
      // action carries no such slippage would read as a rule and hold none (issue 30).
      {head + "[actions.\"dlmm/open\"]\nmax_slippage_bps = 50",
       "max_slippage_bps: dlmm/open counts its slippage in bins"},
      {head + "[actions.\"dlmm/flip\"]\nmax_slippage_bps = 50", "set max_active_bin_slippage"},
      {head + "[actions.\"vault/update\"]\nmax_slippage_bps = 50",
       "vault/update carries no slippage for it to cap"},
      {head + "[actions.\"perp/order\"]\nmax_slippage_bps = 50", "carries no slippage"},
      {head + "[actions.\"aggregator/swap\"]\nmax_active_bin_slippage = 5",
       "moves no liquidity through bins; its slippage is max_slippage_bps"},
      {head + "[actions.\"vault/close\"]\nmax_active_bin_slippage = 5",
       "vault/close moves no liquidity through bins"},
      {head + "[actions.\"dlmm/add\"]\nmax_active_bin_slippage = 1001",
       "max_active_bin_slippage: must be 0 to 1000 bins"},
      {head + "[actions.\"dlmm/add\"]\nmax_active_bin_slippage = \"5\"",
       "max_active_bin_slippage: must be 0 to 1000 bins"},
      {head + "[actions.\"aggregator/swap\"]\nauto_aprove = true", "auto_aprove: unknown setting"},
      {head + "[[lookup_tables]]\naddress = " + vault + "\naddresses = []",
       "lookup_tables[0].addresses"},
      // Every array of tables refuses a key it does not know (lookup tables did not).
      {head + "[[lookup_tables]]\naddress = " + vault + "\naddresses = [" + vault +
           "]\nadresses = []",
       "lookup_tables[0].adresses: unknown setting"},
      {head + "[[markets]]\nsymbol = \"SOL-PERP\"\naddress = " + vault + "\nmarket = 1",
       "markets[0].market: unknown setting"},
      {"version = 1\nmanager = ", "not valid TOML at line 2"},
      {head + "[[tokens]]\nmint = " + vault + "\nsymbol = \"A B\"\ndecimals = 6",
       "tokens[0].symbol: must be 1 to 16 printable ASCII"},
      {head + "[[tokens]]\nmint = " + vault + "\nsymbol = \"X\"\ndecimals = 19",
       "tokens[0].decimals: must be an integer from 0 to 18"},
      {head + "[[tokens]]\nmint = " + vault + "\nsymbol = \"X\"\ndecimals = 6\nname = \"x\"",
       "tokens[0].name: unknown setting"},
      {head + "[[tokens]]\nmint = " + vault + "\nsymbol = \"usdc\"\ndecimals = 6\n" +
           "[[tokens]]\nmint = \"So11111111111111111111111111111111111111112\"\nsymbol = " +
           "\"USDC\"\ndecimals = 9",
       "tokens[1].symbol: 'USDC' is already pinned to another mint"},
      // Price floors: pinned tokens only, two different ones, a decimal string, each pair once.
      {head + floor_tokens + "[[price_floors]]\nsell = \"USDC\"\nbuy = \"JUP\"\nat_least = \"1\"",
       "price_floors[0].buy: must be the symbol of a token pinned in [[tokens]]"},
      {head + floor_tokens + "[[price_floors]]\nsell = \"USDC\"\nbuy = \"USDC\"\nat_least = \"1\"",
       "price_floors[0].buy: must be another token than sell"},
      {head + floor_tokens + "[[price_floors]]\nsell = \"USDC\"\nbuy = \"SOL\"\nat_least = 1.5",
       "price_floors[0].at_least: must be a price as a string"},
      {head + floor_tokens +
           "[[price_floors]]\nsell = \"USDC\"\nbuy = \"SOL\"\nat_least = \"0.000\"",
       "price_floors[0].at_least: must be a price as a string"},
      {head + floor_tokens + "[[price_floors]]\nsell = \"USDC\"\nbuy = \"SOL\"\nat_least = \"-1\"",
       "price_floors[0].at_least: must be a price as a string"},
      {head + floor_tokens + "[[price_floors]]\nsell = \"USDC\"\nbuy = \"SOL\"\nat_least = \"1e3\"",
       "price_floors[0].at_least: must be a price as a string"},
      {head + floor_tokens +
           "[[price_floors]]\nsell = \"USDC\"\nbuy = \"SOL\"\nat_least = \"12345678901234567890\"",
       "price_floors[0].at_least: must be a price as a string"},
      {head + floor_tokens + "[[price_floors]]\nsell = \"USDC\"\nbuy = \"SOL\"\nat_least = \"0." +
           std::string(25, '1') + "\"",
       "price_floors[0].at_least: must be a price as a string"},
      {head + floor_tokens + "[[price_floors]]\nsell = \"usdc\"\nbuy = \"SOL\"\nat_least = \"1\"",
       "price_floors[0].sell: must be the symbol of a token pinned in [[tokens]]"},
      {head + floor_tokens +
           "[[price_floors]]\nsell = \"USDC\"\nbuy = \"SOL\"\nat_least = \"1\"\nmax = \"2\"",
       "price_floors[0].max: unknown setting"},
      {head + floor_tokens +
           "[[price_floors]]\nsell = \"USDC\"\nbuy = \"SOL\"\nat_least = \"1\"\n" +
           "[[price_floors]]\nsell = \"USDC\"\nbuy = \"SOL\"\nat_least = \"2\"",
       "price_floors[1]: prices USDC for SOL twice"},
  };
  for (const auto& [text, expected] : cases) {
    // A policy's mistake has its own code (exit 2 on the command line), not usage.invalid.
    auto parsed = parse_policy(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.error().code(), offline::errors::kPolicyInvalid) << text;
    EXPECT_EQ(parsed.error().code_name(), "policy.invalid");
    EXPECT_THAT(error_of(text), HasSubstr(expected)) << "policy:\n"
                                                     << text << "\nerror: " << error_of(text);
  }
}

}  // namespace
}  // namespace airlock::offline

namespace airlock::offline {
namespace {

TEST(Policy, SymbolsThatLookAlikeAreTheSameSymbol) {
  EXPECT_TRUE(same_symbol("JUP", "JUP"));
  EXPECT_TRUE(same_symbol("usdc", "USDC"));
  EXPECT_TRUE(same_symbol("JUP", "JU\xce\xa1"));  // Greek capital Rho
  EXPECT_TRUE(same_symbol("SOL", "S\xd0\x9eL"));  // Cyrillic capital O
  EXPECT_TRUE(same_symbol("SOL", "\xd1\x95ol"));  // Cyrillic small dze, lower case
  EXPECT_TRUE(same_symbol("USDC",
                          "U\xef\xbc\xb3"
                          "DC"));  // a fullwidth S
  EXPECT_FALSE(same_symbol("JUP", "JTO"));
  EXPECT_FALSE(same_symbol("SOL", "SOLA"));
  EXPECT_TRUE(same_symbol("mSOL", "mS0L"));  // ASCII alone: a zero for an O
}

TEST(Policy, ATickerIsLettersDigitsAndAFewMarks) {
  for (const char* ok :
       {"JUP", "USDC.e", "$WIF", "JitoSOL", "ai16z", "W", "wBTC_PO", "A-B+C", "ABCDEFGHIJKLMNOP"})
    EXPECT_TRUE(is_ticker(ok)) << ok;
  for (const char* bad : {"", "JUP pinned", "JUP, pinned) (aka", "JUP)", "J\"UP", "JUP:", "JUP;",
                          "JU\xce\xa1", "JUP\n", "ABCDEFGHIJKLMNOPQ", "JUP/USDC"})
    EXPECT_FALSE(is_ticker(bad)) << bad;
}

TEST(Policy, MarketsArePinnedBySymbolOnce) {
  const std::string market = "ED2ytqLDah2McFh7nAs9Hzq85EErLFSbfP1ZpVuFndih";
  auto p = parse_policy(std::string(kHead) + "[[markets]]\nsymbol = \"SOL\"\naddress = \"" +
                        market + "\"\n");
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  ASSERT_NE(p->market("SOL"), nullptr);
  EXPECT_EQ(to_base58(p->market("SOL")->address), market);
  EXPECT_EQ(p->market("BTC"), nullptr);
  EXPECT_THAT(error_of(std::string(kHead) + "[[markets]]\nsymbol = \"SOL\"\naddress = \"" + market +
                       "\"\n[[markets]]\nsymbol = \"SOL\"\naddress = \"" + market + "\"\n"),
              HasSubstr("markets[1].symbol: is pinned twice"));
  EXPECT_THAT(error_of(std::string(kHead) + "[[markets]]\nsymbol = \"SOL\"\naddress = \"nope\"\n"),
              HasSubstr("markets[0].address"));
  EXPECT_THAT(error_of(std::string(kHead) + "[[markets]]\nsymbol = \"SOL\"\naddress = \"" + market +
                       "\"\nasset = 0\n"),
              HasSubstr("markets[0].asset: unknown setting"));
}

TEST(Policy, PoolsArePinnedByAddressWithTwoTokens) {
  const std::string pool = "8cGAuKv4FsExxYQE3XZUSGydbig6t2o28E3iSppYi1ht";
  const std::string sol = "So11111111111111111111111111111111111111112";
  const std::string usdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
  const std::string tokens = "[[tokens]]\nmint = \"" + sol +
                             "\"\nsymbol = \"SOL\"\ndecimals = 9\n[[tokens]]\nmint = \"" + usdc +
                             "\"\nsymbol = \"USDC\"\ndecimals = 6\n";
  const auto pinned = [&](const std::string& x, const std::string& y, const std::string& more) {
    return std::string(kHead) + tokens + "[[pools]]\naddress = \"" + pool + "\"\ntoken_x = \"" + x +
           "\"\ntoken_y = \"" + y + "\"\n" + more;
  };
  auto p = parse_policy(pinned(sol, usdc, ""));
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  const PinnedPool* found = p->pool(public_key_from_base58(pool).value());
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(to_base58(found->token_x), sol);
  EXPECT_EQ(to_base58(found->token_y), usdc);
  EXPECT_EQ(p->pool(public_key_from_base58(sol).value()), nullptr);
  auto back = parse_policy(policy_toml(*p));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(policy_toml(*back), policy_toml(*p));
  ASSERT_EQ(back->pools.size(), 1U);
  EXPECT_EQ(back->pools[0].token_y, found->token_y);

  EXPECT_THAT(error_of(pinned(sol, sol, "")),
              HasSubstr("pools[0].token_y: must be another mint than token_x"));
  EXPECT_THAT(error_of(pinned(sol, usdc, "fee_bps = 1\n")),
              HasSubstr("pools[0].fee_bps: unknown setting"));
  EXPECT_THAT(error_of(pinned(sol, "nope", "")), HasSubstr("pools[0].token_y"));
  EXPECT_THAT(error_of(std::string(kHead) + "[[pools]]\naddress = \"" + pool + "\"\n"),
              HasSubstr("pools[0].token_x"));
  EXPECT_THAT(error_of(pinned(sol, usdc, "") + "[[pools]]\naddress = \"" + pool +
                       "\"\ntoken_x = \"" + usdc + "\"\ntoken_y = \"" + sol + "\"\n"),
              HasSubstr("pools[1].address: is pinned twice"));
  // The pool's mints must be pinned tokens: otherwise the summary would call a hinted symbol
  // and hinted decimals "pinned by the policy".
  const std::string jup = "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN";
  EXPECT_THAT(error_of(pinned(jup, usdc, "")),
              HasSubstr("pools[0].token_x: must be a mint pinned in [[tokens]]"));
  EXPECT_THAT(error_of(pinned(sol, jup, "")),
              HasSubstr("pools[0].token_y: must be a mint pinned in [[tokens]]"));
  EXPECT_THAT(error_of(std::string(kHead) + "pools = 1\n"),
              HasSubstr("pools: must be an array of tables"));
}

}  // namespace
}  // namespace airlock::offline
