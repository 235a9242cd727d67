// airlock-offline: the air-gapped half. Exit codes (docs/cli.md):
//   0 success, 1 input rejected (the message names the rule), 2 usage error, 3 I/O error.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sodium.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <airlock/cli/options.h>
#include <airlock/common/display.h>
#include <airlock/common/fd.h>
#include <airlock/common/secret.h>
#include <airlock/formats/audit_record.h>
#include <airlock/formats/density.h>
#include <airlock/formats/files.h>
#include <airlock/formats/keystone.h>
#include <airlock/formats/qr_io.h>
#include <airlock/hardening/lockdown.h>
#include <airlock/offline/derivation.h>
#include <airlock/offline/inspect.h>
#include <airlock/offline/interfaces.h>
#include <airlock/offline/keystore.h>
#include <airlock/offline/secret_input.h>
#include <airlock/offline/signing.h>
#include <airlock/offline/summary.h>

#include "shared.h"

namespace po = boost::program_options;
using airlock::Error;
using airlock::ErrorCode;

namespace offline_cli {

std::int64_t unix_now() {
  return static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                       std::chrono::system_clock::now().time_since_epoch())
                                       .count());
}

namespace {

constexpr std::string_view kUsage =
    "usage: airlock-offline <command> [options]\n"
    "\n"
    "commands:\n"
    "  inspect   show the structure of a transaction or message\n"
    "  init      make a new manager key from fresh recovery words (BIP39 or SLIP-0039 shares)\n"
    "  import    put an existing key (recovery words, shares or a keypair file) in a keystore\n"
    "  pubkey    print the manager public key of a keystore\n"
    "  backup    verify recovery words or shares against a keystore, writing nothing\n"
    "  passphrase  change a keystore's passphrase\n"
    "  sign      review a sign request against the policy, ask, sign, and write the response\n"
    "  review    show what sign would show for a request, and its verdict, without the key\n"
    "  descriptor  check a descriptor against its IDLs and print the policy entry pinning it\n"
    "  policy    check a policy as sign would read it, and say what it will do\n"
    "  log       verify, list or export the audit log\n"
    "\n"
    "Run 'airlock-offline <command> --help' for a command's options.\n";

}  // namespace

int report(const Error& error) { return airlock::cli::report(kProgram, error); }

std::string default_idl_dir() {
  // Installed: <prefix>/share/airlock/idl; from a build tree, the source tree's offline/idl.
  return airlock::cli::beside_executable("share/airlock/idl", "offline/idl");
}

std::string default_descriptor_dir() {
  return airlock::cli::beside_executable("share/airlock/descriptors", "offline/descriptors");
}

// What main() learnt from the process lock-down, for the commands that handle secrets.
airlock::hardening::ProcessReport g_process;

// The option every command that handles the key accepts.
void add_network_override(po::options_description& options, bool& allow) {
  options.add_options()("unsafe-allow-network", po::bool_switch(&allow),
                        "run even though a network interface is up (tests and demos only; "
                        "reported on every run)");
}

// Run by init, import, backup verify, passphrase and sign before they touch a secret: refuse while
// a network interface is up (unless overridden, loudly) and say when memory could not be locked as
// a whole.
airlock::Status check_air_gap(bool allow_network) {
  auto interfaces = airlock::hardening::list_interfaces("/sys/class/net");
  if (!interfaces.ok()) return interfaces.error();
  auto refusal = airlock::hardening::refuse_network(*interfaces);
  if (!refusal.ok()) {
    if (!allow_network) return refusal.error();
    std::cerr << "airlock-offline: WARNING: THIS MACHINE IS NOT AIR-GAPPED: "
              << refusal.error().message()
              << "\nairlock-offline: WARNING: continuing only because --unsafe-allow-network "
                 "was given\n";
  }
  if (!g_process.memory_locked)
    std::cerr << "airlock-offline: note: " << g_process.memory_note << "\n";
  return {};
}

// init, import, backup verify and passphrase: the air-gap check, then the syscall allowlist before
// any secret exists; its proof opens a keystore.
airlock::Result<airlock::hardening::LockedDown> enter_secret_mode(bool allow_network) {
  if (auto s = check_air_gap(allow_network); !s.ok()) return s.error();
  return airlock::hardening::install_syscall_allowlist();
}

}  // namespace offline_cli

