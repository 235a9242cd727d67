#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <curl/curl.h>
#include <malloc.h>
#include <sodium.h>

#include <airlock/formats/json_fields.h>
#include <airlock/online/api.h>

namespace airlock::online {
namespace {

bool key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

// libcurl's memory holds the Authorization header more than once (the header list, the request
// it writes): every block it frees or outgrows is wiped first, so the API key does not linger in
// freed heap. (Over HTTPS the TLS library's record buffers are beyond this.)
void wiping_free(void* p) {
  if (p == nullptr) return;
  sodium_memzero(p, malloc_usable_size(p));
  std::free(p);
}
void* wiping_realloc(void* p, std::size_t size) {
  if (p == nullptr) return std::malloc(size);
  if (size == 0) {
    wiping_free(p);
    return nullptr;
  }
  void* grown = std::malloc(size);
  if (grown == nullptr) return nullptr;
  std::memcpy(grown, p, std::min(size, malloc_usable_size(p)));
  wiping_free(p);
  return grown;
}
char* plain_strdup(const char* text) { return ::strdup(text); }

void curl_global() {
  static std::once_flag once;
  std::call_once(once, [] {
    curl_global_init_mem(CURL_GLOBAL_DEFAULT, std::malloc, wiping_free, wiping_realloc,
                         plain_strdup, std::calloc);
  });
}

// What a reply may hold: the largest read the spec allows (2,000 NAV points) is far below.
constexpr std::size_t kMaxReplyBytes = 8 << 20;
// An API key file: one line of at most 6 + 48 + 1 + 128 characters, with room for a comment.
constexpr std::size_t kMaxKeyFileBytes = 4096;
// How deep a reply's arrays and objects may nest: the spec's deepest are a handful of levels.
constexpr std::size_t kMaxReplyDepth = 64;

// What the reply's headers may hold altogether; libcurl refuses one header line over 100 KB.
constexpr std::size_t kMaxHeaderBytes = 64 << 10;

struct Sink {
  std::string data;
  bool over = false;  // the reply passed kMaxReplyBytes; the transfer was stopped there
  std::size_t header_bytes = 0;
  bool headers_over = false;  // the headers passed kMaxHeaderBytes
  std::optional<std::chrono::seconds> retry_after;
  std::optional<std::int64_t> date;  // the reply's Date, unix seconds
};

// Retry-After as delta-seconds (RFC 9110 10.2.3); the HTTP-date form is ignored, and the
// backoff applies instead.
std::optional<std::chrono::seconds> parse_retry_after(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
    value.remove_suffix(1);
  if (value.empty() || value.size() > 9) return std::nullopt;
  std::int64_t seconds = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    seconds = seconds * 10 + (c - '0');
  }
  return std::chrono::seconds(seconds);
}

std::size_t collect_header(char* data, std::size_t size, std::size_t count, void* out) {
  auto* sink = static_cast<Sink*>(out);
  const std::size_t n = size * count;
  sink->header_bytes += n;
  if (sink->header_bytes > kMaxHeaderBytes) {
    sink->headers_over = true;
    return 0;  // libcurl stops the transfer
  }
  const std::string_view line(data, n);
  const auto named = [&](std::string_view name) {
    if (line.size() <= name.size()) return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
    }
    return true;
  };
  constexpr std::string_view kRetryAfter = "retry-after:";
  constexpr std::string_view kDate = "date:";
  if (named(kRetryAfter)) sink->retry_after = parse_retry_after(line.substr(kRetryAfter.size()));
  if (named(kDate) && line.size() - kDate.size() < 64) {
    // An IMF-fixdate (RFC 9110 5.6.7), parsed by libcurl; -1 when it is none.
    const std::string value(line.substr(kDate.size()));
    const time_t at = curl_getdate(value.c_str(), nullptr);
    if (at > 0) sink->date = static_cast<std::int64_t>(at);
  }
  return n;
}

