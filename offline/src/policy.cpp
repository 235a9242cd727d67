#include <algorithm>
#include <cctype>
#include <limits>
#include <regex>
#include <sstream>

#include <toml++/toml.h>
#include <unicode/ucasemap.h>
#include <unicode/uspoof.h>

#include <airlock/common/units.h>
#include <airlock/formats/actions.h>
#include <airlock/formats/files.h>
#include <airlock/offline/policy.h>
#include <airlock/offline/review.h>
#include <airlock/offline/templates.h>

namespace airlock::offline {
namespace {

constexpr std::size_t kMaxPolicyBytes = 1 << 20;

Error bad(const std::string& key, const std::string& rule) {
  return Error(offline::errors::kPolicyInvalid, "policy: " + key + ": " + rule);
}

Result<PublicKey> key_at(const toml::node* node, const std::string& where) {
  if (node == nullptr || !node->is_string())
    return bad(where, "must be a base58 public key string");
  auto key = public_key_from_base58(node->as_string()->get());
  if (!key.ok()) return bad(where, key.error().message());
  return key.value();
}

// A symbol the operator reads: 1 to `max` printable ASCII characters, no spaces.
Result<std::string> symbol_at(const toml::node* node, const std::string& where, std::size_t max) {
  const std::string text = node != nullptr && node->is_string() ? node->as_string()->get() : "";
  if (text.empty() || text.size() > max ||
      !std::all_of(text.begin(), text.end(),
                   [](unsigned char c) { return c > 0x20 && c < 0x7f; })) {
    return bad(where,
               "must be 1 to " + std::to_string(max) + " printable ASCII characters, no spaces");
  }
  return text;
}

Result<std::set<PublicKey>> key_set(const toml::table& t, const char* name) {
  std::set<PublicKey> out;
  const toml::node* node = t.get(name);
  if (node == nullptr) return out;
  const toml::array* array = node->as_array();
  if (array == nullptr) return bad(name, "must be an array of public keys");
  for (std::size_t i = 0; i < array->size(); ++i) {
    AIRLOCK_TRY(key, key_at(array->get(i), std::string(name) + "[" + std::to_string(i) + "]"));
    out.insert(key);
  }
  return out;
}

Result<bool> flag(const toml::table& t, const char* name, bool fallback, const std::string& where) {
  const toml::node* node = t.get(name);
  if (node == nullptr) return fallback;
  if (!node->is_boolean()) return bad(where + name, "must be true or false");
  return node->as_boolean()->get();
}

}  // namespace

namespace {

// Unicode's confusable skeleton (UTS #39, through ICU's spoof checker) of the text in upper
// case: two symbols with the same skeleton look alike on a screen ("JU\u03A1" and "JUP").
// Empty when ICU cannot process the text (then only the plain comparison applies).
std::string skeleton(std::string_view text) {
  UErrorCode status = U_ZERO_ERROR;
  UCaseMap* casemap = ucasemap_open("", 0, &status);
  if (U_FAILURE(status)) return {};
  std::string upper(text.size() * 3 + 8, '\0');
  const std::int32_t upper_length =
      ucasemap_utf8ToUpper(casemap, upper.data(), static_cast<std::int32_t>(upper.size()),
                           text.data(), static_cast<std::int32_t>(text.size()), &status);
  ucasemap_close(casemap);
  if (U_FAILURE(status)) return {};
  upper.resize(static_cast<std::size_t>(upper_length));
  USpoofChecker* checker = uspoof_open(&status);
  if (U_FAILURE(status)) return {};
  std::string out(upper.size() * 8 + 16, '\0');
  const std::int32_t length =
      uspoof_getSkeletonUTF8(checker, 0, upper.data(), static_cast<std::int32_t>(upper.size()),
                             out.data(), static_cast<std::int32_t>(out.size()), &status);
  uspoof_close(checker);
  if (U_FAILURE(status)) return {};
  out.resize(static_cast<std::size_t>(length));
  return out;
}

}  // namespace

bool same_symbol(std::string_view a, std::string_view b) {
  const bool ascii_equal =
      a.size() == b.size() &&
      std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
        return std::tolower(x) == std::tolower(y);
      });
  if (ascii_equal) return true;
  const std::string sa = skeleton(a), sb = skeleton(b);
  return !sa.empty() && sa == sb;
}

bool is_ticker(std::string_view symbol) {
  if (symbol.empty() || symbol.size() > kMaxTickerBytes) return false;
  return std::all_of(symbol.begin(), symbol.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           std::string_view(".-_$+").find(c) != std::string_view::npos;
  });
}

const PinnedMarket* Policy::market(std::string_view symbol) const {
  for (const auto& m : markets) {
    if (m.symbol == symbol) return &m;
  }
  return nullptr;
}

