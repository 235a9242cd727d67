// Reading JSON that came from outside (API replies, keystore headers, IDL files) without
// exceptions: nlohmann's value() and get<T>() throw on a type mismatch, which the fuzz targets
// found in three parsers. These never throw; each caller decides whether a field of the wrong
// type is refused (the offline half) or read as absent (the online half's display).
#pragma once

#include <string>
#include <string_view>

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

// True when the JSON text's arrays and objects nest at most `max_depth` deep (counted over the
// text, outside strings): checked before parsing, so a reply nested 200,000 deep is refused by
// rule instead of exhausting the stack in the parser, a destructor or dump().
inline bool depth_at_most(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

}  // namespace airlock::json_fields