std::size_t collect(char* data, std::size_t size, std::size_t count, void* out) {
  auto* sink = static_cast<Sink*>(out);
  if (sink->data.size() + size * count > kMaxReplyBytes) {
    sink->over = true;
    return 0;  // libcurl stops the transfer
  }
  sink->data.append(data, size * count);
  return size * count;
}

// Parses a reply's JSON, refusing one nested deeper than the spec's shapes need.
json parse_reply(const std::string& text) {
  if (!json_fields::depth_at_most(text, kMaxReplyDepth)) return json(json::value_t::discarded);
  return json::parse(text, nullptr, false);
}

struct Exchanged {
  int status = 0;
  std::string body;
  std::optional<std::chrono::seconds> retry_after;
  std::optional<std::int64_t> date;
};

// One HTTP exchange. The key header, when given, is passed to libcurl and nowhere else.
Result<Exchanged> exchange(const char* method, const std::string& url,
                           const std::vector<std::string>& headers, const std::string* body,
                           std::chrono::milliseconds timeout,
                           const SecretBytes* authorization = nullptr) {
  AIRLOCK_CHECK(check_transport(url));
  if (url.size() > kMaxUrlChars)
    return Error(ErrorCode::kUsage, "request URL is longer than 4096 characters");
  curl_global();
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return Error(online::errors::kHttp, "cannot start an HTTP request");
  curl_slist* list = nullptr;
  if (authorization != nullptr)
    list = curl_slist_append(list, reinterpret_cast<const char*>(authorization->bytes().data()));
  for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
  Sink reply;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, collect_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &reply);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);  // a redirect could leave the checked host
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  // Plain HTTP goes only to this machine (check_transport), never through a proxy from the
  // environment (http_proxy, ALL_PROXY), which would see the key in clear. HTTPS may use one:
  // it sees only the CONNECT.
  if (url.rfind("http://", 0) == 0) curl_easy_setopt(curl, CURLOPT_PROXY, "");
  if (body != nullptr) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body->data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body->size()));
  }
  const CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(list);  // holds the Authorization header; freed at once
  curl_easy_cleanup(curl);
  if (reply.over) {
    return Error(online::errors::kHttp, std::string(method) + " " + url.substr(0, url.find('?')) +
                                            ": the reply is larger than " +
                                            std::to_string(kMaxReplyBytes >> 20) +
                                            " MiB; stopped reading it there");
  }
  const std::string where = std::string(method) + " " + url.substr(0, url.find('?')) + ": ";
  if (reply.headers_over || (rc == CURLE_OUT_OF_MEMORY && reply.data.empty())) {
    // libcurl reports a header line over its own limit as "Out of memory".
    return Error(online::errors::kHttp, where + "the reply's headers are larger than " +
                                            std::to_string(kMaxHeaderBytes >> 10) +
                                            " KiB; stopped reading them there");
  }
  if (rc != CURLE_OK) return Error(online::errors::kHttp, where + curl_easy_strerror(rc));
  return Exchanged{static_cast<int>(status), std::move(reply.data), reply.retry_after, reply.date};
}

}  // namespace

Result<ApiKey> ApiKey::parse(SecretText key) {
  const std::string_view text = key.view();
  const auto bad = [](const std::string& rule) {
    return Error(online::errors::kApiKeyInvalid, "API key: " + rule);
  };
  if (text.substr(0, 4) != "hv1_") return bad("must start with hv1_");
  const std::string_view rest = text.substr(4);
  const std::size_t sep = rest.find('_');
  if (sep == std::string_view::npos) return bad("must be hv1_<id>_<secret>");
  // The id cannot contain '_' unambiguously only if the secret is the remainder: the spec lets
  // both use '_', so the id is everything up to the first '_' after hv1_.
  const std::string_view id = rest.substr(0, sep), secret = rest.substr(sep + 1);
  if (id.empty() || id.size() > 48) return bad("the id must be 1 to 48 characters");
  if (secret.size() < 32 || secret.size() > 128)
    return bad("the secret must be 32 to 128 characters");
  for (char c : rest) {
    if (!key_char(c)) return bad("only A-Z, a-z, 0-9, '-' and '_' are allowed");
  }
  AIRLOCK_TRY(secret_bytes, SecretBytes::copy_of(text));
  return ApiKey(std::move(secret_bytes), std::string(id));
}

