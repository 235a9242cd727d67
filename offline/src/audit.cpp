#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <airlock/common/hash.h>
#include <airlock/offline/audit.h>

namespace airlock::offline {
namespace {

using ojson = nlohmann::ordered_json;

// A log of a few hundred bytes per decision; 64 MiB is decades of use and bounds a read.
constexpr std::size_t kMaxLogBytes = 64u << 20;
constexpr std::string_view kHashKey = ",\"hash\":\"";

Error io(const std::string& path, const std::string& what) {
  return Error(ErrorCode::kIo, "audit log " + path + ": " + what + ": " + std::strerror(errno));
}

Error broken(const std::string& path, std::size_t line, const std::string& rule) {
  return Error(ErrorCode::kAuditLogBroken, "audit log " + path + " line " + std::to_string(line) +
                                               ": " + rule +
                                               "; nothing is signed while the log does not verify");
}

Hash chain_hash(const Hash& prev, std::string_view body) {
  Bytes data(prev.bytes.begin(), prev.bytes.end());
  data.insert(data.end(), body.begin(), body.end());
  return sha256(data);
}

// The entry's text without the hash: what the chain hashes.
std::string body_text(const AuditEntry& e) {
  ojson j;
  j["seq"] = e.seq;
  j["time"] = e.time;
  j["prev"] = to_hex(e.prev.view());
  j["request_id"] = to_hex(ByteView(e.request_id.data(), e.request_id.size()));
  j["decision"] = decision_name(e.decision);
  j["action"] = e.action;
  j["manager"] = to_base58(e.manager);
  j["vault"] = to_base58(e.vault);
  j["codes"] = e.codes;
  j["messages"] = ojson::array();
  for (const auto& h : e.message_hashes) j["messages"].push_back(to_hex(h.view()));
  j["signatures"] = ojson::array();
  for (const auto& s : e.signatures) j["signatures"].push_back(to_base58(s));
  return j.dump();
}

template <std::size_t N>
Result<FixedBytes<N>> fixed_hex(const ojson& v) {
  if (!v.is_string()) return Error(ErrorCode::kUsage, "not a hex string");
  AIRLOCK_TRY(bytes, from_hex(v.get<std::string>(), N));
  if (bytes.size() != N) return Error(ErrorCode::kUsage, "not " + std::to_string(N) + " bytes");
  return fixed_from_view<N>(bytes);
}

Result<AuditEntry> parse_line(std::string_view line) {
  const ojson j = ojson::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error(ErrorCode::kUsage, "not a JSON object");
  static const char* const kKeys[] = {"seq",      "time",     "prev",       "request_id",
                                      "decision", "action",   "manager",    "vault",
                                      "codes",    "messages", "signatures", "hash"};
  if (j.size() != std::size(kKeys))
    return Error(ErrorCode::kUsage, "has other fields than an entry's");
  for (const char* k : kKeys) {
    if (!j.contains(k)) return Error(ErrorCode::kUsage, std::string("lacks \"") + k + "\"");
  }
  AuditEntry e;
  if (!j["seq"].is_number_unsigned() || !j["time"].is_number_integer() ||
      !j["action"].is_string() || !j["codes"].is_array() || !j["messages"].is_array() ||
      !j["signatures"].is_array() || !j["decision"].is_string()) {
    return Error(ErrorCode::kUsage, "a field has the wrong type");
  }
  e.seq = j["seq"].get<std::uint64_t>();
  e.time = j["time"].get<std::int64_t>();
  AIRLOCK_TRY(prev, fixed_hex<32>(j["prev"]));
  e.prev = prev;
  AIRLOCK_TRY(id, fixed_hex<envelope::kRequestIdBytes>(j["request_id"]));
  std::copy(id.bytes.begin(), id.bytes.end(), e.request_id.begin());
  const std::string decision = j["decision"];
  bool known = false;
  for (Decision d :
       {Decision::kSigned, Decision::kRefused, Decision::kDeclined, Decision::kReissued}) {
    if (decision == decision_name(d)) {
      e.decision = d;
      known = true;
    }
  }
  if (!known) return Error(ErrorCode::kUsage, "unknown decision \"" + decision + "\"");
  e.action = j["action"];
  AIRLOCK_TRY(manager, public_key_from_base58(
                           j["manager"].is_string() ? j["manager"].get<std::string>() : ""));
  e.manager = manager;
  AIRLOCK_TRY(vault,
              public_key_from_base58(j["vault"].is_string() ? j["vault"].get<std::string>() : ""));
  e.vault = vault;
  for (const auto& c : j["codes"]) {
    if (!c.is_string()) return Error(ErrorCode::kUsage, "a code is not a string");
    e.codes.push_back(c);
  }
  for (const auto& m : j["messages"]) {
    AIRLOCK_TRY(h, fixed_hex<32>(m));
    e.message_hashes.push_back(h);
  }
  for (const auto& s : j["signatures"]) {
    if (!s.is_string()) return Error(ErrorCode::kUsage, "a signature is not a string");
    AIRLOCK_TRY(sig, fixed_from_base58<64>(s.get<std::string>()));
    e.signatures.push_back(sig);
  }
  AIRLOCK_TRY(hash, fixed_hex<32>(j["hash"]));
  e.hash = hash;
  return e;
}

// Parses and checks every line of a log's text.
Result<std::vector<AuditEntry>> verify_text(std::string_view text, const std::string& path) {
  std::vector<AuditEntry> entries;
  Hash prev{};
  std::size_t number = 0;
  while (!text.empty()) {
    ++number;
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos)
      return broken(
          path, number,
          "is incomplete (no line end): a write was cut short before its decision took effect; "
          "remove that partial line");
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end + 1);
    auto entry = parse_line(line);
    if (!entry.ok()) return broken(path, number, entry.error().message());
    const std::size_t at = line.rfind(kHashKey);
    if (at == std::string_view::npos) return broken(path, number, "has no hash at its end");
    const std::string body = std::string(line.substr(0, at)) + "}";
    if (body != body_text(*entry))
      return broken(path, number, "is not in the canonical form this program writes");
    if (entry->seq != number)
      return broken(path, number,
                    "has seq " + std::to_string(entry->seq) + ": an entry is missing or moved");
    if (entry->prev != prev)
      return broken(path, number, "does not follow the line before it: the chain is broken");
    if (chain_hash(prev, body) != entry->hash)
      return broken(path, number, "does not match its hash: the entry was altered");
    prev = entry->hash;
    entries.push_back(std::move(entry).value());
  }
  return entries;
}

