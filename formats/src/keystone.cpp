#include <charconv>

#include <airlock/formats/cbor.h>
#include <airlock/formats/envelope.h>
#include <airlock/formats/keystone.h>

#include "cbor_fields.h"

namespace airlock::keystone {
namespace {

using cbor::FieldReader;
using cbor::Value;

constexpr std::uint64_t kUuidTag = 37;
constexpr std::uint64_t kKeypathTag = 304;
constexpr std::uint32_t kHardenedLimit = 0x80000000U;
// A Solana message is at most one packet; a path has a handful of levels.
constexpr std::size_t kMaxSignData = 1232;
constexpr std::size_t kMaxPathComponents = 16;
constexpr cbor::DecodeLimits kLimits{4096, 4, 128};

namespace key {
constexpr std::uint64_t kRequestId = 1, kSignData = 2, kPath = 3, kAddress = 4, kOrigin = 5,
                        kType = 6;
constexpr std::uint64_t kSignature = 2;
constexpr std::uint64_t kComponents = 1, kFingerprint = 2, kDepth = 3;
}  // namespace key

Value uuid_value(const Uuid& id) { return Value::tag(kUuidTag, Value::bytes(ByteView(id))); }

Result<Uuid> read_uuid(const FieldReader& r) {
  AIRLOCK_TRY(v, r.require(key::kRequestId, "request_id", Value::Kind::kTag));
  if (v->number() != kUuidTag || v->tagged().kind() != Value::Kind::kBytes ||
      v->tagged().byte_string().size() != 16) {
    return cbor::bad_value(r.field("request_id"), "must be a UUID: tag 37 over 16 bytes");
  }
  Uuid id{};
  std::copy(v->tagged().byte_string().begin(), v->tagged().byte_string().end(), id.begin());
  return id;
}

Value keypath_value(const DerivationPath& p) {
  std::vector<Value> components;
  for (const auto& [index, hardened] : p.components) {
    components.push_back(Value::unsigned_int(index));
    components.push_back(Value::boolean(hardened));
  }
  std::vector<Value::Entry> e;
  e.emplace_back(Value::unsigned_int(key::kComponents), Value::array(std::move(components)));
  if (p.source_fingerprint) {
    e.emplace_back(Value::unsigned_int(key::kFingerprint),
                   Value::unsigned_int(*p.source_fingerprint));
  }
  if (p.depth) e.emplace_back(Value::unsigned_int(key::kDepth), Value::unsigned_int(*p.depth));
  return Value::tag(kKeypathTag, Value::map(std::move(e)));
}

Result<DerivationPath> read_keypath(const Value& v, const std::string& path) {
  if (v.kind() != Value::Kind::kTag || v.number() != kKeypathTag) {
    return cbor::bad_value(path, "must be a crypto-keypath (tag 304)");
  }
  FieldReader r(v.tagged(), path);
  AIRLOCK_CHECK(r.check_keys({{key::kComponents, "components"},
                              {key::kFingerprint, "source_fingerprint"},
                              {key::kDepth, "depth"}}));
  AIRLOCK_TRY(components, r.require(key::kComponents, "components", Value::Kind::kArray));
  const auto& items = components->items();
  if (items.size() % 2 != 0 || items.size() / 2 > kMaxPathComponents) {
    return cbor::bad_value(r.field("components"), "must be up to 16 [index, hardened] pairs");
  }
  DerivationPath out;
  for (std::size_t i = 0; i < items.size(); i += 2) {
    if (items[i].kind() != Value::Kind::kUnsigned || items[i].number() >= kHardenedLimit ||
        items[i + 1].kind() != Value::Kind::kBool) {
      return cbor::bad_value(r.field("components"),
                             "each level must be an index below 2^31 and a hardened flag");
    }
    out.components.emplace_back(static_cast<std::uint32_t>(items[i].number()),
                                items[i + 1].as_bool());
  }
  if (r.get(key::kFingerprint) != nullptr) {
    AIRLOCK_TRY(fp, r.require_uint(key::kFingerprint, "source_fingerprint", UINT32_MAX));
    out.source_fingerprint = static_cast<std::uint32_t>(fp);
  }
  if (r.get(key::kDepth) != nullptr) {
    AIRLOCK_TRY(depth, r.require_uint(key::kDepth, "depth", 255));
    out.depth = static_cast<std::uint8_t>(depth);
  }
  return out;
}

}  // namespace

Result<DerivationPath> DerivationPath::parse(std::string_view text) {
  const auto bad = [&] {
    return cbor::bad_value("derivation_path",
                           "'" + std::string(text) + "' is not of the form m/44'/501'/0'/0'");
  };
  if (text.size() < 1 || text[0] != 'm') return bad();
  DerivationPath out;
  std::size_t pos = 1;
  while (pos < text.size()) {
    if (text[pos] != '/' || out.components.size() == kMaxPathComponents) return bad();
    ++pos;
    std::uint32_t index = 0;
    auto [end, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), index);
    if (ec != std::errc() || end == text.data() + pos || index >= kHardenedLimit) return bad();
    pos = static_cast<std::size_t>(end - text.data());
    bool hardened = false;
    if (pos < text.size() && (text[pos] == '\'' || text[pos] == 'h')) {
      hardened = true;
      ++pos;
    }
    out.components.emplace_back(index, hardened);
  }
  return out;
}

