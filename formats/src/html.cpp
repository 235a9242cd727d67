#include <airlock/common/display.h>
#include <airlock/formats/html.h>

namespace airlock::html {

std::string animated_qr_page(const std::vector<Bytes>& png_frames, const PageOptions& options) {
  std::string frames;
  for (const auto& png : png_frames) {
    if (!frames.empty()) frames += ",\n";
    frames += "\"data:image/png;base64," + to_base64(png) + "\"";
  }
  const std::string deadline =
      options.deadline_unix ? std::to_string(*options.deadline_unix) : "null";
  const int fps = options.frames_per_second < 1 ? 1 : options.frames_per_second;
  return R"(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>)" +
         xml_escape(options.title) + R"(</title>
<style>
  html, body { margin: 0; height: 100%; background: #fff; color: #222; font: 16px system-ui, sans-serif; }
  main { height: 100%; display: flex; flex-direction: column; align-items: center; justify-content: center; }
  img { height: min(82vh, 96vw); image-rendering: pixelated; }
  #status { margin-top: 1vh; font-variant-numeric: tabular-nums; }
  #countdown.late { color: #b00; font-weight: bold; }
</style>
</head>
<body>
<main>
  <img id="frame" alt="QR frame">
  <div id="status"><span id="counter"></span> <span id="countdown"></span></div>
</main>
<script>
"use strict";
const frames = [
)" + frames +
         R"(
];
const deadline = )" +
         deadline + R"(;
const img = document.getElementById("frame");
const counter = document.getElementById("counter");
const countdown = document.getElementById("countdown");
let index = 0;
function show() {
  img.src = frames[index];
  counter.textContent = "frame " + (index + 1) + " of " + frames.length;
  index = (index + 1) % frames.length;
}
function tick() {
  if (deadline === null) return;
  const left = Math.floor(deadline - Date.now() / 1000);
  countdown.textContent = left >= 0 ? "\u00b7 " + left + " s left" : "\u00b7 deadline passed";
  countdown.className = left < 15 ? "late" : "";
}
show();
tick();
setInterval(show, 1000 / )" +
         std::to_string(fps) + R"();
setInterval(tick, 250);
document.addEventListener("click", () => document.documentElement.requestFullscreen?.());
</script>
</body>
</html>
)";
}

}  // namespace airlock::html
