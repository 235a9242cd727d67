#include <algorithm>
#include <optional>

#include <airlock/common/accounts.h>
#include <airlock/common/bytes.h>
#include <airlock/common/display.h>
#include <airlock/formats/json_fields.h>
#include <airlock/online/api.h>
#include <airlock/online/round.h>

namespace airlock::online {
namespace {

Error mismatch(const std::string& what) {
  return Error(online::errors::kResponseMismatch, "sign response: " + what);
}

// Every table the steps load, fetched once from the RPC node.
Result<std::vector<envelope::LookupTableHint>> table_hints(const std::vector<Transaction>& txs,
                                                           const std::string& rpc_url) {
  std::vector<envelope::LookupTableHint> hints;
  for (const auto& tx : txs) {
    for (const auto& lookup : tx.message.lookups) {
      if (std::any_of(hints.begin(), hints.end(),
                      [&](const auto& h) { return h.table == lookup.table; }))
        continue;
      AIRLOCK_TRY(result,
                  rpc_call(rpc_url, "getAccountInfo",
                           json::array({to_base58(lookup.table), {{"encoding", "base64"}}})));
      if (!result.is_object() || !result.contains("value") || result["value"].is_null()) {
        return Error(online::errors::kHttp,
                     "lookup table " + to_base58(lookup.table) + " does not exist on the RPC node");
      }
      const json& data = result["value"]["data"];
      if (!data.is_array() || data.size() != 2 || !data[0].is_string()) {
        return Error(online::errors::kHttp,
                     "lookup table " + to_base58(lookup.table) + ": unexpected account data shape");
      }
      AIRLOCK_TRY(bytes, from_base64(data[0].get<std::string>(), 56 + 256 * 32));
      AIRLOCK_TRY(account, parse_lookup_table_account(bytes));
      envelope::LookupTableHint hint{lookup.table, {}};
      for (std::size_t i = 0; i < account.addresses.size(); ++i) {
        hint.entries.emplace_back(static_cast<std::uint8_t>(i), account.addresses[i]);
      }
      hints.push_back(std::move(hint));
    }
  }
  return hints;
}

struct BlockhashLife {
  std::int64_t seconds = 0;  // blocks left at 400 ms (exact only)
  std::uint64_t last_valid_block_height = 0;
  bool exact = false;  // the node's newest blockhash is the build's: the height is its own
};

// A blockhash's last valid block height (or a bound above it) and, when it is the node's
// newest, its life left. Nothing when the node has not seen it or does not say.
std::optional<BlockhashLife> blockhash_life(const std::string& rpc_url, const Hash& blockhash) {
  // First whether the node has seen the build's blockhash at all: only then is its newest
  // blockhash, asked after, at least as new, and that one's last valid height a bound above the
  // build's (a node behind would give a bound below it, and a proof of death too early).
  auto seen = rpc_call(rpc_url, "isBlockhashValid",
                       json::array({to_base58(blockhash), {{"commitment", "processed"}}}));
  if (!seen.ok() || !seen->is_object() || !seen->contains("value") || (*seen)["value"] != true)
    return std::nullopt;
  auto latest =
      rpc_call(rpc_url, "getLatestBlockhash", json::array({{{"commitment", "processed"}}}));
  auto height = rpc_call(rpc_url, "getBlockHeight", json::array({{{"commitment", "processed"}}}));
  if (!latest.ok() || !height.ok() || !height->is_number_unsigned()) return std::nullopt;
  // And the newest blockhash from a view at least as new as the one that saw the build's: an
  // endpoint spread over backends may answer each call from another, and one behind would give
  // an older blockhash whose height is below the build's (found by an independent fault review:
  // a bound under the build's own height, a landed send proven dead, the intent landed twice).
  const auto context_slot = [](const json& reply) -> std::optional<std::uint64_t> {
    if (!reply.is_object() || !reply.contains("context") || !reply["context"].is_object() ||
        !reply["context"].contains("slot") || !reply["context"]["slot"].is_number_unsigned())
      return std::nullopt;
    return reply["context"]["slot"].get<std::uint64_t>();
  };
  const auto seen_at = context_slot(*seen), latest_at = context_slot(*latest);
  if (!seen_at || !latest_at || *latest_at < *seen_at) return std::nullopt;
  const json* value =
      latest->is_object() && latest->contains("value") ? &(*latest)["value"] : nullptr;
  if (value == nullptr || !value->is_object() || !value->contains("lastValidBlockHeight") ||
      !(*value)["lastValidBlockHeight"].is_number_unsigned()) {
    return std::nullopt;
  }
  const auto last = (*value)["lastValidBlockHeight"].get<std::uint64_t>();
  const auto now = height->get<std::uint64_t>();
  // The life left is measured only for the newest blockhash itself; for an older one the bound
  // says nothing of how soon it dies.
  const bool exact = json_fields::text(*value, "blockhash") == to_base58(blockhash);
  const std::int64_t seconds =
      !exact || last <= now
          ? 0
          : static_cast<std::int64_t>(std::min<std::uint64_t>(last - now, 1000) * 2 / 5);
  return BlockhashLife{seconds, last, exact};
}

// A build step's optional fields (sendConcurrently, simulation, next) into `s`. Every field is
// type-checked: a reply of the wrong shape is refused by rule, never thrown (found by the
// api_response fuzz target).
Status read_step_fields(const json& step, const std::string& where, envelope::Step& s) {
  if (step.contains("sendConcurrently")) {
    if (!step["sendConcurrently"].is_boolean())
      return Error(online::errors::kHttp, where + "sendConcurrently must be true or false");
    s.send_concurrently = step["sendConcurrently"].get<bool>();
  }
  if (step.contains("simulation")) {
    const json& simulation = step["simulation"];
    if (!simulation.is_object())
      return Error(online::errors::kHttp, where + "simulation must be an object");
    if (simulation.contains("deferred")) {
      if (!simulation["deferred"].is_boolean())
        return Error(online::errors::kHttp, where + "simulation.deferred must be true or false");
      s.deferred = simulation["deferred"].get<bool>();
    }
    if (simulation.contains("unitsConsumed") && simulation["unitsConsumed"].is_number_unsigned())
      s.units_consumed = simulation["unitsConsumed"].get<std::uint64_t>();
  }
  if (step.contains("next")) {
    const json& next = step["next"];
    if (!next.is_object() || !next.contains("path") || !next["path"].is_string() ||
        !next.contains("body") || !next["body"].is_object()) {
      return Error(online::errors::kHttp, where + "next must be {path: string, body: object}");
    }
    s.next_action = next["path"].get<std::string>();
  }
  return {};
}

// The vault is the manager's, from the body they wrote: a reply naming another vault is the API
// steering the signature elsewhere, and is refused. Only vault/initialize, whose body names no
// vault, takes the new vault from the reply.
Result<PublicKey> vault_of(const std::string& action, const json& body, const json& build_reply) {
  const auto vault_in = [](const json& source,
                           const char* what) -> Result<std::optional<PublicKey>> {
    if (!source.is_object() || !source.contains("vault")) return std::optional<PublicKey>();
    if (!source["vault"].is_string())
      return Error(online::errors::kHttp, std::string(what) + ": vault must be a base58 string");
    auto key = public_key_from_base58(source["vault"].get<std::string>());
    if (!key.ok())
      return Error(online::errors::kHttp, std::string(what) + ": vault: " + key.error().message());
    return std::optional<PublicKey>(*key);
  };
  AIRLOCK_TRY(asked, vault_in(body, "build request"));
  AIRLOCK_TRY(replied, vault_in(build_reply, "build reply"));
  if (action == "vault/initialize") {
    if (!replied)
      return Error(online::errors::kHttp, "build reply: vault/initialize names no vault");
    return *replied;
  }
  if (!asked) return Error(ErrorCode::kUsage, "the build request body names no vault");
  if (replied && *replied != *asked) {
    return Error(online::errors::kHttp, "build reply: vault " + to_base58(*replied) +
                                            " is not the vault the request names (" +
                                            to_base58(*asked) + "); nothing is signed for it");
  }
  return *asked;
}

}  // namespace

Result<Round> prepare_round(const std::string& action, const json& body, const json& build_reply,
                            const std::optional<std::string>& rpc_url, std::int64_t built_at) {
  if (!build_reply.is_object() || !build_reply.contains("result"))
    return Error(online::errors::kHttp, "build reply has no result");
  Round round;
  round.action = action;
  round.body = body;
  const json& result = build_reply["result"];
  round.steps = result.is_array() ? result.get<std::vector<json>>() : std::vector<json>{result};
  if (round.steps.empty() || round.steps.size() > envelope::kMaxSteps) {
    return Error(online::errors::kHttp, "build reply has " + std::to_string(round.steps.size()) +
                                            " steps; 1 to 32 can be signed");
  }
  envelope::SignRequest& q = round.request;
  q.request_id = envelope::random_request_id();
  q.created_at = static_cast<std::uint64_t>(built_at);
  q.action = action;
  q.intent_json = body.dump();
  for (std::size_t i = 0; i < round.steps.size(); ++i) {
    const json& step = round.steps[i];
    if (!step.is_object() || !step.contains("transaction") || !step["transaction"].is_string() ||
        !step.contains("ticket") || !step["ticket"].is_string()) {
      return Error(online::errors::kHttp,
                   "build step " + std::to_string(i + 1) + " lacks its transaction or ticket");
    }
    AIRLOCK_TRY(wire, from_base64(step["transaction"].get<std::string>(), kMaxTransactionBytes));
    AIRLOCK_TRY(tx, parse_transaction(wire));
    if (i == 0) q.manager = tx.message.fee_payer();
    envelope::Step s;
    s.transaction = std::move(wire);
    const std::string where = "build step " + std::to_string(i + 1) + ": ";
    AIRLOCK_CHECK(read_step_fields(step, where, s));
    q.steps.push_back(std::move(s));
    round.transactions.push_back(std::move(tx));
  }
  AIRLOCK_TRY(vault, vault_of(action, body, build_reply));
  q.vault = vault;
  if (rpc_url) {
    AIRLOCK_TRY(hints, table_hints(round.transactions, *rpc_url));
    q.hints.lookup_tables = std::move(hints);
    if (auto life = blockhash_life(*rpc_url, round.transactions.front().message.recent_blockhash)) {
      if (life->exact) {
        round.blockhash_seconds = std::min(life->seconds, kBlockhashSeconds);
        round.blockhash_measured = true;
      }
      round.last_valid_block_height = life->last_valid_block_height;
    }
    auto slot = rpc_call(*rpc_url, "getSlot", json::array({{{"commitment", "finalized"}}}));
    if (slot.ok() && slot->is_number_unsigned()) round.node_build_slot = slot->get<std::uint64_t>();
    auto genesis = rpc_call(*rpc_url, "getGenesisHash", json::array());
    if (genesis.ok() && genesis->is_string()) round.node_genesis_hash = genesis->get<std::string>();
  }
  q.deadline = static_cast<std::uint64_t>(
      built_at + std::min(kTicketSeconds, round.blockhash_seconds) - kSendMarginSeconds);
  return round;
}

namespace {

// A token hint from a TokenInfo-like object (symbol, decimals, name), or nothing when a field
// is missing, mistyped or too long for the envelope (left out rather than cut mid-character).
std::optional<envelope::TokenHint> token_hint(const PublicKey& mint, const json& d) {
  if (!d.is_object() || !d.contains("symbol") || !d["symbol"].is_string() ||
      !d.contains("decimals") || !d["decimals"].is_number_unsigned() ||
      d["decimals"].get<std::uint64_t>() > 255) {
    return std::nullopt;
  }
  envelope::TokenHint hint;
  hint.mint = mint;
  hint.symbol = d["symbol"].get<std::string>();
  if (hint.symbol.empty() || hint.symbol.size() > envelope::kMaxHintTextChars) return std::nullopt;
  hint.decimals = static_cast<std::uint8_t>(d["decimals"].get<std::uint64_t>());
  if (d.contains("name") && d["name"].is_string() && !d["name"].get<std::string>().empty() &&
      d["name"].get<std::string>().size() <= envelope::kMaxHintTextChars) {
    hint.name = d["name"].get<std::string>();
  }
  return hint;
}

void add_token(Round& round, envelope::TokenHint hint) {
  auto& tokens = round.request.hints.tokens;
  if (tokens.size() >= envelope::kMaxTokenHints) return;
  for (const auto& t : tokens)
    if (t.mint == hint.mint) return;
  tokens.push_back(std::move(hint));
}

// The pool a DLMM action works on: the body's lbPair, or the pool of the position or limit
// order it names, as the vault's strategies list it.
std::optional<std::string> pool_of(ApiClient& client, const json& body, const std::string& vault) {
  if (const std::string pair = json_fields::text(body, "lbPair"); !pair.empty()) return pair;
  std::string position = json_fields::text(body, "position");
  if (position.empty()) position = json_fields::text(body, "limitOrder");
  if (position.empty()) return std::nullopt;
  auto reply = client.get("/vaults/" + vault + "/strategies");
  if (!reply.ok() || reply->failure || !reply->body.contains("data") ||
      !reply->body["data"].is_array()) {
    return std::nullopt;
  }
  for (const auto& s : reply->body["data"]) {
    if (json_fields::text(s, "position") == position) {
      const std::string pair = json_fields::text(s, "lbPair");
      if (!pair.empty()) return pair;
    }
  }
  return std::nullopt;
}

// For a DLMM action, which mints are the pool's token X and Y (GET /dlmm/pools/{lbPair}), as a
// pool hint, with both tokens' symbols and decimals.
void add_pool_hint(ApiClient& client, Round& round, const std::string& vault) {
  if (round.action.rfind("dlmm/", 0) != 0) return;
  const auto pair = pool_of(client, round.body, vault);
  if (!pair) return;
  const auto pool = public_key_from_base58(*pair);
  if (!pool.ok()) return;
  auto reply = client.get("/dlmm/pools/" + *pair + "?vault=" + vault);
  if (!reply.ok() || reply->failure || !reply->body.contains("data")) return;
  const json& d = reply->body["data"];
  if (!d.is_object() || !d.contains("tokenX") || !d.contains("tokenY")) return;
  const auto x = public_key_from_base58(json_fields::text(d["tokenX"], "mint"));
  const auto y = public_key_from_base58(json_fields::text(d["tokenY"], "mint"));
  if (!x.ok() || !y.ok() || *x == *y) return;
  round.request.hints.pools.push_back({*pool, *x, *y});
  if (auto hint = token_hint(*x, d["tokenX"])) add_token(round, std::move(*hint));
  if (auto hint = token_hint(*y, d["tokenY"])) add_token(round, std::move(*hint));
}

}  // namespace

void add_token_hints(ApiClient& client, Round& round) {
  std::vector<std::string> mints;
  const auto note = [&](const json& v) {
    if (v.is_string() && std::find(mints.begin(), mints.end(), v.get<std::string>()) == mints.end())
      mints.push_back(v.get<std::string>());
  };
  for (const auto& [field, value] : round.body.items()) {
    if (field == "mint" || (field.size() > 4 && field.compare(field.size() - 4, 4, "Mint") == 0))
      note(value);
  }
  if (round.body.contains("sources") && round.body["sources"].is_array()) {
    for (const auto& source : round.body["sources"]) {
      if (source.is_object() && source.contains("mint")) note(source["mint"]);
    }
  }
  const std::string vault = to_base58(round.request.vault);
  for (const auto& mint : mints) {
    if (mints.size() > envelope::kMaxTokenHints || !public_key_from_base58(mint).ok()) continue;
    auto reply = client.get("/tokens/" + mint + "?vault=" + vault);
    if (!reply.ok() || reply->failure || !reply->body.contains("data")) continue;
    if (auto hint = token_hint(public_key_from_base58(mint).value(), reply->body["data"]))
      add_token(round, std::move(*hint));
  }
  add_pool_hint(client, round, vault);
}

Result<Answer> apply_response(const Round& round, const envelope::SignResponse& response,
                              std::int64_t now_unix) {
  const envelope::SignRequest& q = round.request;
  if (response.request_id != q.request_id) return mismatch("it answers another request id");
  if (response.signer != q.manager) {
    // Only signatures are signed: a refusal names its key but proves nothing, and what it says
    // is shown as its (escaped) words, for the operator to see why the other key's machine said
    // no.
    std::string what = "it names the key " + to_base58(response.signer) + ", not the manager " +
                       to_base58(q.manager) +
                       " (the offline half holds another keystore, or the answer is not "
                       "from this manager's machine)";
    if (const auto* refusal = std::get_if<envelope::Refusal>(&response.result))
      what += "; it refuses: " + printable(envelope::describe(*refusal));
    return mismatch(what);
  }
  Answer answer;
  if (const auto* refusal = std::get_if<envelope::Refusal>(&response.result)) {
    answer.refusal = *refusal;
    return answer;
  }
  if (now_unix > static_cast<std::int64_t>(q.deadline)) {
    return Error(online::errors::kResponseLate,
                 "the signatures arrived " +
                     std::to_string(now_unix - static_cast<std::int64_t>(q.deadline)) +
                     " s after the request's deadline; its tickets expire " +
                     std::to_string(kSendMarginSeconds) +
                     " s after it, too close to send: build again");
  }
  const auto* signed_steps = std::get_if<std::vector<Signature>>(&response.result);
  if (signed_steps == nullptr)
    return mismatch("it is an approval, which answers an approval request, not a sign request");
  const auto& signatures = *signed_steps;
  if (signatures.size() != round.transactions.size()) {
    return mismatch(std::to_string(signatures.size()) + " signatures for " +
                    std::to_string(round.transactions.size()) + " steps");
  }
  for (std::size_t i = 0; i < signatures.size(); ++i) {
    Transaction tx = round.transactions[i];
    // Signing keeps the signatures already there (spec 4.15.7); the manager's goes in slot 0.
    tx.signatures[0] = signatures[i];
    const auto checks = check_signatures(tx);
    if (checks[0].state != SignatureState::kValid) {
      return mismatch("the signature for step " + std::to_string(i + 1) +
                      " does not verify against its message");
    }
    for (std::size_t k = 1; k < checks.size(); ++k) {
      if (checks[k].state == SignatureState::kInvalid) {
        return mismatch("step " + std::to_string(i + 1) + " carries an invalid signature of " +
                        to_base58(checks[k].signer));
      }
    }
    answer.signed_transactions.push_back(std::move(tx));
  }
  return answer;
}

}  // namespace airlock::online
