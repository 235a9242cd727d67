#include "conformance_support.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <airlock/common/secret.h>
#include <airlock/offline/keystore.h>
#include <airlock/online/round.h>

namespace airlock::apisim::test {

SecretBytes secret_of(std::string_view text) {
  auto s = SecretBytes::allocate(text.size());
  EXPECT_TRUE(s.ok());
  std::memcpy(s->bytes().data(), text.data(), text.size());
  return std::move(s).value();
}

bool has(const std::vector<offline::Finding>& findings, const std::string& code) {
  return std::any_of(findings.begin(), findings.end(),
                     [&](const offline::Finding& f) { return f.code == code; });
}

std::vector<Instruction> decompile(const Message& m) {
  const auto roles = account_roles(m).value();
  std::vector<Instruction> out;
  for (const auto& ix : m.instructions) {
    Instruction i{m.static_keys[ix.program_index], {}, ix.data};
    for (const auto index : ix.accounts) {
      i.accounts.push_back(
          {m.static_keys[index], roles[index].signer, roles[index].writable_requested});
    }
    out.push_back(std::move(i));
  }
  return out;
}

void SigningTwin::SetUp() {
  Twin::SetUp();
  ASSERT_TRUE(decoders.add_idl_folder(AIRLOCK_IDL_DIR).ok());
  write_manager_keystore(keystore, "correct horse");
  auto opened = offline::AuditLog::open(dir.file("audit.log"));
  ASSERT_TRUE(opened.ok()) << opened.error().to_string();
  log.emplace(std::move(opened).value());
}

void Twin::write_manager_keystore(const std::string& path, std::string_view passphrase) {
  auto seed = from_hex(kManagerSeed, 32);
  ASSERT_TRUE(seed.ok());
  const SecretBytes secret =
      secret_of(std::string_view(reinterpret_cast<const char*>(seed->data()), seed->size()));
  ASSERT_TRUE(offline::write_keystore(path, secret, secret_of(passphrase),
                                      {"generated", std::nullopt}, offline::minimum_kdf_limits())
                  .ok());
}

void Twin::SetUp() {
  ASSERT_TRUE(crypto_init().ok());
  // The airlock-online processes tests start pace themselves alone: the twin's clock is the
  // test's, and sharing the user's pacing file with other tests running at once would make them
  // wait on each other in real time. (PacingTest covers the shared file.)
  ::setenv("AIRLOCK_PACE_FILE", "none", 0);
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
  for (const auto& hint : request.hints.lookup_tables) {
    toml += "[[lookup_tables]]\naddress = \"" + to_base58(hint.table) + "\"\naddresses = [";
    for (const auto& [i, address] : hint.entries)
      toml += (i ? ", \"" : "\"") + to_base58(address) + "\"";
    toml += "]\n";
  }
  auto policy = offline::parse_policy(toml);
  EXPECT_TRUE(policy.ok()) << policy.error().to_string() << "\n" << toml;
  return policy.ok() ? std::move(policy).value() : offline::Policy{};
}

}  // namespace airlock::apisim::test
