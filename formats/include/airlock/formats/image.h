// 8-bit grayscale images and PNG files (libpng's simplified API): what QR codes are rendered
// to and read from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>

namespace airlock::image {

// This module's error codes (their kinds and the exit codes: common/error.h).
namespace errors {
inline constexpr ErrorCode kInvalid{ErrorKind::kInvalidInput, "image.invalid"};
}  // namespace errors

// Largest image accepted: 8192 x 8192. A phone photo is about 12 MP; anything larger is
// refused before its pixels are allocated.
inline constexpr std::size_t kMaxPixels = std::size_t{8192} * 8192;
inline constexpr std::size_t kMaxSide = 16384;

struct GrayImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  // row-major, 0 black, 255 white

  GrayImage() = default;
  GrayImage(int w, int h, std::uint8_t fill = 255)
      : width(w),
        height(h),
        pixels(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), fill) {}
  [[nodiscard]] std::uint8_t at(int x, int y) const {
    return pixels[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                  static_cast<std::size_t>(x)];
  }
  void set(int x, int y, std::uint8_t v) {
    pixels[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
           static_cast<std::size_t>(x)] = v;
  }
};

// Any PNG (gray, RGB, palette, with alpha), converted to 8-bit gray.
[[nodiscard]] Result<GrayImage> read_png_file(const std::string& path);
[[nodiscard]] Result<GrayImage> decode_png(ByteView png);
[[nodiscard]] Result<Bytes> encode_png(const GrayImage& image);
// Writes through a temporary file and a rename, so a reader never sees half a frame.
[[nodiscard]] Status write_png_file(const std::string& path, const GrayImage& image);

}  // namespace airlock::image
