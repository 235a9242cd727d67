// The air-gap transport, measured through rendered and decoded images (no byte-level shortcuts):
//  1. frames a reader needs to receive a 20-step batch of 1,232-byte transactions at QR version
//     <= 17, level L, with 10% of frames lost and the reader joining mid-stream: BC-UR at
//     400-byte fragments against airlock's dense framing, mean and p95;
//  2. time per frame to encode (libqrencode + render) and to decode: ZXing-C++ against zbar on
//     the same images, in the same process, as a ratio; and the zbarimg command against
//     airlock's PNG + ZXing path on the same files.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <numeric>
#include <random>
#include <string>

#include <unistd.h>
#include <zbar.h>

#include <airlock/formats/dense.h>
#include <airlock/formats/envelope.h>
#include <airlock/formats/transfer.h>

using namespace airlock;
using namespace zbar;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kTrials = 100;
constexpr double kLoss = 0.10;
constexpr int kSteps = 20;
constexpr std::size_t kTxBytes = 1232;
constexpr int kScale = 2;  // pixels per module: small images keep the run short, ZXing reads them

Bytes random_bytes(std::mt19937& rng, std::size_t n) {
  Bytes out(n);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

// A sign request of 20 steps. `similar`: the steps share most of their accounts and data, as
// the steps of one dlmm/open batch do (same vault, pool, programs, tables); otherwise every
// byte is random, the incompressible worst case.
Bytes batch_request(bool similar) {
  std::mt19937 rng(similar ? 2 : 1);
  envelope::SignRequest q;
  q.request_id = envelope::random_request_id();
  q.created_at = 1'795'000'000;
  q.deadline = q.created_at + 90;
  q.manager.bytes.fill(1);
  q.vault.bytes.fill(2);
  q.action = "dlmm/open";
  q.intent_json =
      R"({"vault":"11111111111111111111111111111111","lowerBinId":0,"upperBinId":1400})";
  const Bytes shared = random_bytes(rng, kTxBytes);
  for (int i = 0; i < kSteps; ++i) {
    envelope::Step step;
    step.transaction = similar ? shared : random_bytes(rng, kTxBytes);
    if (similar) {
      // Each step's own position key, signature slot, bin range and amounts.
      for (std::size_t at : {1U, 200U, 900U, 1100U}) {
        const Bytes unique = random_bytes(rng, 40);
        std::copy(unique.begin(), unique.end(),
                  step.transaction.begin() + static_cast<std::ptrdiff_t>(at));
      }
    }
    step.units_consumed = 250000;
    q.steps.push_back(step);
  }
  return envelope::encode_request(q);
}

struct FrameStats {
  double mean = 0;
  int p95 = 0;
  std::uint32_t fragments = 0;
};

FrameStats frames_needed(const Bytes& payload, const transfer::Options& options) {
  auto sender = transfer::Sender::create({dense::ContentType::kSignRequest, payload}, options);
  if (!sender.ok()) {
    std::cerr << "cannot frame: " << sender.error().to_string() << "\n";
    std::exit(1);
  }
  std::mt19937 rng(99);
  std::vector<int> counts;
  for (int trial = 0; trial < kTrials; ++trial) {
    transfer::Receiver receiver;
    // The reader joins at a random point of the first three cycles.
    const auto start = static_cast<std::uint32_t>(1 + rng() % (3 * sender->fragment_count()));
    int shown = 0;
    for (std::uint32_t n = start; !receiver.complete(); ++n) {
      ++shown;
      if (std::uniform_real_distribution<double>(0, 1)(rng) < kLoss) continue;
      auto symbol = sender->symbol(n);
      for (const auto& code : qr::read(qr::render(*symbol, kScale))) (void)receiver.receive(code);
      if (shown > 10000) {
        std::cerr << "transfer did not complete\n";
        std::exit(1);
      }
    }
    if (receiver.result().bytes != payload) {
      std::cerr << "received content differs\n";
      std::exit(1);
    }
    counts.push_back(shown);
  }
  std::sort(counts.begin(), counts.end());
  FrameStats s;
  s.mean = std::accumulate(counts.begin(), counts.end(), 0.0) / static_cast<double>(counts.size());
  s.p95 = counts[counts.size() * 95 / 100];
  s.fragments = sender->fragment_count();
  return s;
}

double seconds_per(const std::function<void()>& work, int repeats) {
  work();  // warm up
  const auto t0 = Clock::now();
  for (int i = 0; i < repeats; ++i) work();
  return std::chrono::duration<double>(Clock::now() - t0).count() / repeats;
}

std::vector<Bytes> zbar_read(zbar_image_scanner_t* scanner, const image::GrayImage& img) {
  zbar_image_t* z = zbar_image_create();
  zbar_image_set_format(z, zbar_fourcc('Y', '8', '0', '0'));
  zbar_image_set_size(z, static_cast<unsigned>(img.width), static_cast<unsigned>(img.height));
  zbar_image_set_data(z, img.pixels.data(), img.pixels.size(), nullptr);
  std::vector<Bytes> out;
  if (zbar_scan_image(scanner, z) > 0) {
    for (const zbar_symbol_t* s = zbar_image_first_symbol(z); s != nullptr;
         s = zbar_symbol_next(s)) {
      const auto* data = reinterpret_cast<const std::uint8_t*>(zbar_symbol_get_data(s));
      out.emplace_back(data, data + zbar_symbol_get_data_length(s));
    }
  }
  zbar_image_destroy(z);
  return out;
}

std::string fmt_ms(double seconds) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f ms", seconds * 1000);
  return b;
}

}  // namespace

