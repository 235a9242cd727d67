// Proof on a program nobody here wrote: Voltr's vault program, described by a descriptor file
// alone (tests/data/voltr/voltr_vault.json: no line of C++ names Voltr), pinned by a policy
// like the twin's. Its transactions come from Voltr's own SDK (tests/oracle/voltr_vectors.mjs:
// @voltr/vault-sdk and Anchor's coder from Voltr's IDL), each with its call's arguments as the
// intent. The honest ones are bound and signed; each hostile one, built by the same SDK with one
// thing other than the intent says, is refused.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <airlock/common/ed25519.h>
#include <airlock/common/message.h>
#include <airlock/common/transaction.h>
#include <airlock/offline/audit.h>
#include <airlock/offline/interfaces.h>
#include <airlock/offline/keystore.h>
#include <airlock/offline/policy.h>
#include <airlock/offline/review.h>
#include <airlock/offline/signing.h>

#include "support/helpers.h"

namespace airlock::offline {
namespace {

using json = nlohmann::json;

json vectors() { return json::parse(test::text_of(AIRLOCK_VOLTR_VECTORS).value()); }

class Voltr : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(crypto_init().ok());
    v = vectors();
    namespace fs = std::filesystem;
    fs::create_directories(dir.file("idl"));
    fs::create_directories(dir.file("descriptors"));
    std::ofstream(dir.file("idl/voltr_vault.json"), std::ios::binary)
        << v["idl"].get<std::string>();
    fs::copy_file(AIRLOCK_VOLTR_DESCRIPTOR, dir.file("descriptors/voltr_vault.json"));
    manager = public_key_from_base58(v["manager"].get<std::string>()).value();
    vault = public_key_from_base58(v["vault"].get<std::string>()).value();
    // The policy pins the descriptor and Voltr's IDL as `descriptor check` prints them.
    DecoderRegistry scratch;
    auto checked =
        check_descriptor_files(dir.file("descriptors/voltr_vault.json"), dir.file("idl"), scratch);
    ASSERT_TRUE(checked.ok()) << checked.error().to_string();
    const std::string toml = "version = 1\nmanager = \"" + to_base58(manager) + "\"\nvaults = [\"" +
                             to_base58(vault) + "\"]\nprograms = [\"" +
                             v["program"].get<std::string>() + "\"]\n" + checked->pin_toml;
    auto parsed = parse_policy(toml);
    ASSERT_TRUE(parsed.ok()) << parsed.error().to_string() << "\n" << toml;
    policy = std::move(*parsed);
    auto loaded =
        load_pinned_interfaces(policy, {dir.file("idl"), dir.file("descriptors")}, registry);
    ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
  }

  envelope::SignRequest request(const json& c) const {
    envelope::SignRequest q;
    q.request_id[0] = 7;
    q.created_at = static_cast<std::uint64_t>(kNow);
    q.deadline = static_cast<std::uint64_t>(kNow + 60);
    q.manager = manager;
    q.vault = vault;
    q.action = c["action"].get<std::string>();
    q.intent_json = c["intent"].dump();
    envelope::Step step;
    step.transaction = from_base64(c["transaction"].get<std::string>(), 1232).value();
    q.steps.push_back(step);
    return q;
  }

  static std::string codes(const Review& r) {
    std::string out;
    for (const auto& f : r.refusals) out += f.code + ": " + f.message + "\n";
    return out;
  }

  static constexpr std::int64_t kNow = 1'790'000'000;
  test::ScratchDir dir{"voltr"};
  json v;
  PublicKey manager, vault;
  Policy policy;
  DecoderRegistry registry;
};

