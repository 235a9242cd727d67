// Client-side pacing for the limits of spec part 8, so a bot at full speed waits here instead
// of collecting 429s. Each limit is a sliding window ("at most N requests in any D"), which also
// keeps within any fixed-window count the service may use. Limits are per process: two
// airlock-online processes sharing one key or address must be paced by their operator.
#pragma once

#include <chrono>
#include <deque>
#include <string>
#include <vector>

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

}  // namespace airlock::online