Result<std::string> read_all(int fd, const std::string& path) {
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io(path, "cannot read");
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxLogBytes)
      return Error(ErrorCode::kIo,
                   "audit log " + path + " is larger than 64 MiB; archive it and start a new one");
  }
  return text;
}

}  // namespace

const char* decision_name(Decision d) noexcept {
  switch (d) {
    case Decision::kSigned:
      return "signed";
    case Decision::kRefused:
      return "refused";
    case Decision::kDeclined:
      return "declined";
    case Decision::kReissued:
      return "reissued";
  }
  return "unknown";
}

Result<AuditLog> AuditLog::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return io(path, "cannot open");
  AuditLog log(fd, path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    return Error(ErrorCode::kIo, "audit log " + path + " is in use by another airlock-offline");
  }
  AIRLOCK_TRY(text, read_all(fd, path));
  AIRLOCK_TRY(entries, verify_text(text, path));
  log.entries_ = std::move(entries);
  if (!log.entries_.empty()) log.head_ = log.entries_.back().hash;
  return log;
}

AuditLog::AuditLog(AuditLog&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      head_(other.head_),
      entries_(std::move(other.entries_)) {}

AuditLog& AuditLog::operator=(AuditLog&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    head_ = other.head_;
    entries_ = std::move(other.entries_);
  }
  return *this;
}

AuditLog::~AuditLog() {
  if (fd_ >= 0) ::close(fd_);  // also releases the lock
}

const AuditEntry* AuditLog::signed_entry(const envelope::RequestId& id) const {
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->request_id == id &&
        (it->decision == Decision::kSigned || it->decision == Decision::kReissued))
      return &*it;
  }
  return nullptr;
}

Result<Hash> AuditLog::append(AuditEntry entry) {
  entry.seq = entries_.size() + 1;
  entry.prev = head_;
  const std::string body = body_text(entry);
  entry.hash = chain_hash(entry.prev, body);
  const std::string line =
      body.substr(0, body.size() - 1) + std::string(kHashKey) + to_hex(entry.hash.view()) + "\"}\n";
  struct stat before {};
  if (::fstat(fd_, &before) != 0) return io(path_, "cannot stat");
  // On any failure the file is cut back to where it was, so no torn line stays behind.
  const auto undo = [&](const char* what) {
    Error e = io(path_, what);
    if (::ftruncate(fd_, before.st_size) == 0) (void)::fsync(fd_);
    return e;
  };
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return undo("cannot append");
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd_) != 0) return undo("cannot flush to disk");
  head_ = entry.hash;
  entries_.push_back(std::move(entry));
  return head_;
}

Result<std::vector<AuditEntry>> verify_audit_log(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io(path, "cannot open");
  auto text = read_all(fd, path);
  ::close(fd);
  if (!text.ok()) return text.error();
  return verify_text(*text, path);
}

}  // namespace airlock::offline
