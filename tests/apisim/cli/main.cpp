// airlock-apisim: a local, spec-faithful twin of the Manager Bot API (docs/apisim.md).
#include <charconv>
#include <csignal>
#include <iostream>

#include <airlock/apisim/server.h>
#include <airlock/cli/options.h>
#include <airlock/common/bytes.h>
#include <airlock/common/secret.h>
#include <airlock/common/version.h>

namespace po = boost::program_options;
using namespace airlock;

namespace {
apisim::Server* running = nullptr;
void on_signal(int) {
  if (running) running->stop();
}
// The command line's changes to the fixtures: another seed, and a manager of the operator's
// own in the fixtures' manager's place (every vault's authority, every API key's manager).
Status adjust(apisim::World& world, const std::optional<std::uint64_t>& seed,
              const std::optional<std::string>& manager) {
  if (seed) world.seed = *seed;
  if (!manager) return {};
  auto key = public_key_from_base58(*manager);
  if (!key.ok()) return Error(ErrorCode::kUsage, "--manager: not a base58 public key of 32 bytes");
  for (auto& vault : world.vaults) vault.authority = *key;
  for (auto& api_key : world.keys) api_key.manager = *key;
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  constexpr std::string_view kProgram = "airlock-apisim";
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    std::cout << kProgram << " " << version() << " (commit " << git_commit() << ", " << build_type()
              << " build)\n";
    return cli::kExitOk;
  }
  if (auto s = crypto_init(); !s.ok()) return cli::report(kProgram, s.error());
  std::string listen = "127.0.0.1:8899";
  std::optional<std::string> fixtures_file;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> manager;
  apisim::ServiceOptions service_options;  // its defaults are the options' defaults
  po::options_description options(
      "usage: airlock-apisim [options]\n\n"
      "Serves the Manager Bot API under /api/external/v1, a minimal Solana JSON-RPC under /rpc "
      "and\n"
      "the control API under /_sim, on a loopback address.\n\noptions");
  options.add_options()("help,h", "show this help")(
      "listen", po::value<std::string>(&listen)->default_value(listen),
      "HOST:PORT to serve on (loopback only; port 0 takes a free port, printed in the "
      "'serving' line)")("fixtures", cli::optional_value(&fixtures_file),
                         "fixtures file (default: the demo fixtures)")(
      "seed", cli::optional_value(&seed),
      "seed for derived keys and blockhashes (overrides the fixtures')")(
      "manager", cli::optional_value(&manager),
      "a public key (base58) that manages every vault of the fixtures and owns every API key, "
      "in place of the fixtures' manager: to rehearse with a key of your own")(
      "control-token",
      po::value<std::string>(&service_options.control_token)
          ->default_value(service_options.control_token),
      "secret for the /_sim control API")("frozen-clock",
                                          po::bool_switch(&service_options.frozen_clock),
                                          "time moves only through POST /_sim/clock (for tests)")(
      "confirm-ms",
      po::value<std::int64_t>(&service_options.confirm_delay_ms)
          ->default_value(service_options.confirm_delay_ms),
      "milliseconds from send to landing");
  int code = 0;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!cli::parse(kProgram, args, options, {}, code)) return code;

  const std::string fixtures = fixtures_file.value_or(
      cli::beside_executable("share/airlock-apisim/demo.json", "tests/apisim/fixtures/demo.json"));
  auto world = apisim::load_world_file(fixtures);
  if (!world.ok()) return cli::report(kProgram, world.error());
  if (auto s = adjust(*world, seed, manager); !s.ok()) return cli::report(kProgram, s.error());
  apisim::Service service(std::move(world).value(), service_options);

  const auto colon = listen.rfind(':');
  if (colon == std::string::npos)
    return cli::report(kProgram, Error(ErrorCode::kUsage, "--listen must be HOST:PORT"));
  const std::string host = listen.substr(0, colon);
  const std::string port_text = listen.substr(colon + 1);
  int port = -1;
  const auto [end, parsed] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (parsed != std::errc() || end != port_text.data() + port_text.size() || port < 0 ||
      port > 65535) {
    return cli::report(
        kProgram, Error(ErrorCode::kUsage, "--listen: the port must be a number from 0 to 65535"));
  }
  apisim::Server server(service);
  running = &server;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  // "serving" only once the port is bound: a refused address says nothing else.
  const auto serving = [&] {
    const bool v6 = host.find(':') != std::string::npos;
    std::cerr << "airlock-apisim: serving http://" << (v6 ? "[" + host + "]" : host) << ":"
              << server.port() << "/api/external/v1 (fixtures " << fixtures << ")\n";
  };
  if (auto s = server.run(host, port, serving); !s.ok()) return cli::report(kProgram, s.error());
  return cli::kExitOk;
}
