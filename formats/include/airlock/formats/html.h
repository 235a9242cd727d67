// One self-contained HTML page that shows QR frames full-screen in a loop, with the frame
// number and, when a deadline is given, a countdown to it. No network access: the frames are
// embedded as PNG data URLs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <airlock/common/bytes.h>

namespace airlock::html {

struct PageOptions {
  std::string title = "airlock transfer";
  int frames_per_second = 8;
  std::optional<std::uint64_t> deadline_unix;  // seconds; the countdown's target
};

[[nodiscard]] std::string animated_qr_page(const std::vector<Bytes>& png_frames,
                                           const PageOptions& options);

}  // namespace airlock::html
