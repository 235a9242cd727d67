// What the commands of airlock-offline share across its source files: the error report, the
// air-gap check and the lock-down every command that touches a secret goes through.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include <airlock/common/error.h>
#include <airlock/common/hash.h>
#include <airlock/formats/envelope.h>
#include <airlock/formats/keystone.h>
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

// Where sign and review read a request from (requests.cpp): the REQUEST positional, or
// --qr IMAGE..., --raw WxH, --camera DEVICE (with --size and --timeout).
void request_source_options(po::options_description& options);
// Exactly one source given.
airlock::Status check_request_source(const po::variables_map& vm);

struct IncomingRequest {
  airlock::envelope::SignRequest request;
  // Set when it came as a Keystone ur:sol-sign-request (no intent; answered in Keystone's form).
  std::optional<airlock::keystone::SolSignRequest> keystone;
  // SHA-256 of the request as a file: the file read, or for QR codes the file they carry (an
  // .alreq's bytes), so `sha256sum request.alreq` on another machine gives the same.
  airlock::Hash digest{};
};
// Reads and decodes the request; `now` dates a Keystone request, which carries no time.
airlock::Result<IncomingRequest> read_request(const po::variables_map& vm, std::int64_t now);

// review.cpp: the verdict sign would reach, without the key.
int run_review(const std::vector<std::string>& args);

// The key commands (keys.cpp).
int run_init(const std::vector<std::string>& args);
int run_import(const std::vector<std::string>& args);
int run_pubkey(const std::vector<std::string>& args);
int run_backup(const std::vector<std::string>& args);
int run_passphrase(const std::vector<std::string>& args);

}  // namespace offline_cli
