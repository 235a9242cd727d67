// Whole transfers through rendered QR images: both framings, loss, a reader joining late, and
// the frame sources.
#include <chrono>
#include <random>

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <airlock/formats/dense.h>
#include <airlock/formats/frames.h>
#include <airlock/formats/transfer.h>
#include <airlock/formats/ur.h>

#include "support/helpers.h"

using ::testing::HasSubstr;

namespace airlock::transfer {
namespace {

using test::random_bytes;

// Renders frames start.. with every 5th lost and feeds what ZXing reads until complete.
std::size_t frames_to_complete(const Sender& sender, Receiver& receiver, std::uint32_t start) {
  std::size_t shown = 0;
  for (std::uint32_t n = start; !receiver.complete() && n < start + 500; ++n) {
    ++shown;
    if (n % 5 == 0) continue;
    auto symbol = sender.symbol(n);
    EXPECT_TRUE(symbol.ok());
    for (const auto& code : qr::read(qr::render(*symbol, 2)))
      EXPECT_TRUE(receiver.receive(code).ok());
  }
  return shown;
}

class BothFramings : public ::testing::TestWithParam<Framing> {};

TEST_P(BothFramings, EveryContentTypeCrossesThroughImages) {
  for (auto type : {dense::ContentType::kFile, dense::ContentType::kSignRequest,
                    dense::ContentType::kSignResponse}) {
    const Content content{type, random_bytes(3000 + static_cast<std::size_t>(type) * 100,
                                             static_cast<std::uint32_t>(type))};
    Options options;
    options.framing = GetParam();
    options.max_version = 12;
    auto sender = Sender::create(content, options);
    ASSERT_TRUE(sender.ok()) << sender.error().to_string();
    Receiver receiver;
    frames_to_complete(*sender, receiver, 7);
    ASSERT_TRUE(receiver.complete());
    EXPECT_EQ(receiver.result(), content);
    EXPECT_EQ(receiver.framing(), GetParam());
    // Progress still tells what completed (a finished transfer read "0 of 0" before).
    EXPECT_EQ(receiver.fragments_total(), sender->fragment_count());
    EXPECT_EQ(receiver.fragments_known(), receiver.fragments_total());
  }
}

INSTANTIATE_TEST_SUITE_P(Transfer, BothFramings, ::testing::Values(Framing::kDense, Framing::kUr),
                         [](const auto& p) { return p.param == Framing::kDense ? "dense" : "ur"; });

TEST(Transfer, DenseNeedsFewerFramesThanUrAtTheSameDensity) {
  const Content content{dense::ContentType::kFile, random_bytes(12000, 3)};
  Options dense_options, ur_options;
  ur_options.framing = Framing::kUr;
  auto dense_sender = Sender::create(content, dense_options);
  auto ur_sender = Sender::create(content, ur_options);
  ASSERT_TRUE(dense_sender.ok() && ur_sender.ok());
  EXPECT_LT(dense_sender->fragment_count() * 4, ur_sender->fragment_count() * 3)
      << dense_sender->fragment_count() << " dense vs " << ur_sender->fragment_count() << " UR";
}

ByteView bytes_of(const std::variant<Bytes, std::string>& code) {
  if (const auto* b = std::get_if<Bytes>(&code)) return *b;
  const auto& t = std::get<std::string>(code);
  return text_bytes(t);
}

TEST(Transfer, ReceiverRefusesForeignCodesAndFollowsEachFraming) {
  const Content content{dense::ContentType::kFile, random_bytes(2000, 4)};
  auto dense_sender = Sender::create(content, {});
  Options ur_options;
  ur_options.framing = Framing::kUr;
  auto ur_sender = Sender::create(content, ur_options);
  Receiver receiver;
  const std::string hello = "https://example.invalid";
  EXPECT_EQ(receiver.receive(text_bytes(hello)).error().code(), dense::errors::kFrameInvalid);
  ASSERT_TRUE(receiver.receive(bytes_of(dense_sender->code(1))).ok());
  // A code of the other framing is another transfer: followed beside the first, which it
  // completes here.
  for (std::uint32_t n = 1; !receiver.complete() && n < 200; ++n) {
    const auto code = ur_sender->code(n);
    ASSERT_TRUE(receiver.receive(bytes_of(code)).ok());
  }
  ASSERT_TRUE(receiver.complete());
  EXPECT_EQ(receiver.result().bytes, content.bytes);
  EXPECT_EQ(receiver.framing(), Framing::kUr);
  EXPECT_EQ(receiver.other_transfers(), 1U);
}

// Issue 14: one stale frame of an earlier transfer (a screen still showing the last request)
// made a complete later transfer fail until the timeout. The reader now follows both and
// completes the one being shown, saying it ignored the other.
TEST(Transfer, AStaleFrameOfAnEarlierTransferDoesNotStopTheOneShown) {
  for (const Framing framing : {Framing::kDense, Framing::kUr}) {
    SCOPED_TRACE(framing == Framing::kDense ? "dense" : "ur");
    Options options;
    options.framing = framing;
    auto earlier =
        Sender::create({dense::ContentType::kSignRequest, random_bytes(3000, 30)}, options);
    const Content shown{dense::ContentType::kSignRequest, random_bytes(3000, 31)};
    auto now = Sender::create(shown, options);
    ASSERT_TRUE(earlier.ok() && now.ok());
    Receiver receiver;
    ASSERT_TRUE(receiver.receive(bytes_of(earlier->code(2))).ok());
    for (std::uint32_t n = 1; !receiver.complete() && n < 400; ++n) {
      ASSERT_TRUE(receiver.receive(bytes_of(now->code(n))).ok());
      if (n == 3) {
        ASSERT_TRUE(receiver.receive(bytes_of(earlier->code(3))).ok());
      }
    }
    ASSERT_TRUE(receiver.complete());
    EXPECT_EQ(receiver.result().bytes, shown.bytes);
    EXPECT_EQ(receiver.other_transfers(), 1U);
  }
}

// A complete UR of another type whose CBOR is not a byte string: the receiver resets and names
// the type it refused. The message was built from the state the reset freed (a heap
// use-after-free AddressSanitizer reported); one QR code shown to the camera reached it.
TEST(Transfer, AForeignUrTypeIsRefusedByNameAndTheReceiverStartsOver) {
  Receiver receiver;
  const std::string frame = "UR:CRYPTO-MULTI-ACCOUNTS/OEADCYBGEEHFKSAONBINLRISWT";
  const auto status = receiver.receive(text_bytes(frame));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code(), ur::errors::kInvalid);
  EXPECT_EQ(status.error().message(), "ur:crypto-multi-accounts does not carry a CBOR byte string");
  EXPECT_FALSE(receiver.complete());
  EXPECT_EQ(receiver.fragments_known(), 0U);
}

TEST(Transfer, SenderRefusesImpossibleSettings) {
  const Content content{dense::ContentType::kFile, random_bytes(100, 5)};
  Options bad_version;
  bad_version.max_version = 41;
  EXPECT_EQ(Sender::create(content, bad_version).error().code(), ErrorCode::kUsage);
  Options huge_fragment;
  huge_fragment.framing = Framing::kUr;
  huge_fragment.ur_fragment_len = 5000;
  auto refused = Sender::create(content, huge_fragment);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message(), HasSubstr("do not fit"));
  EXPECT_EQ(Sender::create({dense::ContentType::kFile, {}}, huge_fragment).error().code(),
            ErrorCode::kUsage);
}

