#include <algorithm>
#include <array>
#include <limits>

#include <airlock/common/display.h>
#include <airlock/common/programs.h>
#include <airlock/common/units.h>
#include <airlock/offline/limits.h>

namespace airlock::offline {
namespace {

using ojson = nlohmann::ordered_json;

std::optional<PublicKey> key_arg(const ojson& v) {
  if (!v.is_string()) return std::nullopt;
  auto key = public_key_from_base58(v.get<std::string>());
  if (!key.ok()) return std::nullopt;
  return *key;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b
             ? std::numeric_limits<std::uint64_t>::max()
             : a + b;
}

struct Window {
  const char* name;  // "hour", "day"
  std::int64_t seconds;
  std::optional<std::uint64_t> WindowLimit::*limit;
};
constexpr Window kWindows[] = {{"hour", kHourSeconds, &WindowLimit::per_hour},
                               {"day", kDaySeconds, &WindowLimit::per_day}};
// A new log carries the last day of the one it continues: every window must fit in it.
static_assert(kDaySeconds <= kCarriedSeconds);

// The longest window any of the policy's limits sets.
const Window& longest_window(const Limits& limits) {
  const Window* longest = &kWindows[0];
  const auto consider = [&](const WindowLimit& limit) {
    for (const Window& w : kWindows)
      if ((limit.*w.limit) && w.seconds > longest->seconds) longest = &w;
  };
  consider(limits.rounds);
  for (const auto& [action, limit] : limits.actions) consider(limit);
  for (const auto& limit : limits.tokens) consider(limit.amount);
  return *longest;
}

// Why a log that holds every signature only since some time does: how it was begun.
std::string why_incomplete(const std::vector<AuditEntry>& log) {
  if (log.empty()) return "the log is empty and was not begun with `airlock-offline log start`";
  if (!log.front().start)
    return "the log was begun by its first decision, not by `airlock-offline log start`, so "
           "what an earlier log signed is unknown";
  if (log.front().start->previous == audit::Start::Previous::kLost)
    return "the log was started with --previous-lost";
  return "the log it continues held them only since then: it was begun by its first decision "
         "or after a lost log";
}

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  return a > std::numeric_limits<std::int64_t>::max() - b ? std::numeric_limits<std::int64_t>::max()
                                                          : a + b;
}

}  // namespace

// Vault instructions that move nothing out of the vault's own accounts: set-ups, closes,
// withdrawals back into the vault, fee claims the program computes, cancels, and perp orders
// (whose collateral left at its deposit, and was counted then).
constexpr std::string_view kMovesNothingOut[] = {
    "aggregator_initialize", "dlmm_initialize", "dlmm_remove",      "dlmm_claim_fee",
    "dlmm_zap_out",          "dlmm_close",      "dlmm_extend",      "dlmm_limit_order_cancel",
    "perp_initialize",       "perp_onboard",    "perp_withdraw",    "perp_order",
    "perp_cancel",           "perp_sweep",      "vault_initialize", "vault_update",
    "vault_claim_fee",       "vault_close",     "strategy_close"};