namespace {

using namespace offline_cli;

struct InspectOptions {
  std::optional<std::string> input;  // FILE; standard input when absent or "-"
  bool json = false;
  bool binary = false;
  bool transaction = false;
  bool message = false;
  std::string idl_dir = default_idl_dir();
};

int run_inspect(const std::vector<std::string>& args) {
  InspectOptions o;
  po::options_description options(
      "usage: airlock-offline inspect [options] [FILE|-]\n\n"
      "Shows the structure of a transaction or message read from FILE (or standard input):\n"
      "version, header, fee payer, every account with its role and origin, the blockhash,\n"
      "each instruction decoded where a built-in decoder or an IDL knows its program, lookups,\n"
      "signatures checked against the message, and durable-nonce use.\n\noptions");
  options.add_options()("help,h", "show this help")("json", po::bool_switch(&o.json),
                                                    "print one JSON object instead of text")(
      "binary", po::bool_switch(&o.binary), "the input is raw bytes, not base64")(
      "transaction", po::bool_switch(&o.transaction),
      "the input must be a transaction (default: a transaction if it parses)")(
      "message", po::bool_switch(&o.message),
      "the input is a bare message (the bytes that are signed)")(
      "idl-dir", po::value<std::string>(&o.idl_dir)->default_value(o.idl_dir),
      "folder of Anchor IDL files for decoding instructions of other programs");
  int exit_code = 0;
  if (!airlock::cli::parse(kProgram, args, options, {{"input", &o.input}}, exit_code))
    return exit_code;
  if (o.transaction && o.message) {
    return report(Error(ErrorCode::kUsage, "--transaction and --message exclude each other"));
  }
  auto kind = airlock::offline::InputKind::kAuto;
  if (o.transaction) kind = airlock::offline::InputKind::kTransaction;
  if (o.message) kind = airlock::offline::InputKind::kMessage;
  const auto encoding = o.binary ? airlock::offline::InputEncoding::kBinary
                                 : airlock::offline::InputEncoding::kBase64;

  auto raw =
      airlock::files::read_limited(o.input.value_or("-"), airlock::offline::kMaxInspectInputBytes);
  if (!raw.ok()) return report(raw.error());
  auto bytes = airlock::offline::decode_inspect_input(*raw, encoding);
  if (!bytes.ok()) return report(bytes.error());
  auto inspection = airlock::offline::inspect_bytes(*bytes, kind);
  if (!inspection.ok()) return report(inspection.error());
  airlock::offline::DecoderRegistry decoders;
  if (auto s = decoders.add_idl_folder(o.idl_dir); !s.ok()) return report(s.error());
  airlock::offline::decode_instructions(*inspection, decoders);

  if (o.json) {
    std::cout << airlock::offline::inspection_to_json(*inspection).dump(2, ' ', true) << "\n";
  } else {
    std::cout << airlock::offline::inspection_to_text(*inspection);
  }
  return airlock::cli::kExitOk;
}

// One short answer line from a descriptor (not a secret). Empty on end of input.
airlock::Result<std::string> read_answer(int fd) {
  std::string line;
  char c = 0;
  while (line.size() < 64) {
    const ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error(ErrorCode::kIo, "cannot read the answer");
    if (n == 0 || c == '\n') break;
    line.push_back(c);
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

// An answer in lower case, so Y and YES count as y and yes.
std::string lowered(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char ch) { return std::tolower(ch); });
  return text;
}

// A line read at a prompt with echo off, and shown back once Enter is typed: the answers the
// prompt knows as typed, anything else only by its length, so a passphrase typed at the y/N
// prompt by mistake never reaches the screen (an operator walk-through did just that).
airlock::Result<std::string> read_answer_quietly(int tty) {
  auto answer = read_answer(tty);
  if (!answer.ok()) return answer;
  static constexpr std::string_view kShown[] = {"y", "yes", "n", "no", "d", "details", "q", "quit"};
  const std::string a = lowered(*answer);
  const bool known =
      a.empty() || std::find(std::begin(kShown), std::end(kShown), a) != std::end(kShown);
  const std::string echo =
      known ? *answer + "\n"
            : "(" + std::to_string(answer->size()) + " characters, not shown: not an answer)\n";
  (void)!::write(tty, echo.data(), echo.size());
  return answer;
}

// What the operator is asked about: how many transactions, until when (none for a Keystone
// request), the decision screen and the details behind it.
struct Question {
  std::size_t steps = 0;
  bool approval = false;                 // an approval request: no transaction yet
  std::optional<std::int64_t> deadline;  // unix
  // The decision screen as of a time: drawn again after the details, its deadline line current.
  std::function<std::string(std::int64_t)> decision;
  std::string details;
};

// The prompt line, padded to one width so that rewriting it covers the last one: the question
// and the seconds left, said louder under 15.
std::string prompt_line(const Question& q, std::int64_t now) {
  std::string p = q.approval
                      ? std::string("Approve this intent? [y/N, d: details]")
                      : "Sign " + std::to_string(q.steps) + " transaction(s)? [y/N, d: details]";
  if (q.deadline) {
    const std::int64_t left = std::max<std::int64_t>(*q.deadline - now, 0);
    p += (left < 15 ? "  ONLY " : "  ") + std::to_string(left) + " s left";
  }
  p.resize(std::max<std::size_t>(p.size(), 66), ' ');
  return p + " ";
}

// The terminal's height in rows (24 when it does not say).
std::size_t terminal_rows(int tty) {
  winsize size{};
  if (::ioctl(tty, TIOCGWINSZ, &size) == 0 && size.ws_row >= 6) return size.ws_row;
  return 24;
}

// Ctrl-C at the question: set by the handler QuestionInterrupt installs, read by the wait.
volatile std::sig_atomic_t g_question_interrupted = 0;

// While the operator is asked, an interrupt (Ctrl-C) is an answer: no. The question ends at once
// and sign writes the decline (the online half learns it now rather than at the deadline); a
// second interrupt after it ends the process as usual (the handler before comes back).
class QuestionInterrupt {
 public:
  QuestionInterrupt() {
    g_question_interrupted = 0;
    struct sigaction action {};
    action.sa_handler = [](int) { g_question_interrupted = 1; };
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: the wait sees EINTR
    ::sigaction(SIGINT, &action, &previous_);
  }
  ~QuestionInterrupt() { ::sigaction(SIGINT, &previous_, nullptr); }
  QuestionInterrupt(const QuestionInterrupt&) = delete;
  QuestionInterrupt& operator=(const QuestionInterrupt&) = delete;

 private:
  struct sigaction previous_ {};
};

// Whether an interrupt came while the operator was asked (said once, as the no it is).
bool interrupted_at_question(int tty) {
  if (g_question_interrupted == 0) return false;
  if (g_question_interrupted == 1) {
    const std::string_view said = "\nairlock-offline: interrupted at the prompt: that is a no\n";
    (void)!::write(tty, said.data(), said.size());
    g_question_interrupted = 2;
  }
  return true;
}

// Waits for a line on the terminal, rewriting `line(now)` in place each second; false when the
// deadline passes first (said), on an interrupt (said: a decline), or the terminal fails.
bool wait_for_line(int tty, const Question& q, const std::function<std::string()>& line) {
  const auto put = [&](const std::string& text) { (void)!::write(tty, text.data(), text.size()); };
  for (;;) {
    if (interrupted_at_question(tty)) return false;
    if (q.deadline && unix_now() >= *q.deadline) {
      put("\nairlock-offline: the deadline passed at the prompt: its tickets are dead, so "
          "nothing is signed\n");
      return false;
    }
    pollfd waiting{tty, POLLIN, 0};
    const int ready = ::poll(&waiting, 1, 1000);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return false;
    if (ready > 0) return true;
    if (q.deadline)
      put("\x1b"
          "7\r" +
          line() +
          "\x1b"
          "8");
  }
}

std::size_t terminal_columns(int tty) {
  winsize size{};
  if (::ioctl(tty, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20) return size.ws_col;
  return 80;
}

// The details as the terminal shows them: each line cut into rows of at most `columns`
// characters (UTF-8 code points), so a page of rows fills the screen and no row the terminal
// would wrap pushes the page's first rows off it.
std::vector<std::string> display_rows(const std::string& text, std::size_t columns) {
  // The byte where the code point after the first `n` begins, or npos when `s` has no more.
  const auto after = [](const std::string& s, std::size_t n) {
    std::size_t points = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
      if (points++ == n) return i;
    }
    return std::string::npos;
  };
  std::vector<std::string> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    // A row too long breaks at its last space, or after its last comma (the request's JSON
    // body has no spaces), so a key or hash is not cut in two where the text allows; the rest
    // goes on under the line's own indentation, two deeper.
    const std::size_t lead = std::min(line.find_first_not_of(' '), line.size());
    const std::string indent(std::min(lead + 2, columns / 2), ' ');
    std::string rest = line;
    for (bool first = true;; first = false) {
      const std::string prefix = first ? std::string() : indent;
      const std::size_t cut = after(rest, columns - prefix.size());
      if (cut == std::string::npos) {
        rows.push_back(prefix + rest);
        break;
      }
      const std::size_t space = rest.rfind(' ', cut);
      const std::size_t comma = cut == 0 ? std::string::npos : rest.rfind(',', cut - 1);
      const std::size_t floor = first ? lead : 0;
      const bool at_space = space != std::string::npos && space > floor;
      const bool at_comma =
          comma != std::string::npos && comma >= floor && (!at_space || comma + 1 > space);
      const std::size_t end = at_comma ? comma + 1 : at_space ? space : cut;
      rows.push_back(prefix + rest.substr(0, end));
      rest = rest.substr(at_comma ? end : at_space ? space + 1 : cut);
      if (rest.empty()) break;
    }
  }
  return rows;
}

