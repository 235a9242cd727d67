// The QR receive loop: progress reaches the caller's callback, and the library prints nothing.
#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <tuple>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include <airlock/formats/frames.h>
#include <airlock/formats/qr.h>
#include <airlock/formats/qr_io.h>
#include <airlock/formats/transfer.h>

#include "support/helpers.h"

using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace airlock::qr_io {
namespace {

// Frames held in memory; an Error entry is a frame the source could not give.
class ListSource : public frames::FrameSource {
 public:
  Result<std::optional<image::GrayImage>> next(std::chrono::steady_clock::time_point) override {
    if (frames_.empty()) return std::optional<image::GrayImage>();
    auto front = std::move(frames_.front());
    frames_.pop_front();
    if (!front.ok()) return front.error();
    return std::optional<image::GrayImage>(std::move(front).value());
  }
  std::string describe() const override { return "frames in memory"; }
  void add(Result<image::GrayImage> frame) { frames_.push_back(std::move(frame)); }

 private:
  std::deque<Result<image::GrayImage>> frames_;
};

transfer::Sender sender_of(const Bytes& payload) {
  transfer::Options options;
  options.max_version = 5;
  options.deflate = dense::Deflate::kNever;
  auto sender = transfer::Sender::create({dense::ContentType::kFile, payload}, options);
  EXPECT_TRUE(sender.ok()) << sender.error().to_string();
  return std::move(sender).value();
}

image::GrayImage frame(const transfer::Sender& sender, std::uint32_t n) {
  return qr::render(sender.symbol(n).value(), 3);
}

TEST(QrReceive, ReportsEveryFrameToTheCallerAndPrintsNothing) {
  const Bytes payload = test::random_bytes(400, 11);
  const auto sender = sender_of(payload);
  ASSERT_GT(sender.fragment_count(), 2U);
  ListSource source;
  source.add(image::GrayImage(64, 64));  // a frame with no code
  source.add(Error(ErrorCode::kIo, "frame-0002.png: not a PNG"));
  for (std::uint32_t n = 1; n <= 3 * sender.fragment_count(); ++n) source.add(frame(sender, n));

  std::vector<ReceiveProgress> seen;
  std::vector<std::string> skipped;
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  auto received = receive(
      source, {.timeout = std::chrono::seconds(60), .on_progress = [&](const ReceiveProgress& p) {
                 seen.push_back(p);
                 if (p.skipped) skipped.push_back(p.skipped->message());
               }});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << "the library printed";

  ASSERT_TRUE(received.ok()) << received.error().to_string();
  EXPECT_EQ(received->content.bytes, payload);
  EXPECT_THAT(skipped, testing::ElementsAre("frame-0002.png: not a PNG"));
  ASSERT_GE(seen.size(), 3U);
  EXPECT_EQ(seen[0].frames, 1U);
  EXPECT_EQ(seen[0].unreadable, 1U);
  EXPECT_EQ(seen[0].fragments_total, 0U) << "unknown until a code is read";
  for (std::size_t i = 1; i < seen.size(); ++i) {
    EXPECT_GE(seen[i].frames, seen[i - 1].frames);
    EXPECT_GE(seen[i].fragments_known, seen[i - 1].fragments_known);
  }
  const ReceiveProgress& last = seen.back();
  EXPECT_TRUE(last.complete);
  EXPECT_FALSE(last.gave_up);
  EXPECT_EQ(last.fragments_known, last.fragments_total);
  EXPECT_EQ(last.fragments_total, sender.fragment_count());
  EXPECT_EQ(received->progress.frames, last.frames);
  EXPECT_EQ(received->progress.unreadable, 2U);
  EXPECT_EQ(
      std::count_if(seen.begin(), seen.end(), [](const ReceiveProgress& p) { return p.complete; }),
      1);
}

TEST(QrReceive, AnIncompleteTransferEndsWithAGaveUpReportAndSaysHowFarItGot) {
  const auto sender = sender_of(test::random_bytes(400, 12));
  ListSource source;
  source.add(frame(sender, 1));
  std::vector<ReceiveProgress> seen;
  auto received =
      receive(source, {.on_progress = [&](const ReceiveProgress& p) { seen.push_back(p); }});
  ASSERT_FALSE(received.ok());
  EXPECT_THAT(received.error().message(),
              HasSubstr("transfer incomplete after 1 frames (1 of " +
                        std::to_string(sender.fragment_count()) + " fragments)"));
  ASSERT_EQ(seen.size(), 2U);
  EXPECT_FALSE(seen[0].gave_up);
  EXPECT_TRUE(seen[1].gave_up);
  EXPECT_FALSE(seen[1].complete);
}

TEST(QrReceive, WithoutACallbackItIsSilent) {
  const Bytes payload = test::random_bytes(100, 13);
  const auto sender = sender_of(payload);
  ListSource source;
  for (std::uint32_t n = 1; n <= 2 * sender.fragment_count(); ++n) source.add(frame(sender, n));
  source.add(Error(ErrorCode::kIo, "unreadable"));
  testing::internal::CaptureStderr();
  auto received = receive(source, {});
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  ASSERT_TRUE(received.ok()) << received.error().to_string();
  EXPECT_EQ(received->content.bytes, payload);
}

// The names in a folder, sorted.
std::vector<std::string> names_in(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(folder))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(PngFolder, FramesOfAnEarlierTransferAreReplacedWholeAndNothingIsLeftBeside) {
  airlock::test::ScratchDir dir("airlock-png-folder");
  const std::string folder = dir.file("frames");
  const std::vector<Bytes> five(5, Bytes{1, 2, 3});
  ASSERT_TRUE(write_png_folder(five, folder).ok());
  EXPECT_EQ(names_in(folder).size(), 5U);
  // A shorter transfer later: its frames only, none of the earlier one's left to mix in. "/"
  // at the end names the same folder.
  ASSERT_TRUE(write_png_folder({Bytes{4}, Bytes{5}}, folder + "/").ok());
  EXPECT_THAT(names_in(folder), ElementsAre("frame-0001.png", "frame-0002.png"));
  EXPECT_THAT(names_in(dir.path()), ElementsAre("frames")) << "no staging folder left";
}

TEST(PngFolder, AFolderHoldingAnythingButFramesIsRefusedAndKeptAsItWas) {
  airlock::test::ScratchDir dir("airlock-png-folder");
  const std::string folder = dir.file("photos");
  std::filesystem::create_directories(folder);
  std::ofstream(folder + "/holiday.jpg") << "the operator's";
  std::ofstream(folder + "/frame-0001.png") << "looks like a frame";
  const auto s = write_png_folder({Bytes{1}}, folder);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), ErrorCode::kUsage);
  EXPECT_THAT(s.error().to_string(), HasSubstr("holds 'holiday.jpg', which is not a QR frame"));
  EXPECT_THAT(names_in(folder), ElementsAre("frame-0001.png", "holiday.jpg"));
  EXPECT_THAT(names_in(dir.path()), ElementsAre("photos")) << "no staging folder left";
  // A file where the folder should be, and a root, are refused too.
  std::ofstream(dir.file("plain")) << "a file";
  EXPECT_THAT(write_png_folder({Bytes{1}}, dir.file("plain")).error().to_string(),
              HasSubstr("exists and is not a folder"));
  EXPECT_FALSE(check_png_folder("/").ok());
}

