#include <cstring>
#include <fstream>
#include <set>

#include <airlock/common/hash.h>
#include <airlock/common/reader.h>
#include <airlock/formats/json_fields.h>
#include <airlock/offline/idl.h>

namespace airlock::offline {
namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

Error invalid(const std::string& path, const std::string& rule) {
  return Error(offline::errors::kIdlInvalid, "idl: " + path + ": " + rule);
}
Error undecodable(const std::string& where, const std::string& rule) {
  return Error(offline::errors::kIdlUndecodable, where + ": " + rule);
}

const std::set<std::string, std::less<>> kPrimitives = {
    "bool", "u8",   "i8",   "u16",    "i16",    "u32",   "i32", "u64",
    "i64",  "u128", "i128", "pubkey", "string", "bytes", "f32", "f64"};

std::size_t primitive_size(std::string_view p) {
  if (p == "bool" || p == "u8" || p == "i8") return 1;
  if (p == "u16" || p == "i16") return 2;
  if (p == "u32" || p == "i32" || p == "f32") return 4;
  if (p == "u64" || p == "i64" || p == "f64") return 8;
  if (p == "u128" || p == "i128") return 16;
  if (p == "pubkey") return 32;
  return 4;  // string and bytes: at least their u32 length
}

Result<IdlTypePtr> parse_type(const json& t, const std::string& path, int depth = 0) {
  if (depth > static_cast<int>(kMaxIdlDepth)) return invalid(path, "type nests too deeply");
  auto out = std::make_shared<IdlType>();
  if (t.is_string()) {
    std::string name = t.get<std::string>();
    if (name == "publicKey") name = "pubkey";  // legacy spelling
    if (kPrimitives.count(name) == 0) return invalid(path, "unknown type '" + name + "'");
    out->primitive = name;
    return IdlTypePtr(out);
  }
  if (!t.is_object() || t.size() != 1)
    return invalid(path, "must be a type name or one of {option, vec, array, defined}");
  if (t.contains("option") || t.contains("vec")) {
    const bool option = t.contains("option");
    out->kind = option ? IdlType::Kind::kOption : IdlType::Kind::kVec;
    AIRLOCK_TRY(inner, parse_type(option ? t["option"] : t["vec"],
                                  path + (option ? ".option" : ".vec"), depth + 1));
    out->inner = inner;
    return IdlTypePtr(out);
  }
  if (t.contains("array")) {
    const json& a = t["array"];
    if (!a.is_array() || a.size() != 2 || !a[1].is_number_unsigned())
      return invalid(path + ".array", "must be [type, length]");
    out->kind = IdlType::Kind::kArray;
    AIRLOCK_TRY(inner, parse_type(a[0], path + ".array[0]", depth + 1));
    out->inner = inner;
    out->length = a[1].get<std::size_t>();
    if (out->length > 65536) return invalid(path + ".array", "length over 65536");
    return IdlTypePtr(out);
  }
  if (t.contains("defined")) {
    out->kind = IdlType::Kind::kDefined;
    const json& d = t["defined"];
    if (d.is_string()) {
      out->defined = d.get<std::string>();
    } else if (d.is_object() && d.contains("name") && d["name"].is_string()) {
      out->defined = d["name"].get<std::string>();
    } else {
      return invalid(path + ".defined", "must name a type");
    }
    return IdlTypePtr(out);
  }
  return invalid(path, "unknown type form " + t.dump());
}

Result<std::vector<IdlField>> parse_fields(const json& fields, const std::string& path) {
  std::vector<IdlField> out;
  if (!fields.is_array()) return invalid(path, "must be an array");
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const std::string p = path + "[" + std::to_string(i) + "]";
    IdlField f;
    if (fields[i].is_object() && fields[i].contains("type")) {  // named field
      if (!fields[i].contains("name") || !fields[i]["name"].is_string())
        return invalid(p + ".name", "must be a string");
      f.name = fields[i]["name"];
      AIRLOCK_TRY(type, parse_type(fields[i]["type"], p + ".type"));
      f.type = type;
    } else {  // tuple field: a bare type
      AIRLOCK_TRY(type, parse_type(fields[i], p));
      f.type = type;
    }
    out.push_back(std::move(f));
  }
  return out;
}

