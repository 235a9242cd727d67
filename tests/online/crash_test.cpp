// The crash test (issue 6): airlock-online act runs a batch against the twin and is killed
// (SIGKILL) at a random moment, again and again, some runs under an RPC outage that makes
// sends `unknown`; after each kill `airlock-online resume` finishes from the journal. The
// twin's counters then prove that nothing landed twice, every landed transaction is in the
// journal as confirmed (no receipt lost), and no run built again after an unknown send.
// The offline half is the real signing code (keystore, review, audit log) in a thread that
// answers each request file as it appears.
// The same fixture runs act through a batch that stops part way (RemainingTest): only the
// work left is built, and only when it can be derived without doing anything twice.
#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <mutex>
#include <random>
#include <regex>
#include <set>
#include <thread>

#include <fcntl.h>
#include <gmock/gmock.h>
#include <sys/wait.h>
#include <unistd.h>

#include <airlock/formats/files.h>
#include <airlock/offline/signing.h>
#include <airlock/online/journal.h>

#include "conformance_support.h"
#include "support/helpers.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace airlock::apisim::test {
namespace {

class CrashTest : public SigningTwin {
 protected:
  std::string api() const {
    return "http://127.0.0.1:" + std::to_string(server_->port()) + std::string(kApiPrefix);
  }

  // Starts `airlock-online` with these arguments, its output in `log`.
  pid_t spawn(const std::vector<std::string>& args, const std::string& log_path) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(AIRLOCK_ONLINE_BIN));
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(AIRLOCK_ONLINE_BIN, argv.data());
      ::_exit(127);
    }
    return pid;
  }

  // Waits for the process at most `seconds`, then kills it and fails the test rather than hang.
  static int wait_bounded(pid_t pid, int seconds) {
    if (auto status = airlock::test::wait_for_exit(pid, std::chrono::seconds(seconds)))
      return *status;
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ADD_FAILURE() << "the process did not finish within " << seconds << " s";
    return status;
  }

  // The offline half: answers every new request file with a signed response file.
  // In outage runs the RPC outage starts once the request is built, so the sends come back
  // `unknown` (builds under an outage fail instead). Its own HTTP client: the test's is not
  // shared across threads.
  void sign_loop(const std::atomic<bool>& stop) {
    httplib::Client sim("127.0.0.1", server_->port());
    envelope::RequestId last{};
    airlock::test::FolderWatch watch(dir.path());
    for (; !stop.load(); watch.wait(std::chrono::milliseconds(200))) {
      const std::lock_guard handling(handling_);
      auto file = files::read_limited(dir.file("req.alreq"), envelope::kMaxRequestBytes + 16);
      if (!file.ok()) continue;
      auto unwrapped = files::unwrap_envelope(*file);
      if (!unwrapped.ok()) continue;
      auto q = envelope::decode_request(unwrapped->second);
      if (!q.ok() || q->request_id == last) continue;
      last = q->request_id;
      if (outage_after_build.load()) {
        sim.Post("/_sim/faults", {{"X-Sim-Token", "airlock-sim"}},
                 json{{"rpcOutage", true}, {"unknownLands", true}}.dump(), "application/json");
      }
      const auto policy = demo_policy(*q);
      offline::SigningContext context{
          policy,
          decoders,
          *log,
          keystore,
          airlock::test::locked_down(),
          true,
          [](const std::string&, const offline::Review&) { return true; },
          [] { return secret_of("correct horse"); },
          [] {
            return static_cast<std::int64_t>(
                std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count());
          }};
      auto outcome = offline::process_request(*q, context);
      if (!outcome.ok()) continue;
      ++signed_rounds;
      (void)files::write_atomically(
          dir.file("res.alres"),
          files::wrap_envelope(files::EnvelopeKind::kResponse,
                               envelope::encode_response(outcome->response)));
    }
  }

  std::atomic<int> signed_rounds{0};
  std::atomic<bool> outage_after_build{false};
  std::mutex handling_;  // held by the signer while it handles a request
};

