#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <airlock/common/fd.h>
#include <airlock/formats/dense.h>
#include <airlock/formats/files.h>
#include <airlock/formats/image.h>
#include <airlock/formats/keystone.h>
#include <airlock/formats/qr_io.h>
#include <airlock/formats/ur.h>

namespace airlock::qr_io {

Result<std::unique_ptr<frames::FrameSource>> open_source(const SourceSpec& spec) {
  const int given = (spec.files.empty() ? 0 : 1) + (spec.raw_size ? 1 : 0) + (spec.camera ? 1 : 0);
  if (given != 1) {
    return Error(ErrorCode::kUsage,
                 "give exactly one frame source: image files, a raw stream or a camera");
  }
  if (!spec.files.empty()) return frames::open_png_files(spec.files);
  if (spec.raw_size) {
    AIRLOCK_TRY(size, frames::parse_size(*spec.raw_size));
    return frames::open_raw_stream(STDIN_FILENO, size.first, size.second);
  }
  AIRLOCK_TRY(size, frames::parse_size(spec.camera_size));
  return frames::open_camera(*spec.camera, size.first, size.second);
}

Result<Received> receive(frames::FrameSource& source, const ReceiveOptions& options) {
  const auto give_up = std::chrono::steady_clock::now() + options.timeout;
  const auto report = [&](const ReceiveProgress& p) {
    if (options.on_progress) options.on_progress(p);
  };
  transfer::Receiver receiver;
  ReceiveProgress progress;
  std::optional<Error> last_refusal;
  while (!receiver.complete() && std::chrono::steady_clock::now() < give_up) {
    auto frame = source.next(give_up);
    if (!frame.ok() && source.errors_end_stream()) return frame.error();  // asking again fails
    if (!frame.ok()) {
      ++progress.unreadable;
      progress.skipped = &frame.error();
      report(progress);
      progress.skipped = nullptr;
      continue;
    }
    if (!frame->has_value()) break;
    ++progress.frames;
    const auto codes = qr::read(**frame);
    if (codes.empty()) ++progress.unreadable;
    for (const auto& c : codes) {
      if (auto s = receiver.receive(c); !s.ok()) {
        ++progress.refused;
        last_refusal = s.error();
      }
    }
    progress.fragments_known = receiver.fragments_known();
    progress.fragments_total = receiver.fragments_total();
    progress.other_transfers = receiver.other_transfers();
    progress.complete = receiver.complete();
    report(progress);
  }
  if (!receiver.complete()) {
    progress.gave_up = true;
    report(progress);
    std::string why = "transfer incomplete after " + std::to_string(progress.frames) + " frames (" +
                      std::to_string(receiver.fragments_known()) + " of " +
                      std::to_string(receiver.fragments_total()) + " fragments)";
    if (last_refusal) why += "; last refused code: " + last_refusal->to_string();
    return Error(dense::errors::kFrameInvalid, why);
  }
  return Received{receiver.result(), progress};
}

std::function<void(const ReceiveProgress&)> terminal_progress(std::string_view program) {
  const bool live = ::isatty(STDERR_FILENO) == 1;  // a redrawn line only on a terminal
  return [live, program = std::string(program), drawn = false](const ReceiveProgress& p) mutable {
    if (p.gave_up) {
      if (drawn) std::cerr << "\n";
      return;
    }
    if (p.skipped != nullptr) {
      std::cerr << (drawn ? "\n" : "") << program << ": skipped a frame: " << p.skipped->to_string()
                << "\n";
      drawn = false;
      return;
    }
    if (live) {
      std::cerr << "\r\x1b[2K" << p.fragments_known << "/"
                << (p.fragments_total == 0 ? std::string("?") : std::to_string(p.fragments_total))
                << " fragments \u00b7 " << p.frames << " frames \u00b7 " << p.unreadable
                << " unreadable";
      if (p.fragments_total > p.fragments_known && !p.complete)
        std::cerr << " \u00b7 ~" << (p.fragments_total - p.fragments_known) * 11 / 10 + 1
                  << " more frames";
      if (p.other_transfers > 0)
        std::cerr << " \u00b7 " << p.other_transfers << " other transfer(s) ignored";
      std::cerr << (p.complete ? "\n" : "") << std::flush;
      drawn = !p.complete;
    }
    if (p.complete && p.other_transfers > 0) {
      std::cerr << program << ": completed the transfer shown; ignored codes of "
                << p.other_transfers << " other transfer(s)\n";
    }
  };
}

Bytes file_bytes(const transfer::Content& content) {
  switch (content.type) {
    case dense::ContentType::kSignRequest:
      return files::wrap_envelope(files::EnvelopeKind::kRequest, content.bytes);
    case dense::ContentType::kSignResponse:
      return files::wrap_envelope(files::EnvelopeKind::kResponse, content.bytes);
    case dense::ContentType::kKeystoneSignRequest:
    case dense::ContentType::kKeystoneSignature: {
      // Keystone's own file form: the single-part UR text, as its tools print and read it.
      const std::string text =
          ur::encode_single({content.type == dense::ContentType::kKeystoneSignRequest
                                 ? std::string(keystone::kSignRequestType)
                                 : std::string(keystone::kSignatureType),
                             content.bytes}) +
          "\n";
      return Bytes(text.begin(), text.end());
    }
    case dense::ContentType::kFile:
      break;
  }
  return content.bytes;
}

namespace {

// The resource the words make when fed in this order, or nothing when a word before completion
// is not a valid part of it or they never complete.
std::optional<ur::Resource> decode_words(const std::vector<std::string_view>& words) {
  ur::Decoder decoder;
  for (const std::string_view word : words) {
    if (!decoder.receive(word).ok()) return std::nullopt;
    if (decoder.complete()) return decoder.result();
  }
  return std::nullopt;
}

// A file of Keystone UR text: every word one UR part (single or multipart, one a line or
// separated by spaces) of one ur:sol-sign-request or ur:sol-signature, together complete, and
// nothing else: read forwards and backwards, the words must make the same resource (so trailing
// text, or the parts of a second request, make it no Keystone file at all). Anything else stays
// a plain file.
std::optional<transfer::Content> keystone_text(ByteView file) {
  if (file.empty() || file.size() > 4 * ur::kMaxMessageBytes) return std::nullopt;
  const std::string_view text(reinterpret_cast<const char*>(file.data()), file.size());
  std::vector<std::string_view> words;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t start = text.find_first_not_of(" \t\r\n", at);
    if (start == std::string_view::npos) break;
    const std::size_t end = std::min(text.find_first_of(" \t\r\n", start), text.size());
    words.push_back(text.substr(start, end - start));
    at = end;
  }
  if (words.empty()) return std::nullopt;
  auto forwards = decode_words(words);
  std::reverse(words.begin(), words.end());
  auto backwards = decode_words(words);
  if (!forwards || !backwards || !(*forwards == *backwards)) return std::nullopt;
  const ur::Resource& r = *forwards;
  if (r.type == keystone::kSignRequestType)
    return transfer::Content{dense::ContentType::kKeystoneSignRequest, r.cbor};
  if (r.type == keystone::kSignatureType)
    return transfer::Content{dense::ContentType::kKeystoneSignature, r.cbor};
  return std::nullopt;
}

}  // namespace

