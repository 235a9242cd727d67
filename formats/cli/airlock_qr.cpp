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

Result<transfer::Options> common_options(const po::variables_map& vm) {
  transfer::Options o;
  AIRLOCK_TRY(framing, transfer::parse_framing(vm["framing"].as<std::string>()));
  o.framing = framing;
  o.max_version = vm["max-version"].as<int>();
  AIRLOCK_TRY(level, qr::parse_level(vm["level"].as<std::string>()));
  o.level = level;
  const std::string deflate = vm["deflate"].as<std::string>();
  if (deflate == "auto")
    o.deflate = dense::Deflate::kAuto;
  else if (deflate == "always")
    o.deflate = dense::Deflate::kAlways;
  else if (deflate == "never")
    o.deflate = dense::Deflate::kNever;
  else
    return Error(ErrorCode::kUsage, "--deflate must be auto, always or never");
  o.ur_fragment_len = vm["ur-fragment"].as<std::size_t>();
  if (vm.count("density")) {
    if (!vm["max-version"].defaulted() || !vm["level"].defaulted())
      return Error(ErrorCode::kUsage, "--density: choose it or --max-version/--level, not both");
    AIRLOCK_TRY(chosen, density::parse(vm["density"].as<std::string>()));
    density::apply(chosen, o);
  }
  return o;
}

