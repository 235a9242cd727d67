// Machine time of one whole signing round trip for a one-step swap against the API twin with
// instant confirmation: build (HTTP), the sign request rendered as QR images and read back
// with ZXing, the offline review and signature, the response rendered and read back, every
// signature verified, send, and status polled to confirmed. Reported as a share of the 90 s
// ticket window (target: under 1%); the rest of the window belongs to the person reviewing.
// Images are passed in memory rather than through a screen and a camera.
#include <iostream>

#include <benchmark/benchmark.h>

#include <airlock/apisim/server.h>
#include <airlock/apisim/service.h>
#include <airlock/apisim/world.h>
#include <airlock/common/ed25519.h>
#include <airlock/formats/qr.h>
#include <airlock/formats/transfer.h>
#include <airlock/offline/review.h>
#include <airlock/online/round.h>

namespace {

using namespace airlock;
using json = nlohmann::json;

constexpr const char* kVault = "CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT";
constexpr const char* kManagerSeed =
    "cdf9fcd6e2e229d88b015fc793d36111e1a71d4b4ef3eafc4ab2576036e9e76b";

// Every frame of a transfer rendered and read back, as a camera watching a screen would.
Result<Bytes> through_qr(dense::ContentType type, const Bytes& payload) {
  AIRLOCK_TRY(sender, transfer::Sender::create({type, payload}, transfer::Options{}));
  transfer::Receiver receiver;
  for (std::uint32_t n = 1; !receiver.complete() && n <= 4 * sender.fragment_count() + 4; ++n) {
    AIRLOCK_TRY(symbol, sender.symbol(n));
    for (const auto& code : qr::read(qr::render(symbol, 3))) (void)receiver.receive(code);
  }
  if (!receiver.complete()) return Error(ErrorCode::kFrameInvalid, "transfer incomplete");
  return receiver.result().bytes;
}

void BM_OneStepSwapRoundTrip(benchmark::State& state) {
  if (!crypto_init().ok()) return state.SkipWithError("libsodium");
  auto world = apisim::load_world_file(AIRLOCK_APISIM_DEMO_FIXTURES);
  if (!world.ok()) return state.SkipWithError("fixtures");
  apisim::ServiceOptions options;
  options.confirm_delay_ms = 0;  // instant confirmation: the machine's time alone is measured
  apisim::Service service(std::move(world).value(), options);
  apisim::Server server(service);
  if (!server.start("127.0.0.1", 0).ok()) return state.SkipWithError("twin");
  const std::string base = "http://127.0.0.1:" + std::to_string(server.port());
  auto key = online::ApiKey::parse("hv1_demo_demo_secret_0123456789abcdefghijklmnopqrstuv");
  auto client = online::ApiClient::create(base + "/api/external/v1", std::move(key).value());
  auto keypair = Keypair::from_seed(from_hex(kManagerSeed, 32).value());
  offline::DecoderRegistry decoders;
  if (!client.ok() || !keypair.ok() || !decoders.add_idl_folder(AIRLOCK_IDL_DIR).ok()) {
    return state.SkipWithError("setup");
  }
  const json body = {{"vault", kVault},
                     {"sourceMint", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"},
                     {"destinationMint", "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN"},
                     {"amount", "1000000"},
                     {"slippageBps", 50}};
  offline::Policy policy;
  policy.manager = keypair->public_key();
  policy.vaults.insert(public_key_from_base58(kVault).value());
  policy.programs = {public_key_from_base58("AirLockVau1t1111111111111111111111111111111").value(),
                     public_key_from_base58("ComputeBudget111111111111111111111111111111").value()};
  policy.max_priority_fee_lamports = 100'000;
  policy.allow_unverified_lookup_tables = true;
  const auto now = [] {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };

  const auto started = std::chrono::steady_clock::now();
  for (auto _ : state) {
    // Online: build and wrap.
    auto built = client->build("aggregator/swap", body);
    if (!built.ok() || built->failure) return state.SkipWithError("build");
    auto round = online::prepare_round("aggregator/swap", body, built->body, base + "/rpc", now());
    if (!round.ok()) return state.SkipWithError(round.error().to_string().c_str());
    // Across the gap.
    auto request_cbor =
        through_qr(dense::ContentType::kSignRequest, envelope::encode_request(round->request));
    if (!request_cbor.ok()) return state.SkipWithError("request QR");
    // Offline: review and sign.
    auto request = envelope::decode_request(*request_cbor);
    if (!request.ok()) return state.SkipWithError("request decode");
    const auto review =
        offline::review_request(*request, policy, decoders, keypair->public_key(), now());
    if (review.refused()) return state.SkipWithError(review.refusals.front().code.c_str());
    envelope::SignResponse response;
    response.request_id = request->request_id;
    response.signer = keypair->public_key();
    std::vector<Signature> signatures;
    for (const auto& step : review.steps) {
      signatures.push_back(keypair->sign(serialize_message(step.tx.message)));
    }
    response.result = std::move(signatures);
    // Back across the gap.
    auto response_cbor =
        through_qr(dense::ContentType::kSignResponse, envelope::encode_response(response));
    if (!response_cbor.ok()) return state.SkipWithError("response QR");
    auto decoded = envelope::decode_response(*response_cbor);
    if (!decoded.ok()) return state.SkipWithError("response decode");
    // Online: verify, send, follow to confirmed.
    auto answer = online::apply_response(*round, *decoded);
    if (!answer.ok() || answer->refusal) return state.SkipWithError("answer");
    for (std::size_t i = 0; i < answer->signed_transactions.size(); ++i) {
      auto sent = client->send(to_base64(serialize_transaction(answer->signed_transactions[i])),
                               round->steps[i]["ticket"].get<std::string>(), false);
      if (!sent.ok() || sent->failure) return state.SkipWithError("send");
      std::string status = "pending";
      for (int poll = 0; poll < 50 && status == "pending"; ++poll) {
        auto s = client->status(sent->body["receipt"].get<std::string>());
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
