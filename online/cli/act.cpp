// act and resume: the runs that build, sign across the gap, send and follow every step.
#include <iostream>
#include <map>
#include <thread>

#include <unistd.h>

#include <airlock/common/display.h>
#include <airlock/formats/action_fields.h>
#include <airlock/formats/density.h>
#include <airlock/formats/files.h>
#include <airlock/formats/qr_io.h>
#include <airlock/online/chain.h>
#include <airlock/online/remaining.h>
#include <airlock/online/round.h>
#include <airlock/online/sender.h>

#include "channel.h"
#include "shared.h"

using namespace airlock;

namespace online_cli {
namespace {

// The prover over the node at `rpc`, if one is given: a build the journal recorded no node
// for is proven only by a node on the API's network (mainnet, or the twin's on this machine).
online::ChainProver prover_for(const std::optional<std::string>& rpc, const std::string& api) {
  if (!rpc) return {};
  return online::rpc_prover(*rpc, std::chrono::seconds(20), online::expected_network(api));
}

online::SendContext send_context(online::ApiClient& client, online::Journal& journal,
                                 const std::optional<std::string>& rpc, const std::string& api) {
  return {client,
          journal,
          now_s,
          [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); },
          std::cerr,
          online::boot_now,
          prover_for(rpc, api)};
}

// The usage line, and for an action its body fields as flags.
std::string act_usage(const std::optional<std::string>& action) {
  std::string usage =
      "usage: airlock-online act ACTION --api URL (--body JSON | --FIELD VALUE...)\n"
      "                          (--request-out FILE | --request-qr-png DIR | --request-qr-html "
      "FILE)...\n"
      "                          (--response FILE | --response-qr-png DIR | --response-camera "
      "DEV)\n\n"
      "Builds ACTION (e.g. aggregator/swap) with the body, hands the sign request to the\n"
      "offline half, waits for its response until the request's deadline, verifies every\n"
      "signature, sends the steps in the order the API gives (groups together, barriers alone),\n"
      "follows each receipt to confirmed, and builds each `next` follow-up the same way.\n"
      "The body comes from --body, from one flag per field, or both (flags win). Before anything\n"
      "is built, every field given is checked by its rule, and the rules the spec states between\n"
      "fields; a field the API requires and the body lacks is named by the API's refusal.\n\n";
  if (!action) {
    usage += "actions (airlock-online act ACTION --help lists an action's fields):\n";
    for (const auto& a : builder_actions()) usage += "  " + a + "\n";
    usage += "\n";
  }
  return usage + "options";
}

// What act takes besides the body's fields.
struct ActCommand {
  ApiOptions api;
  std::optional<std::string> action;
  std::optional<std::string> body;
  std::optional<std::string> rpc;
  Transport transport;
  std::optional<std::string> camera_size;  // else the transport's default
  std::string density = "medium";
  int max_rounds = 8;
  std::string remaining = "ask";
  std::optional<std::string> approve_first;  // the manager's public key
  int approval_minutes = 30;
  std::vector<std::string> accept_landed;
  std::optional<std::string> journal;
  std::map<std::string, std::optional<std::string>> fields;  // by flag name
};

po::options_description act_options_of(ActCommand& o, const std::vector<Field>* fields,
                                       const std::optional<std::string>& named) {
  po::options_description options(act_usage(fields != nullptr ? named : std::nullopt));
  api_options(options, o.api);
  Transport& t = o.transport;
  options.add_options()("body", cli::optional_value(&o.body), "the builder request body, JSON")(
      "rpc", cli::optional_value(&o.rpc),
      "a Solana RPC URL (keeping transaction history): lookup tables for the offline half, "
      "the blockhash's remaining life, and proof of a send's outcome when no receipt came")(
      "request-out", cli::optional_value(&t.request_file), "write each sign request to this file")(
      "request-qr-png", cli::optional_value(&t.request_png),
      "write each sign request as QR frames here")(
      "request-qr-terminal", po::bool_switch(&t.request_terminal),
      "show each sign request as animated QR codes in this terminal until the answer comes")(
      "request-qr-html", cli::optional_value(&t.request_html),
      "write each sign request as one animated QR page with a countdown (open it full-screen)")(
      "response", cli::optional_value(&t.response_file), "wait for the response file here")(
      "response-qr-png", cli::optional_value(&t.response_qr),
      "wait for the response as QR frames here")(
      "response-camera", cli::optional_value(&t.response_camera),
      "read the response from a V4L2 camera facing the offline screen")(
      "camera-size", cli::optional_value(&o.camera_size),
      "camera frame size, WIDTHxHEIGHT (default 1280x720)")(
      "density", po::value<std::string>(&o.density)->default_value(o.density),
      "the request's QR codes: high (fewest frames, for a 720p camera close to the screen), "
      "medium (any webcam), low (a poor camera)")(
      "max-rounds",
      cli::value_in(&o.max_rounds, 1, 1000, "max-rounds")->default_value(o.max_rounds),
      "stop after this many signing rounds (follow-ups, rebuilds and remaining work included)")(
      "remaining", po::value<std::string>(&o.remaining)->default_value(o.remaining),
      "after a step fails or expires: ask (offer to build only the work left, on a terminal), "
      "build (build it without asking), show (print the commands that would)")(
      "approve-first", cli::optional_value(&o.approve_first),
      "MANAGER: carry the intent across for approval before building (the manager's public "
      "key); the build is then signed without a second question (docs/approvals.md)")(
      "approval-minutes",
      cli::value_in(&o.approval_minutes, 1, 1440, "approval-minutes")
          ->default_value(o.approval_minutes),
      "with --approve-first: how long the approval is asked to hold (the offline half gives at "
      "most 60)")(
      "accept-landed", po::value<std::vector<std::string>>(&o.accept_landed)->composing(),
      "SIGNATURE (repeatable): a transaction of the manager's, landed after this journal's "
      "newest record, that you have accounted for (with --rpc, act refuses to build while the "
      "chain shows one the journal does not know)");
  journal_option(options, o.journal);
  if (fields != nullptr) {
    po::options_description field_options("fields of " + *named);
    for (const auto& f : *fields) {
      const std::string flag = flag_name(f.name);
      field_options.add_options()(flag.c_str(), cli::optional_value(&o.fields[flag]),
                                  f.help.c_str());
    }
    options.add(field_options);
  }
  return options;
}

// The body: --body, then each field flag over it, checked by the action's rules.
Result<online::json> act_body(const ActCommand& o, const std::vector<Field>* fields) {
  online::json body = online::json::object();
  if (o.body) {
    body = online::json::parse(*o.body, nullptr, false);
    if (!body.is_object()) return Error(ErrorCode::kUsage, "--body: must be a JSON object");
  }
  if (fields != nullptr) {
    for (const auto& f : *fields) {
      const auto given = o.fields.find(flag_name(f.name));
      if (given == o.fields.end() || !given->second) continue;
      AIRLOCK_TRY(value, field_value(f, *given->second));
      body[f.name] = value;
    }
  }
  if (body.empty()) return Error(ErrorCode::kUsage, "act needs a body: --body JSON or field flags");
  AIRLOCK_CHECK(check_body(*o.action, body));
  return body;
}

// Where the request goes and the response comes from, checked.
Status check_transport_options(ActCommand& o) {
  Transport& t = o.transport;
  if (o.camera_size) t.camera_size = *o.camera_size;
  AIRLOCK_TRY(chosen_density, density::parse(o.density));
  density::apply(chosen_density, t.framing);
  if (!t.request_file && !t.request_png && !t.request_html && !t.request_terminal) {
    return Error(ErrorCode::kUsage,
                 "choose --request-out FILE, --request-qr-png DIR, --request-qr-html FILE or "
                 "--request-qr-terminal");
  }
  if (int{t.response_file.has_value()} + int{t.response_qr.has_value()} +
          int{t.response_camera.has_value()} !=
      1) {
    return Error(ErrorCode::kUsage,
                 "choose one of --response FILE, --response-qr-png DIR and --response-camera DEV");
  }
  if (t.request_png) {
    if (auto s = qr_io::check_png_folder(*t.request_png); !s.ok())
      return s.error().in_field("--request-qr-png");
  }
  std::vector<files::NamedPath> outputs;
  if (t.request_file) outputs.push_back({"--request-out", *t.request_file});
  if (t.request_html) outputs.push_back({"--request-qr-html", *t.request_html});
  AIRLOCK_CHECK(files::check_outputs(outputs, {{"--journal", o.journal.value_or("")},
                                               {"--response", t.response_file.value_or("")},
                                               {"--api-key-file", o.api.api_key_file.value_or("")},
                                               {"--pace-file", o.api.pace_file.value_or("")}}));
  if (o.remaining != "ask" && o.remaining != "build" && o.remaining != "show")
    return Error(ErrorCode::kUsage, "--remaining: must be ask, build or show");
  if (o.approve_first) {
    if (auto key = public_key_from_base58(*o.approve_first); !key.ok())
      return key.error().in_field("--approve-first");
  }
  if (o.rpc) {
    if (auto s = online::check_transport(*o.rpc); !s.ok()) return s.error().in_field("--rpc");
  }
  for (const auto& signature : o.accept_landed) {
    if (!fixed_from_base58<64>(signature).ok())
      return Error(ErrorCode::kUsage,
                   "must be a base58 transaction signature, not '" + printable(signature) + "'")
          .in_field("--accept-landed");
  }
  return {};
}

// The options the printed `act` commands for the work left repeat.
std::string repeated(const ActCommand& o) {
  const Transport& t = o.transport;
  std::string out = repeated(o.api);
  repeat(out, "rpc", o.rpc);
  repeat(out, "request-out", t.request_file);
  repeat(out, "request-qr-png", t.request_png);
  repeat_flag(out, "request-qr-terminal", t.request_terminal);
  repeat(out, "request-qr-html", t.request_html);
  repeat(out, "response", t.response_file);
  repeat(out, "response-qr-png", t.response_qr);
  repeat(out, "response-camera", t.response_camera);
  repeat(out, "camera-size", o.camera_size);
  if (o.density != "medium") repeat(out, "density", o.density);
  if (o.max_rounds != 8) repeat(out, "max-rounds", std::to_string(o.max_rounds));
  repeat(out, "journal", o.journal);
  return out;
}

// The ACTION argument wherever it stands (`act --api URL aggregator/swap --vault ...` as well
// as `act aggregator/swap --api URL ...`), found before the parse so that its fields can be
// offered as flags: the first word that is neither an option nor an option's value. An option
// not among act's own is an action's field, and every field takes a value.
std::optional<std::string> action_named(const std::vector<std::string>& args) {
  ActCommand scratch;
  const po::options_description own = act_options_of(scratch, nullptr, std::nullopt);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") return i + 1 < args.size() ? std::optional(args[i + 1]) : std::nullopt;
    if (a.size() < 2 || a[0] != '-') return a;
    if (a[1] != '-' || a.find('=') != std::string::npos) continue;  // -h, --name=value
    const auto* option = own.find_nothrow(a.substr(2), false);
    if (option == nullptr || option->semantic()->max_tokens() > 0) ++i;  // its value
  }
  return std::nullopt;
}

}  // namespace

