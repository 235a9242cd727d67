#include "conformance_support.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <airlock/apisim/world.h>
#include <airlock/common/hash.h>
#include <airlock/common/secret.h>
#include <airlock/offline/keystore.h>
#include <airlock/online/round.h>

#include "support/interfaces.h"

namespace airlock::apisim::test {

SecretBytes secret_of(std::string_view text) {
  auto s = SecretBytes::copy_of(text);
  EXPECT_TRUE(s.ok());
  return std::move(s).value();
}

bool has(const std::vector<offline::Finding>& findings, const std::string& code) {
  return std::any_of(findings.begin(), findings.end(),
                     [&](const offline::Finding& f) { return f.code == code; });
}

std::vector<Instruction> decompile(const Message& m, std::span<const LoadedTable> tables) {
  const auto roles = account_roles(m, tables).value();
  std::vector<Instruction> out;
  for (const auto& ix : m.instructions) {
    Instruction i{m.static_keys[ix.program_index], {}, ix.data};
    for (const auto index : ix.accounts) {
      // A key from a table not supplied is unknown: no instruction can be rebuilt from it.
      if (index >= roles.size() || !roles[index].key) {
        ADD_FAILURE() << "decompile: account " << int{index} << " is loaded from a table not given";
        return {};
      }
      i.accounts.push_back(
          {*roles[index].key, roles[index].signer, roles[index].writable_requested});
    }
    out.push_back(std::move(i));
  }
  return out;
}

std::vector<StaticAccount> static_accounts(const Transaction& tx) {
  const Message& m = tx.message;
  const std::size_t n = m.static_keys.size(), signers = m.header.num_required_signatures;
  std::vector<StaticAccount> out;
  for (std::size_t i = 0; i < n; ++i) {
    StaticAccount a;
    a.key = m.static_keys[i];
    a.signer = i < signers;
    a.writable = a.signer ? i < signers - m.header.num_readonly_signed
                          : i < n - m.header.num_readonly_unsigned;
    if (a.signer && i < tx.signatures.size()) a.signature = tx.signatures[i];
    out.push_back(a);
  }
  return out;
}

Transaction rebuild_static_keys(const Transaction& tx, const std::vector<StaticAccount>& accounts,
                                std::vector<std::uint8_t>* placed) {
  const auto section = [](const StaticAccount& a) {
    return a.signer ? (a.writable ? 0 : 1) : (a.writable ? 2 : 3);
  };
  std::vector<std::size_t> order(accounts.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return section(accounts[a]) < section(accounts[b]);
  });
  std::vector<std::uint8_t> new_index(accounts.size());
  Transaction out = tx;
  Message& m = out.message;
  m.static_keys.clear();
  out.signatures.clear();
  m.header = {};
  for (std::size_t position = 0; position < order.size(); ++position) {
    const StaticAccount& a = accounts[order[position]];
    new_index[order[position]] = static_cast<std::uint8_t>(position);
    m.static_keys.push_back(a.key);
    if (a.signer) {
      ++m.header.num_required_signatures;
      if (!a.writable) ++m.header.num_readonly_signed;
      out.signatures.push_back(a.signature);
    } else if (!a.writable) {
      ++m.header.num_readonly_unsigned;
    }
  }
  const std::size_t old_static = tx.message.static_keys.size();
  const auto remap = [&](std::uint8_t index) {
    return index < old_static ? new_index[index]
                              : static_cast<std::uint8_t>(index - old_static + accounts.size());
  };
  for (auto& ix : m.instructions) {
    ix.program_index = remap(ix.program_index);
    for (auto& a : ix.accounts) a = remap(a);
  }
  if (placed != nullptr) *placed = new_index;
  return out;
}

namespace {

bool refused_by_a_rule(const offline::Review& r) {
  return std::any_of(r.refusals.begin(), r.refusals.end(), [](const offline::Finding& f) {
    return f.code != "policy.invalid_presignature";
  });
}

std::string codes_of(const offline::Review& r) {
  std::string out;
  for (const auto& f : r.warnings) out += " " + f.code;
  return out.empty() ? " none" : out;
}

}  // namespace

