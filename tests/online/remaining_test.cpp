// Planning the work left after a run stops (spec 4.15 rule 4), from journal rows alone: each
// shape of a stopped round gets the build that does exactly what did not happen, or no build
// with the reason when none can be derived safely.
#include <algorithm>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/online/remaining.h>

#include "support/helpers.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace airlock::online {
namespace {

using json = nlohmann::json;
namespace ss = step_status;
using Kind = RemainingWork::Kind;

constexpr std::int64_t kBuiltAt = 1'000'000;
constexpr std::int64_t kLater = kBuiltAt + 600;  // every ticket long dead

const json kOpenBody = {
    {"vault", "V"},      {"lbPair", "P"},    {"lowerBinId", 4930}, {"upperBinId", 5070},
    {"amountX", "2000"}, {"amountY", "300"}, {"shape", "spot"},    {"maxActiveBinSlippage", 5}};

JournalStep step(int n, const std::string& status, const std::string& action = "dlmm/open",
                 json body = kOpenBody, json metadata = json::object(), int round = 1) {
  JournalStep st;
  st.round = round;
  st.step = n;
  st.action = action;
  st.status = status;
  st.built_at = kBuiltAt;
  st.body = std::move(body);
  st.metadata = std::move(metadata);
  return st;
}

json range(int lower, int upper) { return {{"lowerBinId", lower}, {"upperBinId", upper}}; }

// A 140-bin dlmm/open: two positions, 4930-4999 and 5000-5069.
std::vector<JournalStep> open_batch(const std::string& first, const std::string& second) {
  return {step(1, first, "dlmm/open", kOpenBody, range(4930, 4999)),
          step(2, second, "dlmm/open", kOpenBody, range(5000, 5069))};
}

TEST(Remaining, NothingIsLeftWhenEveryStepConfirmedWithoutAFollowUp) {
  const auto plan =
      plan_remaining(open_batch(ss::kConfirmed, ss::kConfirmed), kLater, std::nullopt);
  EXPECT_EQ(plan.kind, Kind::kNone);
  EXPECT_TRUE(plan.builds.empty());
}

TEST(Remaining, APendingFollowUpIsOfferedWithItsBodyUnchanged) {
  const json next = {{"path", "aggregator/sweep"}, {"body", {{"vault", "V"}, {"mint", "M"}}}};
  auto steps = std::vector<JournalStep>{step(1, ss::kConfirmed, "dlmm/zap-out", {{"vault", "V"}})};
  steps[0].next = next;
  const auto plan = plan_remaining(steps, kLater, std::nullopt);
  ASSERT_EQ(plan.kind, Kind::kOffer);
  ASSERT_EQ(plan.builds.size(), 1U);
  EXPECT_EQ(plan.builds[0].action, "aggregator/sweep");
  EXPECT_EQ(plan.builds[0].body, next["body"]);
}

TEST(Remaining, ARoundWhereNothingLandedIsBuiltAgainAsItWas) {
  // Nothing of it happened for want of time: the same build is the work left.
  for (const auto& [status, code] :
       std::vector<std::pair<std::string, std::string>>{{ss::kExpired, ""},
                                                        {ss::kAbandoned, ""},
                                                        {ss::kRejected, "InvalidTicket"},
                                                        {ss::kRejected, "RateLimited"}}) {
    SCOPED_TRACE(status + " " + code);
    auto steps = open_batch(status, ss::kSigned);
    steps[0].code = code;
    const auto plan = plan_remaining(steps, kLater, std::nullopt);
    ASSERT_EQ(plan.kind, Kind::kOffer) << plan.why;
    ASSERT_EQ(plan.builds.size(), 1U);
    EXPECT_EQ(plan.builds[0].action, "dlmm/open");
    EXPECT_EQ(plan.builds[0].body, kOpenBody);
  }
}

TEST(Remaining, TheSameBuildIsNotOfferedAfterALandedFailureOrARefusalOfWhatItIs) {
  // Spec part 7: a 422 (or a landed failure) means the same request fails the same way; it is
  // shown as a suggestion to change, never built by --remaining build.
  for (const auto& [status, code] :
       std::vector<std::pair<std::string, std::string>>{{ss::kFailed, "SlippageToleranceExceeded"},
                                                        {ss::kRejected, "SimulationFailed"},
                                                        {ss::kRejected, "Forbidden"}}) {
    SCOPED_TRACE(status + " " + code);
    auto steps = open_batch(status, ss::kExpired);
    steps[0].code = code;
    const auto plan = plan_remaining(steps, kLater, std::nullopt);
    EXPECT_EQ(plan.kind, Kind::kManual) << plan.why;
    EXPECT_THAT(plan.why, HasSubstr(code));
    EXPECT_THAT(plan.why, HasSubstr("the same request would fail the same way"));
    // Said once, without also saying that nothing landed (a landed failure did).
    EXPECT_THAT(plan.why, Not(HasSubstr("landed (")));
    EXPECT_THAT(plan.why, HasSubstr("confirmed ("));
    ASSERT_EQ(plan.builds.size(), 1U) << "the build is still shown, to be changed";
    EXPECT_EQ(plan.builds[0].body, kOpenBody);
  }
}

TEST(Remaining, OnlyTheLastRoundCounts) {
  // Round 1 (the first extend) confirmed; round 2, its follow-up, failed: round 2 again.
  const json follow = {
      {"vault", "V"}, {"position", "Q"}, {"upperBinId", 5200}, {"fromBinId", 5140}};
  std::vector<JournalStep> steps = {
      step(1, ss::kConfirmed, "dlmm/extend", {{"vault", "V"}}, json::object(), 1),
      step(1, ss::kExpired, "dlmm/extend", follow, json::object(), 2)};
  const auto plan = plan_remaining(steps, kLater, std::nullopt);
  ASSERT_EQ(plan.kind, Kind::kOffer);
  EXPECT_EQ(plan.builds[0].body, follow);
}

TEST(Remaining, ABatchThatStoppedPartWayResumesAtTheFirstRangeNotDone) {
  const auto plan = plan_remaining(open_batch(ss::kConfirmed, ss::kFailed), kLater, std::nullopt);
  ASSERT_EQ(plan.kind, Kind::kOffer) << plan.why;
  ASSERT_EQ(plan.builds.size(), 1U);
  json expected = kOpenBody;
  expected["cursorBinId"] = 5000;
  EXPECT_EQ(plan.builds[0].body, expected);
  EXPECT_THAT(plan.why, HasSubstr("cursorBinId 5000"));
}

TEST(Remaining, DlmmAddNamesTheWholeRangeBesideItsCursor) {
  const json body = {{"vault", "V"},    {"position", "Q"}, {"amountX", "10"},
                     {"amountY", "20"}, {"shape", "spot"}, {"maxActiveBinSlippage", 3}};
  std::vector<JournalStep> steps = {step(1, ss::kConfirmed, "dlmm/add", body, range(100, 169)),
                                    step(2, ss::kConfirmed, "dlmm/add", body, range(170, 239)),
                                    step(3, ss::kExpired, "dlmm/add", body, range(240, 259))};
  const auto plan = plan_remaining(steps, kLater, std::nullopt);
  ASSERT_EQ(plan.kind, Kind::kOffer) << plan.why;
  json expected = body;
  expected["cursorBinId"] = 240;
  expected["lowerBinId"] = 100;
  expected["upperBinId"] = 259;
  EXPECT_EQ(plan.builds[0].body, expected);
}

TEST(Remaining, ARemovalWithGapsIsRebuiltRangeByRange) {
  const json body = {{"vault", "V"}, {"position", "Q"}, {"bpsToRemove", 5000}, {"cursorBinId", 0}};
  std::vector<JournalStep> steps = {step(1, ss::kFailed, "dlmm/remove", body, range(0, 69)),
                                    step(2, ss::kConfirmed, "dlmm/remove", body, range(70, 139)),
                                    step(3, ss::kExpired, "dlmm/remove", body, range(140, 150))};
  const auto plan = plan_remaining(steps, kLater, std::nullopt);
  ASSERT_EQ(plan.kind, Kind::kOffer) << plan.why;
  ASSERT_EQ(plan.builds.size(), 2U);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(plan.builds[i].action, "dlmm/remove");
    EXPECT_FALSE(plan.builds[i].body.contains("cursorBinId"));
    EXPECT_EQ(plan.builds[i].body["bpsToRemove"], 5000);
  }
  EXPECT_EQ(plan.builds[0].body["lowerBinId"], 0);
  EXPECT_EQ(plan.builds[0].body["upperBinId"], 69);
  EXPECT_EQ(plan.builds[1].body["lowerBinId"], 140);
  EXPECT_EQ(plan.builds[1].body["upperBinId"], 150);
}