TEST_F(Voltr, TheDescriptorBindsEveryAccountOfTheHonestCallsAndTheySign) {
  int honest = 0;
  for (const auto& c : v["cases"]) {
    if (!c["honest"].get<bool>()) continue;
    ++honest;
    SCOPED_TRACE(c["name"].get<std::string>());
    const auto q = request(c);
    const Review r = review_request(q, policy, registry, manager, kNow);
    ASSERT_FALSE(r.refused()) << codes(r);
    // The operator reads what the call does in the descriptor's words.
    EXPECT_EQ(r.reads, registry.descriptor_for(q.action)->action(q.action)->reads);
    EXPECT_FALSE(r.reads.empty());
    // Every named account is bound to a source, none left unbound or refused.
    ASSERT_EQ(r.steps.size(), 1U);
    std::size_t bound = 0;
    for (const auto& bindings : r.steps[0].bindings) {
      for (const auto& b : bindings) {
        EXPECT_NE(b.source, "unbound") << b.role;
        EXPECT_NE(b.source, "refused") << b.role;
        ++bound;
      }
    }
    EXPECT_GE(bound, 7U);
    // And the signer signs it: the signature verifies over the message the SDK built.
    const std::string keystore = dir.file("manager-" + std::to_string(honest) + ".keystore");
    auto seed = SecretBytes::copy_of(from_hex(v["manager_seed"].get<std::string>(), 32).value());
    auto pass = SecretBytes::copy_of(std::string_view("voltr pass"));
    ASSERT_TRUE(seed.ok() && pass.ok());
    ASSERT_TRUE(
        write_keystore(keystore, *seed, *pass, {"generated", std::nullopt}, minimum_kdf_limits())
            .ok());
    auto log = AuditLog::open(dir.file("audit-" + std::to_string(honest) + ".log"));
    ASSERT_TRUE(log.ok()) << log.error().to_string();
    SigningContext context{policy,
                           registry,
                           *log,
                           keystore,
                           false,
                           [](const std::string&, const Review&) { return true; },
                           [] { return SecretBytes::copy_of(std::string_view("voltr pass")); },
                           [] { return kNow; }};
    auto outcome = process_request(q, context);
    ASSERT_TRUE(outcome.ok()) << outcome.error().to_string();
    ASSERT_EQ(outcome->decision, Decision::kSigned) << outcome->summary;
    const auto& signatures = std::get<std::vector<Signature>>(outcome->response.result);
    ASSERT_EQ(signatures.size(), 1U);
    const Transaction tx = parse_transaction(q.steps[0].transaction).value();
    EXPECT_TRUE(verify_signature(manager, serialize_message(tx.message), signatures[0]));
  }
  EXPECT_EQ(honest, 5);
}

TEST_F(Voltr, EachHostileCallIsRefusedByTheRuleItBreaks) {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"another vault's strategy receipt", "intent.account"},
      {"the adaptor program swapped", "intent.account"},
      {"the amount changed", "intent.argument"},
      {"other adaptor arguments", "intent.argument"},
      {"an extra signer among the adaptor's accounts", "intent.account"},
      {"the vault among the adaptor's accounts", "intent.account"},
      {"the vault's idle asset authority among the adaptor's accounts", "intent.account"},
      {"another vault", "intent.account"},
      {"another strategy", "intent.account"},
      {"another vault's receipt", "intent.account"},
  };
  int hostile = 0;
  for (const auto& c : v["cases"]) {
    if (c["honest"].get<bool>()) continue;
    ++hostile;
    const std::string name = c["name"].get<std::string>();
    SCOPED_TRACE(name);
    const Review r = review_request(request(c), policy, registry, manager, kNow);
    ASSERT_TRUE(r.refused()) << name << " was not refused";
    std::string want;
    for (const auto& [what, code] : expected) {
      if (name.find(what) != std::string::npos) want = code;
    }
    ASSERT_FALSE(want.empty()) << "no expectation for " << name;
    EXPECT_TRUE(std::any_of(r.refusals.begin(), r.refusals.end(),
                            [&](const Finding& f) { return f.code == want; }))
        << "expected " << want << ", got:\n"
        << codes(r);
  }
  EXPECT_EQ(hostile, 18);
}

// Without the pin nothing binds: the same honest call is refused.
TEST_F(Voltr, AnUnpinnedDescriptorBindsNothing) {
  DecoderRegistry none;
  Policy unpinned = policy;
  unpinned.descriptors.clear();
  ASSERT_TRUE(
      load_pinned_interfaces(unpinned, {dir.file("idl"), dir.file("descriptors")}, none).ok());
  const Review r = review_request(request(v["cases"][1]), unpinned, none, manager, kNow);
  EXPECT_TRUE(r.refused());
  EXPECT_TRUE(std::any_of(r.refusals.begin(), r.refusals.end(), [](const Finding& f) {
    return f.code == FindingCode::kPolicyActionUnknown.name();
  })) << codes(r);
}

}  // namespace
}  // namespace airlock::offline
