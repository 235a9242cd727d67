#include "support/distort.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace airlock::test {
namespace {

double sample(const GrayImage& in, double x, double y) {
  const int x0 = static_cast<int>(std::floor(x)), y0 = static_cast<int>(std::floor(y));
  const double fx = x - x0, fy = y - y0;
  const auto px = [&](int px_x, int px_y) -> double {
    if (px_x < 0 || px_y < 0 || px_x >= in.width || px_y >= in.height) return 255.0;
    return in.at(px_x, px_y);
  };
  return px(x0, y0) * (1 - fx) * (1 - fy) + px(x0 + 1, y0) * fx * (1 - fy) +
         px(x0, y0 + 1) * (1 - fx) * fy + px(x0 + 1, y0 + 1) * fx * fy;
}

std::uint8_t clamp_byte(double v) {
  return static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L));
}

// Solves the 8 unknowns of the homography mapping four source points to four destinations.
std::array<double, 9> homography(const std::array<double, 8>& from,
                                 const std::array<double, 8>& to) {
  double a[8][9] = {};
  for (std::size_t i = 0; i < 4; ++i) {
    const double x = from[2 * i], y = from[2 * i + 1], u = to[2 * i], v = to[2 * i + 1];
    double r1[9] = {x, y, 1, 0, 0, 0, -u * x, -u * y, u};
    double r2[9] = {0, 0, 0, x, y, 1, -v * x, -v * y, v};
    std::copy(r1, r1 + 9, a[2 * i]);
    std::copy(r2, r2 + 9, a[2 * i + 1]);
  }
  for (int c = 0; c < 8; ++c) {
    int pivot = c;
    for (int r = c + 1; r < 8; ++r) {
      if (std::fabs(a[r][c]) > std::fabs(a[pivot][c])) pivot = r;
    }
    std::swap(a[c], a[pivot]);
    for (int r = 0; r < 8; ++r) {
      if (r == c) continue;
      const double f = a[r][c] / a[c][c];
      for (int k = c; k < 9; ++k) a[r][k] -= f * a[c][k];
    }
  }
  std::array<double, 9> h{};
  for (int i = 0; i < 8; ++i) h[static_cast<std::size_t>(i)] = a[i][8] / a[i][i];
  h[8] = 1;
  return h;
}

}  // namespace

GrayImage warp(const GrayImage& in, int out_w, int out_h, const std::array<double, 9>& h) {
  GrayImage out(out_w, out_h);
  for (int y = 0; y < out_h; ++y) {
    for (int x = 0; x < out_w; ++x) {
      const double w = h[6] * x + h[7] * y + h[8];
      const double sx = (h[0] * x + h[1] * y + h[2]) / w;
      const double sy = (h[3] * x + h[4] * y + h[5]) / w;
      out.set(x, y, clamp_byte(sample(in, sx, sy)));
    }
  }
  return out;
}

GrayImage rotate(const GrayImage& in, double degrees) {
  const double r = degrees * M_PI / 180.0, c = std::cos(r), s = std::sin(r);
  const int side = static_cast<int>(std::ceil((in.width + in.height) * 0.75));
  const double cx = in.width / 2.0, cy = in.height / 2.0, ox = side / 2.0, oy = side / 2.0;
  // Output (x, y) -> input: rotate back around the centres.
  const std::array<double, 9> h{c, s, cx - c * ox - s * oy, -s, c, cy + s * ox - c * oy, 0, 0, 1};
  return warp(in, side, side, h);
}

GrayImage scale(const GrayImage& in, double factor) {
  const int w = static_cast<int>(in.width * factor), h = static_cast<int>(in.height * factor);
  return warp(in, w, h, {1 / factor, 0, 0, 0, 1 / factor, 0, 0, 0, 1});
}

GrayImage perspective(const GrayImage& in, double squeeze) {
  const double w = in.width, h = in.height, d = h * squeeze / 2;
  // Where the input corners land in the output; invert to get output -> input.
  const std::array<double, 8> src{0, 0, w, 0, w, h, 0, h};
  const std::array<double, 8> dst{0, 0, w, d, w, h - d, 0, h};
  return warp(in, in.width, in.height, homography(dst, src));
}

GrayImage blur(const GrayImage& in, double sigma) {
  const int radius = static_cast<int>(std::ceil(3 * sigma));
  std::vector<double> kernel(static_cast<std::size_t>(2 * radius + 1));
  double sum = 0;
  for (int i = -radius; i <= radius; ++i) {
    kernel[static_cast<std::size_t>(i + radius)] = std::exp(-(i * i) / (2 * sigma * sigma));
    sum += kernel[static_cast<std::size_t>(i + radius)];
  }
  for (auto& k : kernel) k /= sum;
  GrayImage tmp(in.width, in.height), out(in.width, in.height);
  for (int y = 0; y < in.height; ++y) {
    for (int x = 0; x < in.width; ++x) {
      double acc = 0;
      for (int i = -radius; i <= radius; ++i) {
        acc += kernel[static_cast<std::size_t>(i + radius)] *
               in.at(std::clamp(x + i, 0, in.width - 1), y);
      }
      tmp.set(x, y, clamp_byte(acc));
    }
  }
  for (int y = 0; y < in.height; ++y) {
    for (int x = 0; x < in.width; ++x) {
      double acc = 0;
      for (int i = -radius; i <= radius; ++i) {
        acc += kernel[static_cast<std::size_t>(i + radius)] *
               tmp.at(x, std::clamp(y + i, 0, in.height - 1));
      }
      out.set(x, y, clamp_byte(acc));
    }
  }
  return out;
}

GrayImage noise(const GrayImage& in, int amplitude, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-amplitude, amplitude);
  GrayImage out = in;
  for (auto& p : out.pixels) p = clamp_byte(p + d(rng));
  return out;
}

GrayImage contrast(const GrayImage& in, std::uint8_t low, std::uint8_t high) {
  GrayImage out = in;
  for (auto& p : out.pixels) p = clamp_byte(low + (high - low) * (p / 255.0));
  return out;
}

}  // namespace airlock::test
