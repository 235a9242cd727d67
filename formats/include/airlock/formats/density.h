// How dense the animated QR codes are, as the operator chooses it (the "density" setting of
// Keystone's and Sparrow's animated QR): denser codes carry more per frame but need a sharper
// camera. The presets come from the camera capture benchmark (docs/benchmarks.md): high reads
// fastest on a 720p webcam filling most of its view with the screen, medium (the two halves'
// default) still reads on a 640x480 webcam at an angle where high reads nothing, low reads the
// most frames on a poor camera.
#pragma once

#include <string_view>

#include <airlock/common/error.h>
#include <airlock/formats/transfer.h>

namespace airlock::density {

enum class Density { kLow, kMedium, kHigh };

// "low", "medium" or "high"; anything else is a usage error naming the choices.
[[nodiscard]] Result<Density> parse(std::string_view text);

// The largest QR version and the error correction level of a preset: low 8-L, medium 12-L,
// high 17-L (transfer::Options' defaults).
void apply(Density density, transfer::Options& options);

}  // namespace airlock::density
