// The act loop (online/act.h) against the twin, with the offline half replaced by a courier that
// signs in process: every way a round can end, asserted from the twin's counters (builds, sends,
// landings) and the journal. The twin's clock is frozen; the loop's sleeps advance it.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gmock/gmock.h>

#include <airlock/online/act.h>
#include <airlock/online/api.h>
#include <airlock/online/chain.h>
#include <airlock/online/journal.h>
#include <airlock/online/sender.h>

#include "conformance_support.h"
#include "support/helpers.h"

using ::testing::HasSubstr;

namespace airlock::apisim::test {
namespace {

// Keys and vectors as secrets, for the functions that take only SecretText.
airlock::test::SecretArena as_secret;

namespace ss = online::step_status;

class ActTest : public Twin {
 protected:
  // This test's own name for the twin's API (its folder is unique to it, where a port may be
  // another finished test's).
  std::string api_name() { return "twin:" + dir.file(""); }
  void SetUp() override {
    Twin::SetUp();
    online::ClientOptions options;
    options.sleep = [this](std::chrono::milliseconds d) {
      advance(d.count());
      pacing_now += d;
    };
    options.now = [this] { return pacing_now; };
    client.emplace(online::ApiClient::create("http://127.0.0.1:" + std::to_string(server_->port()) +
                                                 std::string(kApiPrefix),
                                             online::ApiKey::parse(as_secret(kDemoKey)).value(),
                                             options)
                       .value());
    journal.emplace(online::Journal::open(dir.file("journal.sqlite")).value());
  }

  // The offline half: answers after `answer_ms` of the twin's clock, signing every step with the
  // manager key, or refusing, or (answer_ms < 0) never answering.
  online::Courier courier() {
    return [this](const envelope::SignRequest& q) -> Result<std::optional<envelope::SignResponse>> {
      ++requests;
      if (answer_ms < 0) {
        advance((static_cast<std::int64_t>(q.deadline) - now_s() + 1) * 1000);
        return std::optional<envelope::SignResponse>();
      }
      advance(answer_ms);
      envelope::SignResponse response;
      response.request_id = q.request_id;
      response.signer = manager_->public_key();
      if (refuse) {
        response.result = envelope::Refusal{"policy.test", "refused by the test"};
        return std::optional(response);
      }
      if (q.approval) {
        approval_asked_with_builds = builds();
        envelope::Approval approval{envelope::intent_hash(q), q.deadline};
        if (approve_other_intent) approval.intent.bytes[0] ^= 1;
        response.result = approval;
        return std::optional(response);
      }
      if (answer_with_approval) {
        response.result = envelope::Approval{envelope::intent_hash(q), q.deadline};
        return std::optional(response);
      }
      std::vector<Signature> signatures;
      for (const auto& step : q.steps)
        signatures.push_back(
            manager_->sign(serialize_message(parse_transaction(step.transaction)->message)));
      response.result = signatures;
      return std::optional(response);
    };
  }

  // `node`: act --rpc with the twin's node, which measures the blockhash's life at the build
  // and proves what an expired receipt says.
  Status act(const std::string& action, const json& body, int max_rounds = 8,
             online::RemainingMode remaining = online::RemainingMode::kBuild, bool node = false) {
    online::ActContext c{*client,
                         *journal,
                         courier(),
                         [this] { return now_s(); },
                         [this](std::chrono::milliseconds d) { advance(d.count()); },
                         log};
    // The boot clock runs with the twin's clock, as the wall clock does here.
    c.boot = [this] {
      return online::BootInstant{
          "0b9d6c2e-5a41-4f3e-8d7c-2e6f1a9b3c40",
          control("/_sim/clock", {{"advanceMs", 0}}).body["nowMs"].get<std::int64_t>()};
    };
    online::ActOptions options;
    if (node) {
      options.rpc = "http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc";
      c.prove = online::rpc_prover(*options.rpc);
    }
    // Money in flight is the machine's (every journal of the registry): two tests' twins must
    // not read as one API.
    options.api = api_name();
    options.max_rounds = max_rounds;
    options.remaining = remaining;
    options.command_options = " --api http://twin --request-out 'a b.alreq'";
    options.approve_first = approve_first;
    options.accepted_landings = accepted_landings;
    return online::act(c, options, action, body);
  }