std::vector<std::string> binding_sweep(const envelope::SignRequest& q,
                                       const offline::Policy& policy,
                                       const offline::DecoderRegistry& decoders,
                                       const PublicKey& signer, std::int64_t now,
                                       std::size_t& tried) {
  std::vector<std::string> missed;
  const auto honest = offline::review_request(q, policy, decoders, signer, now);
  if (honest.refused()) return {"the honest request is refused already"};
  const PublicKey stranger = sha256(Bytes{'s', 't', 'r', 'a', 'n', 'g', 'e', 'r'});
  const auto check = [&](const envelope::SignRequest& changed, const std::string& what,
                         const char* must = nullptr) {
    ++tried;
    const auto r = offline::review_request(changed, policy, decoders, signer, now);
    if (std::getenv("AIRLOCK_SWEEP_TRACE") != nullptr) {
      std::string codes;
      for (const auto& f : r.refusals) codes += " " + f.code;
      std::cout << "sweep: " << q.action << ": " << what << ":" << codes << "\n";
    }
    if (!refused_by_a_rule(r) || (must && !has(r.refusals, must)))
      missed.push_back(q.action + ": " + what + " (warnings:" + codes_of(r) + ")");
  };
  for (std::size_t s = 0; s < q.steps.size(); ++s) {
    const Transaction tx = parse_transaction(q.steps[s].transaction).value();
    const Message& m = tx.message;
    const auto with = [&](const Transaction& changed) {
      auto out = q;
      out.steps[s].transaction = serialize_transaction(changed);
      return out;
    };
    const std::string step = "step " + std::to_string(s + 1) + " ";
    for (std::size_t i = 0; i < m.instructions.size(); ++i) {
      const auto& ix = m.instructions[i];
      const auto& bindings = honest.steps[s].bindings[i];
      for (std::size_t p = 0; p < ix.accounts.size(); ++p) {
        const std::string role = p < bindings.size() ? bindings[p].role : std::to_string(p);
        if (p < bindings.size() && bindings[p].source == "route") continue;  // the router's
        const std::uint8_t original = ix.accounts[p];
        // A stranger in this one place, with the flags the place had.
        {
          auto accounts = static_accounts(tx);
          StaticAccount a;
          a.key = stranger;
          if (original < accounts.size()) {
            a.signer = accounts[original].signer;
            a.writable = accounts[original].writable;
          } else {
            a.writable = true;
          }
          accounts.push_back(a);
          std::vector<std::uint8_t> placed;
          Transaction changed = rebuild_static_keys(tx, accounts, &placed);
          changed.message.instructions[i].accounts[p] = placed.back();
          check(with(changed),
                step + "instruction " + std::to_string(i + 1) + " " + role + " -> a stranger");
        }
        // Another account of the same instruction in its place.
        for (std::size_t other = 0; other < ix.accounts.size(); ++other) {
          const std::uint8_t index = ix.accounts[other];
          if (index == original ||
              (index < m.static_keys.size() && original < m.static_keys.size() &&
               m.static_keys[index] == m.static_keys[original]))
            continue;
          Transaction changed = tx;
          changed.message.instructions[i].accounts[p] = index;
          check(with(changed), step + "instruction " + std::to_string(i + 1) + " " + role +
                                   " -> its account " + std::to_string(other + 1));
        }
      }
    }
    // Each static account's writable flag flipped (the fee payer's and invoked programs' aside:
    // the runtime decides those).
    for (std::size_t j = 1; j < m.static_keys.size(); ++j) {
      const bool invoked = std::any_of(m.instructions.begin(), m.instructions.end(),
                                       [&](const auto& ix) { return ix.program_index == j; });
      if (invoked) continue;
      auto accounts = static_accounts(tx);
      accounts[j].writable = !accounts[j].writable;
      check(with(rebuild_static_keys(tx, accounts)),
            step + "account " + to_base58(m.static_keys[j]) + " writable flipped");
    }
    // A signer no instruction needs.
    {
      auto accounts = static_accounts(tx);
      StaticAccount extra;
      extra.key = stranger;
      extra.signer = true;
      accounts.push_back(extra);
      check(with(rebuild_static_keys(tx, accounts)), step + "an extra signer", "intent.signer");
    }
  }
  // A step repeated.
  {
    auto changed = q;
    changed.steps.push_back(q.steps.back());
    check(changed, "the last step twice");
  }
  return missed;
}