namespace {

// What a deposit into a pinned DLMM pool takes from the vault, per token: a liquidity deposit
// (open, add, add-range) its amount_x of token X and amount_y of token Y; a limit order the
// sum of its bins, of X when it sells (ask) and of Y when it buys (bid). nullopt when the
// instruction is not such a deposit or its pool is not pinned; a side whose amount cannot be
// read is nullopt inside.
struct PoolDeposit {
  std::optional<std::pair<PublicKey, std::uint64_t>> x, y;
};

std::optional<PoolDeposit> pool_deposit(const Review& review, const Decoded& d,
                                        const std::optional<PublicKey>& lb_pair) {
  static constexpr std::array kLiquidity = {"dlmm_open", "dlmm_add", "dlmm_add_range"};
  const bool liquidity =
      std::find(kLiquidity.begin(), kLiquidity.end(), d.instruction) != kLiquidity.end();
  if ((!liquidity && d.instruction != "dlmm_limit_order_place") || !lb_pair) return std::nullopt;
  const auto pinned = std::find_if(review.pools.begin(), review.pools.end(),
                                   [&](const auto& p) { return p.pinned && p.pool == *lb_pair; });
  if (pinned == review.pools.end()) return std::nullopt;
  PoolDeposit out;
  if (liquidity) {
    const auto x = integer_arg(d.args.value("amount_x", ojson()));
    const auto y = integer_arg(d.args.value("amount_y", ojson()));
    if (x && y) {
      out.x = {pinned->token_x, *x};
      out.y = {pinned->token_y, *y};
    }
    return out;
  }
  const ojson side = d.args.value("side", ojson());
  const std::string variant = side.is_object() && side.value("variant", ojson()).is_string()
                                  ? side["variant"].get<std::string>()
                                  : "";
  const ojson bins = d.args.value("bins", ojson());
  if ((variant != "Ask" && variant != "Bid") || !bins.is_array()) return out;
  std::uint64_t total = 0;
  for (const auto& bin : bins) {
    const auto amount = integer_arg(bin.is_object() ? bin.value("amount", ojson()) : ojson());
    if (!amount) return out;
    total = saturating_add(total, *amount);
  }
  const bool sells = variant == "Ask";
  out.x = {pinned->token_x, sells ? total : 0};
  out.y = {pinned->token_y, sells ? 0 : total};
  return out;
}

// What vault instruction `i` of step `s` moves out of the vault, counted into `out`: a known
// amount of a known mint, or named as what this machine cannot count.
void count_instruction(Outflows& out, const Review& review, const StepReview& s, std::size_t i) {
  const Message& m = s.tx.message;
  const auto& ix = m.instructions[i];
  const auto add = [&](const PublicKey& mint, std::uint64_t amount) {
    for (auto& o : out.known) {
      if (o.mint == mint) {
        o.amount = saturating_add(*o.amount, amount);
        return;
      }
    }
    out.known.push_back({mint, amount});
  };
  const auto unknown = [&](std::optional<PublicKey> mint, std::string what) {
    out.unknown.push_back({mint, std::move(what), s.index});
  };
  if (!s.instructions[i]) {
    unknown(std::nullopt, "vault instruction this machine cannot decode");
    return;
  }
  const Decoded& d = *s.instructions[i];
  // An account of the instruction by its IDL name, when it is a static key of the message.
  const auto account = [&](std::string_view name) -> std::optional<PublicKey> {
    const auto at = std::find(d.account_names.begin(), d.account_names.end(), name);
    if (at == d.account_names.end()) return std::nullopt;
    const auto k = static_cast<std::size_t>(at - d.account_names.begin());
    if (k >= ix.accounts.size() || ix.accounts[k] >= m.static_keys.size()) return std::nullopt;
    return m.static_keys[ix.accounts[k]];
  };
  // The mint an instruction spends: its mint argument only when its mint account says the
  // same (a request with no intent, from Keystone, binds neither to anything else).
  const auto spent_mint = [&](const char* arg, const char* account_name) {
    const auto from_arg = key_arg(d.args.value(arg, ojson()));
    const auto from_account = account(account_name);
    return from_arg && from_account && *from_arg == *from_account ? from_arg : std::nullopt;
  };
  if (d.instruction == "aggregator_swap" || d.instruction == "aggregator_sweep") {
    const bool swap = d.instruction == "aggregator_swap";
    const auto mint = spent_mint(swap ? "source_mint" : "mint", swap ? "source_mint" : "mint");
    const auto amount = integer_arg(d.args.value("amount", ojson()));
    // The route spends the vault's tokens: it must spend exactly the stated amount.
    const auto route = d.nested.find("route");
    const auto route_spends = route == d.nested.end()
                                  ? std::nullopt
                                  : integer_arg(route->second.args.value("in_amount", ojson()));
    if (mint && amount && route_spends == amount) {
      add(*mint, *amount);
    } else {
      unknown(mint, d.instruction +
                        " whose mint argument is not its mint account, or whose route "
                        "does not spend its stated amount");
    }
  } else if (d.instruction == "perp_deposit") {
    const auto mint = account("deposit_mint");
    const auto amount = integer_arg(d.args.value("amount", ojson()));
    if (mint && amount) {
      add(*mint, *amount);
    } else {
      unknown(mint, "perp_deposit whose mint is not a static account or amount unreadable");
    }
  } else if (const auto deposit = pool_deposit(review, d, account("lb_pair"))) {
    if (deposit->x && deposit->y) {
      if (deposit->x->second != 0) add(deposit->x->first, deposit->x->second);
      if (deposit->y->second != 0) add(deposit->y->first, deposit->y->second);
    } else {
      unknown(std::nullopt, d.instruction + " into pinned pool whose amounts are unreadable");
    }
  } else if (d.instruction == "dlmm_zap_out_swap") {
    unknown(spent_mint("source_mint", "source_mint"),
            "dlmm_zap_out_swap, which swaps what the position returns: no amount is stated");
  } else if (std::find(std::begin(kMovesNothingOut), std::end(kMovesNothingOut), d.instruction) ==
             std::end(kMovesNothingOut)) {
    // Deposits into a DLMM pool the policy does not pin (which tokens it holds only the
    // online half says), and flips, which state no amount.
    unknown(std::nullopt, d.instruction +
                              ", which moves tokens into a pool whose tokens this machine "
                              "cannot verify (pin the pool in [[pools]]) or states no "
                              "amount");
  }
}

}  // namespace