  void faults(const json& f) { control("/_sim/faults", f); }
  std::uint64_t builds() { return counters()["builds"].get<std::uint64_t>(); }
  std::uint64_t landed() { return counters()["landed"].get<std::uint64_t>(); }

  json update_body() { return {{"vault", kVault}, {"depositCap", "20000000000000"}}; }
  json open_body() {
    return {{"vault", kVault},    {"lbPair", kSolUsdcPool},   {"lowerBinId", 4930},
            {"upperBinId", 5070}, {"amountX", "200000000"},   {"amountY", "30000000"},
            {"shape", "spot"},    {"maxActiveBinSlippage", 5}};
  }

  airlock::test::ScratchDir dir{"airlock-act"};
  std::optional<online::ApiClient> client;
  std::optional<online::Journal> journal;
  std::ostringstream log;
  online::RateLimiter::Clock::time_point pacing_now{};
  std::int64_t answer_ms = 3000;
  bool refuse = false;
  int requests = 0;
  // --approve-first: the manager the approval request names; how the courier answers it.
  std::optional<PublicKey> approve_first;
  std::vector<std::string> accepted_landings;
  bool approve_other_intent = false;
  bool answer_with_approval = false;  // a sign request answered with an approval
  std::optional<std::uint64_t> approval_asked_with_builds;
};

// Issue 32: with --approve-first the intent crosses first, and only its approval opens a build.
TEST_F(ActTest, ApproveFirstCarriesTheIntentAcrossBeforeAnythingIsBuilt) {
  approve_first = manager_->public_key();
  auto s = act("vault/update", update_body());
  ASSERT_TRUE(s.ok()) << s.error().to_string() << "\n" << log.str();
  ASSERT_TRUE(approval_asked_with_builds.has_value());
  EXPECT_EQ(*approval_asked_with_builds, 0U) << "nothing built before the approval";
  EXPECT_EQ(requests, 2) << "the approval request, then the sign request";
  EXPECT_EQ(builds(), 1U);
  EXPECT_EQ(landed(), 1U);
  EXPECT_THAT(log.str(), HasSubstr("approved until"));
}

TEST_F(ActTest, NoApprovalOrAnotherIntentsApprovalBuildsNothing) {
  approve_first = manager_->public_key();
  refuse = true;
  auto refused = act("vault/update", update_body());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), online::errors::kOfflineRefused);
  refuse = false;
  approve_other_intent = true;
  auto other = act("vault/update", update_body());
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code(), online::errors::kResponseMismatch) << other.error().to_string();
  approve_other_intent = false;
  answer_ms = -1;  // never answered: its time runs out
  auto silent = act("vault/update", update_body());
  ASSERT_FALSE(silent.ok());
  EXPECT_EQ(silent.error().code(), online::errors::kNotApproved);
  EXPECT_EQ(builds(), 0U);
  EXPECT_TRUE(journal->runs(false).value().empty()) << "no run was begun";
  // vault/initialize makes its vault in the build: it cannot be approved first.
  EXPECT_EQ(act("vault/initialize", {{"name", "x"}}).error().code(), ErrorCode::kUsage);
}

// An approval where signatures are due (a confused or hostile channel) is no answer.
TEST_F(ActTest, AnApprovalAnsweringASignRequestIsRefusedNotSent) {
  answer_with_approval = true;
  auto s = act("vault/update", update_body());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), online::errors::kResponseMismatch) << s.error().to_string();
  EXPECT_EQ(counters()["sends"], 0);
}

TEST_F(ActTest, AnActionIsBuiltSignedSentAndConfirmedOnce) {
  auto s = act("vault/update", update_body());
  ASSERT_TRUE(s.ok()) << s.error().to_string() << "\n" << log.str();
  EXPECT_EQ(builds(), 1U);
  EXPECT_EQ(landed(), 1U);
  const auto runs = journal->runs(false).value();
  ASSERT_EQ(runs.size(), 1U);
  EXPECT_EQ(runs[0].state, "done");
  // The API's clock at the build, from its reply's Date, is kept with the step: the twin's own
  // (its clock is frozen here, so the build's second is its now).
  const auto step = journal->steps(runs[0].id).value().at(0);
  ASSERT_TRUE(step.metadata.contains("apiBuildDate")) << step.metadata.dump();
  EXPECT_NEAR(static_cast<double>(step.metadata["apiBuildDate"].get<std::int64_t>()),
              static_cast<double>(now_s()), 120.0);
}

