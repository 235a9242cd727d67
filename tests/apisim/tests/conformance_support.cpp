#include "conformance_support.h"

#include <airlock/common/secret.h>

namespace airlock::apisim::test {

void Twin::SetUp() {
  ASSERT_TRUE(crypto_init().ok());
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

std::vector<PublicKey> Twin::fetch_table(const PublicKey& table) {
  httplib::Headers headers;
  const json call = {{"jsonrpc", "2.0"},
                     {"id", 1},
                     {"method", "getAccountInfo"},
                     {"params", {to_base58(table), {{"encoding", "base64"}}}}};
  const auto r = client_->Post("/rpc", headers, call.dump(), "application/json");
  EXPECT_TRUE(r && r->status == 200);
  if (!r || r->status != 200) return {};
  const json reply = json::parse(r->body);
  const auto data = from_base64(reply["result"]["value"]["data"][0].get<std::string>(), 1 << 16);
  EXPECT_TRUE(data.ok());
  auto account = parse_lookup_table_account(*data);
  EXPECT_TRUE(account.ok()) << account.error().to_string();
  return account.ok() ? account->addresses : std::vector<PublicKey>{};
}

envelope::SignRequest Twin::request_of(const std::string& action, const json& body,
                                       const json& built) {
  envelope::SignRequest q;
  q.request_id = envelope::random_request_id();
  q.created_at = static_cast<std::uint64_t>(now_s());
  q.deadline = q.created_at + 90;
  q.manager = manager_->public_key();
  q.vault = public_key_from_base58(built.value("vault", std::string(kVault))).value();
  q.action = action;
  q.intent_json = body.dump();
  for (const auto& step : steps_of(built)) {
    envelope::Step s;
    s.transaction =
        from_base64(step.at("transaction").get<std::string>(), kMaxTransactionBytes).value();
    s.send_concurrently = step.value("sendConcurrently", false);
    s.deferred = step["simulation"].value("deferred", false);
    s.units_consumed = step["simulation"].value("unitsConsumed", std::uint64_t{0});
    if (step.contains("next")) s.next_action = step["next"]["path"].get<std::string>();
    const Transaction tx = tx_of(step);
    for (const auto& lookup : tx.message.lookups) {
      const bool known = std::any_of(q.hints.lookup_tables.begin(), q.hints.lookup_tables.end(),
                                     [&](const auto& h) { return h.table == lookup.table; });
      if (known) continue;
      envelope::LookupTableHint hint{lookup.table, {}};
      const auto addresses = fetch_table(lookup.table);
      for (std::size_t i = 0; i < addresses.size(); ++i) {
        hint.entries.emplace_back(static_cast<std::uint8_t>(i), addresses[i]);
      }
      q.hints.lookup_tables.push_back(std::move(hint));
    }
    q.steps.push_back(std::move(s));
  }
  return q;
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