// o[key] as a string: `fallback` when absent, an error naming the path when of another type.
// (Found by the idl_file fuzz target: nlohmann's value() throws on a type mismatch.)
Result<std::string> text_at(const json& o, const char* key, const std::string& fallback,
                            const std::string& path) {
  const json* v = json_fields::member(o, key);
  if (v == nullptr) return fallback;
  if (!v->is_string()) return invalid(path + "." + key, "must be a string");
  return v->get<std::string>();
}

// The first of `keys` present in o as a bool (the 0.1.0 spelling, then the legacy one).
Result<bool> flag_at(const json& o, std::initializer_list<const char*> keys,
                     const std::string& path) {
  for (const char* key : keys) {
    const json* v = json_fields::member(o, key);
    if (v == nullptr) continue;
    if (!v->is_boolean()) return invalid(path + "." + key, "must be true or false");
    return v->get<bool>();
  }
  return false;
}

// One seed of an IDL's pda: {"kind": "const", "value": [bytes]} or {"kind": "account" | "arg",
// "path": name}.
Result<IdlSeed> seed_at(const json& s, const std::string& path) {
  if (!s.is_object()) return invalid(path, "must be a seed object");
  AIRLOCK_TRY(kind, text_at(s, "kind", "", path));
  IdlSeed seed;
  if (kind == "const") {
    const json* value = json_fields::member(s, "value");
    if (value == nullptr || !value->is_array() || value->size() > 32)
      return invalid(path + ".value", "must be an array of at most 32 bytes");
    for (const auto& b : *value) {
      if (!b.is_number_unsigned() || b.get<std::uint64_t>() > 255)
        return invalid(path + ".value", "must be an array of at most 32 bytes");
      seed.value.push_back(static_cast<std::uint8_t>(b.get<std::uint64_t>()));
    }
    return seed;
  }
  if (kind != "account" && kind != "arg")
    return invalid(path + ".kind", "must be const, account or arg");
  seed.kind = kind == "account" ? IdlSeed::Kind::kAccount : IdlSeed::Kind::kArg;
  AIRLOCK_TRY(at, text_at(s, "path", "", path));
  if (at.empty()) return invalid(path + ".path", "must name an account or argument");
  seed.path = at;
  return seed;
}

// An account's address, pda and relations, where the IDL states them.
Status derivation_at(const json& a, IdlAccount& acc, const std::string& p) {
  if (const json* address = json_fields::member(a, "address")) {
    if (!address->is_string()) return invalid(p + ".address", "must be a base58 public key");
    auto key = public_key_from_base58(address->get<std::string>());
    if (!key.ok()) return invalid(p + ".address", "must be a base58 public key");
    acc.address = *key;
  }
  if (const json* pda = json_fields::member(a, "pda")) {
    const json* seeds = pda->is_object() ? json_fields::member(*pda, "seeds") : nullptr;
    if (seeds == nullptr || !seeds->is_array() || seeds->empty() || seeds->size() > 16)
      return invalid(p + ".pda.seeds", "must be an array of 1 to 16 seeds");
    IdlPda out;
    for (std::size_t i = 0; i < seeds->size(); ++i) {
      AIRLOCK_TRY(seed, seed_at((*seeds)[i], p + ".pda.seeds[" + std::to_string(i) + "]"));
      out.seeds.push_back(std::move(seed));
    }
    if (const json* program = json_fields::member(*pda, "program")) {
      AIRLOCK_TRY(seed, seed_at(*program, p + ".pda.program"));
      if (seed.kind == IdlSeed::Kind::kConst && seed.value.size() != 32)
        return invalid(p + ".pda.program", "a constant program is 32 bytes");
      out.program = std::move(seed);
    }
    acc.pda = std::move(out);
  }
  if (const json* relations = json_fields::member(a, "relations")) {
    if (!relations->is_array()) return invalid(p + ".relations", "must be an array of names");
    for (const auto& r : *relations) {
      if (!r.is_string()) return invalid(p + ".relations", "must be an array of names");
      acc.relations.push_back(r.get<std::string>());
    }
  }
  return {};
}