std::string DerivationPath::to_string() const {
  std::string out = "m";
  for (const auto& [index, hardened] : components) {
    out += "/" + std::to_string(index) + (hardened ? "'" : "");
  }
  return out;
}

std::string uuid_to_string(const Uuid& id) {
  const std::string hex = to_hex(ByteView(id));
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

Bytes encode_sign_request(const SolSignRequest& q) {
  std::vector<Value::Entry> e;
  e.emplace_back(Value::unsigned_int(key::kRequestId), uuid_value(q.request_id));
  e.emplace_back(Value::unsigned_int(key::kSignData), Value::bytes(q.sign_data));
  e.emplace_back(Value::unsigned_int(key::kPath), keypath_value(q.path));
  if (q.address) e.emplace_back(Value::unsigned_int(key::kAddress), Value::bytes(*q.address));
  if (q.origin) e.emplace_back(Value::unsigned_int(key::kOrigin), Value::text(*q.origin));
  e.emplace_back(Value::unsigned_int(key::kType),
                 Value::unsigned_int(static_cast<std::uint64_t>(q.type)));
  return cbor::encode(Value::map(std::move(e)));
}

Result<SolSignRequest> decode_sign_request(ByteView bytes) {
  AIRLOCK_TRY(root, cbor::decode_strict(bytes, kLimits));
  FieldReader r(root, "sol_sign_request");
  AIRLOCK_CHECK(r.check_keys({{key::kRequestId, "request_id"},
                              {key::kSignData, "sign_data"},
                              {key::kPath, "derivation_path"},
                              {key::kAddress, "address"},
                              {key::kOrigin, "origin"},
                              {key::kType, "type"}}));
  SolSignRequest q;
  AIRLOCK_TRY(id, read_uuid(r));
  q.request_id = id;
  AIRLOCK_TRY(data, r.require_bytes(key::kSignData, "sign_data", 1, kMaxSignData));
  q.sign_data = std::move(data);
  const Value* path = r.get(key::kPath);
  if (path == nullptr) {
    return Error(envelope::errors::kFieldMissing, r.field("derivation_path") + ": required");
  }
  AIRLOCK_TRY(keypath, read_keypath(*path, r.field("derivation_path")));
  q.path = std::move(keypath);
  if (r.get(key::kAddress) != nullptr) {
    AIRLOCK_TRY(address, r.require_bytes(key::kAddress, "address", 32, 32));
    q.address = std::move(address);
  }
  if (r.get(key::kOrigin) != nullptr) {
    AIRLOCK_TRY(origin, r.require_text(key::kOrigin, "origin", 0, 256));
    q.origin = std::move(origin);
  }
  if (r.get(key::kType) != nullptr) {
    AIRLOCK_TRY(type, r.require_uint(key::kType, "type", 2));
    if (type == 0)
      return cbor::bad_value(r.field("type"), "must be 1 (transaction) or 2 (message)");
    q.type = static_cast<SignType>(type);
  }
  return q;
}

Bytes encode_signature(const SolSignature& s) {
  return cbor::encode(
      Value::map({{Value::unsigned_int(key::kRequestId), uuid_value(s.request_id)},
                  {Value::unsigned_int(key::kSignature), Value::bytes(s.signature.view())}}));
}

Result<SolSignature> decode_signature(ByteView bytes) {
  AIRLOCK_TRY(root, cbor::decode_strict(bytes, kLimits));
  FieldReader r(root, "sol_signature");
  AIRLOCK_CHECK(r.check_keys({{key::kRequestId, "request_id"}, {key::kSignature, "signature"}}));
  SolSignature s;
  AIRLOCK_TRY(id, read_uuid(r));
  s.request_id = id;
  AIRLOCK_TRY(sig, r.require_fixed<64>(key::kSignature, "signature"));
  s.signature = sig;
  return s;
}

}  // namespace airlock::keystone
