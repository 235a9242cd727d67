#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <airlock/online/api.h>
#include <airlock/online/rate_limit.h>

namespace airlock::online {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

std::vector<WindowLimit> tiered() {
  return {{30, seconds(10)}, {100, minutes(1)}, {300, minutes(15)}};
}

// Pacing waits on a clock it does not control; a clock that never moves must not hang it.
constexpr int kMaxPacingWaits = 1000;

Error pacing_stalled() {
  return Error(online::errors::kHttp, "pacing: the clock does not advance while waiting");
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

Result<PacingFile> PacingFile::open(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) {
    return Error(ErrorCode::kIo, "pacing file " + path + ": cannot open: " + std::strerror(errno));
  }
  return PacingFile(std::move(fd), path);
}

Status PacingFile::acquire(RequestClass c,
                           const std::function<RateLimiter::Clock::time_point()>& now,
                           const std::function<void(std::chrono::milliseconds)>& sleep) {
  using Clock = RateLimiter::Clock;
  const auto fail = [&](const std::string& what) {
    return Error(ErrorCode::kIo,
                 "pacing file " + path_ + ": " + what + ": " + std::strerror(errno));
  };
  // The longest window: older requests no longer count against anything.
  constexpr long long kLongestMs = std::chrono::duration_cast<milliseconds>(minutes(15)).count();
  for (int round = 0;; ++round) {
    auto lock = FileLock::exclusive(fd_.get(), true);
    if (!lock) return fail("cannot lock");
    std::string text;
    char buffer[4096];
    ssize_t n = 0;
    off_t at = 0;
    while ((n = ::pread(fd_.get(), buffer, sizeof buffer, at)) > 0) {
      text.append(buffer, static_cast<std::size_t>(n));
      at += n;
    }
    if (n < 0) return fail("cannot read");
    const auto t = now();
    const auto now_ms = std::chrono::duration_cast<milliseconds>(t.time_since_epoch()).count();
    RateLimiter limiter;
    std::ostringstream kept;
    std::istringstream lines(text);
    long long ms = 0;
    int kind = 0;
    while (lines >> ms >> kind) {
      if (ms > now_ms || ms + kLongestMs <= now_ms) continue;
      if (kind < 0 || kind > 2) continue;
      limiter.record(static_cast<RequestClass>(kind), Clock::time_point(milliseconds(ms)));
      kept << ms << ' ' << kind << '\n';
    }
    const auto wait = limiter.wait_before(c, t);
    if (wait.count() == 0) {
      kept << now_ms << ' ' << static_cast<int>(c) << '\n';
      const std::string out = kept.str();
      const bool written =
          ::ftruncate(fd_.get(), 0) == 0 &&
          ::pwrite(fd_.get(), out.data(), out.size(), 0) == static_cast<ssize_t>(out.size());
      if (!written) return fail("cannot write");
      return {};
    }
    lock->unlock();  // not held while waiting
    if (round == kMaxPacingWaits) return pacing_stalled();
    sleep(wait);
  }
}

Status RateLimiter::acquire(RequestClass c, const std::function<Clock::time_point()>& now,
                            const std::function<void(std::chrono::milliseconds)>& sleep) {
  for (int round = 0;; ++round) {
    const auto wait = wait_before(c, now());
    if (wait.count() == 0) {
      record(c, now());
      return {};
    }
    if (round == kMaxPacingWaits) return pacing_stalled();
    sleep(wait);
  }
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
