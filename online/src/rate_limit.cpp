#include <algorithm>

#include <airlock/online/rate_limit.h>

namespace airlock::online {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

std::vector<WindowLimit> tiered() {
  return {{30, seconds(10)}, {100, minutes(1)}, {300, minutes(15)}};
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

RequestClass classify(const std::string& method, const std::string& path) {
  const std::string route = path.substr(0, path.find('?'));
  if (method == "POST" && starts_with(route, "/transactions/") && route != "/transactions/send" &&
      route != "/transactions/perp/onboard/submit") {
    return RequestClass::kBuildQuote;
  }
  if (method == "GET" && route == "/aggregator/quote") return RequestClass::kBuildQuote;
  if (method == "GET" && route == "/dlmm/pools") return RequestClass::kPoolSearch;
  return RequestClass::kOther;
}

RateLimiter::RateLimiter() {
  all_ = {{{20, seconds(1)}, {}}, {{60, minutes(1)}, {}}};
  for (const auto& l : tiered()) {
    build_quote_.push_back({l, {}});
    pool_search_.push_back({l, {}});
  }
}

milliseconds RateLimiter::wait_in(const Window& w, Clock::time_point now) {
  if (static_cast<int>(w.times.size()) < w.limit.max_requests) return milliseconds(0);
  // The request that must leave the window first: the oldest of the last max_requests.
  const auto oldest = w.times[w.times.size() - static_cast<std::size_t>(w.limit.max_requests)];
  const auto free_at = oldest + w.limit.window;
  if (free_at <= now) return milliseconds(0);
  return std::chrono::ceil<milliseconds>(free_at - now);
}

void RateLimiter::add(Window& w, Clock::time_point now) {
  while (!w.times.empty() && w.times.front() + w.limit.window <= now) w.times.pop_front();
  w.times.push_back(now);
}

milliseconds RateLimiter::wait_before(RequestClass c, Clock::time_point now) const {
  milliseconds wait(0);
  for (const auto& w : all_) wait = std::max(wait, wait_in(w, now));
  const auto& extra = c == RequestClass::kBuildQuote   ? build_quote_
                      : c == RequestClass::kPoolSearch ? pool_search_
                                                       : std::vector<Window>{};
  for (const auto& w : extra) wait = std::max(wait, wait_in(w, now));
  return wait;
}

void RateLimiter::record(RequestClass c, Clock::time_point now) {
  for (auto& w : all_) add(w, now);
  if (c == RequestClass::kBuildQuote) {
    for (auto& w : build_quote_) add(w, now);
  } else if (c == RequestClass::kPoolSearch) {
    for (auto& w : pool_search_) add(w, now);
  }
}

}  // namespace airlock::online
