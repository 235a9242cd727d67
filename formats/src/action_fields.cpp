#include <algorithm>
#include <cctype>
#include <map>

#include <airlock/common/bytes.h>
#include <airlock/common/units.h>
#include <airlock/formats/action_fields.h>
#include <airlock/formats/actions.h>

namespace airlock {
namespace {

using json = nlohmann::json;

constexpr std::int64_t kMinBin = -443636;
constexpr std::int64_t kMaxBin = 443636;

Field key(std::string name, std::string help) {
  return {std::move(name), FieldType::kPublicKey, std::move(help), 0, 0, {}, {}};
}
Field amount(std::string name, std::string help) {
  return {std::move(name), FieldType::kAmount, std::move(help), 0, 0, {}, {}};
}
Field integer(std::string name, std::int64_t min, std::int64_t max, std::string help) {
  return {std::move(name), FieldType::kInteger, std::move(help), min, max, {}, {}};
}
Field choice(std::string name, std::vector<std::string> choices, std::string help) {
  return {std::move(name), FieldType::kChoice, std::move(help), 0, 0, std::move(choices), {}};
}
Field of(std::string name, FieldType type, std::string help) {
  return {std::move(name), type, std::move(help), 0, 0, {}, {}};
}
// A JSON field whose objects (or its list's objects) hold these members.
Field objects(std::string name, std::vector<std::string> members, std::string help) {
  return {std::move(name), FieldType::kJson, std::move(help), 0, 0, {}, std::move(members)};
}

Field vault() { return key("vault", "the vault acted on"); }
Field position() { return key("position", "a position the vault owns"); }
Field slippage() {
  return integer("slippageBps", 1, 10000,
                 "slippage in basis points, lowered to the protocol's cap");
}
Field bin(std::string name, std::string help) {
  return integer(std::move(name), kMinBin, kMaxBin + 1, std::move(help));
}
Field shape() {
  return choice("shape", {"spot", "curve", "bidAsk"}, "how liquidity spreads over the bins");
}
Field max_active_slip() {
  return integer("maxActiveBinSlippage", 0, 1000,
                 "bins the pool's active bin may move before the transaction fails");
}

using Table = std::map<std::string, std::vector<Field>, std::less<>>;

// The swap aggregator's actions.
void add_aggregator_fields(Table& t) {
  t.insert({
      {"aggregator/initialize", {vault(), key("mint", "the token the new strategy holds")}},
      {"aggregator/swap",
       {vault(), key("sourceMint", "the token sold"),
        key("destinationMint", "the token bought (not the source)"),
        amount("amount", "base units of the source token to sell"), slippage()}},
      {"aggregator/sweep", {vault(), key("mint", "the token swept back"), slippage()}},
  });
}

// The liquidity-pool actions: positions and limit orders.
void add_pool_fields(Table& t) {
  t.insert({
      {"dlmm/initialize",
       {vault(), key("lbPair", "the liquidity pool"), bin("lowerBinId", "first bin"),
        bin("upperBinId", "bin after the last (exclusive)")}},
      {"dlmm/open",
       {vault(), key("lbPair", "the liquidity pool"), bin("lowerBinId", "first bin"),
        bin("upperBinId", "bin after the last (exclusive); up to 1400 bins"),
        amount("amountX", "base units of token X"), amount("amountY", "base units of token Y"),
        shape(), max_active_slip(), bin("cursorBinId", "resume after the last confirmed range")}},
      {"dlmm/add",
       {vault(), position(), amount("amountX", "base units of token X"),
        amount("amountY", "base units of token Y"), shape(), max_active_slip(),
        bin("lowerBinId", "optional inclusive sub-range start (with upperBinId)"),
        bin("upperBinId", "optional inclusive sub-range end (with lowerBinId)"),
        bin("cursorBinId", "resume after the last confirmed range")}},
      {"dlmm/remove",
       {vault(), position(), integer("bpsToRemove", 1, 10000, "share of liquidity to remove"),
        bin("lowerBinId", "optional inclusive sub-range start"),
        bin("upperBinId", "optional inclusive sub-range end"),
        bin("cursorBinId", "resume after the last confirmed range")}},
      {"dlmm/flip",
       {vault(), position(), bin("lowerBinId", "first bin, inclusive"),
        bin("upperBinId", "last bin, inclusive"), bin("activeBinId", "the active bin you saw"),
        max_active_slip()}},
      {"dlmm/claim-fee", {vault(), position()}},
      {"dlmm/zap-out", {vault(), position(), slippage()}},
      {"dlmm/close", {vault(), position()}},
      {"dlmm/extend",
       {vault(), position(), bin("upperBinId", "the new last bin, inclusive"),
        amount("amountX", "optional funding of the new bins, token X"),
        amount("amountY", "optional funding of the new bins, token Y"), shape(), max_active_slip(),
        bin("fromBinId", "set by the service in follow-ups")}},
      {"dlmm/add-range",
       {vault(), position(), bin("lowerBinId", "first bin, inclusive"),
        bin("upperBinId", "last bin, inclusive"), amount("amountX", "base units of token X"),
        amount("amountY", "base units of token Y"), shape(), max_active_slip(),
        bin("cursorBinId", "resume after the last confirmed range")}},
      {"dlmm/zap-out/swap",
       {vault(),
        objects(
            "sources", {"mint", "balanceBefore", "closeWhenEmpty"},
            "JSON: 1 or 2 of {\"mint\", \"balanceBefore\", \"closeWhenEmpty\"} (from next.body)"),
        slippage()}},
      {"dlmm/limit-order/place",
       {vault(), key("lbPair", "the liquidity pool"),
        choice("side", {"bid", "ask"}, "bid buys token X, ask sells it"),
        objects("bins", {"binId", "amount"},
                "JSON: 1 to 70 of {\"binId\": N, \"amount\": \"base units\"}")}},
      {"dlmm/limit-order/cancel", {vault(), key("limitOrder", "the order to cancel")}},
  });
}

// The perpetuals actions.
void add_perp_fields(Table& t) {
  t.insert({
      {"perp/initialize", {vault()}},
      {"perp/onboard", {vault()}},
      {"perp/deposit", {vault(), amount("amount", "base units of the deposit token")}},
      {"perp/withdraw", {vault(), amount("amount", "base units of the deposit token")}},
      {"perp/order",
       {vault(), of("symbol", FieldType::kText, "market symbol, e.g. SOL"),
        choice("side", {"long", "short"}, "the position's side"),
        of("size", FieldType::kDecimal, "whole asset units, rounded down to base lots"),
        of("reduceOnly", FieldType::kBool, "only reduce an open position"),
        objects("order", {"type", "price", "postOnly"},
                "JSON: {\"type\": \"limit\"|\"market\", \"price\": \"USD\", \"postOnly\": bool}")}},
      {"perp/cancel",
       {vault(), of("symbol", FieldType::kText, "market symbol"),
        objects(
            "orders", {"priceInTicks", "orderSequenceNumber"},
            "all, or JSON: up to 20 of {\"priceInTicks\", \"orderSequenceNumber\"} from the perp "
            "read")}},
      {"perp/sweep", {vault()}},
  });
}

// The vault's own actions, and closing a strategy.
void add_vault_fields(Table& t) {
  t.insert({
      {"vault/initialize",
       {key("depositMint", "the token depositors bring"),
        amount("depositCap", "the most the vault accepts, base units"),
        amount("minDeposit", "smallest deposit, base units"),
        amount("minWithdrawalShares", "smallest withdrawal, shares"),
        integer("managementFeeBps", 0, 10000, "yearly management fee"),
        integer("performanceFeeBps", 0, 10000, "performance fee")}},
      {"vault/update",
       {vault(), amount("depositCap", "new cap, base units"),
        amount("minDeposit", "new smallest deposit"),
        amount("minWithdrawalShares", "new smallest withdrawal"),
        integer("managementFeeBps", 0, 10000, "new management fee"),
        integer("performanceFeeBps", 0, 10000, "new performance fee"),
        of("paused", FieldType::kBool, "pause or unpause deposits")}},
      {"vault/claim-fee", {vault()}},
      {"vault/close", {vault()}},
      {"strategy/close", {vault(), key("strategy", "a strategy with nothing left in it")}},
  });
}

const Table& table() {
  static const Table t = [] {
    Table all;
    add_aggregator_fields(all);
    add_pool_fields(all);
    add_perp_fields(all);
    add_vault_fields(all);
    return all;
  }();
  return t;
}

Error bad(const std::string& where, const std::string& rule) {
  return Error(ErrorCode::kUsage, where + ": " + rule);
}

bool is_amount(const std::string& v) { return parse_base_units(v).has_value(); }

bool is_decimal(const std::string& v) {
  std::size_t dots = 0;
  std::size_t digits = 0;
  for (const char c : v) {
    if (c == '.') {
      ++dots;
    } else if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      ++digits;
    } else {
      return false;
    }
  }
  return digits > 0 && dots <= 1 && v.front() != '.' && v.back() != '.';
}

std::string rule_of(const Field& f) {
  switch (f.type) {
    case FieldType::kPublicKey:
      return "must be a base58 public key (32 bytes)";
    case FieldType::kAmount:
      return "must be a base-unit amount: a whole number without sign, decimals or leading "
             "zeros, at most 18446744073709551615";
    case FieldType::kInteger:
      return "must be an integer from " + std::to_string(f.min) + " to " + std::to_string(f.max);
    case FieldType::kBool:
      return "must be true or false";
    case FieldType::kChoice: {
      std::string list;
      for (const auto& c : f.choices) list += (list.empty() ? "" : ", ") + c;
      return "must be one of " + list;
    }
    case FieldType::kDecimal:
      return "must be a decimal number such as 1.5";
    case FieldType::kText:
      return "must be a string";
    case FieldType::kJson:
      return "must be JSON";
  }
  return "is invalid";
}

}  // namespace

