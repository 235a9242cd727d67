// Typed reads of an instruction's decoded arguments. The decoders write arguments by the IDL's
// types (integers up to 32 bits as JSON numbers, wider ones as decimal strings, an enum as
// {"variant": NAME, ...}, an absent option as null); these reads return nullopt for a missing
// path or a value of another type, so a rule refuses instead of a reader throwing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace airlock::offline {

class Arguments {
 public:
  explicit Arguments(const nlohmann::ordered_json& args) : args_(args) {}

  // The value at a dotted path ("update.deposit_cap", "bins"), or nullptr.
  [[nodiscard]] const nlohmann::ordered_json* at(std::string_view path) const;
  // A signed integer (any integer width the IDL has, within int64).
  [[nodiscard]] std::optional<std::int64_t> integer(std::string_view path) const;
  // An unsigned integer (u8 to u64).
  [[nodiscard]] std::optional<std::uint64_t> amount(std::string_view path) const;
  // An enum's variant name.
  [[nodiscard]] std::optional<std::string> variant(std::string_view path) const;
  // The value for a message: its JSON, escaped for a screen, or "missing".
  [[nodiscard]] std::string shown(std::string_view path) const;

 private:
  const nlohmann::ordered_json& args_;
};

// A JSON value (an argument or a body field) as a signed integer: a JSON integer, or a decimal
// string of one, within int64. nullopt for anything else.
[[nodiscard]] std::optional<std::int64_t> integer_value(const nlohmann::ordered_json& v);

// The value at a JSON pointer ("/sources/0/mint") inside a body, or nullptr when it is absent,
// the body's shape does not hold it, or the pointer is malformed. Never throws.
[[nodiscard]] const nlohmann::ordered_json* body_at(const nlohmann::ordered_json& body,
                                                    std::string_view pointer);

// Whether an argument equals a body field: integers as numbers (the decoders write wide ones as
// strings, the API sends amounts as strings), anything else as the same JSON.
[[nodiscard]] bool same_value(const nlohmann::ordered_json& got,
                              const nlohmann::ordered_json& want);

}  // namespace airlock::offline
