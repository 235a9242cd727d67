// airlock-offline: the air-gapped half. Exit codes (docs/cli.md):
//   0 success, 1 input rejected (the message names the rule), 2 usage error, 3 I/O error.
#include <iostream>
#include <string>
#include <vector>

#include <airlock/common/cli_options.h>
#include <airlock/common/secret.h>
#include <airlock/formats/files.h>
#include <airlock/offline/inspect.h>

namespace po = boost::program_options;
using airlock::Error;
using airlock::ErrorCode;

namespace {

constexpr std::string_view kProgram = "airlock-offline";

constexpr std::string_view kUsage =
    "usage: airlock-offline <command> [options]\n"
    "\n"
    "commands:\n"
    "  inspect   show the structure of a transaction or message\n"
    "\n"
    "Run 'airlock-offline <command> --help' for a command's options.\n";

int report(const Error& error) { return airlock::cli::report(kProgram, error); }

int run_inspect(const std::vector<std::string>& args) {
  po::options_description options(
      "usage: airlock-offline inspect [options] [FILE|-]\n\n"
      "Shows the structure of a transaction or message read from FILE (or standard input):\n"
      "version, header, fee payer, every account with its role and origin, the blockhash,\n"
      "each instruction, lookups, signatures checked against the message, and durable-nonce "
      "use.\n\noptions");
  options.add_options()("help,h", "show this help")(
      "json", "print one JSON object instead of text")("binary",
                                                       "the input is raw bytes, not base64")(
      "transaction", "the input must be a transaction (default: a transaction if it parses)")(
      "message", "the input is a bare message (the bytes that are signed)");
  po::options_description hidden;
  hidden.add_options()("input", po::value<std::string>()->default_value("-"), "input");
  po::positional_options_description positional;
  positional.add("input", 1);
  po::variables_map vm;
  int exit_code = 0;
  if (!airlock::cli::parse_options(kProgram, args, options, hidden, positional, vm, exit_code)) {
    return exit_code;
  }
  if (vm.count("transaction") && vm.count("message")) {
    return report(Error(ErrorCode::kUsage, "--transaction and --message exclude each other"));
  }
  auto kind = airlock::offline::InputKind::kAuto;
  if (vm.count("transaction")) kind = airlock::offline::InputKind::kTransaction;
  if (vm.count("message")) kind = airlock::offline::InputKind::kMessage;
  const auto encoding = vm.count("binary") ? airlock::offline::InputEncoding::kBinary
                                           : airlock::offline::InputEncoding::kBase64;

  const std::string path = vm["input"].as<std::string>();
  auto raw = airlock::files::read_limited(path, airlock::offline::kMaxInspectInputBytes);
  if (!raw.ok()) return report(raw.error());
  auto bytes = airlock::offline::decode_inspect_input(*raw, encoding);
  if (!bytes.ok()) return report(bytes.error());
  auto inspection = airlock::offline::inspect_bytes(*bytes, kind);
  if (!inspection.ok()) return report(inspection.error());

  if (vm.count("json")) {
    std::cout << airlock::offline::inspection_to_json(*inspection).dump(2) << "\n";
  } else {
    std::cout << airlock::offline::inspection_to_text(*inspection);
  }
  return airlock::cli::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  if (auto status = airlock::crypto_init(); !status.ok()) return report(status.error());
  return airlock::cli::dispatch(kProgram, kUsage, argc, argv, {{"inspect", run_inspect}});
}
