// QR in and out for the command-line programs: opening a frame source from what the user
// named, reading frames until a transfer completes (progress through a callback), and showing a
// transfer as PNG frames, an HTML page or an animation in the terminal. airlock-qr and
// airlock-offline sign share these, so both read and show codes the same way.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <airlock/common/error.h>
#include <airlock/formats/files.h>
#include <airlock/formats/frames.h>
#include <airlock/formats/transfer.h>

namespace airlock::qr_io {

// Exactly one of: PNG files or folders, a raw stream on standard input, a camera.
struct SourceSpec {
  std::vector<std::string> files;
  std::optional<std::string> raw_size;  // "WIDTHxHEIGHT"
  std::optional<std::string> camera;    // device path
  std::string camera_size = "1280x720";
};

[[nodiscard]] Result<std::unique_ptr<frames::FrameSource>> open_source(const SourceSpec& spec);

// Where a receive stands; passed to the progress callback after every frame and returned with
// the content.
struct ReceiveProgress {
  std::size_t frames = 0;           // frames the source gave
  std::size_t unreadable = 0;       // frames without a readable code, or that could not be read
  std::size_t refused = 0;          // codes that were neither framing, or inconsistent
  std::size_t fragments_known = 0;  // of the transfer being followed
  std::size_t fragments_total = 0;  // 0 until its first code is read
  std::size_t other_transfers = 0;  // codes of other transfers, ignored
  const Error* skipped = nullptr;   // in a callback: the source could not give this frame
  bool complete = false;
  bool gave_up = false;  // the last report of a receive that ends incomplete
};

// How to receive, in the manner of ZXing-C++'s ReaderOptions: a plain struct the caller fills,
// so a call reads as what it asks for. Progress goes to the callback the caller owns (none:
// silent); the library itself never prints.
struct ReceiveOptions {
  std::chrono::milliseconds timeout = std::chrono::seconds(120);
  std::function<void(const ReceiveProgress&)> on_progress = nullptr;
};

struct Received {
  transfer::Content content;
  ReceiveProgress progress;
};

// Reads frames until the transfer completes; fails when the source ends or the timeout passes
// first, saying how far it got.
[[nodiscard]] Result<Received> receive(frames::FrameSource& source, const ReceiveOptions& options);

// The command-line programs' progress: a redrawn status line on a terminal (nothing when
// standard error is not one), a note for each frame the source could not give, and the codes of
// other transfers that were ignored. `program` prefixes the notes.
[[nodiscard]] std::function<void(const ReceiveProgress&)> terminal_progress(
    std::string_view program);

// Content as the file airlock writes for it (envelopes wrapped with their magic, Keystone's
// types as single-part UR text), and back (a file of Keystone UR parts, single or multipart,
// is read as its type; anything unrecognised is a plain file).
[[nodiscard]] Bytes file_bytes(const transfer::Content& content);
[[nodiscard]] transfer::Content content_of_file(ByteView file);

// Frames 1..count rendered as PNG images.
[[nodiscard]] Result<std::vector<Bytes>> render_pngs(const transfer::Sender& sender,
                                                     std::uint32_t count, int scale);
// frame-0001.png ... in `folder`, written beside it and put in its place in one step; the
// frames of an earlier transfer there are replaced. A folder holding anything but such frames
// is refused (check_png_folder), never emptied: it is the operator's.
[[nodiscard]] Status write_png_folder(const std::vector<Bytes>& pngs, const std::string& folder);
// Whether write_png_folder may write to `folder`: it does not exist, or holds only frames.
[[nodiscard]] Status check_png_folder(const std::string& folder);

struct TerminalOptions {
  int fps = 8;
  int seconds = 120;
  std::optional<std::uint64_t> deadline_unix;  // counted down in the status line
  bool light = false;                          // light terminal background
  const std::atomic<bool>* stop = nullptr;     // ends the animation early when set
};

// Whether frames of `art_columns` x `art_rows` (the status line included) fit a terminal of
// `columns` x `rows`: nullopt when they do, else what to do about it, in words. A frame that
// does not fit scrolls, and a camera then never sees a whole code.
[[nodiscard]] std::optional<std::string> terminal_fit_problem(std::size_t art_columns,
                                                              std::size_t art_rows,
                                                              std::size_t columns,
                                                              std::size_t rows);

// Animates the frames on standard output until `seconds` pass or `stop` is set. When standard
// output is a terminal too small for the frames, says so on standard error first.
[[nodiscard]] Status animate_terminal(const transfer::Sender& sender,
                                      const TerminalOptions& options);

// The frame count to show by default: one for a single frame, else twice the fragments
// (enough for heavy loss).
[[nodiscard]] std::uint32_t default_frame_count(const transfer::Sender& sender);

}  // namespace airlock::qr_io
