// airlock-online: the networked half. Exit codes (docs/cli.md): 0 done, 1 refused or failed
// (the message names why), 2 usage error, 3 I/O error. Each command lives in its own file
// (shared.h names them).
#include <map>
#include <string>
#include <vector>

#include <airlock/online/reads.h>

#include "shared.h"

using namespace airlock;

namespace {

constexpr std::string_view kUsage =
    "usage: airlock-online <command> [options]\n"
    "\n"
    "commands:\n"
    "  act       build an action, have the offline half sign it, send it and follow it to the end\n"
    "  get       one read of the API (GET), printed as JSON\n"
    "  resume    finish what the journal shows unfinished after a crash, never building\n"
    "  history   list the journal's runs and steps\n"
    "  reconcile account for every signature of an exported offline audit log\n"
    "\n"
    "reads (tables, or --json):\n"
    "  vaults, vault, holdings, strategies, nav, requests, strategy-history, perp,\n"
    "  quote, pools, pool, token\n"
    "\n"
    "The API key comes from AIRLOCK_API_KEY or --api-key-file, never from an argument.\n"
    "Run 'airlock-online <command> --help' for a command's options.\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace online_cli;
  std::map<std::string, cli::Command, std::less<>> commands = {{"act", run_act},
                                                               {"get", run_get},
                                                               {"resume", run_resume},
                                                               {"history", run_history},
                                                               {"reconcile", run_reconcile}};
  for (const auto& read : online::read_commands()) {
    const std::string name = read.name;
    commands.emplace(name,
                     [name](const std::vector<std::string>& args) { return run_read(name, args); });
  }
  return cli::dispatch(kProgram, kUsage, argc, argv, commands);
}
