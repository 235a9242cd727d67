// Image distortions for transport tests: what a camera does to a QR code on a screen.
#pragma once

#include <array>
#include <cstdint>

#include <airlock/formats/image.h>

namespace airlock::test {

using image::GrayImage;

// Maps every output pixel through the 3x3 homography `h` (output -> input coordinates, row
// major) with bilinear sampling; outside the input is white.
GrayImage warp(const GrayImage& in, int out_w, int out_h, const std::array<double, 9>& h);
GrayImage rotate(const GrayImage& in, double degrees);
GrayImage scale(const GrayImage& in, double factor);
// A camera looking at the screen from off-axis: the right edge shrinks by `squeeze` of its height.
GrayImage perspective(const GrayImage& in, double squeeze);
GrayImage blur(const GrayImage& in, double sigma);
// Adds uniform noise of +-amplitude to every pixel, deterministic for a seed.
GrayImage noise(const GrayImage& in, int amplitude, std::uint32_t seed);
// Lowers contrast: black becomes `low`, white `high`.
GrayImage contrast(const GrayImage& in, std::uint8_t low, std::uint8_t high);

}  // namespace airlock::test