Status flatten_accounts(const json& accounts, std::vector<IdlAccount>& out,
                        const std::string& prefix, const std::string& path, int depth = 0) {
  if (!accounts.is_array()) return invalid(path, "must be an array of accounts");
  if (depth > 8) return invalid(path, "account groups nest deeper than 8");
  for (std::size_t i = 0; i < accounts.size(); ++i) {
    const json& a = accounts[i];
    const std::string p = path + "[" + std::to_string(i) + "]";
    if (!a.is_object()) return invalid(p, "must be an account object");
    if (a.contains("accounts")) {  // a nested group
      AIRLOCK_TRY(group, text_at(a, "name", "", p));
      AIRLOCK_CHECK(
          flatten_accounts(a["accounts"], out, prefix + group + ".", p + ".accounts", depth + 1));
      continue;
    }
    IdlAccount acc;
    AIRLOCK_TRY(name, text_at(a, "name", "?", p));
    acc.name = prefix + name;
    AIRLOCK_TRY(writable, flag_at(a, {"writable", "isMut"}, p));
    AIRLOCK_TRY(signer, flag_at(a, {"signer", "isSigner"}, p));
    AIRLOCK_TRY(optional, flag_at(a, {"optional", "isOptional"}, p));
    acc.writable = writable;
    acc.signer = signer;
    acc.optional = optional;
    AIRLOCK_CHECK(derivation_at(a, acc, p));
    out.push_back(acc);
  }
  return {};
}

// ---- decoding ----

class Decoder {
 public:
  Decoder(const Idl& idl, ByteView data) : idl_(idl), in_(data) {}

  Result<ojson> value(const IdlType& t, const std::string& where, std::size_t depth) {
    if (depth > kMaxIdlDepth)
      return undecodable(where, "nests deeper than " + std::to_string(kMaxIdlDepth));
    switch (t.kind) {
      case IdlType::Kind::kPrimitive:
        return primitive(t.primitive, where);
      case IdlType::Kind::kOption: {
        AIRLOCK_TRY(tag, byte(where));
        if (tag == 0) return ojson(nullptr);
        if (tag != 1)
          return undecodable(where, "option tag " + std::to_string(tag) + " is neither 0 nor 1");
        return value(*t.inner, where, depth + 1);
      }
      case IdlType::Kind::kVec: {
        AIRLOCK_TRY(count, le(4, where));
        const std::size_t min = min_size(*t.inner, 0);
        if (count > in_.remaining() / std::max<std::size_t>(min, 1) || count > 65536) {
          return undecodable(where, "vector of " + std::to_string(count) +
                                        " items cannot fit the " + std::to_string(in_.remaining()) +
                                        " bytes left");
        }
        ojson out = ojson::array();
        for (std::uint64_t i = 0; i < count; ++i) {
          AIRLOCK_TRY(item, value(*t.inner, where + "[" + std::to_string(i) + "]", depth + 1));
          out.push_back(std::move(item));
        }
        return out;
      }
      case IdlType::Kind::kArray: {
        if (t.inner->kind == IdlType::Kind::kPrimitive && t.inner->primitive == "u8") {
          const ByteView bytes = in_.take(t.length, where);
          if (!in_.ok())
            return undecodable(where, "ends inside a " + std::to_string(t.length) + "-byte array");
          return ojson(to_hex(bytes));
        }
        ojson out = ojson::array();
        for (std::size_t i = 0; i < t.length; ++i) {
          AIRLOCK_TRY(item, value(*t.inner, where + "[" + std::to_string(i) + "]", depth + 1));
          out.push_back(std::move(item));
        }
        return out;
      }
      case IdlType::Kind::kDefined:
        return defined(t.defined, where, depth + 1);
    }
    return undecodable(where, "unknown type");
  }

  bool at_end() const { return in_.remaining() == 0; }
  std::size_t position() const { return in_.position(); }

 private:
  Result<std::uint64_t> le(std::size_t n, const std::string& where) {
    const std::uint64_t v = in_.le(n, where);
    if (!in_.ok()) return undecodable(where, "ends before its " + std::to_string(n) + " bytes");
    return v;
  }
  Result<std::uint8_t> byte(const std::string& where) {
    AIRLOCK_TRY(v, le(1, where));
    return static_cast<std::uint8_t>(v);
  }