const PinnedPool* Policy::pool(const PublicKey& address) const {
  for (const auto& pool : pools) {
    if (pool.address == address) return &pool;
  }
  return nullptr;
}

const PriceFloor* Policy::price_floor(const PublicKey& sells, const PublicKey& buys) const {
  for (const auto& floor : price_floors) {
    if (floor.sells.mint == sells && floor.buys.mint == buys) return &floor;
  }
  return nullptr;
}

const PinnedToken* Policy::token(const PublicKey& mint) const {
  for (const auto& t : tokens) {
    if (t.mint == mint) return &t;
  }
  return nullptr;
}

const LoadedTable* Policy::pinned(const PublicKey& table) const {
  for (const auto& t : pinned_tables) {
    if (t.table == table) return &t;
  }
  return nullptr;
}

ActionRule Policy::rule(std::string_view action) const {
  auto it = actions.find(action);
  return it == actions.end() ? ActionRule{} : it->second;
}

namespace {

// A count: a positive integer.
Result<std::optional<std::uint64_t>> count_at(const toml::table& t, const char* name,
                                              const std::string& where) {
  const toml::node* node = t.get(name);
  if (node == nullptr) return std::optional<std::uint64_t>{};
  if (!node->is_integer() || node->as_integer()->get() < 1)
    return bad(where + name, "must be a whole number of signed requests, at least 1");
  return std::optional<std::uint64_t>{static_cast<std::uint64_t>(node->as_integer()->get())};
}

// An amount of whole tokens ("2500", "0.5") as the token's base units; no more decimal places
// than the token has, at least one base unit, and within 64 bits.
Result<std::uint64_t> base_units(std::string_view text, std::uint8_t decimals,
                                 const std::string& where) {
  const std::string rule =
      "must be an amount of whole tokens as a string, like \"2500\" or "
      "\"0.5\", with at most " +
      std::to_string(decimals) + " decimal places";
  const auto dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view fraction =
      dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  const auto digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (whole.empty() || !digits(whole) || !digits(fraction) ||
      (dot != std::string_view::npos && fraction.empty()) || fraction.size() > decimals)
    return bad(where, rule);
  unsigned __int128 value = 0;
  const auto add_digit = [&](char c) {
    value = value * 10 + static_cast<unsigned>(c - '0');
    return value <= std::numeric_limits<std::uint64_t>::max();
  };
  for (char c : whole)
    if (!add_digit(c)) return bad(where, "is more than 64 bits of base units");
  for (std::size_t i = 0; i < decimals; ++i) {
    if (!add_digit(i < fraction.size() ? fraction[i] : '0'))
      return bad(where, "is more than 64 bits of base units");
  }
  if (value == 0) return bad(where, "must be more than zero (allowed = false stops an action)");
  return static_cast<std::uint64_t>(value);
}

Result<WindowLimit> rounds_at(const toml::table& t, const std::string& where) {
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    if (key != "rounds_per_hour" && key != "rounds_per_day")
      return bad(where + key, "unknown setting (rounds_per_hour, rounds_per_day)");
  }
  WindowLimit w;
  AIRLOCK_TRY(hour, count_at(t, "rounds_per_hour", where));
  AIRLOCK_TRY(day, count_at(t, "rounds_per_day", where));
  w.per_hour = hour;
  w.per_day = day;
  return w;
}

// The sections of a table of named tables ([path."name"] for `quoted`, [path.NAME] otherwise),
// each a table, with where it is for errors. None when absent; `form` says the shape expected
// when `key` is not a table.
struct NamedSection {
  std::string name;
  std::string where;  // e.g. limits.actions."aggregator/swap"
  const toml::table* table;
};
Result<std::vector<NamedSection>> named_sections(const toml::table& parent, std::string_view key,
                                                 const std::string& path, bool quoted,
                                                 const std::string& form) {
  std::vector<NamedSection> out;
  const toml::node* node = parent.get(key);
  if (node == nullptr) return out;
  const toml::table* table = node->as_table();
  if (table == nullptr) return bad(path, form);
  for (const auto& [name, entry] : *table) {
    const std::string n(name.str());
    const std::string where = path + "." + (quoted ? "\"" + n + "\"" : n);
    if (entry.as_table() == nullptr) return bad(where, "must be a table");
    out.push_back({n, where, entry.as_table()});
  }
  return out;
}

