// Sending, following receipts and resuming, against the twin, with the journal: every retry
// rule and fault of spec part 7 ends the way the spec says, and the journal always knows.
// The twin's clock is frozen; the sender's sleeps advance it, so polling takes no real time.
#include <sstream>

#include <gmock/gmock.h>

#include <airlock/online/api.h>
#include <airlock/online/chain.h>
#include <airlock/online/journal.h>
#include <airlock/online/remaining.h>
#include <airlock/online/round.h>
#include <airlock/online/sender.h>

#include "conformance_support.h"
#include "support/helpers.h"
#include "support/vectors.h"

using ::testing::HasSubstr;

namespace airlock::apisim::test {
namespace {

// Keys and vectors as secrets, for the functions that take only SecretText.
airlock::test::SecretArena as_secret;

namespace ss = online::step_status;

class SenderTest : public Twin {
 protected:
  void SetUp() override {
    Twin::SetUp();
    auto key = online::ApiKey::parse(as_secret(kDemoKey));
    ASSERT_TRUE(key.ok());
    online::ClientOptions options;
    // The twin's clock and the client's pacing clock move together, only when the client waits.
    options.sleep = [this](std::chrono::milliseconds d) {
      advance(d.count());
      pacing_now += d;
    };
    options.now = [this] { return pacing_now; };
    auto c = online::ApiClient::create(
        "http://127.0.0.1:" + std::to_string(server_->port()) + std::string(kApiPrefix),
        std::move(key).value(), options);
    ASSERT_TRUE(c.ok()) << c.error().to_string();
    client.emplace(std::move(c).value());
    auto j = online::Journal::open(dir.file("journal.sqlite"));
    ASSERT_TRUE(j.ok()) << j.error().to_string();
    journal.emplace(std::move(j).value());
  }

  online::SendContext context() {
    return {*client,
            *journal,
            [this] { return now_s() + wall_jump_s; },
            [this](std::chrono::milliseconds d) { advance(d.count()); },
            log,
            [this] { return boot(); }};
  }

  // The machine's boot clock runs with the twin's clock; the wall clock is the twin's plus
  // `wall_jump_s`, so a test can make it jump without moving time.
  std::optional<online::BootInstant> boot() {
    return online::BootInstant{
        boot_id, control("/_sim/clock", {{"advanceMs", 0}}).body["nowMs"].get<std::int64_t>()};
  }
  std::int64_t wall_jump_s = 0;
  std::string boot_id = "6e1c0d52-1f7b-4d2a-9a8e-3c5b7f0e2d11";

  void faults(const json& f) { control("/_sim/faults", f); }

  // Builds `action`, signs every step with the manager key as the offline half would, and
  // records the signed steps in a new run: what airlock-online act has done just before it
  // sends.
  // `reply_ms`: how long the build reply took to arrive (the client's ticket clock starts then).
  // `rpc`: the node `act --rpc` would measure the blockhash's last valid height with.
  std::vector<online::JournalStep> signed_round(const std::string& action, const json& body,
                                                std::int64_t reply_ms = 0,
                                                std::optional<std::string> rpc = std::nullopt,
                                                int round_no = 1) {
    advance(4000);
    const Reply built = post("/transactions/" + action, body);
    EXPECT_EQ(built.status, 200) << built.body.dump();
    if (reply_ms > 0) advance(reply_ms);
    const std::int64_t built_at = now_s();
    auto round = online::prepare_round(action, body, built.body, rpc, built_at);
    EXPECT_TRUE(round.ok()) << round.error().to_string();
    envelope::SignResponse response;
    response.request_id = round->request.request_id;
    response.signer = manager_->public_key();
    std::vector<Signature> signatures;
    for (const auto& tx : round->transactions)
      signatures.push_back(manager_->sign(serialize_message(tx.message)));
    response.result = signatures;
    auto answer = online::apply_response(*round, response, built_at);
    EXPECT_TRUE(answer.ok()) << answer.error().to_string();
    if (round_no == 1) run_id = journal->begin_run("twin", action, body, built_at).value();
    auto steps = online::steps_of_round(run_id, round_no, *round, answer->signed_transactions,
                                        built_at, built_at, boot());
    EXPECT_TRUE(journal->add_signed_steps(steps).ok());
    return steps;
  }

  std::vector<std::string> statuses() {
    std::vector<std::string> out;
    const auto steps = journal->steps(run_id).value();
    for (const auto& st : steps) out.push_back(st.status);
    return out;
  }

  json open_body() {
    return {{"vault", kVault},    {"lbPair", kSolUsdcPool},   {"lowerBinId", 4930},
            {"upperBinId", 5070}, {"amountX", "200000000"},   {"amountY", "30000000"},
            {"shape", "spot"},    {"maxActiveBinSlippage", 5}};
  }
  json update_body() { return {{"vault", kVault}, {"depositCap", "20000000000000"}}; }

  airlock::test::ScratchDir dir{"airlock-sender"};
  std::optional<online::ApiClient> client;
  std::optional<online::Journal> journal;
  std::ostringstream log;
  std::int64_t run_id = 0;
  online::RateLimiter::Clock::time_point pacing_now{};
};

TEST_F(SenderTest, ABatchIsSentInOrderAndEveryStepConfirmed) {
  auto steps = signed_round("dlmm/open", open_body());
  ASSERT_GE(steps.size(), 2U);
  auto c = context();
  auto end = online::send_round(c, steps);
  ASSERT_TRUE(end.ok()) << end.error().to_string() << "\n" << log.str();
  EXPECT_EQ(*end, online::RoundEnd::kDone);
  for (const auto& s : statuses()) EXPECT_EQ(s, ss::kConfirmed);
  const json counters_now = counters();
  EXPECT_EQ(counters_now["sends"], steps.size());
  EXPECT_EQ(counters_now["landed"], steps.size());
}

TEST_F(SenderTest, AnUnknownSendIsPolledToEachEndState) {
  // `expired` frees the intent only on a node's proof: without one the step stays as the send
  // left it, and the run open.
  const struct {
    json faults;
    bool node;
    const char* end;
  } cases[] = {
      {{{"rpcOutage", true}, {"unknownLands", true}}, false, ss::kConfirmed},
      {{{"rpcOutage", true}, {"unknownLands", false}}, true, ss::kExpired},
      {{{"rpcOutage", true}, {"unknownLands", false}}, false, ss::kPending},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.end) + (c.node ? " with a node" : " without a node"));
    const std::string rpc = "http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc";
    // With a node, it measures the blockhash's last valid height at the build, as act --rpc.
    auto steps =
        signed_round("vault/update", update_body(), 0, c.node ? std::optional(rpc) : std::nullopt);
    faults(c.faults);
    // The outage answers the send with unknown; it is over by the time the receipt is polled.
    auto client_sleep = context();
    client_sleep.sleep = [this](std::chrono::milliseconds d) {
      faults({{"rpcOutage", false}});
      advance(d.count() * 40);  // blockhashes expire after about 150 slots
    };
    if (c.node) client_sleep.prove = online::rpc_prover(rpc);
    auto end = online::send_round(client_sleep, steps);
    faults({{"rpcOutage", false}});
    EXPECT_EQ(statuses().front(), c.end) << log.str();
    EXPECT_EQ(end.ok(), std::string(c.end) == ss::kConfirmed);
    if (!c.node && std::string(c.end) == ss::kPending) {
      ASSERT_FALSE(end.ok());
      EXPECT_THAT(end.error().message(), HasSubstr("resume --rpc"));
      EXPECT_FALSE(journal->unresolved().value().empty()) << "the intent stays held";
    }
    EXPECT_THAT(log.str(), HasSubstr("unknown"));
  }
  EXPECT_EQ(counters()["builds"], 3) << "an unknown send is never answered by building again";
}

