// Machine time of one whole signing round trip for a one-step swap against the API twin with
// instant confirmation: build (HTTP), the sign request rendered as QR images and read back
// with ZXing, the offline review and signature, the response rendered and read back, every
// signature verified, send, and status polled to confirmed. Reported as a share of the 90 s
// ticket window (target: under 1%); the rest of the window belongs to the person reviewing.
// Images are passed in memory rather than through a screen and a camera.
#include <iostream>

#include <benchmark/benchmark.h>

#include <airlock/formats/dense.h>
#include <airlock/formats/qr.h>
#include <airlock/formats/transfer.h>
#include <airlock/offline/review.h>
#include <airlock/online/round.h>

#include "bench_twin.h"

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

}  // namespace

BENCHMARK_MAIN();