// The details a screenful at a time, so the decision is never scrolled away for good: Enter for
// the next page, q back to the decision; the seconds left tick on the pager's line too. False
// when the deadline passed while reading.
bool page_details(int tty, const Question& q) {
  const auto put = [&](const std::string& text) { (void)!::write(tty, text.data(), text.size()); };
  const std::vector<std::string> lines = display_rows(q.details, terminal_columns(tty));
  const std::size_t page = terminal_rows(tty) - 2;
  put("\n");
  for (std::size_t first = 0; first < lines.size(); first += page) {
    const std::size_t last = std::min(lines.size(), first + page);
    std::string text;
    for (std::size_t i = first; i < last; ++i) text += lines[i] + "\n";
    put(text);
    if (last == lines.size()) break;
    const auto pager = [&] {
      std::string p = "-- details, lines " + std::to_string(first + 1) + "-" +
                      std::to_string(last) + " of " + std::to_string(lines.size()) +
                      ": Enter for more, q to go back --";
      if (q.deadline)
        p += "  " + std::to_string(std::max<std::int64_t>(*q.deadline - unix_now(), 0)) + " s left";
      p.resize(std::max<std::size_t>(p.size(), 66), ' ');
      return p + " ";
    };
    put(pager());
    if (!wait_for_line(tty, q, pager)) return false;
    auto answer = read_answer_quietly(tty);
    if (!answer.ok()) return false;
    const std::string a = lowered(*answer);
    if (a == "q" || a == "quit") break;
  }
  return true;
}

// On the terminal: the decision screen, then the prompt, its seconds left ticking in place
// (the cursor saved, the line rewritten from its start, the cursor put back where the typing
// is). d shows the details and asks again; the deadline passing ends the prompt, unsigned.
bool ask_terminal(int tty, const Question& q) {
  const auto put = [&](const std::string& text) { (void)!::write(tty, text.data(), text.size()); };
  const airlock::offline::QuietTerminal quiet(tty, false);
  const QuestionInterrupt interrupt;  // after quiet: its handler is the one put back after
  put(q.decision(unix_now()));
  for (;;) {
    put(prompt_line(q, unix_now()));
    if (!wait_for_line(tty, q, [&] { return prompt_line(q, unix_now()); })) return false;
    auto answer = read_answer_quietly(tty);
    // An interrupt as the line arrived (Ctrl-C then Enter) is still the no it was.
    if (!answer.ok() || interrupted_at_question(tty)) return false;
    const std::string a = lowered(*answer);
    if (a == "d" || a == "details") {
      if (!page_details(tty, q)) return false;
      put("\n" + q.decision(unix_now()));
      continue;
    }
    return a == "y" || a == "yes";
  }
}

// Asks on the controlling terminal, or reads the answer from `fd`. Only y or yes signs; anything
// else, an empty line included, declines.
bool ask(int fd, const Question& q) {
  if (fd < 0) {
    airlock::UniqueFd tty(::open("/dev/tty", O_RDWR | O_CLOEXEC));
    if (!tty.valid()) {
      std::cerr << "airlock-offline: no terminal to ask on; declining (use --confirm-fd)\n";
      return false;
    }
    return ask_terminal(tty.get(), q);
  }
  if (q.approval)
    std::cerr << "Approve this intent? [y/N] ";
  else
    std::cerr << "Sign all " << q.steps << " transaction(s) above? [y/N] ";
  auto answer = read_answer(fd);
  std::cerr << "\n";
  if (!answer.ok()) return false;
  const std::string a = lowered(*answer);
  return a == "y" || a == "yes";
}

// Where sign's response and log's export go as QR codes: PNG frames, the terminal.
struct QrOutput {
  std::optional<std::string> png;
  bool terminal = false;
  int seconds = 60;
  std::string density = "medium";
  [[nodiscard]] bool any() const { return png || terminal; }
};

void add_qr_output(po::options_description& options, QrOutput& out, const char* png_help,
                   const char* terminal_help, const char* density_help) {
  options.add_options()("qr-png", airlock::cli::optional_value(&out.png), png_help)(
      "qr-terminal", po::bool_switch(&out.terminal), terminal_help)(
      "qr-seconds",
      airlock::cli::value_in(&out.seconds, 1, 3600, "qr-seconds")->default_value(out.seconds),
      "how long --qr-terminal animates")(
      "density", po::value<std::string>(&out.density)->default_value(out.density), density_help);
}

// The QR output's options, checked before anything is read or decided: the density, and a
// --qr-png folder that holds nothing but frames (anything else there is the operator's).
airlock::Result<airlock::density::Density> check_qr_output(const QrOutput& out) {
  if (out.png) {
    if (auto s = airlock::qr_io::check_png_folder(*out.png); !s.ok())
      return s.error().in_field("--qr-png");
  }
  return airlock::density::parse(out.density);
}

// Shows `content` as QR frames where `out` says: PNG files in --qr-png DIR, animated on the
// terminal with --qr-terminal (for --qr-seconds, or until `deadline_unix`).
airlock::Status show_as_qr(const airlock::transfer::Content& content, const QrOutput& out,
                           airlock::density::Density density, airlock::transfer::Framing framing,
                           std::optional<std::uint64_t> deadline_unix, std::string_view what) {
  if (!out.any()) return {};
  airlock::transfer::Options options;
  options.framing = framing;
  airlock::density::apply(density, options);
  AIRLOCK_TRY(sender, airlock::transfer::Sender::create(content, options));
  if (out.png) {
    AIRLOCK_TRY(
        pngs, airlock::qr_io::render_pngs(sender, airlock::qr_io::default_frame_count(sender), 6));
    AIRLOCK_CHECK(airlock::qr_io::write_png_folder(pngs, *out.png));
    std::cerr << "airlock-offline: " << what << " written as " << pngs.size() << " QR frame(s) to "
              << *out.png << "\n";
  }
  if (out.terminal) {
    airlock::qr_io::TerminalOptions terminal;
    terminal.seconds = out.seconds;
    terminal.deadline_unix = deadline_unix;
    AIRLOCK_CHECK(airlock::qr_io::animate_terminal(sender, terminal));
  }
  return {};
}