transfer::Content content_of_file(ByteView file) {
  if (auto envelope = files::unwrap_envelope(file); envelope.ok()) {
    return {envelope->first == files::EnvelopeKind::kRequest ? dense::ContentType::kSignRequest
                                                             : dense::ContentType::kSignResponse,
            envelope->second};
  }
  if (auto keystone = keystone_text(file)) return std::move(*keystone);
  return {dense::ContentType::kFile, Bytes(file.begin(), file.end())};
}

Result<std::vector<Bytes>> render_pngs(const transfer::Sender& sender, std::uint32_t count,
                                       int scale) {
  std::vector<Bytes> pngs;
  for (std::uint32_t n = 1; n <= count; ++n) {
    AIRLOCK_TRY(symbol, sender.symbol(n));
    AIRLOCK_TRY(png, image::encode_png(qr::render(symbol, scale)));
    pngs.push_back(std::move(png));
  }
  return pngs;
}

namespace {

namespace fs = std::filesystem;

std::string frame_name(std::size_t index) {
  std::ostringstream name;
  name << "frame-" << std::setw(4) << std::setfill('0') << index + 1 << ".png";
  return name.str();
}

// A name write_png_folder gives a frame: frame-, four or more digits, .png.
bool is_frame_name(std::string_view name) {
  constexpr std::string_view kPrefix = "frame-";
  constexpr std::string_view kSuffix = ".png";
  if (name.size() < kPrefix.size() + 4 + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix))
    return false;
  const auto digits = name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "req/" names the folder "req" (so what goes beside it goes beside, not inside).
Result<fs::path> frame_folder(const std::string& folder) {
  fs::path path(folder);
  if (!path.has_filename()) path = path.parent_path();
  if (!path.has_filename() || path.filename() == "." || path.filename() == "..")
    return Error(ErrorCode::kUsage, "'" + folder + "': name a folder for the frames, not a root");
  return path;
}

// The POSIX ACLs of one folder given to another (the access list, and the default list its new
// files inherit), so a folder replaced by frames keeps who may read them. Where a file system
// has none, or refuses them, the owner and mode copied before still hold.
void copy_acls(const std::string& from, const std::string& to) {
  for (const char* name : {"system.posix_acl_access", "system.posix_acl_default"}) {
    const ssize_t size = ::getxattr(from.c_str(), name, nullptr, 0);
    if (size <= 0) continue;
    std::vector<char> value(static_cast<std::size_t>(size));
    const ssize_t got = ::getxattr(from.c_str(), name, value.data(), value.size());
    if (got > 0) (void)::setxattr(to.c_str(), name, value.data(), static_cast<std::size_t>(got), 0);
  }
}

// Deletes the frames in `folder`, then the folder if that left it empty. Nothing else is ever
// deleted: what is not a frame stays.
void remove_frames(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(folder, ec))) return;  // never a file or a link
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (is_frame_name(entry.path().filename().string())) fs::remove(entry.path(), ec);
  }
  fs::remove(folder, ec);
}

}  // namespace

