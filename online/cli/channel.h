// The channel to the offline half as act uses it: where each sign request is written or shown,
// and where the response is awaited.
#pragma once

#include <optional>
#include <string>

#include <airlock/formats/frames.h>
#include <airlock/formats/transfer.h>
#include <airlock/online/act.h>

namespace online_cli {

// Where the request goes and the response comes from.
struct Transport {
  std::optional<std::string> request_file, request_png, request_html, response_file, response_qr;
  std::optional<std::string> response_camera;  // a V4L2 device watching the offline screen
  bool request_terminal = false;               // animate the request as QR in this terminal
  std::string camera_size = "1280x720";
  airlock::transfer::Options framing;  // the request's QR codes: dense, at the chosen --density
};

// The offline half's channel: the request written or shown, the response awaited until the
// deadline (from `camera` when there is one, else the response file or folder).
airlock::online::Courier courier_for(const Transport& t, airlock::frames::FrameSource* camera);

}  // namespace online_cli