// A receipt the API no longer knows (404: past its retention, or another key's after a
// rotation) neither locks the intent forever nor frees it: the chain settles it, and without a
// node it stays open.
TEST_F(SenderTest, AReceiptTheApiForgetsIsSettledByTheChain) {
  const std::string rpc = "http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc";
  for (const bool node : {false, true}) {
    SCOPED_TRACE(node ? "with a node" : "without a node");
    auto steps =
        signed_round("vault/update", update_body(), 0, node ? std::optional(rpc) : std::nullopt);
    auto c = context();
    faults({{"forgetReceipts", true}});  // the send is answered; every poll meets a 404
    if (node) c.prove = online::rpc_prover(rpc);
    auto end = online::send_round(c, steps);
    faults({{"forgetReceipts", false}});
    if (node) {
      ASSERT_TRUE(end.ok()) << end.error().to_string() << "\n" << log.str();
      EXPECT_EQ(statuses().front(), ss::kConfirmed) << "the node shows it landed";
    } else {
      ASSERT_FALSE(end.ok());
      EXPECT_THAT(end.error().message(), HasSubstr("no longer knows its receipt"));
      EXPECT_THAT(end.error().message(), HasSubstr("resume --rpc"));
      EXPECT_FALSE(journal->unresolved().value().empty()) << "the intent stays held";
      // Settle it so the next round starts clean: the node shows it landed.
      c.prove = online::rpc_prover(rpc);
      auto settled = online::resume_run(c, journal->runs(true).value().front());
      ASSERT_TRUE(settled.ok()) << settled.error().to_string();
      faults({{"forgetReceipts", false}});
    }
  }
}

TEST_F(SenderTest, ALandedFailureStopsTheBatch) {
  auto steps = signed_round("dlmm/open", open_body());
  ASSERT_GE(steps.size(), 2U);
  steps[1].concurrent = false;  // make step 2 a barrier after step 1
  steps[0].concurrent = false;
  faults({{"nextLanding", "fails"}, {"failCode", "SlippageToleranceExceeded"}});
  auto c = context();
  c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
  auto end = online::send_round(c, steps);
  ASSERT_FALSE(end.ok());
  EXPECT_THAT(end.error().message(), HasSubstr("read the current state"));
  EXPECT_EQ(end.error().code(), online::errors::kStepFailed)
      << "the chain's failure, not the API's";
  const auto s = statuses();
  EXPECT_EQ(s[0], ss::kFailed);
  EXPECT_EQ(s[1], ss::kSigned) << "nothing after a failure is sent";
  EXPECT_EQ(counters()["sends"], 1);
}

TEST_F(SenderTest, AFailureInAGroupStillFollowsTheRestOfTheGroupToItsEnd) {
  auto steps = signed_round("dlmm/open", open_body());
  ASSERT_EQ(steps.size(), 2U);
  ASSERT_TRUE(steps[0].concurrent && steps[1].concurrent);
  faults({{"nextLanding", "fails"}});
  auto c = context();
  c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
  auto end = online::send_round(c, steps);
  ASSERT_FALSE(end.ok());
  EXPECT_THAT(end.error().message(), HasSubstr("step 1 of 2 failed"));
  EXPECT_EQ(statuses(), (std::vector<std::string>{ss::kFailed, ss::kConfirmed}))
      << "both were sent, so both outcomes are learnt before stopping";
  EXPECT_TRUE(journal->unresolved()->empty());
}

// Issue 31: a step whose outcome cannot be known yet (the API says expired and no node can
// prove it; or the node fails on a receipt the API forgot) used to end the following of its
// group there, leaving the steps sent with it unpolled. Each is followed to its end; the
// unknown one keeps the run open.
TEST_F(SenderTest, AnUnknownOutcomeInAGroupStillFollowsTheRestOfTheGroup) {
  auto steps = signed_round("dlmm/open", open_body());
  ASSERT_EQ(steps.size(), 2U);
  ASSERT_TRUE(steps[0].concurrent && steps[1].concurrent);
  faults({{"nextLandings", {"never", "lands"}}});
  auto c = context();
  auto end = online::send_round(c, steps);
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.error().code(), online::errors::kOutcomeUnknown) << end.error().to_string();
  EXPECT_EQ(statuses()[1], ss::kConfirmed) << "the step sent with it was followed too\n"
                                           << log.str();
  EXPECT_FALSE(journal->unresolved()->empty()) << "the unknown one keeps the run open";
}

// A 422 is not sent again, and is the API's word only: the step stays open until the chain
// proves its bytes never land (design.md §1), then it is `rejected`, never built again as is.
TEST_F(SenderTest, A422IsNotRetriedAndAnInvalidTicketBuildsAgain) {
  auto steps = signed_round("vault/update", update_body());
  faults({{"preflightReject", "SimulationFailed"}});
  auto c = context();
  auto end = online::send_round(c, steps);
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.error().code(), online::errors::kOutcomeUnknown) << end.error().to_string();
  EXPECT_THAT(end.error().message(), HasSubstr("HTTP 422 SimulationFailed"));
  EXPECT_THAT(end.error().message(), HasSubstr("says it refused these bytes before relaying"));
  EXPECT_THAT(end.error().message(), HasSubstr("no Solana RPC node was given"));
  EXPECT_EQ(statuses().front(), ss::kSending) << "the API's word alone frees nothing";
  EXPECT_FALSE(journal->unresolved()->empty());
  EXPECT_EQ(counters()["sends"], 0);
  {
    // Proven by the chain: `rejected`, a step failed that needs a change, not a rebuild.
    auto proven = context();
    proven.prove = [](const online::ChainQuestion&) -> Result<online::ChainProof> {
      return online::ChainProof{online::ChainProof::Outcome::kNeverLands, "proven dead"};
    };
    auto refused = signed_round("vault/update", update_body());
    faults({{"preflightReject", "SimulationFailed"}});
    auto stopped = online::send_round(proven, refused);
    ASSERT_FALSE(stopped.ok());
    EXPECT_EQ(stopped.error().code(), online::errors::kStepFailed) << stopped.error().to_string();
    EXPECT_EQ(journal->steps(refused[0].run_id).value().front().status, ss::kRejected);
  }

  // An InvalidTicket to the first send builds again only once the chain proves the bytes never
  // land: without a node the step stays open; with one, once the blockhash is dead.
  auto expired = signed_round("vault/update", update_body());
  expired[0].ticket = "tkt_not_issued";
  auto open = online::send_round(c, expired);
  ASSERT_FALSE(open.ok());
  EXPECT_EQ(open.error().code(), online::errors::kOutcomeUnknown) << open.error().to_string();
  EXPECT_THAT(open.error().message(), HasSubstr("no Solana RPC node was given"));
  EXPECT_EQ(journal->steps(expired[0].run_id).value().front().status, ss::kSending);
  // With the twin's node: its blockhash still lives, so nothing proves it never lands.
  c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
  auto live = signed_round("vault/update", update_body());
  live[0].ticket = "tkt_not_issued";
  auto still_open = online::send_round(c, live);
  ASSERT_FALSE(still_open.ok());
  EXPECT_THAT(still_open.error().message(),
              HasSubstr("the RPC node does not show that it never lands"));
  // A node that proves it: built again.
  c.prove = [](const online::ChainQuestion&) -> Result<online::ChainProof> {
    return online::ChainProof{online::ChainProof::Outcome::kNeverLands, "proven dead"};
  };
  auto again = signed_round("vault/update", update_body());
  again[0].ticket = "tkt_not_issued";
  auto rebuild = online::send_round(c, again);
  ASSERT_TRUE(rebuild.ok()) << rebuild.error().to_string() << "\n" << log.str();
  EXPECT_EQ(*rebuild, online::RoundEnd::kRebuild);
  EXPECT_EQ(counters()["sends"], 0);
}

