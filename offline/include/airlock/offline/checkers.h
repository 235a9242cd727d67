// The named checkers: rules on an instruction's arguments that are not data, each referred to
// by name from a descriptor's argument rule ({"checker": NAME}, docs/descriptors.md). Each
// states the arguments it reads, so a descriptor that names it for an instruction without them
// is refused when it loads; each reads them through Arguments (typed, never throwing) and
// refuses what does not hold.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <airlock/offline/arguments.h>
#include <airlock/offline/decode.h>
#include <airlock/offline/policy.h>
#include <airlock/offline/review.h>

namespace airlock::offline {

struct CheckInput {
  const Decoded& instruction;
  const Arguments& args;
  // The manager's build request body, or nullptr for a request with none (Keystone's): a
  // checker then holds what needs no body.
  const nlohmann::ordered_json* body;
  const ActionRule& rule;  // the policy's rule for the action
  std::string_view action;
  const std::string& where;  // "step 2, instruction 1 (dlmm_open)"
};

struct NamedChecker {
  std::string_view name;
  // What it holds, in a few words for `descriptor check` and the docs.
  std::string_view holds;
  std::span<const std::string_view> reads;     // arguments the instruction must have
  std::span<const std::string_view> optional;  // arguments it reads when present
  // Checks one instruction; nullptr for a checker a step rule carries out (step_shares).
  void (*check)(const CheckInput&, TemplateFindings&);
};

// The checker named `name`, or nullptr.
[[nodiscard]] const NamedChecker* argument_checker(std::string_view name);
[[nodiscard]] inline bool is_argument_checker(std::string_view name) {
  return argument_checker(name) != nullptr;
}
// Their names, comma-separated, for an error.
[[nodiscard]] std::string argument_checker_names();

// The floor on what a swap receives, from a Jupiter route's quote (exposed for its unit tests):
// refuses a route that states no quote, a quote or a quote less slippage of zero, a slippage
// worth less than one base unit, and a `minimum_out` below the quote less `slippage_bps`.
void route_floor(const Arguments& instruction, const Arguments& route, const std::string& where,
                 TemplateFindings& out);

}  // namespace airlock::offline
