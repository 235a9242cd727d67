#include <nlohmann/json.hpp>
#include <sodium.h>

#include <airlock/common/hash.h>
#include <airlock/common/secret.h>
#include <airlock/formats/envelope.h>
#include <airlock/formats/keystone.h>

#include "cbor_fields.h"

namespace airlock::envelope {
namespace {

using cbor::FieldReader;
using cbor::Value;

// CBOR map keys (docs/envelope.md).
namespace key {
constexpr std::uint64_t kVersion = 0;
// SignRequest
constexpr std::uint64_t kRequestId = 1;
constexpr std::uint64_t kCreatedAt = 2;
constexpr std::uint64_t kDeadline = 3;
constexpr std::uint64_t kManager = 4;
constexpr std::uint64_t kVault = 5;
constexpr std::uint64_t kAction = 6;
constexpr std::uint64_t kIntent = 7;
constexpr std::uint64_t kSteps = 8;
constexpr std::uint64_t kHints = 9;
constexpr std::uint64_t kApproval = 10;  // an approval request: true, and no steps
// Step
constexpr std::uint64_t kTransaction = 1;
constexpr std::uint64_t kSendConcurrently = 2;
constexpr std::uint64_t kDeferred = 3;
constexpr std::uint64_t kUnitsConsumed = 4;
constexpr std::uint64_t kNextAction = 5;
// Hints
constexpr std::uint64_t kLookupTables = 1;
constexpr std::uint64_t kTokens = 2;
constexpr std::uint64_t kPools = 3;
constexpr std::uint64_t kTable = 1;
constexpr std::uint64_t kEntries = 2;
constexpr std::uint64_t kMint = 1;
constexpr std::uint64_t kSymbol = 2;
constexpr std::uint64_t kDecimals = 3;
constexpr std::uint64_t kName = 4;
constexpr std::uint64_t kPool = 1;
constexpr std::uint64_t kTokenX = 2;
constexpr std::uint64_t kTokenY = 3;
// SignResponse (1 is the request id, as in the request)
constexpr std::uint64_t kSigner = 2;
constexpr std::uint64_t kSignatures = 3;
constexpr std::uint64_t kRefusal = 4;
constexpr std::uint64_t kAuditHead = 5;
constexpr std::uint64_t kApproved = 6;
constexpr std::uint64_t kIntentHash = 1;
constexpr std::uint64_t kExpiresAt = 2;
constexpr std::uint64_t kCode = 1;
constexpr std::uint64_t kReason = 2;
}  // namespace key

constexpr cbor::DecodeLimits kRequestLimits{kMaxRequestBytes, kMaxDepth, 16384};
constexpr cbor::DecodeLimits kResponseLimits{kMaxResponseBytes, kMaxDepth, 256};

Value uint_value(std::uint64_t v) { return Value::unsigned_int(v); }
Value bytes_value(ByteView b) { return Value::bytes(b); }
template <std::size_t N>
Value fixed_value(const FixedBytes<N>& f) {
  return Value::bytes(f.view());
}
Value entry_key(std::uint64_t k) { return Value::unsigned_int(k); }

std::string indexed(const std::string& base, std::size_t i) {
  return base + "[" + std::to_string(i) + "]";
}

Result<const std::vector<Value>*> require_array(const FieldReader& r, std::uint64_t k,
                                                const char* name, std::size_t min,
                                                std::size_t max) {
  AIRLOCK_TRY(v, r.require(k, name, Value::Kind::kArray));
  const std::size_t n = v->items().size();
  if (n < min || n > max) {
    return cbor::bad_value(r.field(name), "must hold " + std::to_string(min) + " to " +
                                              std::to_string(max) + " items, got " +
                                              std::to_string(n));
  }
  return &v->items();
}

Status check_version(const FieldReader& r) {
  AIRLOCK_TRY(version, r.require(key::kVersion, "version", Value::Kind::kUnsigned));
  if (version->number() != kVersion) {
    return Error(envelope::errors::kVersion,
                 r.field("version") + ": version " + std::to_string(version->number()) +
                     " is not supported; this build reads version " + std::to_string(kVersion));
  }
  return {};
}

Result<RequestId> require_request_id(const FieldReader& r) {
  AIRLOCK_TRY(bytes,
              r.require_bytes(key::kRequestId, "request_id", kRequestIdBytes, kRequestIdBytes));
  RequestId id{};
  std::copy(bytes.begin(), bytes.end(), id.begin());
  return id;
}

// ---- steps ----

Value encode_step(const Step& s) {
  std::vector<Value::Entry> e;
  e.emplace_back(entry_key(key::kTransaction), bytes_value(s.transaction));
  e.emplace_back(entry_key(key::kSendConcurrently), Value::boolean(s.send_concurrently));
  e.emplace_back(entry_key(key::kDeferred), Value::boolean(s.deferred));
  if (s.units_consumed)
    e.emplace_back(entry_key(key::kUnitsConsumed), uint_value(*s.units_consumed));
  if (s.next_action) e.emplace_back(entry_key(key::kNextAction), Value::text(*s.next_action));
  return Value::map(std::move(e));
}

Result<Step> decode_step(const Value& v, const std::string& path) {
  FieldReader r(v, path);
  AIRLOCK_CHECK(r.check_keys({{key::kTransaction, "transaction"},
                              {key::kSendConcurrently, "send_concurrently"},
                              {key::kDeferred, "deferred"},
                              {key::kUnitsConsumed, "units_consumed"},
                              {key::kNextAction, "next_action"}}));
  Step s;
  AIRLOCK_TRY(tx, r.require_bytes(key::kTransaction, "transaction", 1, kMaxTransactionBytes));
  s.transaction = std::move(tx);
  AIRLOCK_TRY(concurrently, r.require_bool(key::kSendConcurrently, "send_concurrently"));
  s.send_concurrently = concurrently;
  AIRLOCK_TRY(deferred, r.require_bool(key::kDeferred, "deferred"));
  s.deferred = deferred;
  if (r.get(key::kUnitsConsumed) != nullptr) {
    // The ledger's per-transaction compute limit is 1.4 million units.
    AIRLOCK_TRY(units, r.require_uint(key::kUnitsConsumed, "units_consumed", 1'400'000));
    s.units_consumed = units;
  }
  if (r.get(key::kNextAction) != nullptr) {
    AIRLOCK_TRY(next, r.require_text(key::kNextAction, "next_action", 1, kMaxActionChars));
    s.next_action = std::move(next);
  }
  return s;
}

// ---- hints ----

Value encode_hints(const Hints& h) {
  std::vector<Value::Entry> e;
  if (!h.lookup_tables.empty()) {
    std::vector<Value> tables;
    for (const auto& t : h.lookup_tables) {
      std::vector<Value> entries;
      for (const auto& [index, address] : t.entries) {
        entries.push_back(Value::array({uint_value(index), fixed_value(address)}));
      }
      tables.push_back(Value::map({{entry_key(key::kTable), fixed_value(t.table)},
                                   {entry_key(key::kEntries), Value::array(std::move(entries))}}));
    }
    e.emplace_back(entry_key(key::kLookupTables), Value::array(std::move(tables)));
  }
  if (!h.tokens.empty()) {
    std::vector<Value> tokens;
    for (const auto& t : h.tokens) {
      std::vector<Value::Entry> te;
      te.emplace_back(entry_key(key::kMint), fixed_value(t.mint));
      te.emplace_back(entry_key(key::kSymbol), Value::text(t.symbol));
      te.emplace_back(entry_key(key::kDecimals), uint_value(t.decimals));
      if (t.name) te.emplace_back(entry_key(key::kName), Value::text(*t.name));
      tokens.push_back(Value::map(std::move(te)));
    }
    e.emplace_back(entry_key(key::kTokens), Value::array(std::move(tokens)));
  }
  if (!h.pools.empty()) {
    std::vector<Value> pools;
    for (const auto& p : h.pools) {
      pools.push_back(Value::map({{entry_key(key::kPool), fixed_value(p.pool)},
                                  {entry_key(key::kTokenX), fixed_value(p.token_x)},
                                  {entry_key(key::kTokenY), fixed_value(p.token_y)}}));
    }
    e.emplace_back(entry_key(key::kPools), Value::array(std::move(pools)));
  }
  return Value::map(std::move(e));
}

Result<LookupTableHint> decode_lookup_hint(const Value& v, const std::string& path) {
  FieldReader r(v, path);
  AIRLOCK_CHECK(r.check_keys({{key::kTable, "table"}, {key::kEntries, "entries"}}));
  LookupTableHint h;
  AIRLOCK_TRY(table, r.require_fixed<32>(key::kTable, "table"));
  h.table = table;
  AIRLOCK_TRY(entries, require_array(r, key::kEntries, "entries", 1, kMaxLookupEntries));
  for (std::size_t i = 0; i < entries->size(); ++i) {
    const std::string field = indexed(r.field("entries"), i);
    const Value& pair = (*entries)[i];
    if (pair.kind() != Value::Kind::kArray || pair.items().size() != 2 ||
        pair.items()[0].kind() != Value::Kind::kUnsigned ||
        pair.items()[1].kind() != Value::Kind::kBytes) {
      return cbor::bad_value(field, "must be [index, 32-byte address]");
    }
    const auto& index = pair.items()[0];
    const auto& address = pair.items()[1].byte_string();
    if (index.number() > 255) return cbor::bad_value(field, "table index must be 0 to 255");
    if (address.size() != 32) return cbor::bad_value(field, "address must be exactly 32 bytes");
    if (i > 0 && index.number() <= h.entries.back().first) {
      return cbor::bad_value(field, "entries must be in increasing index order, each once");
    }
    h.entries.emplace_back(static_cast<std::uint8_t>(index.number()), fixed_from_view<32>(address));
  }
  return h;
}

Result<TokenHint> decode_token_hint(const Value& v, const std::string& path) {
  FieldReader r(v, path);
  AIRLOCK_CHECK(r.check_keys({{key::kMint, "mint"},
                              {key::kSymbol, "symbol"},
                              {key::kDecimals, "decimals"},
                              {key::kName, "name"}}));
  TokenHint t;
  AIRLOCK_TRY(mint, r.require_fixed<32>(key::kMint, "mint"));
  t.mint = mint;
  AIRLOCK_TRY(symbol, r.require_text(key::kSymbol, "symbol", 1, kMaxHintTextChars));
  t.symbol = std::move(symbol);
  AIRLOCK_TRY(decimals, r.require_uint(key::kDecimals, "decimals", 255));
  t.decimals = static_cast<std::uint8_t>(decimals);
  if (r.get(key::kName) != nullptr) {
    AIRLOCK_TRY(name, r.require_text(key::kName, "name", 1, kMaxHintTextChars));
    t.name = std::move(name);
  }
  return t;
}

Result<PoolHint> decode_pool_hint(const Value& v, const std::string& path) {
  FieldReader r(v, path);
  AIRLOCK_CHECK(
      r.check_keys({{key::kPool, "pool"}, {key::kTokenX, "token_x"}, {key::kTokenY, "token_y"}}));
  PoolHint p;
  AIRLOCK_TRY(pool, r.require_fixed<32>(key::kPool, "pool"));
  AIRLOCK_TRY(x, r.require_fixed<32>(key::kTokenX, "token_x"));
  AIRLOCK_TRY(y, r.require_fixed<32>(key::kTokenY, "token_y"));
  if (x == y) return cbor::bad_value(r.field("token_y"), "must differ from token_x");
  p.pool = pool;
  p.token_x = x;
  p.token_y = y;
  return p;
}

Result<Hints> decode_hints(const Value& v, const std::string& path) {
  FieldReader r(v, path);
  AIRLOCK_CHECK(r.check_keys(
      {{key::kLookupTables, "lookup_tables"}, {key::kTokens, "tokens"}, {key::kPools, "pools"}}));
  Hints h;
  if (r.get(key::kLookupTables) != nullptr) {
    AIRLOCK_TRY(tables, require_array(r, key::kLookupTables, "lookup_tables", 1, kMaxLookupHints));
    for (std::size_t i = 0; i < tables->size(); ++i) {
      AIRLOCK_TRY(t, decode_lookup_hint((*tables)[i], indexed(r.field("lookup_tables"), i)));
      h.lookup_tables.push_back(std::move(t));
    }
  }
  if (r.get(key::kTokens) != nullptr) {
    AIRLOCK_TRY(tokens, require_array(r, key::kTokens, "tokens", 1, kMaxTokenHints));
    for (std::size_t i = 0; i < tokens->size(); ++i) {
      AIRLOCK_TRY(t, decode_token_hint((*tokens)[i], indexed(r.field("tokens"), i)));
      h.tokens.push_back(std::move(t));
    }
  }
  if (r.get(key::kPools) != nullptr) {
    AIRLOCK_TRY(pools, require_array(r, key::kPools, "pools", 1, kMaxPoolHints));
    for (std::size_t i = 0; i < pools->size(); ++i) {
      const std::string field = indexed(r.field("pools"), i);
      AIRLOCK_TRY(p, decode_pool_hint((*pools)[i], field));
      // Two claims about one pool would leave it open which to show.
      for (const auto& earlier : h.pools) {
        if (earlier.pool == p.pool) return cbor::bad_value(field, "names a pool already listed");
      }
      h.pools.push_back(p);
    }
  }
  return h;
}

bool hints_empty(const Hints& h) {
  return h.lookup_tables.empty() && h.tokens.empty() && h.pools.empty();
}

}  // namespace

Bytes encode_request(const SignRequest& q) {
  std::vector<Value::Entry> e;
  e.emplace_back(entry_key(key::kVersion), uint_value(kVersion));
  e.emplace_back(entry_key(key::kRequestId), bytes_value(q.request_id));
  e.emplace_back(entry_key(key::kCreatedAt), uint_value(q.created_at));
  e.emplace_back(entry_key(key::kDeadline), uint_value(q.deadline));
  e.emplace_back(entry_key(key::kManager), fixed_value(q.manager));
  e.emplace_back(entry_key(key::kVault), fixed_value(q.vault));
  e.emplace_back(entry_key(key::kAction), Value::text(q.action));
  e.emplace_back(entry_key(key::kIntent), Value::text(q.intent_json));
  if (!q.approval) {
    std::vector<Value> steps;
    for (const auto& s : q.steps) steps.push_back(encode_step(s));
    e.emplace_back(entry_key(key::kSteps), Value::array(std::move(steps)));
  }
  if (!hints_empty(q.hints)) e.emplace_back(entry_key(key::kHints), encode_hints(q.hints));
  if (q.approval) e.emplace_back(entry_key(key::kApproval), Value::boolean(true));
  return cbor::encode(Value::map(std::move(e)));
}

Result<SignRequest> decode_request(ByteView bytes) {
  AIRLOCK_TRY(root, cbor::decode_strict(bytes, kRequestLimits));
  FieldReader r(root, "sign_request");
  AIRLOCK_CHECK(r.check_keys({{key::kVersion, "version"},
                              {key::kRequestId, "request_id"},
                              {key::kCreatedAt, "created_at"},
                              {key::kDeadline, "deadline"},
                              {key::kManager, "manager"},
                              {key::kVault, "vault"},
                              {key::kAction, "action"},
                              {key::kIntent, "intent"},
                              {key::kSteps, "steps"},
                              {key::kHints, "hints"},
                              {key::kApproval, "approval"}}));
  AIRLOCK_CHECK(check_version(r));
  SignRequest q;
  AIRLOCK_TRY(id, require_request_id(r));
  q.request_id = id;
  AIRLOCK_TRY(created, r.require_uint(key::kCreatedAt, "created_at", UINT64_MAX));
  q.created_at = created;
  AIRLOCK_TRY(deadline, r.require_uint(key::kDeadline, "deadline", UINT64_MAX));
  q.deadline = deadline;
  if (q.deadline < q.created_at) {
    return cbor::bad_value(r.field("deadline"), "must not be earlier than created_at");
  }
  AIRLOCK_TRY(manager, r.require_fixed<32>(key::kManager, "manager"));
  q.manager = manager;
  AIRLOCK_TRY(vault, r.require_fixed<32>(key::kVault, "vault"));
  q.vault = vault;
  AIRLOCK_TRY(action, r.require_text(key::kAction, "action", 1, kMaxActionChars));
  // The Keystone action names what the offline half makes of a ur:sol-sign-request it read
  // itself (no intent, no deadline, no envelope vault): an envelope claiming it would get that
  // lighter review for a request that came as airlock's own.
  if (action == keystone::kSignRequestAction) {
    return cbor::bad_value(r.field("action"),
                           "'" + action +
                               "' is what a Keystone ur:sol-sign-request is reviewed as; an "
                               "airlock request cannot claim it");
  }
  q.action = std::move(action);
  AIRLOCK_TRY(intent, r.require_text(key::kIntent, "intent", 2, kMaxIntentBytes));
  // Valid JSON whose first token opens an object is an object; accept() checks without building
  // the tree the review builds once from it.
  const auto first = intent.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || intent[first] != '{' || !nlohmann::json::accept(intent)) {
    return cbor::bad_value(r.field("intent"), "must be the builder request body, a JSON object");
  }
  q.intent_json = std::move(intent);
  if (r.get(key::kApproval) != nullptr) {
    // An approval request: the intent alone. `false` would be a second spelling of a sign
    // request, and a request with steps is never an approval.
    AIRLOCK_TRY(approval, r.require_bool(key::kApproval, "approval"));
    if (!approval) return cbor::bad_value(r.field("approval"), "must be true when present");
    if (r.get(key::kSteps) != nullptr)
      return cbor::bad_value(r.field("steps"), "must be absent from an approval request");
    q.approval = true;
  } else {
    AIRLOCK_TRY(steps, require_array(r, key::kSteps, "steps", 1, kMaxSteps));
    for (std::size_t i = 0; i < steps->size(); ++i) {
      AIRLOCK_TRY(step, decode_step((*steps)[i], indexed(r.field("steps"), i)));
      q.steps.push_back(std::move(step));
    }
  }
  if (const Value* hints = r.get(key::kHints); hints != nullptr) {
    AIRLOCK_TRY(h, decode_hints(*hints, r.field("hints")));
    if (hints_empty(h)) return cbor::bad_value(r.field("hints"), "must be omitted when empty");
    q.hints = std::move(h);
  }
  return q;
}

