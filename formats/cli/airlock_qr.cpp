// airlock-qr: moves any file across the air gap as QR codes, the transport both halves use.
// Exit codes (docs/cli.md): 0 done, 1 input refused or transfer incomplete, 2 usage, 3 I/O.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include <unistd.h>

#include <airlock/cli/options.h>
#include <airlock/formats/density.h>
#include <airlock/formats/files.h>
#include <airlock/formats/frames.h>
#include <airlock/formats/html.h>
#include <airlock/formats/qr_io.h>
#include <airlock/formats/transfer.h>

namespace po = boost::program_options;
using namespace airlock;

namespace {

constexpr std::string_view kProgram = "airlock-qr";
constexpr std::size_t kMaxInputFile = dense::kMaxPayloadBytes;

int report(const Error& error) { return cli::report(kProgram, error); }

constexpr std::string_view kUsage =
    "usage: airlock-qr <command> [options]\n\n"
    "commands:\n"
    "  encode   turn a file into QR frames (PNG folder, HTML page or the terminal)\n"
    "  decode   read QR frames (PNG files or folders, a raw stream, a camera) back into the "
    "file\n\n"
    "Run 'airlock-qr <command> --help' for a command's options.\n";

// How encode frames the file, as given (max-version and level stay unset unless given, so
// --density can refuse being combined with them).
struct FramingOptions {
  std::string framing = "dense";
  std::optional<std::string> density;
  std::optional<int> max_version;
  std::optional<std::string> level;
  std::string deflate = "auto";
  std::size_t ur_fragment = 0;
};

Result<transfer::Options> transfer_options(const FramingOptions& f) {
  transfer::Options o;
  AIRLOCK_TRY(framing, transfer::parse_framing(f.framing));
  o.framing = framing;
  o.max_version = f.max_version.value_or(qr::kDefaultMaxVersion);
  AIRLOCK_TRY(level, qr::parse_level(f.level.value_or("L")));
  o.level = level;
  if (f.deflate == "auto")
    o.deflate = dense::Deflate::kAuto;
  else if (f.deflate == "always")
    o.deflate = dense::Deflate::kAlways;
  else if (f.deflate == "never")
    o.deflate = dense::Deflate::kNever;
  else
    return Error(ErrorCode::kUsage, "--deflate must be auto, always or never");
  o.ur_fragment_len = f.ur_fragment;
  if (f.density) {
    if (f.max_version || f.level)
      return Error(ErrorCode::kUsage, "--density: choose it or --max-version/--level, not both");
    AIRLOCK_TRY(chosen, density::parse(*f.density));
    density::apply(chosen, o);
  }
  return o;
}

struct EncodeOptions {
  std::optional<std::string> input;
  std::optional<std::string> qr_png;
  std::optional<std::string> qr_html;
  bool qr_terminal = false;
  FramingOptions framing;
  std::uint32_t frames = 0;
  int scale = 6;
  int fps = 8;
  int seconds = 120;
  std::optional<std::uint64_t> deadline;
  bool light_terminal = false;
};

po::options_description encode_options(EncodeOptions& o) {
  po::options_description visible(
      "usage: airlock-qr encode [options] FILE\n\n"
      "Turns FILE into QR frames. Envelope files (.alreq, .alres) travel as envelopes; a file of\n"
      "Keystone UR text (ur:sol-sign-request, ur:sol-signature) as that UR; any other file as\n"
      "bytes. Choose at least one output.\n\noptions");
  FramingOptions& f = o.framing;
  visible.add_options()("help,h", "show this help")(
      "qr-png", cli::optional_value(&o.qr_png),
      "write frames as frame-0001.png ... into this folder")(
      "qr-html", cli::optional_value(&o.qr_html),
      "write one self-contained HTML page that animates the frames")(
      "qr-terminal", po::bool_switch(&o.qr_terminal),
      "animate the frames in this terminal (UTF-8 half blocks)")(
      "framing", po::value<std::string>(&f.framing)->default_value(f.framing),
      "dense (fewest frames) or ur (BC-UR)")(
      "density", cli::optional_value(&f.density),
      "high (version 17, level L: the default), medium (12-L: a 640x480 camera or one at an "
      "angle) or low (8-L)")("max-version", cli::optional_value(&f.max_version),
                             "largest QR version, 1-40 (default 17)")(
      "level", cli::optional_value(&f.level), "error correction: L (the default), M, Q or H")(
      "deflate", po::value<std::string>(&f.deflate)->default_value(f.deflate),
      "dense framing: auto, always or never")(
      "ur-fragment", po::value<std::size_t>(&f.ur_fragment)->default_value(0),
      "UR fragment bytes (0: largest that fits)")(
      "frames", cli::value_in<std::uint32_t>(&o.frames, 0, 100000, "frames")->default_value(0),
      "frames to write for --qr-png/--qr-html (default: twice the fragment count, enough for heavy "
      "loss)")("scale", cli::value_in(&o.scale, 1, 40, "scale")->default_value(o.scale),
               "pixels per module in PNG and HTML frames")(
      "fps", cli::value_in(&o.fps, 1, 60, "fps")->default_value(o.fps),
      "frames per second for --qr-terminal and --qr-html")(
      "seconds", cli::value_in(&o.seconds, 1, 3600, "seconds")->default_value(o.seconds),
      "how long --qr-terminal animates")(
      "deadline",
      cli::optional_in<std::uint64_t>(&o.deadline, 0, std::uint64_t{cli::kLatestUnixTime},
                                      "deadline"),
      "unix time the HTML countdown and terminal count to")(
      "light-terminal", po::bool_switch(&o.light_terminal), "the terminal has a light background");
  return visible;
}

// The frames where the options say: PNG files, an HTML page, the terminal.
Status show(const EncodeOptions& o, const transfer::Sender& sender, std::uint32_t count) {
  std::vector<Bytes> pngs;
  if (o.qr_png || o.qr_html) {
    AIRLOCK_TRY(rendered, qr_io::render_pngs(sender, count, o.scale));
    pngs = std::move(rendered);
  }
  if (o.qr_png) {
    AIRLOCK_CHECK(qr_io::write_png_folder(pngs, *o.qr_png));
    std::cerr << "airlock-qr: wrote " << pngs.size() << " frames to " << *o.qr_png << "\n";
  }
  if (o.qr_html) {
    html::PageOptions page;
    page.frames_per_second = o.fps;
    page.title = "airlock: " + std::filesystem::path(*o.input).filename().string();
    page.deadline_unix = o.deadline;
    const std::string text = html::animated_qr_page(pngs, page);
    AIRLOCK_CHECK(files::write_atomically(*o.qr_html, text_bytes(text)));
    std::cerr << "airlock-qr: wrote " << *o.qr_html << " (" << pngs.size() << " frames)\n";
  }
  if (o.qr_terminal) {
    qr_io::TerminalOptions terminal;
    terminal.fps = o.fps;
    terminal.seconds = o.seconds;
    terminal.light = o.light_terminal;
    terminal.deadline_unix = o.deadline;
    AIRLOCK_CHECK(qr_io::animate_terminal(sender, terminal));
  }
  return {};
}

int run_encode(const std::vector<std::string>& args) {
  EncodeOptions o;
  const auto visible = encode_options(o);
  int code = 0;
  if (!cli::parse(kProgram, args, visible, {{"input", &o.input}}, code)) return code;
  if (!o.input) return report(Error(ErrorCode::kUsage, "encode needs a FILE (see --help)"));
  if (!o.qr_png && !o.qr_html && !o.qr_terminal) {
    return report(Error(ErrorCode::kUsage,
                        "choose an output: --qr-png DIR, --qr-html FILE or --qr-terminal"));
  }
  auto options = transfer_options(o.framing);
  if (!options.ok()) return report(options.error());

  auto data = files::read_limited(*o.input, kMaxInputFile);
  if (!data.ok()) return report(data.error());
  const transfer::Content content = qr_io::content_of_file(*data);
  if (content.type == dense::ContentType::kKeystoneSignRequest ||
      content.type == dense::ContentType::kKeystoneSignature) {
    // Keystone's types exist only as UR: a file of their UR text is shown as UR, whatever
    // --framing says.
    if (options->framing != transfer::Framing::kUr)
      std::cerr << "airlock-qr: the file is Keystone UR text; showing it as BC-UR\n";
    options->framing = transfer::Framing::kUr;
  }
  auto sender = transfer::Sender::create(content, *options);
  if (!sender.ok()) return report(sender.error());
  const std::uint32_t count = o.frames == 0 ? qr_io::default_frame_count(*sender) : o.frames;
  std::cerr << "airlock-qr: " << data->size() << " bytes in " << sender->fragment_count()
            << " fragments, " << (options->framing == transfer::Framing::kDense ? "dense" : "BC-UR")
            << " framing, QR version <= " << options->max_version << " level "
            << qr::level_letter(options->level) << "\n";
  if (auto s = show(o, *sender, count); !s.ok()) return report(s.error());
  return cli::kExitOk;
}

struct DecodeOptions {
  std::optional<std::string> out;
  qr_io::SourceSpec source;  // its files are the INPUT arguments
  int timeout = 120;
  bool quiet = false;
};

int run_decode(const std::vector<std::string>& args) {
  DecodeOptions o;
  po::options_description visible(
      "usage: airlock-qr decode [options] --out FILE [INPUT...]\n\n"
      "Reads QR frames until the transfer is complete and writes the file back, byte for byte.\n"
      "INPUT is PNG files or folders of them; or use --raw for a frame stream on standard input\n"
      "(e.g. ffmpeg -i video.mp4 -f rawvideo -pix_fmt gray -), or --camera for a V4L2 device.\n"
      "Frames without a readable code are skipped. Keystone's ur:sol-sign-request and\n"
      "ur:sol-signature are written as their single-part UR text.\n\noptions");
  visible.add_options()("help,h", "show this help")("out,o", cli::optional_value(&o.out),
                                                    "where to write the file (required)")(
      "raw", cli::optional_value(&o.source.raw_size),
      "read WIDTHxHEIGHT 8-bit gray frames from standard input")(
      "camera", cli::optional_value(&o.source.camera), "read from a V4L2 camera, e.g. /dev/video0")(
      "camera-size",
      po::value<std::string>(&o.source.camera_size)->default_value(o.source.camera_size),
      "camera frame size, WIDTHxHEIGHT")(
      "timeout", cli::value_in(&o.timeout, 1, 3600, "timeout")->default_value(o.timeout),
      "give up on a stream or camera after this many seconds")("quiet,q", po::bool_switch(&o.quiet),
                                                               "no progress line");
  int code = 0;
  if (!cli::parse(kProgram, args, visible, {{"input", nullptr, &o.source.files}}, code))
    return code;
  if (!o.out) return report(Error(ErrorCode::kUsage, "decode needs --out FILE"));
  auto source = qr_io::open_source(o.source);
  if (!source.ok()) return report(source.error());

  qr_io::ReceiveOptions options{.timeout = std::chrono::seconds(o.timeout)};
  if (!o.quiet) options.on_progress = qr_io::terminal_progress(kProgram);
  auto received = qr_io::receive(**source, options);
  if (!received.ok()) return report(received.error());
  const Bytes out = qr_io::file_bytes(received->content);
  const qr_io::ReceiveProgress& stats = received->progress;
  if (auto s = files::write_atomically(*o.out, out); !s.ok()) return report(s.error());
  if (!o.quiet) {
    std::cerr << "airlock-qr: wrote " << out.size() << " bytes to " << *o.out << " from "
              << stats.frames << " frames (" << stats.unreadable << " without a readable code, "
              << stats.refused << " codes refused)\n";
  }
  return cli::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return cli::dispatch(kProgram, kUsage, argc, argv,
                       {{"encode", run_encode}, {"decode", run_decode}});
}