Result<ApiKey> ApiKey::load(const std::optional<std::string>& file) {
  // The file is read straight into secure memory; the environment's copy is the process's own.
  std::optional<SecretBytes> content;
  SecretText text;
  if (file) {
    auto read = read_secret_file(*file, kMaxKeyFileBytes);
    if (!read.ok())
      return Error(read.error().code(),
                   "the API key file (--api-key-file): " + read.error().message());
    content = std::move(read).value();
    text = SecretText(*content);
    text = text.substr(0, text.view().find('\n'));  // one line
  } else {
    const char* env = std::getenv("AIRLOCK_API_KEY");
    if (env == nullptr)
      return Error(online::errors::kApiKeyInvalid,
                   "no API key: set AIRLOCK_API_KEY or give --api-key-file");
    // The environment is the process's own ordinary memory; the key is copied out of it into
    // secure memory like a file's.
    AIRLOCK_TRY(copy, SecretBytes::copy_of(std::string_view(env)));
    content = std::move(copy);
    text = SecretText(*content);
  }
  const auto first = text.view().find_first_not_of(" \t\r\n");
  const auto last = text.view().find_last_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    return Error(online::errors::kApiKeyInvalid,
                 file ? "the API key file holds no key on its first line"
                      : "AIRLOCK_API_KEY is set but empty: set it to the key, or give "
                        "--api-key-file");
  }
  return parse(text.substr(first, last - first + 1));
}

Result<SecretBytes> ApiKey::header() const {
  constexpr std::string_view kPrefix = "Authorization: Bearer ";
  AIRLOCK_TRY(line, SecretBytes::allocate(kPrefix.size() + key_.size() + 1));  // NUL-terminated
  std::memcpy(line.bytes().data(), kPrefix.data(), kPrefix.size());
  std::memcpy(line.bytes().data() + kPrefix.size(), key_.bytes().data(), key_.size());
  return line;
}

Error api_error(const std::string& what, const Reply& reply) {
  return Error(online::errors::kApi, what + ": HTTP " + std::to_string(reply.failure->status) +
                                         " " + reply.failure->code + ": " + reply.failure->message);
}

Status check_transport(const std::string& url) {
  // Parsed by libcurl itself, so the host checked is the host libcurl will connect to.
  curl_global();
  CURLU* parsed = curl_url();
  if (parsed == nullptr) return Error(online::errors::kHttp, "cannot parse URLs");
  const auto part = [&](CURLUPart which) -> std::optional<std::string> {
    char* text = nullptr;
    if (curl_url_get(parsed, which, &text, 0) != CURLUE_OK || text == nullptr) return std::nullopt;
    std::string out(text);
    curl_free(text);
    return out;
  };
  const CURLUcode rc = curl_url_set(parsed, CURLUPART_URL, url.c_str(), 0);
  const auto scheme = rc == CURLUE_OK ? part(CURLUPART_SCHEME) : std::nullopt;
  const auto host = rc == CURLUE_OK ? part(CURLUPART_HOST) : std::nullopt;
  const bool user_info = rc == CURLUE_OK && (part(CURLUPART_USER) || part(CURLUPART_PASSWORD) ||
                                             part(CURLUPART_OPTIONS));
  curl_url_cleanup(parsed);
  if (rc != CURLUE_OK || !scheme || !host)
    return Error(ErrorCode::kUsage, "the URL is not a valid absolute URL");
  // A user name or password in the URL would let text before '@' pose as the host.
  if (user_info)
    return Error(ErrorCode::kUsage, "the URL must not carry a user name or password (before '@')");
  if (*scheme == "https") return {};
  if (*scheme == "http") {
    if (*host == "127.0.0.1" || *host == "localhost" || *host == "[::1]") return {};
    return Error(ErrorCode::kUsage, "refusing plain HTTP to " + *host +
                                        ": use https:// (plain http only to this machine)");
  }
  return Error(ErrorCode::kUsage, "the URL must start with https:// (or http:// to this machine)");
}

