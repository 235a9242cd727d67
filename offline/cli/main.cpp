// airlock-offline: the air-gapped half. Exit codes (docs/cli.md):
//   0 success, 1 input rejected (the message names the rule), 2 usage error, 3 I/O error.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include <airlock/common/secret.h>
#include <airlock/offline/inspect.h>

namespace po = boost::program_options;
using airlock::Error;
using airlock::ErrorCode;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitRejected = 1;
constexpr int kExitUsage = 2;
constexpr int kExitIo = 3;

constexpr const char* kUsage =
    "usage: airlock-offline <command> [options]\n"
    "\n"
    "commands:\n"
    "  inspect   show the structure of a transaction or message\n"
    "\n"
    "Run 'airlock-offline <command> --help' for a command's options.\n";

int report(const Error& error) {
  std::cerr << "airlock-offline: " << error.to_string() << "\n";
  switch (error.code()) {
    case ErrorCode::kUsage:
      return kExitUsage;
    case ErrorCode::kIo:
      return kExitIo;
    default:
      return kExitRejected;
  }
}

// Reads at most `limit` bytes (plus one, to detect an oversized input) from a file or stdin.
airlock::Result<airlock::Bytes> read_input(const std::string& path, std::size_t limit) {
  std::istream* in = &std::cin;
  std::ifstream file;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) return Error(ErrorCode::kIo, "cannot open input file '" + path + "'");
    in = &file;
  }
  airlock::Bytes data(limit + 1);
  in->read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (in->bad()) return Error(ErrorCode::kIo, "cannot read input '" + path + "'");
  data.resize(static_cast<std::size_t>(in->gcount()));
  if (data.size() > limit) {
    return Error(ErrorCode::kTooLarge, "input '" + path + "' is larger than " +
                                           std::to_string(limit) +
                                           " bytes; no transaction is that large");
  }
  return data;
}

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
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("input", 1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return report(Error(ErrorCode::kUsage, std::string(e.what()) + " (see --help)"));
  }
  if (vm.count("help")) {
    std::cout << options << "\nExit codes: 0 shown, 1 input rejected, 2 usage, 3 I/O error.\n";
    return kExitOk;
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
  auto raw = read_input(path, airlock::offline::kMaxInspectInputBytes);
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
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  if (auto status = airlock::crypto_init(); !status.ok()) return report(status.error());
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    (args.empty() ? std::cerr : std::cout) << kUsage;
    return args.empty() ? kExitUsage : kExitOk;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "inspect") return run_inspect(args);
  } catch (const std::exception& e) {
    std::cerr << "airlock-offline: internal error: " << e.what() << "\n";
    return kExitIo;
  }
  std::cerr << "airlock-offline: unknown command '" << command << "'\n\n" << kUsage;
  return kExitUsage;
}
