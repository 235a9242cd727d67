// The Manager Bot API twin as a request -> response function, independent of the HTTP server
// around it (server.h), so the same logic answers over loopback HTTP and in tests.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <airlock/apisim/world.h>

namespace airlock::apisim {

inline constexpr std::string_view kApiPrefix = "/api/external/v1";

struct Request {
  std::string method;  // GET, POST
  std::string path;    // without the query string
  std::string target;  // the request target as sent: path and query, still percent-encoded
  std::map<std::string, std::string> query;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string remote_ip = "127.0.0.1";
};

struct Response {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

struct ServiceOptions {
  // Secret for the /_sim control API (header X-Sim-Token).
  std::string control_token = "airlock-sim";
  // Frozen: time moves only through /_sim/clock (tests). Otherwise it follows the wall clock.
  bool frozen_clock = false;
  // Milliseconds from send to landing; 0 lands on the next status poll.
  std::int64_t confirm_delay_ms = 800;
};

class Engine;

class Service {
 public:
  Service(World world, ServiceOptions options);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Thread-safe: one lock around the whole world, which keeps every answer consistent.
  [[nodiscard]] Response handle(const Request& request);

 private:
  std::mutex mutex_;
  std::unique_ptr<Engine> engine_;
};

}  // namespace airlock::apisim