void SigningTwin::SetUp() {
  Twin::SetUp();
  airlock::test::add_twin_interfaces(decoders);
  write_manager_keystore(keystore, "correct horse");
  auto opened = offline::AuditLog::open(dir.file("audit.log"));
  ASSERT_TRUE(opened.ok()) << opened.error().to_string();
  log.emplace(std::move(opened).value());
}

void Twin::write_manager_keystore(const std::string& path, std::string_view passphrase) {
  auto seed = from_hex(kManagerSeed, 32);
  ASSERT_TRUE(seed.ok());
  auto secret = SecretBytes::copy_of(*seed);
  ASSERT_TRUE(secret.ok());
  ASSERT_TRUE(offline::write_keystore(path, *secret, secret_of(passphrase),
                                      {"generated", std::nullopt}, offline::minimum_kdf_limits())
                  .ok());
}

void Twin::SetUp() {
  ASSERT_TRUE(crypto_init().ok());
  // The airlock-online processes tests start pace themselves alone: the twin's clock is the
  // test's, and sharing the user's pacing file with other tests running at once would make them
  // wait on each other in real time. (PacingTest covers the shared file.)
  ::setenv("AIRLOCK_PACE_FILE", "none", 0);
  // Each test its own journal registry, a folder in the process's (tests/support/helpers.cpp):
  // an action one test leaves in flight for the twin's vault must not hold the next test's act,
  // which refuses to build for a vault another journal has in flight.
  static const std::string process_registry = [] {
    const char* r = std::getenv("AIRLOCK_JOURNAL_REGISTRY");
    return std::string(r == nullptr ? "" : r);
  }();
  if (!process_registry.empty()) {
    static int tests = 0;
    const std::string own = process_registry + "/test-" + std::to_string(++tests);
    std::filesystem::create_directories(own);
    ::setenv("AIRLOCK_JOURNAL_REGISTRY", own.c_str(), 1);
  }
  auto world = load_world_file(AIRLOCK_APISIM_DEMO_FIXTURES);
  ASSERT_TRUE(world.ok()) << world.error().to_string();
  ServiceOptions options;
  options.frozen_clock = true;
  options.confirm_delay_ms = 0;
  service_ = std::make_unique<Service>(std::move(world).value(), options);
  server_ = std::make_unique<Server>(*service_);
  ASSERT_TRUE(server_->start("127.0.0.1", 0).ok());
  client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  client_->set_read_timeout(10, 0);
  auto seed = from_hex(kManagerSeed, 32);
  auto kp = Keypair::from_seed(*seed);
  ASSERT_TRUE(kp.ok());
  manager_.emplace(std::move(kp).value());
}

void Twin::TearDown() {
  client_.reset();
  if (server_) server_->stop();
}

namespace {
Reply to_reply(const httplib::Result& r) {
  Reply out;
  if (!r) return out;
  out.status = r->status;
  out.headers = r->headers;
  out.body = json::parse(r->body, nullptr, false);
  return out;
}
}  // namespace

Reply Twin::get(const std::string& path, const char* key) {
  httplib::Headers headers;
  if (key != nullptr) headers.emplace("Authorization", std::string("Bearer ") + key);
  return to_reply(client_->Get(api(path), headers));
}

Reply Twin::post(const std::string& path, const json& body, const char* key) {
  return post_raw(path, body.dump(), key);
}

