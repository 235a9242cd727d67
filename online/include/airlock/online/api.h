// The Manager Bot API client (../shared/manager-bot-api.md) over libcurl: the API key, the
// transport rules (HTTPS, or plain HTTP only to this machine), the error envelope as a typed
// error, and the retry rules of part 7 for reads and builds.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <airlock/common/error.h>
#include <airlock/common/secret.h>
#include <airlock/online/rate_limit.h>

namespace airlock::online {

// This module's error codes (their kinds and the exit codes: common/error.h).
namespace errors {
// Not hv1_<id>_<secret>, or unreadable.
inline constexpr ErrorCode kApiKeyInvalid{ErrorKind::kInvalidInput, "api.key_invalid"};
// The request could not be made, or the reply broke the protocol.
inline constexpr ErrorCode kHttp{ErrorKind::kInvalidInput, "api.http"};
// The service answered with its error envelope.
inline constexpr ErrorCode kApi{ErrorKind::kRefused, "api.error"};
}  // namespace errors

using json = nlohmann::json;

// `hv1_<id>_<secret>`: id 1-48 and secret 32-128 characters of [A-Za-z0-9_-] (spec 2.1). Held in
// secret memory; only the id is ever printed.
class ApiKey {
 public:
  [[nodiscard]] static Result<ApiKey> parse(SecretText text);
  // From the file when given, else from the environment variable AIRLOCK_API_KEY. One line;
  // surrounding whitespace is ignored.
  [[nodiscard]] static Result<ApiKey> load(const std::optional<std::string>& file);

  [[nodiscard]] const std::string& id() const noexcept { return id_; }
  // "Authorization: Bearer hv1_...", NUL-terminated, in secure memory, for the request only.
  [[nodiscard]] Result<SecretBytes> header() const;

 private:
  ApiKey(SecretBytes key, std::string id) : key_(std::move(key)), id_(std::move(id)) {}
  SecretBytes key_;
  std::string id_;
};

// The error envelope of a non-2xx answer.
struct ApiFailure {
  int status = 0;
  std::string code;     // e.g. "InvalidTicket"
  std::string message;  // for people
};

struct Reply {
  int status = 0;
  json body;
  std::optional<ApiFailure> failure;                // set for every status outside 200-299
  std::optional<std::chrono::seconds> retry_after;  // the reply's Retry-After, in seconds
  // The reply's Date header (unix seconds), when it has a valid one: the API's clock, a second
  // opinion on this machine's (a build's time is taken as the later of the two, chain.h).
  std::optional<std::int64_t> date;
};

// An error reply as an error naming the request: "WHAT: HTTP 404 NotFound: message".
[[nodiscard]] Error api_error(const std::string& what, const Reply& reply);

// The longest Retry-After waited for; a longer one ends the retries with the reply.
inline constexpr std::chrono::seconds kMaxRetryAfter{60};

// Spec 4.14: poll a receipt every 2 seconds or slower. The status call's own retries (on 429 and
// 503) wait at least this long too, so no retry underneath polls faster than the spec allows.
inline constexpr std::chrono::seconds kStatusPollGap{2};

struct ClientOptions {
  std::chrono::milliseconds timeout{20'000};
  int max_attempts = 5;  // reads and builds on 429/503
  std::chrono::milliseconds first_delay{500};
  // Sleeps between retries and while pacing (replaceable in tests).
  std::function<void(std::chrono::milliseconds)> sleep;
  // Keep within the spec's request limits by waiting before a request would exceed one
  // (rate_limit.h). Off only to show, in tests, what the service does to a client without it.
  bool pace = true;
  std::function<RateLimiter::Clock::time_point()> now;  // the pacing clock (tests replace it)
  // When set, pacing goes through this file, shared with every other process using it
  // (PacingFile), instead of this process's memory alone.
  std::string pace_file;
};

class ApiClient {
 public:
  // `base_url` ends with /api/external/v1. Refuses plain HTTP except to 127.0.0.1, ::1 or
  // localhost.
  [[nodiscard]] static Result<ApiClient> create(std::string base_url, ApiKey key,
                                                ClientOptions options = {});

  // A read: GET with the query already encoded into `path`. Retried on 429 and 503.
  [[nodiscard]] Result<Reply> get(const std::string& path);
  // A build: POST /transactions/{action}. Retried on 429 and 503 (a build changes nothing).
  [[nodiscard]] Result<Reply> build(const std::string& action, const json& body);
  // Send or perp onboarding submit: never retried here (an unanswered send may have landed).
  [[nodiscard]] Result<Reply> send(const std::string& transaction_base64, const std::string& ticket,
                                   bool perp_onboard_submit);
  // GET /transactions/status for a receipt; retried on 429 and 503, never sooner than
  // kStatusPollGap after the attempt before.
  [[nodiscard]] Result<Reply> status(const std::string& receipt);

  [[nodiscard]] const std::string& base_url() const noexcept { return base_url_; }

 private:
  ApiClient(std::string base_url, ApiKey key, ClientOptions options,
            std::optional<PacingFile> shared)
      : base_url_(std::move(base_url)),
        key_(std::move(key)),
        options_(std::move(options)),
        limiter_(std::make_unique<RateLimiter>()),
        shared_(std::move(shared)) {}
  Result<Reply> once(const char* method, const std::string& path, const std::string* body);
  // `floor`: the least wait between two attempts, whatever the backoff says.
  Result<Reply> with_retries(const char* method, const std::string& path, const std::string* body,
                             std::chrono::milliseconds floor = std::chrono::milliseconds(0));

  std::string base_url_;
  ApiKey key_;
  ClientOptions options_;
  std::unique_ptr<RateLimiter> limiter_;
  std::optional<PacingFile> shared_;
};

// Checks a URL for the transport rule: https://, or http:// to this machine only.
[[nodiscard]] Status check_transport(const std::string& url);

// An API's base URL as one text for every spelling of it (the scheme and host in lower case,
// this machine's names as one, the port always, no trailing slash): what the journals' in-flight
// lists and the act lock compare, so "HTTPS://Host:443/x/" and "https://host/x" are one API, and
// "http://localhost:8080" and "http://127.0.0.1:8080" another. A URL libcurl cannot parse is
// itself. Two names of one remote host are two texts: the vault and intent guards cover them.
[[nodiscard]] std::string api_identity(const std::string& url);

// A JSON-RPC call to a Solana RPC node (for lookup tables). Same transport rule.
[[nodiscard]] Result<json> rpc_call(const std::string& rpc_url, const std::string& method,
                                    const json& params,
                                    std::chrono::milliseconds timeout = std::chrono::seconds(20));

// The spec's request limits, checked before anything is sent.
inline constexpr std::size_t kMaxBodyBytes = 16384;
inline constexpr std::size_t kMaxUrlChars = 4096;

}  // namespace airlock::online
