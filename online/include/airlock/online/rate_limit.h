// Client-side pacing for the limits of spec part 8, so a bot at full speed waits here instead
// of collecting 429s. Each limit is a sliding window ("at most N requests in any D"), which also
// keeps within any fixed-window count the service may use. Within one process the limiter is
// in memory; processes that share a key or an address share a pacing file (PacingFile), so
// together they stay within the limits.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include <airlock/common/error.h>
#include <airlock/common/fd.h>

namespace airlock::online {

// What a request counts against, besides the limits every request counts against.
enum class RequestClass {
  kOther,       // reads, sends, status polls
  kBuildQuote,  // POST /transactions/{action} (builders) and GET /aggregator/quote
  kPoolSearch,  // GET /dlmm/pools
};

[[nodiscard]] RequestClass classify(const std::string& method, const std::string& path);

struct WindowLimit {
  int max_requests;
  std::chrono::milliseconds window;
};

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // The spec's limits: 20/s at the edge, 60/min per address (stricter than the key's 120/min),
  // and for builds with quotes, and separately pool searches, 30/10 s, 100/min and 300/15 min.
  RateLimiter();

  // How long to wait before a request of this class may go at `now`; zero when it may go.
  [[nodiscard]] std::chrono::milliseconds wait_before(RequestClass c, Clock::time_point now) const;
  // Counts a request made at `now`.
  void record(RequestClass c, Clock::time_point now);
  // Waits (with `sleep`) until a request of this class may go, then records it. Fails when
  // `now` does not advance across 1000 waits.
  [[nodiscard]] Status acquire(RequestClass c, const std::function<Clock::time_point()>& now,
                               const std::function<void(std::chrono::milliseconds)>& sleep);

 private:
  struct Window {
    WindowLimit limit;
    std::deque<Clock::time_point> times;  // requests within the last `window`, oldest first
  };
  static std::chrono::milliseconds wait_in(const Window& w, Clock::time_point now);
  static void add(Window& w, Clock::time_point now);

  std::vector<Window> all_;
  std::vector<Window> build_quote_;
  std::vector<Window> pool_search_;
};

// The same limits across processes: every request of every process using the file is a line
// "<monotonic milliseconds> <class>", read and appended under an exclusive lock (flock), so
// the requests of all of them count together. Times are the machine's monotonic clock, shared
// by its processes; lines older than the longest window, or later than now (a reboot restarted
// the clock), are dropped.
class PacingFile {
 public:
  [[nodiscard]] static Result<PacingFile> open(const std::string& path);

  // Waits (with `sleep`, outside the lock) until a request of this class may go, then records
  // it. Fails on an I/O error, or when `now` does not advance across 1000 waits.
  [[nodiscard]] Status acquire(RequestClass c,
                               const std::function<RateLimiter::Clock::time_point()>& now,
                               const std::function<void(std::chrono::milliseconds)>& sleep);

 private:
  PacingFile(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  UniqueFd fd_;
  std::string path_;
};

}  // namespace airlock::online