Status check_field(const Field& f, const json& v, const std::string& where) {
  bool ok = false;
  switch (f.type) {
    case FieldType::kPublicKey:
      ok = v.is_string() && public_key_from_base58(v.get<std::string>()).ok();
      break;
    case FieldType::kAmount:
      ok = v.is_string() && is_amount(v.get<std::string>());
      break;
    case FieldType::kInteger:
      ok =
          v.is_number_integer() && v.get<std::int64_t>() >= f.min && v.get<std::int64_t>() <= f.max;
      break;
    case FieldType::kBool:
      ok = v.is_boolean();
      break;
    case FieldType::kChoice:
      ok = v.is_string() &&
           std::find(f.choices.begin(), f.choices.end(), v.get<std::string>()) != f.choices.end();
      break;
    case FieldType::kDecimal:
      ok = v.is_string() && is_decimal(v.get<std::string>());
      break;
    case FieldType::kText:
      ok = v.is_string() && !v.get<std::string>().empty();
      break;
    case FieldType::kJson:
      ok = !v.is_null();
      break;
  }
  return ok ? Status{} : bad(where, rule_of(f));
}

const std::vector<std::string>& builder_actions() {
  static const std::vector<std::string> actions(kBuilderActions.begin(), kBuilderActions.end());
  return actions;
}

