// The API's reads as commands (spec 4.11): each command's arguments checked and turned into a
// request path, and each reply shown as readable tables. Fields the spec names get their own
// columns; anything else the reply carries is still shown (as key/value rows), never dropped
// and never fatal.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <airlock/common/error.h>

namespace airlock::online {

struct ReadArgs {
  std::optional<std::string> target;  // the VAULT, LBPAIR or MINT of the command
  std::optional<std::string> vault;
  std::optional<std::string> input_mint, output_mint, amount;
  std::optional<int> slippage_bps, limit, page;
  std::vector<std::pair<std::string, std::string>> query;  // other search parameters, as given
};

struct ReadCommand {
  const char* name;
  const char* usage;  // the arguments, for help
  const char* help;
};

// vaults, vault, holdings, strategies, nav, requests, strategy-history, perp, quote, pools,
// pool, token.
const std::vector<ReadCommand>& read_commands();

// The request path with its query, or a usage error naming the argument and the rule.
[[nodiscard]] Result<std::string> read_path(const std::string& command, const ReadArgs& args);

// The reply as text for people.
[[nodiscard]] std::string render_read(const std::string& command, const nlohmann::json& reply);

}  // namespace airlock::online