Reply Twin::post_raw(const std::string& path, const std::string& body, const char* key) {
  httplib::Headers headers;
  if (key != nullptr) headers.emplace("Authorization", std::string("Bearer ") + key);
  return to_reply(client_->Post(api(path), headers, body, "application/json"));
}

Reply Twin::control(const std::string& path, const json& body) {
  httplib::Headers headers{{"X-Sim-Token", "airlock-sim"}};
  return to_reply(client_->Post(path, headers, body.dump(), "application/json"));
}

json Twin::counters() {
  httplib::Headers headers{{"X-Sim-Token", "airlock-sim"}};
  return to_reply(client_->Get("/_sim/counters", headers)).body;
}

Transaction Twin::tx_of(const json& step) {
  auto wire = from_base64(step.at("transaction").get<std::string>(), kMaxTransactionBytes);
  EXPECT_TRUE(wire.ok());
  auto tx = parse_transaction(*wire);
  EXPECT_TRUE(tx.ok()) << tx.error().to_string();
  return tx.value();
}

json Twin::signed_send_body(const json& step) {
  Transaction tx = tx_of(step);
  EXPECT_TRUE(sign_transaction(tx, *manager_).ok());
  return {{"transaction", to_base64(serialize_transaction(tx))}, {"ticket", step.at("ticket")}};
}

std::string Twin::send_and_confirm(const json& step) {
  const bool onboard = step.value("simulation", json::object()).value("deferred", false) &&
                       tx_of(step).message.instructions.size() == 1;
  const Reply sent = post(onboard ? "/transactions/perp/onboard/submit" : "/transactions/send",
                          signed_send_body(step));
  EXPECT_EQ(sent.status, 200) << sent.body.dump();
  if (sent.status != 200) return "send-failed";
  for (int i = 0; i < 10; ++i) {
    const Reply s =
        get("/transactions/status?receipt=" + sent.body.at("receipt").get<std::string>());
    if (s.body.value("status", "") != "pending") return s.body.value("status", "");
    advance(2000);
  }
  return "pending";
}

envelope::SignRequest Twin::request_of(const std::string& action, const json& body,
                                       const json& built) {
  const std::string rpc = "http://127.0.0.1:" + std::to_string(server_->port()) + "/rpc";
  auto round = online::prepare_round(action, body, built, rpc, now_s());
  EXPECT_TRUE(round.ok()) << round.error().to_string();
  return round.ok() ? round->request : envelope::SignRequest{};
}

offline::Policy Twin::demo_policy(const envelope::SignRequest& request, const std::string& extra) {
  std::string toml = "version = 1\nmanager = \"" + to_base58(manager_->public_key()) +
                     "\"\nvaults = [\"" + kVault + "\"]\n" +
                     "programs = [\"AirLockVau1t1111111111111111111111111111111\", "
                     "\"ComputeBudget111111111111111111111111111111\"]\n"
                     "max_priority_fee_lamports = 100000\n" +
                     extra + "\n";
  // The twin's perp markets, as its perp read lists them (GET /vaults/{vault}/perp).
  for (const auto& [symbol, asset] : {std::pair<const char*, std::uint64_t>{"SOL", 0},
                                      std::pair<const char*, std::uint64_t>{"BTC", 1}}) {
    toml += "[[markets]]\nsymbol = \"" + std::string(symbol) + "\"\naddress = \"" +
            to_base58(derive_address("perp-market", PublicKey{}, asset)) + "\"\n";
  }
  for (const auto& hint : request.hints.lookup_tables) {
    toml += "[[lookup_tables]]\naddress = \"" + to_base58(hint.table) + "\"\naddresses = [";
    for (const auto& [i, address] : hint.entries)
      toml += (i ? ", \"" : "\"") + to_base58(address) + "\"";
    toml += "]\n";
  }
  toml += airlock::test::twin_pin_toml();
  auto policy = offline::parse_policy(toml);
  EXPECT_TRUE(policy.ok()) << policy.error().to_string() << "\n" << toml;
  return policy.ok() ? std::move(policy).value() : offline::Policy{};
}

}  // namespace airlock::apisim::test
