// The reads: one GET as JSON, and the named reads as tables.
#include <algorithm>
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
  if (reply->failure) return report(api_error("GET " + *path, *reply));
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
  options.add_options()("json", po::bool_switch(&json), "print the reply as JSON")(
      "vault", cli::optional_value(&a.vault), "the vault (quote, pool, token)")(
      "input-mint", cli::optional_value(&a.input_mint), "quote: the mint to sell")(
      "output-mint", cli::optional_value(&a.output_mint), "quote: the mint to buy")(
      "amount", cli::optional_value(&a.amount), "quote: base units to sell")(
      "slippage-bps", cli::optional_value(&a.slippage_bps), "quote: slippage, 1 to 10000")(
      "limit", cli::optional_value(&a.limit), "nav: points (default 200, at most 2000)")(
      "page", cli::optional_value(&a.page), "pools: the page, from 1")(
      "query", po::value<std::vector<std::string>>(&query)->composing(),
      "pools: another search parameter, KEY=VALUE (repeatable)");
  int code = 0;
  if (!cli::parse(kProgram, args, options, {{"target", &a.target}}, code, kEnvironment))
    return code;
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
  if (reply->failure) return report(api_error("GET " + *path, *reply));
  if (json) {
    std::cout << reply->body.dump(2, ' ', true) << "\n";
  } else {
    std::cout << online::render_read(command, reply->body);
  }
  return cli::kExitOk;
}

}  // namespace online_cli