bool takes_path(std::string_view action, std::string_view path) {
  const std::vector<Field>* fields = action_fields(action);
  if (fields == nullptr) return true;
  const std::size_t end = std::min(path.find('.'), path.find('['));
  const std::string_view name = path.substr(0, end);
  const auto f = std::find_if(fields->begin(), fields->end(),
                              [&](const Field& field) { return field.name == name; });
  if (f == fields->end()) return false;
  std::string_view rest = end == std::string_view::npos ? std::string_view() : path.substr(end);
  if (!rest.empty() && rest.front() == '[') {  // one element of a list
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos) return false;
    rest.remove_prefix(close + 1);
  }
  if (rest.empty()) return true;
  if (rest.front() != '.') return false;
  rest.remove_prefix(1);
  if (rest.find_first_of(".[") != std::string_view::npos) return false;  // deeper than a member
  return std::find(f->members.begin(), f->members.end(), rest) != f->members.end();
}

namespace {
void leaves_of(const nlohmann::ordered_json& v, const std::string& path,
               std::vector<std::string>& out) {
  if (v.is_object() && !v.empty()) {
    for (const auto& item : v.items())
      leaves_of(item.value(), path.empty() ? item.key() : path + "." + item.key(), out);
  } else if (v.is_array() && !v.empty()) {
    for (std::size_t i = 0; i < v.size(); ++i)
      leaves_of(v[i], path + "[" + std::to_string(i) + "]", out);
  } else {
    out.push_back(path);
  }
}
}  // namespace

