// What the commands of airlock-offline share across its source files: the error report, the
// air-gap check and the lock-down every command that touches a secret goes through.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include <airlock/common/error.h>
#include <airlock/hardening/lockdown.h>

namespace offline_cli {

namespace po = boost::program_options;

inline constexpr std::string_view kProgram = "airlock-offline";

std::int64_t unix_now();

// Prints the error as the CLI does and returns its exit code.
int report(const airlock::Error& error);

// Where the IDLs are unless --idl-dir says: share/airlock/idl beside an installed binary,
// else the source tree's offline/idl (a build tree).
std::string default_idl_dir();

// What main() learnt from the process lock-down, for the commands that handle secrets.
extern airlock::hardening::ProcessReport g_process;

// The option every command that handles the key accepts.
void network_override_option(po::options_description& options);

// Refuse while a network interface is up (unless overridden, loudly) and say when memory could
// not be locked as a whole.
airlock::Status check_air_gap(const po::variables_map& vm);

// The air-gap check, then the syscall allowlist, before any secret exists.
airlock::Status enter_secret_mode(const po::variables_map& vm);

// The key commands (keys.cpp).
int run_init(const std::vector<std::string>& args);
int run_import(const std::vector<std::string>& args);
int run_pubkey(const std::vector<std::string>& args);
int run_backup(const std::vector<std::string>& args);
int run_passphrase(const std::vector<std::string>& args);

}  // namespace offline_cli
