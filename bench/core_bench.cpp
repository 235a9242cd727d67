// Per-transaction offline core work on a typical one-lookup version-0 transaction: parse and
// sanitize the unsigned wire bytes, sign the message, serialize the signed transaction. The
// same steps done by @solana/web3.js + tweetnacl are timed by bench/peer/core.mjs in the same
// run; scripts/bench prints the ratio.
#include <cstdlib>
#include <fstream>
#include <iostream>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <airlock/common/ed25519.h>
#include <airlock/common/transaction.h>

namespace {

struct Fixture {
  airlock::Bytes unsigned_wire;
  airlock::Bytes expected_signed;
  airlock::Bytes seed;
};

Fixture load_fixture() {
  std::ifstream in(std::string(AIRLOCK_VECTORS_DIR) + "/solana-v0-transactions.json");
  const auto vectors = nlohmann::json::parse(in);
  for (const auto& v : vectors["vectors"]) {
    if (v["name"] != "lookup-table") continue;
    Fixture f;
    f.unsigned_wire =
        airlock::from_base64(v["unsigned_tx_base64"].get<std::string>(), 2048).value();
    f.expected_signed =
        airlock::from_base64(v["signed_tx_base64"].get<std::string>(), 2048).value();
    f.seed = airlock::from_hex(v["signer_secret_seeds_hex"][0].get<std::string>(), 32).value();
    return f;
  }
  std::cerr << "lookup-table vector not found\n";
  std::exit(1);
}

void BM_ParseSanitizeSignSerialize(benchmark::State& state) {
  const Fixture f = load_fixture();
  auto keypair = airlock::Keypair::from_seed(f.seed);
  if (!keypair.ok()) {
    state.SkipWithError("keypair");
    return;
  }
  airlock::Bytes out;
  for (auto _ : state) {
    auto tx = airlock::parse_transaction(f.unsigned_wire);
    if (!tx.ok() || !airlock::sign_transaction(*tx, *keypair).ok()) {
      state.SkipWithError("parse or sign failed");
      return;
    }
    out = airlock::serialize_transaction(*tx);
    benchmark::DoNotOptimize(out.data());
  }
  // The work must be the real work: the result equals the web3.js-signed vector.
  if (out != f.expected_signed) state.SkipWithError("signed bytes differ from the vector");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParseSanitizeSignSerialize)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