  Result<ojson> primitive(const std::string& p, const std::string& where) {
    if (p == "bool") {
      AIRLOCK_TRY(b, byte(where));
      if (b > 1)
        return undecodable(where, "bool byte " + std::to_string(b) + " is neither 0 nor 1");
      return ojson(b == 1);
    }
    if (p == "pubkey") {
      const ByteView k = in_.take(32, where);
      if (!in_.ok()) return undecodable(where, "ends inside a public key");
      return ojson(to_base58(k));
    }
    if (p == "string" || p == "bytes") {
      AIRLOCK_TRY(len, le(4, where));
      const ByteView s = in_.take(static_cast<std::size_t>(len), where);
      if (!in_.ok()) {
        return undecodable(where,
                           std::to_string(len) + "-byte " + p + " cannot fit the bytes left");
      }
      if (p == "bytes") return ojson(to_hex(s));
      if (!is_valid_utf8(s)) return undecodable(where, "string is not valid UTF-8");
      return ojson(std::string(s.begin(), s.end()));
    }
    if (p == "u128" || p == "i128") {
      AIRLOCK_TRY(lo, le(8, where));
      AIRLOCK_TRY(hi, le(8, where));
      unsigned __int128 v = (static_cast<unsigned __int128>(hi) << 64) | lo;
      bool negative = false;
      if (p == "i128" && (hi >> 63) != 0) {
        negative = true;
        v = ~v + 1;
      }
      std::string digits;
      do {
        digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
        v /= 10;
      } while (v != 0);
      return ojson((negative ? "-" : "") + digits);
    }
    if (p == "f32" || p == "f64") {
      AIRLOCK_TRY(bits, le(p == "f32" ? 4 : 8, where));
      if (p == "f32") {
        float f = 0;
        const auto b32 = static_cast<std::uint32_t>(bits);
        std::memcpy(&f, &b32, 4);
        return ojson(static_cast<double>(f));
      }
      double d = 0;
      std::memcpy(&d, &bits, 8);
      return ojson(d);
    }
    const std::size_t n = primitive_size(p);
    AIRLOCK_TRY(v, le(n, where));
    const bool is_signed = p[0] == 'i';
    if (is_signed) {
      const std::int64_t s = n == 8 ? static_cast<std::int64_t>(v)
                                    : static_cast<std::int64_t>(v << (64 - 8 * n)) >> (64 - 8 * n);
      if (n == 8) return ojson(std::to_string(s));
      return ojson(s);
    }
    if (n == 8) return ojson(std::to_string(v));  // beyond 2^53 JSON numbers lose precision
    return ojson(v);
  }

  Result<ojson> defined(const std::string& name, const std::string& where, std::size_t depth) {
    auto it = idl_.types.find(name);
    if (it == idl_.types.end())
      return undecodable(where, "type '" + name + "' is not defined in the IDL");
    const IdlTypeDef& def = it->second;
    if (!def.is_enum) return fields(def.fields, where, depth);
    AIRLOCK_TRY(tag, byte(where));
    if (tag >= def.variants.size()) {
      return undecodable(where, "enum " + name + " has no variant " + std::to_string(tag) +
                                    " (it has " + std::to_string(def.variants.size()) + ")");
    }
    const IdlVariant& v = def.variants[tag];
    ojson out = {{"variant", v.name}};
    if (!v.fields.empty()) {
      AIRLOCK_TRY(f, fields(v.fields, where + "." + v.name, depth));
      out["fields"] = f;
    }
    return out;
  }

  Result<ojson> fields(const std::vector<IdlField>& fs, const std::string& where,
                       std::size_t depth) {
    ojson out = ojson::object();
    for (std::size_t i = 0; i < fs.size(); ++i) {
      const std::string key = fs[i].name.empty() ? std::to_string(i) : fs[i].name;
      AIRLOCK_TRY(v, value(*fs[i].type, where + "." + key, depth));
      out[key] = std::move(v);
    }
    return out;
  }

  std::size_t min_size(const IdlType& t, std::size_t depth) const {
    if (depth > kMaxIdlDepth) return 1;
    switch (t.kind) {
      case IdlType::Kind::kPrimitive:
        return primitive_size(t.primitive);
      case IdlType::Kind::kOption:
        return 1;
      case IdlType::Kind::kVec:
        return 4;
      case IdlType::Kind::kArray:
        return t.length * min_size(*t.inner, depth + 1);
      case IdlType::Kind::kDefined: {
        auto it = idl_.types.find(t.defined);
        if (it == idl_.types.end()) return 1;
        if (it->second.is_enum) return 1;
        std::size_t sum = 0;
        for (const auto& f : it->second.fields) sum += min_size(*f.type, depth + 1);
        return sum;
      }
    }
    return 1;
  }

  const Idl& idl_;
  ByteReader in_;
};

