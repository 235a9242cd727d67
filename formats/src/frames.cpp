#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <airlock/common/fd.h>
#include <airlock/formats/frames.h>

namespace airlock::frames {
namespace {

// Whether fd has something to read before `deadline` (false: it stalled until then).
Result<bool> readable_before(int fd, std::chrono::steady_clock::time_point deadline,
                             const std::string& what) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 60'000)));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0)
      return Error(ErrorCode::kIo, "cannot wait for " + what + ": " + std::strerror(errno));
    if (rc > 0) return true;  // readable, at its end, or failed: read() says which
  }
}

class PngFiles final : public FrameSource {
 public:
  explicit PngFiles(std::vector<std::string> paths) : paths_(std::move(paths)) {}
  Result<std::optional<image::GrayImage>> next(std::chrono::steady_clock::time_point) override {
    if (index_ >= paths_.size()) return std::optional<image::GrayImage>();
    auto img = image::read_png_file(paths_[index_++]);
    if (!img.ok()) return std::move(img).error();
    return std::optional<image::GrayImage>(std::move(img).value());
  }
  std::string describe() const override { return std::to_string(paths_.size()) + " PNG files"; }

 private:
  std::vector<std::string> paths_;
  std::size_t index_ = 0;
};

class RawStream final : public FrameSource {
 public:
  RawStream(int fd, int width, int height) : fd_(fd), width_(width), height_(height) {}
  Result<std::optional<image::GrayImage>> next(
      std::chrono::steady_clock::time_point deadline) override {
    image::GrayImage img(width_, height_);
    std::size_t got = 0;
    while (got < img.pixels.size()) {
      AIRLOCK_TRY(ready, readable_before(fd_, deadline, "the frame stream"));
      if (!ready) return std::optional<image::GrayImage>();  // stalled until the deadline
      const ssize_t n = ::read(fd_, img.pixels.data() + got, img.pixels.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0)
        return Error(ErrorCode::kIo,
                     std::string("cannot read the frame stream: ") + std::strerror(errno));
      if (n == 0) return std::optional<image::GrayImage>();  // end of stream
      got += static_cast<std::size_t>(n);
    }
    return std::optional<image::GrayImage>(std::move(img));
  }
  std::string describe() const override {
    return "raw " + std::to_string(width_) + "x" + std::to_string(height_) + " gray stream";
  }
  bool errors_end_stream() const override { return true; }

 private:
  int fd_, width_, height_;
};

int xioctl(int fd, unsigned long request, void* arg) {
  int rc = 0;
  do {
    rc = ::ioctl(fd, request, arg);
  } while (rc < 0 && errno == EINTR);
  return rc;
}

class Camera final : public FrameSource {
 public:
  ~Camera() override {
    if (!fd_.valid()) return;
    v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    xioctl(fd_.get(), VIDIOC_STREAMOFF, &type);
    for (auto& [start, length] : buffers_) ::munmap(start, length);
  }  // fd_ closes after the buffers are unmapped