// A misspelt action name would leave the rule its writer meant unapplied: every name must be
// one of the 28 builder actions or the Keystone request, or an action of another program,
// lower-case "program/action", outside their namespaces (a descriptor must describe it:
// load_pinned_interfaces refuses the policy otherwise).
Status check_action_name(const NamedSection& section) {
  if (parse_action(section.name) || section.name == kKeystoneAction) return {};
  static const std::regex kOther(R"([a-z0-9_-]+(/[a-z0-9_-]+)+)");
  const std::string space = section.name.substr(0, section.name.find('/'));
  const bool builder_space =
      std::any_of(kBuilderActions.begin(), kBuilderActions.end(),
                  [&](std::string_view a) { return a.substr(0, a.find('/')) == space; }) ||
      space == kKeystoneAction.substr(0, kKeystoneAction.find('/'));
  if (!builder_space && std::regex_match(section.name, kOther)) return {};
  return bad(section.where,
             "not an action this version knows (the 28 builder actions, " +
                 std::string(kKeystoneAction) +
                 ", or another program's \"program/action\" a descriptor describes)");
}

Result<Limits> parse_limits(const toml::node* node, const Policy& p) {
  const toml::table* table = node->as_table();
  if (table == nullptr) return bad("limits", "must be a table ([limits])");
  Limits out;
  for (const auto& [k, v] : *table) {
    const std::string key(k.str());
    if (key != "rounds_per_hour" && key != "rounds_per_day" && key != "actions" &&
        key != "tokens") {
      return bad("limits." + key,
                 "unknown setting (rounds_per_hour, rounds_per_day, actions, tokens)");
    }
  }
  AIRLOCK_TRY(hour, count_at(*table, "rounds_per_hour", "limits."));
  AIRLOCK_TRY(day, count_at(*table, "rounds_per_day", "limits."));
  out.rounds.per_hour = hour;
  out.rounds.per_day = day;
  AIRLOCK_TRY(actions, named_sections(*table, "actions", "limits.actions", true,
                                      "must be [limits.actions.\"name\"] sections"));
  for (const auto& section : actions) {
    AIRLOCK_CHECK(check_action_name(section));
    AIRLOCK_TRY(w, rounds_at(*section.table, section.where + "."));
    if (!w.any()) return bad(section.where, "sets no limit (rounds_per_hour, rounds_per_day)");
    out.actions.emplace(section.name, w);
  }
  AIRLOCK_TRY(tokens, named_sections(*table, "tokens", "limits.tokens", false,
                                     "must be [limits.tokens.SYMBOL] sections"));
  for (const auto& [symbol, where, e] : tokens) {
    // Amounts are judged in base units of a mint this machine knows for itself.
    const PinnedToken* pinned = nullptr;
    for (const auto& token : p.tokens)
      if (token.symbol == symbol) pinned = &token;
    if (pinned == nullptr)
      return bad(where,
                 "names no pinned token: a limit needs the token's mint and decimals "
                 "from [[tokens]], or it cannot be judged");
    TokenLimit limit{*pinned, {}};
    for (const auto& [k, v] : *e) {
      const std::string key(k.str());
      if (key != "per_hour" && key != "per_day")
        return bad(where + "." + key, "unknown setting (per_hour, per_day)");
      if (!v.is_string())
        return bad(where + "." + key, "must be an amount of whole tokens as a string");
      AIRLOCK_TRY(amount, base_units(v.as_string()->get(), pinned->decimals, where + "." + key));
      (key == "per_hour" ? limit.amount.per_hour : limit.amount.per_day) = amount;
    }
    if (!limit.amount.any()) return bad(where, "sets no limit (per_hour, per_day)");
    out.tokens.push_back(std::move(limit));
  }
  return out;
}

// The entries of an array of tables ([[name]]), each with where it is ("name[i]"): every entry
// a table (`what` says what it must hold) whose keys are all in `keys`. None when absent.
Result<std::vector<std::pair<std::string, const toml::table*>>> tables_of(
    const toml::table& t, const std::string& name, const char* what,
    std::initializer_list<std::string_view> keys) {
  std::vector<std::pair<std::string, const toml::table*>> out;
  const toml::node* node = t.get(name);
  if (node == nullptr) return out;
  const toml::array* array = node->as_array();
  if (array == nullptr) return bad(name, "must be an array of tables ([[" + name + "]])");
  for (std::size_t i = 0; i < array->size(); ++i) {
    const std::string where = name + "[" + std::to_string(i) + "]";
    const toml::table* entry = array->get(i)->as_table();
    if (entry == nullptr) return bad(where, what);
    for (const auto& [k, v] : *entry) {
      if (std::find(keys.begin(), keys.end(), k.str()) == keys.end())
        return bad(where + "." + std::string(k.str()), "unknown setting");
    }
    out.emplace_back(where, entry);
  }
  return out;
}

