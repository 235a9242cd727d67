// Proof on a program nobody here wrote: Voltr's vault program, described by a descriptor file
// alone (tests/data/voltr/voltr_vault.json: no line of C++ names Voltr), pinned by a policy
// like the twin's. Its transactions come from Voltr's own SDK (tests/oracle/voltr_vectors.mjs:
// @voltr/vault-sdk and Anchor's coder from Voltr's IDL), each with its call's arguments as the
// intent. The honest ones are bound and signed; each hostile one, built by the same SDK with one
// thing other than the intent says, is refused.
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <airlock/common/ed25519.h>
#include <airlock/common/hash.h>
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
    policy_text = "version = 1\nmanager = \"" + to_base58(manager) + "\"\nvaults = [\"" +
                  to_base58(vault) + "\"]\nprograms = [\"" + v["program"].get<std::string>() +
                  "\"]\n" + checked->pin_toml;
    // A descriptor's actions beyond the builder's are allowed only where the policy names them.
    for (const char* action : {"voltr/initialize-strategy", "voltr/deposit-strategy",
                               "voltr/withdraw-strategy", "voltr/close-strategy"})
      policy_text += "[actions.\"" + std::string(action) + "\"]\nallowed = true\n";
    auto parsed = parse_policy(policy_text);
    ASSERT_TRUE(parsed.ok()) << parsed.error().to_string() << "\n" << policy_text;
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
  // The honest deposit.
  const json& deposit() const {
    for (const auto& c : v["cases"]) {
      if (c["action"] == "voltr/deposit-strategy" && c["honest"].get<bool>()) return c;
    }
    throw std::logic_error("no honest deposit in the vectors");
  }
  static bool refuses(const Review& r, std::string_view code) {
    return std::any_of(r.refusals.begin(), r.refusals.end(),
                       [&](const Finding& f) { return f.code == code; });
  }
  // The descriptor's text after `change`, checked with Voltr's IDL (and any extra IDL files
  // written into the idl folder): the error, or "" when it holds.
  std::string check_changed(const std::function<void(json&)>& change) {
    json d = json::parse(test::text_of(AIRLOCK_VOLTR_DESCRIPTOR).value());
    change(d);
    std::ofstream(dir.file("changed.json")) << d.dump(2);
    DecoderRegistry r;
    auto checked = check_descriptor_files(dir.file("changed.json"), dir.file("idl"), r);
    return checked.ok() ? std::string() : checked.error().message();
  }

  test::ScratchDir dir{"voltr"};
  std::string policy_text;
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
                           airlock::test::locked_down(),
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
      {"the vault's LP mint among the adaptor's accounts", "intent.account"},
      {"the adaptor's add receipt among the adaptor's accounts", "intent.account"},
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
  EXPECT_EQ(hostile, 22);
}

// initialize_strategy names neither the vault's idle asset authority nor its LP mint: only the
// descriptor's own_addresses say they are the vault's, and the refusal says which.
TEST_F(Voltr, TheVaultsOwnAddressesTheCallDoesNotNameAreKnownFromTheDescriptor) {
  std::map<std::string, std::string> said = {
      {"idle asset authority", "the authority over the vault's idle asset"},
      {"LP mint", "the vault's LP mint"}};
  int seen = 0;
  for (const auto& c : v["cases"]) {
    const std::string name = c["name"].get<std::string>();
    if (name.rfind("voltr/initialize-strategy: the vault's", 0) != 0) continue;
    for (const auto& entry : said) {
      if (name.find(entry.first) == std::string::npos) continue;
      const std::string& text = entry.second;  // a plain name: clang lambdas take no bindings
      ++seen;
      const Review r = review_request(request(c), policy, registry, manager, kNow);
      EXPECT_TRUE(
          std::any_of(r.refusals.begin(), r.refusals.end(),
                      [&](const Finding& f) { return f.message.find(text) != std::string::npos; }))
          << name << ":\n"
          << codes(r);
    }
  }
  EXPECT_EQ(seen, 2);
}

// A descriptor's action beyond the builder's is signed only where the policy names it.
TEST_F(Voltr, AnActionThePolicyDoesNotNameIsRefused) {
  Policy unnamed = policy;
  unnamed.actions.erase("voltr/deposit-strategy");
  const Review r = review_request(request(deposit()), unnamed, registry, manager, kNow);
  EXPECT_TRUE(refuses(r, "policy.action_not_allowed")) << codes(r);
}

