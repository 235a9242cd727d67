// A running twin on a loopback port with a frozen clock, and a client that speaks to it.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <airlock/apisim/message_builder.h>
#include <airlock/apisim/server.h>
#include <airlock/common/ed25519.h>
#include <airlock/common/secret.h>
#include <airlock/common/transaction.h>
#include <airlock/formats/envelope.h>
#include <airlock/offline/audit.h>
#include <airlock/offline/decode.h>
#include <airlock/offline/policy.h>
#include <airlock/offline/review.h>

#include "support/helpers.h"

namespace airlock::apisim::test {

using json = nlohmann::json;

inline constexpr const char* kDemoKey = "hv1_demo_demo_secret_0123456789abcdefghijklmnopqrstuv";
inline constexpr const char* kReadonlyKey = "hv1_readonly_readonly_secret_0123456789abcdefghijklmn";
inline constexpr const char* kVault = "CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT";
inline constexpr const char* kOtherVault = "Ansv9pZfqJNfXP3cbsSBVDhvKAYLt7dTkhhM2FwFyGnT";
inline constexpr const char* kUsdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
inline constexpr const char* kSol = "So11111111111111111111111111111111111111112";
inline constexpr const char* kJup = "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN";
inline constexpr const char* kSolUsdcPool = "8cGAuKv4FsExxYQE3XZUSGydbig6t2o28E3iSppYi1ht";
// The demo manager's seed (the signer of ../shared/vectors/solana-v0-transactions.json).
inline constexpr const char* kManagerSeed =
    "cdf9fcd6e2e229d88b015fc793d36111e1a71d4b4ef3eafc4ab2576036e9e76b";

// Test secrets (passphrases, seeds) in secret memory, as the keystore API takes them.
SecretBytes secret_of(std::string_view text);

// Whether the review found `code` among these refusals or warnings.
bool has(const std::vector<offline::Finding>& findings, const std::string& code);

// The instructions of a message without lookups, with their accounts' roles as the header gives
// them: what a builder would have passed to compile the message. Tampering tests change these
// and compile again.
// The instructions of `m` with their keys; loaded accounts from `tables` (a message that loads
// from a table not given fails the test).
std::vector<Instruction> decompile(const Message& m, std::span<const LoadedTable> tables = {});

// A static account as the header places it: rebuild_static_keys() orders these into the
// header's four sections (writable signers, read-only signers, writable, read-only), keeping
// each signer's signature with its key and remapping every instruction's indexes.
struct StaticAccount {
  PublicKey key;
  bool signer = false;
  bool writable = false;
  Signature signature{};
};
std::vector<StaticAccount> static_accounts(const Transaction& tx);
// `accounts[i]` replaces static key i (a longer list appends keys); instruction indexes are
// remapped, loaded ones shifted. `placed`, if given, receives where each of `accounts` went.
// Precondition: the fee payer stays first and a writable signer.
Transaction rebuild_static_keys(const Transaction& tx, const std::vector<StaticAccount>& accounts,
                                std::vector<std::uint8_t>* placed = nullptr);

// The binding sweep (docs/threat-model.md): a reviewed request changed in one thing at a time —
// every account of every instruction replaced by a stranger or by another account of the same
// instruction, every static account's writable flag flipped, an extra signer added, a step
// repeated — and reviewed again. Each change must be refused by a rule other than the broken
// pre-signature of a new account (which any change to the message causes). Returns the changes
// that were not, described; counts what it tried in `tried`.
std::vector<std::string> binding_sweep(const envelope::SignRequest& q,
                                       const offline::Policy& policy,
                                       const offline::DecoderRegistry& decoders,
                                       const PublicKey& signer, std::int64_t now,
                                       std::size_t& tried);

struct Reply {
  int status = 0;
  json body;
  httplib::Headers headers;
};

class Twin : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  Reply get(const std::string& path, const char* key = kDemoKey);
  Reply post(const std::string& path, const json& body, const char* key = kDemoKey);
  Reply post_raw(const std::string& path, const std::string& body, const char* key = kDemoKey);
  Reply control(const std::string& path, const json& body = json::object());
  void advance(std::int64_t ms) { control("/_sim/clock", {{"advanceMs", ms}}); }
  json counters();

  // Signs a build step's transaction with the manager key; returns the send body.
  json signed_send_body(const json& step);
  // Build, sign, send and poll one step until it leaves `pending`; returns the final status.
  std::string send_and_confirm(const json& step);
  // Every step of a build response, whether one step or a batch.
  static std::vector<json> steps_of(const json& build) {
    const json& r = build.at("result");
    return r.is_array() ? r.get<std::vector<json>>() : std::vector<json>{r};
  }
  static Transaction tx_of(const json& step);
  static std::string api(const std::string& path) { return std::string(kApiPrefix) + path; }

  // The twin's clock, unix seconds.
  std::int64_t now_s() {
    return control("/_sim/clock", {{"advanceMs", 0}}).body["nowMs"].get<std::int64_t>() / 1000;
  }
  // The sign request airlock-online makes from a build response (online::prepare_round): the
  // steps, the body as intent, the deadline from the twin's clock and a hint for every lookup
  // table the steps use, fetched from the twin's /rpc.
  envelope::SignRequest request_of(const std::string& action, const json& body, const json& built);
  // A policy for the demo world: its manager and vault, the programs its builders use, every
  // table `request` loads pinned as /rpc serves it, and the given extra TOML lines.
  offline::Policy demo_policy(const envelope::SignRequest& request, const std::string& extra = "");

  // Writes the demo manager's key to a keystore at Argon2id's interactive level.
  void write_manager_keystore(const std::string& path, std::string_view passphrase);

  std::unique_ptr<Service> service_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<httplib::Client> client_;
  std::optional<Keypair> manager_;
};

// A twin plus what the sign path needs: the shipped IDLs, the demo manager's keystore
// (passphrase "correct horse") and a fresh audit log in a scratch folder.
class SigningTwin : public Twin {
 protected:
  void SetUp() override;

  airlock::test::ScratchDir dir{"airlock-signing"};
  std::string keystore = dir.file("manager.keystore");
  std::optional<offline::AuditLog> log;
  offline::DecoderRegistry decoders;
};

}  // namespace airlock::apisim::test
