#include <cstring>

#include <png.h>

#include <airlock/formats/files.h>
#include <airlock/formats/image.h>

namespace airlock::image {
namespace {

Result<GrayImage> finish_read(png_image& png) {
  if (png.width == 0 || png.height == 0 || png.width > kMaxSide || png.height > kMaxSide ||
      static_cast<std::size_t>(png.width) * png.height > kMaxPixels) {
    png_image_free(&png);
    return Error(image::errors::kInvalid, "image of " + std::to_string(png.width) + "x" +
                                              std::to_string(png.height) +
                                              " pixels is outside the accepted size");
  }
  png.format = PNG_FORMAT_GRAY;
  GrayImage out(static_cast<int>(png.width), static_cast<int>(png.height));
  // Transparent pixels composite onto white, the way a QR code is meant to be seen.
  png_color background{255, 255, 255};
  if (png_image_finish_read(&png, &background, out.pixels.data(), 0, nullptr) == 0) {
    std::string message = png.message;
    png_image_free(&png);
    return Error(image::errors::kInvalid, "PNG could not be decoded: " + message);
  }
  return out;
}

}  // namespace

Result<GrayImage> read_png_file(const std::string& path) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&png, path.c_str()) == 0) {
    std::string message = png.message;
    png_image_free(&png);
    return Error(image::errors::kInvalid, "'" + path + "' is not a readable PNG: " + message);
  }
  return finish_read(png);
}

Result<GrayImage> decode_png(ByteView bytes) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_memory(&png, bytes.data(), bytes.size()) == 0) {
    std::string message = png.message;
    png_image_free(&png);
    return Error(image::errors::kInvalid, "not a readable PNG: " + message);
  }
  return finish_read(png);
}

Result<Bytes> encode_png(const GrayImage& image) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_GRAY;
  png_alloc_size_t size = 0;
  if (png_image_write_to_memory(&png, nullptr, &size, 0, image.pixels.data(), 0, nullptr) == 0) {
    return Error(image::errors::kInvalid, std::string("PNG encoding failed: ") + png.message);
  }
  Bytes out(size);
  if (png_image_write_to_memory(&png, out.data(), &size, 0, image.pixels.data(), 0, nullptr) == 0) {
    return Error(image::errors::kInvalid, std::string("PNG encoding failed: ") + png.message);
  }
  out.resize(size);
  return out;
}

Status write_png_file(const std::string& path, const GrayImage& image) {
  AIRLOCK_TRY(png, encode_png(image));
  return files::write_atomically(path, png);
}

}  // namespace airlock::image
