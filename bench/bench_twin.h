// What the benchmarks that run whole requests share: the API twin on a loopback port with the
// demo fixtures, a client for it with the demo key, the demo manager's keypair, the shipped
// IDLs, and the demo policy's fixed part. Setup failures end the program with the reason.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <airlock/apisim/server.h>
#include <airlock/apisim/service.h>
#include <airlock/apisim/world.h>
#include <airlock/common/ed25519.h>
#include <airlock/offline/decode.h>
#include <airlock/offline/interfaces.h>
#include <airlock/offline/policy.h>
#include <airlock/online/api.h>

namespace airlock::bench {

inline constexpr const char* kVault = "CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT";
inline constexpr const char* kUsdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
inline constexpr const char* kJup = "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN";
// The demo manager (the signer of ../shared/vectors): a public seed, for benchmarks only.
inline constexpr const char* kManagerSeed =
    "cdf9fcd6e2e229d88b015fc793d36111e1a71d4b4ef3eafc4ab2576036e9e76b";

[[noreturn]] inline void fail(const std::string& what) {
  std::cerr << "benchmark setup: " << what << "\n";
  std::exit(1);
}

template <typename T>
T must(Result<T> r, const char* what) {
  if (!r.ok()) fail(std::string(what) + ": " + r.error().to_string());
  return std::move(r).value();
}

inline std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The body of a USDC -> JUP swap on the demo vault.
inline nlohmann::json swap_body(const char* amount) {
  return {{"vault", kVault},
          {"sourceMint", kUsdc},
          {"destinationMint", kJup},
          {"amount", amount},
          {"slippageBps", 50}};
}

class BenchTwin {
 public:
  explicit BenchTwin(apisim::ServiceOptions options) {
    if (!crypto_init().ok()) fail("libsodium");
    service_ = std::make_unique<apisim::Service>(
        must(apisim::load_world_file(AIRLOCK_APISIM_DEMO_FIXTURES), "fixtures"), options);
    server_ = std::make_unique<apisim::Server>(*service_);
    if (!server_->start("127.0.0.1", 0).ok()) fail("the twin did not start");
    base_ = "http://127.0.0.1:" + std::to_string(server_->port());
    // The twin's demo key, copied into secure memory as a key file would be read.
    constexpr std::string_view kDemoKey = "hv1_demo_demo_secret_0123456789abcdefghijklmnopqrstuv";
    auto key_text = must(SecretBytes::copy_of(kDemoKey), "secure memory");
    auto key = must(online::ApiKey::parse(key_text), "key");
    client_.emplace(
        must(online::ApiClient::create(base_ + "/api/external/v1", std::move(key)), "client"));
    manager_.emplace(must(Keypair::from_seed(must(from_hex(kManagerSeed, 32), "seed")), "keypair"));
    // The shipped descriptor and the IDLs it pins, as a policy pinning them loads them.
    if (!offline::check_descriptor_files(AIRLOCK_DESCRIPTOR_DIR "/airlock_vault.json",
                                         AIRLOCK_IDL_DIR, decoders_)
             .ok())
      fail("descriptor");
  }

  [[nodiscard]] std::string rpc() const { return base_ + "/rpc"; }
  [[nodiscard]] online::ApiClient& client() { return *client_; }
  [[nodiscard]] const Keypair& manager() const { return *manager_; }
  [[nodiscard]] const offline::DecoderRegistry& decoders() const { return decoders_; }

  // The demo policy without lookup tables: the manager, the vault, the two programs the twin's
  // builders call, a 100,000-lamport fee ceiling, and USDC and JUP pinned with a price floor
  // for USDC to JUP (a swap of a pair with no floor warns, and a warning always asks).
  [[nodiscard]] offline::Policy policy() const {
    offline::Policy p;
    p.manager = manager_->public_key();
    p.vaults.insert(must(public_key_from_base58(kVault), "vault"));
    p.programs = {
        must(public_key_from_base58("AirLockVau1t1111111111111111111111111111111"), "key"),
        must(public_key_from_base58("ComputeBudget111111111111111111111111111111"), "key")};
    p.max_priority_fee_lamports = 100'000;
    const offline::PinnedToken usdc{must(public_key_from_base58(kUsdc), "mint"), "USDC", 6};
    const offline::PinnedToken jup{must(public_key_from_base58(kJup), "mint"), "JUP", 6};
    p.tokens = {usdc, jup};
    offline::PriceFloor floor;
    floor.sells = usdc;
    floor.buys = jup;
    floor.numerator = 11;  // 1.1 JUP per USDC (the twin quotes 1.25, less its fee)
    floor.scale = 1;
    floor.text = "1.1";
    p.price_floors = {floor};
    return p;
  }

 private:
  std::unique_ptr<apisim::Service> service_;
  std::unique_ptr<apisim::Server> server_;
  std::string base_;
  std::optional<online::ApiClient> client_;
  std::optional<Keypair> manager_;
  offline::DecoderRegistry decoders_;
};

}  // namespace airlock::bench