struct SignOptions {
  std::string keystore;
  std::string policy;
  std::string audit_log;
  std::optional<std::string> out;
  QrOutput qr;
  std::string idl_dir = default_idl_dir();
  std::string descriptor_dir = default_descriptor_dir();
  int passphrase_fd = -1;
  int confirm_fd = -1;
  bool auto_approve = false;
  bool json = false;
  bool details = false;
  bool then_build = false;  // after an approval, hold the key open and sign its build
  RequestSource source;
  bool allow_network = false;
};

po::options_description sign_options(SignOptions& o) {
  po::options_description options(
      "usage: airlock-offline sign --keystore FILE --policy FILE --audit-log FILE\n"
      "                            (REQUEST | --qr IMAGE... | --raw WxH | --camera DEVICE)\n"
      "                            (--out FILE | --qr-png DIR | --qr-terminal)...\n\n"
      "Reviews a sign request against the policy, shows what it would sign, asks once for the\n"
      "whole batch, signs every step, records the decision in the audit log and answers with a\n"
      "response for the online half: the signatures, or the refusal and its reasons. The request\n"
      "is an .alreq file (- for standard input) or QR codes: PNG images or folders, a raw gray\n"
      "frame stream on standard input, or a camera. The response goes to a file, PNG frames or\n"
      "the terminal. Exit 0 when signed, 1 when refused or declined (the response is still\n"
      "given).\n\n"
      "A Keystone ur:sol-sign-request (a file of its UR text, or QR codes) is read the same way\n"
      "and reviewed under the same policy, but it carries no intent: the screen says so, it is\n"
      "never auto-approved, and it is answered, only when signed, with a ur:sol-signature (UR\n"
      "text file, or BC-UR QR frames).\n\noptions");
  options.add_options()("help,h", "show this help")(
      "keystore", po::value<std::string>(&o.keystore)->required(), "keystore file")(
      "policy", po::value<std::string>(&o.policy)->required(), "policy file (docs/policy.md)")(
      "audit-log", po::value<std::string>(&o.audit_log)->required(),
      "audit log (docs/audit-log.md); created when missing unless the policy sets [limits], "
      "which need a log begun by `log start`")("out,o", airlock::cli::optional_value(&o.out),
                                               "write the response file (.alres) here");
  add_qr_output(options, o.qr, "write the response as QR frames into this folder",
                "show the response as animated QR codes in this terminal",
                "the response's QR codes: high (fewest frames, for a 720p camera close to the "
                "screen), medium (any webcam), low (a poor camera)");
  options.add_options()("idl-dir", po::value<std::string>(&o.idl_dir)->default_value(o.idl_dir),
                        "folder of the Anchor IDL files the policy's descriptors pin")(
      "descriptor-dir", po::value<std::string>(&o.descriptor_dir)->default_value(o.descriptor_dir),
      "folder of the descriptors the policy pins ([[descriptors]], docs/descriptors.md)")(
      "passphrase-fd",
      airlock::cli::descriptor(&o.passphrase_fd, "passphrase-fd")->default_value(-1),
      "read the keystore passphrase from this file descriptor instead of the terminal")(
      "confirm-fd", airlock::cli::descriptor(&o.confirm_fd, "confirm-fd")->default_value(-1),
      "read the yes/no answer from this file descriptor instead of the terminal")(
      "auto-approve", po::bool_switch(&o.auto_approve),
      "sign without asking where the policy marks the action auto_approve and nothing warns")(
      "json", po::bool_switch(&o.json), "print the summary as JSON instead of text")(
      "details", po::bool_switch(&o.details),
      "print every step, instruction, account and binding before the decision screen (on a "
      "terminal they are otherwise shown on request: d at the prompt)")(
      "then-build", po::bool_switch(&o.then_build),
      "after approving an approval request, open the key at once (the passphrase typed now, "
      "at leisure) and wait, until the approval expires, for the build of that intent in the "
      "same REQUEST file or --qr folders; sign it as any request (without a question under the "
      "approval when nothing warns) and close the key");
  add_request_source(options, o.source);
  add_network_override(options, o.allow_network);
  return options;
}

// Writes the answer where the options say: a file, QR frames, or both.
airlock::Status write_answer(const SignOptions& o, const airlock::transfer::Content& answer,
                             bool keystone, airlock::density::Density density,
                             std::uint64_t deadline) {
  if (o.out) {
    const auto bytes = keystone ? airlock::qr_io::file_bytes(answer)
                                : airlock::files::wrap_envelope(
                                      airlock::files::EnvelopeKind::kResponse, answer.bytes);
    AIRLOCK_CHECK(airlock::files::write_atomically(*o.out, bytes));
    std::cerr << "airlock-offline: " << (keystone ? "ur:sol-signature" : "response")
              << " written to " << *o.out << "\n";
  }
  return show_as_qr(answer, o.qr, density,
                    keystone ? airlock::transfer::Framing::kUr : airlock::transfer::Framing::kDense,
                    keystone ? std::nullopt : std::optional<std::uint64_t>(deadline), "response");
}

// A Keystone request's answer, its ur:sol-signature, which exists only when signed: a refusal
// is said here, since Keystone's format cannot carry one.
std::optional<airlock::transfer::Content> keystone_signature(
    const airlock::keystone::SolSignRequest& request,
    const airlock::offline::SigningOutcome& outcome) {
  auto signature = airlock::offline::keystone_answer(request, outcome);
  if (!signature.ok()) {
    const auto* refusal = std::get_if<airlock::envelope::Refusal>(&outcome.response.result);
    std::cerr << "airlock-offline: "
              << (refusal ? airlock::printable(airlock::envelope::describe(*refusal)) : "")
              << "\nairlock-offline: Keystone's format carries no refusal, so no answer was "
                 "written\n";
    return std::nullopt;
  }
  return airlock::transfer::Content{airlock::dense::ContentType::kKeystoneSignature,
                                    airlock::keystone::encode_signature(*signature)};
}

// sign's options that can be judged before anything is read: where the response goes (each
// output writable, none of them an input) and where the request comes from; the QR density
// the response is shown at.
airlock::Result<airlock::density::Density> check_sign_options(const SignOptions& o) {
  auto chosen_density = check_qr_output(o.qr);
  if (!chosen_density.ok()) return chosen_density.error();
  if (!o.out && !o.qr.any()) {
    return Error(ErrorCode::kUsage,
                 "choose where the response goes: --out FILE, --qr-png DIR or --qr-terminal");
  }
  AIRLOCK_CHECK(check_request_source(o.source));
  if (o.then_build && !o.source.file && o.source.qr.empty()) {
    return Error(ErrorCode::kUsage,
                 "--then-build waits for the build in the same REQUEST file or --qr folders; "
                 "with --raw or --camera, run sign again for the build");
  }
  if (o.then_build && o.source.file && *o.source.file == "-")
    return Error(ErrorCode::kUsage, "--then-build needs a REQUEST file to watch, not -");
  if (o.out) {
    AIRLOCK_CHECK(airlock::files::check_outputs({{"--out", *o.out}},
                                                {{"--keystore", o.keystore},
                                                 {"--policy", o.policy},
                                                 {"--audit-log", o.audit_log},
                                                 {"REQUEST", o.source.file.value_or("")}}));
  }
  return chosen_density;
}

