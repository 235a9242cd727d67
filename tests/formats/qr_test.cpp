// QR round trips through rendered images, clean and distorted the way a camera sees a screen.
#include <filesystem>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/formats/dense.h>
#include <airlock/formats/image.h>
#include <airlock/formats/qr.h>

#include "support/distort.h"
#include "support/helpers.h"

using ::testing::HasSubstr;

namespace airlock::qr {
namespace {

using test::random_bytes;

TEST(Qr, CapacityMatchesTheStandardTable) {
  // Byte-mode capacities from ISO/IEC 18004 Table 7.
  EXPECT_EQ(byte_capacity(1, EcLevel::kL), 17U);
  EXPECT_EQ(byte_capacity(1, EcLevel::kH), 7U);
  EXPECT_EQ(byte_capacity(8, EcLevel::kL), 192U);
  EXPECT_EQ(byte_capacity(17, EcLevel::kL), 644U);
  EXPECT_EQ(byte_capacity(17, EcLevel::kM), 504U);
  EXPECT_EQ(byte_capacity(18, EcLevel::kL), 718U);
  EXPECT_EQ(byte_capacity(40, EcLevel::kL), 2953U);
  EXPECT_EQ(byte_capacity(0, EcLevel::kL), 0U);
}

TEST(Qr, ChoosesTheSmallestVersionAndRefusesOverflow) {
  auto small = encode(random_bytes(17, 1), 40, EcLevel::kL);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->version, 1);
  EXPECT_EQ(small->width, 21);
  auto full = encode(random_bytes(644, 2), 17, EcLevel::kL);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->version, 17);
  auto over = encode(random_bytes(645, 3), 17, EcLevel::kL);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code(), qr::errors::kEncodeFailed);
  EXPECT_THAT(over.error().message(), HasSubstr("644 bytes at most"));
}

TEST(Qr, CleanRoundTripAtEveryLevel) {
  for (EcLevel level : {EcLevel::kL, EcLevel::kM, EcLevel::kQ, EcLevel::kH}) {
    const Bytes data = random_bytes(byte_capacity(10, level), static_cast<std::uint32_t>(level));
    auto symbol = encode(data, 10, level);
    ASSERT_TRUE(symbol.ok());
    const auto found = read(render(*symbol, 3));
    ASSERT_EQ(found.size(), 1U) << level_letter(level);
    EXPECT_EQ(found[0], data);
  }
}

TEST(Qr, PngFileRoundTrip) {
  const Bytes data = random_bytes(300, 4);
  auto symbol = encode(data, 17, EcLevel::kM);
  ASSERT_TRUE(symbol.ok());
  const auto path = std::filesystem::temp_directory_path() /
                    ("airlock-qr-" + std::to_string(::getpid()) + ".png");
  ASSERT_TRUE(image::write_png_file(path.string(), render(*symbol, 4)).ok());
  auto loaded = image::read_png_file(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
  const auto found = read(*loaded);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0], data);
}

// A full-size dense frame at the default density, through each camera-like distortion.
class DistortedFrame : public ::testing::TestWithParam<
                           std::pair<const char*, image::GrayImage (*)(const image::GrayImage&)>> {
};

TEST_P(DistortedFrame, StillReads) {
  const Bytes payload = random_bytes(3000, 5);
  auto encoder = dense::Encoder::create(payload, dense::ContentType::kFile,
                                        byte_capacity(kDefaultMaxVersion, kDefaultLevel),
                                        dense::Deflate::kNever);
  ASSERT_TRUE(encoder.ok());
  const Bytes frame = encoder->frame(2);
  auto symbol = encode(frame, kDefaultMaxVersion, kDefaultLevel);
  ASSERT_TRUE(symbol.ok());
  const image::GrayImage distorted = GetParam().second(render(*symbol, 4));
  const auto found = read(distorted);
  ASSERT_EQ(found.size(), 1U) << GetParam().first;
  EXPECT_EQ(found[0], frame);
}

