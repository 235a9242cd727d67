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

#include <airlock/offline/review.h>
#include <airlock/online/round.h>

#include "bench_twin.h"

namespace {

using namespace airlock;
using namespace airlock::bench;
using json = nlohmann::json;

struct Case {
  Bytes cbor;  // the encoded sign request, as it arrives
  offline::Policy policy;
};

struct Fixtures {
  std::unique_ptr<BenchTwin> twin;
  Case swap, open;
};

// Builds one action on the twin and turns it into a sign request the way airlock-online does,
// with the lookup tables pinned in the policy (what a careful operator configures).
Case make_case(BenchTwin& twin, const std::string& action, const json& body) {
  auto reply = must(twin.client().build(action, body), "build");
  if (reply.failure) fail(action + ": " + reply.failure->code + " " + reply.failure->message);
  auto round =
      must(online::prepare_round(action, body, reply.body, twin.rpc(), unix_now()), "round");
  Case c;
  c.cbor = envelope::encode_request(round.request);
  c.policy = twin.policy();
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
    apisim::ServiceOptions options;
    options.frozen_clock = true;
    out.twin = std::make_unique<BenchTwin>(options);
    out.swap = make_case(*out.twin, "aggregator/swap", swap_body("5000000"));
    out.open = make_case(*out.twin, "dlmm/open",
                         {{"vault", kVault},
                          {"lbPair", "8cGAuKv4FsExxYQE3XZUSGydbig6t2o28E3iSppYi1ht"},
                          {"lowerBinId", 4300},
                          {"upperBinId", 5700},
                          {"amountX", "200000000"},
                          {"amountY", "30000000"},
                          {"shape", "spot"},
                          {"maxActiveBinSlippage", 5}});
    return out;
  }();
  return f;
}

void run_case(benchmark::State& state, const Case& c) {
  const BenchTwin& twin = *fixtures().twin;
  const Keypair& key = twin.manager();
  const auto now = unix_now();
  std::size_t steps = 0;
  for (auto _ : state) {
    auto request = envelope::decode_request(c.cbor);
    if (!request.ok()) {
      state.SkipWithError("decode");
      return;
    }
    const auto review =
        offline::review_request(*request, c.policy, twin.decoders(), key.public_key(), now);
    if (review.refused()) {
      state.SkipWithError(
          (review.refusals.front().code + ": " + review.refusals.front().message).c_str());
      return;
    }
    std::vector<Signature> signatures;
    for (const auto& step : review.steps)
      signatures.push_back(key.sign(serialize_message(step.tx.message)));
    benchmark::DoNotOptimize(signatures.data());
    steps = signatures.size();
  }
  state.counters["steps"] = static_cast<double>(steps);
  state.SetItemsProcessed(state.iterations());
}

// The signatures alone, on messages already parsed: the yardstick the issue measures the
// review against (review + sign at most three times this, i.e. the review within twice it).
void sign_only(benchmark::State& state, const Case& c) {
  const Keypair& key = fixtures().twin->manager();
  auto request = must(envelope::decode_request(c.cbor), "request");
  std::vector<Bytes> messages;
  for (const auto& step : request.steps)
    messages.push_back(serialize_message(must(parse_transaction(step.transaction), "tx").message));
  for (auto _ : state) {
    std::vector<Signature> signatures;
    for (const auto& m : messages) signatures.push_back(key.sign(m));
    benchmark::DoNotOptimize(signatures.data());
  }
  state.counters["steps"] = static_cast<double>(messages.size());
  state.SetItemsProcessed(state.iterations());
}

void BM_OneStepSwap(benchmark::State& state) { run_case(state, fixtures().swap); }
void BM_TwentyStepOpen(benchmark::State& state) { run_case(state, fixtures().open); }
void BM_OneStepSwap_SignOnly(benchmark::State& state) { sign_only(state, fixtures().swap); }
void BM_TwentyStepOpen_SignOnly(benchmark::State& state) { sign_only(state, fixtures().open); }
BENCHMARK(BM_OneStepSwap)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TwentyStepOpen)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OneStepSwap_SignOnly)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TwentyStepOpen_SignOnly)->Unit(benchmark::kMicrosecond);

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