// The log sign records in. Limits count from it, so under [limits] it must say what came
// before it and is never begun here; a closed log was continued in another and takes nothing
// more; a log nearing its bound is said.
airlock::Result<airlock::offline::AuditLog> open_sign_log(const std::string& path,
                                                          const airlock::offline::Policy& policy) {
  using airlock::offline::AuditLog;
  std::error_code ec;
  const bool existed = std::filesystem::exists(path, ec);
  AIRLOCK_TRY(log, AuditLog::open(path, policy.limits.any() ? AuditLog::IfMissing::kRefuse
                                                            : AuditLog::IfMissing::kCreate));
  AIRLOCK_CHECK(log.check_not_closed());
  // A mistyped path starts a log of its own, which the real one never hears of: said, loudly,
  // with what the log it appends to holds, so a wrong file is seen before a decision goes there.
  if (!existed)
    std::cerr << "airlock-offline: NOTE: there was no audit log at " << airlock::printable(path)
              << ": a new one was started there, begun by nothing (log start says what came "
                 "before a log); if your log is elsewhere, answer no and give its path\n";
  else
    std::cerr << "airlock-offline: audit log " << airlock::printable(path) << ": "
              << log.entries().size() << " entries"
              << (log.entries().empty()
                      ? std::string()
                      : ", the last at " + airlock::iso_utc(log.entries().back().time))
              << "\n";
  if (log.bytes() > (std::size_t{56} << 20))
    std::cerr << "airlock-offline: the audit log holds " << (log.bytes() >> 20)
              << " MiB of its 64: continue it in a new one soon (log start --continue-from)\n";
  return log;
}

// A request signed before: which, when, that nothing new is signed, and whether its deadline
// is long gone (a file from yesterday).
void say_reissued(const airlock::envelope::SignRequest& request,
                  const airlock::offline::SigningOutcome& outcome) {
  std::cout << "Sign request "
            << airlock::to_hex(
                   airlock::ByteView(request.request_id.data(), request.request_id.size()))
            << " (" << airlock::printable(request.action) << ", " << request.steps.size()
            << " step(s)) was already signed"
            << (outcome.first_signed_at ? " at " + airlock::iso_utc(*outcome.first_signed_at) : "")
            << ": the same signatures are given again, nothing new is signed.\n";
  const std::int64_t now = unix_now();
  if (request.action != airlock::offline::kKeystoneAction &&
      now > static_cast<std::int64_t>(std::min<std::uint64_t>(request.deadline, INT64_MAX))) {
    std::cout << "Its deadline passed " << now - static_cast<std::int64_t>(request.deadline)
              << " s ago: unless the online half sent them in time, they cannot land now.\n";
  }
}

// An approval given, or a signature given without a question under one (docs/approvals.md).
void say_approval(const airlock::offline::SigningOutcome& outcome) {
  if (const auto* approval = std::get_if<airlock::envelope::Approval>(&outcome.response.result)) {
    std::cout << "Approved until "
              << airlock::iso_utc(static_cast<std::int64_t>(
                     std::min<std::uint64_t>(approval->expires_at, INT64_MAX)))
              << ": the build of exactly this intent will be signed without a second question, "
                 "once.\n";
  }
  if (outcome.under_approval)
    std::cout << "Signed without a question: approval "
              << airlock::to_hex(airlock::ByteView(outcome.under_approval->data(),
                                                   outcome.under_approval->size()))
              << " covers exactly this intent, and nothing in the transactions warns.\n";
}

// What sign prints and asks. On a terminal the decision screen stands for the summary, the
// details on request; a summary written to a file or a pipe, or asked for with --details, is
// the whole of it (--json for tools).
class SignScreen {
 public:
  SignScreen(const SignOptions& o, const airlock::envelope::SignRequest& request)
      : o_(o),
        request_(request),
        decision_screen_(!o.json && !o.details && ::isatty(STDOUT_FILENO) == 1) {}

  void show(const std::string& summary, const airlock::offline::Review& review) {
    // The approval screen (render_approval) is already short: it is the summary.
    if (o_.json) {
      std::cout << airlock::offline::summary_json(request_, review).dump(2, ' ', true) << "\n";
    } else if (decision_screen_ && !request_.approval) {
      std::cout << airlock::offline::render_decision(request_, review, unix_now());
    } else {
      std::cout << summary;
    }
    std::cout << std::flush;
    shown_ = true;
  }

  // The summary where it goes, then the question: on the terminal the decision screen right
  // above the prompt, whatever went to standard output.
  bool confirm(const std::string& summary, const airlock::offline::Review& review) {
    if (!decision_screen_ || o_.confirm_fd >= 0) show(summary, review);
    shown_ = true;
    Question question;
    question.steps = request_.steps.size();
    question.approval = request_.approval;
    if (request_.action != airlock::offline::kKeystoneAction)
      question.deadline =
          static_cast<std::int64_t>(std::min<std::uint64_t>(request_.deadline, INT64_MAX));
    question.decision = [&](std::int64_t now) {
      return request_.approval ? summary : airlock::offline::render_decision(request_, review, now);
    };
    question.details = summary;
    return ask(o_.confirm_fd, question);
  }

  [[nodiscard]] bool shown() const { return shown_; }

 private:
  const SignOptions& o_;
  const airlock::envelope::SignRequest& request_;
  bool decision_screen_;
  bool shown_ = false;
};

// What sign prints after deciding, and the answer: airlock's response envelope (signatures or
// the refusal), or for a Keystone request its ur:sol-signature, which exists only when signed.
int answer_request(const SignOptions& o, SignScreen& screen, const IncomingRequest& incoming,
                   const airlock::offline::SigningOutcome& outcome,
                   airlock::density::Density density) {
  const auto& request = incoming.request;
  const bool keystone = incoming.keystone.has_value();
  const auto decision = outcome.decision;
  if (!screen.shown() && decision != airlock::offline::Decision::kReissued)
    screen.show(outcome.summary, outcome.review);
  if (decision == airlock::offline::Decision::kReissued) say_reissued(request, outcome);
  say_approval(outcome);
  airlock::transfer::Content answer{airlock::dense::ContentType::kSignResponse,
                                    airlock::envelope::encode_response(outcome.response)};
  std::cerr << "airlock-offline: " << airlock::offline::decision_name(decision) << "; audit head "
            << airlock::to_hex(outcome.response.audit_head.view()) << "\n";
  if (keystone) {
    auto signature = keystone_signature(*incoming.keystone, outcome);
    if (!signature) return airlock::cli::kExitRejected;
    answer = std::move(*signature);
  }
  if (auto s = write_answer(o, answer, keystone, density, request.deadline); !s.ok())
    return report(s.error());
  if (const auto* refusal = std::get_if<airlock::envelope::Refusal>(&outcome.response.result)) {
    std::cerr << "airlock-offline: " << airlock::printable(airlock::envelope::describe(*refusal))
              << "\n";
    return airlock::cli::kExitRejected;
  }
  return airlock::cli::kExitOk;
}

