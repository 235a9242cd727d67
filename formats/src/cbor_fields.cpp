#include "cbor_fields.h"

#include <airlock/formats/envelope.h>

namespace airlock::cbor {

Error wrong_type(const std::string& field, const char* expected, const Value& got) {
  return Error(envelope::errors::kWrongType,
               field + ": must be " + expected + ", got " + kind_name(got.kind()));
}

Error bad_value(const std::string& field, const std::string& rule) {
  return Error(envelope::errors::kBadValue, field + ": " + rule);
}

Status FieldReader::check_keys(
    std::initializer_list<std::pair<std::uint64_t, const char*>> known) const {
  if (map_.kind() != Value::Kind::kMap) return wrong_type(path_, "a map", map_);
  for (const auto& [key, value] : map_.entries()) {
    bool found = false;
    if (key.kind() == Value::Kind::kUnsigned) {
      for (const auto& [k, name] : known) found = found || k == key.number();
    }
    if (!found) {
      const std::string shown = key.kind() == Value::Kind::kUnsigned
                                    ? std::to_string(key.number())
                                    : std::string("a ") + kind_name(key.kind());
      return Error(envelope::errors::kUnknownKey,
                   path_ + ": unknown key " + shown +
                       "; this version does not understand it and will not guess");
    }
  }
  return {};
}

Result<const Value*> FieldReader::require(std::uint64_t key, const char* name,
                                          Value::Kind kind) const {
  const Value* v = map_.find(key);
  if (v == nullptr) {
    return Error(envelope::errors::kFieldMissing,
                 field(name) + ": required (key " + std::to_string(key) + ") but absent");
  }
  if (v->kind() != kind) {
    const std::string expected = std::string("a ") + kind_name(kind);
    return wrong_type(field(name), expected.c_str(), *v);
  }
  return v;
}

Result<std::uint64_t> FieldReader::require_uint(std::uint64_t key, const char* name,
                                                std::uint64_t max) const {
  auto v = require(key, name, Value::Kind::kUnsigned);
  if (!v.ok()) return std::move(v).error();
  if ((*v)->number() > max) {
    return bad_value(field(name), "must be at most " + std::to_string(max) + ", got " +
                                      std::to_string((*v)->number()));
  }
  return (*v)->number();
}

Result<bool> FieldReader::require_bool(std::uint64_t key, const char* name) const {
  auto v = require(key, name, Value::Kind::kBool);
  if (!v.ok()) return std::move(v).error();
  return (*v)->as_bool();
}

Result<Bytes> FieldReader::require_bytes(std::uint64_t key, const char* name, std::size_t min,
                                         std::size_t max) const {
  auto v = require(key, name, Value::Kind::kBytes);
  if (!v.ok()) return std::move(v).error();
  const std::size_t n = (*v)->byte_string().size();
  if (n < min || n > max) {
    return bad_value(field(name), (min == max ? "must be exactly " + std::to_string(min)
                                              : "must be " + std::to_string(min) + " to " +
                                                    std::to_string(max)) +
                                      " bytes, got " + std::to_string(n));
  }
  return (*v)->byte_string();
}

Result<std::string> FieldReader::require_text(std::uint64_t key, const char* name, std::size_t min,
                                              std::size_t max) const {
  auto v = require(key, name, Value::Kind::kText);
  if (!v.ok()) return std::move(v).error();
  const std::size_t n = (*v)->text_string().size();
  if (n < min || n > max) {
    return bad_value(field(name), "must be " + std::to_string(min) + " to " + std::to_string(max) +
                                      " bytes of text, got " + std::to_string(n));
  }
  return std::string((*v)->text_string());
}

}  // namespace airlock::cbor