// One entry of "types": a struct's fields, or an enum's variants (1 to 256).
Result<IdlTypeDef> parse_type_def(const json& t, const std::string& path) {
  if (!t.contains("name") || !t["name"].is_string() || !t.contains("type") ||
      !t["type"].is_object()) {
    return invalid(path, "must have a name and a type");
  }
  IdlTypeDef def;
  def.name = t["name"];
  AIRLOCK_TRY(kind, text_at(t["type"], "kind", "", path + ".type"));
  if (kind == "struct") {
    AIRLOCK_TRY(fields,
                parse_fields(t["type"].value("fields", json::array()), path + ".type.fields"));
    def.fields = std::move(fields);
    return def;
  }
  if (kind != "enum")
    return invalid(path + ".type.kind", "'" + kind + "' is not supported (struct or enum)");
  def.is_enum = true;
  const json& variants = t["type"].value("variants", json::array());
  if (!variants.is_array() || variants.empty() || variants.size() > 256)
    return invalid(path + ".type.variants", "must list 1 to 256 variants");
  for (std::size_t v = 0; v < variants.size(); ++v) {
    IdlVariant variant;
    const std::string vpath = path + ".type.variants[" + std::to_string(v) + "]";
    if (!variants[v].is_object()) return invalid(vpath, "must be a variant object");
    AIRLOCK_TRY(variant_name, text_at(variants[v], "name", "?", vpath));
    variant.name = variant_name;
    if (variants[v].contains("fields")) {
      AIRLOCK_TRY(fields, parse_fields(variants[v]["fields"], vpath + ".fields"));
      variant.fields = std::move(fields);
    }
    def.variants.push_back(std::move(variant));
  }
  return def;
}

// A legacy IDL's instruction discriminator: the first 8 bytes of
// sha256("global:<snake_case name>").
std::vector<std::uint8_t> legacy_discriminator(const std::string& name) {
  std::string snake;
  for (char c : name) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      snake += '_';
      snake += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      snake += c;
    }
  }
  const std::string preimage = "global:" + snake;
  const Hash h = sha256(text_bytes(preimage));
  return {h.bytes.begin(), h.bytes.begin() + 8};
}

// One entry of "instructions": its name, discriminator, accounts (flattened) and arguments.
Result<IdlInstruction> parse_instruction(const json& ix, const std::string& path) {
  IdlInstruction out;
  if (!ix.contains("name") || !ix["name"].is_string())
    return invalid(path + ".name", "must be a string");
  out.name = ix["name"];
  if (ix.contains("discriminator")) {
    if (!ix["discriminator"].is_array() || ix["discriminator"].empty() ||
        ix["discriminator"].size() > 32) {
      return invalid(path + ".discriminator", "must be an array of bytes");
    }
    for (const auto& b : ix["discriminator"]) {
      if (!b.is_number_unsigned() || b.get<unsigned>() > 255)
        return invalid(path + ".discriminator", "must be an array of bytes");
      out.discriminator.push_back(b.get<std::uint8_t>());
    }
  } else {
    out.discriminator = legacy_discriminator(out.name);
  }
  if (ix.contains("accounts"))
    AIRLOCK_CHECK(flatten_accounts(ix["accounts"], out.accounts, "", path + ".accounts"));
  AIRLOCK_TRY(args, parse_fields(ix.value("args", json::array()), path + ".args"));
  out.args = std::move(args);
  return out;
}

// Every defined type an instruction or type uses must exist.
Status check_defined_types(const Idl& idl) {
  std::function<Status(const IdlType&, const std::string&)> check =
      [&](const IdlType& t, const std::string& path) -> Status {
    if (t.kind == IdlType::Kind::kDefined && idl.types.count(t.defined) == 0)
      return invalid(path, "uses undefined type '" + t.defined + "'");
    if (t.inner) return check(*t.inner, path);
    return {};
  };
  for (const auto& ix : idl.instructions) {
    for (const auto& a : ix.args)
      AIRLOCK_CHECK(check(*a.type, "instructions." + ix.name + ".args." + a.name));
  }
  for (const auto& [name, def] : idl.types) {
    for (const auto& f : def.fields) AIRLOCK_CHECK(check(*f.type, "types." + name));
    for (const auto& v : def.variants) {
      for (const auto& f : v.fields) AIRLOCK_CHECK(check(*f.type, "types." + name + "." + v.name));
    }
  }
  return {};
}