TEST(Frames, RawStreamYieldsWholeFramesUntilItEnds) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  Bytes two_and_a_half(16 * 16 * 5 / 2, 200);
  ASSERT_EQ(write(fds[1], two_and_a_half.data(), two_and_a_half.size()),
            static_cast<ssize_t>(two_and_a_half.size()));
  close(fds[1]);
  auto source = frames::open_raw_stream(fds[0], 16, 16);
  ASSERT_TRUE(source.ok());
  const auto later = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (int i = 0; i < 2; ++i) {
    auto frame = (*source)->next(later);
    ASSERT_TRUE(frame.ok() && frame->has_value());
    EXPECT_EQ((*frame)->width, 16);
    EXPECT_EQ((*frame)->at(3, 3), 200);
  }
  auto end = (*source)->next(later);
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value()) << "a short final frame ends the stream";
  close(fds[0]);
}

// A stream that stalls (a writer that sends nothing, or half a frame, and stays open) never
// holds the reader past its deadline: next() ends with no frame once the deadline passes.
TEST(Frames, AStalledStreamEndsAtTheDeadline) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  Bytes half(16 * 8, 1);
  ASSERT_EQ(write(fds[1], half.data(), half.size()), static_cast<ssize_t>(half.size()));
  auto source = frames::open_raw_stream(fds[0], 16, 16);
  ASSERT_TRUE(source.ok());
  auto frame = (*source)->next(std::chrono::steady_clock::now() + std::chrono::milliseconds(50));
  ASSERT_TRUE(frame.ok());
  EXPECT_FALSE(frame->has_value()) << "nothing whole came before the deadline";
  EXPECT_TRUE((*source)->errors_end_stream());
  close(fds[1]);
  close(fds[0]);
  EXPECT_EQ(frames::open_raw_stream(0, 8, 8).error().code(), ErrorCode::kUsage);
}

TEST(Frames, SizesCamerasAndFoldersFailClearly) {
  EXPECT_TRUE(frames::parse_size("640x480").ok());
  for (const char* bad : {"640", "x480", "640x", "10x10", "640x480x2", "99999x10", "-5x10"}) {
    EXPECT_EQ(frames::parse_size(bad).error().code(), ErrorCode::kUsage) << bad;
  }
  auto camera = frames::open_camera("/dev/airlock-no-such-camera", 640, 480);
  ASSERT_FALSE(camera.ok());
  EXPECT_EQ(camera.error().code(), ErrorCode::kIo);
  EXPECT_THAT(camera.error().message(), HasSubstr("/dev/airlock-no-such-camera"));
  auto not_a_camera = frames::open_camera("/dev/null", 640, 480);
  ASSERT_FALSE(not_a_camera.ok());
  EXPECT_THAT(not_a_camera.error().message(), HasSubstr("not a V4L2 device"));
  EXPECT_EQ(frames::open_png_files({"/nonexistent/frames"}).error().code(), ErrorCode::kIo);
  EXPECT_EQ(frames::open_png_files({}).error().code(), ErrorCode::kUsage);
}

}  // namespace
}  // namespace airlock::transfer
