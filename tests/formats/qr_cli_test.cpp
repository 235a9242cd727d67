// The real airlock-qr executable, as an operator uses it.
#include <array>
#include <filesystem>
#include <fstream>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <airlock/formats/density.h>
#include <airlock/formats/files.h>
#include <airlock/formats/image.h>

#include "support/helpers.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace {

using CliRun = airlock::test::CommandResult;

CliRun run(const std::string& args) {
  return airlock::test::run_command(std::string(AIRLOCK_QR_BIN) + " " + args);
}

class QrCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("airlock-qr-cli-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write_random(const std::string& name, std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::string data(n, '\0');
    for (auto& c : data) c = static_cast<char>(rng());
    std::ofstream(path(name), std::ios::binary) << data;
    return data;
  }
  std::string read(const std::string& name) const {
    std::ifstream in(path(name), std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  std::filesystem::path dir_;
};

TEST_F(QrCli, PngFolderRoundTripSurvivesLostFrames) {
  const std::string data = write_random("in.bin", 9000, 1);
  const CliRun enc = run("encode --qr-png " + path("frames") + " " + path("in.bin"));
  ASSERT_EQ(enc.exit_code, 0) << enc.output;
  // Lose every third frame, as a camera that misses some would.
  std::vector<std::filesystem::path> frames;
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "frames"))
    frames.push_back(e.path());
  std::sort(frames.begin(), frames.end());
  ASSERT_GE(frames.size(), 10U);
  for (std::size_t i = 0; i < frames.size(); i += 3) std::filesystem::remove(frames[i]);
  const CliRun dec = run("decode -q -o " + path("out.bin") + " " + path("frames"));
  ASSERT_EQ(dec.exit_code, 0) << dec.output;
  EXPECT_EQ(read("out.bin"), data);
}

// The operator's density choice (docs/benchmarks.md, camera capture): the presets are the
// measured versions at level L, and anything else is named.
TEST(Density, PresetsAreTheMeasuredVersionsAtLevelL) {
  using airlock::density::Density;
  const std::array<std::pair<const char*, int>, 3> presets{
      {{"low", 8}, {"medium", 12}, {"high", 17}}};
  for (const auto& [name, version] : presets) {
    auto parsed = airlock::density::parse(name);
    ASSERT_TRUE(parsed.ok()) << name;
    airlock::transfer::Options o;
    o.level = airlock::qr::EcLevel::kM;
    airlock::density::apply(*parsed, o);
    EXPECT_EQ(o.max_version, version) << name;
    EXPECT_EQ(o.level, airlock::qr::EcLevel::kL) << name;
  }
  airlock::transfer::Options defaults;
  auto high = airlock::density::parse("high");
  ASSERT_TRUE(high.ok());
  airlock::transfer::Options o;
  airlock::density::apply(*high, o);
  EXPECT_EQ(o.max_version, defaults.max_version) << "high is the default";
  auto bad = airlock::density::parse("ultra");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message(), HasSubstr("must be low, medium or high"));
}

TEST_F(QrCli, ALowerDensityWritesMoreSmallerFramesThatReadBack) {
  const std::string data = write_random("in.bin", 3000, 7);
  std::size_t previous = 0;
  for (const char* density : {"high", "medium", "low"}) {
    const std::string folder = path(std::string("frames-") + density);
    const CliRun enc = run(std::string("encode --density ") + density + " --qr-png " + folder +
                           " " + path("in.bin"));
    ASSERT_EQ(enc.exit_code, 0) << density << "\n" << enc.output;
    std::size_t frames = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(folder)) ++frames;
    EXPECT_GT(frames, previous) << density << " should need more frames than the denser one";
    previous = frames;
    const CliRun dec = run("decode -q -o " + path(std::string("out-") + density) + " " + folder);
    ASSERT_EQ(dec.exit_code, 0) << density << "\n" << dec.output;
    EXPECT_EQ(read(std::string("out-") + density), data) << density;
  }
  const CliRun bad = run("encode --density ultra --qr-png " + path("x") + " " + path("in.bin"));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("--density: must be low, medium or high"));
  const CliRun both =
      run("encode --density low --max-version 10 --qr-png " + path("x") + " " + path("in.bin"));
  EXPECT_EQ(both.exit_code, 2) << both.output;
  EXPECT_THAT(both.output, HasSubstr("not both"));
}

// The reader's --timeout holds when the stream stalls (a writer that sends nothing and stays
// open), and a stream that cannot be read at all is an I/O error at once, not a busy loop until
// the timeout. `timeout 60` only catches a hang; the command is expected to end in about 2 s.
TEST_F(QrCli, AStalledOrBrokenStreamEndsTheRead) {
  const CliRun stalled = airlock::test::run_command(
      "bash -c 'timeout 60 " + std::string(AIRLOCK_QR_BIN) + " decode --raw 64x64 -o " + path("x") +
      " --timeout 2 < <(exec sleep 90 2>/dev/null); echo \"exit=$?\"'");
  EXPECT_THAT(stalled.output, HasSubstr("exit=1"));
  EXPECT_THAT(stalled.output, HasSubstr("transfer incomplete"));
  const CliRun broken = run("decode --raw 64x64 -o " + path("x") + " --timeout 3 < /");
  EXPECT_EQ(broken.exit_code, 3) << broken.output.substr(0, 2000);
  EXPECT_THAT(broken.output, HasSubstr("cannot read the frame stream"))
      << broken.output.substr(0, 2000);
  EXPECT_LT(broken.output.size(), 2000U) << "one error, not a line per attempt";
}