std::string api_identity(const std::string& url) {
  curl_global();
  CURLU* parsed = curl_url();
  if (parsed == nullptr) return url;
  const auto part = [&](CURLUPart which, unsigned flags) -> std::string {
    char* text = nullptr;
    if (curl_url_get(parsed, which, &text, flags) != CURLUE_OK || text == nullptr) return {};
    std::string out(text);
    curl_free(text);
    return out;
  };
  std::string identity = url;
  if (curl_url_set(parsed, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
    const auto lower = [](std::string t) {
      for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return t;
    };
    // This machine however it is named: "localhost", 127.0.0.1 (any 127.x address), ::1.
    std::string host = lower(part(CURLUPART_HOST, 0));
    if (host == "localhost" || host.rfind("127.", 0) == 0 || host == "[::1]") host = "loopback";
    std::string path = part(CURLUPART_PATH, 0);
    while (!path.empty() && path.back() == '/') path.pop_back();
    const std::string query = part(CURLUPART_QUERY, 0);
    identity = lower(part(CURLUPART_SCHEME, 0)) + "://" + host + ":" +
               part(CURLUPART_PORT, CURLU_DEFAULT_PORT) + path + (query.empty() ? "" : "?" + query);
  }
  curl_url_cleanup(parsed);
  return identity;
}

Result<ApiClient> ApiClient::create(std::string base_url, ApiKey key, ClientOptions options) {
  while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();
  AIRLOCK_CHECK(check_transport(base_url));
  if (!options.sleep)
    options.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  if (!options.now) options.now = [] { return RateLimiter::Clock::now(); };
  std::optional<PacingFile> shared;
  if (options.pace && !options.pace_file.empty()) {
    AIRLOCK_TRY(file, PacingFile::open(options.pace_file));
    shared.emplace(std::move(file));
  }
  return ApiClient(std::move(base_url), std::move(key), std::move(options), std::move(shared));
}

Result<Reply> ApiClient::once(const char* method, const std::string& path,
                              const std::string* body) {
  if (body != nullptr && body->size() > kMaxBodyBytes) {
    return Error(ErrorCode::kUsage, "request body is " + std::to_string(body->size()) +
                                        " bytes; the API accepts at most 16384");
  }
  if (options_.pace) {
    const RequestClass kind = classify(method, path);
    AIRLOCK_CHECK(shared_ ? shared_->acquire(kind, options_.now, options_.sleep)
                          : limiter_->acquire(kind, options_.now, options_.sleep));
  }
  AIRLOCK_TRY(authorization, key_.header());
  std::vector<std::string> headers = {"Accept: application/json"};
  if (body != nullptr) headers.emplace_back("Content-Type: application/json");
  auto answer = exchange(method, base_url_ + path, headers, body, options_.timeout, &authorization);
  if (!answer.ok()) return answer.error();
  Reply r;
  r.status = answer->status;
  r.retry_after = answer->retry_after;
  r.date = answer->date;
  r.body = parse_reply(answer->body);
  const bool ok = r.status >= 200 && r.status < 300;
  if (ok && r.body.is_discarded()) {
    return Error(online::errors::kHttp, std::string(method) + " " + path +
                                            ": the reply is not JSON nested at most " +
                                            std::to_string(kMaxReplyDepth) + " deep");
  }
  if (!ok) {
    ApiFailure f{r.status, "", ""};
    const json* envelope =
        r.body.is_object() && r.body.contains("error") ? &r.body["error"] : nullptr;
    if (envelope != nullptr && envelope->is_object() && envelope->contains("code") &&
        (*envelope)["code"].is_string() && !(*envelope)["code"].get<std::string>().empty() &&
        envelope->contains("message") && (*envelope)["message"].is_string()) {
      f.code = (*envelope)["code"].get<std::string>();
      f.message = (*envelope)["message"].get<std::string>();
    } else if (envelope != nullptr) {
      f.code = "HTTP" + std::to_string(r.status);
      f.message = "an error envelope that is not {code: non-empty string, message: string}";
    } else {
      f.code = "HTTP" + std::to_string(r.status);  // e.g. an edge proxy's non-JSON 413 or 429
      f.message = "a reply without the API's error envelope";
    }
    r.failure = std::move(f);
  }
  return r;
}

Result<Reply> ApiClient::with_retries(const char* method, const std::string& path,
                                      const std::string* body, std::chrono::milliseconds floor) {
  std::chrono::milliseconds delay = options_.first_delay;
  for (int attempt = 1;; ++attempt) {
    AIRLOCK_TRY(reply, once(method, path, body));
    const bool retryable = reply.failure && (reply.status == 429 || reply.status == 503);
    if (!retryable || attempt >= options_.max_attempts) return reply;
    // Growing delay with jitter, so many clients do not retry in step; never sooner than the
    // service's Retry-After, and no wait longer than kMaxRetryAfter (the reply is returned).
    const auto jitter = std::chrono::milliseconds(
        randombytes_uniform(static_cast<std::uint32_t>(delay.count() / 2 + 1)));
    auto wait = std::max(delay + jitter, floor);
    if (reply.retry_after) {
      if (*reply.retry_after > kMaxRetryAfter) return reply;
      wait = std::max<std::chrono::milliseconds>(wait, *reply.retry_after);
    }
    options_.sleep(wait);
    delay *= 2;
  }
}

Result<Reply> ApiClient::get(const std::string& path) { return with_retries("GET", path, nullptr); }

Result<Reply> ApiClient::build(const std::string& action, const json& body) {
  if (body.contains("payer"))
    return Error(ErrorCode::kUsage, "body.payer: the API refuses a payer in a builder body");
  const std::string text = body.dump();
  return with_retries("POST", "/transactions/" + action, &text);
}

Result<Reply> ApiClient::send(const std::string& transaction_base64, const std::string& ticket,
                              bool perp_onboard_submit) {
  const std::string text = json{{"transaction", transaction_base64}, {"ticket", ticket}}.dump();
  return once("POST",
              perp_onboard_submit ? "/transactions/perp/onboard/submit" : "/transactions/send",
              &text);
}

Result<Reply> ApiClient::status(const std::string& receipt) {
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return Error(online::errors::kHttp, "cannot start an HTTP request");
  char* escaped = curl_easy_escape(curl, receipt.data(), static_cast<int>(receipt.size()));
  const std::string query = escaped ? escaped : "";
  curl_free(escaped);
  curl_easy_cleanup(curl);
  return with_retries("GET", "/transactions/status?receipt=" + query, nullptr, kStatusPollGap);
}

Result<json> rpc_call(const std::string& rpc_url, const std::string& method, const json& params,
                      std::chrono::milliseconds timeout) {
  const std::string body =
      json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}.dump();
  AIRLOCK_TRY(answer,
              exchange("POST", rpc_url, {"Content-Type: application/json"}, &body, timeout));
  const json reply = parse_reply(answer.body);
  if (answer.status != 200 || !reply.is_object()) {
    return Error(online::errors::kHttp,
                 "RPC " + method + ": HTTP " + std::to_string(answer.status));
  }
  if (reply.contains("error"))
    return Error(online::errors::kHttp,
                 "RPC " + method + ": " + reply["error"].dump(-1, ' ', true));
  if (!reply.contains("result"))
    return Error(online::errors::kHttp, "RPC " + method + ": no result");
  return reply["result"];
}

}  // namespace airlock::online
