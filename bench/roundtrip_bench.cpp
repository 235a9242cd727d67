// Machine time of one whole signing round trip for a one-step swap against the API twin with
// instant confirmation: build (HTTP), the sign request rendered as QR images and read back
// with ZXing, the offline review and signature, the response rendered and read back, every
// signature verified, send, and status polled to confirmed. Reported as a share of the 90 s
// ticket window (target: under 1%); the rest of the window belongs to the person reviewing.
// Images are passed in memory rather than through a screen and a camera.
#include <filesystem>
#include <functional>
#include <iostream>

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <airlock/formats/dense.h>
#include <airlock/formats/qr.h>
#include <airlock/formats/transfer.h>
#include <airlock/offline/keystore.h>
#include <airlock/offline/review.h>
#include <airlock/offline/signing.h>
#include <airlock/online/act.h>
#include <airlock/online/round.h>

#include "bench_twin.h"

// The benchmark runs the signing path inside its own process, which it cannot put under the
// syscall allowlist: it makes the token that opens the keystore itself, as the tests do.
namespace airlock::hardening {
struct UnlockedForTests {
  static LockedDown make() { return LockedDown(); }
};
}  // namespace airlock::hardening

namespace {

using namespace airlock;
using namespace airlock::bench;

// Every frame of a transfer rendered and read back, as a camera watching a screen would.
Result<Bytes> through_qr(dense::ContentType type, const Bytes& payload) {
  AIRLOCK_TRY(sender, transfer::Sender::create({type, payload}, transfer::Options{}));
  transfer::Receiver receiver;
  for (std::uint32_t n = 1; !receiver.complete() && n <= 4 * sender.fragment_count() + 4; ++n) {
    AIRLOCK_TRY(symbol, sender.symbol(n));
    for (const auto& code : qr::read(qr::render(symbol, 3))) (void)receiver.receive(code);
  }
  if (!receiver.complete()) return Error(dense::errors::kFrameInvalid, "transfer incomplete");
  return receiver.result().bytes;
}

void BM_OneStepSwapRoundTrip(benchmark::State& state) {
  apisim::ServiceOptions options;
  options.confirm_delay_ms = 0;  // instant confirmation: the machine's time alone is measured
  BenchTwin twin(options);
  online::ApiClient& client = twin.client();
  const Keypair& keypair = twin.manager();
  const auto body = swap_body("1000000");
  offline::Policy policy = twin.policy();
  policy.allow_unverified_lookup_tables = true;

  const auto started = std::chrono::steady_clock::now();
  for (auto _ : state) {
    // Online: build and wrap.
    auto built = client.build("aggregator/swap", body);
    if (!built.ok() || built->failure) return state.SkipWithError("build");
    auto round =
        online::prepare_round("aggregator/swap", body, built->body, twin.rpc(), unix_now());
    if (!round.ok()) return state.SkipWithError(round.error().to_string().c_str());
    // Across the gap.
    auto request_cbor =
        through_qr(dense::ContentType::kSignRequest, envelope::encode_request(round->request));
    if (!request_cbor.ok()) return state.SkipWithError("request QR");
    // Offline: review and sign.
    auto request = envelope::decode_request(*request_cbor);
    if (!request.ok()) return state.SkipWithError("request decode");
    const auto review = offline::review_request(*request, policy, twin.decoders(),
                                                keypair.public_key(), unix_now());
    if (review.refused()) return state.SkipWithError(review.refusals.front().code.c_str());
    envelope::SignResponse response;
    response.request_id = request->request_id;
    response.signer = keypair.public_key();
    std::vector<Signature> signatures;
    for (const auto& step : review.steps) {
      signatures.push_back(keypair.sign(serialize_message(step.tx.message)));
    }
    response.result = std::move(signatures);
    // Back across the gap.
    auto response_cbor =
        through_qr(dense::ContentType::kSignResponse, envelope::encode_response(response));
    if (!response_cbor.ok()) return state.SkipWithError("response QR");
    auto decoded = envelope::decode_response(*response_cbor);
    if (!decoded.ok()) return state.SkipWithError("response decode");
    // Online: verify, send, follow to confirmed.
    auto answer = online::apply_response(*round, *decoded, unix_now());
    if (!answer.ok() || answer->refusal) return state.SkipWithError("answer");
    for (std::size_t i = 0; i < answer->signed_transactions.size(); ++i) {
      auto sent = client.send(to_base64(serialize_transaction(answer->signed_transactions[i])),
                              round->steps[i]["ticket"].get<std::string>(), false);
      if (!sent.ok() || sent->failure) return state.SkipWithError("send");
      std::string status = "pending";
      for (int poll = 0; poll < 50 && status == "pending"; ++poll) {
        auto s = client.status(sent->body["receipt"].get<std::string>());
        if (!s.ok() || s->failure) return state.SkipWithError("status");
        status = s->body.value("status", "");
      }
      if (status != "confirmed") return state.SkipWithError(("status " + status).c_str());
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() /
      static_cast<double>(state.iterations());
  state.counters["share_of_90s_window_pct"] = 100.0 * seconds / 90.0;
}
BENCHMARK(BM_OneStepSwapRoundTrip)->Unit(benchmark::kMillisecond)->Iterations(20)->UseRealTime();

// The ticket window of an intent approved before its build (docs/approvals.md): from the build
// request to the last step sent, with the offline half's real decision path (process_request:
// the audit log read, the review, the approval found, the keystore opened with the key's
// default KDF, the signatures, the log entry) and no question asked. The approval is recorded
// before each build, outside the timing, as the operator gives it at leisure. The two QR
// crossings are rendered and read back in memory; a camera's capture time is added from
// scripts/capture-bench in docs/benchmarks.md.
class ApprovedRound {
 public:
  ApprovedRound(BenchTwin& twin, offline::Policy policy) : twin_(twin), policy_(std::move(policy)) {
    dir_ = std::filesystem::temp_directory_path() /
           ("airlock-bench-approved-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    keystore_ = (dir_ / "manager.keystore").string();
    std::filesystem::remove(keystore_);
    auto seed = must(SecretBytes::copy_of(must(from_hex(kManagerSeed, 32), "seed")), "seed");
    auto pass = must(SecretBytes::copy_of(std::string_view("bench passphrase")), "passphrase");
    if (!offline::write_keystore(keystore_, seed, pass, {"solana-keypair-file", std::nullopt},
                                 offline::default_kdf_limits())
             .ok())
      fail("keystore");
    std::filesystem::remove(dir_ / "audit.log");
    log_.emplace(must(offline::AuditLog::open((dir_ / "audit.log").string()), "audit log"));
  }
  ~ApprovedRound() { std::filesystem::remove_all(dir_); }
  ApprovedRound(const ApprovedRound&) = delete;
  ApprovedRound& operator=(const ApprovedRound&) = delete;

  // The offline half's answer to `request`, through process_request; `asked` says whether it
  // asked the operator (it must not, under the approval).
  Result<envelope::SignResponse> decide(const envelope::SignRequest& request, std::string& asked) {
    auto context = context_for([&](const std::string&, const offline::Review& review) {
      asked = "asked:";
      for (const auto& w : review.warnings) asked += " " + w.code + " (" + w.message + ")";
      return false;
    });
    AIRLOCK_TRY(outcome, offline::process_request(request, context));
    return std::move(outcome.response);
  }

  // The approval of `action` with `body`, given before the build.
  Status approve(const std::string& action, const nlohmann::json& body) {
    auto request =
        must(online::approval_request(action, body, twin_.manager().public_key(), unix_now(), 1800),
             "approval request");
    bool asked = false;
    auto context =
        context_for([&](const std::string&, const offline::Review&) { return asked = true; });
    AIRLOCK_TRY(outcome, offline::process_request(request, context));
    if (outcome.decision != offline::Decision::kApproved)
      return Error(ErrorCode::kUsage, "the intent was not approved");
    return {};
  }

 private:
  // The offline half's context: this keystore and log, the operator's answer `confirm`.
  offline::SigningContext context_for(
      std::function<bool(const std::string&, const offline::Review&)> confirm) {
    return {policy_,
            twin_.decoders(),
            *log_,
            keystore_,
            locked_,
            false,
            std::move(confirm),
            [] { return SecretBytes::copy_of(std::string_view("bench passphrase")); },
            unix_now};
  }

  BenchTwin& twin_;
  offline::Policy policy_;
  std::filesystem::path dir_;
  std::string keystore_;
  std::optional<offline::AuditLog> log_;
  airlock::hardening::LockedDown locked_ = airlock::hardening::UnlockedForTests::make();
};

void approved_round(benchmark::State& state, const std::string& action,
                    const nlohmann::json& body) {
  apisim::ServiceOptions options;
  options.confirm_delay_ms = 0;
  BenchTwin twin(options);
  online::ApiClient& client = twin.client();
  // The lookup tables the action's builds load, pinned (what a careful operator configures: an
  // unverified table warns, and a warning always asks).
  offline::Policy policy = twin.policy();
  auto first = client.build(action, body);
  if (!first.ok() || first->failure) return state.SkipWithError("build");
  auto probe = online::prepare_round(action, body, first->body, twin.rpc(), unix_now());
  if (!probe.ok()) return state.SkipWithError(probe.error().to_string().c_str());
  for (const auto& hint : probe->request.hints.lookup_tables) {
    LoadedTable t{hint.table, {}};
    for (const auto& [i, address] : hint.entries) t.addresses.push_back(address);
    policy.pinned_tables.push_back(std::move(t));
  }
  ApprovedRound offline_half(twin, std::move(policy));
  std::size_t steps = 0;
  for (auto _ : state) {
    state.PauseTiming();
    if (auto s = offline_half.approve(action, body); !s.ok())
      return state.SkipWithError(s.error().to_string().c_str());
    state.ResumeTiming();
    auto built = client.build(action, body);
    if (!built.ok() || built->failure) return state.SkipWithError("build");
    auto round = online::prepare_round(action, body, built->body, twin.rpc(), unix_now());
    if (!round.ok()) return state.SkipWithError(round.error().to_string().c_str());
    auto request_cbor =
        through_qr(dense::ContentType::kSignRequest, envelope::encode_request(round->request));
    if (!request_cbor.ok()) return state.SkipWithError("request QR");
    auto request = envelope::decode_request(*request_cbor);
    if (!request.ok()) return state.SkipWithError("request decode");
    std::string asked;
    auto response = offline_half.decide(*request, asked);
    if (!response.ok()) return state.SkipWithError(response.error().to_string().c_str());
    if (!asked.empty()) return state.SkipWithError(asked.c_str());
    auto response_cbor =
        through_qr(dense::ContentType::kSignResponse, envelope::encode_response(*response));
    if (!response_cbor.ok()) return state.SkipWithError("response QR");
    auto decoded = envelope::decode_response(*response_cbor);
    if (!decoded.ok()) return state.SkipWithError("response decode");
    auto answer = online::apply_response(*round, *decoded, unix_now());
    if (!answer.ok() || answer->refusal) return state.SkipWithError("answer");
    for (std::size_t i = 0; i < answer->signed_transactions.size(); ++i) {
      auto sent = client.send(to_base64(serialize_transaction(answer->signed_transactions[i])),
                              round->steps[i]["ticket"].get<std::string>(), false);
      if (!sent.ok() || sent->failure) return state.SkipWithError("send");
    }
    steps = answer->signed_transactions.size();
  }
  state.counters["steps"] = static_cast<double>(steps);
}

void BM_ApprovedSwapBuildToSend(benchmark::State& state) {
  approved_round(state, "aggregator/swap", swap_body("1000000"));
}
void BM_ApprovedTwentyStepOpenBuildToSend(benchmark::State& state) {
  // 1,400 bins above the active bin (5000), token X only: every step deposits on X's side.
  // (The twin spreads both amounts over every position, so a range across the active bin
  // warns warn.deposit_off_side, and a warning always asks.)
  approved_round(state, "dlmm/open",
                 {{"vault", kVault},
                  {"lbPair", "8cGAuKv4FsExxYQE3XZUSGydbig6t2o28E3iSppYi1ht"},
                  {"lowerBinId", 5001},
                  {"upperBinId", 6401},
                  {"amountX", "200000000"},
                  {"amountY", "0"},
                  {"shape", "spot"},
                  {"maxActiveBinSlippage", 5}});
}
// One round per repetition, each with a fresh twin and client: the API's 60 requests a minute
// per address would otherwise pace the sends of the rounds after the first (the first round's
// requests fit that minute, as one operator's round does).
BENCHMARK(BM_ApprovedSwapBuildToSend)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(3)
    ->UseRealTime();
BENCHMARK(BM_ApprovedTwentyStepOpenBuildToSend)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(3)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