TEST_F(ActTest, ABatchLandsEveryStepOnce) {
  auto s = act("dlmm/open", open_body());
  ASSERT_TRUE(s.ok()) << s.error().to_string() << "\n" << log.str();
  EXPECT_EQ(builds(), 1U);
  EXPECT_EQ(landed(), 2U) << "a 141-bin open is two positions";
}

TEST_F(ActTest, ALateAnswerIsNeverSentAndTheActionIsBuiltAgain) {
  answer_ms = 70'000;  // past the 55 s the blockhash leaves
  auto s = act("vault/update", update_body(), 2);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message(), HasSubstr("--max-rounds"));
  EXPECT_EQ(builds(), 2U);
  EXPECT_EQ(counters()["sends"], 0) << "late signatures are never sent";
  EXPECT_EQ(landed(), 0U);
}

TEST_F(ActTest, NoAnswerAtAllIsBoundedByMaxRounds) {
  answer_ms = -1;
  auto s = act("vault/update", update_body(), 3);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), online::errors::kStopped) << "the operator's bound, not the API's";
  EXPECT_EQ(builds(), 3U);
  EXPECT_EQ(requests, 3);
  // The bound is the operator's, not a failure: the run ends `stopped` (docs/journal.md).
  auto runs = journal->runs(false);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1U);
  EXPECT_EQ(runs->front().state, "stopped") << runs->front().note;
  EXPECT_THAT(runs->front().note, HasSubstr("--max-rounds"));
}

TEST_F(ActTest, ARefusalStopsTheRunWithNothingSent) {
  refuse = true;
  auto s = act("vault/update", update_body());
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message(), HasSubstr("policy.test"));
  EXPECT_EQ(s.error().code(), online::errors::kOfflineRefused)
      << "the offline half's, not the API's";
  EXPECT_EQ(counters()["sends"], 0);
  EXPECT_EQ(journal->runs(false).value().front().state, "failed");
}

TEST_F(ActTest, ASendWithoutReceiptLeavesTheRunOpenAndTheNextActBuildsNothing) {
  faults({{"relayThenFail", json(std::vector<int>(60, 504))}});
  auto s = act("vault/update", update_body());
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message(), HasSubstr("may have relayed"));
  EXPECT_EQ(s.error().code(), online::errors::kOutcomeUnknown);
  EXPECT_THAT(log.str(), HasSubstr("stays open"));
  faults({{"relayThenFail", json::array()}});
  advance(10'000);
  EXPECT_EQ(landed(), 1U) << "the twin landed it although no receipt came back";
  auto again = act("vault/update", update_body());
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.error().message(), HasSubstr("run airlock-online resume"));
  EXPECT_EQ(again.error().code(), online::errors::kUnfinished);
  EXPECT_EQ(builds(), 1U) << "nothing was built while a signature could land";
  EXPECT_EQ(landed(), 1U);
}