int run_act(const std::vector<std::string>& args) {
  const std::optional<std::string> named = action_named(args);
  const std::vector<Field>* fields = named ? action_fields(*named) : nullptr;
  if (named && fields == nullptr) {
    return report(Error(ErrorCode::kUsage,
                        "act: unknown action '" + *named +
                            "': not one of the 28 builder actions ('airlock-online act --help' "
                            "lists them)"));
  }
  ActCommand o;
  const auto options = act_options_of(o, fields, named);
  int code = 0;
  if (!cli::parse(kProgram, args, options, {{"action", &o.action}}, code, kEnvironment))
    return code;
  if (!o.action) return report(Error(ErrorCode::kUsage, "act needs an ACTION"));
  const std::string first_action = *o.action;
  auto first_body = act_body(o, fields);
  if (!first_body.ok()) return report(first_body.error());
  if (auto s = check_transport_options(o); !s.ok()) return report(s.error());
  const Transport& t = o.transport;
  const std::optional<std::string>& rpc = o.rpc;
  auto client = client_from(o.api);
  if (!client.ok()) return report(client.error());
  // A node of another chain than the API's is refused before anything is built.
  if (rpc) {
    if (auto s = online::check_node_network(*rpc, online::expected_network(api_of(o.api))); !s.ok())
      return report(s.error());
  }
  auto journal = open_journal(o.journal, "act");
  if (!journal.ok()) return report(journal.error());
  // The camera is opened once, before anything is built, so a missing device wastes no build.
  std::unique_ptr<frames::FrameSource> camera;
  if (t.response_camera) {
    qr_io::SourceSpec spec;
    spec.camera = *t.response_camera;
    spec.camera_size = t.camera_size;
    auto source = qr_io::open_source(spec);
    if (!source.ok()) return report(source.error());
    camera = std::move(source).value();
  }

  const online::Courier courier = courier_for(t, camera.get());

  online::ActContext context{*client,
                             *journal,
                             courier,
                             now_s,
                             [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); },
                             std::cerr,
                             online::boot_now,
                             prover_for(rpc, api_of(o.api))};
  if (::isatty(0) == 1 && ::isatty(2) == 1) {
    context.ask_remaining = [] {
      std::cerr << "Build only the remaining work now? [y/N] " << std::flush;
      std::string line;
      return static_cast<bool>(std::getline(std::cin, line)) && (line == "y" || line == "Y");
    };
  }
  online::ActOptions act_options;
  act_options.api = api_of(o.api);
  act_options.rpc = rpc;
  act_options.max_rounds = o.max_rounds;
  act_options.remaining = o.remaining == "build"  ? online::RemainingMode::kBuild
                          : o.remaining == "show" ? online::RemainingMode::kShow
                                                  : online::RemainingMode::kAsk;
  act_options.command_options = repeated(o);
  if (o.approve_first) act_options.approve_first = public_key_from_base58(*o.approve_first).value();
  act_options.approval_seconds = std::int64_t{o.approval_minutes} * 60;
  act_options.accepted_landings = o.accept_landed;
  if (auto s = online::act(context, act_options, first_action, *first_body); !s.ok())
    return report(s.error());
  return cli::kExitOk;
}

