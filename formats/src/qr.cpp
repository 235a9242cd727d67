#define ZX_USE_UTF8 1
#include <array>
#include <memory>
#include <mutex>

#include <ZXing/ReadBarcode.h>
#include <qrencode.h>

#include <airlock/formats/qr.h>

namespace airlock::qr {
namespace {

QRecLevel to_qrencode(EcLevel level) {
  switch (level) {
    case EcLevel::kL:
      return QR_ECLEVEL_L;
    case EcLevel::kM:
      return QR_ECLEVEL_M;
    case EcLevel::kQ:
      return QR_ECLEVEL_Q;
    case EcLevel::kH:
      return QR_ECLEVEL_H;
  }
  return QR_ECLEVEL_L;
}

using QrPtr = std::unique_ptr<QRcode, decltype(&QRcode_free)>;

// libqrencode grows the version when data does not fit the one asked for, so a symbol is of
// `version` only if the data fits it.
int encoded_version(ByteView data, int version, EcLevel level) {
  QrPtr code(
      QRcode_encodeData(static_cast<int>(data.size()), data.data(), version, to_qrencode(level)),
      QRcode_free);
  return code ? code->version : 0;
}

int encoded_text_version(const std::string& text, int version, EcLevel level) {
  QrPtr code(QRcode_encodeString(text.c_str(), version, to_qrencode(level), QR_MODE_8, 0),
             QRcode_free);
  return code ? code->version : 0;
}

// The largest payload for a version and level, found once by bisection against libqrencode
// itself, so it always agrees with what encode() and encode_text() can do.
template <class Fits>
std::size_t bisect_capacity(std::size_t hi, Fits fits) {
  std::size_t lo = 0;
  while (lo < hi) {
    const std::size_t mid = (lo + hi + 1) / 2;
    if (fits(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

std::size_t measure_capacity(int version, EcLevel level) {
  const Bytes probe(2953, 0xA5);  // 2953: byte-mode capacity of version 40-L, the QR maximum
  return bisect_capacity(probe.size(), [&](std::size_t n) {
    return encoded_version(ByteView(probe).first(n), version, level) == version;
  });
}

std::size_t measure_text_capacity(int version, EcLevel level) {
  // Upper-case letters: alphanumeric mode; 4296 is version 40-L's alphanumeric capacity.
  return bisect_capacity(4296, [&](std::size_t n) {
    return encoded_text_version(std::string(n, 'A'), version, level) == version;
  });
}

Result<Symbol> to_symbol(QRcode* raw, std::size_t size, int max_version, EcLevel level) {
  QrPtr code(raw, QRcode_free);
  if (!code || code->version > max_version) {
    return Error(qr::errors::kEncodeFailed,
                 std::to_string(size) + " bytes do not fit a QR code of version " +
                     std::to_string(max_version) + " at level " + level_letter(level) + " (" +
                     std::to_string(byte_capacity(max_version, level)) + " bytes at most)");
  }
  Symbol s;
  s.version = code->version;
  s.width = code->width;
  s.modules.resize(static_cast<std::size_t>(s.width) * static_cast<std::size_t>(s.width));
  for (std::size_t i = 0; i < s.modules.size(); ++i) s.modules[i] = code->data[i] & 1U;
  return s;
}

}  // namespace

std::size_t byte_capacity(int version, EcLevel level) {
  static std::mutex mutex;
  static std::array<std::array<std::size_t, 4>, 41> cache{};
  if (version < 1 || version > 40) return 0;
  std::lock_guard lock(mutex);
  auto& slot = cache[static_cast<std::size_t>(version)][static_cast<std::size_t>(level)];
  if (slot == 0) slot = measure_capacity(version, level);
  return slot;
}

std::size_t text_capacity(int version, EcLevel level) {
  static std::mutex mutex;
  static std::array<std::array<std::size_t, 4>, 41> cache{};
  if (version < 1 || version > 40) return 0;
  std::lock_guard lock(mutex);
  auto& slot = cache[static_cast<std::size_t>(version)][static_cast<std::size_t>(level)];
  if (slot == 0) slot = measure_text_capacity(version, level);
  return slot;
}

Result<Symbol> encode(ByteView data, int max_version, EcLevel level) {
  if (data.empty()) return Error(qr::errors::kEncodeFailed, "nothing to encode");
  if (max_version < 1 || max_version > 40) {
    return Error(ErrorCode::kUsage,
                 "QR version must be 1 to 40, got " + std::to_string(max_version));
  }
  return to_symbol(
      QRcode_encodeData(static_cast<int>(data.size()), data.data(), 0, to_qrencode(level)),
      data.size(), max_version, level);
}

Result<Symbol> encode_text(std::string_view text, int max_version, EcLevel level) {
  if (text.empty()) return Error(qr::errors::kEncodeFailed, "nothing to encode");
  if (max_version < 1 || max_version > 40) {
    return Error(ErrorCode::kUsage,
                 "QR version must be 1 to 40, got " + std::to_string(max_version));
  }
  const std::string copy(text);
  return to_symbol(QRcode_encodeString(copy.c_str(), 0, to_qrencode(level), QR_MODE_8, 0),
                   text.size(), max_version, level);
}

image::GrayImage render(const Symbol& symbol, int scale, int quiet) {
  const int side = (symbol.width + 2 * quiet) * scale;
  image::GrayImage out(side, side, 255);
  for (int y = 0; y < symbol.width; ++y) {
    for (int x = 0; x < symbol.width; ++x) {
      if (!symbol.dark(x, y)) continue;
      for (int dy = 0; dy < scale; ++dy) {
        for (int dx = 0; dx < scale; ++dx)
          out.set((x + quiet) * scale + dx, (y + quiet) * scale + dy, 0);
      }
    }
  }
  return out;
}

std::string render_terminal(const Symbol& symbol, bool light_terminal) {
  constexpr int kQuiet = 2;
  const int side = symbol.width + 2 * kQuiet;
  // A cell is "drawn" when it should show the terminal's foreground colour.
  const auto drawn = [&](int x, int y) {
    const int sx = x - kQuiet, sy = y - kQuiet;
    const bool dark =
        sx >= 0 && sy >= 0 && sx < symbol.width && sy < symbol.width && symbol.dark(sx, sy);
    return light_terminal ? dark : !dark;
  };
  std::string out;
  for (int y = 0; y < side; y += 2) {
    for (int x = 0; x < side; ++x) {
      const bool top = drawn(x, y);
      const bool bottom = y + 1 < side ? drawn(x, y + 1) : !light_terminal;
      out += top && bottom ? "\u2588" : top ? "\u2580" : bottom ? "\u2584" : " ";
    }
    out += '\n';
  }
  return out;
}

std::vector<Bytes> read(const image::GrayImage& img) {
  std::vector<Bytes> out;
  if (img.width <= 0 || img.height <= 0) return out;
  ZXing::ImageView view(img.pixels.data(), img.width, img.height, ZXing::ImageFormat::Lum);
  ZXing::DecodeHints hints;
  hints.setFormats(ZXing::BarcodeFormat::QRCode);
  hints.setTryHarder(true);
  hints.setTryRotate(true);
  // The local-average threshold reads most camera frames; on small, soft, noisy codes it breaks
  // modules apart where one threshold for the whole frame holds them (docs/benchmarks.md,
  // "Capture"). The second pass runs only when the first found nothing, so a frame that reads
  // costs no more.
  for (const auto binarizer : {ZXing::Binarizer::LocalAverage, ZXing::Binarizer::GlobalHistogram}) {
    hints.setBinarizer(binarizer);
    for (const auto& result : ZXing::ReadBarcodes(view, hints)) {
      if (!result.isValid()) continue;
      const auto& bytes = result.bytes();
      out.emplace_back(bytes.begin(), bytes.end());
    }
    if (!out.empty()) break;
  }
  return out;
}

Result<EcLevel> parse_level(std::string_view text) {
  if (text == "L" || text == "l") return EcLevel::kL;
  if (text == "M" || text == "m") return EcLevel::kM;
  if (text == "Q" || text == "q") return EcLevel::kQ;
  if (text == "H" || text == "h") return EcLevel::kH;
  return Error(ErrorCode::kUsage,
               "error-correction level must be L, M, Q or H, got '" + std::string(text) + "'");
}

char level_letter(EcLevel level) noexcept {
  switch (level) {
    case EcLevel::kL:
      return 'L';
    case EcLevel::kM:
      return 'M';
    case EcLevel::kQ:
      return 'Q';
    case EcLevel::kH:
      return 'H';
  }
  return '?';
}

}  // namespace airlock::qr
