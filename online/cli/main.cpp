// airlock-online: the networked half. Exit codes (docs/cli.md): 0 done, 1 refused or failed
// (the message names why), 2 usage error, 3 I/O error.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include <unistd.h>

#include <airlock/cli/options.h>
#include <airlock/common/display.h>
#include <airlock/formats/density.h>
#include <airlock/formats/files.h>
#include <airlock/formats/html.h>
#include <airlock/formats/json_fields.h>
#include <airlock/formats/qr_io.h>
#include <airlock/online/act.h>
#include <airlock/online/api.h>
#include <airlock/online/fields.h>
#include <airlock/online/journal.h>
#include <airlock/online/reads.h>
#include <airlock/online/reconcile.h>
#include <airlock/online/remaining.h>
#include <airlock/online/round.h>
#include <airlock/online/sender.h>

namespace po = boost::program_options;
using namespace airlock;

namespace {

constexpr std::string_view kProgram = "airlock-online";

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

int report(const Error& error) { return cli::report(kProgram, error); }

std::int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The options every command that talks to the API takes.
struct ApiOptions {
  std::string api;
  std::optional<std::string> api_key_file;
  std::optional<std::string> pace_file;  // else $AIRLOCK_PACE_FILE, else the state folder's
};

void api_options(po::options_description& options, ApiOptions& o, bool required = true) {
  auto* api = po::value<std::string>(&o.api);
  if (required) api->required();
  options.add_options()("help,h", "show this help")(
      "api", api,
      required ? "the API's base URL, ending in /api/external/v1"
               : "the API's base URL, ending in /api/external/v1: read the receipts the journal "
                 "left unread")(
      "api-key-file", cli::optional_value(&o.api_key_file),
      "read the API key from this file (default: the AIRLOCK_API_KEY environment variable)")(
      "pace-file", cli::optional_value(&o.pace_file),
      "pace requests together with every process using this file (default: $AIRLOCK_PACE_FILE, "
      "else ~/.local/state/airlock/pacing; 'none': this process alone)");
}

// Options that fall back to an environment variable, declared once for every command that has
// them. (The API key's variable, AIRLOCK_API_KEY, is a secret: the API client reads it into
// secure memory itself.)
const std::vector<cli::FromEnvironment> kEnvironment = {{"AIRLOCK_PACE_FILE", "pace-file"},
                                                        {"AIRLOCK_JOURNAL", "journal"}};

// The options of this invocation, as the printed `act` commands for the work left repeat them:
// " --name value" each, values shell words. A value an environment variable gave is repeated
// too, so the printed command runs the same in another shell.
void repeat(std::string& out, const char* name, const std::optional<std::string>& value) {
  // An empty value means the default (an empty environment variable, say): nothing to repeat.
  if (value && !value->empty()) out += std::string(" --") + name + " " + online::shell_word(*value);
}
void repeat_flag(std::string& out, const char* name, bool given) {
  if (given) out += std::string(" --") + name;
}
std::string repeated(const ApiOptions& o) {
  std::string out;
  repeat(out, "api", o.api);
  repeat(out, "api-key-file", o.api_key_file);
  repeat(out, "pace-file", o.pace_file);
  return out;
}

// A file in airlock's state folder, ~/.local/state/airlock (created when missing).
Result<std::string> state_file(const char* name, const char* how_else) {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0')
    return Error(ErrorCode::kUsage,
                 std::string("no HOME for the default ") + name + ": " + how_else);
  const std::filesystem::path dir = std::filesystem::path(home) / ".local/state/airlock";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error(ErrorCode::kIo, "cannot create " + dir.string() + ": " + ec.message());
  return (dir / name).string();
}

// The API's base URL as runs are recorded and matched: without trailing slashes, so
// `--api https://host/api/external/v1/` finds the runs made with `.../v1`.
std::string api_of(const ApiOptions& o) {
  std::string url = o.api;
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

Result<online::ApiClient> client_from(const ApiOptions& o) {
  AIRLOCK_TRY(key, online::ApiKey::load(o.api_key_file));
  // Requests are paced together with every other airlock-online on this machine, since the
  // per-address limits count them all.
  online::ClientOptions options;
  if (o.pace_file && !o.pace_file->empty()) {
    options.pace_file = *o.pace_file;
  } else {
    AIRLOCK_TRY(path, state_file("pacing", "give --pace-file FILE or --pace-file none"));
    options.pace_file = path;
  }
  if (options.pace_file == "none") options.pace_file.clear();
  return online::ApiClient::create(o.api, std::move(key), options);
}

Error api_error(const std::string& what, const online::Reply& reply) {
  return Error(online::errors::kApi, what + ": HTTP " + std::to_string(reply.failure->status) +
                                         " " + reply.failure->code + ": " + reply.failure->message);
}

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

// Where the request goes and the response comes from.
struct Transport {
  std::optional<std::string> request_file, request_png, request_html, response_file, response_qr;
  std::optional<std::string> response_camera;  // a V4L2 device watching the offline screen
  bool request_terminal = false;               // animate the request as QR in this terminal
  std::string camera_size = "1280x720";
  transfer::Options framing;  // the request's QR codes: dense, at the chosen --density
};

Status write_request(const Transport& t, const envelope::SignRequest& q) {
  const Bytes cbor = envelope::encode_request(q);
  if (t.request_file) {
    AIRLOCK_CHECK(files::write_atomically(
        *t.request_file, files::wrap_envelope(files::EnvelopeKind::kRequest, cbor)));
  }
  if (!t.request_png && !t.request_html) return {};
  AIRLOCK_TRY(sender,
              transfer::Sender::create({dense::ContentType::kSignRequest, cbor}, t.framing));
  AIRLOCK_TRY(pngs, qr_io::render_pngs(sender, qr_io::default_frame_count(sender), 4));
  if (t.request_html) {
    // One page to open full-screen in front of the offline machine's camera, counting down to
    // the deadline.
    html::PageOptions page;
    page.title = "airlock sign request: " + q.action;
    page.deadline_unix = q.deadline;
    const std::string text = html::animated_qr_page(pngs, page);
    AIRLOCK_CHECK(files::write_atomically(
        *t.request_html,
        ByteView(reinterpret_cast<const std::uint8_t*>(text.data()), text.size())));
    std::cerr << "airlock-online: request as an animated page in " << *t.request_html << "\n";
  }
  if (t.request_png) {
    // A fresh folder per round, so frames of an earlier request are never mixed in; written
    // beside and renamed into place, so a reader never sees half the frames.
    // "req/" names the same folder as "req" (the staging folder goes beside it, not inside).
    std::filesystem::path folder(*t.request_png);
    if (!folder.has_filename()) folder = folder.parent_path();
    if (!folder.has_filename()) {
      return Error(ErrorCode::kUsage, "--request-qr-png: must name a folder to create, not a root");
    }
    const std::string staging = folder.string() + ".partial";
    std::error_code ec;
    std::filesystem::remove_all(staging, ec);
    AIRLOCK_CHECK(qr_io::write_png_folder(pngs, staging));
    std::filesystem::remove_all(folder, ec);
    std::filesystem::rename(staging, folder, ec);
    if (ec) {
      return Error(ErrorCode::kIo,
                   "cannot move the request frames into " + *t.request_png + ": " + ec.message());
    }
    std::cerr << "airlock-online: request as " << pngs.size() << " QR frame(s) in "
              << *t.request_png << "\n";
  }
  return {};
}

// The response for this request, once it is complete; nullopt while it is not there yet.
// What a response location holds now: names, sizes and modification times. The wait loop reads
// and decodes only when this changes, not every quarter second.
std::string snapshot(const std::string& path) {
  std::error_code ec;
  std::string out;
  const auto describe = [&](const std::filesystem::path& p) {
    const auto size = std::filesystem::file_size(p, ec);
    const auto time = std::filesystem::last_write_time(p, ec);
    out += p.filename().string() + ":" + std::to_string(ec ? 0 : size) + ":" +
           std::to_string(time.time_since_epoch().count()) + ";";
  };
  if (std::filesystem::is_directory(path, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) describe(entry.path());
  } else if (std::filesystem::exists(path, ec)) {
    describe(path);
  }
  return out;
}

std::optional<envelope::SignResponse> try_response(const Transport& t,
                                                   const envelope::RequestId& id,
                                                   std::string& seen) {
  const std::string now = snapshot(t.response_file ? *t.response_file : *t.response_qr);
  if (now.empty() || now == seen) return std::nullopt;
  seen = now;
  Bytes cbor;
  if (t.response_file) {
    auto file = files::read_limited(*t.response_file, envelope::kMaxResponseBytes + 16);
    if (!file.ok()) return std::nullopt;
    auto unwrapped = files::unwrap_envelope(*file);
    if (!unwrapped.ok() || unwrapped->first != files::EnvelopeKind::kResponse) return std::nullopt;
    cbor = unwrapped->second;
  } else {
    if (!std::filesystem::is_directory(*t.response_qr)) return std::nullopt;
    auto source = frames::open_png_files({*t.response_qr});
    if (!source.ok()) return std::nullopt;
    auto received = qr_io::receive(**source, {.timeout = std::chrono::seconds(10)});
    if (!received.ok() || received->content.type != dense::ContentType::kSignResponse)
      return std::nullopt;
    cbor = received->content.bytes;
  }
  auto response = envelope::decode_response(cbor);
  if (!response.ok() || response->request_id != id) return std::nullopt;  // another round's
  return std::move(response).value();
}

// Reads the camera until a response to this request is complete or the deadline passes. A
// response still on the offline screen from an earlier round is read, recognised by its id and
// skipped.
std::optional<envelope::SignResponse> response_from_camera(frames::FrameSource& source,
                                                           const envelope::SignRequest& q) {
  for (;;) {
    const std::int64_t left = static_cast<std::int64_t>(q.deadline) - now_s();
    if (left <= 0) return std::nullopt;
    auto received = qr_io::receive(source, {.timeout = std::chrono::seconds(left),
                                            .on_progress = qr_io::terminal_progress(kProgram)});
    if (!received.ok()) return std::nullopt;  // the deadline passed or the stream ended
    if (received->content.type != dense::ContentType::kSignResponse) continue;
    auto response = envelope::decode_response(received->content.bytes);
    if (response.ok() && response->request_id == q.request_id) return std::move(response).value();
  }
}

// The journal: --journal, else AIRLOCK_JOURNAL, else ~/.local/state/airlock/journal.sqlite.
void journal_option(po::options_description& options, std::optional<std::string>& journal) {
  options.add_options()("journal", cli::optional_value(&journal),
                        "the SQLite journal (default: $AIRLOCK_JOURNAL, else "
                        "~/.local/state/airlock/journal.sqlite)");
}

// The journal lock of this process (act and resume), held until it exits.
std::optional<online::JournalLock> g_journal_lock;

// Opens the journal; `holder` (act, resume) also takes its lock, so no other process acts on
// it at the same time.
Result<online::Journal> open_journal(const std::optional<std::string>& journal,
                                     std::optional<std::string> holder = std::nullopt) {
  std::string path;
  if (journal && !journal->empty()) {
    path = *journal;
  } else {
    AIRLOCK_TRY(state, state_file("journal.sqlite", "give --journal FILE or set AIRLOCK_JOURNAL"));
    path = state;
  }
  if (holder) {
    AIRLOCK_TRY(lock, online::JournalLock::take(path, "airlock-online " + *holder));
    g_journal_lock.emplace(std::move(lock));
  }
  return online::Journal::open(path);
}

online::SendContext send_context(online::ApiClient& client, online::Journal& journal,
                                 const std::optional<std::string>& rpc) {
  return {client,    journal,
          now_s,     [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); },
          std::cerr, rpc ? online::rpc_prover(*rpc) : online::ChainProver{}};
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
      "The body comes from --body, from one flag per field, or both (flags win); every field\n"
      "is checked by rule before anything is sent.\n\n";
  if (!action) {
    usage += "actions (airlock-online act ACTION --help lists an action's fields):\n";
    for (const auto& a : online::builder_actions()) usage += "  " + a + "\n";
    usage += "\n";
  }
  return usage + "options";
}

// The offline half's channel: the request written or shown, the response awaited until the
// deadline (from the camera when one is given, else the response file or folder).
online::Courier courier_for(const Transport& t, frames::FrameSource* camera) {
  return [&t,
          camera](const envelope::SignRequest& q) -> Result<std::optional<envelope::SignResponse>> {
    AIRLOCK_CHECK(write_request(t, q));
    // The terminal animation runs beside the wait and stops when it ends.
    std::atomic<bool> stop_animation{false};
    std::optional<transfer::Sender> terminal_sender;
    std::thread animation;
    if (t.request_terminal) {
      AIRLOCK_TRY(sender,
                  transfer::Sender::create(
                      {dense::ContentType::kSignRequest, envelope::encode_request(q)}, t.framing));
      terminal_sender.emplace(std::move(sender));
      qr_io::TerminalOptions shown;
      shown.seconds = static_cast<int>(
          std::max<std::int64_t>(1, static_cast<std::int64_t>(q.deadline) - now_s()));
      shown.deadline_unix = q.deadline;
      shown.stop = &stop_animation;
      animation = std::thread(
          [&terminal_sender, shown] { (void)qr_io::animate_terminal(*terminal_sender, shown); });
    }
    std::optional<envelope::SignResponse> response;
    if (camera) {
      response = response_from_camera(*camera, q);
    } else {
      // On a terminal, the time left counts down on one line the whole time (the animation
      // shows it itself).
      const bool terminal = ::isatty(2) == 1 && !t.request_terminal;
      std::int64_t shown = -1;
      std::string seen;
      while (!(response = try_response(t, q.request_id, seen))) {
        const std::int64_t left = static_cast<std::int64_t>(q.deadline) - now_s();
        if (left < 0) break;
        if (terminal && left != shown) {
          std::cerr << "\rairlock-online: waiting for the offline half's signatures: " << left
                    << " s left   " << std::flush;
          shown = left;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
      }
      if (terminal && shown >= 0) std::cerr << "\n";
    }
    stop_animation = true;
    if (animation.joinable()) animation.join();
    return response;
  };
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
  std::optional<std::string> journal;
  std::map<std::string, std::optional<std::string>> fields;  // by flag name
};

po::options_description act_options_of(ActCommand& o, const std::vector<online::Field>* fields,
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
      "build (build it without asking), show (print the commands that would)");
  journal_option(options, o.journal);
  if (fields != nullptr) {
    po::options_description field_options("fields of " + *named);
    for (const auto& f : *fields) {
      const std::string flag = online::flag_name(f.name);
      field_options.add_options()(flag.c_str(), cli::optional_value(&o.fields[flag]),
                                  f.help.c_str());
    }
    options.add(field_options);
  }
  return options;
}

// The body: --body, then each field flag over it, checked by the action's rules.
Result<online::json> act_body(const ActCommand& o, const std::vector<online::Field>* fields) {
  online::json body = online::json::object();
  if (o.body) {
    body = online::json::parse(*o.body, nullptr, false);
    if (!body.is_object()) return Error(ErrorCode::kUsage, "--body: must be a JSON object");
  }
  if (fields != nullptr) {
    for (const auto& f : *fields) {
      const auto given = o.fields.find(online::flag_name(f.name));
      if (given == o.fields.end() || !given->second) continue;
      AIRLOCK_TRY(value, online::field_value(f, *given->second));
      body[f.name] = value;
    }
  }
  if (body.empty()) return Error(ErrorCode::kUsage, "act needs a body: --body JSON or field flags");
  AIRLOCK_CHECK(online::check_body(*o.action, body));
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
  if (o.remaining != "ask" && o.remaining != "build" && o.remaining != "show")
    return Error(ErrorCode::kUsage, "--remaining: must be ask, build or show");
  if (o.rpc) {
    if (auto s = online::check_transport(*o.rpc); !s.ok()) return s.error().in_field("--rpc");
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

int run_act(const std::vector<std::string>& args) {
  // The action comes first, so its fields can be offered as flags.
  std::optional<std::string> named;
  if (!args.empty() && !args[0].empty() && args[0][0] != '-') named = args[0];
  const std::vector<online::Field>* fields = named ? online::action_fields(*named) : nullptr;
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
                             rpc ? online::rpc_prover(*rpc) : online::ChainProver{}};
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
  if (auto s = online::act(context, act_options, first_action, *first_body); !s.ok())
    return report(s.error());
  return cli::kExitOk;
}

int run_resume(const std::vector<std::string>& args) {
  po::options_description options(
      "usage: airlock-online resume --api URL [--rpc URL] [--journal FILE]\n\n"
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
  }
  auto context = send_context(*client, *journal, rpc);
  for (const auto& run : *runs) {
    std::string recorded = run.api;
    while (!recorded.empty() && recorded.back() == '/') recorded.pop_back();
    if (recorded != api_of(api)) {
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
      auto plan =
          online::plan_after_stop(*client, *journal, run.id, run.body, now_s(), std::cerr, again);
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

int run_history(const std::vector<std::string>& args) {
  po::options_description options(
      "usage: airlock-online history [--journal FILE] [--json]\n\n"
      "Lists every run in the journal with its steps: signature, receipt and status.\n\noptions");
  bool json = false;
  std::optional<std::string> journal_file;
  options.add_options()("help,h", "show this help")("json", po::bool_switch(&json),
                                                    "print one JSON array");
  journal_option(options, journal_file);
  int code = 0;
  if (!cli::parse(kProgram, args, options, {}, code, kEnvironment)) return code;
  auto journal = open_journal(journal_file);
  if (!journal.ok()) return report(journal.error());
  auto runs = journal->runs(false);
  if (!runs.ok()) return report(runs.error());
  online::json all = online::json::array();
  for (const auto& run : *runs) {
    auto steps = journal->steps(run.id);
    if (!steps.ok()) return report(steps.error());
    online::json j = {{"run", run.id},
                      {"startedAt", run.started_at},
                      {"action", run.action},
                      {"body", run.body},
                      {"state", run.state},
                      {"note", run.note},
                      {"steps", online::json::array()}};
    for (const auto& st : *steps) {
      j["steps"].push_back({{"round", st.round},
                            {"step", st.step},
                            {"action", st.action},
                            {"status", st.status},
                            {"signature", st.signature},
                            {"receipt", st.receipt},
                            {"code", st.code},
                            {"builtAt", st.built_at},
                            {"sentAt", st.sent_at}});
    }
    all.push_back(std::move(j));
  }
  if (json) {
    std::cout << all.dump(2, ' ', true) << "\n";
    return cli::kExitOk;
  }
  for (const auto& j : all) {
    std::cout << "run " << j["run"].get<std::int64_t>() << "  "
              << printable(j["action"].get<std::string>()) << "  " << j["state"].get<std::string>()
              << "  " << printable(j["note"].get<std::string>()) << "\n";
    for (const auto& st : j["steps"]) {
      std::cout << "    round " << st["round"].get<int>() << " step " << st["step"].get<int>()
                << "  " << printable(st["action"].get<std::string>()) << "  "
                << st["status"].get<std::string>();
      const auto sent_at = st["sentAt"].get<std::int64_t>();
      if (sent_at != 0) {
        std::cout << "  sent with "
                  << st["builtAt"].get<std::int64_t>() + online::kTicketSeconds - sent_at
                  << " s left on its ticket";
      }
      std::cout << "  " << st["signature"].get<std::string>()
                << (st["code"].get<std::string>().empty()
                        ? ""
                        : "  " + printable(st["code"].get<std::string>()))
                << "\n";
    }
  }
  return cli::kExitOk;
}

// A receipt's status as the API reads it now: the spec's status word, or why it could not be
// read.
Result<std::string> receipt_status(online::ApiClient& client, const std::string& receipt) {
  AIRLOCK_TRY(reply, client.status(receipt));
  if (reply.failure) return api_error("status of receipt " + receipt, reply);
  std::string status = json_fields::text(reply.body, "status");
  if (!online::step_status::is_receipt_status(status)) {
    return Error(online::errors::kApi, "status of receipt " + receipt + ": '" + printable(status) +
                                           "' is not a receipt status the spec names");
  }
  return status;
}

// The report as JSON, or as text naming what is not accounted for.
void print_reconcile(const online::ReconcileReport& r, bool json) {
  if (json) {
    online::json out = {{"entries", r.entries},          {"exportHead", r.export_head},
                        {"accounted", r.accounted()},    {"signatures", online::json::array()},
                        {"journalOnly", r.journal_only}, {"missingHeads", r.missing_heads}};
    for (const auto& a : r.signatures) {
      out["signatures"].push_back({{"signature", a.signature},
                                   {"entry", a.entry},
                                   {"action", a.action},
                                   {"vault", a.vault},
                                   {"standing", online::standing_name(a.standing)},
                                   {"landedElsewhere", a.landed_elsewhere},
                                   {"detail", a.detail}});
    }
    std::cout << out.dump(2, ' ', true) << "\n";
  } else {
    std::map<std::string, std::size_t> counts;
    for (const auto& a : r.signatures) ++counts[online::standing_name(a.standing)];
    std::cout << r.entries << " audit entries (head "
              << (r.export_head.empty() ? "none" : r.export_head) << "), " << r.signatures.size()
              << " signature(s):";
    for (const auto& [name, n] : counts) std::cout << " " << n << " " << name << ";";
    std::cout << "\n";
    for (const auto& a : r.signatures) {
      if (a.standing == online::Standing::kLanded || a.standing == online::Standing::kFailed ||
          a.standing == online::Standing::kExpired)
        continue;
      std::cout << (a.standing == online::Standing::kNotSentHere ? "NOT ACCOUNTED  " : "  ")
                << a.signature << "  entry " << a.entry << "  " << printable(a.action) << "  vault "
                << a.vault << "  " << online::standing_name(a.standing) << ": "
                << printable(a.detail) << "\n";
    }
    for (const auto& s : r.journal_only) {
      std::cout << "NOT IN THE LOG  " << printable(s)
                << "  the journal holds this step, signed by the log's manager, and the log does "
                   "not: the log was cut or another log signed\n";
    }
    for (const auto& h : r.missing_heads) {
      std::cout << "HEAD MISSING    " << printable(h)
                << "  a response carried this audit head and the export does not hold it: the "
                   "export is older than that answer, or the log was cut short\n";
    }
    std::cout << (r.accounted() ? "every signature is accounted for\n"
                                : "NOT every signature is accounted for (above)\n");
  }
}

// What reconcile may ask the RPC node: the outcome of a send, and whether a signature is on
// chain at all.
void with_rpc(online::ReconcileOptions& options, const std::string& rpc) {
  options.prove = online::rpc_prover(rpc);
  options.on_chain = [rpc](const std::string& signature) -> Result<bool> {
    AIRLOCK_TRY(reply, online::rpc_call(rpc, "getSignatureStatuses",
                                        online::json::array({online::json::array({signature}),
                                                             {{"searchTransactionHistory", true}}}),
                                        std::chrono::seconds(20)));
    const auto* value = reply.is_object() && reply.contains("value") && reply["value"].is_array() &&
                                !reply["value"].empty()
                            ? &reply["value"][0]
                            : nullptr;
    if (value == nullptr)
      return Error(online::errors::kHttp, "getSignatureStatuses: an answer without value[0]");
    return !value->is_null();
  };
}

int run_reconcile(const std::vector<std::string>& args) {
  po::options_description options(
      "usage: airlock-online reconcile --audit-export FILE --head HEX [--journal FILE]\n"
      "                                [--api URL] [--rpc URL] [--accept-keystone] [--json]\n\n"
      "Accounts for every signature the offline key made: the offline audit log, exported with\n"
      "`airlock-offline log export`, joined with this journal. Each signature is landed, failed,\n"
      "expired (provably never lands), unknown (sent or signed here, not settled: run resume),\n"
      "or NOT SENT BY THIS ONLINE HALF. With --api the receipts of steps the journal leaves open\n"
      "are read (confirmed or failed settles them; the journal is not written: resume records).\n"
      "With --rpc the node settles what is still open and says whether a signature never sent\n"
      "here is on chain anyway. Also named: journal steps\n"
      "by the log's managers that the log does not hold (the log was cut, or another log\n"
      "signed) and audit heads that responses carried and the export lacks (an export older than\n"
      "the last answer, or a log cut short). --head is the head `log export` printed on the\n"
      "offline machine's screen, typed here: the export must end exactly there (a chain checks\n"
      "itself only from within; without that anchor whoever carried it could cut its end or\n"
      "bring another chain). Exit 0 when everything is accounted for, 1 when anything above is\n"
      "named.\n\noptions");
  std::string path;
  std::string head_text;
  std::optional<std::string> rpc;
  std::optional<std::string> journal_file;
  bool json = false;
  online::ReconcileOptions reconcile_options;
  ApiOptions api;
  api_options(options, api, false);
  options.add_options()(
      "audit-export", po::value<std::string>(&path)->required(),
      "the exported audit log (airlock-offline log export --out, or airlock-qr decode --out)")(
      "head", po::value<std::string>(&head_text)->required(),
      "the head `airlock-offline log export` showed (64 hex digits), read off its screen")(
      "rpc", cli::optional_value(&rpc),
      "a Solana RPC URL (keeping transaction history) to settle open steps on chain")(
      "accept-keystone", po::bool_switch(&reconcile_options.accept_keystone),
      "Keystone requests' signatures were answered to another wallet: accounted for")(
      "json", po::bool_switch(&json), "print the report as JSON");
  journal_option(options, journal_file);
  int code = 0;
  if (!cli::parse(kProgram, args, options, {}, code, kEnvironment)) return code;
  auto head = audit::parse_head(head_text, "--head");
  if (!head.ok()) return report(head.error());
  auto text = files::read_limited(path, std::size_t{64} << 20);
  if (!text.ok()) return report(text.error());
  auto journal = open_journal(journal_file);
  if (!journal.ok()) return report(journal.error());
  reconcile_options.expected_head = *head;
  std::optional<online::ApiClient> client;
  if (!api.api.empty()) {
    auto made = client_from(api);
    if (!made.ok()) return report(made.error());
    client.emplace(std::move(made).value());
    reconcile_options.receipt_status = [&client](const std::string& receipt) {
      return receipt_status(*client, receipt);
    };
  }
  if (rpc) {
    if (auto s = online::check_transport(*rpc); !s.ok()) return report(s.error().in_field("--rpc"));
    with_rpc(reconcile_options, *rpc);
  }
  auto result =
      online::reconcile(std::string_view(reinterpret_cast<const char*>(text->data()), text->size()),
                        path, *journal, reconcile_options, now_s());
  if (!result.ok()) return report(result.error());
  const auto& r = *result;
  print_reconcile(r, json);
  return r.accounted() ? cli::kExitOk : cli::kExitRejected;
}

}  // namespace

int main(int argc, char** argv) {
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
