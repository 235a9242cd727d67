#include <algorithm>
#include <array>

#include <airlock/offline/checkers.h>
#include <airlock/offline/templates.h>

namespace airlock::offline {
namespace {

using ojson = nlohmann::ordered_json;

void refuse(TemplateFindings& out, FindingCode code, std::string message) {
  out.refusals.emplace_back(code, std::move(message));
}

// A Jupiter route passed to the aggregator: it spends what the instruction says, slips no more
// than the instruction allows (which its own rule holds to the request and the policy), and its
// quote is a floor (route_floor).
void jupiter_route(const CheckInput& in, TemplateFindings& out) {
  const auto it = in.instruction.nested.find("route");
  if (it == in.instruction.nested.end()) {
    refuse(out, FindingCode::kPolicyUndecodable,
           in.where + ": the swap's route is not a Jupiter route this machine can decode");
    return;
  }
  const Arguments route(it->second.args);
  if (in.args.at("amount") != nullptr && route.at("in_amount") != nullptr) {
    const auto spends = route.amount("in_amount"), amount = in.args.amount("amount");
    if (!spends || !amount || *spends != *amount) {
      refuse(out, FindingCode::kIntentAmount,
             in.where + ": the route spends " + route.shown("in_amount") + ", not the " +
                 in.args.shown("amount") + " the instruction swaps");
    }
  } else if (route.at("in_amount") != nullptr) {
    // An instruction that swaps what the vault holds (a zap-out's returned tokens) names no
    // amount: what the route spends is then the online half's word alone. The price floor
    // bounds the price per token it sells, not how much it sells, so a person reads it.
    out.warnings.emplace_back(
        FindingCode::kWarnUnverifiable,
        in.where + ": the route spends " + route.shown("in_amount") +
            " of the token it sells as the online half states it, bound to nothing the "
            "manager asked (this machine holds no balances); the price floor bounds the price, "
            "not how much is sold");
  }
  if (route.at("slippage_bps") != nullptr) {
    const auto route_bps = route.amount("slippage_bps"), bps = in.args.amount("slippage_bps");
    if (!route_bps || !bps || *route_bps > *bps) {
      refuse(out, FindingCode::kIntentSlippage,
             in.where + ": the route slips " + route.shown("slippage_bps") +
                 " bps, more than the instruction's " + in.args.shown("slippage_bps"));
    }
  }
  route_floor(in.args, route, in.where, out);
}

// dlmm_initialize: the position's first bin and width are the request's bins (upperBinId one
// past the last).
void position_of_body(const CheckInput& in, TemplateFindings& out) {
  if (in.body == nullptr) return;  // nothing names the bins but the instruction itself
  const auto lower = body_integer(*in.body, "lowerBinId"),
             upper = body_integer(*in.body, "upperBinId");
  const auto first = in.args.integer("lower_bin_id"), width = in.args.integer("width");
  if (!lower || !upper || !first || !width || *first != *lower || *width != *upper - *lower) {
    refuse(out, FindingCode::kIntentBins,
           in.where + ": the position spans bins " + in.args.shown("lower_bin_id") + " +" +
               in.args.shown("width") + ", not the requested lowerBinId to upperBinId");
  }
}

// dlmm_open: the liquidity goes exactly into the bins of the position the step creates.
void liquidity_fills_position(const CheckInput& in, TemplateFindings& out) {
  const auto lower = in.args.integer("lower_bin_id"), width = in.args.integer("width");
  const auto min = in.args.integer("strategy.min_bin_id"),
             max = in.args.integer("strategy.max_bin_id");
  const bool spans = lower && width && min && max && *width >= 1 && *width <= 1400 &&
                     *min == *lower && *max == *lower + *width - 1;
  if (!spans) {
    refuse(out, FindingCode::kIntentBins,
           in.where + ": the step's liquidity spans bins " + in.args.shown("strategy.min_bin_id") +
               " to " + in.args.shown("strategy.max_bin_id") + ", not the position it opens (" +
               in.args.shown("lower_bin_id") + " +" + in.args.shown("width") + ")");
  }
}

// dlmm_extend: the position grows towards the requested upperBinId (inclusive) by at most
// kExtendBins a step: a step either ends exactly there or is a whole kExtendBins short of it,
// and a follow-up (its body's fromBinId is the first bin the extension added) starts a whole
// number of steps after that bin. Where the first step starts is the position's upper bin + 1,
// chain state this machine does not see; the program refuses a range that does not join it.
constexpr std::int64_t kExtendBins = 70;
void extension_within(const CheckInput& in, TemplateFindings& out) {
  if (in.body == nullptr) return;
  const auto upper = body_integer(*in.body, "upperBinId");
  const auto lower = in.args.integer("lower_bin_id"), width = in.args.integer("width");
  const std::string bins =
      in.where + ": extends bins " + in.args.shown("lower_bin_id") + " +" + in.args.shown("width");
  if (!upper || !lower || !width || *width < 1 || *width > kExtendBins ||
      *lower + *width - 1 > *upper) {
    refuse(out, FindingCode::kIntentBins,
           bins + ": at most " + std::to_string(kExtendBins) +
               " bins a step, ending no later than the requested upperBinId");
    return;
  }
  if (*lower + *width - 1 != *upper && *width != kExtendBins) {
    refuse(out, FindingCode::kIntentBins,
           bins + ": a step short of the requested upperBinId is a whole " +
               std::to_string(kExtendBins) + " bins");
    return;
  }
  if (in.body->contains("fromBinId")) {
    const auto from = body_integer(*in.body, "fromBinId");
    // A bin id is within ±443636 (the program's range), so the difference cannot overflow.
    if (!from || *from < -443636 || *from > 443636 || *lower < *from ||
        (*lower - *from) % kExtendBins != 0) {
      refuse(out, FindingCode::kIntentBins,
             bins + ": a follow-up continues a whole number of " + std::to_string(kExtendBins) +
                 "-bin steps after the request's fromBinId");
    }
  }
}

// perp_order: the order type the request's order.type and order.postOnly ask for.
void perp_order_type(const CheckInput& in, TemplateFindings& out) {
  if (in.body == nullptr) return;
  const ojson* type = body_at(*in.body, "/order/type");
  const ojson* post = body_at(*in.body, "/order/postOnly");
  // Only the exact values the API takes: the strings "market" and "limit", postOnly a boolean
  // or absent; anything else ("true", 1) asks for nothing this machine can hold the type to.
  std::string want;
  const bool post_readable = post == nullptr || post->is_boolean();
  if (type != nullptr && type->is_string() && *type == "market" && post_readable)
    want = "ImmediateOrCancel";
  else if (type != nullptr && type->is_string() && *type == "limit" && post_readable)
    want = post != nullptr && post->get<bool>() ? "PostOnly" : "Limit";
  const auto got = in.args.variant("order.order_type");
  if (want.empty() || !got || *got != want) {
    refuse(out, FindingCode::kIntentOrderType,
           in.where + ": the order type " + in.args.shown("order.order_type") +
               " differs from the request's order.type and order.postOnly");
  }
}

// vault_update's pause: an option the request leaves out stays None, and lifting the pause
// always asks a person.
void vault_pause(const CheckInput& in, TemplateFindings& out) {
  const ojson* paused = in.args.at("update.paused");
  if (paused != nullptr && paused->is_boolean() && !paused->get<bool>())
    out.warnings.emplace_back(FindingCode::kWarnUnpause, in.where + ": lifts the vault's pause");
  if (in.body == nullptr) return;
  const auto asked = in.body->find("paused");
  const bool same = asked == in.body->end() ? paused != nullptr && paused->is_null()
                                            : paused != nullptr && *paused == *asked;
  if (!same) {
    refuse(out, FindingCode::kIntentFlag,
           in.where + ": paused " + in.args.shown("update.paused") + " differs from the request");
  }
}

constexpr std::array<std::string_view, 2> kRouteReads = {"route", "slippage_bps"};
constexpr std::array<std::string_view, 2> kRouteOptional = {"amount", "minimum_out"};
constexpr std::array<std::string_view, 2> kPositionReads = {"lower_bin_id", "width"};
constexpr std::array<std::string_view, 4> kFillReads = {
    "lower_bin_id", "width", "strategy.min_bin_id", "strategy.max_bin_id"};
constexpr std::array<std::string_view, 1> kOrderTypeReads = {"order.order_type"};
constexpr std::array<std::string_view, 1> kPauseReads = {"update.paused"};

const NamedChecker kCheckers[] = {
    {"jupiter_route",
     "the route spends the instruction's amount, slips no more than it, and its quote is a "
     "floor the minimum out keeps",
     kRouteReads, kRouteOptional, jupiter_route},
    {"step_shares",
     "the action's ranged step rule: each step's share, the steps' total",
     {},
     {},
     nullptr},
    {"position_of_body",
     "the position's first bin and width are the request's bins",
     kPositionReads,
     {},
     position_of_body},
    {"liquidity_fills_position",
     "the liquidity spans exactly the new position's bins",
     kFillReads,
     {},
     liquidity_fills_position},
    {"extension_within",
     "the widened position ends within the requested bins",
     kPositionReads,
     {},
     extension_within},
    {"perp_order_type",
     "the order type the request's order.type and postOnly ask for",
     kOrderTypeReads,
     {},
     perp_order_type},
    {"vault_pause",
     "paused as the request sets or leaves it; lifting the pause asks a person",
     kPauseReads,
     {},
     vault_pause},
};

}  // namespace

const NamedChecker* argument_checker(std::string_view name) {
  for (const auto& c : kCheckers) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string argument_checker_names() {
  std::string out;
  for (const auto& c : kCheckers) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

// This machine holds no prices, so the quote comes from the online half; but a floor must be a
// floor: the route states a quote of at least one base unit, the quote less the slippage leaves
// at least one, the slippage itself is worth at least one (a quote smaller than that makes the
// request's slippage meaningless), and the instruction's own minimum follows from the quote. A
// lower one would let the swap be sandwiched down to nothing.
void route_floor(const Arguments& instruction, const Arguments& route, const std::string& where,
                 TemplateFindings& out) {
  const auto quoted = route.amount("quoted_out_amount");
  if (!quoted) {
    refuse(out, FindingCode::kIntentMinimumOut,
           where + ": the route states no quote, so nothing bounds what it returns");
    return;
  }
  const std::uint64_t bps = std::min<std::uint64_t>(
      route.at("slippage_bps") != nullptr ? route.amount("slippage_bps").value_or(10'000) : 10'000,
      10'000);
  const auto slack =
      static_cast<std::uint64_t>(static_cast<unsigned __int128>(*quoted) * bps / 10'000);
  if (*quoted == 0 || *quoted - slack == 0) {
    refuse(out, FindingCode::kIntentMinimumOut,
           where + ": the route quotes " + std::to_string(*quoted) + " base units out at " +
               std::to_string(bps) +
               " bps of slippage: a floor of zero lets the swap return nothing");
    return;
  }
  if (bps > 0 && slack == 0) {
    refuse(out, FindingCode::kIntentMinimumOut,
           where + ": the route quotes only " + std::to_string(*quoted) +
               " base units out: " + std::to_string(bps) +
               " bps of it is less than one base unit, so the quote makes the request's slippage "
               "meaningless");
    return;
  }
  if (instruction.at("minimum_out") == nullptr) return;  // the route's own floor is the swap's
  const auto minimum = instruction.amount("minimum_out");
  const std::uint64_t vault_bps =
      std::min<std::uint64_t>(instruction.amount("slippage_bps").value_or(10'000), 10'000);
  const auto floor = static_cast<std::uint64_t>(static_cast<unsigned __int128>(*quoted) *
                                                (10'000 - vault_bps) / 10'000);
  if (!minimum || *minimum == 0 || *minimum < floor) {
    refuse(out, FindingCode::kIntentMinimumOut,
           where + ": minimum_out " + instruction.shown("minimum_out") + " is below " +
               std::to_string(std::max<std::uint64_t>(floor, 1)) +
               ", the route's quote less the slippage" +
               (minimum && *minimum == 0 ? " (a floor of zero lets the swap return nothing)" : ""));
  }
}

}  // namespace airlock::offline