Outflows outflows_of(const Review& review) {
  Outflows out;
  const PublicKey& vault_program = programs::key(kVaultProgram);
  for (const auto& s : review.steps) {
    const Message& m = s.tx.message;
    for (std::size_t i = 0; i < m.instructions.size() && i < s.instructions.size(); ++i) {
      const auto& ix = m.instructions[i];
      if (ix.program_index >= m.static_keys.size()) continue;
      const PublicKey& program = m.static_keys[ix.program_index];
      if (!review.beyond_builder) {
        if (program == vault_program) count_instruction(out, review, s, i);
      } else if (i < s.bindings.size() && !s.bindings[i].empty() && s.instructions[i] &&
                 program != programs::key(programs::kAssociatedToken) &&
                 program != programs::key(programs::kSystem)) {
        // An instruction another program's descriptor binds (Voltr's deposit_strategy): no
        // rule here says which token it moves or how much, so a token limit fails closed.
        out.unknown.push_back({std::nullopt,
                               s.instructions[i]->program + " " + s.instructions[i]->instruction +
                                   ", whose amounts no rule of this machine counts",
                               s.index});
      }
    }
  }
  return out;
}

namespace {

void refuse(LimitsVerdict& v, std::string message) {
  v.refusals.emplace_back(FindingCode::kPolicyLimit, std::move(message));
}

// Why no window can be counted from this log at `now`, or nullopt when every window can.
// Fail closed: with a clock behind the log, a closed log, or a log that does not hold every
// signature over the longest window, nothing is counted.
std::optional<std::string> why_uncountable(const Limits& limits, const std::vector<AuditEntry>& log,
                                           std::int64_t now) {
  // The latest time of any entry, not the last line's: an entry written while the clock was
  // behind would otherwise move the check back with it (found by an independent review).
  std::int64_t latest = std::numeric_limits<std::int64_t>::min();
  for (const auto& e : log) latest = std::max(latest, e.time);
  if (!log.empty() && now < latest) {
    return "the offline clock reads " + std::to_string(now) +
           ", earlier than the audit log's latest entry (" + std::to_string(latest) +
           "): the windows cannot be placed; set the clock";
  }
  // A closed (or closing) log was continued in another: what was signed since is there.
  if (!log.empty() && audit::ends_log(log.back())) {
    return "the audit log was closed at " + std::to_string(log.back().time) +
           " and continued in another log, which holds what was signed since: count from that "
           "log";
  }
  // The windows must lie where the log holds every signature: a log begun without saying what
  // came before it (or after losing the one before) would count an earlier day as empty.
  const Window& longest = longest_window(limits);
  if (const auto since = audit::complete_since(log, now); since && *since > now - longest.seconds) {
    return "the last " + std::string(longest.name) +
           " cannot be counted: this audit log holds every signature only since " +
           iso_utc(*since) + " (" + why_incomplete(log) + "); it can from " +
           iso_utc(saturating_add(*since, longest.seconds)) +
           ", or start logs with `airlock-offline log start` (--first for a key that has never "
           "signed, --continue-from OLD to carry the last day over)";
  }
  return std::nullopt;
}

// Signed here, or carried over from the log before this one, inside window `w` before `now`.
bool signed_in(const AuditEntry& e, const Window& w, std::int64_t now) {
  return (e.decision == audit::Decision::kSigned || e.decision == audit::Decision::kCarried) &&
         e.time > now - w.seconds;
}

// Signed requests in each window `limit` caps: of any action (`action` null), or of one.
// A Keystone request names no action and may carry any vault instruction: it counts against
// every action's cap, as a request and in the log (over-counting, never under).
void count_requests(LimitsVerdict& v, const WindowLimit& limit, const std::string& what,
                    const std::string* action, const std::vector<AuditEntry>& log,
                    std::int64_t now) {
  for (const Window& w : kWindows) {
    if (!(limit.*w.limit)) continue;
    const std::uint64_t cap = *(limit.*w.limit);
    const auto used =
        static_cast<std::uint64_t>(std::count_if(log.begin(), log.end(), [&](const AuditEntry& e) {
          return signed_in(e, w, now) &&
                 (action == nullptr || e.action == *action || e.action == kKeystoneAction);
        }));
    v.lines.push_back(what + ", last " + w.name + ": " + std::to_string(used) + " of " +
                      std::to_string(cap) + " (this request makes " + std::to_string(used + 1) +
                      ")");
    if (used + 1 > cap)
      refuse(v, what + " in the last " + w.name + ": " + std::to_string(used) + " of " +
                    std::to_string(cap) + " already signed; this request would be one more");
  }
}

// What the log's entries in window `w` moved of `mint`; or, when an entry in it recorded no
// amounts or an amount its bytes did not state, that entry (the window cannot be counted).
struct TokenUse {
  std::uint64_t used = 0;
  const AuditEntry* unrecorded = nullptr;
  const AuditEntry* unstated = nullptr;
};

TokenUse token_use(const PublicKey& mint, const Window& w, const std::vector<AuditEntry>& log,
                   std::int64_t now) {
  TokenUse use;
  for (const auto& e : log) {
    if (!signed_in(e, w, now)) continue;
    if (!e.outflows) {
      use.unrecorded = &e;
      continue;
    }
    for (const auto& o : *e.outflows) {
      if (!o.mint || (*o.mint == mint && !o.amount)) {
        use.unstated = &e;
      } else if (*o.mint == mint) {
        use.used = saturating_add(use.used, *o.amount);
      }
    }
  }
  return use;
}

// One pinned token leaving the vault, in base units of its mint, in each window `limit` caps.
void count_token(LimitsVerdict& v, const TokenLimit& limit, const Outflows& outflows,
                 const std::vector<AuditEntry>& log, std::int64_t now) {
  const PinnedToken& token = limit.token;
  const auto amount_text = [&](std::uint64_t base) {
    return whole_units(std::to_string(base), token.decimals) + " " + token.symbol;
  };
  const std::string what = token.symbol + " leaving the vault";
  bool judged = true;
  for (const auto& u : outflows.unknown) {
    if (!u.mint || *u.mint == token.mint) {
      refuse(v, what + " cannot be judged: step " + std::to_string(u.step + 1) + " is a " + u.what);
      judged = false;
    }
  }
  if (!judged) return;
  std::uint64_t asked = 0;
  for (const auto& o : outflows.known)
    if (o.mint == token.mint) asked = saturating_add(asked, o.amount.value_or(0));
  for (const Window& w : kWindows) {
    if (!(limit.amount.*w.limit)) continue;
    const std::uint64_t cap = *(limit.amount.*w.limit);
    const TokenUse use = token_use(token.mint, w, log, now);
    if (use.unrecorded != nullptr || use.unstated != nullptr) {
      const AuditEntry& e = use.unrecorded != nullptr ? *use.unrecorded : *use.unstated;
      refuse(v, what + " in the last " + w.name + " cannot be counted: audit entry " +
                    std::to_string(e.seq) +
                    (use.unrecorded != nullptr ? " was signed before amounts were recorded"
                                               : " moved an amount its bytes did not state") +
                    "; it leaves the window at " +
                    std::to_string(saturating_add(e.time, w.seconds)));
      continue;
    }
    v.lines.push_back(what + ", last " + w.name + ": " + amount_text(use.used) + " of " +
                      amount_text(cap) + " (this request " + amount_text(asked) + ")");
    if (saturating_add(use.used, asked) > cap)
      refuse(v, what + " in the last " + w.name + ": " + amount_text(use.used) + " of " +
                    amount_text(cap) + " already signed; this request moves " + amount_text(asked));
  }
}

}  // namespace

LimitsVerdict check_limits(const Policy& policy, const envelope::SignRequest& request,
                           const Outflows& outflows, const std::vector<AuditEntry>* log,
                           std::int64_t now) {
  LimitsVerdict v;
  const Limits& limits = policy.limits;
  if (!limits.any()) return v;
  if (log == nullptr) {
    refuse(v, "the policy sets limits, and there is no audit log to count them from");
    return v;
  }
  if (auto why = why_uncountable(limits, *log, now)) {
    refuse(v, std::move(*why));
    return v;
  }
  count_requests(v, limits.rounds, "signed requests", nullptr, *log, now);
  for (const auto& [action, limit] : limits.actions) {
    if (action == request.action || request.action == kKeystoneAction)
      count_requests(v, limit, "signed " + action + " requests", &action, *log, now);
  }
  for (const TokenLimit& limit : limits.tokens) count_token(v, limit, outflows, *log, now);
  return v;
}

}  // namespace airlock::offline