TEST_F(CrashTest, KilledAtRandomAndResumedNothingIsLostOrDoneTwice) {
  std::ofstream(dir.file("api.key")) << kDemoKey << "\n";
  const std::string journal_path = dir.file("journal.sqlite");
  std::atomic<bool> stop{false};
  std::thread offline([&] { sign_loop(stop); });
  std::mt19937 rng(20261121);
  constexpr int kRuns = 24;
  int killed = 0;
  int completed = 0;
  int resumes_refused = 0;
  for (int i = 0; i < kRuns; ++i) {
    SCOPED_TRACE("run " + std::to_string(i));
    const bool outage = i % 3 == 2;
    outage_after_build = outage;
    // Faults around the send (issue 13): a gateway's 504 after the relay, then 503s or a 403
    // refusing the resends of bytes that were relayed.
    json relay = json::array();
    if (i % 4 == 1) relay = {504};
    if (i % 4 == 3) relay = {504, 503, 503};
    if (i % 8 == 7) relay = {504, 403};
    control("/_sim/faults", {{"relayThenFail", relay}});
    std::filesystem::remove(dir.file("req.alreq"));
    std::filesystem::remove(dir.file("res.alres"));
    const json body = {{"vault", kVault},    {"lbPair", kSolUsdcPool},   {"lowerBinId", 4960},
                       {"upperBinId", 5039}, {"amountX", "2000000"},     {"amountY", "300000"},
                       {"shape", "spot"},    {"maxActiveBinSlippage", 5}};
    advance(4000);
    const pid_t pid =
        spawn({"act", "dlmm/open", "--api", api(), "--api-key-file", dir.file("api.key"), "--body",
               body.dump(), "--request-out", dir.file("req.alreq"), "--response",
               dir.file("res.alres"), "--journal", journal_path},
              dir.file("online.log"));
    ASSERT_GT(pid, 0);
    // Anywhere from before the build to after the last confirmation; the first outage run is
    // left to finish, so at least one unknown send is followed to its end however fast or
    // slow this machine is.
    const int delay = std::uniform_int_distribution<int>(0, 600)(rng);
    // Every fifth run an operator starts resume while act is still going: one of the two is
    // refused by the journal's lock, naming the other.
    std::optional<airlock::test::CommandResult> concurrent;
    std::thread racing;
    if (i % 5 == 1) {
      racing = std::thread([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay / 2));
        concurrent = airlock::test::run_command(std::string(AIRLOCK_ONLINE_BIN) + " resume --api " +
                                                api() + " --api-key-file " + dir.file("api.key") +
                                                " --journal " + journal_path);
      });
    }
    // Run 5 (a gateway's 504 after the relay) is also left to finish, so the fault is met.
    // (The delay is where the crash falls, drawn at random: a fault's timing, not a wait.)
    if (i != 2 && i != 5) {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay));
      ::kill(pid, SIGKILL);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (racing.joinable()) racing.join();
    if (concurrent && concurrent->output.find("in use by") != std::string::npos) ++resumes_refused;
    if (WIFSIGNALED(status)) {
      ++killed;
    } else {
      ++completed;
    }
    // The outage is over by the time the operator resumes (set between two of the signer's
    // requests, so it cannot start the outage again for the one it is handling).
    {
      const std::lock_guard between(handling_);
      outage_after_build = false;
    }
    control("/_sim/faults", {{"rpcOutage", false}});
    const std::string resume = std::string(AIRLOCK_ONLINE_BIN) + " resume --api " + api() +
                               " --api-key-file " + dir.file("api.key") + " --rpc " +
                               "http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc" +
                               " --journal " + journal_path;
    auto resumed = airlock::test::run_command(resume);
    if (!relay.empty() && resumed.exit_code != 0) {
      // A resend refused while the relayed bytes may land leaves the run open; once the
      // gateway is well again, a second resume settles it from the identical bytes' receipt.
      control("/_sim/faults", {{"relayThenFail", json::array()}});
      resumed = airlock::test::run_command(resume);
    }
    control("/_sim/faults", {{"relayThenFail", json::array()}});
    EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  }
  stop = true;
  offline.join();
  EXPECT_GT(killed, 0) << "no run was interrupted: the test proved nothing";

  auto journal = online::Journal::open(journal_path);
  ASSERT_TRUE(journal.ok());
  EXPECT_TRUE(journal->runs(true)->empty()) << "resume left a run open";
  std::set<std::string> confirmed;
  int unknown_runs = 0;
  for (const auto& run : journal->runs(false).value()) {
    for (const auto& st : journal->steps(run.id).value()) {
      if (st.status == online::step_status::kConfirmed) confirmed.insert(st.signature);
    }
    // After a send came back unknown, the run never built again.
    bool unknown_seen = false;
    for (const auto& e : journal->events(run.id).value()) {
      if (e.kind == "sent" && e.detail.find(": unknown") != std::string::npos) unknown_seen = true;
      if (e.kind == "build") {
        EXPECT_FALSE(unknown_seen) << "run " << run.id << " built again";
      }
    }
    unknown_runs += unknown_seen ? 1 : 0;
  }
  const json c = counters();
  std::set<std::string> landed;
  for (const auto& [signature, count] : c["landedBySignature"].items()) {
    EXPECT_EQ(count.get<int>(), 1) << signature << " landed " << count << " times";
    landed.insert(signature);
  }
  EXPECT_EQ(landed, confirmed) << "every landed transaction, and only those, is confirmed in the "
                                  "journal";
  EXPECT_GT(unknown_runs, 0) << "no send came back unknown";
  // The faults around the send were met, not only set: act or resume saw the gateway's 504.
  std::ifstream online_log(dir.file("online.log"));
  const std::string act_output((std::istreambuf_iterator<char>(online_log)),
                               std::istreambuf_iterator<char>());
  std::size_t gateway_timeouts = 0;
  for (std::size_t at = act_output.find("HTTP 504"); at != std::string::npos;
       at = act_output.find("HTTP 504", at + 1))
    ++gateway_timeouts;
  EXPECT_GT(gateway_timeouts, 0U) << "no send met the relayed-then-504 fault";
  RecordProperty("killed", killed);
  RecordProperty("completed", completed);
  RecordProperty("landed", static_cast<int>(landed.size()));
  std::cout << "crash test: " << kRuns << " runs, " << killed << " killed, " << completed
            << " finished on their own, " << landed.size() << " transactions landed, "
            << unknown_runs << " run(s) with an unknown send, " << signed_rounds.load()
            << " signing rounds, " << resumes_refused
            << " concurrent resume(s) refused by the lock, " << gateway_timeouts
            << " gateway timeout(s) after a relay met by act\n";
}

