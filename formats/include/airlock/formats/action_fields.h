// The builder actions' body fields (spec part 4, and the twin's builders where the spec leaves
// them unnamed): their types and rules, so a body can be given as `--field value` flags with
// help per action, and so every field is checked by rule before anything is sent. Both halves
// read the one table: the offline half warns about a body field its action does not take (the
// API ignores it) and shows it last on its screens, marked.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <airlock/common/error.h>

namespace airlock {

enum class FieldType {
  kPublicKey,  // base58, 32 bytes
  kAmount,     // BaseUnitAmount: decimal integer string, 0 to 2^64 - 1
  kInteger,    // within [min, max]
  kBool,
  kChoice,   // one of `choices`
  kDecimal,  // decimal string, e.g. "1.5"
  kText,     // any string
  kJson,     // a JSON value (arrays and objects), given as JSON text
};

struct Field {
  std::string name;  // as in the body, e.g. "sourceMint"
  FieldType type;
  std::string help;
  std::int64_t min = 0, max = 0;     // kInteger
  std::vector<std::string> choices;  // kChoice
  // kJson: the members each object of it (or of its list) may hold; no other is the API's.
  std::vector<std::string> members;
};

// The 28 actions in the spec's order.
[[nodiscard]] const std::vector<std::string>& builder_actions();

// The action's fields, or nullptr for an action that is not a builder.
[[nodiscard]] const std::vector<Field>* action_fields(std::string_view action);

// "sourceMint" -> "source-mint", "amountX" -> "amount-x".
[[nodiscard]] std::string flag_name(std::string_view field);

// Checks one value against the field's rule; the error names `where` (a flag, an argument or
// body.<field>) and the rule.
[[nodiscard]] Status check_field(const Field& field, const nlohmann::json& value,
                                 const std::string& where);

// A flag's text as the field's JSON value, or a usage error naming --flag and the rule.
[[nodiscard]] Result<nlohmann::json> field_value(const Field& field, const std::string& text);

// Whether the action takes a body leaf at `path`, written as the screens write it: a field
// ("amount"), an element of a list field ("orders[0]"), or a member the field's objects may hold
// ("bins[2].amount", "order.price"). Anything deeper, a member the field does not list, or a
// field the action does not have is not the API's: it ignores it, so it says nothing of what is
// built. True for an action with no table (one beyond the builder's).
[[nodiscard]] bool takes_path(std::string_view action, std::string_view path);

// The leaves of a body as takes_path reads their paths, in the body's order (an empty object or
// list is a leaf of its own).
[[nodiscard]] std::vector<std::string> leaf_paths(const nlohmann::ordered_json& body);

// Checks every known field present in `body` against its rule (fields the table does not know
// are passed on: the API ignores unknown fields). Errors name body.<field>.
[[nodiscard]] Status check_body(std::string_view action, const nlohmann::json& body);

}  // namespace airlock