// sign --then-build, once an approval request is approved: the key is opened now (the
// passphrase typed at leisure, not inside the build's ticket window) and the build of exactly
// that intent is awaited in the same file or folders until the approval expires. It is then
// decided as any request (docs/approvals.md: under the approval, without a question when
// nothing warns), answered, and the key closed with the process.
int sign_the_build(const SignOptions& o, const airlock::envelope::SignRequest& approval_request,
                   const airlock::envelope::Approval& approval,
                   airlock::offline::SigningContext& context, airlock::density::Density density) {
  const auto expires = static_cast<std::int64_t>(
      std::min<std::uint64_t>(approval.expires_at, std::numeric_limits<std::int64_t>::max()));
  auto key = airlock::offline::open_signing_key(context, expires);
  if (!key.ok()) return report(key.error());
  if (key->public_key() != context.policy.manager) {
    return report(Error(ErrorCode::kUsage, "the keystore's key " +
                                               airlock::to_base58(key->public_key()) +
                                               " is not the policy's manager"));
  }
  std::cerr << "airlock-offline: the key is open; waiting for the build of this intent until "
            << airlock::iso_utc(expires) << " (Ctrl-C ends, signing nothing)\n";
  std::optional<IncomingRequest> build;
  // Nothing seen yet: the build may be there already (the online half builds while the key is
  // being opened), so the first look reads whatever is there.
  std::string seen;
  bool told = false;
  for (bool first = true; !build && unix_now() <= expires; first = false) {
    if (!first) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    std::vector<std::string> watched = o.source.qr;
    if (o.source.file) watched.push_back(*o.source.file);
    const std::string now = airlock::files::snapshot(watched);
    if (now == seen) continue;
    seen = now;
    auto incoming = read_request(o.source, unix_now());
    if (!incoming.ok() || incoming->keystone || incoming->request.approval ||
        incoming->request.request_id == approval_request.request_id)
      continue;  // not yet whole, or not a build
    if (airlock::envelope::intent_hash(incoming->request) == approval.intent) {
      build = std::move(incoming).value();
    } else if (!told) {
      std::cerr << "airlock-offline: a request for another intent came; it is not this "
                   "approval's build (still waiting; run sign for it afterwards)\n";
      told = true;
    }
  }
  if (!build) {
    return report(Error(airlock::offline::errors::kNoBuild,
                        "no build of the approved intent came before the approval expired; "
                        "nothing was signed, and the key is closed"));
  }
  SignScreen screen(o, build->request);
  context.confirm = [&](const std::string& summary, const airlock::offline::Review& review) {
    return screen.confirm(summary, review);
  };
  context.opened = &*key;
  auto outcome = airlock::offline::process_request(build->request, context);
  if (!outcome.ok()) return report(outcome.error());
  return answer_request(o, screen, *build, *outcome, density);
}

int run_sign(const std::vector<std::string>& args) {
  SignOptions o;
  const auto options = sign_options(o);
  int code = 0;
  if (!airlock::cli::parse(kProgram, args, options, {request_positional(o.source)}, code))
    return code;
  // Checked before anything is read or decided, like every other option.
  const auto chosen_density = check_sign_options(o);
  if (!chosen_density.ok()) return report(chosen_density.error());
  if (auto s = check_air_gap(o.allow_network); !s.ok()) return report(s.error());
  // The request: airlock's own envelope, or Keystone's ur:sol-sign-request (from a file of its
  // UR text or from QR codes), which has no intent and is reviewed as such.
  auto incoming = read_request(o.source, unix_now());
  if (!incoming.ok()) return report(incoming.error());
  const auto* request = &incoming->request;
  auto policy = airlock::offline::load_policy_file(o.policy);
  if (!policy.ok()) return report(policy.error());
  airlock::offline::DecoderRegistry decoders;
  if (auto s = airlock::offline::load_pinned_interfaces(*policy, {o.idl_dir, o.descriptor_dir},
                                                        decoders);
      !s.ok())
    return report(s.error());
  auto log = open_sign_log(o.audit_log, *policy);
  if (!log.ok()) return report(log.error());
  // Everything sign reads is open or read; from here on no socket, exec or ptrace is possible,
  // and only from here can the keystore be opened (`locked` is the proof it takes).
  const auto locked = airlock::hardening::install_syscall_allowlist();
  if (!locked.ok()) return report(locked.error());

  SignScreen screen(o, *request);
  airlock::offline::SigningContext context{
      *policy,
      decoders,
      *log,
      o.keystore,
      *locked,
      o.auto_approve,
      [&](const std::string& summary, const airlock::offline::Review& review) {
        return screen.confirm(summary, review);
      },
      [&, asked = 0]() mutable {
        // A passphrase that did not open the keystore is said so before the next try.
        if (asked++ > 0)
          std::cerr << "airlock-offline: that passphrase does not open the keystore; try " << asked
                    << " of 3\n";
        return airlock::offline::obtain_secret(o.passphrase_fd, "Keystore passphrase: ", false);
      },
      unix_now,
      o.passphrase_fd < 0 ? 3 : 1};
  auto outcome = airlock::offline::process_request(*request, context);
  if (!outcome.ok()) return report(outcome.error());
  const int answered = answer_request(o, screen, *incoming, *outcome, *chosen_density);
  const auto* approval = std::get_if<airlock::envelope::Approval>(&outcome->response.result);
  if (!o.then_build || answered != airlock::cli::kExitOk) return answered;
  if (approval == nullptr) {
    std::cerr << "airlock-offline: --then-build: this was no approval request; no build is "
                 "awaited\n";
    return answered;
  }
  return sign_the_build(o, *request, *approval, context, *chosen_density);
}

struct LogOptions {
  std::optional<std::string> action;  // start, verify, show or export
  std::string audit_log;
  std::optional<std::string> head;
  std::optional<std::string> out;
  QrOutput qr;
  bool first = false;                        // start: the key has never signed
  std::optional<std::string> continue_from;  // start: the log before this one
  bool previous_lost = false;                // start: the log before this one is gone
};