// The 422'd step left open is settled by resume once its blockhash has died: the twin's node
// proves it never lands, and it is `rejected` with preflight's code, so the plan of what is
// left does not offer the same request again unchanged.
TEST_F(SenderTest, A422LeftOpenIsRejectedOnTheChainsProofAndNotOfferedAgain) {
  auto steps = signed_round("vault/update", update_body());
  faults({{"preflightReject", "SlippageToleranceExceeded"}});
  auto c = context();
  ASSERT_EQ(online::send_round(c, steps).error().code(), online::errors::kOutcomeUnknown);
  ASSERT_EQ(statuses().front(), ss::kSending);
  advance(200'000);
  c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
  auto outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  const auto step = journal->steps(steps[0].run_id).value().front();
  EXPECT_EQ(step.status, ss::kRejected) << step.message << "\n" << log.str();
  EXPECT_EQ(step.code, "SlippageToleranceExceeded");
  EXPECT_THAT(step.message, HasSubstr("the RPC node:"));
  EXPECT_TRUE(journal->unresolved()->empty());
  const auto plan =
      online::plan_remaining(journal->steps(steps[0].run_id).value(), now_s(), boot());
  EXPECT_EQ(plan.kind, online::RemainingWork::Kind::kManual) << plan.why;
  EXPECT_THAT(plan.why, HasSubstr("was refused (SlippageToleranceExceeded)"));
  EXPECT_EQ(counters()["sends"], 0);
}

// A send the API relayed, answered with a refusal the spec says comes before any relay: a
// 422 SendFailed (the send itself failed, which may be after the bytes reached a leader) is no
// word that nothing was sent, and a 403 InvalidTicket to the first send builds again only on
// the chain's proof. Found by an independent fault review: both landed the action twice.
TEST_F(SenderTest, ARefusalAfterARelayBuildsNothingAgain) {
  for (const char* answer : {"422 SendFailed", "403 InvalidTicket", "422 SimulationFailed",
                             "422 SlippageToleranceExceeded", "403 Forbidden"}) {
    SCOPED_TRACE(answer);
    auto steps = signed_round("vault/update", update_body());
    faults({{"relayThenFail", {answer}}});
    auto c = context();
    c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
    auto end = online::send_round(c, steps);
    const auto status = journal->steps(steps[0].run_id).value().front().status;
    EXPECT_NE(status, ss::kRejected) << log.str();
    if (end.ok()) {
      EXPECT_NE(*end, online::RoundEnd::kRebuild) << log.str();
    }
    EXPECT_EQ(counters()["landedBySignature"].value(steps[0].signature, std::uint64_t{0}), 1U);
  }
}

TEST_F(SenderTest, ResumeAfterACrashDuringTheSendSendsTheIdenticalBytesOnce) {
  auto steps = signed_round("vault/update", update_body());
  // The process marked the step `sending`, the API received it, and the process died before
  // recording the reply.
  steps[0].status = ss::kSending;
  ASSERT_TRUE(journal->update_step(steps[0]).ok());
  auto first = client->send(steps[0].transaction, steps[0].ticket, false);
  ASSERT_TRUE(first.ok() && !first->failure);
  auto c = context();
  const auto run = journal->runs(true).value().front();
  auto outcome = online::resume_run(c, run);
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->state, "done") << outcome->note;
  EXPECT_EQ(statuses().front(), ss::kConfirmed);
  EXPECT_EQ(journal->steps(run_id).value().front().receipt, first->body["receipt"]);
  const json n = counters();
  EXPECT_EQ(n["sends"], 1) << "the second send of identical bytes is the same send";
  EXPECT_EQ(n["landed"], 1);
}

// What resume leaves behind is enough to plan the rest: the journal keeps each step's build
// body and bin range, so a batch whose second position failed is resumed at its first bin.
TEST_F(SenderTest, AfterAResumedBatchFailsTheJournalPlansOnlyTheRangesLeft) {
  signed_round("dlmm/open", open_body());
  faults({{"nextLandings", json::array({"lands", "fails"})}});
  auto c = context();
  c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
  const auto run = journal->runs(true).value().front();
  auto outcome = online::resume_run(c, run);
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->state, "failed") << outcome->note;
  const auto plan = online::plan_remaining(journal->steps(run.id).value(), now_s() + 600, boot());
  ASSERT_EQ(plan.kind, online::RemainingWork::Kind::kOffer) << plan.why;
  ASSERT_EQ(plan.builds.size(), 1U);
  json expected = open_body();
  expected["cursorBinId"] = 5000;
  EXPECT_EQ(plan.builds[0].action, "dlmm/open");
  EXPECT_EQ(plan.builds[0].body, expected);
  // And the twin builds exactly the one position left from it.
  const Reply rest = post("/transactions/dlmm/open", plan.builds[0].body);
  ASSERT_EQ(rest.status, 200) << rest.body.dump();
  ASSERT_EQ(steps_of(rest.body).size(), 1U);
  EXPECT_EQ(steps_of(rest.body)[0]["lowerBinId"], 5000);
}