// Found by an independent fault review: money in flight was one journal's. With a run open in
// one journal, act under another name (another --journal, or the same name through a symlinked
// folder switched to a new release) saw nothing open and built and landed the intent again.
// Every journal's registry entry now says which APIs it has an action in flight with, and act
// under any other journal builds nothing for that API until it is settled.
TEST_F(ActTest, AnActionInFlightUnderAnotherJournalBuildsNothing) {
  airlock::test::ScratchDir elsewhere{"airlock-act-elsewhere"};
  std::filesystem::create_directory(elsewhere.file("release-a"));
  std::filesystem::create_directory(elsewhere.file("release-b"));
  std::filesystem::create_directory_symlink(elsewhere.file("release-a"), elsewhere.file("current"));
  const std::string name = elsewhere.file("current") + "/journal.sqlite";
  std::int64_t run = 0;
  {
    auto first = online::Journal::open(name).value();
    run = first.begin_run(api_name(), "vault/update", update_body(), now_s()).value();
  }
  auto refused = act("vault/update", update_body());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), online::errors::kUnfinished);
  EXPECT_THAT(refused.error().message(), HasSubstr("has an action in flight with this API"));
  EXPECT_THAT(refused.error().message(), HasSubstr("release-a/journal.sqlite"));
  // The release switched: the same name is a new, empty journal, and the one in flight is
  // still what the registry knows.
  std::filesystem::remove(elsewhere.file("current"));
  std::filesystem::create_directory_symlink(elsewhere.file("release-b"), elsewhere.file("current"));
  {
    auto switched = online::Journal::open(name).value();
    EXPECT_TRUE(switched.runs(true)->empty());
    auto again = act("vault/update", update_body());
    ASSERT_FALSE(again.ok());
    EXPECT_THAT(again.error().message(), HasSubstr("release-a/journal.sqlite"));
  }
  EXPECT_EQ(builds(), 0U) << "nothing was built while another journal had it in flight";
  // Another API's action in flight for another vault holds nothing here; this API's, once
  // settled, neither.
  {
    auto first = online::Journal::open(elsewhere.file("release-a") + "/journal.sqlite").value();
    json other_vault = update_body();
    other_vault["vault"] = "Ev1odcsBx9zUWfTrbTfPr82M5rQj25x32sApftABPjxp";
    ASSERT_TRUE(first.begin_run("another-api", "vault/update", other_vault, now_s()).ok());
    ASSERT_TRUE(first.finish_run(run, "failed", "settled by the test", now_s()).ok());
  }
  auto built = act("vault/update", update_body());
  ASSERT_TRUE(built.ok()) << built.error().to_string() << "\n" << log.str();
  EXPECT_EQ(builds(), 1U);
  EXPECT_EQ(landed(), 1U);
}

// Found by an independent fault review: the in-flight guard and the act lock compared the API's
// URL as text, so the same API spelt "localhost" in one journal and "127.0.0.1" in another
// landed one intent twice. An action in flight holds its vault through any API, and an API
// however its URL is spelt (scheme and host in any case, the default port or not, a trailing
// slash).
TEST_F(ActTest, AnActionInFlightHoldsItsVaultThroughAnyApiAndItsApiHoweverSpelt) {
  airlock::test::ScratchDir elsewhere{"airlock-act-spelt"};
  {
    auto other = online::Journal::open(elsewhere.file("journal.sqlite")).value();
    ASSERT_TRUE(
        other
            .begin_run("http://localhost:1/api/external/v1", "vault/update", update_body(), now_s())
            .ok());
    json other_vault = update_body();
    other_vault["vault"] = "Ev1odcsBx9zUWfTrbTfPr82M5rQj25x32sApftABPjxp";
    ASSERT_TRUE(other
                    .begin_run("HTTPS://API.Example.com:443/api/external/v1/", "vault/update",
                               other_vault, now_s())
                    .ok());
  }
  auto refused = act("vault/update", update_body());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), online::errors::kUnfinished);
  EXPECT_THAT(refused.error().message(),
              HasSubstr(std::string("for vault ") + kVault + " through another API"));
  EXPECT_EQ(builds(), 0U);
  // The same API spelt otherwise, for any vault.
  const auto found =
      journal->in_flight_elsewhere("https://api.example.com/api/external/v1", std::nullopt, "");
  ASSERT_EQ(found.size(), 1U);
  EXPECT_THAT(found[0], HasSubstr("with this API"));
  EXPECT_TRUE(
      journal->in_flight_elsewhere("https://api.example.com/api/external/v2", std::nullopt, "")
          .empty());
  EXPECT_EQ(online::api_identity("HTTPS://API.Example.com:443/api/external/v1/"),
            online::api_identity("https://api.example.com/api/external/v1"));
  EXPECT_NE(online::api_identity("https://api.example.com:8443/api/external/v1"),
            online::api_identity("https://api.example.com/api/external/v1"));
  // This machine however it is named.
  EXPECT_EQ(online::api_identity("http://localhost:8080/api/external/v1"),
            online::api_identity("http://127.0.0.1:8080/api/external/v1/"));
  EXPECT_EQ(online::api_identity("http://[::1]:8080/api/external/v1"),
            online::api_identity("http://127.0.0.1:8080/api/external/v1"));
}

