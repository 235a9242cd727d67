// Where sign and review read a sign request from: a file (airlock's .alreq envelope or Keystone's
// UR text) or QR codes (PNG images or folders, a raw gray frame stream, a camera).
#include <iostream>

#include <airlock/common/display.h>
#include <airlock/common/hash.h>
#include <airlock/formats/files.h>
#include <airlock/formats/qr_io.h>
#include <airlock/offline/signing.h>

#include "shared.h"

namespace offline_cli {

using airlock::Error;
using airlock::ErrorCode;

void add_request_source(po::options_description& options, RequestSource& source) {
  options.add_options()("qr", po::value<std::vector<std::string>>(&source.qr)->multitoken(),
                        "read the request from these QR images (PNG files or folders)")(
      "raw", airlock::cli::optional_value(&source.raw),
      "read the request from WIDTHxHEIGHT gray frames on standard input")(
      "camera", airlock::cli::optional_value(&source.camera),
      "read the request from a V4L2 camera")(
      "camera-size", po::value<std::string>(&source.camera_size)->default_value(source.camera_size),
      "camera frame size, WIDTHxHEIGHT")(
      "timeout",
      airlock::cli::value_in(&source.timeout, 1, 3600, "timeout")->default_value(source.timeout),
      "give up reading QR frames after this many seconds");
}

airlock::cli::Positional request_positional(RequestSource& source) {
  return {"request", &source.file};
}

airlock::Status check_request_source(const RequestSource& source) {
  const int sources = (source.file ? 1 : 0) + (source.qr.empty() ? 0 : 1) + (source.raw ? 1 : 0) +
                      (source.camera ? 1 : 0);
  if (sources != 1) {
    return Error(ErrorCode::kUsage,
                 "give the request exactly once: a REQUEST file, --qr, --raw or --camera");
  }
  return {};
}

airlock::Result<RequestBytes> read_request_bytes(const RequestSource& source) {
  RequestBytes read;
  if (source.file) {
    AIRLOCK_TRY(
        file, airlock::files::read_limited(*source.file, 4 * airlock::envelope::kMaxRequestBytes));
    read.digest = airlock::sha256(file);
    read.content = airlock::qr_io::content_of_file(file);
    read.from_file = true;
    return read;
  }
  airlock::qr_io::SourceSpec spec;
  spec.files = source.qr;
  spec.raw_size = source.raw;
  spec.camera = source.camera;
  spec.camera_size = source.camera_size;
  AIRLOCK_TRY(qr_source, airlock::qr_io::open_source(spec));
  AIRLOCK_TRY(received,
              airlock::qr_io::receive(
                  *qr_source, {.timeout = std::chrono::seconds(source.timeout),
                               .on_progress = airlock::qr_io::terminal_progress(kProgram)}));
  read.content = std::move(received.content);
  read.digest = airlock::sha256(airlock::qr_io::file_bytes(read.content));
  return read;
}

airlock::Result<IncomingRequest> decode_incoming(const RequestBytes& read, std::int64_t now) {
  const airlock::transfer::Content& content = read.content;
  IncomingRequest in;
  in.digest = read.digest;
  // A file that is neither an envelope nor Keystone UR text: the envelope's own error says what
  // is wrong.
  if (read.from_file && content.type == airlock::dense::ContentType::kFile) {
    if (auto unwrapped = airlock::files::unwrap_envelope(content.bytes); !unwrapped.ok())
      return unwrapped.error();
  }
  const bool keystone = content.type == airlock::dense::ContentType::kKeystoneSignRequest;
  if (!keystone && content.type != airlock::dense::ContentType::kSignRequest) {
    return Error(ErrorCode::kUsage, content.type == airlock::dense::ContentType::kSignResponse
                                        ? "the input holds a sign response, not a request"
                                        : "the input holds something other than a sign request");
  }
  if (keystone) {
    AIRLOCK_TRY(decoded, airlock::keystone::decode_sign_request(content.bytes));
    AIRLOCK_TRY(request, airlock::offline::keystone_request(decoded, now));
    // What the requester says about itself: shown, escaped, and bound to nothing.
    std::cerr << "airlock-offline: a Keystone sol-sign-request, path " << decoded.path.to_string()
              << ", origin '" << airlock::printable(decoded.origin.value_or("")) << "'\n";
    in.keystone = std::move(decoded);
    in.request = std::move(request);
  } else {
    AIRLOCK_TRY(request, airlock::envelope::decode_request(content.bytes));
    in.request = std::move(request);
  }
  return in;
}

airlock::Result<IncomingRequest> read_request(const RequestSource& source, std::int64_t now) {
  AIRLOCK_TRY(read, read_request_bytes(source));
  return decode_incoming(read, now);
}

}  // namespace offline_cli
