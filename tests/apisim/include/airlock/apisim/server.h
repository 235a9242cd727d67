// The twin's HTTP server: cpp-httplib on a loopback address, every request handed to Service.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <airlock/apisim/service.h>
#include <airlock/common/error.h>

namespace httplib {
class Server;
}

namespace airlock::apisim {

class Server {
 public:
  explicit Server(Service& service);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds host:port (port 0 picks a free one) and serves on a background thread. Only loopback
  // hosts are accepted: the twin is for tests and demos on this machine.
  [[nodiscard]] Status start(const std::string& host, int port);
  [[nodiscard]] int port() const noexcept { return port_; }
  // Serves on the calling thread until stop() (from a signal handler or another thread);
  // on_listening runs once the port is bound, before the first request is read.
  [[nodiscard]] Status run(const std::string& host, int port,
                           const std::function<void()>& on_listening = {});
  void stop();

 private:
  void install_routes();
  // Loopback only; port 0 takes a free port. Sets port_.
  [[nodiscard]] Status bind(const std::string& host, int port);

  Service& service_;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
};

[[nodiscard]] bool is_loopback_host(const std::string& host);

}  // namespace airlock::apisim
