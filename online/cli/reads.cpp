// The reads: one GET as JSON, and the named reads as tables.
#include <algorithm>
#include <cctype>
#include <iostream>

#include <airlock/online/reads.h>

#include "shared.h"

using namespace airlock;

namespace online_cli {

int run_get(const std::vector<std::string>& args) {
  po::options_description options(
      "usage: airlock-online get --api URL PATH\n\n"
      "Performs one read, e.g. /vaults/<vault>/holdings, and prints the reply.\n\noptions");
  ApiOptions api;
  std::optional<std::string> path;
  api_options(options, api);
  int code = 0;
  if (!cli::parse(kProgram, args, options, {{"path", &path}}, code, kEnvironment)) return code;
  if (!path) return report(Error(ErrorCode::kUsage, "get needs a PATH"));
  auto client = client_from(api);
  if (!client.ok()) return report(client.error());
  auto reply = client->get(*path);
  if (!reply.ok()) return report(reply.error());
  if (reply->failure) return report(online::api_error("GET " + *path, *reply));
  std::cout << reply->body.dump(2, ' ', true) << "\n";
  return cli::kExitOk;
}

int run_read(const std::string& command, const std::vector<std::string>& args) {
  const auto& commands = online::read_commands();
  const auto spec = std::find_if(commands.begin(), commands.end(),
                                 [&](const auto& c) { return command == c.name; });
  po::options_description options("usage: airlock-online " + command + " " + spec->usage +
                                  " --api URL [--json]\n\n" + spec->help +
                                  ", as tables (--json: the reply as the API sent it).\n\noptions");
  ApiOptions api;
  online::ReadArgs a;
  bool json = false;
  std::vector<std::string> query;
  api_options(options, api);
  options.add_options()("json", po::bool_switch(&json), "print the reply as JSON");
  // A read offers only the options its usage names, so one it would ignore is refused.
  const std::string_view usage = spec->usage;
  const auto named = [&](const std::string& name) {
    const std::string flag = "--" + name;
    const auto at = usage.find(flag);
    return at != std::string_view::npos &&
           (at + flag.size() == usage.size() || usage[at + flag.size()] == ' ');
  };
  const auto offer = [&](const char* name, po::value_semantic* value, const char* help) {
    if (named(name)) {
      options.add_options()(name, value, help);
    } else {
      delete value;  // never handed to the options, so still ours
    }
  };
  offer("vault", cli::optional_value(&a.vault), "the vault");
  offer("input-mint", cli::optional_value(&a.input_mint), "the mint to sell");
  offer("output-mint", cli::optional_value(&a.output_mint), "the mint to buy");
  offer("amount", cli::optional_value(&a.amount), "base units to sell");
  offer("slippage-bps", cli::optional_value(&a.slippage_bps), "slippage, 1 to 10000");
  offer("limit", cli::optional_value(&a.limit), "points (default 200, at most 2000)");
  offer("page", cli::optional_value(&a.page), "the page, from 1");
  offer("query", po::value<std::vector<std::string>>(&query)->composing(),
        "another search parameter, KEY=VALUE (repeatable)");
  // VAULT, LBPAIR or MINT: only the commands whose usage starts with one take it.
  const bool has_target = !usage.empty() && std::isupper(static_cast<unsigned char>(usage[0])) != 0;
  int code = 0;
  if (!cli::parse(kProgram, args, options, {{"target", &a.target}}, code, kEnvironment))
    return code;
  if (a.target && !has_target) {
    // Not repeated: a stray word may be a secret pasted in the wrong place.
    return report(Error(ErrorCode::kUsage, command + " takes no argument, only options"));
  }
  for (const auto& kv : query) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      return report(Error(ErrorCode::kUsage, "--query: must be KEY=VALUE, not '" + kv + "'"));
    a.query.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  auto path = online::read_path(command, a);
  if (!path.ok()) return report(path.error());
  auto client = client_from(api);
  if (!client.ok()) return report(client.error());
  auto reply = client->get(*path);
  if (!reply.ok()) return report(reply.error());
  if (reply->failure) return report(online::api_error("GET " + *path, *reply));
  if (json) {
    std::cout << reply->body.dump(2, ' ', true) << "\n";
  } else {
    std::cout << online::render_read(command, reply->body);
  }
  return cli::kExitOk;
}

}  // namespace online_cli
