// A client at full speed against the twin's limits (spec part 8): with pacing it never sees a
// 429; the same burst without pacing is refused, which shows the twin really enforces them.
// Both clocks (the twin's and the client's pacing clock) move only when the client waits.
#include <airlock/online/api.h>

#include "conformance_support.h"
#include "support/helpers.h"

namespace airlock::apisim::test {
namespace {

// Keys and vectors as secrets, for the functions that take only SecretText.
airlock::test::SecretArena as_secret;

class PacingTest : public Twin {
 protected:
  online::ApiClient client(bool pace, const std::string& pace_file = "") {
    auto key = online::ApiKey::parse(as_secret(kDemoKey));
    online::ClientOptions options;
    options.max_attempts = 1;  // a 429 is reported, not retried, so it can be counted
    options.pace = pace;
    options.pace_file = pace_file;
    options.sleep = [this](std::chrono::milliseconds d) {
      advance(d.count());
      now += d;
      waited += d;
    };
    options.now = [this] { return now; };
    return online::ApiClient::create(
               "http://127.0.0.1:" + std::to_string(server_->port()) + std::string(kApiPrefix),
               std::move(key).value(), options)
        .value();
  }

  // 150 reads and 40 builds as fast as the clients let them go, taking turns; returns the 429s
  // seen.
  int full_speed(std::vector<online::ApiClient*> clients) {
    int limited = 0;
    for (int i = 0; i < 150; ++i) {
      auto r = clients[static_cast<std::size_t>(i) % clients.size()]->get("/vaults");
      EXPECT_TRUE(r.ok()) << r.error().to_string();
      if (r.ok() && r->status == 429) ++limited;
    }
    for (int i = 0; i < 40; ++i) {
      auto r = clients[static_cast<std::size_t>(i) % clients.size()]->build(
          "vault/update", {{"vault", kVault}, {"depositCap", "20000000000000"}});
      EXPECT_TRUE(r.ok()) << r.error().to_string();
      if (r.ok() && r->status == 429) ++limited;
    }
    return limited;
  }
  int full_speed(online::ApiClient& c) { return full_speed(std::vector<online::ApiClient*>{&c}); }

  airlock::test::ScratchDir dir{"airlock-pacing"};

  online::RateLimiter::Clock::time_point now{};
  std::chrono::milliseconds waited{0};
};

TEST_F(PacingTest, AtFullSpeedThePacedClientNeverHitsALimit) {
  auto paced = client(true);
  EXPECT_EQ(full_speed(paced), 0);
  // 190 requests at 60 a minute: a little over three minutes of waiting, no more.
  EXPECT_GE(waited, std::chrono::seconds(180));
  EXPECT_LE(waited, std::chrono::seconds(200));
}

// Two clients standing for two processes on one key and address: each paced alone, together
// they exceed the limits; pacing through one shared file, together they never do.
TEST_F(PacingTest, TwoProcessesStayWithinTheLimitsOnlyThroughASharedPacingFile) {
  auto a = client(true);
  auto b = client(true);
  EXPECT_GT(full_speed({&a, &b}), 0) << "each alone thinks it may use the whole limit";
  advance(16 * 60 * 1000);  // every window of the twin and of the pacers empties
  now += std::chrono::minutes(16);
  auto c = client(true, dir.file("pacing"));
  auto d = client(true, dir.file("pacing"));
  waited = std::chrono::milliseconds(0);
  EXPECT_EQ(full_speed({&c, &d}), 0);
  EXPECT_GE(waited, std::chrono::seconds(180)) << "together they waited as one client would";
}

TEST_F(PacingTest, WithoutPacingTheSameBurstIsRefused) {
  auto unpaced = client(false);
  EXPECT_GT(full_speed(unpaced), 100);
}

}  // namespace
}  // namespace airlock::apisim::test