int run_encode(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: airlock-qr encode [options] FILE\n\n"
      "Turns FILE into QR frames. Envelope files (.alreq, .alres) travel as envelopes; a file of\n"
      "Keystone UR text (ur:sol-sign-request, ur:sol-signature) as that UR; any other file as\n"
      "bytes. Choose at least one output.\n\noptions");
  visible.add_options()("help,h", "show this help")(
      "qr-png", po::value<std::string>(), "write frames as frame-0001.png ... into this folder")(
      "qr-html", po::value<std::string>(),
      "write one self-contained HTML page that animates the frames")(
      "qr-terminal", "animate the frames in this terminal (UTF-8 half blocks)")(
      "framing", po::value<std::string>()->default_value("dense"),
      "dense (fewest frames) or ur (BC-UR)")(
      "density", po::value<std::string>(),
      "high (version 17, level L: the default), medium (12-L: a 640x480 camera or one at an "
      "angle) or low (8-L)")("max-version", po::value<int>()->default_value(qr::kDefaultMaxVersion),
                             "largest QR version, 1-40")(
      "level", po::value<std::string>()->default_value("L"), "error correction: L, M, Q or H")(
      "deflate", po::value<std::string>()->default_value("auto"),
      "dense framing: auto, always or never")("ur-fragment",
                                              po::value<std::size_t>()->default_value(0),
                                              "UR fragment bytes (0: largest that fits)")(
      "frames", po::value<std::uint32_t>()->default_value(0),
      "frames to write for --qr-png/--qr-html (default: twice the fragment count, enough for heavy "
      "loss)")("scale", po::value<int>()->default_value(6),
               "pixels per module in PNG and HTML frames")(
      "fps", po::value<int>()->default_value(8),
      "frames per second for --qr-terminal and --qr-html")(
      "seconds", po::value<int>()->default_value(120), "how long --qr-terminal animates")(
      "deadline", po::value<std::uint64_t>(), "unix time the HTML countdown and terminal count to")(
      "light-terminal", "the terminal has a light background");
  po::options_description hidden;
  hidden.add_options()("input", po::value<std::string>(), "input");
  po::positional_options_description positional;
  positional.add("input", 1);
  po::variables_map vm;
  int code = 0;
  if (!cli::parse_options(kProgram, args, visible, hidden, positional, vm, code)) return code;
  if (!vm.count("input"))
    return report(Error(ErrorCode::kUsage, "encode needs a FILE (see --help)"));
  if (!vm.count("qr-png") && !vm.count("qr-html") && !vm.count("qr-terminal")) {
    return report(Error(ErrorCode::kUsage,
                        "choose an output: --qr-png DIR, --qr-html FILE or --qr-terminal"));
  }
  const int scale = vm["scale"].as<int>(), fps = vm["fps"].as<int>();
  if (scale < 1 || scale > 40) return report(Error(ErrorCode::kUsage, "--scale must be 1 to 40"));
  if (fps < 1 || fps > 60) return report(Error(ErrorCode::kUsage, "--fps must be 1 to 60"));
  auto options = common_options(vm);
  if (!options.ok()) return report(options.error());

  const std::string input = vm["input"].as<std::string>();
  auto data = files::read_limited(input, kMaxInputFile);
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
  std::uint32_t count = vm["frames"].as<std::uint32_t>();
  if (count == 0) count = qr_io::default_frame_count(*sender);
  std::cerr << "airlock-qr: " << data->size() << " bytes in " << sender->fragment_count()
            << " fragments, " << (options->framing == transfer::Framing::kDense ? "dense" : "BC-UR")
            << " framing, QR version <= " << options->max_version << " level "
            << qr::level_letter(options->level) << "\n";

  std::vector<Bytes> pngs;
  if (vm.count("qr-png") || vm.count("qr-html")) {
    auto rendered = qr_io::render_pngs(*sender, count, scale);
    if (!rendered.ok()) return report(rendered.error());
    pngs = std::move(rendered).value();
  }
  if (vm.count("qr-png")) {
    const std::string dir = vm["qr-png"].as<std::string>();
    if (auto s = qr_io::write_png_folder(pngs, dir); !s.ok()) return report(s.error());
    std::cerr << "airlock-qr: wrote " << pngs.size() << " frames to " << dir << "\n";
  }
  if (vm.count("qr-html")) {
    html::PageOptions page;
    page.frames_per_second = fps;
    page.title = "airlock: " + std::filesystem::path(input).filename().string();
    if (vm.count("deadline")) page.deadline_unix = vm["deadline"].as<std::uint64_t>();
    const std::string text = html::animated_qr_page(pngs, page);
    const std::string path = vm["qr-html"].as<std::string>();
    if (auto s = files::write_atomically(
            path, ByteView(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
        !s.ok()) {
      return report(s.error());
    }
    std::cerr << "airlock-qr: wrote " << path << " (" << pngs.size() << " frames)\n";
  }
  if (vm.count("qr-terminal")) {
    qr_io::TerminalOptions terminal;
    terminal.fps = fps;
    terminal.seconds = vm["seconds"].as<int>();
    terminal.light = vm.count("light-terminal") > 0;
    if (vm.count("deadline")) terminal.deadline_unix = vm["deadline"].as<std::uint64_t>();
    if (auto s = qr_io::animate_terminal(*sender, terminal); !s.ok()) return report(s.error());
  }
  return cli::kExitOk;
}

int run_decode(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: airlock-qr decode [options] --out FILE [INPUT...]\n\n"
      "Reads QR frames until the transfer is complete and writes the file back, byte for byte.\n"
      "INPUT is PNG files or folders of them; or use --raw for a frame stream on standard input\n"
      "(e.g. ffmpeg -i video.mp4 -f rawvideo -pix_fmt gray -), or --camera for a V4L2 device.\n"
      "Frames without a readable code are skipped. Keystone's ur:sol-sign-request and\n"
      "ur:sol-signature are written as their single-part UR text.\n\noptions");
  visible.add_options()("help,h", "show this help")("out,o", po::value<std::string>(),
                                                    "where to write the file (required)")(
      "raw", po::value<std::string>(), "read WIDTHxHEIGHT 8-bit gray frames from standard input")(
      "camera", po::value<std::string>(), "read from a V4L2 camera, e.g. /dev/video0")(
      "camera-size", po::value<std::string>()->default_value("1280x720"),
      "camera frame size, WIDTHxHEIGHT")("timeout", po::value<int>()->default_value(120),
                                         "give up on a stream or camera after this many seconds")(
      "quiet,q", "no progress line");
  po::options_description hidden;
  hidden.add_options()("input", po::value<std::vector<std::string>>(), "input");
  po::positional_options_description positional;
  positional.add("input", -1);
  po::variables_map vm;
  int code = 0;
  if (!cli::parse_options(kProgram, args, visible, hidden, positional, vm, code)) return code;
  if (!vm.count("out")) return report(Error(ErrorCode::kUsage, "decode needs --out FILE"));
  qr_io::SourceSpec spec;
  if (vm.count("input")) spec.files = vm["input"].as<std::vector<std::string>>();
  if (vm.count("raw")) spec.raw_size = vm["raw"].as<std::string>();
  if (vm.count("camera")) spec.camera = vm["camera"].as<std::string>();
  spec.camera_size = vm["camera-size"].as<std::string>();
  auto source = qr_io::open_source(spec);
  if (!source.ok()) return report(source.error());

  const bool quiet = vm.count("quiet") > 0;
  qr_io::ReceiveOptions options{.timeout = std::chrono::seconds(vm["timeout"].as<int>())};
  if (!quiet) options.on_progress = qr_io::terminal_progress(kProgram);
  auto received = qr_io::receive(**source, options);
  if (!received.ok()) return report(received.error());
  const Bytes out = qr_io::file_bytes(received->content);
  const qr_io::ReceiveProgress& stats = received->progress;
  if (auto s = files::write_atomically(vm["out"].as<std::string>(), out); !s.ok())
    return report(s.error());
  if (!quiet) {
    std::cerr << "airlock-qr: wrote " << out.size() << " bytes to " << vm["out"].as<std::string>()
              << " from " << stats.frames << " frames (" << stats.unreadable
              << " without a readable code, " << stats.refused << " codes refused)\n";
  }
  return cli::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return cli::dispatch(kProgram, kUsage, argc, argv,
                       {{"encode", run_encode}, {"decode", run_decode}});
}