Status check_png_folder(const std::string& folder) {
  AIRLOCK_TRY(path, frame_folder(folder));
  std::error_code ec;
  const auto status = fs::symlink_status(path, ec);
  if (!fs::exists(status)) return {};
  if (!fs::is_directory(status))
    return Error(ErrorCode::kUsage, "'" + folder +
                                        "' exists and is not a folder (a symbolic link "
                                        "is not followed: give the folder it names)");
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    const std::string name = entry.path().filename().string();
    if (!is_frame_name(name) || entry.is_symlink(ec) || !entry.is_regular_file(ec)) {
      return Error(ErrorCode::kUsage,
                   "'" + folder + "' holds '" + name +
                       "', which is not a QR frame: give a new folder, or one holding only "
                       "frame-NNNN.png files (those are replaced)");
    }
  }
  if (ec) return Error(ErrorCode::kIo, "cannot read folder '" + folder + "': " + ec.message());
  return {};
}

Status write_png_folder(const std::vector<Bytes>& pngs, const std::string& folder) {
  AIRLOCK_CHECK(check_png_folder(folder));
  AIRLOCK_TRY(path, frame_folder(folder));
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec)
    return Error(ErrorCode::kIo, "cannot create folder '" + parent.string() + "': " + ec.message());
  // Written whole beside the folder, then put in its place in one step, so a reader never sees
  // half the frames or frames of two transfers mixed. (A short name: the folder's own may be
  // near the file system's limit.)
  std::string staging = (parent / ".airlock-frames-XXXXXX").string();
  if (::mkdtemp(staging.data()) == nullptr) {
    return Error(ErrorCode::kIo,
                 "cannot create a folder beside '" + folder + "': " + std::strerror(errno));
  }
  const auto fail = [&](Error error) {
    remove_frames(staging);
    return error;
  };
  // The folder replaced keeps its owner, mode and ACLs, so whoever could read the frames still
  // can.
  struct stat earlier {};
  if (::lstat(path.c_str(), &earlier) == 0 && S_ISDIR(earlier.st_mode)) {
    (void)::chown(staging.c_str(), earlier.st_uid, earlier.st_gid);
    (void)::chmod(staging.c_str(), earlier.st_mode & 07777);
    copy_acls(path.string(), staging);
  }
  for (std::size_t i = 0; i < pngs.size(); ++i) {
    if (auto s = files::write_atomically((fs::path(staging) / frame_name(i)).string(), pngs[i]);
        !s.ok())
      return fail(s.error());
  }
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) {
    // There was no folder: the frames are in place.
  } else if (errno == EEXIST &&
             ::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    // Swapped: what was at the folder's name is now at `staging`. It was checked to hold only
    // frames, but something may have come there since: then it is swapped back, untouched.
    if (!check_png_folder(staging).ok()) {
      ::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE);
      return fail(Error(ErrorCode::kUsage, "'" + folder +
                                               "' changed while the frames were written (it now "
                                               "holds more than frames): nothing replaced"));
    }
    remove_frames(staging);  // the earlier frames
  } else {
    // A mount point (EBUSY), or a file system that cannot swap: nothing is deleted.
    return fail(Error(ErrorCode::kIo,
                      "cannot put the frames in place at '" + folder +
                          "': " + std::strerror(errno) +
                          (errno == EBUSY ? " (a mount point: give a folder inside it)" : "")));
  }
  const UniqueFd parent_fd(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (parent_fd.valid()) ::fsync(parent_fd.get());
  return {};
}