std::string describe(const Refusal& r) {
  if (!r.code.empty() && r.reason.rfind(r.code, 0) == 0) return r.reason;
  return r.code + ": " + r.reason;
}

Bytes encode_response(const SignResponse& s) {
  std::vector<Value::Entry> e;
  e.emplace_back(entry_key(key::kVersion), uint_value(kVersion));
  e.emplace_back(entry_key(key::kRequestId), bytes_value(s.request_id));
  e.emplace_back(entry_key(key::kSigner), fixed_value(s.signer));
  if (const auto* sigs = std::get_if<std::vector<Signature>>(&s.result)) {
    std::vector<Value> items;
    for (const auto& sig : *sigs) items.push_back(fixed_value(sig));
    e.emplace_back(entry_key(key::kSignatures), Value::array(std::move(items)));
  } else if (const auto* approval = std::get_if<Approval>(&s.result)) {
    e.emplace_back(entry_key(key::kApproved),
                   Value::map({{entry_key(key::kIntentHash), fixed_value(approval->intent)},
                               {entry_key(key::kExpiresAt), uint_value(approval->expires_at)}}));
  } else {
    const auto& refusal = std::get<Refusal>(s.result);
    e.emplace_back(entry_key(key::kRefusal),
                   Value::map({{entry_key(key::kCode), Value::text(refusal.code)},
                               {entry_key(key::kReason), Value::text(refusal.reason)}}));
  }
  e.emplace_back(entry_key(key::kAuditHead), fixed_value(s.audit_head));
  return cbor::encode(Value::map(std::move(e)));
}