// The program the IDL describes: its "address" (or a legacy IDL's metadata.address), else the
// caller's.
Result<PublicKey> program_of(const json& j, const std::optional<PublicKey>& fallback_program) {
  std::string address;
  if (j.contains("address") && j["address"].is_string()) address = j["address"];
  if (address.empty() && j.contains("metadata")) {
    AIRLOCK_TRY(legacy, text_at(j["metadata"], "address", "", "metadata"));
    address = legacy;
  }
  if (!address.empty()) {
    auto key = public_key_from_base58(address);
    if (!key.ok()) return invalid("address", key.error().message());
    return key.value();
  }
  if (fallback_program) return *fallback_program;
  return invalid("address", "the IDL names no program address");
}

}  // namespace

Result<Idl> parse_idl(const json& j, const std::optional<PublicKey>& fallback_program) {
  if (!j.is_object()) return invalid("(root)", "must be a JSON object");
  Idl idl;
  AIRLOCK_TRY(program, program_of(j, fallback_program));
  idl.program = program;
  AIRLOCK_TRY(top_name, text_at(j, "name", "", "(root)"));
  AIRLOCK_TRY(idl_name, j.contains("metadata")
                            ? text_at(j["metadata"], "name", top_name, "metadata")
                            : Result<std::string>(top_name));
  idl.name = idl_name;
  if (j.contains("types")) {
    if (!j["types"].is_array()) return invalid("types", "must be an array");
    for (std::size_t i = 0; i < j["types"].size(); ++i) {
      AIRLOCK_TRY(def, parse_type_def(j["types"][i], "types[" + std::to_string(i) + "]"));
      const std::string name = def.name;
      idl.types[name] = std::move(def);
    }
  }
  if (!j.contains("instructions") || !j["instructions"].is_array())
    return invalid("instructions", "must be an array");
  for (std::size_t i = 0; i < j["instructions"].size(); ++i) {
    const std::string path = "instructions[" + std::to_string(i) + "]";
    AIRLOCK_TRY(out, parse_instruction(j["instructions"][i], path));
    for (const auto& other : idl.instructions) {
      if (discriminators_overlap(other.discriminator, out.discriminator)) {
        return invalid(path + ".discriminator", other.discriminator == out.discriminator
                                                    ? "repeats " + other.name + "'s"
                                                    : "overlaps " + other.name +
                                                          "'s (one is a prefix of the other, so "
                                                          "some data would match both)");
      }
    }
    idl.instructions.push_back(std::move(out));
  }
  AIRLOCK_CHECK(check_defined_types(idl));
  return idl;
}

Result<Idl> load_idl_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorCode::kIo, "cannot open IDL '" + path + "'");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > kMaxIdlFileBytes) return invalid(path, "larger than 4 MiB");
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return invalid(path, "is not valid JSON");
  auto idl = parse_idl(j);
  if (!idl.ok()) return Error(idl.error().code(), idl.error().message() + " (in " + path + ")");
  return idl;
}

bool discriminators_overlap(const Bytes& a, const Bytes& b) {
  const std::size_t n = std::min(a.size(), b.size());
  return std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), b.begin());
}

const IdlInstruction* match_instruction(const Idl& idl, ByteView data) {
  for (const auto& ix : idl.instructions) {
    if (data.size() >= ix.discriminator.size() &&
        std::equal(ix.discriminator.begin(), ix.discriminator.end(), data.begin())) {
      return &ix;
    }
  }
  return nullptr;
}

const IdlInstruction* find_instruction(const Idl& idl, std::string_view name) {
  for (const auto& ix : idl.instructions) {
    if (ix.name == name) return &ix;
  }
  return nullptr;
}

Result<DecodedInstruction> decode_instruction(const Idl& idl, ByteView data) {
  const IdlInstruction* match = match_instruction(idl, data);
  if (match == nullptr) {
    return undecodable(idl.name.empty() ? "instruction" : idl.name,
                       "data starts with no discriminator the IDL knows (" +
                           to_hex(data.first(std::min<std::size_t>(8, data.size()))) + ")");
  }
  Decoder d(idl, data.subspan(match->discriminator.size()));
  DecodedInstruction out;
  out.instruction = match;
  out.args = ojson::object();
  for (const auto& arg : match->args) {
    AIRLOCK_TRY(v, d.value(*arg.type, match->name + "." + arg.name, 0));
    out.args[arg.name] = std::move(v);
  }
  if (!d.at_end()) {
    return undecodable(match->name,
                       "arguments end at byte " +
                           std::to_string(d.position() + match->discriminator.size()) +
                           " but the data has more; refusing to guess what the rest means");
  }
  return out;
}

}  // namespace airlock::offline