TEST(PngFolder, AReplacedFolderKeepsItsModeAndALongNameWorks) {
  airlock::test::ScratchDir dir("airlock-png-folder");
  const std::string folder = dir.file("shared");
  std::filesystem::create_directories(folder);
  ::chmod(folder.c_str(), 0755);
  ASSERT_TRUE(write_png_folder({Bytes{1}}, folder).ok());
  struct stat st {};
  ASSERT_EQ(::stat(folder.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755U) << "whoever could read the frames still can";
  // And its POSIX ACLs: here a named user who may read the frames (the kernel's binary form:
  // version 2, then tag, permissions and id per entry).
  std::string acl = {2, 0, 0, 0};
  for (const auto& [tag, perm, id] :
       std::vector<std::tuple<std::uint16_t, std::uint16_t, std::uint32_t>>{
           {0x01, 7, ~0U}, {0x02, 5, 1234}, {0x04, 5, ~0U}, {0x10, 5, ~0U}, {0x20, 0, ~0U}}) {
    for (int i = 0; i < 2; ++i) acl += static_cast<char>((tag >> (8 * i)) & 0xff);
    for (int i = 0; i < 2; ++i) acl += static_cast<char>((perm >> (8 * i)) & 0xff);
    for (int i = 0; i < 4; ++i) acl += static_cast<char>((id >> (8 * i)) & 0xff);
  }
  if (::setxattr(folder.c_str(), "system.posix_acl_access", acl.data(), acl.size(), 0) != 0) {
    GTEST_SKIP() << "no POSIX ACLs on this file system: " << std::strerror(errno);
  }
  ASSERT_TRUE(write_png_folder({Bytes{2}}, folder).ok());
  std::string kept(acl.size() + 64, '\0');
  const ssize_t n = ::getxattr(folder.c_str(), "system.posix_acl_access", kept.data(), kept.size());
  ASSERT_GT(n, 0) << "the replaced folder lost its ACL";
  kept.resize(static_cast<std::size_t>(n));
  EXPECT_EQ(kept, acl);
  const std::string long_name = dir.file(std::string(245, 'f'));
  ASSERT_TRUE(write_png_folder({Bytes{1}}, long_name).ok());
  EXPECT_THAT(names_in(long_name), ElementsAre("frame-0001.png"));
}

// Frames that do not fit the terminal are said to before they scroll (operator review F11:
// --qr-terminal on 80x24 scrolled every frame and said nothing).
TEST(QrTerminal, FramesThatDoNotFitTheTerminalAreSaidToWithTheSizesAndTheWayOut) {
  EXPECT_EQ(terminal_fit_problem(80, 24, 80, 24), std::nullopt) << "exactly the size fits";
  EXPECT_EQ(terminal_fit_problem(41, 22, 200, 60), std::nullopt);
  const auto wide = terminal_fit_problem(81, 24, 80, 24);
  ASSERT_TRUE(wide.has_value());
  EXPECT_THAT(*wide, HasSubstr("need a terminal of 81 columns x 24 rows; this one is 80 x 24"));
  EXPECT_THAT(*wide, HasSubstr("enlarge the window"));
  EXPECT_TRUE(terminal_fit_problem(80, 25, 80, 24).has_value()) << "one row too many";
}

}  // namespace
}  // namespace airlock::qr_io