// [[pools]]: address, token_x, token_y; each pool once, its two tokens different.
Result<std::vector<PinnedPool>> read_pools(const toml::table& t) {
  std::vector<PinnedPool> pools;
  AIRLOCK_TRY(entries, tables_of(t, "pools", "must be a table with address, token_x and token_y",
                                 {"address", "token_x", "token_y"}));
  for (const auto& [where, entry] : entries) {
    PinnedPool pool;
    AIRLOCK_TRY(address, key_at(entry->get("address"), where + ".address"));
    pool.address = address;
    AIRLOCK_TRY(x, key_at(entry->get("token_x"), where + ".token_x"));
    pool.token_x = x;
    AIRLOCK_TRY(y, key_at(entry->get("token_y"), where + ".token_y"));
    pool.token_y = y;
    if (pool.token_x == pool.token_y)
      return bad(where + ".token_y", "must be another mint than token_x");
    for (const auto& other : pools) {
      if (other.address == pool.address) return bad(where + ".address", "is pinned twice");
    }
    pools.push_back(pool);
  }
  return pools;
}

// A price as the policy writes it: a decimal string ("1.25", "0.00002"), more than zero, at most
// kMaxPriceScale decimal places and 19 significant digits.
Result<PriceFloor> price_text(const toml::node* node, const std::string& where) {
  const std::string rule =
      "must be a price as a string, whole units bought per whole unit sold, like \"1.25\" or "
      "\"0.00002\" (more than zero, at most " +
      std::to_string(kMaxPriceScale) + " decimal places and 19 significant digits)";
  if (node == nullptr || !node->is_string()) return bad(where, rule);
  const std::string& text = node->as_string()->get();
  const auto dot = text.find('.');
  const std::string whole = text.substr(0, dot);
  const std::string fraction = dot == std::string::npos ? std::string() : text.substr(dot + 1);
  const auto digits = [](const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (whole.empty() || !digits(whole) || !digits(fraction) ||
      (dot != std::string::npos && fraction.empty()) || fraction.size() > kMaxPriceScale)
    return bad(where, rule);
  std::string all = whole + fraction;
  all.erase(0, std::min(all.find_first_not_of('0'), all.size()));
  if (all.empty()) return bad(where, rule);
  if (all.size() > 19) return bad(where, rule);
  PriceFloor floor;
  floor.numerator = std::stoull(all);
  floor.scale = static_cast<std::uint8_t>(fraction.size());
  floor.text = text;
  return floor;
}

// [[price_floors]]: sell, buy (symbols of [[tokens]], two different ones) and at_least; each
// pair once.
Result<std::vector<PriceFloor>> read_price_floors(const toml::table& t,
                                                  const std::vector<PinnedToken>& tokens) {
  std::vector<PriceFloor> out;
  AIRLOCK_TRY(entries, tables_of(t, "price_floors", "must be a table with sell, buy and at_least",
                                 {"sell", "buy", "at_least"}));
  for (const auto& [at, table] : entries) {
    const std::string& where = at;  // named: clang 14 does not capture structured bindings
    const toml::table* entry = table;
    const auto pinned = [&](const char* key) -> Result<PinnedToken> {
      const toml::node* symbol = entry->get(key);
      if (symbol != nullptr && symbol->is_string()) {
        for (const auto& token : tokens) {
          if (token.symbol == symbol->as_string()->get()) return token;
        }
      }
      return bad(where + "." + key,
                 "must be the symbol of a token pinned in [[tokens]]: a price compares amounts "
                 "in the pinned mints' decimals");
    };
    AIRLOCK_TRY(floor, price_text(entry->get("at_least"), where + ".at_least"));
    AIRLOCK_TRY(sells, pinned("sell"));
    AIRLOCK_TRY(buys, pinned("buy"));
    if (sells.mint == buys.mint) return bad(where + ".buy", "must be another token than sell");
    floor.sells = sells;
    floor.buys = buys;
    for (const auto& other : out) {
      if (other.sells.mint == sells.mint && other.buys.mint == buys.mint)
        return bad(where, "prices " + sells.symbol + " for " + buys.symbol + " twice");
    }
    out.push_back(std::move(floor));
  }
  return out;
}

// [[lookup_tables]]: each table's address and its full contents, in order.
Result<std::vector<LoadedTable>> read_lookup_tables(const toml::table& t) {
  std::vector<LoadedTable> out;
  AIRLOCK_TRY(entries, tables_of(t, "lookup_tables", "must be a table with address and addresses",
                                 {"address", "addresses"}));
  for (const auto& [where, entry] : entries) {
    LoadedTable pinned;
    AIRLOCK_TRY(address, key_at(entry->get("address"), where + ".address"));
    pinned.table = address;
    const toml::array* addresses =
        entry->get("addresses") ? entry->get("addresses")->as_array() : nullptr;
    if (addresses == nullptr || addresses->empty() || addresses->size() > 256) {
      return bad(where + ".addresses",
                 "must list the table's full contents, 1 to 256 keys in order");
    }
    for (std::size_t k = 0; k < addresses->size(); ++k) {
      AIRLOCK_TRY(a, key_at(addresses->get(k), where + ".addresses[" + std::to_string(k) + "]"));
      pinned.addresses.push_back(a);
    }
    for (const auto& other : out) {
      if (other.table == pinned.table) return bad(where + ".address", "is pinned twice");
    }
    out.push_back(std::move(pinned));
  }
  return out;
}

// [[tokens]]: mint, symbol and decimals, no mint or symbol twice.
Result<std::vector<PinnedToken>> read_tokens(const toml::table& t) {
  std::vector<PinnedToken> out;
  AIRLOCK_TRY(entries, tables_of(t, "tokens", "must be a table with mint, symbol and decimals",
                                 {"mint", "symbol", "decimals"}));
  for (const auto& [where, entry] : entries) {
    PinnedToken token;
    AIRLOCK_TRY(mint, key_at(entry->get("mint"), where + ".mint"));
    token.mint = mint;
    AIRLOCK_TRY(symbol, symbol_at(entry->get("symbol"), where + ".symbol", 16));
    token.symbol = symbol;
    const toml::node* decimals = entry->get("decimals");
    if (decimals == nullptr || !decimals->is_integer() || decimals->as_integer()->get() < 0 ||
        decimals->as_integer()->get() > kMaxTokenDecimals) {
      return bad(where + ".decimals",
                 "must be an integer from 0 to " + std::to_string(kMaxTokenDecimals));
    }
    token.decimals = static_cast<std::uint8_t>(decimals->as_integer()->get());
    for (const auto& other : out) {
      if (other.mint == token.mint) return bad(where + ".mint", "is pinned twice");
      if (same_symbol(other.symbol, token.symbol))
        return bad(where + ".symbol", "'" + token.symbol + "' is already pinned to another mint");
    }
    out.push_back(std::move(token));
  }
  return out;
}

// [[markets]]: a perp market's symbol and address.
Result<std::vector<PinnedMarket>> read_markets(const toml::table& t) {
  std::vector<PinnedMarket> out;
  AIRLOCK_TRY(entries, tables_of(t, "markets", "must be a table with symbol and address",
                                 {"symbol", "address"}));
  for (const auto& [where, entry] : entries) {
    PinnedMarket market;
    AIRLOCK_TRY(symbol, symbol_at(entry->get("symbol"), where + ".symbol", 32));
    market.symbol = symbol;
    AIRLOCK_TRY(address, key_at(entry->get("address"), where + ".address"));
    market.address = address;
    for (const auto& other : out) {
      if (other.symbol == market.symbol) return bad(where + ".symbol", "is pinned twice");
    }
    out.push_back(std::move(market));
  }
  return out;
}

// A file name in one of the folders this machine reads: no path, nothing hidden.
Result<std::string> file_name_at(const toml::node* node, const std::string& where) {
  const auto* text = node != nullptr ? node->as_string() : nullptr;
  if (text == nullptr || text->get().empty() || text->get().size() > 255 ||
      text->get().find('/') != std::string::npos || text->get().front() == '.')
    return bad(where, "must be a plain file name (no folder, not starting with a dot)");
  return text->get();
}

Result<Hash> sha256_at(const toml::node* node, const std::string& where) {
  const auto* text = node != nullptr ? node->as_string() : nullptr;
  if (text == nullptr) return bad(where, "must be a SHA-256 in 64 lower-case hex digits");
  auto bytes = from_hex(text->get(), 32);
  if (!bytes.ok() || bytes->size() != 32 || to_hex(*bytes) != text->get())
    return bad(where, "must be a SHA-256 in 64 lower-case hex digits");
  Hash h{};
  std::copy(bytes->begin(), bytes->end(), h.bytes.begin());
  return h;
}

// [[descriptors]]: each descriptor's file and SHA-256, and the IDLs it uses with theirs.
Result<std::vector<DescriptorPin>> read_descriptors(const toml::table& t) {
  std::vector<DescriptorPin> out;
  AIRLOCK_TRY(entries, tables_of(t, "descriptors", "must be a table with file, sha256 and idls",
                                 {"file", "sha256", "idls"}));
  for (const auto& [where, entry] : entries) {
    DescriptorPin pin;
    AIRLOCK_TRY(file, file_name_at(entry->get("file"), where + ".file"));
    pin.file = file;
    AIRLOCK_TRY(hash, sha256_at(entry->get("sha256"), where + ".sha256"));
    pin.sha256 = hash;
    const toml::table* idls = entry->get("idls") ? entry->get("idls")->as_table() : nullptr;
    if (idls == nullptr || idls->empty())
      return bad(where + ".idls", "must map each IDL file the descriptor uses to its SHA-256");
    for (const auto& [name, value] : *idls) {
      const std::string at = where + ".idls." + std::string(name.str());
      const toml::value<std::string> as_text(std::string(name.str()));
      AIRLOCK_TRY(idl_file, file_name_at(&as_text, at));
      AIRLOCK_TRY(idl_hash, sha256_at(&value, at));
      pin.idls.emplace(idl_file, idl_hash);
    }
    for (const auto& other : out) {
      if (other.file == pin.file) return bad(where + ".file", "is pinned twice");
    }
    out.push_back(std::move(pin));
  }
  return out;
}

// An action rule's slippage ceilings, each only where the action carries that slippage: a
// ceiling that applied to nothing would read as a rule and hold none.
Status read_ceilings(const toml::table& entry, const std::string& name, const std::string& where,
                     ActionRule& rule) {
  const SlippageKind kind = slippage_kind(name);
  if (const toml::node* slip = entry.get("max_slippage_bps")) {
    if (!slip->is_integer() || slip->as_integer()->get() < 0 || slip->as_integer()->get() > 10000) {
      return bad(where + "max_slippage_bps", "must be 0 to 10000");
    }
    if (kind == SlippageKind::kBins) {
      return bad(where + "max_slippage_bps",
                 name +
                     " counts its slippage in bins, whose width in basis points is the pool's "
                     "and unknown here: set max_active_bin_slippage instead");
    }
    if (kind == SlippageKind::kNone)
      return bad(where + "max_slippage_bps", name + " carries no slippage for it to cap");
    rule.max_slippage_bps = static_cast<std::uint16_t>(slip->as_integer()->get());
  }
  if (const toml::node* bins = entry.get("max_active_bin_slippage")) {
    if (!bins->is_integer() || bins->as_integer()->get() < 0 || bins->as_integer()->get() > 1000) {
      return bad(where + "max_active_bin_slippage", "must be 0 to 1000 bins");
    }
    if (kind != SlippageKind::kBins) {
      return bad(where + "max_active_bin_slippage",
                 name + " moves no liquidity through bins" +
                     (kind == SlippageKind::kBps ? "; its slippage is max_slippage_bps" : ""));
    }
    rule.max_active_bin_slippage = static_cast<std::uint16_t>(bins->as_integer()->get());
  }
  return {};
}

// [actions."name"]: each action's rule; a name that is not an action is refused.
Result<std::map<std::string, ActionRule, std::less<>>> read_actions(const toml::table& t) {
  std::map<std::string, ActionRule, std::less<>> out;
  AIRLOCK_TRY(sections, named_sections(t, "actions", "actions", true,
                                       "must be a table of [actions.\"name\"] sections"));
  for (const auto& section : sections) {
    AIRLOCK_CHECK(check_action_name(section));
    const toml::table* entry = section.table;
    const std::string& name = section.name;
    const std::string where = section.where + ".";
    for (const auto& [k, v] : *entry) {
      const std::string key(k.str());
      if (key != "allowed" && key != "auto_approve" && key != "max_slippage_bps" &&
          key != "max_active_bin_slippage")
        return bad(where + key, "unknown setting");
    }
    ActionRule rule;
    AIRLOCK_TRY(allowed, flag(*entry, "allowed", true, where));
    rule.allowed = allowed;
    AIRLOCK_TRY(auto_approve, flag(*entry, "auto_approve", false, where));
    rule.auto_approve = auto_approve;
    if (auto_approve && name == kKeystoneAction) {
      return bad(where + "auto_approve",
                 "a Keystone request carries no intent and is never signed without asking");
    }
    AIRLOCK_CHECK(read_ceilings(*entry, name, where, rule));
    out.emplace(name, rule);
  }
  return out;
}

}  // namespace

