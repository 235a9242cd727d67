// airlock-online against a hostile server on loopback (issue 13): replies too large, nested too
// deep, or carrying terminal escapes end in a named error with bounded memory and time, never a
// crash; user-info URLs never reach the network.
#include <atomic>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>

#include <airlock/online/api.h>
#include <airlock/online/reads.h>

namespace airlock::online {
namespace {

constexpr const char* kKey = "hv1_demo_demo_secret_0123456789abcdefghijklmnopqrstuv";

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
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
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
                             ApiKey::parse(kKey).value(), options)
        .value();
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

TEST_F(HostileServer, ADeeplyNestedReplyIsRefusedByRule) {
  auto c = client();
  auto r = c.get("/vaults");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("nested at most 64 deep"), std::string::npos)
      << r.error().message();
}

TEST_F(HostileServer, AnOversizedReplyIsCutAtTheCapAndNamed) {
  auto c = client();
  auto r = c.get("/aggregator/quote");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("larger than 8 MiB"), std::string::npos)
      << r.error().message();
}

TEST_F(HostileServer, AnErrorMessageWithEscapesIsKeptAsDataAndShownEscaped) {
  auto c = client();
  auto r = c.get("/dlmm/pools");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->failure.has_value());
  EXPECT_EQ(r->failure->code, "Validation");
  const std::string shown = render_read("pools", r->body);
  EXPECT_EQ(shown.find('\x1b'), std::string::npos) << shown;
}

TEST(HostileUrl, UserInfoNeverReachesTheNetwork) {
  for (const char* url : {"http://localhost:80@127.0.0.2:9/api/external/v1",
                          "http://127.0.0.1:x@127.0.0.2:9/api/external/v1"}) {
    auto c = ApiClient::create(url, ApiKey::parse(kKey).value());
    ASSERT_FALSE(c.ok()) << url;
    EXPECT_NE(c.error().message().find("user name or password"), std::string::npos)
        << c.error().message();
  }
}

}  // namespace
}  // namespace airlock::online