TEST(Remaining, FundingWithGapsIsLeftToTheOperatorWithTheRanges) {
  const auto plan = plan_remaining(open_batch(ss::kFailed, ss::kConfirmed), kLater, std::nullopt);
  EXPECT_EQ(plan.kind, Kind::kManual);
  EXPECT_TRUE(plan.builds.empty());
  EXPECT_THAT(plan.why, HasSubstr("bins 4930 to 4999"));
  EXPECT_THAT(plan.why, HasSubstr("again"));
}

TEST(Remaining, APartlyDoneBatchWithoutRangesIsLeftToTheOperator) {
  const json body = {{"vault", "V"},
                     {"sourceMint", "A"},
                     {"destinationMint", "B"},
                     {"amount", "5"},
                     {"slippageBps", 50}};
  std::vector<JournalStep> steps = {step(1, ss::kConfirmed, "aggregator/swap", body),
                                    step(2, ss::kFailed, "aggregator/swap", body)};
  const auto plan = plan_remaining(steps, kLater, std::nullopt);
  EXPECT_EQ(plan.kind, Kind::kManual);
  EXPECT_THAT(plan.why, HasSubstr("read the current state"));
}

TEST(Remaining, NothingIsPlannedWhileAnOutcomeIsOpen) {
  for (const char* status : {ss::kSending, ss::kPending, ss::kUnknown}) {
    SCOPED_TRACE(status);
    const auto plan = plan_remaining(open_batch(ss::kConfirmed, status), kLater, std::nullopt);
    EXPECT_EQ(plan.kind, Kind::kManual);
    EXPECT_THAT(plan.why, HasSubstr("resume"));
  }
}