// The request animated in the terminal (--request-qr-terminal) stops as soon as the answer
// comes, and the action completes: the animation runs beside the wait, not instead of it.
TEST_F(CrashTest, TheTerminalAnimationStopsWhenTheAnswerComes) {
  std::ofstream(dir.file("api.key")) << kDemoKey << "\n";
  std::atomic<bool> stop{false};
  std::thread offline([&] { sign_loop(stop); });
  const pid_t pid =
      spawn({"act", "vault/update", "--vault", kVault, "--deposit-cap", "20000000000000", "--api",
             api(), "--api-key-file", dir.file("api.key"), "--request-qr-terminal", "--request-out",
             dir.file("req.alreq"), "--response", dir.file("res.alres"), "--journal",
             dir.file("terminal.sqlite")},
            dir.file("terminal.log"));
  const int status = wait_bounded(pid, 30);
  stop = true;
  offline.join();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const auto log_text = files::read_limited(dir.file("terminal.log"), 1 << 20);
  ASSERT_TRUE(log_text.ok());
  const std::string text(log_text->begin(), log_text->end());
  EXPECT_THAT(text, HasSubstr("fragments")) << "the request was animated";
  EXPECT_THAT(text, HasSubstr("vault/update done"));
}

// Issue 13: a resume started while act waited for signatures closed the run as "nothing was
// sent", and act then sent. Now one process acts on a journal at a time; and resume finds the
// runs of the same API whether or not its URL ends in a slash.
TEST_F(CrashTest, ResumeWaitsForActsLockAndMatchesTheApiWithoutItsTrailingSlash) {
  std::ofstream(dir.file("api.key")) << kDemoKey << "\n";
  const std::vector<std::string> journal = {"--journal", dir.file("locked.sqlite")};
  std::vector<std::string> act = {"act",
                                  "vault/update",
                                  "--vault",
                                  kVault,
                                  "--deposit-cap",
                                  "20000000000000",
                                  "--api",
                                  api(),
                                  "--api-key-file",
                                  dir.file("api.key"),
                                  "--request-out",
                                  dir.file("req.alreq"),
                                  "--response",
                                  dir.file("res.alres")};
  act.insert(act.end(), journal.begin(), journal.end());
  const pid_t waiting = spawn(act, dir.file("locked-act.log"));  // nobody answers it
  ASSERT_TRUE(airlock::test::wait_for_file(dir.file("req.alreq"), std::chrono::seconds(30)))
      << "act built and waits";
  std::vector<std::string> resume = {"resume", "--api", api() + "/", "--api-key-file",
                                     dir.file("api.key")};
  resume.insert(resume.end(), journal.begin(), journal.end());
  const int refused = wait_bounded(spawn(resume, dir.file("locked-resume.log")), 30);
  EXPECT_TRUE(WIFEXITED(refused) && WEXITSTATUS(refused) != 0);
  const auto text = [&](const char* name) {
    const auto bytes = files::read_limited(dir.file(name), 1 << 20);
    return bytes.ok() ? std::string(bytes->begin(), bytes->end()) : std::string();
  };
  EXPECT_THAT(text("locked-resume.log"),
              HasSubstr("is in use by airlock-online act, pid " + std::to_string(waiting)));
  ::kill(waiting, SIGKILL);
  int status = 0;
  ::waitpid(waiting, &status, 0);
  const int resumed = wait_bounded(spawn(resume, dir.file("resumed.log")), 30);
  EXPECT_TRUE(WIFEXITED(resumed) && WEXITSTATUS(resumed) == 0) << text("resumed.log");
  EXPECT_THAT(text("resumed.log"), HasSubstr("(vault/update): stopped"));
  EXPECT_THAT(text("resumed.log"), Not(HasSubstr("skipped")));
}

}  // namespace
}  // namespace airlock::apisim::test

