// The channel to the offline half (channel.h): files, QR frames, a page, the terminal, a camera.
#include "channel.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

#include <unistd.h>

#include <airlock/common/display.h>
#include <airlock/formats/files.h>
#include <airlock/formats/html.h>
#include <airlock/formats/qr_io.h>

#include "shared.h"

using namespace airlock;

namespace online_cli {
namespace {

// The folders the request is written into, which a removable stick may not hold right now.
std::vector<std::filesystem::path> request_folders(const Transport& t) {
  std::vector<std::filesystem::path> out;
  for (const auto* path : {&t.request_file, &t.request_html, &t.request_png}) {
    if (!*path) continue;
    // A QR folder is put in place whole beside its name: its parent must be there. "req/" is
    // the folder req.
    std::filesystem::path p = std::filesystem::path(**path).lexically_normal();
    if (!p.has_filename()) p = p.parent_path();
    p = p.parent_path();
    out.push_back(p.empty() ? std::filesystem::path(".") : p);
  }
  return out;
}

// Waits, while the request's deadline lasts, for every folder the request goes into to be
// there (the stick back in): false when the deadline passed first.
bool wait_for_folders(const Transport& t, const envelope::SignRequest& q) {
  bool said = false;
  for (;;) {
    std::error_code ec;
    std::optional<std::filesystem::path> missing;
    for (const auto& folder : request_folders(t))
      if (!std::filesystem::is_directory(folder, ec)) missing = folder;
    if (!missing) return true;
    if (now_s() > static_cast<std::int64_t>(std::min<std::uint64_t>(q.deadline, INT64_MAX)))
      return false;
    if (!said) {
      std::cerr << "airlock-online: waiting for the folder " << printable(missing->string())
                << " (is the stick out?) to write the request into\n";
      said = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

// An earlier request still in the request file keeps its own name beside it (the request id's
// first 8 hex digits before the extension), so a rebuild never takes away the request the
// operator may still be reading.
void keep_earlier_request(const std::string& path, const envelope::SignRequest& q) {
  auto file = files::read_limited(path, envelope::kMaxRequestBytes + 64);
  if (!file.ok()) return;
  auto unwrapped = files::unwrap_envelope(*file);
  if (!unwrapped.ok()) return;
  auto earlier = envelope::decode_request(unwrapped->second);
  if (!earlier.ok() || earlier->request_id == q.request_id) return;
  const std::filesystem::path p(path);
  const std::string id = to_hex(ByteView(earlier->request_id.data(), 4));
  std::error_code ec;
  std::filesystem::rename(
      p, p.parent_path() / (p.stem().string() + "." + id + p.extension().string()), ec);
}

Status write_request(const Transport& t, const envelope::SignRequest& q) {
  const Bytes cbor = envelope::encode_request(q);
  if (t.request_file) {
    keep_earlier_request(*t.request_file, q);
    AIRLOCK_CHECK(files::write_atomically(
        *t.request_file, files::wrap_envelope(files::EnvelopeKind::kRequest, cbor)));
  }
  if (!t.request_png && !t.request_html) return {};
  AIRLOCK_TRY(sender,
              transfer::Sender::create({dense::ContentType::kSignRequest, cbor}, t.framing));
  AIRLOCK_TRY(pngs, qr_io::render_pngs(sender, qr_io::default_frame_count(sender), 4));
  if (t.request_html) {
    // One page to open full-screen in front of the offline machine's camera, counting down to
    // the deadline.
    html::PageOptions page;
    page.title = "airlock sign request: " + q.action;
    page.deadline_unix = q.deadline;
    const std::string text = html::animated_qr_page(pngs, page);
    AIRLOCK_CHECK(files::write_atomically(*t.request_html, text_bytes(text)));
    std::cerr << "airlock-online: request as an animated page in " << *t.request_html << "\n";
  }
  if (t.request_png) {
    // A fresh set per round, put in place whole, so frames of an earlier request are never
    // mixed in.
    AIRLOCK_CHECK(qr_io::write_png_folder(pngs, *t.request_png));
    std::cerr << "airlock-online: request as " << pngs.size() << " QR frame(s) in "
              << *t.request_png << "\n";
  }
  return {};
}

// The response for this request, once it is complete; nullopt while it is not there yet.
// Read and decoded only when what the location holds changes (files::snapshot), not every
// quarter second.
std::optional<envelope::SignResponse> try_response(const Transport& t,
                                                   const envelope::RequestId& id,
                                                   std::string& seen) {
  const std::string now = files::snapshot({t.response_file ? *t.response_file : *t.response_qr});
  if (now.empty() || now == seen) return std::nullopt;
  seen = now;
  Bytes cbor;
  if (t.response_file) {
    auto file = files::read_limited(*t.response_file, envelope::kMaxResponseBytes + 16);
    if (!file.ok()) return std::nullopt;
    auto unwrapped = files::unwrap_envelope(*file);
    if (!unwrapped.ok() || unwrapped->first != files::EnvelopeKind::kResponse) return std::nullopt;
    cbor = unwrapped->second;
  } else {
    if (!std::filesystem::is_directory(*t.response_qr)) return std::nullopt;
    auto source = frames::open_png_files({*t.response_qr});
    if (!source.ok()) return std::nullopt;
    auto received = qr_io::receive(**source, {.timeout = std::chrono::seconds(10)});
    if (!received.ok() || received->content.type != dense::ContentType::kSignResponse)
      return std::nullopt;
    cbor = received->content.bytes;
  }
  auto response = envelope::decode_response(cbor);
  if (!response.ok() || response->request_id != id) return std::nullopt;  // another round's
  return std::move(response).value();
}

// Reads the camera until a response to this request is complete or the deadline passes. A
// response still on the offline screen from an earlier round is read, recognised by its id and
// skipped.
std::optional<envelope::SignResponse> response_from_camera(frames::FrameSource& source,
                                                           const envelope::SignRequest& q) {
  for (;;) {
    const std::int64_t left = static_cast<std::int64_t>(q.deadline) - now_s();
    if (left <= 0) return std::nullopt;
    auto received = qr_io::receive(source, {.timeout = std::chrono::seconds(left),
                                            .on_progress = qr_io::terminal_progress(kProgram)});
    if (!received.ok()) return std::nullopt;  // the deadline passed or the stream ended
    if (received->content.type != dense::ContentType::kSignResponse) continue;
    auto response = envelope::decode_response(received->content.bytes);
    if (response.ok() && response->request_id == q.request_id) return std::move(response).value();
  }
}

}  // namespace

online::Courier courier_for(const Transport& t, frames::FrameSource* camera) {
  return [&t,
          camera](const envelope::SignRequest& q) -> Result<std::optional<envelope::SignResponse>> {
    if (!wait_for_folders(t, q)) return std::optional<envelope::SignResponse>();
    AIRLOCK_CHECK(write_request(t, q));
    // The terminal animation runs beside the wait and stops when it ends.
    std::atomic<bool> stop_animation{false};
    std::optional<transfer::Sender> terminal_sender;
    std::thread animation;
    if (t.request_terminal) {
      AIRLOCK_TRY(sender,
                  transfer::Sender::create(
                      {dense::ContentType::kSignRequest, envelope::encode_request(q)}, t.framing));
      terminal_sender.emplace(std::move(sender));
      qr_io::TerminalOptions shown;
      shown.seconds = static_cast<int>(
          std::max<std::int64_t>(1, static_cast<std::int64_t>(q.deadline) - now_s()));
      shown.deadline_unix = q.deadline;
      shown.stop = &stop_animation;
      animation = std::thread(
          [&terminal_sender, shown] { (void)qr_io::animate_terminal(*terminal_sender, shown); });
    }
    std::optional<envelope::SignResponse> response;
    if (camera) {
      response = response_from_camera(*camera, q);
    } else {
      // On a terminal, the time left counts down on one line the whole time (the animation
      // shows it itself).
      const bool terminal = ::isatty(2) == 1 && !t.request_terminal;
      std::int64_t shown = -1;
      std::string seen;
      while (!(response = try_response(t, q.request_id, seen))) {
        const std::int64_t left = static_cast<std::int64_t>(q.deadline) - now_s();
        if (left < 0) break;
        if (terminal && left != shown) {
          std::cerr << "\rairlock-online: waiting for the offline half's "
                    << (q.approval ? "approval" : "signatures") << ": " << left << " s left   "
                    << std::flush;
          shown = left;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
      }
      if (terminal && shown >= 0) std::cerr << "\n";
    }
    stop_animation = true;
    if (animation.joinable()) animation.join();
    return response;
  };
}

}  // namespace online_cli
