// airlock-online against a hostile server on loopback (issue 13): replies too large, nested too
// deep, or carrying terminal escapes end in a named error with bounded memory and time, never a
// crash; user-info URLs never reach the network.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <airlock/online/api.h>
#include <airlock/online/reads.h>

#include "support/helpers.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace airlock::online {
namespace {

// Keys and vectors as secrets, for the functions that take only SecretText.
airlock::test::SecretArena as_secret;

constexpr const char* kKey = "hv1_demo_demo_secret_0123456789abcdefghijklmnopqrstuv";

// Returns once `server`'s listen loop runs: a stop() before it would be lost, and the loop
// would then run until the test's timeout.
void listening(const httplib::Server& server) {
  for (int i = 0; i < 2500 && !server.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_TRUE(server.is_running()) << "the server never began listening";
}

class HostileServer : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Get("/api/external/v1/vaults", [](const httplib::Request&, httplib::Response& res) {
      // 200,000 levels of nesting: a parser that recursed would overflow the stack.
      res.set_content(std::string(200'000, '[') + std::string(200'000, ']'), "application/json");
    });
    server_.Get("/api/external/v1/aggregator/quote",
                [](const httplib::Request&, httplib::Response& res) {
                  // A 64 MiB body: the client stops at its cap.
                  res.set_content(std::string(64 << 20, ' '), "application/json");
                });
    server_.Get("/api/external/v1/dlmm/pools", [](const httplib::Request&, httplib::Response& res) {
      res.status = 400;
      res.set_content(
          R"({"error":{"code":"Validation","message":"\u001b]0;owned\u0007\u001b[32mok"}})",
          "application/json");
    });
    server_.Get("/api/external/v1/tokens", [](const httplib::Request&, httplib::Response& res) {
      // The error envelope with a number for a code and an object for a message.
      res.status = 400;
      res.set_content(R"({"error":{"code":7,"message":{"text":"x"}}})", "application/json");
    });
    server_.Get("/api/external/v1/perp", [](const httplib::Request&, httplib::Response& res) {
      res.set_header("X-Padding", std::string(2 << 20, 'a'));  // a 2 MiB header line
      res.set_content("{}", "application/json");
    });
    server_.Get("/api/external/v1/requests",
                [this](const httplib::Request&, httplib::Response& res) {
                  // Busy twice, asking for 3 s and then 1 s, then the answer.
                  if (busy_ < 2) {
                    res.status = 429;
                    res.set_header("Retry-After", busy_ == 0 ? "3" : "1");
                    res.set_content(R"({"error":{"code":"RateLimited","message":"slow down"}})",
                                    "application/json");
                    ++busy_;
                    return;
                  }
                  res.set_content(R"({"data":[]})", "application/json");
                });
    server_.Get("/api/external/v1/strategies",
                [this](const httplib::Request&, httplib::Response& res) {
                  res.set_header("Date", date_);
                  res.set_content(R"({"data":[]})", "application/json");
                });
    server_.Get("/api/external/v1/nav", [](const httplib::Request&, httplib::Response& res) {
      res.status = 429;
      res.set_header("Retry-After", "3600");
      res.set_content(R"({"error":{"code":"RateLimited","message":"come back in an hour"}})",
                      "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    listening(server_);
  }
  void TearDown() override {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  ApiClient client() {
    ClientOptions options;
    options.pace = false;
    options.max_attempts = 1;
    return ApiClient::create("http://127.0.0.1:" + std::to_string(port_) + "/api/external/v1",
                             ApiKey::parse(as_secret(kKey)).value(), options)
        .value();
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<int> busy_{0};
  std::string date_;  // the Date the /strategies reply carries
};

TEST_F(HostileServer, ADeeplyNestedReplyIsRefusedByRule) {
  auto c = client();
  auto r = c.get("/vaults");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message(), HasSubstr("nested at most 64 deep"));
}

TEST_F(HostileServer, AnOversizedReplyIsCutAtTheCapAndNamed) {
  auto c = client();
  auto r = c.get("/aggregator/quote");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message(), HasSubstr("larger than 8 MiB"));
}

TEST_F(HostileServer, AnErrorMessageWithEscapesIsKeptAsDataAndShownEscaped) {
  auto c = client();
  auto r = c.get("/dlmm/pools");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->failure.has_value());
  EXPECT_EQ(r->failure->code, "Validation");
  const std::string shown = render_read("pools", r->body);
  EXPECT_THAT(shown, Not(HasSubstr("\x1b")));
}

TEST_F(HostileServer, AnErrorEnvelopeOfTheWrongTypesIsNamedNotPrintedBlank) {
  auto c = client();
  auto r = c.get("/tokens");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->failure.has_value());
  EXPECT_EQ(r->failure->code, "HTTP400");
  EXPECT_THAT(r->failure->message, HasSubstr("not {code: non-empty string, message: string}"));
}

TEST_F(HostileServer, AHugeHeaderIsNamedNotOutOfMemory) {
  auto c = client();
  auto r = c.get("/perp");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message(), HasSubstr("headers are larger than 64 KiB"));
}

TEST_F(HostileServer, RetryAfterIsWaitedForAndALongOneEndsTheRetries) {
  std::vector<std::chrono::milliseconds> waits;
  ClientOptions options;
  options.pace = false;
  options.first_delay = std::chrono::milliseconds(100);
  options.sleep = [&](std::chrono::milliseconds d) { waits.push_back(d); };
  auto c = ApiClient::create("http://127.0.0.1:" + std::to_string(port_) + "/api/external/v1",
                             ApiKey::parse(as_secret(kKey)).value(), options)
               .value();
  auto r = c.get("/requests");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_FALSE(r->failure.has_value());
  ASSERT_EQ(waits.size(), 2U);
  EXPECT_GE(waits[0], std::chrono::seconds(3)) << "Retry-After: 3 over a 100 ms backoff";
  EXPECT_GE(waits[1], std::chrono::seconds(1));
  EXPECT_LT(waits[1], std::chrono::seconds(3)) << "the backoff, not the earlier Retry-After";
  // An hour is beyond what a signing round can wait: the reply comes back at once.
  waits.clear();
  auto hour = c.get("/nav");
  ASSERT_TRUE(hour.ok());
  ASSERT_TRUE(hour->failure.has_value());
  EXPECT_EQ(hour->failure->status, 429);
  EXPECT_EQ(hour->retry_after, std::chrono::seconds(3600));
  EXPECT_TRUE(waits.empty());
}

// A reply's Date (the API's clock: a second opinion on a build's time) is read as an HTTP date,
// or not at all.
TEST_F(HostileServer, AReplysDateIsReadAsAnHttpDateOrNotAtAll) {
  auto c = client();
  date_ = "Sun, 06 Nov 1994 08:49:37 GMT";
  auto dated = c.get("/strategies");
  ASSERT_TRUE(dated.ok()) << dated.error().to_string();
  EXPECT_EQ(dated->date, 784111777);
  for (const char* odd : {"yesterday", "", "1994-11-06T08:49:37Z-and-more"}) {
    date_ = odd;
    auto undated = c.get("/strategies");
    ASSERT_TRUE(undated.ok()) << undated.error().to_string();
    EXPECT_FALSE(undated->date.has_value()) << odd;
  }
}

TEST_F(HostileServer, PlainHttpNeverGoesThroughAProxyFromTheEnvironment) {
  // A proxy that would see the key in clear: it counts what reaches it.
  httplib::Server proxy;
  std::atomic<int> seen{0};
  proxy.set_pre_routing_handler([&](const httplib::Request&, httplib::Response& res) {
    ++seen;
    res.status = 502;
    return httplib::Server::HandlerResponse::Handled;
  });
  const int proxy_port = proxy.bind_to_any_port("127.0.0.1");
  ASSERT_GT(proxy_port, 0);
  std::thread serving([&] { proxy.listen_after_bind(); });
  // Nothing reaches the proxy, so nothing else waits for it: a stop before its listen loop
  // began would leave it listening and the join below waiting (seen once under load).
  listening(proxy);
  const std::string at = "http://127.0.0.1:" + std::to_string(proxy_port);
  for (const char* variable : {"http_proxy", "ALL_PROXY", "all_proxy"}) {
    SCOPED_TRACE(variable);
    ::setenv(variable, at.c_str(), 1);
    auto c = client();
    auto r = c.get("/tokens");  // answered by the API itself: 400 with its envelope
    ::unsetenv(variable);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_EQ(r->status, 400);
  }
  proxy.stop();
  serving.join();
  EXPECT_EQ(seen.load(), 0) << "a request went through the proxy";
}

TEST(HostileUrl, UserInfoNeverReachesTheNetwork) {
  for (const char* url : {"http://localhost:80@127.0.0.2:9/api/external/v1",
                          "http://127.0.0.1:x@127.0.0.2:9/api/external/v1"}) {
    auto c = ApiClient::create(url, ApiKey::parse(as_secret(kKey)).value());
    ASSERT_FALSE(c.ok()) << url;
    EXPECT_THAT(c.error().message(), HasSubstr("user name or password"));
  }
}

}  // namespace
}  // namespace airlock::online