// Found by a second fault review: a vault/initialize names no vault, so with the API spelt
// "127.0.0.1" in one journal and "localhost" in another it was built and landed twice (two
// vaults). The same intent in flight anywhere holds it, through any API.
TEST_F(ActTest, TheSameIntentInFlightUnderAnotherJournalBuildsNothing) {
  airlock::test::ScratchDir elsewhere{"airlock-act-intent"};
  const json body = {{"depositMint", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"},
                     {"name", "Treasury"}};
  {
    auto other = online::Journal::open(elsewhere.file("journal.sqlite")).value();
    ASSERT_TRUE(other
                    .begin_run("https://a-name-for-it.example/api/external/v1", "vault/initialize",
                               body, now_s())
                    .ok());
  }
  const auto found = journal->in_flight_elsewhere(api_name(), std::nullopt,
                                                  online::intent_id("vault/initialize", body));
  ASSERT_EQ(found.size(), 1U);
  EXPECT_THAT(found[0], HasSubstr("of this same intent through another API"));
  json other = body;
  other["name"] = "Another";
  EXPECT_TRUE(journal
                  ->in_flight_elsewhere(api_name(), std::nullopt,
                                        online::intent_id("vault/initialize", other))
                  .empty());
}

// Found by an independent fault review: the registry folder put back from a copy made before
// another journal's action (the journals untouched) no longer listed that action in flight,
// and act under this journal built and landed the intent again. An entry that counts fewer
// changes than its journal's own seal is older than the journal: what that journal has in
// flight is unknown, and nothing is built.
TEST_F(ActTest, ARegistryEntryOlderThanItsJournalBuildsNothing) {
  airlock::test::ScratchDir elsewhere{"airlock-act-rolled"};
  const std::string registry = std::getenv("AIRLOCK_JOURNAL_REGISTRY");
  const auto entries = [&] {
    std::map<std::string, std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(registry))
      out[e.path().string()] = airlock::test::text_of(e.path().string()).value_or("");
    return out;
  };
  { auto other = online::Journal::open(elsewhere.file("journal.sqlite")).value(); }
  const auto before = entries();  // the registry as a backup would hold it
  {
    auto other = online::Journal::open(elsewhere.file("journal.sqlite")).value();
    ASSERT_TRUE(other.begin_run(api_name(), "vault/update", update_body(), now_s()).ok());
  }
  for (const auto& [path, text] : before) std::ofstream(path, std::ios::trunc) << text;
  auto refused = act("vault/update", update_body());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), online::errors::kUnfinished);
  EXPECT_THAT(refused.error().message(),
              HasSubstr("has changes its registry entry does not count"));
  EXPECT_EQ(builds(), 0U);
}

