// What the commands of airlock-offline share across its source files: the error report, the
// air-gap check and the lock-down every command that touches a secret goes through.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <airlock/cli/options.h>
#include <airlock/common/error.h>
#include <airlock/common/hash.h>
#include <airlock/formats/envelope.h>
#include <airlock/formats/keystone.h>
#include <airlock/formats/transfer.h>
#include <airlock/hardening/lockdown.h>
#include <airlock/hardening/locked_down.h>

namespace offline_cli {

namespace po = boost::program_options;

inline constexpr std::string_view kProgram = "airlock-offline";

std::int64_t unix_now();

// Prints the error as the CLI does and returns its exit code.
int report(const airlock::Error& error);

// Where the IDLs are unless --idl-dir says: share/airlock/idl beside an installed binary,
// else the source tree's offline/idl (a build tree).
std::string default_idl_dir();
// Where the descriptors are unless --descriptor-dir says: share/airlock/descriptors installed,
// the source tree's offline/descriptors in a build tree.
std::string default_descriptor_dir();

// What main() learnt from the process lock-down, for the commands that handle secrets.
extern airlock::hardening::ProcessReport g_process;

// --unsafe-allow-network, which every command that handles the key accepts, bound to `allow`.
void add_network_override(po::options_description& options, bool& allow);

// Refuse while a network interface is up (unless `allow_network`, loudly) and say when memory
// could not be locked as a whole.
airlock::Status check_air_gap(bool allow_network);

// The air-gap check, then the syscall allowlist, before any secret exists.
airlock::Result<airlock::hardening::LockedDown> enter_secret_mode(bool allow_network);

// Where sign and review read a request from (requests.cpp): the REQUEST positional, or
// --qr IMAGE..., --raw WxH, --camera DEVICE (with --camera-size and --timeout).
struct RequestSource {
  std::optional<std::string> file;  // the REQUEST positional
  std::vector<std::string> qr;
  std::optional<std::string> raw;
  std::optional<std::string> camera;
  std::string camera_size = "1280x720";
  int timeout = 90;
};
void add_request_source(po::options_description& options, RequestSource& source);
// The REQUEST positional, bound to `source.file`.
airlock::cli::Positional request_positional(RequestSource& source);
// Exactly one source given.
airlock::Status check_request_source(const RequestSource& source);

struct IncomingRequest {
  airlock::envelope::SignRequest request;
  // Set when it came as a Keystone ur:sol-sign-request (no intent; answered in Keystone's form).
  std::optional<airlock::keystone::SolSignRequest> keystone;
  // SHA-256 of the request as a file: the file read, or for QR codes the file they carry (an
  // .alreq's bytes), so `sha256sum request.alreq` on another machine gives the same.
  airlock::Hash digest{};
};
// The request's bytes as read (a file, or the file QR codes carry) and their SHA-256, before
// anything is decoded: an auditor gets the digest of what does not decode too.
struct RequestBytes {
  airlock::transfer::Content content;
  airlock::Hash digest{};
  bool from_file = false;  // read from a file (else from QR codes)
};
airlock::Result<RequestBytes> read_request_bytes(const RequestSource& source);
// Decodes what was read; `now` dates a Keystone request, which carries no time.
airlock::Result<IncomingRequest> decode_incoming(const RequestBytes& read, std::int64_t now);
// Both.
airlock::Result<IncomingRequest> read_request(const RequestSource& source, std::int64_t now);

// review.cpp: the verdict sign would reach, without the key.
int run_review(const std::vector<std::string>& args);

// descriptor.cpp: validate a descriptor against its IDLs and print the pin for it.
int run_descriptor(const std::vector<std::string>& args);

// policy.cpp: read a policy as sign would and say what it will do.
int run_policy(const std::vector<std::string>& args);

// The key commands (keys.cpp).
int run_init(const std::vector<std::string>& args);
int run_import(const std::vector<std::string>& args);
int run_pubkey(const std::vector<std::string>& args);
int run_backup(const std::vector<std::string>& args);
int run_passphrase(const std::vector<std::string>& args);

}  // namespace offline_cli