std::optional<std::string> terminal_fit_problem(std::size_t art_columns, std::size_t art_rows,
                                                std::size_t columns, std::size_t rows) {
  if (art_columns <= columns && art_rows <= rows) return std::nullopt;
  return "the QR frames need a terminal of " + std::to_string(art_columns) + " columns x " +
         std::to_string(art_rows) + " rows; this one is " + std::to_string(columns) + " x " +
         std::to_string(rows) +
         ", so each frame scrolls and no camera sees it whole: enlarge the window (or make its "
         "font smaller), or show the frames another way (PNG files, an HTML page) or at a lower "
         "density";
}

Status animate_terminal(const transfer::Sender& sender, const TerminalOptions& options) {
  const auto stop = std::chrono::steady_clock::now() + std::chrono::seconds(options.seconds);
  const auto period = std::chrono::milliseconds(1000 / std::max(1, options.fps));
  std::size_t lines = 0;
  for (std::uint32_t n = 1; std::chrono::steady_clock::now() < stop; ++n) {
    if (options.stop != nullptr && options.stop->load()) break;
    AIRLOCK_TRY(symbol, sender.symbol(n));
    const std::string art = qr::render_terminal(symbol, options.light);
    winsize size{};
    if (n == 1 && ::isatty(STDOUT_FILENO) == 1 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 &&
        size.ws_col > 0 && size.ws_row > 0) {
      // The art's width in cells (each a character of up to three bytes) and its rows, with
      // the status line under it.
      const std::size_t rows = static_cast<std::size_t>(std::count(art.begin(), art.end(), '\n'));
      const std::size_t cells = static_cast<std::size_t>(
          std::count_if(art.begin(), art.begin() + static_cast<std::ptrdiff_t>(art.find('\n')),
                        [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
      if (const auto problem = terminal_fit_problem(cells, rows + 1, size.ws_col, size.ws_row))
        std::cerr << "airlock: " << *problem << "\n" << std::flush;
    }
    if (lines > 0) std::cout << "\x1b[" << lines << "A";  // back to the top of the last frame
    std::cout << art;
    std::ostringstream status;
    status << "frame " << n << " \u00b7 " << sender.fragment_count() << " fragments";
    if (options.deadline_unix) {
      const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
      const __int128 left = static_cast<__int128>(*options.deadline_unix) - now;  // any u64
      status << " \u00b7 "
             << (left >= 0 ? std::to_string(static_cast<unsigned long long>(left)) + " s left"
                           : std::string("deadline passed"));
    }
    std::cout << "\x1b[2K" << status.str() << "\n" << std::flush;
    lines = static_cast<std::size_t>(std::count(art.begin(), art.end(), '\n')) + 1;
    std::this_thread::sleep_for(period);
  }
  return {};
}

std::uint32_t default_frame_count(const transfer::Sender& sender) {
  return sender.fragment_count() == 1 ? 1 : 2 * sender.fragment_count();
}

}  // namespace airlock::qr_io