// What a described call moves out of the vault is what its descriptor's outflows name: a token
// cap counts a strategy deposit, and fails closed on a call whose descriptor says nothing.
TEST_F(Voltr, ATokenCapCountsWhatTheDescriptorSaysLeavesTheVaultAndRefusesWhatItDoesNot) {
  const std::string mint = deposit()["intent"]["vaultAssetMint"].get<std::string>();
  const std::uint64_t amount = std::stoull(deposit()["intent"]["amount"].get<std::string>());
  ASSERT_EQ(amount, 1'500'000U);
  const auto capped = [&](const char* per_day) {
    auto p = parse_policy(policy_text + "[[tokens]]\nmint = \"" + mint +
                          "\"\nsymbol = \"ASSET\"\ndecimals = 6\n[limits.tokens.ASSET]\n"
                          "per_day = \"" +
                          per_day + "\"\n");
    EXPECT_TRUE(p.ok()) << p.error().to_string();
    return std::move(p).value();
  };
  // A log begun by `log start --first`: it holds every signature, so the cap can be counted.
  AuditEntry started;
  started.decision = audit::Decision::kStarted;
  started.start = audit::Start{};
  started.time = kNow - 10;
  const std::vector<AuditEntry> log = {started};
  // The deposit moves its amount of the vault's asset mint out (its descriptor's outflows).
  const auto uncapped = examine(request(deposit()), policy, registry, manager, kNow, &log);
  EXPECT_FALSE(uncapped.review.refused()) << codes(uncapped.review);
  ASSERT_EQ(uncapped.outflows.known.size(), 1U);
  EXPECT_EQ(uncapped.outflows.known[0],
            (audit::Outflow{public_key_from_base58(mint).value(), amount}));
  EXPECT_TRUE(uncapped.outflows.unknown.empty());
  const auto room = examine(request(deposit()), capped("1000"), registry, manager, kNow, &log);
  EXPECT_FALSE(room.review.refused()) << codes(room.review);
  const auto tight = examine(request(deposit()), capped("1"), registry, manager, kNow, &log);
  EXPECT_TRUE(refuses(tight.review, "policy.limit")) << codes(tight.review);
  EXPECT_NE(codes(tight.review).find("this request moves 1.5 ASSET"), std::string::npos)
      << codes(tight.review);
  // A withdrawal moves nothing out; opening a strategy through an adaptor may, and its
  // descriptor does not say what: refused under any token cap rather than counted as nothing.
  for (const auto& c : v["cases"]) {
    if (!c["honest"].get<bool>()) continue;
    SCOPED_TRACE(c["name"].get<std::string>());
    const auto e = examine(request(c), capped("1"), registry, manager, kNow, &log);
    if (c["action"] == "voltr/initialize-strategy") {
      EXPECT_TRUE(refuses(e.review, "policy.limit")) << codes(e.review);
      EXPECT_NE(codes(e.review).find("initialize_strategy, which moves tokens or states no "
                                     "amount its descriptor counts as leaving the vault"),
                std::string::npos)
          << codes(e.review);
    } else if (c["action"] != "voltr/deposit-strategy") {
      EXPECT_FALSE(e.review.refused()) << codes(e.review);
      EXPECT_TRUE(e.outflows.known.empty() && e.outflows.unknown.empty());
    }
  }
}

// A key twice in the build request could show one amount and bind another: unreadable.
TEST_F(Voltr, ABuildRequestWithAKeyTwiceIsUnreadable) {
  auto q = request(deposit());
  ASSERT_NE(q.intent_json.find("\"amount\":\"1500000\""), std::string::npos);
  q.intent_json.insert(1, "\"amount\":\"15\",");
  const Review r = review_request(q, policy, registry, manager, kNow);
  EXPECT_TRUE(refuses(r, "intent.unreadable")) << codes(r);
}

// What a descriptor cannot get around: a builder action's name does not spare another
// program's arguments their rules, a second IDL of the same name cannot stand in for the
// pinned one, and an action's name is lower-case and outside the builder's and Keystone's.
TEST_F(Voltr, ADescriptorCannotBorrowABuilderNameOrASecondIdl) {
  EXPECT_EQ(check_changed([](json&) {}), "");
  std::string problem = check_changed([](json& d) {
    d["instructions"]["deposit_strategy"].erase("args");
    d["actions"]["strategy/close"] = d["actions"]["voltr/deposit-strategy"];
    d["actions"].erase("voltr/deposit-strategy");
  });
  EXPECT_NE(problem.find("argument amount of deposit_strategy has no rule"), std::string::npos)
      << problem;
  json idl = json::parse(v["idl"].get<std::string>());
  for (auto& ix : idl["instructions"]) {
    for (auto& a : ix["accounts"]) a.erase("pda");
  }
  const std::string extra = idl.dump();
  std::ofstream(dir.file("idl/voltr_extra.json"), std::ios::binary) << extra;
  const std::string extra_hash = to_hex(sha256(text_bytes(extra)).view());
  problem = check_changed([&](json& d) {
    d["programs"]["voltr"]["idl"].push_back({{"file", "voltr_extra.json"}, {"sha256", extra_hash}});
  });
  EXPECT_NE(problem.find("both call themselves voltr_vault"), std::string::npos) << problem;
  for (const char* name : {"Voltr/deposit", "keystone/sol-sign-request", "dlmm/teleport"}) {
    problem = check_changed(
        [&](json& d) { d["actions"][name] = d["actions"]["voltr/deposit-strategy"]; });
    EXPECT_NE(problem.find("actions." + std::string(name)), std::string::npos)
        << name << ": " << problem;
  }
}

// Without the pin nothing binds: a policy that rules the actions no longer loads, and without
// those rules the same honest call is refused.
TEST_F(Voltr, AnUnpinnedDescriptorBindsNothing) {
  DecoderRegistry none;
  Policy unpinned = policy;
  unpinned.descriptors.clear();
  const auto ruled =
      load_pinned_interfaces(unpinned, {dir.file("idl"), dir.file("descriptors")}, none);
  ASSERT_FALSE(ruled.ok());
  EXPECT_NE(ruled.error().message().find("no descriptor the policy pins describes"),
            std::string::npos)
      << ruled.error().message();
  unpinned.actions.clear();
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
