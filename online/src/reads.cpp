#include <algorithm>
#include <cctype>
#include <ctime>
#include <sstream>

#include <airlock/common/bytes.h>
#include <airlock/common/display.h>
#include <airlock/common/units.h>
#include <airlock/formats/action_fields.h>
#include <airlock/formats/json_fields.h>
#include <airlock/online/api.h>
#include <airlock/online/reads.h>

namespace airlock::online {
namespace {

using json = nlohmann::json;

Error usage(const std::string& field, const std::string& rule) {
  return Error(ErrorCode::kUsage, field + ": " + rule);
}

// A required argument checked by the same rules as the builder fields (fields.h).
Status check_arg(const std::string& name, FieldType type, const std::optional<std::string>& value) {
  if (!value) return usage(name, "is required");
  return check_field(Field{name, type, "", 0, 0, {}, {}}, *value, name);
}

Status check_key(const std::string& name, const std::optional<std::string>& value) {
  return check_arg(name, FieldType::kPublicKey, value);
}

std::string encode(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

std::string with_query(std::string path,
                       const std::vector<std::pair<std::string, std::string>>& q) {
  char sep = '?';
  for (const auto& [k, v] : q) {
    path += sep + encode(k) + "=" + encode(v);
    sep = '&';
  }
  return path;
}

// ---- text ----

std::string scalar(const json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_array()) return std::to_string(v.size()) + " item(s)";
  // A TokenInfo (or anything with a symbol) by its symbol; other objects by their size.
  if (v.is_object() && v.contains("symbol") && v["symbol"].is_string())
    return v["symbol"].get<std::string>();
  if (v.is_object()) return "{" + std::to_string(v.size()) + " field(s)}";
  return v.dump();
}

// o[key], or null when o is not an object or lacks it: replies are untrusted, and a field of
// an unexpected type shows as "-" rather than stopping the command.
json at(const json& o, const char* key) {
  const json* v = json_fields::member(o, key);
  return v == nullptr ? json() : *v;
}

std::string field(const json& o, const char* key) {
  return o.is_object() && o.contains(key) ? scalar(o[key]) : std::string("-");
}

std::string utc(const json& ts) {
  if (!ts.is_number_integer()) return scalar(ts);
  const std::time_t t = ts.get<std::time_t>();
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%SZ", &tm);
  return buf;
}

std::string usd(const json& v) {
  if (!v.is_number()) return "-";
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(2);
  out << "$" << v.get<double>();
  return out.str();
}

int decimals_of(const json& token) {
  return token.is_object() && token.contains("decimals") && token["decimals"].is_number_integer()
             ? token["decimals"].get<int>()
             : -1;
}

std::string tokens(const json& amount, const json& token) {
  const int d = decimals_of(token);
  if (!amount.is_string() || d < 0) return scalar(amount);
  return whole_units(amount.get<std::string>(), d) + " " + field(token, "symbol");
}

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  [[nodiscard]] std::string str() const {
    std::vector<std::size_t> width(header_.size(), 0);
    for (std::size_t i = 0; i < header_.size(); ++i) width[i] = header_[i].size();
    for (const auto& r : rows_) {
      for (std::size_t i = 0; i < r.size() && i < width.size(); ++i)
        width[i] = std::max(width[i], r[i].size());
    }
    std::ostringstream out;
    const auto line = [&](const std::vector<std::string>& cells) {
      std::string text;
      for (std::size_t i = 0; i < cells.size(); ++i) {
        text += cells[i];
        if (i + 1 < cells.size()) text += std::string(width[i] - cells[i].size() + 2, ' ');
      }
      out << "  " << text << "\n";
    };
    line(header_);
    for (const auto& r : rows_) line(r);
    if (rows_.empty()) out << "  (none)\n";
    return out.str();
  }

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// Any object as key/value rows, nested objects one level deep as dotted keys.
std::string key_values(const json& o, const std::vector<std::string>& skip = {}) {
  Table t({"field", "value"});
  if (!o.is_object()) return "  " + scalar(o) + "\n";
  for (const auto& [k, v] : o.items()) {
    if (std::find(skip.begin(), skip.end(), k) != skip.end()) continue;
    if (v.is_object()) {
      for (const auto& [k2, v2] : v.items()) t.add({k + "." + k2, scalar(v2)});
    } else {
      t.add({k, scalar(v)});
    }
  }
  return t.str();
}

// An array of objects as a table with every key any item has, in first-seen order.
std::string generic_list(const json& items) {
  if (!items.is_array()) return key_values(items);
  std::vector<std::string> keys;
  for (const auto& item : items) {
    if (!item.is_object()) continue;
    for (const auto& [k, v] : item.items()) {
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
  }
  if (keys.empty()) {
    std::string out;
    for (const auto& item : items) out += "  " + scalar(item) + "\n";
    return out.empty() ? "  (none)\n" : out;
  }
  Table t(keys);
  for (const auto& item : items) {
    std::vector<std::string> row;
    row.reserve(keys.size());
    for (const auto& k : keys) row.push_back(field(item, k.c_str()));
    t.add(std::move(row));
  }
  return t.str();
}

// Every array inside an object as its own table, the rest as key/value rows.
std::string sections(const json& o) {
  if (!o.is_object()) return generic_list(o);
  std::vector<std::string> arrays;
  for (const auto& [k, v] : o.items()) {
    if (v.is_array()) arrays.push_back(k);
  }
  std::string out = arrays.size() < o.size() ? key_values(o, arrays) : std::string();
  for (const auto& k : arrays) out += (out.empty() ? "" : "\n") + k + "\n" + generic_list(o[k]);
  return out;
}

std::string holdings(const json& d) {
  std::ostringstream out;
  const json& deposit = at(d, "depositToken");
  out << "  total     " << tokens(at(d, "totalValue"), deposit) << "  (" << usd(at(d, "totalUsd"))
      << ")\n";
  out << "  NAV       " << tokens(at(d, "navTotalAssets"), deposit) << "  (delta "
      << scalar(at(d, "navDeltaBps")) << " bps)\n";
  if (json_fields::flag(d, "partial")) {
    out << "  PARTIAL   no price for: " << at(d, "unpriced").dump() << "\n";
  }
  Table t({"token", "amount", "usd", "share"});
  for (const auto& item : at(d, "tokens")) {
    const json& token = at(item, "token");
    const json share = at(item, "shareBps");
    t.add({field(token, "symbol"), tokens(at(item, "amount"), token), usd(at(item, "usd")),
           share.is_number() ? whole_units(std::to_string(share.get<std::int64_t>()), 2) + "%"
                             : std::string("-")});
  }
  out << "\nTokens\n" << t.str();
  // Each holding by the account an action on it takes in its body (dlmm/remove a position,
  // dlmm/limit-order/cancel a limit order, strategy/close a strategy), not by its strategy.
  Table p({"kind", "account", "what", "value", "usd", "closable"});
  for (const auto& pos : at(d, "positions")) {
    const std::string kind = field(pos, "kind");
    const char* account = kind == "lp" || kind == "error" ? "position"
                          : kind == "limit_order"         ? "limitOrder"
                          : kind == "perp"                ? "traderAccount"
                                                          : "strategy";
    std::string what;
    if (kind == "idle" || kind == "swap") {
      what = tokens(at(pos, "amount"), at(pos, "token"));
    } else if (kind == "lp") {
      const json& r = at(pos, "range");
      what = field(at(pos, "tokenX"), "symbol") + "/" + field(at(pos, "tokenY"), "symbol") +
             " bins " + field(r, "lowerBinId") + ".." + field(r, "upperBinId") +
             (json_fields::flag(r, "inRange") ? " in range" : " OUT OF RANGE");
    } else if (kind == "limit_order") {
      what = field(pos, "side") + " " + field(pos, "binCount") + " bins, filled " +
             field(pos, "filledBps") + " bps";
    } else if (kind == "perp") {
      what = std::to_string(at(pos, "positions").size()) + " position(s), equity " +
             field(pos, "equity");
    } else if (kind == "error") {
      what = "UNREADABLE " + field(pos, "protocol") + ": " + field(pos, "reason");
    } else {
      what = "(a kind this version does not know)";
    }
    std::string named = field(pos, account);
    if (named == "-")
      named = field(pos, "strategy") + " (strategy)";
    else if (std::string_view(account) != "strategy")
      named += " (" + std::string(account) + ")";
    p.add({kind, named, what, tokens(at(pos, "value"), deposit), usd(at(pos, "usd")),
           field(pos, "closable")});
  }
  out << "\nPositions\n" << p.str();
  return out.str();
}

std::string strategies(const json& list) {
  Table t({"id", "type", "address", "token", "balance", "last action"});
  for (const auto& s : list.is_array() ? list : json::array()) {
    std::string token = field(s, "symbol");
    std::string balance = field(s, "vaultBalance");
    if (s.contains("vaultBalance") && s.contains("decimals"))
      balance = tokens(s["vaultBalance"], s);
    t.add({field(s, "id"), field(s, "type"), field(s, "address"), token, balance,
           utc(at(s, "lastActionTs"))});
  }
  return t.str();
}

std::string nav(const json& points) {
  Table t({"epoch", "time", "total assets", "NAV/share", "high-water mark", "overridden"});
  for (const auto& p : points.is_array() ? points : json::array()) {
    t.add({field(p, "epoch"), utc(at(p, "ts")), field(p, "totalAssets"), field(p, "navPerShare"),
           field(p, "highWaterMark"), field(p, "overridden")});
  }
  return t.str();
}

}  // namespace

const std::vector<ReadCommand>& read_commands() {
  static const std::vector<ReadCommand> commands = {
      {"vaults", "", "the vaults the key's manager controls"},
      {"vault", "VAULT", "one vault's details"},
      {"holdings", "VAULT", "tokens and positions, valued (up to 15 s old)"},
      {"strategies", "VAULT", "the vault's strategies"},
      {"nav", "VAULT [--limit N]", "NAV history (default 200 points, at most 2000)"},
      {"requests", "VAULT", "pending deposits and withdrawals"},
      {"strategy-history", "VAULT", "closed strategies with their token flows"},
      {"perp", "VAULT", "the perpetuals account: markets, open orders, margin"},
      {"quote", "--vault V --input-mint M --output-mint M --amount A --slippage-bps S",
       "a swap quote (reserves nothing)"},
      {"pools", "[--page N] [--query KEY=VALUE]...", "search liquidity pools, 20 a page"},
      {"pool", "LBPAIR [--vault V]", "one liquidity pool, with its active bin"},
      {"token", "MINT --vault V", "a token's symbol, decimals and price"},
  };
  return commands;
}

Result<std::string> read_path(const std::string& command, const ReadArgs& a) {
  const auto vault_path = [&](const std::string& tail) -> Result<std::string> {
    AIRLOCK_CHECK(check_key("VAULT", a.target));
    return "/vaults/" + *a.target + tail;
  };
  if (command == "vaults") return std::string("/vaults");
  if (command == "vault") return vault_path("");
  if (command == "holdings") return vault_path("/holdings");
  if (command == "strategies") return vault_path("/strategies");
  if (command == "requests") return vault_path("/requests");
  if (command == "strategy-history") return vault_path("/strategy-history");
  if (command == "perp") return vault_path("/perp");
  if (command == "nav") {
    AIRLOCK_TRY(path, vault_path("/nav"));
    if (!a.limit) return path;
    if (*a.limit < 1) return usage("--limit", "must be a positive integer");
    return with_query(path, {{"limit", std::to_string(*a.limit)}});
  }
  if (command == "quote") {
    AIRLOCK_CHECK(check_key("--vault", a.vault));
    AIRLOCK_CHECK(check_key("--input-mint", a.input_mint));
    AIRLOCK_CHECK(check_key("--output-mint", a.output_mint));
    AIRLOCK_CHECK(check_arg("--amount", FieldType::kAmount, a.amount));
    if (!a.slippage_bps || *a.slippage_bps < 1 || *a.slippage_bps > 10000)
      return usage("--slippage-bps", "must be an integer from 1 to 10000");
    return with_query("/aggregator/quote", {{"vault", *a.vault},
                                            {"inputMint", *a.input_mint},
                                            {"outputMint", *a.output_mint},
                                            {"amount", *a.amount},
                                            {"slippageBps", std::to_string(*a.slippage_bps)}});
  }
  if (command == "pools") {
    auto query = a.query;
    if (a.page) {
      if (*a.page < 1) return usage("--page", "must be a positive integer");
      query.emplace_back("page", std::to_string(*a.page));
    }
    return with_query("/dlmm/pools", query);
  }
  if (command == "pool") {
    AIRLOCK_CHECK(check_key("LBPAIR", a.target));
    if (a.vault) AIRLOCK_CHECK(check_key("--vault", a.vault));
    return with_query("/dlmm/pools/" + *a.target,
                      a.vault
                          ? std::vector<std::pair<std::string, std::string>>{{"vault", *a.vault}}
                          : std::vector<std::pair<std::string, std::string>>{});
  }
  if (command == "token") {
    AIRLOCK_CHECK(check_key("MINT", a.target));
    AIRLOCK_CHECK(check_key("--vault", a.vault));
    return with_query("/tokens/" + *a.target, {{"vault", *a.vault}});
  }
  return usage("command", "'" + command + "' is not a read");
}

namespace {

std::string render_read_raw(const std::string& command, const json& reply) {
  const json data = reply.is_object() && reply.contains("data") ? reply["data"] : reply;
  std::string out;
  if (reply.is_object() && reply.contains("vault") && reply["vault"].is_string())
    out += "vault " + reply["vault"].get<std::string>() + "\n";
  if (command == "vaults") {
    Table t({"vault", "deposit mint", "decimals"});
    for (const auto& v : at(reply, "vaults"))
      t.add({field(v, "address"), field(v, "depositMint"), field(v, "depositDecimals")});
    return out + t.str();
  }
  if (command == "holdings") return out + holdings(data);
  if (command == "strategies") return out + strategies(data);
  if (command == "nav") return out + nav(data);
  if (command == "quote") {
    std::string text = out + key_values(data, {"routeLabels"});
    if (data.is_object() && data.contains("routeLabels"))
      text += "  route: " + data["routeLabels"].dump() + "\n";
    return text;
  }
  return out + sections(data);
}

}  // namespace

std::string render_read(const std::string& command, const json& reply) {
  // Every string in a reply is the server's: shown escaped, so none can move the cursor,
  // erase or recolour a line, or reorder what follows.
  return printable(render_read_raw(command, reply), true);
}

}  // namespace airlock::online