namespace {

// Each pinned pool's two tokens are pinned tokens.
Status pool_tokens_pinned(const Policy& p) {
  for (std::size_t i = 0; i < p.pools.size(); ++i) {
    for (const auto& [side, mint] :
         {std::pair<const char*, const PublicKey*>{"token_x", &p.pools[i].token_x},
          {"token_y", &p.pools[i].token_y}}) {
      if (p.token(*mint) == nullptr)
        return bad("pools[" + std::to_string(i) + "]." + side,
                   "must be a mint pinned in [[tokens]], so the pool's symbols and decimals are "
                   "the policy's");
    }
  }
  return {};
}

}  // namespace

SlippageKind slippage_kind(std::string_view action) {
  static constexpr std::string_view kBps[] = {"aggregator/swap", "aggregator/sweep", "dlmm/zap-out",
                                              "dlmm/zap-out/swap"};
  static constexpr std::string_view kBins[] = {"dlmm/open", "dlmm/add", "dlmm/add-range",
                                               "dlmm/flip"};
  if (std::find(std::begin(kBps), std::end(kBps), action) != std::end(kBps))
    return SlippageKind::kBps;
  if (std::find(std::begin(kBins), std::end(kBins), action) != std::end(kBins))
    return SlippageKind::kBins;
  return SlippageKind::kNone;
}

