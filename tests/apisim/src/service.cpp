// Routing, authentication, scopes, rate limits, the read endpoints, builds, send, status, the
// /_sim control API and the minimal /rpc: the contract of manager-bot-api.md, table by table.
#include <charconv>
#include <cmath>
#include <ctime>
#include <regex>

#include <sodium.h>

#include <airlock/common/hash.h>
#include <airlock/common/programs.h>

#include "engine.h"

namespace airlock::apisim {
namespace {

constexpr const char* kUnavailable = "Service temporarily unavailable";
constexpr const char* kRejected = "Transaction rejected during simulation or preflight";
constexpr std::size_t kMaxTransactionBase64 = 3000;
constexpr std::int64_t kMinute = 60'000;

using Limits = Engine::Limits;

Response json_response(int status, const json& body, bool no_store = false) {
  Response r;
  r.status = status;
  r.body = body.dump();
  r.headers.emplace_back("Content-Type", "application/json");
  if (no_store) r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

// The error envelope of spec part 7, with its fixed messages for 5xx and 422.
Response error_response(const ApiError& e) {
  std::string message = e.message;
  if (e.status == 500 || e.status == 502 || e.status == 503) message = kUnavailable;
  if (e.status == 422) message = kRejected;
  return json_response(e.status, {{"error", {{"code", e.code}, {"message", message}}}});
}

Response error_response(int status, const std::string& code, const std::string& message) {
  return error_response(ApiError{status, code, message});
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 1;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    parts.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

bool constant_time_equal(const std::string& a, const std::string& b) {
  return a.size() == b.size() && sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

class Api {
 public:
  Api(Engine& engine, const Request& request) : e_(engine), q_(request) {}

  Response handle() {
    const std::string path = q_.path.substr(kApiPrefix.size());
    // The limit is on the URL as sent (percent-encoding included); a request made in-process,
    // without a target, is measured from its decoded parts.
    std::size_t url_length = q_.target.size();
    if (q_.target.empty()) {
      url_length = q_.path.size();
      for (const auto& [k, v] : q_.query) url_length += k.size() + v.size() + 2;
    }
    if (q_.method == "GET" && url_length > kMaxUrlChars)
      return error_response(400, "Validation", "url: at most 4096 characters");
    if (q_.body.size() > kMaxBodyBytes)
      return error_response(413, "BodyTooLarge", "body: at most 16384 bytes");

    // Per-IP limits come before the API key (spec 8); nothing is taken until the request passes.
    const Limits ip_limits = {{"edge:" + q_.remote_ip, {20, 1000}},
                              {"ip:" + q_.remote_ip, {60, kMinute}}};
    if (auto exhausted = e_.take_tokens(ip_limits, false)) {
      return error_response(429, "RateLimited", "rate limit exhausted: " + *exhausted);
    }

    auto key = authenticate();
    if (auto* err = std::get_if<ApiError>(&key)) return error_response(*err);
    key_ = std::get<const ApiKey*>(key);

    Limits limits = ip_limits;
    limits.push_back({"key:" + key_->id, {120, kMinute}});
    const bool build = q_.method == "POST" && starts_with(path, "/transactions/") &&
                       path != "/transactions/send" && path != "/transactions/perp/onboard/submit";
    if (build || path == "/aggregator/quote") add_triple(limits, "build:" + q_.remote_ip);
    if (path == "/dlmm/pools") add_triple(limits, "pools:" + q_.remote_ip);
    if (auto exhausted = e_.take_tokens(limits))
      return error_response(429, "RateLimited", "rate limit exhausted: " + *exhausted);

    if (q_.method == "GET") return reads(path);
    if (q_.method != "POST") return error_response(404, "NotFound", "unknown route");
    if (path == "/transactions/send") return send(false);
    if (path == "/transactions/perp/onboard/submit") return send(true);
    if (starts_with(path, "/transactions/"))
      return build_action_route(path.substr(std::string_view("/transactions/").size()));
    return error_response(404, "NotFound", "unknown route");
  }

 private:
  static void add_triple(Limits& limits, const std::string& name) {
    limits.push_back({name + ":10s", {30, 10'000}});
    limits.push_back({name + ":1m", {100, kMinute}});
    limits.push_back({name + ":15m", {300, 15 * kMinute}});
  }

  ApiResult<const ApiKey*> authenticate() {
    auto header = q_.headers.find("authorization");
    if (header == q_.headers.end())
      return ApiError{401, "Unauthorized", "authorization: missing Bearer API key"};
    static const std::regex kFormat("^Bearer hv1_[A-Za-z0-9_-]{1,48}_[A-Za-z0-9_-]{32,128}$");
    if (!std::regex_match(header->second, kFormat)) {
      return ApiError{401, "Unauthorized", "authorization: must be 'Bearer hv1_<id>_<secret>'"};
    }
    if (e_.faults.key_lookup_failure) return ApiError{503, "ApiUnavailable", ""};
    const std::string token = header->second.substr(7);
    for (const auto& k : e_.world.keys) {
      if (!constant_time_equal("hv1_" + k.id + "_" + k.secret, token)) continue;
      if (k.revoked) return ApiError{401, "Unauthorized", "the API key is revoked"};
      if (k.expires_ms && *k.expires_ms <= e_.now_ms())
        return ApiError{401, "Unauthorized", "the API key has expired"};
      return &k;
    }
    return ApiError{401, "Unauthorized", "unknown API key"};
  }

  std::optional<ApiError> require_scope(const std::string& scope) const {
    if (key_->actions.count(scope) == 0)
      return ApiError{403, "Forbidden", "the key lacks the '" + scope + "' scope"};
    return std::nullopt;
  }

  // Allowlist and on-chain authority, read on every request naming a vault (spec 5.4).
  ApiResult<Vault*> vault_access(const std::string& text) {
    auto address = public_key_from_base58(text);
    if (!address.ok())
      return validation("vault", "must be a base58 public key that decodes to 32 bytes");
    Vault* v = e_.world.vault(*address);
    if (v == nullptr) return ApiError{404, "NotFound", "vault does not exist"};
    if (key_->vaults &&
        std::find(key_->vaults->begin(), key_->vaults->end(), *address) == key_->vaults->end()) {
      return ApiError{403, "Denied", "the vault is outside the key's allowlist"};
    }
    if (v->authority != key_->manager)
      return ApiError{403, "Denied", "the key's manager is not the vault's authority"};
    return v;
  }

  Response reads(const std::string& path) {
    if (path == "/transactions/status") return status();
    if (auto e = require_scope("read")) return error_response(*e);
    if (e_.faults.rpc_outage) return error_response(503, "RpcUnavailable", "");
    const auto parts = split_path(path);
    if (parts.size() == 1 && parts[0] == "vaults") {
      json list = json::array();
      for (const auto& v : e_.world.vaults) {
        if (v.closed || v.authority != key_->manager) continue;
        if (key_->vaults &&
            std::find(key_->vaults->begin(), key_->vaults->end(), v.address) == key_->vaults->end())
          continue;
        list.push_back(vault_summary(e_.world, v));
      }
      return json_response(200, {{"vaults", list}}, true);
    }
    if (parts.size() >= 2 && parts[0] == "vaults") return vault_read(parts);
    if (path == "/aggregator/quote") return quote();
    if (parts.size() == 2 && parts[0] == "dlmm" && parts[1] == "pools") return pools();
    if (parts.size() == 3 && parts[0] == "dlmm" && parts[1] == "pools") return pool(parts[2]);
    if (parts.size() == 2 && parts[0] == "tokens") return token(parts[1]);
    return error_response(404, "NotFound", "unknown route");
  }

  Response vault_read(const std::vector<std::string>& parts) {
    auto access = vault_access(parts[1]);
    if (auto* err = std::get_if<ApiError>(&access)) return error_response(*err);
    Vault& v = *std::get<Vault*>(access);
    const json address = to_base58(v.address);
    if (parts.size() == 2)
      return json_response(200, {{"vault", address}, {"data", vault_detail(e_.world, v)}}, true);
    if (parts.size() != 3) return error_response(404, "NotFound", "unknown route");
    const std::string& what = parts[2];
    json data;
    if (what == "holdings") {
      data = holdings_view(e_.world, v);
    } else if (what == "strategies") {
      data = strategies_view(e_.world, v);
    } else if (what == "nav") {
      std::size_t limit = 200;
      if (auto it = q_.query.find("limit"); it != q_.query.end()) {
        std::size_t n = 0;
        auto [end, ec] =
            std::from_chars(it->second.data(), it->second.data() + it->second.size(), n);
        if (ec != std::errc() || end != it->second.data() + it->second.size() || n == 0) {
          return error_response(400, "Validation", "limit: must be a positive integer");
        }
        limit = std::min<std::size_t>(n, 2000);
      }
      data = json::array();
      const std::size_t from = v.nav.size() > limit ? v.nav.size() - limit : 0;
      for (std::size_t i = from; i < v.nav.size(); ++i) {
        const auto& p = v.nav[i];
        data.push_back({{"epoch", p.epoch},
                        {"ts", p.ts},
                        {"totalAssets", std::to_string(p.total_assets)},
                        {"navPerShare", std::to_string(p.nav_per_share)},
                        {"highWaterMark", std::to_string(p.high_water_mark)},
                        {"overridden", false}});
      }
    } else if (what == "requests") {
      data = {{"deposits", json::array()}, {"withdrawals", json::array()}};
    } else if (what == "strategy-history") {
      data = json::array();
      for (const auto& h : v.history) {
        data.push_back({{"type", h.strategy.type},
                        {"address", to_base58(h.strategy.address)},
                        {"id", h.strategy.id},
                        {"createdTs", h.strategy.created_ts},
                        {"closedTs", h.closed_ts}});
      }
    } else if (what == "perp") {
      const Strategy* perp = nullptr;
      for (const auto& s : v.strategies) {
        if (s.type == "perp") perp = &s;
      }
      json markets = json::array();
      for (const auto& m : e_.world.perp_markets) {
        markets.push_back(
            {{"symbol", m.symbol},
             {"address", to_base58(derive_address("perp-market", PublicKey{}, m.asset_id))},
             {"assetId", m.asset_id},
             {"markPrice", m.mark_price},
             {"baseLotsPerUnit", m.base_lots_per_unit},
             {"ticksPerUsd", m.ticks_per_usd}});
      }
      json orders = json::array();
      if (perp) {
        for (const auto& [price, seq] : perp->open_orders) {
          orders.push_back({{"priceInTicks", std::to_string(price)},
                            {"orderSequenceNumber", std::to_string(seq)}});
        }
      }
      data = {{"trader", perp ? json{{"account", to_base58(perp->trader_account)},
                                     {"onboarded", perp->onboarded}}
                              : json(nullptr)},
              {"markets", markets},
              {"openOrders", perp ? orders : json(nullptr)},
              {"withdrawable", perp ? json(std::to_string(perp->collateral)) : json(nullptr)},
              {"account",
               perp ? json{{"collateral", std::to_string(perp->collateral)}} : json(nullptr)}};
    } else {
      return error_response(404, "NotFound", "unknown route");
    }
    return json_response(200, {{"vault", address}, {"data", data}}, true);
  }

  std::optional<std::string> query(const char* name) const {
    auto it = q_.query.find(name);
    return it == q_.query.end() ? std::nullopt : std::optional<std::string>(it->second);
  }

  Response quote() {
    json body;
    for (const auto& [k, v] : q_.query) body[k] = v;
    for (const char* field : {"vault", "inputMint", "outputMint", "amount", "slippageBps"}) {
      if (!body.contains(field))
        return error_response(400, "Validation", std::string(field) + ": is required");
    }
    auto access = vault_access(body["vault"]);
    if (auto* err = std::get_if<ApiError>(&access)) return error_response(*err);
    Vault& v = *std::get<Vault*>(access);
    auto in = public_key_from_base58(body["inputMint"].get<std::string>());
    auto out = public_key_from_base58(body["outputMint"].get<std::string>());
    if (!in.ok())
      return error_response(400, "Validation",
                            "inputMint: must be a base58 public key that decodes to 32 bytes");
    if (!out.ok())
      return error_response(400, "Validation",
                            "outputMint: must be a base58 public key that decodes to 32 bytes");
    const std::string amount_text = body["amount"];
    std::uint64_t amount = 0;
    auto [end, ec] =
        std::from_chars(amount_text.data(), amount_text.data() + amount_text.size(), amount);
    if (amount_text.empty() || amount_text.size() > 20 || ec != std::errc() ||
        end != amount_text.data() + amount_text.size()) {
      return error_response(400, "Validation", "amount: must be 1 to 20 decimal digits");
    }
    int bps = 0;
    const std::string bps_text = body["slippageBps"];
    auto [bend, bec] = std::from_chars(bps_text.data(), bps_text.data() + bps_text.size(), bps);
    if (bec != std::errc() || bend != bps_text.data() + bps_text.size() || bps < 1 || bps > 10000) {
      return error_response(400, "Validation", "slippageBps: must be 1 to 10000");
    }
    bps = std::min<int>(bps, v.max_slippage_bps);
    const Token* a = e_.world.token(*in);
    const Token* b = e_.world.token(*out);
    if (a == nullptr || b == nullptr)
      return error_response(404, "NotFound", "token does not exist");
    if (e_.faults.venue_failure) return error_response(502, "AggregatorQuoteFailed", "");
    const double usd =
        static_cast<double>(amount) / std::pow(10.0, a->decimals) * a->price_usd.value_or(0);
    const auto out_amount = static_cast<std::uint64_t>(usd / b->price_usd.value_or(1) *
                                                       std::pow(10.0, b->decimals) * 0.997);
    const bool direct = *in == v.deposit_mint || *out == v.deposit_mint;
    return json_response(200,
                         {{"vault", to_base58(v.address)},
                          {"data",
                           {{"inAmount", std::to_string(amount)},
                            {"outAmount", std::to_string(out_amount)},
                            {"priceImpactPct", "0.0010"},
                            {"routeLabels", direct ? json::array({"Whirlpool"})
                                                   : json::array({"Raydium", "Meteora DLMM"})},
                            {"slippageBps", bps}}}},
                         true);
  }

  Response pools() {
    const std::size_t page = query("page") ? std::strtoul(query("page")->c_str(), nullptr, 10) : 1;
    json list = json::array();
    const std::size_t from = (page == 0 ? 0 : page - 1) * 20;
    for (std::size_t i = from; i < e_.world.pools.size() && i < from + 20; ++i)
      list.push_back(pool_info(e_.world.pools[i]));
    return json_response(
        200, {{"pools", list}, {"page", page}, {"pageSize", 20}, {"total", e_.world.pools.size()}},
        true);
  }

  json pool_info(const Pool& p) const {
    return {{"lbPair", to_base58(p.lb_pair)},
            {"tokenX", token_info(*e_.world.token(p.token_x))},
            {"tokenY", token_info(*e_.world.token(p.token_y))},
            {"binStep", p.bin_step},
            {"activeBinId", p.active_bin_id}};
  }

  Response pool(const std::string& text) {
    auto address = public_key_from_base58(text);
    if (!address.ok())
      return error_response(400, "Validation",
                            "lbPair: must be a base58 public key that decodes to 32 bytes");
    if (auto vault = query("vault")) {
      auto access = vault_access(*vault);
      if (auto* err = std::get_if<ApiError>(&access)) return error_response(*err);
    }
    const Pool* p = e_.world.pool(*address);
    if (p == nullptr) return error_response(404, "NotFound", "pool does not exist");
    return json_response(200, {{"data", pool_info(*p)}}, true);
  }

  Response token(const std::string& text) {
    auto mint = public_key_from_base58(text);
    if (!mint.ok())
      return error_response(400, "Validation",
                            "mint: must be a base58 public key that decodes to 32 bytes");
    auto vault = query("vault");
    if (!vault) return error_response(400, "Validation", "vault: is required");
    auto access = vault_access(*vault);
    if (auto* err = std::get_if<ApiError>(&access)) return error_response(*err);
    const Token* t = e_.world.token(*mint);
    if (t == nullptr) return error_response(404, "NotFound", "mint does not exist");
    json data = token_info(*t);
    data["verified"] = t->verified;
    return json_response(200, {{"vault", *vault}, {"data", data}}, true);
  }

  ApiResult<json> parse_body() const {
    auto body = json::parse(q_.body, nullptr, false);
    if (body.is_discarded() || !body.is_object())
      return validation("body", "must be a JSON object");
    return body;
  }

  Response build_action_route(const std::string& action) {
    if (!is_builder_action(action)) return error_response(404, "NotFound", "unknown route");
    auto parsed = parse_body();
    if (auto* err = std::get_if<ApiError>(&parsed)) return error_response(*err);
    const json body = std::get<json>(parsed);
    if (body.contains("payer"))
      return error_response(400, "Validation",
                            "payer: must not be sent; the fee payer is always the key's manager");
    if (auto e = require_scope(action)) return error_response(*e);
    if (action == "vault/initialize") {
      if (key_->vaults)
        return error_response(403, "Forbidden",
                              "vault/initialize needs a key without a vault allowlist");
    } else {
      if (!body.contains("vault") || !body["vault"].is_string())
        return error_response(400, "Validation", "vault: is required");
      auto access = vault_access(body["vault"].get<std::string>());
      if (auto* err = std::get_if<ApiError>(&access)) return error_response(*err);
    }
    if (e_.faults.rpc_outage) return error_response(503, "RpcUnavailable", "");
    BuildContext ctx{e_, *key_, action, body};
    auto built = build_action(ctx);
    if (auto* err = std::get_if<ApiError>(&built)) return error_response(*err);
    auto& steps = std::get<std::vector<BuiltStep>>(built);
    ++e_.counters.builds;
    ++e_.counters.builds_by_action[action];
    json results = json::array();
    for (auto& step : steps) {
      Ticket t;
      t.key_id = key_->id;
      t.action = action;
      t.message_hash = sha256(serialize_message(step.tx.message));
      t.program = programs::key("AirLockVau1t1111111111111111111111111111111");
      t.expires_ms = e_.now_ms() + kTicketLifetimeMs;
      t.blockhash_slot = e_.slot();
      t.effect = step.effect;
      json s = step.metadata;
      s["transaction"] = to_base64(serialize_transaction(step.tx));
      s["simulation"] = {{"unitsConsumed", step.deferred ? 0 : step.units},
                         {"deferred", step.deferred}};
      s["ticket"] = e_.add_ticket(std::move(t));
      s["blockhash"] = to_base58(step.tx.message.recent_blockhash);
      if (steps.size() > 1 || step.send_concurrently)
        s["sendConcurrently"] = step.send_concurrently;
      if (step.next) s["next"] = {{"path", step.next->first}, {"body", step.next->second}};
      results.push_back(s);
    }
    const std::string vault = action == "vault/initialize"
                                  ? steps.front().metadata.value("vault", std::string())
                                  : body["vault"].get<std::string>();
    return json_response(
        200, {{"vault", vault}, {"result", results.size() == 1 ? results[0] : results}});
  }

  Response send(bool submit) {
    if (auto e = require_scope("send")) return error_response(*e);
    if (submit) {
      if (auto e = require_scope("perp/onboard")) return error_response(*e);
    }
    auto parsed = parse_body();
    if (auto* err = std::get_if<ApiError>(&parsed)) return error_response(*err);
    const json body = std::get<json>(parsed);
    for (const auto& [k, v] : body.items()) {
      if (k != "transaction" && k != "ticket")
        return error_response(400, "Validation",
                              k + ": not allowed; the body is exactly {transaction, ticket}");
    }
    if (!body.contains("transaction") || !body["transaction"].is_string())
      return error_response(400, "Validation", "transaction: is required, base64");
    if (!body.contains("ticket") || !body["ticket"].is_string())
      return error_response(400, "Validation", "ticket: is required");
    const std::string text = body["transaction"];
    if (text.size() > kMaxTransactionBase64)
      return error_response(400, "Validation", "transaction: at most 3000 base64 characters");
    auto wire = from_base64(text, kMaxTransactionBytes);
    if (!wire.ok())
      return error_response(400, "Validation", "transaction: " + wire.error().message());
    auto tx = parse_transaction(*wire);
    if (!tx.ok())
      return error_response(400, "Validation", "transaction: " + tx.error().to_string());
    if (tx->message.version != MessageVersion::kV0)
      return error_response(400, "Validation", "transaction: must be a version-0 transaction");

    const Ticket* ticket = e_.ticket(body["ticket"]);
    if (ticket == nullptr || ticket->key_id != key_->id)
      return error_response(403, "InvalidTicket",
                            "the ticket is unknown or belongs to another key");
    if (ticket->expires_ms <= e_.now_ms())
      return error_response(403, "InvalidTicket", "the ticket expired 90 seconds after the build");
    if ((ticket->action == "perp/onboard") != submit) {
      return error_response(403, "InvalidTicket",
                            submit
                                ? "this endpoint takes perp/onboard tickets only"
                                : "perp/onboard tickets go to /transactions/perp/onboard/submit");
    }
    if (auto e = require_scope(ticket->action)) return error_response(*e);
    if (sha256(serialize_message(tx->message)) != ticket->message_hash) {
      return error_response(403, "InvalidTransaction",
                            "the message differs from the one this ticket was built for");
    }
    if (tx->message.fee_payer() != key_->manager)
      return error_response(403, "InvalidTransaction", "the fee payer is not the key's manager");
    const auto checks = check_signatures(*tx);
    if (checks.front().state != SignatureState::kValid) {
      return error_response(403, "InvalidSignature",
                            "the manager's signature is missing or invalid");
    }
    auto venue = e_.derived_keypair("perp-venue", PublicKey{}, 0);
    for (const auto& check : checks) {
      if (check.state == SignatureState::kValid) continue;
      if (submit && check.signer == venue->public_key() && check.state == SignatureState::kEmpty)
        continue;
      return error_response(403, "InvalidSignature",
                            "signature of " + to_base58(check.signer) + " is missing or invalid");
    }
    // Identical signed bytes again: the same receipt; it lands once.
    if (Receipt* existing = e_.receipt_for_signature(tx->signatures.front())) {
      if (auto failed = relay_fault()) return *failed;
      return json_response(200, {{"signature", to_base58(existing->signature)},
                                 {"receipt", existing->id},
                                 {"status", existing->send_status}});
    }
    if (e_.slot() > ticket->blockhash_slot + static_cast<std::uint64_t>(kBlockhashSlots)) {
      return error_response(422, "SimulationFailed", "");
    }
    if (submit && e_.faults.venue_failure) return error_response(502, "PerpApi", "");
    if (e_.faults.preflight_reject) {
      const std::string code = *e_.faults.preflight_reject;
      e_.faults.preflight_reject.reset();
      return error_response(422, code, "");
    }
    if (submit) (void)sign_transaction(*tx, *venue);  // the venue co-signs and broadcasts
    ++e_.counters.sends;
    Receipt r;
    r.key_id = key_->id;
    r.signature = tx->signatures.front();
    r.fee_payer = tx->message.static_keys.front();
    r.action = ticket->action;
    r.sent_ms = e_.now_ms();
    r.land_ms = r.sent_ms + e_.options.confirm_delay_ms + e_.faults.extra_confirm_ms;
    r.blockhash_slot = ticket->blockhash_slot;
    r.effect = ticket->effect;
    if (e_.faults.next_landings.empty()) {
      r.landing = Landing::kLands;
    } else {
      r.landing = e_.faults.next_landings.front();
      e_.faults.next_landings.pop_front();
    }
    if (r.landing == Landing::kFails) {
      r.fail_code = e_.faults.fail_code;
      r.fail_message = "Transaction landed and failed: " + e_.faults.fail_code;
    }
    std::string status = "pending";
    if (e_.faults.rpc_outage || (submit && e_.faults.venue_mid_submit)) {
      status = "unknown";
      if (!e_.faults.unknown_lands) r.landing = Landing::kNever;
    }
    r.send_status = status;
    Receipt& stored = e_.add_receipt(std::move(r));
    if (auto failed = relay_fault()) return *failed;
    if (e_.faults.reply_about_another > 0) {
      --e_.faults.reply_about_another;
      // Another transaction's reply: a signature and receipt that are not this one's.
      const Hash other = sha256(Bytes(stored.id.begin(), stored.id.end()));
      Bytes other_signature(other.bytes.begin(), other.bytes.end());
      other_signature.insert(other_signature.end(), other.bytes.begin(), other.bytes.end());
      return json_response(200, {{"signature", to_base58(other_signature)},
                                 {"receipt", "rcpt-another-" + stored.id},
                                 {"status", status}});
    }
    return json_response(
        200,
        {{"signature", to_base58(stored.signature)}, {"receipt", stored.id}, {"status", status}});
  }

  // The answer a relay_then_fail fault puts in place of the receipt, after the relay.
  std::optional<Response> relay_fault() {
    if (e_.faults.relay_then_fail.empty()) return std::nullopt;
    const auto [failed, code] = e_.faults.relay_then_fail.front();
    e_.faults.relay_then_fail.pop_front();
    if (failed == 504) {  // the edge gave up waiting: its own page, not the API's envelope
      Response timeout;
      timeout.status = 504;
      timeout.body = "<html><body>504 Gateway Time-out</body></html>";
      timeout.headers.emplace_back("Content-Type", "text/html");
      return timeout;
    }
    // A code given with the status: the answer the spec words for it (a 422's one message, a
    // dead ticket's 403), as an API that relayed and then answered so would give.
    if (!code.empty())
      return error_response(
          failed, code,
          failed == 422 ? "Transaction rejected during simulation or preflight" : "ticket expired");
    return error_response(failed, failed == 503 ? "RpcUnavailable" : "Internal", "");
  }

  Response status() {
    if (auto e = require_scope("send")) return error_response(*e);
    auto id = query("receipt");
    if (!id) return error_response(400, "Validation", "receipt: is required");
    Receipt* r = e_.receipt(*id);
    if (r != nullptr && e_.faults.forget_receipts) e_.advance_receipt(*r);  // the chain goes on
    if (r == nullptr || r->key_id != key_->id || e_.faults.forget_receipts)
      return error_response(404, "NotFound",
                            "receipt is unknown, older than 24 hours, or another key's");
    e_.advance_receipt(*r);
    r->read = true;
    json out = {{"status", r->status}};
    if (r->status == "failed") {
      out["code"] = r->fail_code;
      out["message"] = r->fail_message;
    }
    if (e_.faults.status_says) {
      out = {{"status", *e_.faults.status_says}};
      if (*e_.faults.status_says == "failed")
        out.update({{"code", e_.faults.fail_code}, {"message", "said by a lying status"}});
    }
    return json_response(200, out);
  }

  Engine& e_;
  const Request& q_;
  const ApiKey* key_ = nullptr;
};

// ---- /_sim ----

// POST /_sim/faults: each switch the body names, set; the others as they were.
void set_faults(Faults& f, const json& body) {
  if (body.contains("rpcOutage")) f.rpc_outage = body["rpcOutage"];
  if (body.contains("rpcNoHistory")) f.rpc_no_history = body["rpcNoHistory"];
  if (body.contains("rpcNoAddressHistory")) f.rpc_no_address_history = body["rpcNoAddressHistory"];
  if (body.contains("forgetReceipts")) f.forget_receipts = body["forgetReceipts"];
  if (body.contains("keyLookupFailure")) f.key_lookup_failure = body["keyLookupFailure"];
  if (body.contains("venueFailure")) {
    f.venue_failure = body["venueFailure"].is_null()
                          ? std::nullopt
                          : std::optional<std::string>(body["venueFailure"].get<std::string>());
  }
  if (body.contains("preflightReject")) {
    f.preflight_reject =
        body["preflightReject"].is_null()
            ? std::nullopt
            : std::optional<std::string>(body["preflightReject"].get<std::string>());
  }
  const auto landing = [](const std::string& l) {
    return l == "fails" ? Landing::kFails : l == "never" ? Landing::kNever : Landing::kLands;
  };
  if (body.contains("nextLanding")) f.next_landings = {landing(body["nextLanding"])};
  if (body.contains("nextLandings")) {
    f.next_landings.clear();
    for (const auto& l : body["nextLandings"]) f.next_landings.push_back(landing(l));
  }
  if (body.contains("failCode")) f.fail_code = body["failCode"];
  if (body.contains("statusSays")) {
    f.status_says = body["statusSays"].is_null()
                        ? std::nullopt
                        : std::optional<std::string>(body["statusSays"].get<std::string>());
  }
  if (body.contains("extraConfirmMs")) f.extra_confirm_ms = body["extraConfirmMs"];
  if (body.contains("unknownLands")) f.unknown_lands = body["unknownLands"];
  if (body.contains("venueMidSubmit"))
    f.venue_mid_submit = body["venueMidSubmit"].is_boolean() && body["venueMidSubmit"].get<bool>();
  if (body.contains("replyAboutAnother")) f.reply_about_another = body["replyAboutAnother"];
  if (body.contains("relayThenFail")) {
    f.relay_then_fail.clear();
    // Each an HTTP status, or "STATUS CODE" ("422 SendFailed", "403 InvalidTicket").
    for (const auto& entry : body["relayThenFail"]) {
      if (entry.is_number_integer()) {
        f.relay_then_fail.emplace_back(entry.get<int>(), "");
      } else if (entry.is_string()) {
        const std::string text = entry.get<std::string>();
        const auto space = text.find(' ');
        f.relay_then_fail.emplace_back(std::atoi(text.substr(0, space).c_str()),
                                       space == std::string::npos ? "" : text.substr(space + 1));
      }
    }
  }
}

Response sim_control(Engine& e, const Request& q) {
  auto token = q.headers.find("x-sim-token");
  if (token == q.headers.end() || !constant_time_equal(token->second, e.options.control_token)) {
    return error_response(401, "Unauthorized", "x-sim-token: missing or wrong");
  }
  const auto parts = split_path(q.path);  // "_sim", ...
  json body = q.body.empty() ? json::object() : json::parse(q.body, nullptr, false);
  if (body.is_discarded() || !body.is_object())
    return error_response(400, "Validation", "body: must be a JSON object");
  if (q.method == "GET" && parts.size() == 2 && parts[1] == "counters") {
    json landed = json::object();
    for (const auto& [sig, n] : e.counters.landed_by_signature) landed[sig] = n;
    return json_response(200, {{"requests", e.counters.requests},
                               {"builds", e.counters.builds},
                               {"sends", e.counters.sends},
                               {"landed", e.counters.landed},
                               {"landedUnread", e.landed_unread()},
                               {"landedBySignature", landed},
                               {"buildsByAction", e.counters.builds_by_action},
                               {"slot", e.slot()},
                               {"nowMs", e.now_ms()}});
  }
  if (q.method != "POST") return error_response(404, "NotFound", "unknown control route");
  if (parts.size() == 2 && parts[1] == "clock") {
    e.clock_offset_ms += body.value("advanceMs", 0LL);
    return json_response(200, {{"nowMs", e.now_ms()}, {"slot", e.slot()}});
  }
  if (parts.size() == 2 && parts[1] == "faults") {
    set_faults(e.faults, body);
    return json_response(200, {{"ok", true}});
  }
  if (parts.size() == 3 && parts[1] == "keys") {
    for (auto& k : e.world.keys) {
      if (k.id != parts[2]) continue;
      if (body.contains("revoked")) k.revoked = body["revoked"];
      if (body.contains("actions")) k.actions = body["actions"].get<std::set<std::string>>();
      if (body.contains("expiresAt"))
        k.expires_ms =
            body["expiresAt"].is_null()
                ? std::nullopt
                : std::optional<std::int64_t>(body["expiresAt"].get<std::int64_t>() * 1000);
      if (body.contains("vaults")) {
        if (body["vaults"].is_null()) {
          k.vaults.reset();
        } else {
          std::vector<PublicKey> allow;
          for (const auto& v : body["vaults"])
            allow.push_back(public_key_from_base58(v.get<std::string>()).value());
          k.vaults = allow;
        }
      }
      return json_response(200, {{"ok", true}});
    }
    return error_response(404, "NotFound", "no such key");
  }
  if (parts.size() == 3 && parts[1] == "vaults") {
    auto address = public_key_from_base58(parts[2]);
    Vault* v = address.ok() ? e.world.vault(*address) : nullptr;
    if (v == nullptr) return error_response(404, "NotFound", "no such vault");
    if (body.contains("authority"))
      v->authority = public_key_from_base58(body["authority"].get<std::string>()).value();
    if (body.contains("paused")) v->paused = body["paused"];
    if (body.contains("balances")) {
      for (const auto& [mint, amount] : body["balances"].items()) {
        v->balances[public_key_from_base58(mint).value()] = std::stoull(amount.get<std::string>());
      }
    }
    return json_response(200, {{"ok", true}});
  }
  if (parts.size() == 3 && parts[1] == "pools") {
    for (auto& p : e.world.pools) {
      if (to_base58(p.lb_pair) != parts[2]) continue;
      if (body.contains("activeBinId")) p.active_bin_id = body["activeBinId"];
      return json_response(200, {{"ok", true}});
    }
    return error_response(404, "NotFound", "no such pool");
  }
  return error_response(404, "NotFound", "unknown control route");
}

// ---- /rpc: the few JSON-RPC methods a client needs for hints ----

Bytes lookup_table_account(const Engine& e, const std::vector<PublicKey>& addresses) {
  Bytes data;
  const auto le = [&](std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) data.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  le(1, 4);           // ProgramState::LookupTable
  le(UINT64_MAX, 8);  // deactivation_slot: active
  le(e.slot(), 8);    // last_extended_slot
  data.push_back(0);  // last_extended_slot_start_index
  data.push_back(0);  // authority: None (frozen table)
  data.insert(data.end(), 32, 0);
  le(0, 2);  // padding, to the 56-byte metadata
  for (const auto& a : addresses) data.insert(data.end(), a.bytes.begin(), a.bytes.end());
  return data;
}

// The twin's chain has one vote transaction a slot; its signature is the slot (8 bytes, little
// endian), the slot's blockhash and 24 zero bytes, so the node can tell its own votes apart.
Signature vote_signature(const Engine& e, std::uint64_t slot) {
  Signature s{};
  for (int i = 0; i < 8; ++i)
    s.bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(slot >> (8 * i));
  const Hash h = e.blockhash_for(slot);
  std::copy(h.bytes.begin(), h.bytes.end(), s.bytes.begin() + 8);
  return s;
}

// The slot whose vote `s` is, if it is one of a past slot.
std::optional<std::uint64_t> vote_slot(const Engine& e, const Signature& s) {
  std::uint64_t slot = 0;
  for (int i = 0; i < 8; ++i)
    slot |= std::uint64_t{s.bytes[static_cast<std::size_t>(i)]} << (8 * i);
  if (slot > e.slot() || vote_signature(e, slot) != s) return std::nullopt;
  return slot;
}

// The node's own state, for the methods that take no parameters that matter: nullopt for the
// others.
std::optional<json> chain_state(const Engine& e, const std::string& method) {
  if (method == "getSlot" || method == "getBlockHeight") return json(e.slot());
  if (method == "getEpochInfo") {  // one block a slot: the height is the slot
    constexpr std::uint64_t kSlotsInEpoch = 432'000;
    return json{{"absoluteSlot", e.slot()},          {"blockHeight", e.slot()},
                {"epoch", e.slot() / kSlotsInEpoch}, {"slotIndex", e.slot() % kSlotsInEpoch},
                {"slotsInEpoch", kSlotsInEpoch},     {"transactionCount", nullptr}};
  }
  if (method == "getHealth") return json("ok");
  if (method == "getGenesisHash") return json("AirLockTwinGenesis1111111111111111111111111");
  if (method == "minimumLedgerSlot") return json(0);  // the twin keeps its whole history
  return std::nullopt;
}

// getSignatureStatuses' value for `signatures`: each landed send's status (finalized), each vote
// of a past slot, null for the rest; nullopt when one is not a base58 signature.
std::optional<json> signature_statuses(Engine& e, const json& signatures) {
  json value = json::array();
  for (const auto& text : signatures) {
    auto signature = text.is_string() ? fixed_from_base58<64>(text.get<std::string>())
                                      : Result<Signature>(Error(ErrorCode::kUsage, ""));
    if (!signature.ok()) return std::nullopt;
    if (const auto vote = vote_slot(e, *signature)) {
      if (e.faults.rpc_no_history) {  // a node that keeps no transaction statuses
        value.push_back(nullptr);
        continue;
      }
      value.push_back({{"slot", *vote},
                       {"confirmations", nullptr},
                       {"err", nullptr},
                       {"confirmationStatus", "finalized"}});
      continue;
    }
    const Receipt* r = e.receipt_for_signature(*signature);
    if (r == nullptr || !r->landed || e.faults.rpc_no_history) {
      value.push_back(nullptr);
      continue;
    }
    value.push_back(
        {{"slot", e.slot()},
         {"confirmations", nullptr},
         {"err", r->landing == Landing::kLands ? json(nullptr)
                                               : json{{"InstructionError", {0, {{"Custom", 1}}}}}},
         {"confirmationStatus", "finalized"}});
  }
  return value;
}

// getSignaturesForAddress' result: the landed sends the address paid for, newest first, at
// most `limit` (1000 by default and at most); nullopt when the address is no base58 key.
std::optional<json> signatures_for_address(Engine& e, const json& params) {
  if (params.empty() || !params[0].is_string() ||
      !public_key_from_base58(params[0].get<std::string>()).ok())
    return std::nullopt;
  const PublicKey address = public_key_from_base58(params[0].get<std::string>()).value();
  std::size_t limit = 1000;
  if (params.size() > 1 && params[1].is_object() && params[1].contains("limit") &&
      params[1]["limit"].is_number_unsigned())
    limit = std::min<std::size_t>(params[1]["limit"].get<std::size_t>(), 1000);
  std::optional<std::string> before;
  if (params.size() > 1 && params[1].is_object() && params[1].contains("before") &&
      params[1]["before"].is_string())
    before = params[1]["before"].get<std::string>();
  std::vector<const Receipt*> landed;
  e.advance_receipts();
  if (e.faults.rpc_no_address_history) return json::array();
  for (const auto& entry : e.receipts()) {
    const Receipt& r = entry.second;
    if (r.landed && r.fee_payer == address) landed.push_back(&r);
  }
  std::sort(landed.begin(), landed.end(),
            [](const Receipt* a, const Receipt* b) { return a->landed_slot > b->landed_slot; });
  json out = json::array();
  bool past_before = !before;
  for (const Receipt* r : landed) {
    if (out.size() == limit) break;
    if (!past_before) {  // those older than `before` only
      past_before = to_base58(r->signature) == *before;
      continue;
    }
    out.push_back(
        {{"signature", to_base58(r->signature)},
         {"slot", r->landed_slot},
         {"err", r->landing == Landing::kLands ? json(nullptr)
                                               : json{{"InstructionError", {0, {{"Custom", 1}}}}}},
         {"memo", nullptr},
         {"blockTime", static_cast<std::int64_t>(r->landed_slot) * kSlotMs / 1000},
         {"confirmationStatus", "finalized"}});
  }
  return out;
}

Response rpc(Engine& e, const Request& q) {
  const json call = json::parse(q.body, nullptr, false);
  const json id = call.is_object() && call.contains("id") ? call["id"] : json(nullptr);
  const auto reply = [&](const json& result) {
    return json_response(200, {{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
  };
  const auto fail = [&](int code, const std::string& message) {
    return json_response(
        200, {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
  };
  if (!call.is_object() || !call.contains("method") || !call["method"].is_string())
    return fail(-32600, "Invalid request");
  if (e.faults.rpc_outage) return error_response(503, "RpcUnavailable", "");
  const std::string method = call["method"];
  const json context = {{"slot", e.slot()}};
  const json params =
      call.contains("params") && call["params"].is_array() ? call["params"] : json::array();
  if (auto state = chain_state(e, method)) return reply(*state);
  if (method == "isBlockhashValid") {
    if (params.empty() || !params[0].is_string())
      return fail(-32602, "Invalid params: expected [blockhash, {commitment}]");
    // Valid while the chain's slot is at most 150 past the blockhash's (as receipts expire).
    bool valid = false;
    const std::uint64_t now = e.slot();
    for (std::uint64_t s = now - std::min<std::uint64_t>(now, kBlockhashSlots); s <= now && !valid;
         ++s) {
      valid = to_base58(e.blockhash_for(s)) == params[0].get<std::string>();
    }
    return reply({{"context", context}, {"value", valid}});
  }
  if (method == "getSignatureStatuses") {
    if (params.empty() || !params[0].is_array() || params[0].size() > 256)
      return fail(-32602, "Invalid params: expected [[signature...], {searchTransactionHistory}]");
    auto value = signature_statuses(e, params[0]);
    if (!value) return fail(-32602, "Invalid param: not a base58 signature");
    return reply({{"context", context}, {"value", *value}});
  }
  if (method == "getBlock") {
    if (params.empty() || !params[0].is_number_unsigned())
      return fail(-32602, "Invalid params: expected [slot, {config}]");
    const std::uint64_t slot = params[0].get<std::uint64_t>();
    if (slot > e.slot())
      return fail(-32004, "Block not available for slot " + std::to_string(slot));
    return reply({{"blockhash", to_base58(e.blockhash_for(slot))},
                  {"parentSlot", slot == 0 ? 0 : slot - 1},
                  {"blockHeight", slot},
                  {"signatures", {to_base58(vote_signature(e, slot).bytes)}}});
  }
  if (method == "getSignaturesForAddress") {
    auto listed = signatures_for_address(e, params);
    if (!listed) return fail(-32602, "Invalid param: not a base58 address");
    return reply(*listed);
  }
  if (method == "getBlocks") {  // every slot holds a block here: none is skipped
    if (params.empty() || !params[0].is_number_unsigned() ||
        (params.size() > 1 && !params[1].is_number_unsigned() && !params[1].is_object()))
      return fail(-32602, "Invalid params: expected [start_slot, end_slot?, {config}]");
    const std::uint64_t start = params[0].get<std::uint64_t>();
    std::uint64_t end = params.size() > 1 && params[1].is_number_unsigned()
                            ? params[1].get<std::uint64_t>()
                            : e.slot();
    end = std::min(end, e.slot());
    if (end >= start && end - start > 500'000)
      return fail(-32602, "Slot range too large; max 500000");
    json slots = json::array();
    for (std::uint64_t slot = start; slot <= end && end >= start; ++slot) slots.push_back(slot);
    return reply(slots);
  }
  if (method == "getBlockTime") {  // a slot's time is when the twin's clock reached it
    if (params.empty() || !params[0].is_number_unsigned())
      return fail(-32602, "Invalid params: expected [slot]");
    const std::uint64_t slot = params[0].get<std::uint64_t>();
    if (slot > e.slot())
      return fail(-32004, "Block not available for slot " + std::to_string(slot));
    return reply(json(static_cast<std::int64_t>(slot) * kSlotMs / 1000));
  }
  if (method == "getLatestBlockhash") {
    return reply({{"context", context},
                  {"value",
                   {{"blockhash", to_base58(e.blockhash_for(e.slot()))},
                    {"lastValidBlockHeight", e.slot() + kBlockhashSlots}}}});
  }
  if (method == "getAccountInfo") {
    if (!call.contains("params") || !call["params"].is_array() || call["params"].empty() ||
        !call["params"][0].is_string()) {
      return fail(-32602, "Invalid params: expected [address, {encoding}]");
    }
    auto address = public_key_from_base58(call["params"][0].get<std::string>());
    if (!address.ok()) return fail(-32602, "Invalid param: not a base58 public key");
    auto table = e.lookup_tables.find(*address);
    if (table == e.lookup_tables.end()) return reply({{"context", context}, {"value", nullptr}});
    const Bytes data = lookup_table_account(e, table->second);
    return reply({{"context", context},
                  {"value",
                   {{"data", {to_base64(data), "base64"}},
                    {"executable", false},
                    {"lamports", 2039280},
                    {"owner", std::string(programs::kAddressLookupTable)},
                    {"rentEpoch", 0},
                    {"space", data.size()}}}});
  }
  return fail(-32601, "Method not found");
}

}  // namespace

Response Engine::handle(const Request& q) {
  ++counters.requests;
  advance_receipts();
  drop_expired();
  if (starts_with(q.path, "/_sim/")) return sim_control(*this, q);
  if (q.path == "/rpc" && q.method == "POST") return rpc(*this, q);
  if (!starts_with(q.path, kApiPrefix)) return error_response(404, "NotFound", "unknown route");
  Response r = Api(*this, q).handle();
  // Reads carry Cache-Control: no-store (spec 4.11), their error replies too: a cache in
  // between must not keep an answer about money.
  if (q.method == "GET" && std::none_of(r.headers.begin(), r.headers.end(),
                                        [](const auto& h) { return h.first == "Cache-Control"; })) {
    r.headers.emplace_back("Cache-Control", "no-store");
  }
  // Every reply says when it was made, by the twin's clock (RFC 9110 6.6.1), as an HTTP
  // server does: the client's second opinion on a build's time.
  if (std::none_of(r.headers.begin(), r.headers.end(),
                   [](const auto& h) { return h.first == "Date"; })) {
    const std::time_t at = static_cast<std::time_t>(now_ms() / 1000);
    std::tm utc{};
    gmtime_r(&at, &utc);
    char text[40];
    std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &utc);
    r.headers.emplace_back("Date", text);
  }
  return r;
}

Service::Service(World world, ServiceOptions options)
    : engine_(std::make_unique<Engine>(std::move(world), std::move(options))) {}

Service::~Service() = default;

Response Service::handle(const Request& request) {
  std::lock_guard lock(mutex_);
  return engine_->handle(request);
}

}  // namespace airlock::apisim