// Issue 31: a step another process left `signed` may have been sent in a commit the disk lost
// (the `sending` mark). Once its ticket has died, resume takes it as maybe sent: open until the
// chain proves how it ended, never "nothing of it happened" on the journal's word alone.
TEST_F(SenderTest, ResumeTakesAStepLeftSignedAsMaybeSentOnceItsTicketDied) {
  auto steps = signed_round("vault/update", update_body());
  advance(91'000);
  auto c = context();
  auto outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->state, "open") << outcome->note;
  EXPECT_THAT(outcome->note, HasSubstr("resume --rpc"));
  EXPECT_EQ(statuses().front(), ss::kSending);
  EXPECT_FALSE(journal->unresolved().value().empty()) << "act refuses to build until resolved";
  EXPECT_EQ(counters()["sends"], 0);
  // With a node that proves the blockhash dead and the signature absent, it never landed.
  c.prove = [](const online::ChainQuestion&) -> Result<online::ChainProof> {
    return online::ChainProof{online::ChainProof::Outcome::kNeverLands, "proven dead"};
  };
  outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->state, "failed") << outcome->note;
  EXPECT_EQ(statuses().front(), ss::kExpired);
  EXPECT_TRUE(journal->unresolved().value().empty());
}

// The same while the ticket seems to live: a step left `signed` whose bytes went out (the
// `sending` commit lost) meets InvalidTicket when this clock, set back, thinks the ticket alive.
// That first refusal of a resumed step proves nothing: before, the run closed as "nothing of it
// happened; build it again", and the intent could land twice.
TEST_F(SenderTest, AFirstRefusalOfAResumedStepLeftSignedProvesNothing) {
  auto steps = signed_round("vault/update", update_body());
  auto first = client->send(steps[0].transaction, steps[0].ticket, false);
  ASSERT_TRUE(first.ok() && !first->failure);  // it went out; the journal still says signed
  advance(91'000);                             // the API's ticket is dead
  auto c = context();
  c.clock = [this] { return now_s() - 60; };  // this clock, set back, gives it 29 s more
  auto outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->state, "open") << outcome->note;
  EXPECT_EQ(statuses().front(), ss::kSending);
  EXPECT_FALSE(journal->unresolved().value().empty()) << "act refuses to build until resolved";
  EXPECT_EQ(counters()["builds"], 1);
}

// In the process that signed it, a step still `signed` was never sent: it knows.
TEST_F(SenderTest, AStepThisProcessNeverSentIsAbandonedOnceItsTicketDied) {
  auto steps = signed_round("vault/update", update_body());
  advance(91'000);
  auto c = context();
  auto end = online::send_round(c, steps);
  ASSERT_FALSE(end.ok());
  EXPECT_THAT(end.error().message(), HasSubstr("nothing of it happened"));
  EXPECT_EQ(statuses().front(), ss::kAbandoned);
  EXPECT_EQ(counters()["sends"], 0);
}

TEST_F(SenderTest, ResumeLeavesASendWithoutReceiptOpenOnceItsTicketDied) {
  auto steps = signed_round("vault/update", update_body());
  steps[0].status = ss::kSending;
  ASSERT_TRUE(journal->update_step(steps[0]).ok());
  advance(91'000);
  auto c = context();
  auto outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->state, "open") << "the outcome cannot be known from here";
  EXPECT_THAT(outcome->note, HasSubstr(steps[0].signature));
  EXPECT_FALSE(journal->unresolved().value().empty()) << "act refuses to build until resolved";
}

}  // namespace
}  // namespace airlock::apisim::test