// start: a new log that says what came before it (docs/audit-log.md, "Starting a log").
int start_log(const LogOptions& o) {
  using Previous = airlock::audit::Start::Previous;
  const int chosen = (o.first ? 1 : 0) + (o.continue_from ? 1 : 0) + (o.previous_lost ? 1 : 0);
  if (chosen != 1)
    return report(Error(ErrorCode::kUsage,
                        "log start needs exactly one of --first (a key that has never signed), "
                        "--continue-from OLD (the log before this one) or --previous-lost"));
  airlock::offline::StartFrom from;
  if (o.continue_from) {
    from.previous = Previous::kContinued;
    from.previous_path = *o.continue_from;
  } else if (o.previous_lost) {
    from.previous = Previous::kLost;
  }
  auto started = airlock::offline::start_audit_log(o.audit_log, from, unix_now());
  if (!started.ok()) return report(started.error());
  const auto& start = *started->entries.front().start;
  std::cout << "started " << airlock::printable(o.audit_log);
  switch (start.previous) {
    case Previous::kNone:
      std::cout << " as the key's first log\n";
      break;
    case Previous::kLost:
      std::cout << " after a lost log: [limits] refuse until it holds their longest window, "
                   "at most a day (until "
                << airlock::iso_utc(*start.complete_since + airlock::offline::kCarriedSeconds)
                << ")\n";
      break;
    case Previous::kContinued: {
      const auto carried = std::count_if(
          started->entries.begin(), started->entries.end(),
          [](const auto& e) { return e.decision == airlock::offline::Decision::kCarried; });
      std::cout << ", continuing " << airlock::printable(*o.continue_from) << " ("
                << start.previous_entries << " entries, head "
                << airlock::to_hex(start.previous_head.view()) << "); " << carried
                << " signed entries of its last day carried over; "
                << airlock::printable(*o.continue_from) << " is closed"
                << (started->finished_before ? " (the start was finished already: nothing to do)"
                    : started->resumed       ? " (finishing the start that was interrupted)"
                                             : "")
                << "\n";
      break;
    }
  }
  std::cout << started->entries.size() << " entries; head "
            << airlock::to_hex(started->entries.back().hash.view()) << "\n";
  return airlock::cli::kExitOk;
}

// verify --head: the head (typed from a sign response or an earlier export) is one of the log's
// entries; otherwise entries were cut from its end, or it is another log.
// The entry whose head `text` is, or why none is.
airlock::Result<const airlock::offline::AuditEntry*> check_holds_head(
    const std::vector<airlock::offline::AuditEntry>& entries, const std::string& text) {
  AIRLOCK_TRY(wanted, airlock::audit::parse_head(text, "--head"));
  const auto found =
      std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.hash == wanted; });
  if (found != entries.end()) return &*found;
  // A few digits off one entry's head is a typing mistake, not a cut log: said as such.
  const airlock::offline::AuditEntry* nearest = nullptr;
  int apart = 2 * static_cast<int>(airlock::Hash::kSize) + 1;
  for (const auto& e : entries) {
    const int d = airlock::audit::hex_digits_apart(e.hash, wanted);
    if (d < apart) {
      apart = d;
      nearest = &e;
    }
  }
  if (nearest != nullptr && apart <= airlock::audit::kMistypedHeadDigits) {
    return Error(ErrorCode::kUsage,
                 "--head " + airlock::to_hex(wanted.view()) + " is in no entry, but entry " +
                     std::to_string(nearest->seq) + "'s head " +
                     airlock::to_hex(nearest->hash.view()) + " differs from it in only " +
                     std::to_string(apart) +
                     " of its 64 digits: most likely mistyped; check the head you typed "
                     "(the log itself verifies)");
  }
  // A log continued from another holds none of the earlier log's heads: a head noted before
  // the switch is checked against that log.
  std::string earlier;
  if (!entries.empty() && entries.front().start &&
      entries.front().start->previous == airlock::audit::Start::Previous::kContinued) {
    earlier = "; or it is a head of the log this one continues (" +
              std::to_string(entries.front().start->previous_entries) + " entries, head " +
              airlock::to_hex(entries.front().start->previous_head.view()) +
              "): check it there with --audit-log OLD --head";
  }
  return Error(airlock::audit::errors::kBroken,
               "head " + airlock::to_hex(wanted.view()) +
                   " is not in the log: entries were removed from its end, or it is another log" +
                   earlier);
}

// What verify (and show, export) found: the entries, the head, what a --head given proves (the
// log holds it, and what was recorded after it), and a start left interrupted.
void say_verified(const std::vector<airlock::offline::AuditEntry>& entries,
                  const airlock::offline::AuditEntry* held, const std::string& audit_log) {
  const airlock::Hash head = entries.empty() ? airlock::Hash{} : entries.back().hash;
  std::cout << entries.size() << " entries verify; head " << airlock::to_hex(head.view()) << "\n";
  // What the head given proves: the log holds it, and what was recorded after it.
  if (held != nullptr) {
    const auto after = static_cast<std::size_t>(&entries.back() - held);
    std::cout << "--head is entry " << held->seq << " ("
              << airlock::offline::decision_name(held->decision) << ", "
              << airlock::iso_utc(held->time) << "): the log holds it, "
              << (after == 0 ? std::string("and it is the last entry")
                             : std::to_string(after) + " entr" + (after == 1 ? "y" : "ies") +
                                   " recorded after it")
              << "\n";
  }
  if (!entries.empty() && entries.back().decision == airlock::offline::Decision::kClosing)
    std::cerr << "airlock-offline: the start that continues this log in "
              << airlock::printable(*entries.back().successor_file)
              << " was interrupted: finish it with `airlock-offline log start --audit-log "
              << airlock::printable(*entries.back().successor_file) << " --continue-from "
              << airlock::printable(audit_log) << "`\n";
}

// export: the verified entries as JSON lines, to a file and/or QR frames.
airlock::Status export_log(const LogOptions& o,
                           const std::vector<airlock::offline::AuditEntry>& entries,
                           airlock::density::Density density) {
  // The lines as the log holds them (canonical, so rewritten from the verified entries).
  std::string text = std::string(airlock::audit::kExportHeader) + "\n";
  for (const auto& e : entries) text += airlock::audit::line_of(e) + "\n";
  const airlock::transfer::Content content{airlock::dense::ContentType::kFile,
                                           airlock::Bytes(text.begin(), text.end())};
  if (o.out) {
    AIRLOCK_CHECK(airlock::files::write_atomically(*o.out, content.bytes));
    std::cerr << "airlock-offline: " << entries.size() << " entries written to " << *o.out << "\n";
  }
  AIRLOCK_CHECK(show_as_qr(content, o.qr, density, airlock::transfer::Framing::kDense, std::nullopt,
                           "the log"));
  std::cerr << "airlock-offline: on the online machine, give reconcile --head with the head "
               "below, read off this screen\n";
  return {};
}