  static Result<std::unique_ptr<FrameSource>> open(const std::string& device, int width,
                                                   int height) {
    auto cam = std::unique_ptr<Camera>(new Camera(device));
    cam->fd_.reset(::open(device.c_str(), O_RDWR | O_CLOEXEC));
    if (!cam->fd_.valid()) return cam->fail("cannot open camera");
    v4l2_capability cap{};
    if (xioctl(cam->fd_.get(), VIDIOC_QUERYCAP, &cap) < 0) return cam->fail("not a V4L2 device");
    if ((cap.capabilities & V4L2_CAP_VIDEO_CAPTURE) == 0 ||
        (cap.capabilities & V4L2_CAP_STREAMING) == 0) {
      return Error(ErrorCode::kIo, "camera '" + device + "' cannot stream video capture");
    }
    v4l2_format fmt{};
    fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    fmt.fmt.pix.width = static_cast<__u32>(width);
    fmt.fmt.pix.height = static_cast<__u32>(height);
    fmt.fmt.pix.field = V4L2_FIELD_NONE;
    bool ok = false;
    for (__u32 pixel_format : {V4L2_PIX_FMT_GREY, V4L2_PIX_FMT_YUYV}) {
      fmt.fmt.pix.pixelformat = pixel_format;
      if (xioctl(cam->fd_.get(), VIDIOC_S_FMT, &fmt) == 0 &&
          fmt.fmt.pix.pixelformat == pixel_format) {
        ok = true;
        break;
      }
    }
    if (!ok)
      return Error(ErrorCode::kIo, "camera '" + device + "' offers neither GREY nor YUYV frames");
    cam->format_ = fmt.fmt.pix.pixelformat;
    cam->width_ = static_cast<int>(fmt.fmt.pix.width);
    cam->height_ = static_cast<int>(fmt.fmt.pix.height);
    cam->stride_ = fmt.fmt.pix.bytesperline;
    v4l2_requestbuffers req{};
    req.count = 4;
    req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    req.memory = V4L2_MEMORY_MMAP;
    if (xioctl(cam->fd_.get(), VIDIOC_REQBUFS, &req) < 0 || req.count < 2)
      return cam->fail("cannot get capture buffers");
    for (__u32 i = 0; i < req.count; ++i) {
      v4l2_buffer buf{};
      buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
      buf.memory = V4L2_MEMORY_MMAP;
      buf.index = i;
      if (xioctl(cam->fd_.get(), VIDIOC_QUERYBUF, &buf) < 0)
        return cam->fail("cannot query a capture buffer");
      void* start = ::mmap(nullptr, buf.length, PROT_READ | PROT_WRITE, MAP_SHARED, cam->fd_.get(),
                           buf.m.offset);
      if (start == MAP_FAILED) return cam->fail("cannot map a capture buffer");
      cam->buffers_.emplace_back(start, buf.length);
      if (xioctl(cam->fd_.get(), VIDIOC_QBUF, &buf) < 0)
        return cam->fail("cannot queue a capture buffer");
    }
    v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(cam->fd_.get(), VIDIOC_STREAMON, &type) < 0)
      return cam->fail("cannot start streaming");
    return std::unique_ptr<FrameSource>(std::move(cam));
  }

  Result<std::optional<image::GrayImage>> next(
      std::chrono::steady_clock::time_point deadline) override {
    AIRLOCK_TRY(ready, readable_before(fd_.get(), deadline, "camera '" + device_ + "'"));
    if (!ready) return std::optional<image::GrayImage>();  // no frame until the deadline
    v4l2_buffer buf{};
    buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buf.memory = V4L2_MEMORY_MMAP;
    if (xioctl(fd_.get(), VIDIOC_DQBUF, &buf) < 0) return fail("cannot take a frame");
    const auto* data = static_cast<const std::uint8_t*>(buffers_[buf.index].first);
    image::GrayImage img(width_, height_);
    const std::size_t step = format_ == V4L2_PIX_FMT_YUYV ? 2 : 1;  // YUYV: luma every other byte
    for (int y = 0; y < height_; ++y) {
      for (int x = 0; x < width_; ++x) {
        img.set(x, y,
                data[static_cast<std::size_t>(y) * stride_ + static_cast<std::size_t>(x) * step]);
      }
    }
    if (xioctl(fd_.get(), VIDIOC_QBUF, &buf) < 0) return fail("cannot return a frame buffer");
    return std::optional<image::GrayImage>(std::move(img));
  }

  bool errors_end_stream() const override { return true; }
  std::string describe() const override {
    return "camera " + device_ + " (" + std::to_string(width_) + "x" + std::to_string(height_) +
           ")";
  }

 private:
  explicit Camera(std::string device) : device_(std::move(device)) {}
  Error fail(const std::string& what) const {
    return Error(ErrorCode::kIo, what + " '" + device_ + "': " + std::strerror(errno));
  }

  std::string device_;
  UniqueFd fd_;
  int width_ = 0, height_ = 0;
  std::size_t stride_ = 0;
  __u32 format_ = 0;
  std::vector<std::pair<void*, std::size_t>> buffers_;
};

}  // namespace

Result<std::unique_ptr<FrameSource>> open_png_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const auto& path : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      std::vector<std::string> in_dir;
      for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
        if (entry.is_regular_file() && entry.path().extension() == ".png")
          in_dir.push_back(entry.path().string());
      }
      std::sort(in_dir.begin(), in_dir.end());
      if (in_dir.empty()) return Error(ErrorCode::kIo, "folder '" + path + "' holds no .png files");
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (std::filesystem::is_regular_file(path, ec)) {
      files.push_back(path);
    } else {
      return Error(ErrorCode::kIo, "'" + path + "' is neither a PNG file nor a folder");
    }
  }
  if (files.empty()) return Error(ErrorCode::kUsage, "no input frames given");
  return std::unique_ptr<FrameSource>(new PngFiles(std::move(files)));
}

Result<std::unique_ptr<FrameSource>> open_raw_stream(int fd, int width, int height) {
  if (width < 16 || height < 16 ||
      static_cast<std::size_t>(width) * static_cast<std::size_t>(height) > image::kMaxPixels) {
    return Error(ErrorCode::kUsage, "raw frame size " + std::to_string(width) + "x" +
                                        std::to_string(height) + " is outside 16x16 to 8192x8192");
  }
  return std::unique_ptr<FrameSource>(new RawStream(fd, width, height));
}

Result<std::unique_ptr<FrameSource>> open_camera(const std::string& device, int width, int height) {
  return Camera::open(device, width, height);
}

Result<std::pair<int, int>> parse_size(std::string_view text) {
  const auto x = text.find('x');
  int w = 0, h = 0;
  const auto parse = [](std::string_view s, int& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && out >= 16 && out <= 8192;
  };
  if (x == std::string_view::npos || !parse(text.substr(0, x), w) ||
      !parse(text.substr(x + 1), h)) {
    return Error(ErrorCode::kUsage, "size must be WIDTHxHEIGHT with each side 16 to 8192, got '" +
                                        std::string(text) + "'");
  }
  return std::make_pair(w, h);
}

}  // namespace airlock::frames