namespace airlock::apisim::test {
namespace {

// A 140-bin dlmm/open (two positions sent together) whose sends land as `landings` say, through
// the real executable with --remaining MODE; returns the exit code and the output.
struct ActResult {
  int exit_code = -1;
  std::string output;
};

class RemainingTest : public CrashTest {
 protected:
  ActResult open_with(const json& landings, const std::string& mode,
                      std::vector<std::string> extra = {}) {
    std::ofstream(dir.file("api.key")) << kDemoKey << "\n";
    control("/_sim/faults", {{"nextLandings", landings}});
    std::atomic<bool> stop{false};
    std::thread offline([&] { sign_loop(stop); });
    std::vector<std::string> args = {
        "act", "dlmm/open", "--api", api(), "--api-key-file", dir.file("api.key"), "--body",
        body.dump(), "--request-out", dir.file("req.alreq"), "--response", dir.file("res.alres"),
        "--journal", dir.file("journal.sqlite"), "--remaining", mode,
        // a landed failure frees the rest only on the chain's word
        "--rpc", "http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc"};
    args.insert(args.end(), extra.begin(), extra.end());
    const pid_t pid = spawn(args, dir.file("act.log"));
    const int status = wait_bounded(pid, 60);
    stop = true;
    offline.join();
    const auto log_text = files::read_limited(dir.file("act.log"), 1 << 20);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1,
            log_text.ok() ? std::string(log_text->begin(), log_text->end()) : std::string()};
  }

  // The bin ranges of the vault's DLMM positions, as the twin holds them.
  std::multiset<std::pair<int, int>> positions() {
    std::multiset<std::pair<int, int>> out;
    const Reply r = get(std::string("/vaults/") + kVault + "/strategies");
    for (const auto& s : r.body["data"]) {
      if (s.value("type", "") != "dlmm") continue;
      out.insert({s["lowerBinId"].get<int>(), s["upperBinId"].get<int>()});
    }
    return out;
  }