// Found by an independent fault review: the state folder (the journal, its seal and the
// registry side by side) put back from a backup made before an action landed; act built and
// landed the same intent again, since nothing on this machine tells the copy from the newest.
// With a node, the chain does: the manager's transaction that landed after the journal's
// newest record and is none of its steps holds the build until it is accounted for.
TEST_F(ActTest, AJournalPutBackFromBeforeALandingBuildsNothingTheChainShowsItDoesNotKnow) {
  namespace fs = std::filesystem;
  const fs::path registry = std::getenv("AIRLOCK_JOURNAL_REGISTRY");
  const fs::path backup = dir.file("backup");
  const auto copy_state = [&](const fs::path& from_dir, const fs::path& from_registry,
                              const fs::path& to_dir, const fs::path& to_registry) {
    fs::create_directories(to_dir);
    for (const char* name : {"journal.sqlite", "journal.sqlite.seal"})
      fs::copy_file(from_dir / name, to_dir / name, fs::copy_options::overwrite_existing);
    fs::remove_all(to_registry);
    fs::copy(from_registry, to_registry, fs::copy_options::recursive);
  };
  ASSERT_TRUE(act("vault/update", update_body(), 8, online::RemainingMode::kBuild, true).ok())
      << log.str();
  journal.reset();  // closed: its commits in the file, as a backup of the folder holds them
  copy_state(dir.file(""), registry, backup / "state", backup / "registry");
  journal.emplace(online::Journal::open(dir.file("journal.sqlite")).value());
  advance(60'000);
  json other = update_body();
  other["depositCap"] = "30000000000000";
  ASSERT_TRUE(act("vault/update", other, 8, online::RemainingMode::kBuild, true).ok()) << log.str();
  const auto runs = journal->runs(false).value();
  const std::string landed_signature = journal->steps(runs.back().id).value().back().signature;
  journal.reset();
  fs::remove(dir.file("journal.sqlite-wal"));
  fs::remove(dir.file("journal.sqlite-shm"));
  copy_state(backup / "state", backup / "registry", dir.file(""), registry);
  journal.emplace(online::Journal::open(dir.file("journal.sqlite")).value());
  const auto landed_before = landed();
  auto refused = act("vault/update", other, 8, online::RemainingMode::kBuild, true);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), online::errors::kUnfinished);
  EXPECT_THAT(refused.error().message(), HasSubstr("paid for after this journal's newest landing"));
  EXPECT_THAT(refused.error().message(), HasSubstr(landed_signature));
  EXPECT_EQ(landed(), landed_before) << "nothing was sent";
  // A second review: the refused attempt's own run record (or one a clock a day ahead wrote)
  // moved a bound by time past the landing, and the retry landed it again. The bound is the
  // journal's newest landing, found by signature: a retry, and a record from tomorrow, are
  // refused alike.
  const auto tomorrow = journal->begin_run(api_name(), "vault/update", other, now_s() + 86'400);
  ASSERT_TRUE(tomorrow.ok());
  ASSERT_TRUE(journal->finish_run(*tomorrow, "failed", "HTTP 404", now_s() + 86'400).ok());
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto again = act("vault/update", other, 8, online::RemainingMode::kBuild, true);
    ASSERT_FALSE(again.ok()) << "attempt " << attempt;
    EXPECT_THAT(again.error().message(), HasSubstr(landed_signature));
  }
  EXPECT_EQ(landed(), landed_before);
  // A node that lists nothing of the manager's shows nothing: refused, not taken as quiet.
  faults({{"rpcNoAddressHistory", true}});
  auto blind = act("vault/update", other, 8, online::RemainingMode::kBuild, true);
  ASSERT_FALSE(blind.ok());
  EXPECT_THAT(blind.error().message(), HasSubstr("none of this journal's landed steps"));
  faults({{"rpcNoAddressHistory", false}});
  EXPECT_EQ(landed(), landed_before);
  // Without a node nothing shows it (docs/journal.md); with the landing accounted for, the
  // operator's word, act builds.
  accepted_landings = {landed_signature};
  auto built = act("vault/update", update_body(), 8, online::RemainingMode::kBuild, true);
  EXPECT_TRUE(built.ok()) << built.error().to_string() << "\n" << log.str();
}

// Another journal of the registry paying with the same manager is no sign of a journal put
// back: its landings are its own steps, and act under this journal builds.
TEST_F(ActTest, AnotherRegisteredJournalsLandingHoldsNothing) {
  ASSERT_TRUE(act("vault/update", update_body(), 8, online::RemainingMode::kBuild, true).ok())
      << log.str();
  airlock::test::ScratchDir elsewhere{"airlock-act-elsewhere"};
  online::Journal mine = std::move(*journal);
  journal.emplace(online::Journal::open(elsewhere.file("journal.sqlite")).value());
  advance(60'000);
  json other = update_body();
  other["depositCap"] = "30000000000000";
  ASSERT_TRUE(act("vault/update", other, 8, online::RemainingMode::kBuild, true).ok()) << log.str();
  journal.emplace(std::move(mine));
  other["depositCap"] = "40000000000000";
  auto built = act("vault/update", other, 8, online::RemainingMode::kBuild, true);
  EXPECT_TRUE(built.ok()) << built.error().to_string();
}

// Two acts started together under two journals would each see nothing in flight in the
// registry and both build the same intent: one act at a time runs for an API on this machine.
TEST_F(ActTest, OneActAtATimeBuildsForAnApi) {
  {
    auto other = online::ActLock::take(api_name(), std::nullopt);  // another act, running
    ASSERT_TRUE(other.ok()) << other.error().to_string();
    auto refused = act("vault/update", update_body());
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code(), online::errors::kUnfinished);
    EXPECT_THAT(refused.error().message(), HasSubstr("another act with this API is running"));
    EXPECT_THAT(refused.error().message(), HasSubstr("pid"));
    EXPECT_EQ(builds(), 0U);
    // Another API's act for another vault holds nothing here; for this vault, it does.
    auto elsewhere =
        online::ActLock::take("another-api", "Ev1odcsBx9zUWfTrbTfPr82M5rQj25x32sApftABPjxp");
    ASSERT_TRUE(elsewhere.ok()) << elsewhere.error().to_string();
    auto same_vault = online::ActLock::take("a-third-api", std::string(kVault));
    ASSERT_TRUE(same_vault.ok()) << same_vault.error().to_string();
    auto through_other = online::ActLock::take("a-fourth-api", std::string(kVault));
    ASSERT_FALSE(through_other.ok());
    EXPECT_THAT(through_other.error().message(), HasSubstr("another act for this vault"));
  }
  auto built = act("vault/update", update_body());
  ASSERT_TRUE(built.ok()) << built.error().to_string() << "\n" << log.str();
  EXPECT_EQ(builds(), 1U);
  // Released when act returns: the next one runs.
  // The same intent through any API and for no vault (a vault/initialize) is held too.
  {
    const json init = {{"depositMint", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"},
                       {"name", "Treasury"}};
    const std::string intent = online::intent_id("vault/initialize", init);
    auto first = online::ActLock::take("http://127.0.0.1:8080/api", std::nullopt, intent);
    ASSERT_TRUE(first.ok()) << first.error().to_string();
    auto second = online::ActLock::take("http://127.0.0.1:9090/api", std::nullopt, intent);
    ASSERT_FALSE(second.ok());
    EXPECT_THAT(second.error().message(), HasSubstr("another act of this same intent"));
    EXPECT_TRUE(online::ActLock::take("http://127.0.0.1:9090/api", std::nullopt,
                                      online::intent_id("vault/initialize", {{"name", "Other"}}))
                    .ok());
  }
  auto again = online::ActLock::take(api_name(), std::string(kVault));
  EXPECT_TRUE(again.ok());
}

TEST_F(ActTest, AnUnfinishedRunBlocksTheNextActEvenWithOnlySignedSteps) {
  // act died after recording the signed step and before marking it `sending`: resume would
  // send it while its ticket lives, so a new act must not build the same intent beside it.
  const json body = update_body();
  const Reply built = post("/transactions/vault/update", body);
  ASSERT_EQ(built.status, 200);
  const auto run = journal->begin_run(api_name(), "vault/update", body, now_s()).value();
  online::JournalStep st;
  st.run_id = run;
  st.round = 1;
  st.step = 1;
  st.action = "vault/update";
  st.ticket = steps_of(built.body).at(0)["ticket"];
  st.built_at = now_s();
  st.transaction = steps_of(built.body).at(0)["transaction"];
  st.signature = "unsent";
  st.status = ss::kSigned;
  std::vector<online::JournalStep> steps = {st};
  ASSERT_TRUE(journal->add_signed_steps(steps).ok());
  const auto before = builds();
  auto s = act("vault/update", body);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message(), HasSubstr("unfinished"));
  EXPECT_THAT(s.error().message(), HasSubstr("run airlock-online resume"));
  EXPECT_EQ(builds(), before) << "nothing was built beside the signed step";
}

// A landed failure frees the rest of the work only on the chain's word (the node's), so these
// run with the node.
TEST_F(ActTest, RemainingWorkIsBuiltOnlyForTheRangeThatDidNotLandAndCountsAsARound) {
  faults({{"nextLandings", {"lands", "fails"}}});
  auto s = act("dlmm/open", open_body(), 2, online::RemainingMode::kBuild, true);
  ASSERT_TRUE(s.ok()) << s.error().to_string() << "\n" << log.str();
  EXPECT_EQ(builds(), 2U);
  EXPECT_THAT(log.str(), HasSubstr("cursorBinId"));
  // The same with one round allowed: the remaining work is planned but not built.
  faults({{"nextLandings", {"lands", "fails"}}});
  auto bounded = act("dlmm/open", open_body(), 1, online::RemainingMode::kBuild, true);
  ASSERT_FALSE(bounded.ok());
  EXPECT_EQ(builds(), 3U);
  EXPECT_THAT(log.str(), HasSubstr("no signing rounds left"));
  // The command printed for the work left runs as printed: the invocation's options follow.
  EXPECT_THAT(log.str(), HasSubstr("\"cursorBinId\":"));
  EXPECT_THAT(log.str(), HasSubstr("}' --api http://twin --request-out 'a b.alreq'\n"));
}

// The API's `expired` is believed only on a node's proof: without a node the intent stays
// held and nothing is built again, whatever the receipt says.
TEST_F(ActTest, AnExpiredReceiptWithoutANodeFreesNothing) {
  ASSERT_TRUE(act("perp/initialize", {{"vault", kVault}}).ok()) << log.str();
  faults({{"venueMidSubmit", true}, {"unknownLands", false}});
  const auto before_builds = builds();
  auto s = act("perp/onboard", {{"vault", kVault}}, 8);
  faults({{"venueMidSubmit", false}, {"unknownLands", true}});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message(), HasSubstr("resume --rpc"));
  EXPECT_EQ(builds(), before_builds + 1) << "no second build on the API's word";
  EXPECT_FALSE(journal->unresolved().value().empty()) << "the intent stays held";
}

