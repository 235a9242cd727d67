// Reading JSON that came from outside (API replies, keystore headers, IDL files) without
// exceptions: nlohmann's value() and get<T>() throw on a type mismatch, which the fuzz targets
// found in three parsers. These never throw; each caller decides whether a field of the wrong
// type is refused (the offline half) or read as absent (the online half's display).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace airlock::json_fields {

// o[key], or nullptr when o is not an object or has no such key.
inline const nlohmann::json* member(const nlohmann::json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  const auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

// o[key] when it is a string, else "".
inline std::string text(const nlohmann::json& o, const char* key) {
  const nlohmann::json* v = member(o, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

// True only for a boolean true at o[key].
inline bool flag(const nlohmann::json& o, const char* key) {
  const nlohmann::json* v = member(o, key);
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

}  // namespace airlock::json_fields
