// Client-side pacing (spec part 8): each window's limit holds at every instant, and requests
// are classed the way the service counts them.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/online/rate_limit.h>

#include "support/helpers.h"

using ::testing::HasSubstr;

namespace airlock::online {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = RateLimiter::Clock;

// Makes `n` requests of class `c` as early as the limiter allows from `start`; returns when the
// last one went.
Clock::time_point burst(RateLimiter& limiter, RequestClass c, int n, Clock::time_point start) {
  Clock::time_point now = start;
  for (int i = 0; i < n; ++i) {
    now += limiter.wait_before(c, now);
    limiter.record(c, now);
  }
  return now;
}

TEST(RateLimit, RequestsAreClassedAsTheServiceCountsThem) {
  EXPECT_EQ(classify("POST", "/transactions/dlmm/open"), RequestClass::kBuildQuote);
  EXPECT_EQ(classify("GET", "/aggregator/quote?inputMint=x"), RequestClass::kBuildQuote);
  EXPECT_EQ(classify("GET", "/dlmm/pools?search=SOL"), RequestClass::kPoolSearch);
  EXPECT_EQ(classify("POST", "/transactions/send"), RequestClass::kOther);
  EXPECT_EQ(classify("POST", "/transactions/perp/onboard/submit"), RequestClass::kOther);
  EXPECT_EQ(classify("GET", "/transactions/status?receipt=r"), RequestClass::kOther);
  EXPECT_EQ(classify("GET", "/vaults"), RequestClass::kOther);
}

TEST(RateLimit, TwentyASecondAtTheEdgeAndSixtyAMinuteInAll) {
  RateLimiter limiter;
  const Clock::time_point t0{};
  // 20 go at once; the 21st waits for the first to leave its one-second window.
  EXPECT_EQ(burst(limiter, RequestClass::kOther, 20, t0), t0);
  EXPECT_EQ(limiter.wait_before(RequestClass::kOther, t0), milliseconds(1000));
  // 60 within the first three seconds; the 61st waits until a minute after the first.
  const auto sixtieth = burst(limiter, RequestClass::kOther, 40, t0);
  EXPECT_EQ(sixtieth, t0 + seconds(2));
  EXPECT_EQ(limiter.wait_before(RequestClass::kOther, sixtieth), seconds(58));
}

TEST(RateLimit, BuildsKeepAllThreeWindows) {
  RateLimiter limiter;
  const Clock::time_point t0{};
  // 30 builds in 10 s, then the minute's 60 for all requests binds before the build's 100.
  const auto thirtieth = burst(limiter, RequestClass::kBuildQuote, 30, t0);
  EXPECT_EQ(limiter.wait_before(RequestClass::kBuildQuote, thirtieth),
            seconds(10) - (thirtieth - t0));
  // Over 15 minutes at full speed, no window is ever exceeded: count what each would see.
  RateLimiter steady;
  std::vector<Clock::time_point> times;
  Clock::time_point now = t0;
  while (now < t0 + std::chrono::minutes(15)) {
    now += steady.wait_before(RequestClass::kBuildQuote, now);
    steady.record(RequestClass::kBuildQuote, now);
    times.push_back(now);
  }
  const auto most_in = [&](milliseconds window) {
    std::size_t most = 0;
    for (std::size_t i = 0, j = 0; i < times.size(); ++i) {
      while (times[i] - times[j] >= window) ++j;
      most = std::max(most, i - j + 1);
    }
    return most;
  };
  EXPECT_LE(most_in(seconds(1)), 20U);
  EXPECT_LE(most_in(seconds(10)), 30U);
  EXPECT_LE(most_in(std::chrono::minutes(1)), 60U);
  EXPECT_LE(most_in(std::chrono::minutes(15)), 300U);
  // And it is not slower than it must be: over 15 minutes the builds' 300 binds, and all 300
  // go within them.
  const auto within = std::count_if(times.begin(), times.end(), [&](Clock::time_point t) {
    return t < t0 + std::chrono::minutes(15);
  });
  EXPECT_EQ(within, 300);
}

TEST(RateLimit, PoolSearchesAndBuildsAreCountedApart) {
  RateLimiter limiter;
  const Clock::time_point t0{};
  burst(limiter, RequestClass::kBuildQuote, 19, t0);
  // The build windows are full for this second's edge only; a pool search has its own triple.
  EXPECT_EQ(limiter.wait_before(RequestClass::kPoolSearch, t0), milliseconds(0));
}

// The shared pacing file: requests of every user count together; lines that no longer count
// (older than 15 minutes), that cannot count yet (later than now, after a reboot restarted the
// monotonic clock) or that are not lines of the file's form are dropped, never obeyed.
TEST(PacingFile, SharesTheWindowsAndDropsWhatNoLongerCounts) {
  airlock::test::ScratchDir dir("airlock-pacing");
  const std::string path = dir.file("pacing");
  Clock::time_point now{std::chrono::hours(10)};
  milliseconds slept(0);
  const auto clock = [&] { return now; };
  const auto sleep = [&](milliseconds d) {
    now += d;
    slept += d;
  };
  const auto ms = [](Clock::time_point t) {
    return std::chrono::duration_cast<milliseconds>(t.time_since_epoch()).count();
  };
  {
    std::ofstream f(path);
    f << ms(now) + 3'600'000 << " 0\n";    // from before a reboot: later than now
    f << ms(now) - 16 * 60'000 << " 1\n";  // 16 minutes old
    f << "garbage\n";
  }
  auto a = PacingFile::open(path);
  auto b = PacingFile::open(path);
  ASSERT_TRUE(a.ok() && b.ok());
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE((i % 2 ? *a : *b).acquire(RequestClass::kOther, clock, sleep).ok());
  EXPECT_EQ(slept.count(), 0) << "20 in the first second, between both users";
  ASSERT_TRUE(a->acquire(RequestClass::kOther, clock, sleep).ok());
  EXPECT_EQ(slept, seconds(1)) << "the 21st waits for the window, whichever user asks";
  std::ifstream in(path);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 21) << "the stale, future and garbage lines were dropped";
  ASSERT_TRUE(PacingFile::open(dir.file("fresh")).ok());
  EXPECT_EQ(std::filesystem::status(dir.file("fresh")).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  auto missing = PacingFile::open(dir.file("no/such/dir/pacing"));
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message(), HasSubstr("no/such/dir/pacing"));
}

}  // namespace
}  // namespace airlock::online