Result<Policy> parse_policy(std::string_view text) {
  toml::table t;
  try {
    t = toml::parse(text);
  } catch (const toml::parse_error& e) {
    return Error(offline::errors::kPolicyInvalid, std::string("policy: not valid TOML at line ") +
                                                      std::to_string(e.source().begin.line) + ": " +
                                                      std::string(e.description()));
  }
  static const std::set<std::string> kKnown = {"version",
                                               "manager",
                                               "vaults",
                                               "programs",
                                               "lookup_tables",
                                               "tokens",
                                               "markets",
                                               "pools",
                                               "price_floors",
                                               "descriptors",
                                               "allow_unverified_lookup_tables",
                                               "allow_durable_nonce",
                                               "allow_vault_initialize",
                                               "max_priority_fee_lamports",
                                               "actions",
                                               "limits"};
  for (const auto& [k, v] : t) {
    if (kKnown.count(std::string(k.str())) == 0)
      return bad(std::string(k.str()), "unknown setting; this version does not understand it");
  }
  // An integer 1 exactly: toml++'s value<int64_t>() would also convert floats, with undefined
  // behaviour for ones out of range (found by the policy_file fuzz target).
  const toml::node* version = t.get("version");
  if (version == nullptr || !version->is_integer() || version->as_integer()->get() != 1)
    return bad("version", "must be 1");
  Policy p;
  AIRLOCK_TRY(manager, key_at(t.get("manager"), "manager"));
  p.manager = manager;
  AIRLOCK_TRY(vaults, key_set(t, "vaults"));
  p.vaults = std::move(vaults);
  AIRLOCK_TRY(allowed_programs, key_set(t, "programs"));
  p.programs = std::move(allowed_programs);
  AIRLOCK_TRY(unverified, flag(t, "allow_unverified_lookup_tables", false, ""));
  p.allow_unverified_lookup_tables = unverified;
  AIRLOCK_TRY(nonce, flag(t, "allow_durable_nonce", false, ""));
  p.allow_durable_nonce = nonce;
  AIRLOCK_TRY(init, flag(t, "allow_vault_initialize", false, ""));
  p.allow_vault_initialize = init;
  if (const toml::node* fee = t.get("max_priority_fee_lamports")) {
    if (!fee->is_integer() || fee->as_integer()->get() < 0)
      return bad("max_priority_fee_lamports", "must be a non-negative integer");
    p.max_priority_fee_lamports = static_cast<std::uint64_t>(fee->as_integer()->get());
  }
  AIRLOCK_TRY(pinned_tables, read_lookup_tables(t));
  p.pinned_tables = std::move(pinned_tables);
  AIRLOCK_TRY(tokens, read_tokens(t));
  p.tokens = std::move(tokens);
  AIRLOCK_TRY(markets, read_markets(t));
  p.markets = std::move(markets);
  AIRLOCK_TRY(pools, read_pools(t));
  p.pools = std::move(pools);
  AIRLOCK_CHECK(pool_tokens_pinned(p));
  AIRLOCK_TRY(floors, read_price_floors(t, p.tokens));
  p.price_floors = std::move(floors);
  AIRLOCK_TRY(descriptors, read_descriptors(t));
  p.descriptors = std::move(descriptors);
  AIRLOCK_TRY(actions, read_actions(t));
  p.actions = std::move(actions);
  if (const toml::node* limits = t.get("limits")) {
    AIRLOCK_TRY(parsed, parse_limits(limits, p));
    p.limits = std::move(parsed);
  }
  return p;
}

