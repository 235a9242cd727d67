// The offline half's work per sign request: decode the envelope, parse every transaction,
// decode every instruction (the vault IDL, nested Jupiter routes), apply the policy and the
// intent checks, and sign every step. Measured for a one-step swap and a 20-step dlmm/open
// (1,400 bins), both built by the API twin and wrapped by the online half's real round code.
// bench/peer/offline.mjs does the parse-and-sign part with @solana/web3.js + tweetnacl on the
// same transactions in the same run; scripts/bench prints the ratios. Audit-log I/O (one
// fsync per request) is left out of both: it is the disk's time, not the code's.
//
//   airlock-bench-offline --fixture-out=FILE [benchmark flags]
// writes the transactions and the seed for the peer before running.
#include <cstring>
#include <fstream>
#include <iostream>

#include <benchmark/benchmark.h>

#include <airlock/apisim/server.h>
#include <airlock/apisim/service.h>
#include <airlock/apisim/world.h>
#include <airlock/common/ed25519.h>
#include <airlock/offline/review.h>
#include <airlock/online/round.h>

namespace {

using namespace airlock;
using json = nlohmann::json;

constexpr const char* kVault = "CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT";
constexpr const char* kManagerSeed =
    "cdf9fcd6e2e229d88b015fc793d36111e1a71d4b4ef3eafc4ab2576036e9e76b";

struct Case {
  Bytes cbor;  // the encoded sign request, as it arrives
  offline::Policy policy;
};

struct Fixtures {
  Case swap, open;
  std::optional<Keypair> key;
  offline::DecoderRegistry decoders;
};

[[noreturn]] void fail(const std::string& what) {
  std::cerr << "airlock-bench-offline: " << what << "\n";
  std::exit(1);
}

template <typename T>
T must(Result<T> r, const char* what) {
  if (!r.ok()) fail(std::string(what) + ": " + r.error().to_string());
  return std::move(r).value();
}

// Builds one action on the twin and turns it into a sign request the way airlock-online does,
// with the lookup tables pinned in the policy (what a careful operator configures).
Case make_case(online::ApiClient& client, const std::string& rpc, const std::string& action,
               const json& body, const PublicKey& manager) {
  auto reply = must(client.build(action, body), "build");
  if (reply.failure) fail(action + ": " + reply.failure->code + " " + reply.failure->message);
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  auto round = must(online::prepare_round(action, body, reply.body, rpc, now), "round");
  Case c;
  c.cbor = envelope::encode_request(round.request);
  c.policy.manager = manager;
  c.policy.vaults.insert(round.request.vault);
  c.policy.programs = {
      must(public_key_from_base58("AirLockVau1t1111111111111111111111111111111"), "key"),
      must(public_key_from_base58("ComputeBudget111111111111111111111111111111"), "key")};
  c.policy.max_priority_fee_lamports = 100'000;
  for (const auto& hint : round.request.hints.lookup_tables) {
    LoadedTable t{hint.table, {}};
    for (const auto& [i, address] : hint.entries) t.addresses.push_back(address);
    c.policy.pinned_tables.push_back(std::move(t));
  }
  return c;
}

Fixtures& fixtures() {
  static Fixtures f = [] {
    Fixtures out;
    if (!crypto_init().ok()) fail("libsodium");
    auto world = must(apisim::load_world_file(AIRLOCK_APISIM_DEMO_FIXTURES), "fixtures");
    apisim::ServiceOptions options;
    options.frozen_clock = true;
    static apisim::Service service(std::move(world), options);
    static apisim::Server server(service);
    if (!server.start("127.0.0.1", 0).ok()) fail("twin");
    const std::string base = "http://127.0.0.1:" + std::to_string(server.port());
    auto key =
        must(online::ApiKey::parse("hv1_demo_demo_secret_0123456789abcdefghijklmnopqrstuv"), "key");
    auto client =
        must(online::ApiClient::create(base + "/api/external/v1", std::move(key)), "client");
    out.key.emplace(must(Keypair::from_seed(must(from_hex(kManagerSeed, 32), "seed")), "keypair"));
    const PublicKey manager = out.key->public_key();
    out.swap = make_case(client, base + "/rpc", "aggregator/swap",
                         {{"vault", kVault},
                          {"sourceMint", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"},
                          {"destinationMint", "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN"},
                          {"amount", "5000000"},
                          {"slippageBps", 50}},
                         manager);
    out.open = make_case(client, base + "/rpc", "dlmm/open",
                         {{"vault", kVault},
                          {"lbPair", "8cGAuKv4FsExxYQE3XZUSGydbig6t2o28E3iSppYi1ht"},
                          {"lowerBinId", 4300},
                          {"upperBinId", 5700},
                          {"amountX", "200000000"},
                          {"amountY", "30000000"},
                          {"shape", "spot"},
                          {"maxActiveBinSlippage", 5}},
                         manager);
    if (!out.decoders.add_idl_folder(AIRLOCK_IDL_DIR).ok()) fail("IDL folder");
    return out;
  }();
  return f;
}

void run_case(benchmark::State& state, const Case& c) {
  Fixtures& f = fixtures();
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  std::size_t steps = 0;
  for (auto _ : state) {
    auto request = envelope::decode_request(c.cbor);
    if (!request.ok()) {
      state.SkipWithError("decode");
      return;
    }
    const auto review =
        offline::review_request(*request, c.policy, f.decoders, f.key->public_key(), now);
    if (review.refused()) {
      state.SkipWithError(
          (review.refusals.front().code + ": " + review.refusals.front().message).c_str());
      return;
    }
    std::vector<Signature> signatures;
    for (const auto& step : review.steps)
      signatures.push_back(f.key->sign(serialize_message(step.tx.message)));
    benchmark::DoNotOptimize(signatures.data());
    steps = signatures.size();
  }
  state.counters["steps"] = static_cast<double>(steps);
  state.SetItemsProcessed(state.iterations());
}

void BM_OneStepSwap(benchmark::State& state) { run_case(state, fixtures().swap); }
void BM_TwentyStepOpen(benchmark::State& state) { run_case(state, fixtures().open); }
BENCHMARK(BM_OneStepSwap)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TwentyStepOpen)->Unit(benchmark::kMicrosecond);

// The peer's input: each case's unsigned transactions (base64) and the signing seed.
void write_fixture(const std::string& path) {
  Fixtures& f = fixtures();
  json out = {{"seed_hex", kManagerSeed}};
  for (const auto& [name, c] : {std::pair<const char*, const Case*>{"BM_OneStepSwap", &f.swap},
                                {"BM_TwentyStepOpen", &f.open}}) {
    auto request = must(envelope::decode_request(c->cbor), "request");
    json txs = json::array();
    for (const auto& step : request.steps) txs.push_back(to_base64(step.transaction));
    out["cases"][name] = txs;
  }
  std::ofstream(path) << out.dump();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--fixture-out=", 14) == 0) {
      write_fixture(argv[i] + 14);
    } else {
      args.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