int run_resume(const std::vector<std::string>& args) {
  po::options_description options(
      "usage: airlock-online resume --api URL --api-key-file FILE [--rpc URL] [--journal FILE]\n"
      "       (the key file, or the key in AIRLOCK_API_KEY)\n\n"
      "Finishes every run the journal shows open after a crash or a stop: polls each receipt\n"
      "first, sends signed steps whose tickets are still valid (a step that may have been sent\n"
      "goes again only as the identical signed bytes), and never builds anything. A step that\n"
      "may have been sent but has no receipt stays open until the RPC node (--rpc) proves it\n"
      "landed or can never land. Prints what each run ended as and what is left to do. Exit 0\n"
      "when nothing is left open.\n\noptions");
  ApiOptions api;
  std::optional<std::string> rpc;
  std::optional<std::string> journal_file;
  api_options(options, api);
  options.add_options()("rpc", cli::optional_value(&rpc),
                        "a Solana RPC URL (keeping transaction history) that proves the outcome "
                        "of a send no receipt answered");
  journal_option(options, journal_file);
  int code = 0;
  if (!cli::parse(kProgram, args, options, {}, code, kEnvironment)) return code;
  auto client = client_from(api);
  if (!client.ok()) return report(client.error());
  auto journal = open_journal(journal_file, "resume");
  if (!journal.ok()) return report(journal.error());
  auto runs = journal->runs(true);
  if (!runs.ok()) return report(runs.error());
  if (runs->empty()) std::cout << "nothing to resume\n";
  bool left_open = false;
  if (rpc) {
    if (auto s = online::check_transport(*rpc); !s.ok()) return report(s.error().in_field("--rpc"));
    if (auto s = online::check_node_network(*rpc, online::expected_network(api_of(api))); !s.ok())
      return report(s.error());
  }
  auto context = send_context(*client, *journal, rpc, api_of(api));
  for (const auto& run : *runs) {
    // The API the run was made against, however either spells its URL.
    if (online::api_identity(run.api) != online::api_identity(api_of(api))) {
      std::cout << "run " << run.id << " (" << printable(run.action) << ") was made against "
                << printable(run.api) << "; skipped\n";
      left_open = true;
      continue;
    }
    auto outcome = online::resume_run(context, run);
    if (!outcome.ok()) return report(outcome.error());
    // The note may quote the server's codes and messages: escaped like every outside string.
    std::cout << "run " << run.id << " (" << printable(run.action) << "): " << outcome->state
              << ": " << printable(outcome->note) << "\n";
    left_open = left_open || outcome->state == "open";
    // resume never builds (it has no way to the offline half); it says what is left and how.
    if (outcome->state == "failed" || outcome->state == "stopped") {
      // resume knows no transport: the printed commands carry its own options, and say what to
      // add.
      std::string again = repeated(api);
      repeat(again, "rpc", rpc);
      repeat(again, "journal", journal_file);
      auto plan = online::plan_after_stop(*client, *journal, run.id, run.body, now_s(),
                                          online::boot_now(), std::cerr, again);
      if (!plan.ok()) return report(plan.error());
      if (!plan->builds.empty()) {
        std::cerr
            << "  (add how the request reaches the offline half: --request-out, "
               "--request-qr-png, --request-qr-terminal or --request-qr-html, and --response, "
               "--response-qr-png or --response-camera)\n";
      }
    }
  }
  return left_open ? cli::kExitRejected : cli::kExitOk;
}

}  // namespace online_cli