namespace {

// The [limits] table as parse_limits reads it: token amounts in whole tokens again.
toml::table limits_toml(const Limits& limits) {
  const auto rounds = [](const WindowLimit& w) {
    toml::table out;
    if (w.per_hour) out.insert("rounds_per_hour", static_cast<std::int64_t>(*w.per_hour));
    if (w.per_day) out.insert("rounds_per_day", static_cast<std::int64_t>(*w.per_day));
    return out;
  };
  toml::table out = rounds(limits.rounds);
  if (!limits.actions.empty()) {
    toml::table actions;
    for (const auto& [name, w] : limits.actions) actions.insert(name, rounds(w));
    out.insert("actions", std::move(actions));
  }
  if (!limits.tokens.empty()) {
    toml::table tokens;
    for (const auto& limit : limits.tokens) {
      toml::table entry;
      const int decimals = limit.token.decimals;
      if (limit.amount.per_hour)
        entry.insert("per_hour", whole_units(std::to_string(*limit.amount.per_hour), decimals));
      if (limit.amount.per_day)
        entry.insert("per_day", whole_units(std::to_string(*limit.amount.per_day), decimals));
      tokens.insert(limit.token.symbol, std::move(entry));
    }
    out.insert("tokens", std::move(tokens));
  }
  return out;
}

// The policy's pinned tokens, markets, pools and price floors, as policy_toml writes them.
void insert_pins(const Policy& p, toml::table& t) {
  const auto key = [](const PublicKey& k) { return to_base58(k); };
  if (!p.tokens.empty()) {
    toml::array tokens;
    for (const auto& token : p.tokens) {
      tokens.push_back(toml::table{{"mint", key(token.mint)},
                                   {"symbol", token.symbol},
                                   {"decimals", static_cast<std::int64_t>(token.decimals)}});
    }
    t.insert("tokens", std::move(tokens));
  }
  if (!p.markets.empty()) {
    toml::array markets;
    for (const auto& market : p.markets)
      markets.push_back(toml::table{{"symbol", market.symbol}, {"address", key(market.address)}});
    t.insert("markets", std::move(markets));
  }
  if (!p.pools.empty()) {
    toml::array pools;
    for (const auto& pool : p.pools) {
      pools.push_back(toml::table{{"address", key(pool.address)},
                                  {"token_x", key(pool.token_x)},
                                  {"token_y", key(pool.token_y)}});
    }
    t.insert("pools", std::move(pools));
  }
  if (!p.price_floors.empty()) {
    toml::array floors;
    for (const auto& floor : p.price_floors) {
      floors.push_back(toml::table{
          {"sell", floor.sells.symbol}, {"buy", floor.buys.symbol}, {"at_least", floor.text}});
    }
    t.insert("price_floors", std::move(floors));
  }
}

}  // namespace