TEST_F(ActTest, TheSameBuildIsNotRepeatedAfterALandedFailure) {
  faults({{"nextLandings", {"fails"}}});
  auto s = act("vault/update", update_body(), 8, online::RemainingMode::kBuild, true);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(builds(), 1U) << "--remaining build does not build the identical body again";
  EXPECT_THAT(log.str(), HasSubstr("the same request would fail the same way"));
}

// The API's `failed` frees the intent only on a node's proof, as its `expired` does: a status
// endpoint that says failed about a transaction that landed (or still can) would otherwise get
// the rest of the work built and the intent done twice. Without a node the step stays open
// and nothing is built again; the node then settles it.
TEST_F(ActTest, AFailedReceiptWithoutANodeFreesNothing) {
  for (const char* truth : {"lands", "fails"}) {
    SCOPED_TRACE(std::string("on chain it ") + truth);
    faults({{"statusSays", "failed"}, {"nextLandings", {truth}}});
    const auto before_builds = builds();
    auto s = act("dlmm/open", open_body(), 8);
    faults({{"statusSays", nullptr}});
    ASSERT_FALSE(s.ok());
    EXPECT_THAT(s.error().message(), HasSubstr("the API says failed"));
    EXPECT_THAT(s.error().message(), HasSubstr("resume --rpc"));
    EXPECT_EQ(builds(), before_builds + 1) << "no remaining work built on the API's word";
    EXPECT_FALSE(journal->unresolved().value().empty()) << "the intent stays held";
    // The chain settles it: resumed with the node, the step is what the chain shows.
    const auto runs = journal->runs(true).value();
    ASSERT_EQ(runs.size(), 1U);
    online::SendContext c{*client, *journal, [this] { return now_s(); },
                          [this](std::chrono::milliseconds d) { advance(d.count()); }, log};
    c.boot = [this] {
      return online::BootInstant{
          "0b9d6c2e-5a41-4f3e-8d7c-2e6f1a9b3c40",
          control("/_sim/clock", {{"advanceMs", 0}}).body["nowMs"].get<std::int64_t>()};
    };
    c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
    c.resumed = true;
    (void)online::resume_run(c, runs.front());
    EXPECT_TRUE(journal->unresolved().value().empty()) << "the node's proof closed it";
    EXPECT_EQ(builds(), before_builds + 1) << "resuming builds nothing";
  }
}

TEST_F(ActTest, AVenueThatFailsMidSubmitIsPolledNeverSubmittedAgain) {
  ASSERT_TRUE(act("perp/initialize", {{"vault", kVault}}).ok()) << log.str();
  for (const bool lands : {false, true}) {  // never landed first: onboarding stays to do
    SCOPED_TRACE(lands ? "it landed" : "it never landed");
    faults({{"venueMidSubmit", true}, {"unknownLands", lands}});
    const auto before_builds = builds();
    const auto before_landed = landed();
    // With the node, which proves the receipt's `expired` (without one it would stay open).
    auto s = act("perp/onboard", {{"vault", kVault}}, 1, online::RemainingMode::kBuild, true);
    EXPECT_EQ(s.ok(), lands) << (s.ok() ? "" : s.error().to_string()) << "\n" << log.str();
    EXPECT_EQ(builds(), before_builds + 1) << "one build, then only polls of its receipt";
    EXPECT_EQ(landed(), before_landed + (lands ? 1U : 0U));
    EXPECT_TRUE(journal->unresolved().value().empty()) << "the receipt settled it";
    faults({{"venueMidSubmit", false}, {"unknownLands", true}});
  }
}

}  // namespace
}  // namespace airlock::apisim::test