int main() {
  std::cout << "== frames to receive a 20-step batch of 1232-byte transactions\n"
            << "   QR version <= 17, level L; " << kLoss * 100
            << "% of frames lost; reader joins mid-stream; " << kTrials
            << " trials; every frame rendered and decoded by ZXing-C++\n";
  // Framings compared on the same bytes, so a figure never mixes compression and framing:
  // the request as it is, and the request deflated once (zlib level 9, as the dense framing
  // does) and carried as bytes by both.
  for (bool similar : {false, true}) {
    const Bytes payload = batch_request(similar);
    const Bytes deflated = dense::deflate_bytes(payload);
    std::cout << (similar ? "   similar steps (one dlmm/open batch)"
                          : "   random steps (incompressible worst case)")
              << ", request " << payload.size() << " bytes, deflated " << deflated.size() << "\n";
    for (const bool compressed : {false, true}) {
      const Bytes& carried = compressed ? deflated : payload;
      transfer::Options dense_options;
      dense_options.deflate = dense::Deflate::kNever;
      transfer::Options ur_fit;  // the largest UR fragment a version-17 code holds
      ur_fit.framing = transfer::Framing::kUr;
      transfer::Options ur_400 = ur_fit;  // the fragment size wallets commonly use
      ur_400.ur_fragment_len = 400;
      std::printf("     %s (%zu bytes carried)\n",
                  compressed ? "deflated once, then framed" : "not compressed", carried.size());
      const FrameStats d = frames_needed(carried, dense_options);
      for (const auto& [name, options] :
           {std::pair<const char*, transfer::Options>{"BC-UR, largest fragment", ur_fit},
            {"BC-UR, 400-byte fragments", ur_400}}) {
        const FrameStats u = frames_needed(carried, options);
        std::printf("       %-27s %3u fragments  mean %6.1f frames  p95 %3d  (%.2fx dense, p95)\n",
                    name, u.fragments, u.mean, u.p95, static_cast<double>(u.p95) / d.p95);
      }
      std::printf("       %-27s %3u fragments  mean %6.1f frames  p95 %3d  (%.1f s at 10 fps)\n",
                  "dense framing", d.fragments, d.mean, d.p95, d.p95 / 10.0);
    }
  }

  std::cout << "\n== time per frame, same images, same process\n";
  const Bytes payload = batch_request(false);
  auto sender = transfer::Sender::create({dense::ContentType::kSignRequest, payload}, {});
  std::vector<image::GrayImage> images;
  for (std::uint32_t n = 1; n <= 40; ++n) images.push_back(qr::render(*sender->symbol(n), 4));
  std::uint32_t seq = 0;
  const double encode =
      seconds_per([&] { (void)qr::render(*sender->symbol(1 + (seq++ % 40)), 4); }, 400);
  std::size_t zxing_ok = 0, zbar_ok = 0, index = 0;
  const double zxing = seconds_per(
      [&] {
        const auto found = qr::read(images[index++ % images.size()]);
        zxing_ok += found.size();
      },
      400);
  zbar_image_scanner_t* scanner = zbar_image_scanner_create();
  zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
  zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1);
  zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1);
  index = 0;
  const double zbar = seconds_per(
      [&] {
        const auto& img = images[index % images.size()];
        const auto found = zbar_read(scanner, img);
        const Bytes expected =
            std::get<Bytes>(sender->code(static_cast<std::uint32_t>(1 + index % images.size())));
        zbar_ok += static_cast<std::size_t>(std::count(found.begin(), found.end(), expected));
        ++index;
      },
      400);
  zbar_image_scanner_destroy(scanner);
  std::cout << "   encode (libqrencode + render, 85x85 modules, 4 px)  " << fmt_ms(encode) << "\n"
            << "   decode ZXing-C++  " << fmt_ms(zxing) << "  (" << zxing_ok << "/401 read)\n"
            << "   decode zbar       " << fmt_ms(zbar) << "  (" << zbar_ok
            << "/401 read, bytes checked)\n";
  std::printf("   ratio: zbar takes %.2fx the time of ZXing-C++ per frame\n", zbar / zxing);

  // The command-line path: zbarimg on 40 PNG files against airlock's PNG + ZXing on the same files.
  const auto dir =
      std::filesystem::temp_directory_path() / ("airlock-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string files;
  for (std::size_t i = 0; i < images.size(); ++i) {
    const auto path = dir / ("f" + std::to_string(i) + ".png");
    (void)image::write_png_file(path.string(), images[i]);
    files += " " + path.string();
  }
  const auto t0 = Clock::now();
  const int rc = std::system(("zbarimg -q --raw -Sbinary" + files + " > /dev/null 2>&1").c_str());
  const double zbarimg =
      std::chrono::duration<double>(Clock::now() - t0).count() / static_cast<double>(images.size());
  const auto t1 = Clock::now();
  std::size_t cli_ok = 0;
  for (std::size_t i = 0; i < images.size(); ++i) {
    cli_ok +=
        qr::read(image::read_png_file((dir / ("f" + std::to_string(i) + ".png")).string()).value())
            .size();
  }
  const double ours =
      std::chrono::duration<double>(Clock::now() - t1).count() / static_cast<double>(images.size());
  std::filesystem::remove_all(dir);
  std::cout << "   PNG file path: zbarimg " << fmt_ms(zbarimg) << " per file (exit " << rc
            << "), airlock PNG+ZXing " << fmt_ms(ours) << " per file (" << cli_ok << "/40 read)\n";
  std::printf("   ratio: zbarimg takes %.2fx the time of airlock's PNG+ZXing path per file\n",
              zbarimg / ours);
  return 0;
}
