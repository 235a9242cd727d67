// Where scanned frames come from: PNG files or folders of them, a raw grayscale stream (what
// `ffmpeg ... -f rawvideo -pix_fmt gray -` writes), or a V4L2 camera. A source yields frames
// until it ends; the reader skips frames with no readable code, so a bad frame is never fatal.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <airlock/common/error.h>
#include <airlock/formats/image.h>

namespace airlock::frames {

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // The next frame; std::nullopt once the source has ended, or when no frame came before
  // `deadline` (a stalled stream or camera never blocks past it). A frame that cannot be read (a
  // corrupt PNG) is an error for that frame only: the caller may go on calling next(), unless
  // errors_end_stream() says the source itself failed.
  [[nodiscard]] virtual Result<std::optional<image::GrayImage>> next(
      std::chrono::steady_clock::time_point deadline) = 0;
  [[nodiscard]] virtual std::string describe() const = 0;
  // Whether an error from next() means the source failed (a stream or camera that cannot be
  // read), so asking again would only fail again.
  [[nodiscard]] virtual bool errors_end_stream() const { return false; }
};

// PNG files in the given order; a folder stands for its *.png files in name order.
[[nodiscard]] Result<std::unique_ptr<FrameSource>> open_png_files(
    const std::vector<std::string>& paths);

// Frames of exactly width x height bytes, one after another, from a file descriptor (0 for
// standard input). A short final frame ends the stream.
[[nodiscard]] Result<std::unique_ptr<FrameSource>> open_raw_stream(int fd, int width, int height);

// A V4L2 capture device (e.g. /dev/video0) asked for width x height in 8-bit gray, or YUYV
// from which the luma is kept. Streams through memory-mapped buffers.
[[nodiscard]] Result<std::unique_ptr<FrameSource>> open_camera(const std::string& device, int width,
                                                               int height);

// "640x480" -> {640, 480}; each side 16 to 8192.
[[nodiscard]] Result<std::pair<int, int>> parse_size(std::string_view text);

}  // namespace airlock::frames