INSTANTIATE_TEST_SUITE_P(
    Camera, DistortedFrame,
    ::testing::Values(
        std::make_pair(
            "noise", +[](const image::GrayImage& i) { return test::noise(i, 60, 1); }),
        std::make_pair(
            "blur", +[](const image::GrayImage& i) { return test::blur(i, 1.2); }),
        std::make_pair(
            "rotation", +[](const image::GrayImage& i) { return test::rotate(i, 17); }),
        std::make_pair(
            "upside down", +[](const image::GrayImage& i) { return test::rotate(i, 183); }),
        std::make_pair(
            "perspective", +[](const image::GrayImage& i) { return test::perspective(i, 0.18); }),
        std::make_pair(
            "scaled down", +[](const image::GrayImage& i) { return test::scale(i, 0.8); }),
        std::make_pair(
            "scaled up", +[](const image::GrayImage& i) { return test::scale(i, 1.7); }),
        std::make_pair(
            "low contrast", +[](const image::GrayImage& i) { return test::contrast(i, 90, 170); }),
        std::make_pair(
            "everything",
            +[](const image::GrayImage& i) {
              return test::noise(
                  test::blur(test::perspective(test::rotate(test::contrast(i, 40, 220), 8), 0.15),
                             0.8),
                  25, 2);
            })),
    [](const auto& p) {
      std::string name = p.param.first;
      for (auto& c : name) {
        if (c == ' ') c = '_';
      }
      return name;
    });

// A code filmed small, soft and noisy (two camera pixels per module): the local-average
// threshold finds nothing there, one threshold for the whole frame reads it, so the reader tries
// that second. (Found by scripts/capture-bench; the ZXing binarizers read different sets of such
// frames, and the reader takes their union.)
TEST(Qr, ASmallSoftNoisyCodeReadsThroughTheSecondThreshold) {
  const Bytes data = random_bytes(300, 7);
  auto symbol = encode(data, 12, EcLevel::kL);
  ASSERT_TRUE(symbol.ok());
  const image::GrayImage filmed =
      test::noise(test::blur(test::scale(render(*symbol, 4), 0.5), 0.6), 40, 3);
  const auto found = read(filmed);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0], data);
}

TEST(Qr, ImageWithoutACodeYieldsNothing) {
  EXPECT_TRUE(read(image::GrayImage(200, 200, 255)).empty());
  EXPECT_TRUE(read(test::noise(image::GrayImage(200, 200, 128), 127, 3)).empty());
}

TEST(Qr, TerminalRenderingHasOneLinePerTwoModuleRows) {
  auto symbol = encode(random_bytes(10, 6), 1, EcLevel::kL);
  ASSERT_TRUE(symbol.ok());
  const std::string text = render_terminal(*symbol);
  const auto lines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  EXPECT_EQ(lines, (21 + 4 + 1) / 2);
  EXPECT_THAT(text, HasSubstr("\u2588"));
}

TEST(Png, RefusesGarbageAndHugeImages) {
  EXPECT_EQ(image::decode_png(Bytes{1, 2, 3}).error().code(), image::errors::kInvalid);
  // A valid PNG header that claims 100000 x 100000 pixels.
  image::GrayImage small(2, 2);
  auto png = image::encode_png(small);
  ASSERT_TRUE(png.ok());
  Bytes huge = *png;
  // IHDR width and height start at byte 16.
  for (int i : {16, 20}) {
    huge[static_cast<std::size_t>(i)] = 0x00;
    huge[static_cast<std::size_t>(i) + 1] = 0x01;
    huge[static_cast<std::size_t>(i) + 2] = 0x86;
    huge[static_cast<std::size_t>(i) + 3] = 0xA0;
  }
  auto decoded = image::decode_png(huge);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().code(), image::errors::kInvalid);
}

}  // namespace
}  // namespace airlock::qr