std::vector<std::string> leaf_paths(const nlohmann::ordered_json& body) {
  std::vector<std::string> out;
  if (body.is_object()) leaves_of(body, "", out);
  return out;
}

const std::vector<Field>* action_fields(std::string_view action) {
  const auto& t = table();
  const auto it = t.find(action);
  return it == t.end() ? nullptr : &it->second;
}

std::string flag_name(std::string_view field) {
  std::string out;
  for (const char c : field) {
    if (std::isupper(static_cast<unsigned char>(c)) != 0) {
      out.push_back('-');
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Result<json> field_value(const Field& f, const std::string& text) {
  const std::string where = "--" + flag_name(f.name);
  json v;
  switch (f.type) {
    case FieldType::kInteger: {
      char* end = nullptr;
      errno = 0;
      const long long n = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || errno != 0 || *end != '\0') return bad(where, rule_of(f));
      v = static_cast<std::int64_t>(n);
      break;
    }
    case FieldType::kBool:
      if (text != "true" && text != "false") return bad(where, rule_of(f));
      v = text == "true";
      break;
    case FieldType::kJson:
      if (f.name == "orders" && text == "all") {
        v = "all";
        break;
      }
      v = json::parse(text, nullptr, false);
      if (v.is_discarded()) return bad(where, "must be JSON: " + f.help);
      break;
    default:
      v = text;
  }
  AIRLOCK_CHECK(check_field(f, v, where));
  return v;
}

namespace {

// The rules the spec states between fields, and the one field every builder but
// vault/initialize needs: the vault it acts on (4.1). Which other fields a builder requires the
// spec mostly leaves unsaid, so the API's 400 names those, before anything is signed.
Status check_between_fields(std::string_view action, const std::vector<Field>& fields,
                            const json& body) {
  if (action != "vault/initialize" && !body.contains("vault"))
    return bad("body.vault", "is required: every builder but vault/initialize acts on a vault");
  if (action == "aggregator/swap" && body.contains("sourceMint") &&
      body.contains("destinationMint") && body["sourceMint"] == body["destinationMint"])
    return bad("body.destinationMint", "must differ from sourceMint");
  const bool lower = body.contains("lowerBinId");
  const bool upper = body.contains("upperBinId");
  // dlmm/add's and dlmm/remove's sub-range: both or neither (spec 2 and 4.5).
  if ((action == "dlmm/add" || action == "dlmm/remove") && lower != upper)
    return bad(lower ? "body.upperBinId" : "body.lowerBinId",
               "the sub-range is lowerBinId and upperBinId together, or neither");
  // (Fields a builder does not take are ignored by the API, and here.)
  const bool ranged = std::any_of(fields.begin(), fields.end(),
                                  [](const Field& f) { return f.name == "lowerBinId"; });
  if (!ranged || !lower || !upper || !body["lowerBinId"].is_number_integer() ||
      !body["upperBinId"].is_number_integer())
    return {};
  const auto first = body["lowerBinId"].get<std::int64_t>();
  const auto last = body["upperBinId"].get<std::int64_t>();
  // dlmm/open and dlmm/initialize take an exclusive upperBinId; every other one is inclusive.
  const bool exclusive = action == "dlmm/open" || action == "dlmm/initialize";
  if (exclusive ? last <= first : last < first) {
    return bad("body.upperBinId", exclusive ? "must be above lowerBinId (it is exclusive)"
                                            : "must not be below lowerBinId (it is inclusive)");
  }
  if (action == "dlmm/open" && last - first > 1400)
    return bad("body.upperBinId", "dlmm/open takes at most 1400 bins");
  return {};
}

}  // namespace

Status check_body(std::string_view action, const json& body) {
  if (!body.is_object()) return bad("body", "must be a JSON object");
  if (body.contains("payer")) return bad("body.payer", "the API refuses a payer in a builder body");
  const auto* fields = action_fields(action);
  if (fields == nullptr) {
    return bad("action", "'" + std::string(action) +
                             "' is not one of the 28 builder actions (airlock-online act --help)");
  }
  for (const auto& f : *fields) {
    if (body.contains(f.name)) AIRLOCK_CHECK(check_field(f, body[f.name], "body." + f.name));
  }
  return check_between_fields(action, *fields, body);
}

}  // namespace airlock