std::string policy_toml(const Policy& p) {
  const auto key = [](const PublicKey& k) { return to_base58(k); };
  const auto keys = [&](const auto& set) {
    toml::array out;
    for (const auto& k : set) out.push_back(key(k));
    return out;
  };
  toml::table t;
  t.insert("version", 1);
  t.insert("manager", key(p.manager));
  t.insert("vaults", keys(p.vaults));
  t.insert("programs", keys(p.programs));
  t.insert("allow_unverified_lookup_tables", p.allow_unverified_lookup_tables);
  t.insert("allow_durable_nonce", p.allow_durable_nonce);
  t.insert("allow_vault_initialize", p.allow_vault_initialize);
  t.insert("max_priority_fee_lamports", static_cast<std::int64_t>(p.max_priority_fee_lamports));
  if (!p.pinned_tables.empty()) {
    toml::array tables;
    for (const auto& pinned : p.pinned_tables) {
      tables.push_back(
          toml::table{{"address", key(pinned.table)}, {"addresses", keys(pinned.addresses)}});
    }
    t.insert("lookup_tables", std::move(tables));
  }
  insert_pins(p, t);
  if (!p.descriptors.empty()) {
    toml::array descriptors;
    for (const auto& pin : p.descriptors) {
      toml::table idls;
      for (const auto& [file, hash] : pin.idls) idls.insert(file, to_hex(hash.view()));
      descriptors.push_back(toml::table{
          {"file", pin.file}, {"sha256", to_hex(pin.sha256.view())}, {"idls", std::move(idls)}});
    }
    t.insert("descriptors", std::move(descriptors));
  }
  if (!p.actions.empty()) {
    toml::table actions;
    for (const auto& [name, rule] : p.actions) {
      toml::table entry{{"allowed", rule.allowed}, {"auto_approve", rule.auto_approve}};
      if (rule.max_slippage_bps)
        entry.insert("max_slippage_bps", static_cast<std::int64_t>(*rule.max_slippage_bps));
      if (rule.max_active_bin_slippage) {
        entry.insert("max_active_bin_slippage",
                     static_cast<std::int64_t>(*rule.max_active_bin_slippage));
      }
      actions.insert(name, std::move(entry));
    }
    t.insert("actions", std::move(actions));
  }
  if (p.limits.any()) t.insert("limits", limits_toml(p.limits));
  std::ostringstream out;
  out << t << "\n";
  return out.str();
}

Result<Policy> load_policy_file(const std::string& path) {
  AIRLOCK_TRY(bytes, files::read_limited(path, kMaxPolicyBytes));
  auto policy =
      parse_policy(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  if (!policy.ok())
    return Error(policy.error().code(), policy.error().message() + " (in " + path + ")");
  return policy;
}

}  // namespace airlock::offline