TEST_F(QrCli, RawStreamOnStandardInput) {
  const std::string data = write_random("in.bin", 1500, 2);
  ASSERT_EQ(run("encode --framing ur --qr-png " + path("frames") + " --scale 3 " + path("in.bin"))
                .exit_code,
            0);
  // A raw stream as ffmpeg writes it: every frame placed on a fixed 400x400 gray canvas, and a
  // blank frame between them, as a camera sees between QR codes.
  constexpr int kSide = 400;
  std::ofstream stream(path("stream.raw"), std::ios::binary);
  std::vector<std::filesystem::path> frames;
  for (const auto& e : std::filesystem::directory_iterator(dir_ / "frames"))
    frames.push_back(e.path());
  std::sort(frames.begin(), frames.end());
  for (const auto& f : frames) {
    auto img = airlock::image::read_png_file(f.string());
    ASSERT_TRUE(img.ok());
    ASSERT_LE(img->width, kSide);
    std::vector<char> canvas(kSide * kSide, static_cast<char>(255));
    for (int y = 0; y < img->height; ++y) {
      for (int x = 0; x < img->width; ++x)
        canvas[static_cast<std::size_t>(y * kSide + x)] = static_cast<char>(img->at(x, y));
    }
    stream.write(canvas.data(), static_cast<std::streamsize>(canvas.size()));
    const std::vector<char> blank(kSide * kSide, static_cast<char>(128));
    stream.write(blank.data(), static_cast<std::streamsize>(blank.size()));
  }
  stream.close();
  const CliRun dec = run("decode --raw 400x400 -o " + path("out.bin") + " < " + path("stream.raw"));
  ASSERT_EQ(dec.exit_code, 0) << dec.output;
  EXPECT_EQ(read("out.bin"), data);
  // The summary counts the blank frames between codes.
  EXPECT_THAT(dec.output, HasSubstr(" without a readable code"));
  EXPECT_THAT(dec.output, Not(HasSubstr("(0 without a readable code")));

  const CliRun empty = run("decode -q --raw 16x16 -o " + path("none.bin") + " < /dev/null");
  EXPECT_EQ(empty.exit_code, 1) << empty.output;
  EXPECT_THAT(empty.output, HasSubstr("transfer incomplete after 0 frames"));
}

TEST_F(QrCli, EnvelopeFilesKeepTheirKindAndBytes) {
  const airlock::Bytes cbor{0xa1, 0x00, 0x01};
  const airlock::Bytes envelope =
      airlock::files::wrap_envelope(airlock::files::EnvelopeKind::kResponse, cbor);
  std::ofstream(path("r.alres"), std::ios::binary)
      .write(reinterpret_cast<const char*>(envelope.data()),
             static_cast<std::streamsize>(envelope.size()));
  ASSERT_EQ(run("encode --qr-html " + path("page.html") + " --qr-png " + path("f") + " " +
                path("r.alres"))
                .exit_code,
            0);
  EXPECT_THAT(read("page.html"), HasSubstr("data:image/png;base64,"));
  ASSERT_EQ(run("decode -q -o " + path("back.alres") + " " + path("f")).exit_code, 0);
  EXPECT_EQ(read("back.alres"), read("r.alres"));
}

TEST_F(QrCli, ErrorsAreNamedWithExitCodes) {
  write_random("in.bin", 100, 3);
  EXPECT_EQ(run("encode " + path("in.bin")).exit_code, 2) << "no output chosen";
  EXPECT_EQ(run("encode --qr-png x --level Z " + path("in.bin")).exit_code, 2);
  EXPECT_EQ(run("encode --qr-png x --framing morse " + path("in.bin")).exit_code, 2);
  EXPECT_EQ(run("encode --qr-png x " + path("missing.bin")).exit_code, 3);
  std::ofstream(path("empty.bin")).close();
  const CliRun empty = run("encode --qr-png " + path("e") + " " + path("empty.bin"));
  EXPECT_EQ(empty.exit_code, 2) << empty.output;
  EXPECT_EQ(run("decode " + path("frames")).exit_code, 2) << "--out is required";
  EXPECT_EQ(run("decode -o x --raw 10x10").exit_code, 2);
  const CliRun camera = run("decode -o x --camera /dev/airlock-none");
  EXPECT_EQ(camera.exit_code, 3) << camera.output;
  // Frames of something else: the decoder names what it refused.
  ASSERT_EQ(run("encode --qr-png " + path("a") + " " + path("in.bin")).exit_code, 0);
  std::ofstream(path("a/garbage.png")) << "not a png";
  const CliRun partial = run("decode -q -o " + path("o.bin") + " " + path("a/garbage.png"));
  EXPECT_EQ(partial.exit_code, 1) << partial.output;
  EXPECT_EQ(run("--help").exit_code, 0);
  EXPECT_EQ(run("encode --help").exit_code, 0);
  EXPECT_EQ(run("decode --help").exit_code, 0);
}

}  // namespace