  const json body = {{"vault", kVault},    {"lbPair", kSolUsdcPool},   {"lowerBinId", 4930},
                     {"upperBinId", 5070}, {"amountX", "200000000"},   {"amountY", "30000000"},
                     {"shape", "spot"},    {"maxActiveBinSlippage", 5}};
};

TEST_F(RemainingTest, AStoppedBatchBuildsOnlyTheRangesThatDidNotLand) {
  const auto before = positions();
  const auto r = open_with(json::array({"lands", "fails"}), "build");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cursorBinId 5000"));
  EXPECT_THAT(r.output, HasSubstr("the vault's strategies now"))
      << "the current state is read before building the rest";
  auto after = positions();
  for (const auto& p : before) after.erase(after.find(p));
  EXPECT_EQ(after, (std::multiset<std::pair<int, int>>{{4930, 4999}, {5000, 5069}}))
      << "each range opened exactly once";
  EXPECT_EQ(counters()["buildsByAction"]["dlmm/open"], 2);

  auto journal = online::Journal::open(dir.file("journal.sqlite"));
  ASSERT_TRUE(journal.ok());
  const auto runs = journal->runs(false).value();
  ASSERT_EQ(runs.size(), 2U);
  EXPECT_EQ(runs[0].state, "failed");
  EXPECT_EQ(runs[1].state, "done");
  EXPECT_EQ(runs[1].body["cursorBinId"], 5000);
  EXPECT_EQ(journal->steps(runs[1].id).value().size(), 1U);
}

// --max-rounds bounds every signing round of the invocation, the remaining-work rounds too: a
// round that failed on chain counts.
TEST_F(RemainingTest, MaxRoundsCountsTheRoundThatFailed) {
  const auto r = open_with(json::array({"lands", "fails"}), "build", {"--max-rounds", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no signing rounds left (--max-rounds)"));
  EXPECT_EQ(counters()["buildsByAction"]["dlmm/open"], 1) << "the remaining work was not built";
}

TEST_F(RemainingTest, WithoutConsentTheRemainingWorkIsOnlyShown) {
  const auto r = open_with(json::array({"lands", "fails"}), "show");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("airlock-online act dlmm/open --body"));
  EXPECT_THAT(r.output, HasSubstr("\"cursorBinId\":5000"));
  EXPECT_EQ(counters()["buildsByAction"]["dlmm/open"], 1) << "nothing built without consent";
}

// On a terminal (the default --remaining ask), the operator is asked once; y builds the work
// left, a plain Enter builds nothing more.
TEST_F(RemainingTest, OnATerminalTheOperatorIsAskedBeforeTheRestIsBuilt) {
  std::ofstream(dir.file("api.key")) << kDemoKey << "\n";
  const auto run = [&](const std::string& answer, const std::string& journal) {
    control("/_sim/faults", {{"nextLandings", json::array({"lands", "fails"})}});
    std::atomic<bool> stop{false};
    std::thread offline([&] { sign_loop(stop); });
    const auto result = airlock::test::run_on_terminal(
        std::string(AIRLOCK_ONLINE_BIN) + " act dlmm/open --api " + api() +
            " --rpc http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc --api-key-file " +
            dir.file("api.key") + " --body '" + body.dump() + "' --request-out " +
            dir.file("req.alreq") + " --response " + dir.file("res.alres") + " --journal " +
            dir.file(journal),
        {{"Build only the remaining work now? [y/N]", answer}});
    stop = true;
    offline.join();
    return result;
  };
  const auto yes = run("y", "yes.sqlite");
  EXPECT_EQ(yes.exit_code, 0) << yes.output;
  EXPECT_EQ(counters()["buildsByAction"]["dlmm/open"], 2);
  // The first round's request was not overwritten by the second's: it kept its own name
  // (req.<its id's first 8 hex digits>.alreq).
  std::size_t kept = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, std::regex(R"(req\.[0-9a-f]{8}\.alreq)"))) ++kept;
  }
  EXPECT_GE(kept, 1U) << "the earlier round's request kept";
  const auto no = run("", "no.sqlite");
  EXPECT_EQ(no.exit_code, 1) << no.output;
  EXPECT_THAT(no.output, HasSubstr("[y/N]"));
  EXPECT_EQ(counters()["buildsByAction"]["dlmm/open"], 3) << "declined: nothing more was built";
}

TEST_F(RemainingTest, AGapBeforeALandedRangeIsLeftToTheOperator) {
  const auto r = open_with(json::array({"fails", "lands"}), "build");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("did not confirm but later ranges"));
  EXPECT_EQ(counters()["buildsByAction"]["dlmm/open"], 1)
      << "a cursor would open the landed range again; nothing more is built";
}

}  // namespace
}  // namespace airlock::apisim::test