Result<SignResponse> decode_response(ByteView bytes) {
  AIRLOCK_TRY(root, cbor::decode_strict(bytes, kResponseLimits));
  FieldReader r(root, "sign_response");
  AIRLOCK_CHECK(r.check_keys({{key::kVersion, "version"},
                              {key::kRequestId, "request_id"},
                              {key::kSigner, "signer"},
                              {key::kSignatures, "signatures"},
                              {key::kRefusal, "refusal"},
                              {key::kAuditHead, "audit_head"},
                              {key::kApproved, "approved"}}));
  AIRLOCK_CHECK(check_version(r));
  SignResponse s;
  AIRLOCK_TRY(id, require_request_id(r));
  s.request_id = id;
  AIRLOCK_TRY(signer, r.require_fixed<32>(key::kSigner, "signer"));
  s.signer = signer;
  const bool has_sigs = r.get(key::kSignatures) != nullptr;
  const bool has_refusal = r.get(key::kRefusal) != nullptr;
  const bool has_approval = r.get(key::kApproved) != nullptr;
  if (int{has_sigs} + int{has_refusal} + int{has_approval} != 1) {
    return cbor::bad_value("sign_response",
                           "must carry exactly one of signatures (key 3), refusal (key 4) and "
                           "approved (key 6)");
  }
  if (has_approval) {
    FieldReader approved(*r.get(key::kApproved), r.field("approved"));
    AIRLOCK_CHECK(
        approved.check_keys({{key::kIntentHash, "intent"}, {key::kExpiresAt, "expires_at"}}));
    AIRLOCK_TRY(intent, approved.require_fixed<32>(key::kIntentHash, "intent"));
    AIRLOCK_TRY(expires, approved.require_uint(key::kExpiresAt, "expires_at", UINT64_MAX));
    s.result = Approval{intent, expires};
  } else if (has_sigs) {
    AIRLOCK_TRY(items, require_array(r, key::kSignatures, "signatures", 1, kMaxSteps));
    std::vector<Signature> sigs;
    for (std::size_t i = 0; i < items->size(); ++i) {
      const Value& item = (*items)[i];
      const std::string field = indexed(r.field("signatures"), i);
      if (item.kind() != Value::Kind::kBytes) return cbor::wrong_type(field, "a byte string", item);
      if (item.byte_string().size() != Signature::kSize) {
        return cbor::bad_value(
            field, "must be exactly 64 bytes, got " + std::to_string(item.byte_string().size()));
      }
      sigs.push_back(fixed_from_view<64>(item.byte_string()));
    }
    s.result = std::move(sigs);
  } else {
    FieldReader refusal(*r.get(key::kRefusal), r.field("refusal"));
    AIRLOCK_CHECK(refusal.check_keys({{key::kCode, "code"}, {key::kReason, "reason"}}));
    AIRLOCK_TRY(code, refusal.require_text(key::kCode, "code", 1, kMaxRefusalCodeChars));
    AIRLOCK_TRY(reason, refusal.require_text(key::kReason, "reason", 1, kMaxRefusalReasonChars));
    s.result = Refusal{std::move(code), std::move(reason)};
  }
  AIRLOCK_TRY(head, r.require_fixed<32>(key::kAuditHead, "audit_head"));
  s.audit_head = head;
  return s;
}

Hash intent_hash(const SignRequest& q) {
  // Each variable-length part after its length, so no two intents share the hashed bytes.
  constexpr std::string_view kTag = "airlock intent v1";
  Bytes text(kTag.begin(), kTag.end());
  text.push_back(0);
  text.insert(text.end(), q.manager.bytes.begin(), q.manager.bytes.end());
  text.insert(text.end(), q.vault.bytes.begin(), q.vault.bytes.end());
  for (const std::string* part : {&q.action, &q.intent_json}) {
    const auto n = static_cast<std::uint32_t>(part->size());
    for (int shift = 24; shift >= 0; shift -= 8)
      text.push_back(static_cast<std::uint8_t>(n >> shift));
    text.insert(text.end(), part->begin(), part->end());
  }
  return sha256(text);
}

RequestId random_request_id() {
  (void)crypto_init();
  RequestId id{};
  randombytes_buf(id.data(), id.size());
  return id;
}

}  // namespace airlock::envelope