TEST(Remaining, ASignedStepWhoseTicketLivesBlocksThePlanUntilItDies) {
  const auto steps = open_batch(ss::kExpired, ss::kSigned);
  const auto early = plan_remaining(steps, kBuiltAt + 30, std::nullopt);
  EXPECT_EQ(early.kind, Kind::kManual);
  EXPECT_THAT(early.why, HasSubstr("60 s"));
  EXPECT_EQ(plan_remaining(steps, kBuiltAt + 90, std::nullopt).kind, Kind::kOffer);
}

TEST(Remaining, AJournalWithoutTheRoundBodyCannotPlan) {
  auto steps = open_batch(ss::kFailed, ss::kSigned);
  for (auto& st : steps) st.body = json::object();
  EXPECT_EQ(plan_remaining(steps, kLater, std::nullopt).kind, Kind::kManual);
  EXPECT_EQ(plan_remaining({}, kLater, std::nullopt).kind, Kind::kManual);
}

TEST(Remaining, TheCommandQuotesTheBodyForTheShell) {
  const Build b{"vault/update", {{"vault", "it's"}}};
  EXPECT_EQ(act_command(b), R"(airlock-online act vault/update --body '{"vault":"it'"'"'s"}')");
  EXPECT_EQ(act_command(b, " --api https://h/api/external/v1 --journal 'my j.sqlite'"),
            R"(airlock-online act vault/update --body '{"vault":"it'"'"'s"}')"
            R"( --api https://h/api/external/v1 --journal 'my j.sqlite')");
  EXPECT_EQ(shell_word("req/frames-1.png"), "req/frames-1.png");
  EXPECT_EQ(shell_word("a b"), "'a b'");
  EXPECT_EQ(shell_word("$HOME`x`"), "'$HOME`x`'");
  EXPECT_EQ(shell_word(""), "''");
}

// Whatever a value holds (a quote, a backslash, a terminal escape, text beyond ASCII, shell
// syntax), its word is printable ASCII, so the screen shows it as it is (it is printed without
// escaping), and bash reads back the same bytes.
TEST(Remaining, EveryWordIsPrintableAsciiAndBashReadsBackTheSameBytes) {
  const std::vector<std::string> values = {"it's",
                                           "j'ournal\\x.sqlite",
                                           "back\\slash",
                                           "\x1b]0;title\x07 \x1b[2J",
                                           "caf\xc3\xa9 \xe2\x80\xae",
                                           "$(rm -rf ~)",
                                           "`x` \"q\" ;|&<>",
                                           "tab\there\nnewline",
                                           "'",
                                           "\\",
                                           "\xff\xfe not UTF-8"};
  for (const auto& value : values) {
    const std::string word = shell_word(value);
    SCOPED_TRACE(word);
    EXPECT_TRUE(
        std::all_of(word.begin(), word.end(), [](char c) { return c >= 0x20 && c < 0x7f; }));
    test::ScratchDir dir("airlock-shell-word");
    std::ofstream(dir.file("read.sh")) << "printf %s " << word << "\n";
    const auto echoed = test::run_command("bash " + dir.file("read.sh"));
    EXPECT_EQ(echoed.exit_code, 0);
    EXPECT_EQ(echoed.output, value);
  }
}

}  // namespace
}  // namespace airlock::online
