#include <algorithm>

#include <nlohmann/json.hpp>

#include <airlock/common/hash.h>
#include <airlock/common/units.h>
#include <airlock/formats/audit_record.h>

namespace airlock::audit {
namespace {

using ojson = nlohmann::ordered_json;

constexpr std::string_view kHashKey = ",\"hash\":\"";

Error broken(const std::string& where, std::size_t line, const std::string& rule) {
  return Error(audit::errors::kBroken,
               "audit log " + where + " line " + std::to_string(line) + ": " + rule);
}

template <std::size_t N>
Result<FixedBytes<N>> fixed_hex(const ojson& v) {
  if (!v.is_string()) return Error(ErrorCode::kUsage, "not a hex string");
  AIRLOCK_TRY(bytes, from_hex(v.get<std::string>(), N));
  if (bytes.size() != N) return Error(ErrorCode::kUsage, "not " + std::to_string(N) + " bytes");
  return fixed_from_view<N>(bytes);
}

// Unix seconds from 1970 to the end of 9999: every time an entry holds, so that windows and
// days computed from them cannot overflow (found by an independent review).
constexpr std::int64_t kLatestTime = 253402300799;
bool plausible_time(std::int64_t t) { return t >= 0 && t <= kLatestTime; }

constexpr std::string_view kNone = "none";
constexpr std::string_view kLost = "lost";

Result<Start> parse_start(const ojson& j) {
  if (!j.is_object() || j.size() != 3 || !j.contains("previous") || !j.contains("entries") ||
      !j.contains("complete_since") || !j["previous"].is_string() ||
      !j["entries"].is_number_unsigned() ||
      !(j["complete_since"].is_null() || j["complete_since"].is_number_integer()))
    return Error(ErrorCode::kUsage, "start is not {\"previous\", \"entries\", \"complete_since\"}");
  Start s;
  const std::string previous = j["previous"];
  if (previous == kNone) {
    s.previous = Start::Previous::kNone;
  } else if (previous == kLost) {
    s.previous = Start::Previous::kLost;
  } else {
    AIRLOCK_TRY(head, fixed_hex<32>(j["previous"]));
    s.previous = Start::Previous::kContinued;
    s.previous_head = head;
  }
  s.previous_entries = j["entries"].get<std::uint64_t>();
  if (!j["complete_since"].is_null()) {
    s.complete_since = j["complete_since"].get<std::int64_t>();
    if (!plausible_time(*s.complete_since))
      return Error(ErrorCode::kUsage, "complete_since is not a unix time from 1970 to 9999");
  }
  return s;
}

ojson start_json(const Start& s) {
  ojson j;
  switch (s.previous) {
    case Start::Previous::kNone:
      j["previous"] = kNone;
      break;
    case Start::Previous::kLost:
      j["previous"] = kLost;
      break;
    case Start::Previous::kContinued:
      j["previous"] = to_hex(s.previous_head.view());
      break;
  }
  j["entries"] = s.previous_entries;
  j["complete_since"] = s.complete_since ? ojson(*s.complete_since) : ojson(nullptr);
  return j;
}

Result<Decision> decision_named(const std::string& name) {
  for (Decision d : {Decision::kSigned, Decision::kRefused, Decision::kDeclined,
                     Decision::kReissued, Decision::kStarted, Decision::kCarried,
                     Decision::kClosing, Decision::kClosed, Decision::kApproved}) {
    if (name == decision_name(d)) return d;
  }
  return Error(ErrorCode::kUsage, "unknown decision \"" + name + "\"");
}

// `"outflows":[{"mint":B58|"unknown","amount":DIGITS|"unknown"},...]`
Result<std::vector<Outflow>> parse_outflows(const ojson& list) {
  if (!list.is_array()) return Error(ErrorCode::kUsage, "outflows is not a list");
  std::vector<Outflow> outflows;
  for (const auto& o : list) {
    if (!o.is_object() || o.size() != 2 || !o.contains("mint") || !o.contains("amount") ||
        !o["mint"].is_string() || !o["amount"].is_string())
      return Error(ErrorCode::kUsage, "an outflow is not {\"mint\", \"amount\"}");
    Outflow parsed;
    if (o["mint"] != "unknown") {
      AIRLOCK_TRY(mint, public_key_from_base58(o["mint"].get<std::string>()));
      parsed.mint = mint;
    }
    const std::string amount = o["amount"];
    if (amount != "unknown") {
      parsed.amount = parse_base_units(amount);
      if (!parsed.amount)
        return Error(ErrorCode::kUsage, "an outflow's amount is not an unsigned integer");
    }
    outflows.push_back(parsed);
  }
  return outflows;
}

// How deep an entry's JSON nests (an entry, its outflows' list, an outflow) and how long a line
// may be (a request of many steps is a few kilobytes): checked before the line is parsed, so a
// crafted line cannot make the parser build a structure of gigabytes (found by an independent
// review: 65 MiB of "[" took 7 GB).
constexpr int kMaxDepth = 3;
constexpr std::size_t kMaxCodes = 256;
constexpr std::size_t kMaxCodeBytes = 64;
constexpr std::size_t kMaxLineBytes = 1 << 20;

Status check_shape(std::string_view line) {
  if (line.size() > kMaxLineBytes)
    return Error(ErrorCode::kUsage, "is longer than " + std::to_string(kMaxLineBytes) + " bytes");
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth) return Error(ErrorCode::kUsage, "nests deeper than an entry does");
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return {};
}

// An entry's fields are exactly its own, of the types they have.
Status check_fields(const ojson& j) {
  static const char* const kKeys[] = {"seq",      "time",     "prev",       "request_id",
                                      "decision", "action",   "manager",    "vault",
                                      "codes",    "messages", "signatures", "hash"};
  // "outflows" came later: an entry has it or (written before) not; "start" only a started
  // one; "successor" and "successor_file" only a closed one.
  std::size_t optional = 0;
  for (const char* k :
       {"outflows", "start", "successor", "successor_file", "approved", "under_approval"})
    if (j.contains(k)) ++optional;
  if (j.size() != std::size(kKeys) + optional)
    return Error(ErrorCode::kUsage, "has other fields than an entry's");
  for (const char* k : kKeys) {
    if (!j.contains(k)) return Error(ErrorCode::kUsage, std::string("lacks \"") + k + "\"");
  }
  if (!j["seq"].is_number_unsigned() || !j["time"].is_number_integer() ||
      !j["action"].is_string() || !j["codes"].is_array() || !j["messages"].is_array() ||
      !j["signatures"].is_array() || !j["decision"].is_string()) {
    return Error(ErrorCode::kUsage, "a field has the wrong type");
  }
  return {};
}

// The entry's codes, message hashes and signatures. Bounded as the offline half writes them
// (one code per finding, a step's message and signature per step), so a crafted line of a
// million empty codes is refused, not held.
Status read_lists(const ojson& j, Entry& e) {
  if (j["codes"].size() > kMaxCodes || j["messages"].size() > envelope::kMaxSteps ||
      j["signatures"].size() > envelope::kMaxSteps ||
      (j.contains("outflows") && j["outflows"].size() > kMaxCodes))
    return Error(ErrorCode::kUsage,
                 "holds more codes, messages, signatures or outflows than an "
                 "entry does");
  for (const auto& c : j["codes"]) {
    if (!c.is_string() || c.get_ref<const std::string&>().empty() ||
        c.get_ref<const std::string&>().size() > kMaxCodeBytes)
      return Error(ErrorCode::kUsage, "a code is not a string of 1 to 64 bytes");
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
  return {};
}

// The fields only some entries have: outflows, how a log started, and what continues it.
Status read_optional(const ojson& j, Entry& e) {
  if (j.contains("outflows")) {
    AIRLOCK_TRY(outflows, parse_outflows(j["outflows"]));
    e.outflows = std::move(outflows);
  } else {
    e.outflows.reset();
  }
  if (j.contains("start")) {
    AIRLOCK_TRY(start, parse_start(j["start"]));
    e.start = start;
  }
  if (j.contains("successor")) {
    AIRLOCK_TRY(successor, fixed_hex<32>(j["successor"]));
    e.successor = successor;
  }
  if (j.contains("successor_file")) {
    if (!j["successor_file"].is_string())
      return Error(ErrorCode::kUsage, "successor_file is not a string");
    e.successor_file = j["successor_file"].get<std::string>();
  }
  if (j.contains("approved")) {
    const ojson& a = j["approved"];
    if (!a.is_object() || a.size() != 3 || !a.contains("intent") || !a.contains("expires") ||
        !a.contains("policy") || !a["expires"].is_number_integer())
      return Error(ErrorCode::kUsage, "approved is not {intent, expires, policy}");
    AIRLOCK_TRY(intent, fixed_hex<32>(a["intent"]));
    AIRLOCK_TRY(policy, fixed_hex<32>(a["policy"]));
    const auto expires = a["expires"].get<std::int64_t>();
    if (!plausible_time(expires))
      return Error(ErrorCode::kUsage, "approved.expires is not a unix time from 1970 to 9999");
    e.approved = Entry::Approved{intent, expires, policy};
  }
  if (j.contains("under_approval")) {
    AIRLOCK_TRY(id, fixed_hex<envelope::kRequestIdBytes>(j["under_approval"]));
    envelope::RequestId approval{};
    std::copy(id.bytes.begin(), id.bytes.end(), approval.begin());
    e.under_approval = approval;
  }
  return {};
}

Result<Entry> parse_line(std::string_view line) {
  AIRLOCK_CHECK(check_shape(line));
  const ojson j = ojson::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error(ErrorCode::kUsage, "not a JSON object");
  AIRLOCK_CHECK(check_fields(j));
  Entry e;
  e.seq = j["seq"].get<std::uint64_t>();
  e.time = j["time"].get<std::int64_t>();
  if (!plausible_time(e.time))
    return Error(ErrorCode::kUsage, "time is not a unix time from 1970 to 9999");
  AIRLOCK_TRY(prev, fixed_hex<32>(j["prev"]));
  e.prev = prev;
  AIRLOCK_TRY(id, fixed_hex<envelope::kRequestIdBytes>(j["request_id"]));
  std::copy(id.bytes.begin(), id.bytes.end(), e.request_id.begin());
  AIRLOCK_TRY(decision, decision_named(j["decision"].get<std::string>()));
  e.decision = decision;
  e.action = j["action"];
  AIRLOCK_TRY(manager, public_key_from_base58(
                           j["manager"].is_string() ? j["manager"].get<std::string>() : ""));
  e.manager = manager;
  AIRLOCK_TRY(vault,
              public_key_from_base58(j["vault"].is_string() ? j["vault"].get<std::string>() : ""));
  e.vault = vault;
  AIRLOCK_CHECK(read_lists(j, e));
  AIRLOCK_CHECK(read_optional(j, e));
  AIRLOCK_TRY(hash, fixed_hex<32>(j["hash"]));
  e.hash = hash;
  return e;
}

// Whether the entry records no request: a started or closed entry says only how a log began
// or ended.
bool records_nothing(const Entry& e) {
  return e.request_id == envelope::RequestId{} && e.action.empty() && e.manager == PublicKey{} &&
         e.vault == PublicKey{} && e.codes.empty() && e.message_hashes.empty() &&
         e.signatures.empty() && e.outflows && e.outflows->empty();
}

// A started entry's `start` as `log start` writes it: nothing before (and so every signature
// held), a lost log (held since the start), or a continued one (held at most since the start).
Status check_start(const Entry& e) {
  const Start& s = *e.start;
  switch (s.previous) {
    case Start::Previous::kNone:
      if (s.previous_entries != 0 || s.complete_since)
        return Error(ErrorCode::kUsage, "says it follows nothing but counts entries before it");
      break;
    case Start::Previous::kLost:
      if (s.previous_entries != 0 || s.complete_since != e.time)
        return Error(ErrorCode::kUsage,
                     "follows a lost log but does not hold every signature from its own time");
      break;
    case Start::Previous::kContinued:
      if (s.complete_since && *s.complete_since > e.time)
        return Error(ErrorCode::kUsage, "holds every signature only from after its own time");
      break;
  }
  return {};
}

// The rules between an entry and its place in the log: a started entry is the first and says
// nothing but how the log began; carried entries follow it, from the day before it; a closing
// entry names the log that continues this one (its head as begun, and its file) and only the
// closed entry naming the same head follows it; nothing follows a closed entry.
Status check_place(const Entry& e, const std::vector<Entry>& before) {
  const bool started = e.decision == Decision::kStarted;
  const bool closing = e.decision == Decision::kClosing;
  const bool closed = e.decision == Decision::kClosed;
  if (started != e.start.has_value())
    return Error(ErrorCode::kUsage, started ? "is a started entry without its \"start\""
                                            : "has a \"start\" but is not a started entry");
  if ((closing || closed) != e.successor.has_value())
    return Error(ErrorCode::kUsage, e.successor ? "has a \"successor\" but does not end the log"
                                                : std::string("is a ") + decision_name(e.decision) +
                                                      " entry without its \"successor\"");
  if (closing != e.successor_file.has_value())
    return Error(ErrorCode::kUsage, closing
                                        ? "is a closing entry without its \"successor_file\""
                                        : "has a \"successor_file\" but is not a closing entry");
  if (closing && !is_plain_full_path(*e.successor_file))
    return Error(ErrorCode::kUsage,
                 "is a closing entry whose successor_file is not a full path as log start "
                 "writes it (absolute, no empty, . or .. parts, printable UTF-8)");
  const bool approved = e.decision == Decision::kApproved;
  if (approved != e.approved.has_value())
    return Error(ErrorCode::kUsage, approved ? "is an approved entry without its \"approved\""
                                             : "has an \"approved\" but is not an approved entry");
  if (approved && (!e.message_hashes.empty() || (e.outflows && !e.outflows->empty())))
    return Error(ErrorCode::kUsage, "is an approved entry that records transactions");
  // A carried entry is a signed one copied whole into the log that continues it.
  if (e.under_approval && e.decision != Decision::kSigned && e.decision != Decision::kCarried)
    return Error(ErrorCode::kUsage,
                 "has an \"under_approval\" but is not a signed (or carried) entry");
  if (!e.signatures.empty() && !holds_signatures(e))
    return Error(ErrorCode::kUsage, std::string("is a ") + decision_name(e.decision) +
                                        " entry with signatures, which only a signed, reissued "
                                        "or carried entry has");
  const Entry* last = before.empty() ? nullptr : &before.back();
  if (last && last->decision == Decision::kClosed)
    return Error(ErrorCode::kUsage,
                 "follows the entry that closed this log: it was continued in another");
  if (last && last->decision == Decision::kClosing && !closed)
    return Error(ErrorCode::kUsage,
                 "follows the closing entry: only the entry that closes the log may");
  if (closed && (!last || last->decision != Decision::kClosing || last->successor != e.successor))
    return Error(ErrorCode::kUsage,
                 "is a closed entry that does not follow the closing entry naming the same log");
  // log start refuses a log with an entry later than its clock, so the log's end is its latest.
  if ((closing || closed) &&
      std::any_of(before.begin(), before.end(), [&](const Entry& b) { return b.time > e.time; }))
    return Error(ErrorCode::kUsage, std::string("is a ") + decision_name(e.decision) +
                                        " entry written before an entry it follows");
  if (started && last)
    return Error(ErrorCode::kUsage, "is a started entry, which only a log's first line can be");
  if ((started || closing || closed) && !records_nothing(e))
    return Error(ErrorCode::kUsage, std::string("is a ") + decision_name(e.decision) +
                                        " entry that records a request");
  if (started) return check_start(e);
  // The log that continues this one begins as `log start` begins it from the entries before,
  // at the closing entry's time: its head is determined, and must be the one named.
  if (closing &&
      *e.successor != head_as_begun(begun_entries(Start::Previous::kContinued, before, e.time)))
    return Error(ErrorCode::kUsage,
                 "is a closing entry naming a successor that does not begin as a continuation of "
                 "this log at its time");
  if (e.decision == Decision::kCarried) {
    if (!last || (last->decision != Decision::kStarted && last->decision != Decision::kCarried))
      return Error(ErrorCode::kUsage, "is a carried entry that does not follow the started one");
    if (before.front().start->previous != Start::Previous::kContinued)
      return Error(ErrorCode::kUsage,
                   "is a carried entry in a log that continues no other (--first or "
                   "--previous-lost carry nothing)");
    const std::int64_t start = before.front().time;
    if (e.time > start || e.time <= start - kCarriedSeconds)
      return Error(ErrorCode::kUsage,
                   "is a carried entry from outside the day before the log's start");
  }
  return {};
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
    case Decision::kStarted:
      return "started";
    case Decision::kCarried:
      return "carried";
    case Decision::kClosing:
      return "closing";
    case Decision::kClosed:
      return "closed";
    case Decision::kApproved:
      return "approved";
  }
  return "unknown";
}

Hash chain_hash(const Hash& prev, std::string_view body) {
  Bytes data(prev.bytes.begin(), prev.bytes.end());
  data.insert(data.end(), body.begin(), body.end());
  return sha256(data);
}

// The entry's text without the hash: what the chain hashes.
std::string body_text(const Entry& e) {
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
  if (e.outflows) {
    j["outflows"] = ojson::array();
    for (const auto& o : *e.outflows)
      j["outflows"].push_back({{"mint", o.mint ? to_base58(*o.mint) : std::string("unknown")},
                               {"amount", o.amount ? std::to_string(*o.amount) : "unknown"}});
  }
  if (e.start) j["start"] = start_json(*e.start);
  if (e.successor) j["successor"] = to_hex(e.successor->view());
  if (e.successor_file) j["successor_file"] = *e.successor_file;
  if (e.approved)
    j["approved"] = {{"intent", to_hex(e.approved->intent.view())},
                     {"expires", e.approved->expires},
                     {"policy", to_hex(e.approved->policy.view())}};
  if (e.under_approval)
    j["under_approval"] = to_hex(ByteView(e.under_approval->data(), e.under_approval->size()));
  return j.dump();
}

std::string line_of(const Entry& entry) {
  const std::string body = body_text(entry);
  return body.substr(0, body.size() - 1) + std::string(kHashKey) + to_hex(entry.hash.view()) +
         "\"}";
}

std::optional<std::string_view> export_lines(std::string_view text) {
  if (!text.starts_with(kExportHeader) || text.size() <= kExportHeader.size() ||
      text[kExportHeader.size()] != '\n')
    return std::nullopt;
  return text.substr(kExportHeader.size() + 1);
}

Result<std::vector<Entry>> verify_lines(std::string_view text, const std::string& path) {
  std::vector<Entry> entries;
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
    // The whole line, its hash's hex digits included (lower case), as this program writes it
    // (an upper-case hash verified before: found by the audit_export fuzz target).
    if (body != body_text(*entry) || line != line_of(*entry))
      return broken(path, number, "is not in the canonical form this program writes");
    if (auto place = check_place(*entry, entries); !place.ok())
      return broken(path, number, place.error().message());
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

bool holds_signatures(const Entry& e) noexcept {
  return e.decision == Decision::kSigned || e.decision == Decision::kReissued ||
         e.decision == Decision::kCarried;
}

bool is_plain_full_path(const std::string& p) {
  if (p.size() < 2 || p.size() > 4096 || p.front() != '/' || p.back() == '/') return false;
  if (!is_valid_utf8(text_bytes(p))) return false;
  if (std::any_of(p.begin(), p.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    return false;
  const std::string with_end = p + "/";
  return with_end.find("//") == std::string::npos && with_end.find("/./") == std::string::npos &&
         with_end.find("/../") == std::string::npos;
}

bool ends_log(const Entry& e) noexcept {
  return e.decision == Decision::kClosing || e.decision == Decision::kClosed;
}

std::optional<std::int64_t> complete_since(const std::vector<Entry>& entries, std::int64_t now) {
  if (entries.empty()) return now;
  const Entry& first = entries.front();
  if (first.start) return first.start->complete_since;
  return first.time;
}

void chain(std::vector<Entry>& entries) {
  Hash prev{};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    entries[i].seq = i + 1;
    entries[i].prev = prev;
    entries[i].hash = chain_hash(prev, body_text(entries[i]));
    prev = entries[i].hash;
  }
}

std::vector<Entry> begun_entries(Start::Previous kind, const std::vector<Entry>& previous,
                                 std::int64_t now) {
  Start start;
  start.previous = kind;
  std::vector<Entry> entries(1);
  if (kind == Start::Previous::kContinued) {
    start.previous_head = previous.empty() ? Hash{} : previous.back().hash;
    start.previous_entries = previous.size();
    start.complete_since = complete_since(previous, now);
    for (const auto& e : previous) {
      if ((e.decision == Decision::kSigned || e.decision == Decision::kCarried) && e.time <= now &&
          e.time > now - kCarriedSeconds) {
        entries.push_back(e);
        entries.back().decision = Decision::kCarried;
      }
    }
  } else if (kind == Start::Previous::kLost) {
    start.complete_since = now;
  }
  entries[0].time = now;
  entries[0].decision = Decision::kStarted;
  entries[0].start = start;
  chain(entries);
  return entries;
}

Hash head_as_begun(const std::vector<Entry>& entries) {
  Hash head{};
  for (const auto& e : entries) {
    if (e.decision != Decision::kStarted && e.decision != Decision::kCarried) break;
    head = e.hash;
  }
  return head;
}

Status check_continues(const std::vector<Entry>& before, const std::vector<Entry>& next) {
  // Verified, `before` ends [..., closing, closed] with both naming the same head, and the
  // closing entry's head is the one `log start` begins a continuation with at its time.
  if (before.size() < 2 || before.back().decision != Decision::kClosed)
    return Error(ErrorCode::kUsage, "the earlier log does not end with the entry that closed it");
  const Entry& closing = before[before.size() - 2];
  if (next.empty() || !next.front().start ||
      next.front().start->previous != Start::Previous::kContinued)
    return Error(ErrorCode::kUsage, "the later log was not started with --continue-from");
  // The head before the closing entry (zero for a log that held nothing else).
  const Hash head = before.size() > 2 ? before[before.size() - 3].hash : Hash{};
  if (next.front().start->previous_head != head)
    return Error(ErrorCode::kUsage, "the later log continues another log: its start names head " +
                                        to_hex(next.front().start->previous_head.view()));
  if (*closing.successor != head_as_begun(next))
    return Error(ErrorCode::kUsage, "the earlier log was continued by another log: it names head " +
                                        to_hex(closing.successor->view()));
  // The later log begins exactly as `log start` begins it from the earlier one at the closing
  // entry's time: nothing of its last day left out, its count and completeness as they were.
  const std::vector<Entry> earlier(before.begin(), before.end() - 2);
  if (next.front().time != closing.time ||
      head_as_begun(begun_entries(Start::Previous::kContinued, earlier, closing.time)) !=
          head_as_begun(next))
    return Error(ErrorCode::kUsage,
                 "the later log does not begin as `log start` begins a continuation of the "
                 "earlier one (its time, what it carried, its count or its completeness differ)");
  return {};
}

Result<Hash> parse_head(std::string_view text, std::string_view option) {
  const std::string rule = std::string(option) +
                           ": must be the 64 hex digits of an audit head, either case (as "
                           "`airlock-offline log export` or a sign response shows it)";
  if (text.size() != 2 * Hash::kSize)
    return Error(ErrorCode::kUsage, rule + ", got " + std::to_string(text.size()) + " characters");
  if (const auto bad = text.find_first_not_of("0123456789abcdefABCDEF");
      bad != std::string_view::npos)
    return Error(ErrorCode::kUsage,
                 rule + ", character " + std::to_string(bad + 1) + " is not a hex digit");
  AIRLOCK_TRY(bytes, from_hex(text, Hash::kSize));
  return fixed_from_view<Hash::kSize>(bytes);
}

int hex_digits_apart(const Hash& a, const Hash& b) {
  int apart = 0;
  for (std::size_t i = 0; i < Hash::kSize; ++i) {
    apart += ((a.bytes[i] ^ b.bytes[i]) & 0xf0) != 0 ? 1 : 0;
    apart += ((a.bytes[i] ^ b.bytes[i]) & 0x0f) != 0 ? 1 : 0;
  }
  return apart;
}

}  // namespace airlock::audit