void show_log(const std::vector<airlock::offline::AuditEntry>& entries) {
  for (const auto& e : entries) {
    std::cout << e.seq << "  " << airlock::iso_utc(e.time) << "  "
              << airlock::offline::decision_name(e.decision);
    if (e.start) {
      const auto& s = *e.start;
      using Previous = airlock::audit::Start::Previous;
      std::cout << "  after "
                << (s.previous == Previous::kNone ? std::string("nothing (the key's first log)")
                    : s.previous == Previous::kLost
                        ? std::string("a lost log")
                        : "the log with head " + airlock::to_hex(s.previous_head.view()) + " (" +
                              std::to_string(s.previous_entries) + " entries)");
      if (s.complete_since)
        std::cout << "  holds every signature since " << airlock::iso_utc(*s.complete_since);
      std::cout << "\n";
      continue;
    }
    if (e.successor) {
      std::cout << "  continued by the log begun with head "
                << airlock::to_hex(e.successor->view());
      if (e.successor_file) std::cout << " in " << airlock::printable(*e.successor_file);
      std::cout << "\n";
      continue;
    }
    std::cout << "  " << airlock::printable(e.action) << "  vault " << airlock::to_base58(e.vault)
              << "  request "
              << airlock::to_hex(airlock::ByteView(e.request_id.data(), e.request_id.size()))
              << "  " << e.message_hashes.size() << " step(s)";
    for (const auto& c : e.codes) std::cout << "  " << c;
    if (e.approved)
      std::cout << "  approves intent " << airlock::to_hex(e.approved->intent.view()) << " until "
                << airlock::iso_utc(e.approved->expires);
    if (e.under_approval)
      std::cout << "  under approval "
                << airlock::to_hex(
                       airlock::ByteView(e.under_approval->data(), e.under_approval->size()));
    std::cout << "\n";
  }
}

int run_log(const std::vector<std::string>& args) {
  LogOptions o;
  po::options_description options(
      "usage: airlock-offline log start --audit-log NEW (--first | --continue-from OLD | "
      "--previous-lost)\n"
      "       airlock-offline log verify --audit-log FILE [--head HEX]\n"
      "       airlock-offline log show --audit-log FILE\n"
      "       airlock-offline log export --audit-log FILE (--out FILE | --qr-png DIR | "
      "--qr-terminal)...\n\n"
      "verify checks every entry's hash chain. With --head (from a sign response), it also checks\n"
      "that the entry with that hash is still in the log, which finds a log cut short.\n"
      "show checks the chain the same way, then lists every decision, one line each.\n"
      "export checks it, then writes the whole log (JSON lines, public data: message hashes and\n"
      "signatures, no secret) for the trip back across the gap, as a file or QR frames, for\n"
      "`airlock-online reconcile --audit-export FILE`.\n"
      "start begins a new log (a file that does not exist yet) with an entry saying what came\n"
      "before it: nothing (--first), a log whose last day of signatures it carries over\n"
      "(--continue-from OLD, after archiving it), or a log that is gone (--previous-lost: the\n"
      "policy's limits then refuse for a day). sign needs such a log when the policy sets\n"
      "[limits].\n\noptions");
  options.add_options()("help,h", "show this help")(
      "audit-log", po::value<std::string>(&o.audit_log)->required(), "audit log file")(
      "head", airlock::cli::optional_value(&o.head), "a head hash the log must contain")(
      "out,o", airlock::cli::optional_value(&o.out), "export: write the log's lines to this file")(
      "first", po::bool_switch(&o.first), "start: this key has never signed before this log")(
      "continue-from", airlock::cli::optional_value(&o.continue_from),
      "start: the log this one follows; its signed entries of the last day are carried over")(
      "previous-lost", po::bool_switch(&o.previous_lost),
      "start: the log before this one is gone; limits refuse until a day has passed");
  add_qr_output(options, o.qr, "export: write them as QR frames into this folder",
                "export: show them as animated QR codes in this terminal",
                "export's QR codes: high, medium or low (as for sign)");
  int code = 0;
  if (!airlock::cli::parse(kProgram, args, options, {{"action", &o.action}}, code)) return code;
  const std::string action = o.action.value_or("");
  if (action != "start" && action != "verify" && action != "show" && action != "export")
    return report(Error(ErrorCode::kUsage, "log needs the action: start, verify, show or export"));
  if (action != "start" && (o.first || o.continue_from || o.previous_lost))
    return report(
        Error(ErrorCode::kUsage, "--first, --continue-from and --previous-lost are for start"));
  const auto chosen_density = check_qr_output(o.qr);
  if (!chosen_density.ok()) return report(chosen_density.error());
  if (o.out) {
    if (auto s = airlock::files::check_outputs({{"--out", *o.out}}, {{"--audit-log", o.audit_log}});
        !s.ok())
      return report(s.error());
  }
  const bool exporting = o.out || o.qr.any();
  if (action == "export" && !exporting) {
    return report(Error(ErrorCode::kUsage,
                        "choose where the export goes: --out FILE, --qr-png DIR or --qr-terminal"));
  }
  if (action != "export" && exporting)
    return report(Error(ErrorCode::kUsage, "--out, --qr-png and --qr-terminal are for export"));
  if (action == "start") {
    if (o.head) return report(Error(ErrorCode::kUsage, "--head is for verify"));
    return start_log(o);
  }
  auto entries = airlock::offline::verify_audit_log(o.audit_log);
  if (!entries.ok()) return report(entries.error());
  if (action == "export") {
    if (auto s = export_log(o, *entries, *chosen_density); !s.ok()) return report(s.error());
  }
  if (action == "show") show_log(*entries);
  const airlock::offline::AuditEntry* held = nullptr;
  if (o.head) {
    auto found = check_holds_head(*entries, *o.head);
    if (!found.ok()) return report(found.error());
    held = *found;
  }
  say_verified(*entries, held, o.audit_log);
  return airlock::cli::kExitOk;
}

}  // namespace

using namespace offline_cli;

int main(int argc, char** argv) {
  // Every command: no core dumps, not dumpable, no new privileges, memory locked if allowed.
  auto process = airlock::hardening::lock_down_process();
  if (!process.ok()) return report(process.error());
  g_process = *process;
  if (auto status = airlock::crypto_init(); !status.ok()) return report(status.error());
  return airlock::cli::dispatch(kProgram, kUsage, argc, argv,
                                {{"inspect", run_inspect},
                                 {"init", run_init},
                                 {"import", run_import},
                                 {"pubkey", run_pubkey},
                                 {"backup", run_backup},
                                 {"passphrase", run_passphrase},
                                 {"sign", run_sign},
                                 {"review", run_review},
                                 {"descriptor", run_descriptor},
                                 {"policy", run_policy},
                                 {"log", run_log}});
}
