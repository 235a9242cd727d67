#include <algorithm>
#include <chrono>
#include <thread>

#include <httplib.h>

#include <airlock/apisim/server.h>

namespace airlock::apisim {

bool is_loopback_host(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

Server::Server(Service& service) : service_(service), http_(std::make_unique<httplib::Server>()) {
  install_routes();
}

Server::~Server() { stop(); }

void Server::install_routes() {
  const auto handler = [this](const httplib::Request& in, httplib::Response& out) {
    Request request;
    request.method = in.method;
    request.path = in.path;
    request.target = in.target;
    for (const auto& [k, v] : in.params) request.query.emplace(k, v);
    for (const auto& [k, v] : in.headers) {
      std::string name = k;
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      request.headers[name] = v;
    }
    request.body = in.body;
    request.remote_ip = in.remote_addr;
    const Response response = service_.handle(request);
    out.status = response.status;
    std::string type = "application/json";
    for (const auto& [k, v] : response.headers) {
      if (k == "Content-Type") {
        type = v;
      } else {
        out.set_header(k, v);
      }
    }
    out.set_content(response.body, type);
  };
  http_->Get(".*", handler);
  http_->Post(".*", handler);
  http_->Put(".*", handler);
  http_->Delete(".*", handler);
  // Bodies over the API's limit are answered by the service with 413; let them through to it.
  http_->set_payload_max_length(1 << 20);
}

Status Server::bind(const std::string& host, int port) {
  if (!is_loopback_host(host))
    return Error(ErrorCode::kUsage,
                 "--listen: the twin serves loopback addresses only, not '" + host + "'");
  port_ = port == 0 ? http_->bind_to_any_port(host) : (http_->bind_to_port(host, port) ? port : -1);
  if (port_ <= 0)
    return Error(ErrorCode::kIo, "cannot listen on " + host + ":" + std::to_string(port));
  return {};
}

Status Server::start(const std::string& host, int port) {
  if (auto s = bind(host, port); !s.ok()) return s;
  thread_ = std::thread([this] { http_->listen_after_bind(); });
  // Listening before start() returns: a stop() before the loop began would be lost, and the
  // loop then run on with stop() waiting on it.
  for (int i = 0; i < 2500 && !http_->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  return {};
}

Status Server::run(const std::string& host, int port, const std::function<void()>& on_listening) {
  if (auto s = bind(host, port); !s.ok()) return s;
  if (on_listening) on_listening();
  http_->listen_after_bind();
  return {};
}

void Server::stop() {
  if (http_) http_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace airlock::apisim
