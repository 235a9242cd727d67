// QR codes: byte-mode symbols from libqrencode, rendered to images, the terminal or an HTML
// page, and read back from images with ZXing-C++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>
#include <airlock/formats/image.h>

namespace airlock::qr {

// This module's error codes (their kinds and the exit codes: common/error.h).
namespace errors {
// The content does not fit the QR version asked for.
inline constexpr ErrorCode kEncodeFailed{ErrorKind::kInvalidInput, "qr.encode_failed"};
}  // namespace errors

enum class EcLevel : std::uint8_t { kL, kM, kQ, kH };

// Defaults that phone and laptop cameras read at arm's length from a laptop screen: version 17
// (85 x 85 modules), level L (a screen is clean; size matters more than damage tolerance).
inline constexpr int kDefaultMaxVersion = 17;
inline constexpr EcLevel kDefaultLevel = EcLevel::kL;

struct Symbol {
  int version = 0;
  int width = 0;                      // modules per side
  std::vector<std::uint8_t> modules;  // width * width, 1 = dark
  [[nodiscard]] bool dark(int x, int y) const {
    return modules[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                   static_cast<std::size_t>(x)] != 0;
  }
};

// Bytes a byte-mode symbol of this version and level holds (1 <= version <= 40).
[[nodiscard]] std::size_t byte_capacity(int version, EcLevel level);

// Characters of upper-case UR text (alphanumeric mode) a symbol of this version and level holds.
[[nodiscard]] std::size_t text_capacity(int version, EcLevel level);

// The smallest byte-mode symbol for `data` at `level`, at most `max_version`; fails with
// qr.encode_failed when the data does not fit.
[[nodiscard]] Result<Symbol> encode(ByteView data, int max_version, EcLevel level);

// The smallest symbol for text: case-insensitive (upper-cased), so UR text uses the denser
// alphanumeric mode, as BC-UR recommends.
[[nodiscard]] Result<Symbol> encode_text(std::string_view text, int max_version, EcLevel level);

// Black modules on white, `scale` pixels per module, a quiet zone of `quiet` modules.
[[nodiscard]] image::GrayImage render(const Symbol& symbol, int scale, int quiet = 4);

// UTF-8 half blocks, two module rows per text line, with a 2-module quiet zone. Light modules
// are drawn as blocks, so the code reads correctly on the usual dark terminal; `light_terminal`
// draws dark modules instead.
[[nodiscard]] std::string render_terminal(const Symbol& symbol, bool light_terminal = false);

// Every QR code ZXing finds in the image, as raw bytes (no character-set conversion).
[[nodiscard]] std::vector<Bytes> read(const image::GrayImage& image);

[[nodiscard]] Result<EcLevel> parse_level(std::string_view text);
[[nodiscard]] char level_letter(EcLevel level) noexcept;

}  // namespace airlock::qr