namespace airlock::apisim::test {
namespace {

namespace ss = online::step_status;

// Issue 13: a signed step may have landed from the moment its bytes could have left until a
// receipt or the blockhash's expiry proves otherwise. Each case below asserts from the twin's
// counters that the intent landed once (or not at all) and that nothing was built again.
class AtMostOnce : public SenderTest {
 protected:
  std::uint64_t landed(const std::string& signature) {
    const json n = counters();
    return n["landedBySignature"].value(signature, std::uint64_t{0});
  }
  // The API relays the send, then answers `status` with code `Internal` (twin fault
  // relayThenFail): not as the spec words a refusal before the relay, so the step stays open,
  // nothing is built again, and the relayed transaction lands once.
  void refusal_after_the_relay_stays_open(int status) {
    auto steps = signed_round("vault/update", update_body());
    faults({{"relayThenFail", json(std::vector<int>(60, status))}});
    auto c = context();
    auto end = online::send_round(c, steps);
    ASSERT_FALSE(end.ok());
    EXPECT_EQ(statuses().front(), ss::kSending) << "never `rejected`: it may have landed\n"
                                                << log.str();
    EXPECT_FALSE(journal->unresolved().value().empty()) << "act refuses to build while it is open";
    advance(10'000);
    EXPECT_EQ(landed(steps[0].signature), 1U) << "the twin relayed it";
    EXPECT_EQ(counters()["builds"], 1) << "nothing was built again";
  }
  void last_round_learnt(bool sending_mark_lost);
};

TEST_F(AtMostOnce, AGatewayTimeoutAfterTheRelayIsAnsweredByTheIdenticalBytesNotARebuild) {
  auto steps = signed_round("vault/update", update_body());
  faults({{"relayThenFail", {504}}});
  auto c = context();
  auto end = online::send_round(c, steps);
  ASSERT_TRUE(end.ok()) << end.error().to_string() << "\n" << log.str();
  EXPECT_EQ(statuses().front(), ss::kConfirmed);
  EXPECT_THAT(log.str(), HasSubstr("HTTP 504"));
  EXPECT_EQ(landed(steps[0].signature), 1U);
  EXPECT_EQ(counters()["sends"], 1) << "the resend was answered with the first send's receipt";
  EXPECT_EQ(counters()["builds"], 1);
}

// Found by an attacker review: the API relayed the send, then answered 403 or 422 with code
// `Internal`, and the step was taken as refused before anything was sent; the same intent was
// built and landed again. A refusal is believed only as the spec words it.
TEST_F(AtMostOnce, A403NotAsTheSpecWordsItIsNoWordThatNothingWasSent) {
  refusal_after_the_relay_stays_open(403);
}
TEST_F(AtMostOnce, A422NotAsTheSpecWordsItIsNoWordThatNothingWasSent) {
  refusal_after_the_relay_stays_open(422);
}

TEST_F(AtMostOnce, ASendThatNeverGetsItsReceiptStaysOpenAndBlocksEveryRebuild) {
  auto steps = signed_round("vault/update", update_body());
  faults({{"relayThenFail", json(std::vector<int>(60, 504))}});
  auto c = context();
  auto end = online::send_round(c, steps);
  ASSERT_FALSE(end.ok());
  EXPECT_THAT(end.error().message(), HasSubstr("may have relayed"));
  EXPECT_EQ(statuses().front(), ss::kSending) << "never `rejected`: it may have landed";
  EXPECT_FALSE(journal->unresolved().value().empty()) << "act refuses to build while it is open";
  // The twin landed it on its own clock although no receipt was ever read.
  advance(10'000);
  EXPECT_EQ(landed(steps[0].signature), 1U);
  EXPECT_EQ(counters()["landedUnread"], 1);
  // The plan of the remaining work offers nothing while the outcome is open.
  const auto plan = online::plan_remaining(journal->steps(run_id).value(), now_s(), boot());
  EXPECT_NE(plan.kind, online::RemainingWork::Kind::kOffer) << plan.why;
  // resume, after the ticket died, leaves it open rather than calling it rejected.
  faults({{"relayThenFail", json::array()}});
  advance(120'000);
  auto outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->state, "open");
  EXPECT_EQ(statuses().front(), ss::kSending);
  EXPECT_EQ(counters()["builds"], 1) << "nothing was built again";
  EXPECT_EQ(landed(steps[0].signature), 1U);
}

// A status endpoint that lies: `failed` about a landing would free the intent for a second
// landing, and `confirmed` about a transaction that never landed would end the run with nothing
// done. With a node, the chain has the last word; the step says what each of them said.
TEST_F(AtMostOnce, AFailedTheChainDoesNotShowIsNotBelievedWhenANodeIsThere) {
  auto steps = signed_round("vault/update", update_body());
  faults({{"statusSays", "failed"}});
  auto c = context();
  c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
  auto end = online::send_round(c, steps);
  ASSERT_TRUE(end.ok()) << end.error().to_string() << "\n" << log.str();
  EXPECT_EQ(statuses().front(), ss::kConfirmed) << "it landed: the chain says so";
  EXPECT_THAT(journal->steps(run_id).value().front().message,
              HasSubstr("the API: failed (SlippageToleranceExceeded); the RPC node: on chain"));
  EXPECT_EQ(landed(steps[0].signature), 1U);
  const auto plan = online::plan_remaining(journal->steps(run_id).value(), now_s(), boot());
  EXPECT_NE(plan.kind, online::RemainingWork::Kind::kOffer) << "nothing left to build again";
}

// Without a node, the API's `failed` is no proof either: the step stays as it was, the run
// open, and nothing about it is recorded as failed (which would free the intent).
TEST_F(AtMostOnce, AFailedWithoutANodeKeepsTheStepOpen) {
  auto steps = signed_round("vault/update", update_body());
  faults({{"statusSays", "failed"}});
  auto c = context();
  auto end = online::send_round(c, steps);
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.error().code(), online::errors::kOutcomeUnknown) << end.error().to_string();
  EXPECT_THAT(end.error().message(), HasSubstr("the API says failed"));
  EXPECT_THAT(end.error().message(), HasSubstr("resume --rpc"));
  EXPECT_NE(statuses().front(), ss::kFailed) << "not freed on the API's word";
  EXPECT_FALSE(journal->unresolved().value().empty());
  EXPECT_EQ(landed(steps[0].signature), 1U) << "it did land: the API lied";
}

TEST_F(AtMostOnce, AFailedTheNodeCannotShowYetKeepsTheStepOpen) {
  auto steps = signed_round("vault/update", update_body());
  faults({{"statusSays", "failed"}, {"nextLanding", "never"}});
  auto c = context();
  c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
  auto end = online::send_round(c, steps);
  ASSERT_FALSE(end.ok());
  EXPECT_THAT(end.error().message(),
              HasSubstr("the API says failed, but the RPC node does not show it on chain"));
  EXPECT_NE(statuses().front(), ss::kFailed) << "not freed on the API's word";
  EXPECT_FALSE(journal->unresolved().value().empty());
}

// Issue 31 (F6): the API says confirmed, the step never landed, and the node given keeps no
// transaction history, so it can show neither the landing nor its absence. The run ended
// `done`, exit 0, on the API's word; now the step stays open for the chain to settle.
TEST_F(AtMostOnce, AConfirmedANodeCannotShowIsNotDone) {
  auto steps = signed_round("vault/update", update_body());
  faults({{"statusSays", "confirmed"}, {"nextLanding", "never"}, {"rpcNoHistory", true}});
  auto c = context();
  c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
  auto end = online::send_round(c, steps);
  ASSERT_FALSE(end.ok()) << log.str();
  EXPECT_EQ(end.error().code(), online::errors::kOutcomeUnknown) << end.error().to_string();
  EXPECT_THAT(end.error().message(),
              HasSubstr("the API says confirmed, but the RPC node does not show it on chain"));
  EXPECT_THAT(end.error().message(), HasSubstr("resume --rpc"));
  EXPECT_NE(statuses().front(), ss::kConfirmed) << "not done on the API's word";
  EXPECT_FALSE(journal->unresolved().value().empty());
  EXPECT_EQ(landed(steps[0].signature), 0U) << "the API lied: nothing landed";
}

TEST_F(AtMostOnce, AConfirmedTheChainProvesNeverLandedEndsExpiredNotDone) {
  auto steps = signed_round("vault/update", update_body());
  faults({{"statusSays", "confirmed"}, {"nextLanding", "never"}});
  auto c = context();
  // The node does not show it at the first poll; by the next one the blockhash is dead.
  c.sleep = [this](std::chrono::milliseconds) { advance(200'000); };
  c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
  auto end = online::send_round(c, steps);
  EXPECT_EQ(statuses().front(), ss::kExpired) << log.str();
  EXPECT_THAT(journal->steps(run_id).value().front().message,
              HasSubstr("the API: confirmed; the RPC node: its blockhash has expired"));
  EXPECT_EQ(journal->steps(run_id).value().front().code, "BlockhashExpired")
      << "proven never to land, as docs/journal.md gives it";
  EXPECT_EQ(landed(steps[0].signature), 0U);
  (void)end;
}

TEST_F(AtMostOnce, TheChainProvesThatASendWithoutReceiptLandedAndTheRunEndsDone) {
  auto steps = signed_round("vault/update", update_body());
  faults({{"relayThenFail", json(std::vector<int>(60, 504))}});
  auto c = context();
  ASSERT_FALSE(online::send_round(c, steps).ok());
  ASSERT_EQ(statuses().front(), ss::kSending);
  faults({{"relayThenFail", json::array()}});
  advance(120'000);  // the ticket and the blockhash are both dead
  c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
  auto outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->state, "done") << outcome->note;
  EXPECT_EQ(statuses().front(), ss::kConfirmed);
  EXPECT_THAT(journal->steps(run_id).value().front().message, HasSubstr("on chain"));
  EXPECT_EQ(landed(steps[0].signature), 1U);
  EXPECT_EQ(counters()["builds"], 1);
}

TEST_F(AtMostOnce, TheChainProvesThatASendWithoutReceiptCanNeverLandAndOnlyThenFreesTheIntent) {
  auto steps = signed_round("vault/update", update_body());
  // Relayed, but it never lands (dropped by the leader), and no reply ever reached the client.
  faults({{"relayThenFail", json(std::vector<int>(60, 504))}, {"nextLandings", {"never"}}});
  auto c = context();
  ASSERT_FALSE(online::send_round(c, steps).ok());
  faults({{"relayThenFail", json::array()}});
  c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
  // While the blockhash lives (the ticket's end comes later on the twin: 60 s against 90 s, so
  // the prover is asked only once the ticket is dead; ask it directly here) nothing is proved.
  online::ChainQuestion question;
  question.signature = steps[0].signature;
  question.blockhash =
      to_base58(online::prepare_round("vault/update", update_body(),
                                      post("/transactions/vault/update", update_body()).body,
                                      std::nullopt, now_s())
                    ->transactions.front()
                    .message.recent_blockhash);
  question.elapsed_seconds = 10;
  auto early = c.prove(question);
  ASSERT_TRUE(early.ok()) << early.error().to_string();
  EXPECT_EQ(early->outcome, online::ChainProof::Outcome::kMayLand) << early->detail;
  // No node measured the blockhash's last valid height at this build, so only the build's age
  // past any blockhash's life (180 s on the clock; the resends took most of it) proves it dead.
  advance(120'000);
  auto outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->state, "failed") << outcome->note;
  EXPECT_EQ(statuses().front(), ss::kExpired);
  EXPECT_TRUE(journal->unresolved().value().empty()) << "the intent is free for a new build";
  const auto plan = online::plan_remaining(journal->steps(run_id).value(), now_s(), boot());
  EXPECT_EQ(plan.kind, online::RemainingWork::Kind::kOffer) << plan.why;
  EXPECT_EQ(landed(steps[0].signature), 0U);
}

// Found by an independent fault review: round 1's send met a real InvalidTicket (its ticket
// died while the offline half answered), the chain proved it never lands, and round 2 was
// built, relayed and landed, but answered 504 until its ticket died. Every resume then stopped
// at round 1's `rejected` step ("already rejected") and never learnt round 2: the intent was
// held for ever. A superseded round is settled, not sent, and the last round says the outcome.
TEST_F(AtMostOnce, ResumeLearnsTheLastRoundPastARoundBuiltAgain) { last_round_learnt(false); }

// The same, with round 2's `sending` mark lost (a disk that dropped a commit it acknowledged):
// the run was closed `failed` for round 1's refusal, and the same build offered and landed
// again. Round 2's step, left `signed` by a process that is gone, may have been sent.
TEST_F(AtMostOnce, ResumeLearnsTheLastRoundPastARoundBuiltAgainAfterALostCommit) {
  last_round_learnt(true);
}

void AtMostOnce::last_round_learnt(bool sending_mark_lost) {
  const std::string rpc = "http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc";
  auto first = signed_round("vault/update", update_body(), 0, rpc);
  // The twin's time runs 91 s on while this machine's clocks stand (the offline half slow to
  // answer, the API's clock ahead): the ticket (90 s) and the blockhash (60 s) die there, and
  // the send meets a real InvalidTicket.
  const auto before = boot();
  const std::int64_t then = now_s();
  advance(91'000);
  auto stood = context();
  stood.prove = online::rpc_prover(rpc);
  stood.clock = [then] { return then; };
  stood.boot = [before] { return before; };
  auto end = online::send_round(stood, first);
  ASSERT_TRUE(end.ok()) << end.error().to_string() << "\n" << log.str();
  ASSERT_EQ(*end, online::RoundEnd::kRebuild);
  auto c = context();
  c.prove = online::rpc_prover(rpc);
  auto second = signed_round("vault/update", update_body(), 0, rpc, 2);
  faults({{"relayThenFail", json(std::vector<int>(60, 504))}});
  ASSERT_FALSE(online::send_round(c, second).ok());
  faults({{"relayThenFail", json::array()}});
  if (sending_mark_lost) {
    second[0].status = ss::kSigned;
    ASSERT_TRUE(journal->update_step(second[0]).ok());
  }
  advance(120'000);
  auto outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->state, "done") << outcome->note << "\n" << log.str();
  const auto steps = journal->steps(run_id).value();
  ASSERT_EQ(steps.size(), 2U);
  EXPECT_EQ(steps[0].status, ss::kRejected);
  EXPECT_EQ(steps[1].status, ss::kConfirmed);
  EXPECT_TRUE(journal->unresolved().value().empty());
  EXPECT_EQ(landed(first[0].signature), 0U);
  EXPECT_EQ(landed(second[0].signature), 1U);
}

// Found by an independent fault review: a batch's steps sent together, the first ones pending
// when act died, the last refused on the resume and proven never to land. Every later resume
// stopped at that `rejected` step ("already rejected") and never followed the ones sent with
// it, which had landed: the run stayed open and act refused everything for ever.
TEST_F(AtMostOnce, AStepOfABatchThatFailedLeavesTheOnesSentWithItFollowed) {
  auto steps = signed_round("dlmm/open", open_body());
  ASSERT_GE(steps.size(), 2U);
  ASSERT_TRUE(steps[0].concurrent) << "a batch the API sends together";
  std::vector<online::JournalStep> sent(steps.begin(), steps.end() - 1);
  faults({{"forgetReceipts", true}});
  auto c = context();
  ASSERT_FALSE(online::send_round(c, sent).ok());
  faults({{"forgetReceipts", false}});
  for (const auto& st : journal->steps(run_id).value()) {
    if (st.step < static_cast<int>(steps.size())) {
      EXPECT_EQ(st.status, ss::kPending);
    }
  }
  steps.back().status = ss::kRejected;
  steps.back().code = "SimulationFailed";
  ASSERT_TRUE(journal->update_step(steps.back()).ok());
  auto outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->state, "failed") << outcome->note;
  EXPECT_THAT(outcome->note, HasSubstr("already rejected"));
  for (const auto& st : journal->steps(run_id).value()) {
    if (st.step < static_cast<int>(steps.size())) {
      EXPECT_EQ(st.status, ss::kConfirmed) << "step " << st.step;
      EXPECT_EQ(landed(st.signature), 1U);
    }
  }
  EXPECT_TRUE(journal->unresolved().value().empty()) << "the intent is settled";
}

// Issue 31: the wall clock jumps an hour forward between the send and the resume (a time sync,
// a virtual machine resumed). Only 91 s passed, fewer than any blockhash may live, so nothing
// is proved and the intent stays held; on the wall clock alone it was "3691 s old" and freed.
TEST_F(AtMostOnce, AWallClockJumpForwardProvesNoBlockhashDead) {
  auto steps = signed_round("vault/update", update_body());
  faults({{"relayThenFail", json(std::vector<int>(60, 504))}, {"nextLandings", {"never"}}});
  auto c = context();
  ASSERT_FALSE(online::send_round(c, steps).ok());
  faults({{"relayThenFail", json::array()}});
  c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
  advance(91'000 - 1000 * (now_s() - steps[0].built_at));
  wall_jump_s = 3600;
  auto outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->state, "open") << outcome->note;
  EXPECT_EQ(statuses().front(), ss::kSending);
  EXPECT_FALSE(journal->unresolved().value().empty()) << "the intent is still held";
  // 180 s on the boot clock, but the wall clock still an hour ahead: the build is placed at the
  // latest it can have been by that clock, so the node's block is not shown 180 s past it yet.
  advance(90'000);
  outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->state, "open") << outcome->note;
  // With the clock set right, the same node proves it.
  wall_jump_s = 0;
  outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->state, "failed") << outcome->note;
  EXPECT_THAT(journal->steps(run_id).value().front().message, HasSubstr("boot clock"));
  EXPECT_EQ(landed(steps[0].signature), 0U);
}

// The same jump before the first send: the ticket still lives, so the step is sent, not
// abandoned as "its ticket expired before it was sent".
TEST_F(AtMostOnce, AWallClockJumpForwardDoesNotKillALiveTicket) {
  auto steps = signed_round("vault/update", update_body());
  wall_jump_s = 3600;
  auto c = context();
  auto end = online::send_round(c, steps);
  ASSERT_TRUE(end.ok()) << end.error().to_string() << "\n" << log.str();
  EXPECT_EQ(statuses().front(), ss::kConfirmed);
  EXPECT_EQ(landed(steps[0].signature), 1U);
}

// A restart of the machine between build and resume: the boot clock of the build is gone, but
// the build came before this boot, so at least the uptime has passed, and no more is assumed
// however far the wall clock says.
TEST_F(AtMostOnce, AfterARebootABuildIsAsOldAsTheUptimeAtLeast) {
  auto steps = signed_round("vault/update", update_body());
  online::JournalStep st = journal->steps(run_id).value().front();
  const online::BootInstant rebooted{"d2a7f1c0-8b3e-4c59-a6d4-91e0b7c35f28", 30'000};
  auto q = online::chain_question(st, st.built_at + 3600, rebooted);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->elapsed_seconds, 30) << "at least the uptime";
  EXPECT_EQ(q->history_seconds, 3600) << "the history asked for reaches back as far as the wall";
  EXPECT_THAT(q->age_measured_by, HasSubstr("restart"));
  // A wall clock that says less time passed than the uptime is behind: no history is sized by it.
  auto behind = online::chain_question(st, st.built_at + 10, rebooted);
  ASSERT_TRUE(behind.ok());
  EXPECT_LT(behind->history_seconds, 0);
  // In the same boot, the boot clock alone.
  auto same = online::chain_question(st, st.built_at + 3600, boot());
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->elapsed_seconds, same->history_seconds);
  EXPECT_LT(same->elapsed_seconds, 60);
  // A journal an older version wrote (no boot record): the wall clock, as before.
  st.metadata.erase("buildBoot");
  auto legacy = online::chain_question(st, st.built_at + 3600, boot());
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ(legacy->elapsed_seconds, 3600);
}

// Found by an independent fault review: a wall clock 240 s behind at the build (and set right
// since) recorded the build 240 s early, so a node stalled before the build showed a finalized
// block "240 s after it" and proved a landed send dead. The build is placed at the latest it can
// have been: now less its age at least, when that is later than the record.
TEST_F(AtMostOnce, ABuildRecordedByAClockBehindIsPlacedAtItsLatest) {
  signed_round("vault/update", update_body());
  online::JournalStep st = journal->steps(run_id).value().front();
  st.built_at -= 240;  // the clock was 240 s behind when it was recorded
  const auto b = boot();
  ASSERT_TRUE(b.has_value());
  const std::int64_t now = now_s();
  auto q = online::chain_question(st, now, b);
  ASSERT_TRUE(q.ok());
  EXPECT_GE(q->built_unix, now - q->elapsed_seconds) << "not before its age allows";
  EXPECT_GT(q->built_unix, st.built_at);
}

// Found by an independent fault review: both halves' clocks 300 s behind, at the build and at
// resume alike, so neither the record nor now less the age corrects the other; a node stalled
// just before the build then showed a finalized block "298 s after it" and proved a landed send
// dead. The API's clock at the build (its reply's Date) is a second opinion, taken when later.
TEST_F(AtMostOnce, TheApisClockAtTheBuildPlacesABuildThisClockRecordedEarly) {
  signed_round("vault/update", update_body());
  online::JournalStep st = journal->steps(run_id).value().front();
  const std::int64_t true_build = st.built_at;
  st.built_at -= 300;  // this machine's clock, 300 s behind
  st.metadata["apiBuildDate"] = true_build;
  const auto b = boot();
  auto q = online::chain_question(st, now_s() - 300, b);  // still 300 s behind at resume
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->built_unix, true_build);
  // An API clock behind this one moves nothing.
  st.metadata["apiBuildDate"] = st.built_at - 1000;
  auto earlier = online::chain_question(st, now_s() - 300, b);
  ASSERT_TRUE(earlier.ok());
  EXPECT_EQ(earlier->built_unix, std::max(st.built_at, now_s() - 300 - earlier->elapsed_seconds));
  // Found by an independent fault review: an API clock a day ahead held the step open a day
  // (no node's block could be made 180 s after a build it placed a day late). It moves the build
  // by ten minutes at most.
  st.metadata["apiBuildDate"] = st.built_at + 86'400;
  auto ahead = online::chain_question(st, now_s() - 300, b);
  ASSERT_TRUE(ahead.ok());
  EXPECT_EQ(ahead->built_unix, std::max(st.built_at, now_s() - 300 - ahead->elapsed_seconds) + 600);
  // Found by a second one: this machine's clock a year ahead at the build, set right since, held
  // the step open a year. The boot clock (now less the build's age in this boot) and the API's
  // clock agree, so the recorded time was the wrong one.
  st.built_at = true_build + 365 * 86'400;
  st.metadata["apiBuildDate"] = true_build;
  auto local_ahead = online::chain_question(st, now_s(), b);
  ASSERT_TRUE(local_ahead.ok());
  EXPECT_GE(local_ahead->built_unix, true_build);
  EXPECT_LE(local_ahead->built_unix, now_s());
  // Without the boot clock's reading the two cannot be told apart: the later stands.
  st.metadata.erase("buildBoot");
  auto unknown = online::chain_question(st, now_s(), b);
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->built_unix, st.built_at);
}

// The build reply is the API's: a `buildBoot` field in it is not this machine's measure.
TEST_F(AtMostOnce, TheApiCannotPlantTheBuildsBootRecord) {
  const json body = update_body();
  json built = post("/transactions/vault/update", body).body;
  for (auto& step : built["steps"]) {
    step["buildBoot"] = {{"boot", boot_id}, {"ms", 0}};  // "built at boot": ages the step
    step["apiBuildDate"] = 1;  // nor is a field of it the Date of its reply
  }
  auto round = online::prepare_round("vault/update", body, built, std::nullopt, now_s());
  ASSERT_TRUE(round.ok()) << round.error().to_string();
  std::vector<Transaction> signed_txs = round->transactions;
  const auto none =
      online::steps_of_round(1, 1, *round, signed_txs, now_s(), now_s(), std::nullopt);
  EXPECT_FALSE(none.front().metadata.contains("buildBoot"));
  EXPECT_FALSE(none.front().metadata.contains("apiBuildDate"));
  const auto ours = online::steps_of_round(1, 1, *round, signed_txs, now_s(), now_s(), boot());
  const auto recorded = online::read_boot_record(ours.front().metadata["buildBoot"]);
  ASSERT_TRUE(recorded.has_value()) << ours.front().metadata.dump();
  EXPECT_EQ(recorded->ms, boot()->ms);
}

TEST_F(AtMostOnce, WithoutAnRpcNodeAnExpiredTicketProvesNothing) {
  auto steps = signed_round("vault/update", update_body());
  faults({{"relayThenFail", json(std::vector<int>(60, 504))}, {"nextLandings", {"never"}}});
  auto c = context();
  ASSERT_FALSE(online::send_round(c, steps).ok());
  faults({{"relayThenFail", json::array()}});
  advance(600'000);
  auto outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->state, "open");
  EXPECT_THAT(outcome->note, HasSubstr("--rpc"));
  EXPECT_EQ(statuses().front(), ss::kSending);
}

TEST_F(AtMostOnce, A429ThatIsNotTheRateLimitProvesNothing) {
  // A 429 with another code than RateLimited, after the relay: not the limit the spec puts
  // before handling, so the step may have landed.
  auto steps = signed_round("vault/update", update_body());
  faults({{"relayThenFail", json(std::vector<int>(60, 429))}});
  auto c = context();
  auto end = online::send_round(c, steps);
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(statuses().front(), ss::kSending) << "never `rejected`: " << end.error().message();
  advance(10'000);
  EXPECT_EQ(landed(steps[0].signature), 1U);
  EXPECT_FALSE(journal->unresolved().value().empty());
}

TEST_F(AtMostOnce, ADurableNonceStepIsNeverFreedByItsBlockhashsAge) {
  // A durable-nonce transaction (the shared vector) stuck in `sending`: its "blockhash" is a
  // nonce value no node calls valid, yet it lands whenever its nonce is current. The twin's
  // node cannot show the nonce account, so nothing is proved and the run stays open.
  const json nonce_tx = airlock::test::vector_named("solana-v0-transactions.json", "durable-nonce");
  run_id = journal->begin_run("twin", "vault/update", update_body(), now_s()).value();
  online::JournalStep st;
  st.run_id = run_id;
  st.round = 1;
  st.step = 1;
  st.action = "vault/update";
  st.ticket = "tkt_gone";
  st.built_at = now_s();
  st.transaction = nonce_tx.at("signed_tx_base64").get<std::string>();
  st.signature = nonce_tx.at("signatures_base58").at(0).get<std::string>();
  st.status = ss::kSending;  // its send went unanswered
  st.body = update_body();
  std::vector<online::JournalStep> steps = {st};
  ASSERT_TRUE(journal->add_signed_steps(steps).ok());
  advance(600'000);
  auto c = context();
  c.prove = online::rpc_prover("http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc");
  auto outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->state, "open") << outcome->note;
  EXPECT_THAT(outcome->note, HasSubstr("nonce account"));
  EXPECT_EQ(statuses().front(), ss::kSending);
}

TEST_F(AtMostOnce, A503OnTheResendAfterACrashDoesNotFreeTheIntent) {
  auto steps = signed_round("vault/update", update_body());
  // The first send reached the API and the process died before recording the reply.
  ASSERT_TRUE(client->send(steps[0].transaction, steps[0].ticket, false).ok());
  steps[0].status = ss::kSending;
  ASSERT_TRUE(journal->update_step(steps[0]).ok());
  faults({{"relayThenFail", json(std::vector<int>(60, 503))}});
  auto c = context();
  auto outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_EQ(outcome->state, "open") << outcome->note;
  EXPECT_EQ(statuses().front(), ss::kSending);
  EXPECT_EQ(landed(steps[0].signature), 1U);
  EXPECT_EQ(counters()["builds"], 1);
}

TEST_F(AtMostOnce, AnInvalidTicketOnAResendIsNoProofThatNothingWasSent) {
  // The build reply took 10 s: the client's ticket clock started 10 s after the API's.
  auto steps = signed_round("vault/update", update_body(), 10'000);
  ASSERT_TRUE(client->send(steps[0].transaction, steps[0].ticket, false).ok());
  steps[0].status = ss::kSending;  // the process died before recording the reply
  ASSERT_TRUE(journal->update_step(steps[0]).ok());
  // The API's ticket has expired; the client thinks it has 7 s left and sends again.
  advance(83'000);
  auto c = context();
  auto outcome = online::resume_run(c, journal->runs(true).value().front());
  ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
  EXPECT_THAT(log.str(), HasSubstr("HTTP 403 InvalidTicket"));
  EXPECT_NE(statuses().front(), ss::kRejected) << log.str();
  EXPECT_NE(outcome->state, "stopped") << outcome->note;
  EXPECT_NE(outcome->state, "failed") << outcome->note;
  EXPECT_EQ(counters()["builds"], 1);
  EXPECT_LE(landed(steps[0].signature), 1U);
}

}  // namespace
}  // namespace airlock::apisim::test

namespace airlock::apisim::test {
namespace {

namespace ss = online::step_status;

// Issue 31: a send answered 200 with another transaction's signature and receipt is no answer
// about this step. Before, the step took the other receipt and showed its status; now it stays
// `sending`, no receipt recorded, and nothing is built again while its own bytes may land.
TEST_F(SenderTest, ASendAnsweredWithAnotherTransactionsSignatureIsNoAnswer) {
  auto steps = signed_round("vault/update", update_body());
  faults({{"replyAboutAnother", 1}});
  auto c = context();
  auto end = online::send_round(c, steps);
  ASSERT_FALSE(end.ok()) << log.str();
  EXPECT_EQ(end.error().code(), online::errors::kOutcomeUnknown);
  EXPECT_THAT(end.error().message(), HasSubstr("another transaction"));
  const auto step = journal->steps(run_id).value().front();
  EXPECT_EQ(step.status, ss::kSending) << "the step's own bytes may have been relayed";
  EXPECT_TRUE(step.receipt.empty()) << "another transaction's receipt was kept: " << step.receipt;
  EXPECT_EQ(step.code, "ReplyAboutAnother");
  EXPECT_FALSE(journal->unresolved().value().empty()) << "act refuses to build until resolved";
  EXPECT_EQ(counters()["builds"], 1);
}

}  // namespace
}  // namespace airlock::apisim::test

namespace airlock::apisim::test {
namespace {

// Issue 31: with this machine's clock set back after the build, a resend after a relayed
// attempt met InvalidTicket again and again, every 2 s, until this clock thought the ticket dead.
// The API's InvalidTicket on a resend ends the resends; the step stays `sending` (the first
// attempt may have been relayed) and nothing is built again.
TEST_F(SenderTest, AnInvalidTicketOnAResendEndsTheResendsWhateverThisClockSays) {
  auto steps = signed_round("vault/update", update_body());
  faults({{"relayThenFail", {504}}});
  auto c = context();
  // This clock set back a minute after the build (as by a time sync): the ticket it recorded
  // seems to live a minute longer than it does.
  c.clock = [this] { return now_s() - 60; };
  bool moved = false;
  c.sleep = [&](std::chrono::milliseconds d) {
    if (!moved) advance(91'000);  // the ticket dies at the API before the first resend
    moved = true;
    advance(d.count());
  };
  auto end = online::send_round(c, steps);
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.error().code(), online::errors::kOutcomeUnknown) << end.error().to_string();
  std::size_t resends = 0;
  for (std::size_t at = log.str().find("sending the identical bytes again");
       at != std::string::npos; at = log.str().find("sending the identical bytes again", at + 1))
    ++resends;
  EXPECT_EQ(resends, 1U) << log.str();
  EXPECT_EQ(journal->steps(run_id).value().front().status, ss::kSending);
  EXPECT_EQ(counters()["builds"], 1);
}

}  // namespace
}  // namespace airlock::apisim::test
