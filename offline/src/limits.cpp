#include <algorithm>
#include <array>
#include <limits>

#include <airlock/common/display.h>
#include <airlock/common/units.h>
#include <airlock/offline/limits.h>

namespace airlock::offline {
namespace {

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

namespace {

// The mint an amount the review read is in, when this machine can vouch for it: its unit
// account must be a static key of the message (a key from a lookup table is only as good as
// the table), and a pool's token X or Y is the policy's word only for a pool it pins.
// Otherwise nullopt, and `why` says which.
std::optional<PublicKey> unit_mint(const Review& review, const StepReview& s, const StatedAmount& a,
                                   std::string& why) {
  const Message& m = s.tx.message;
  bool is_static = false;
  if (a.instruction < s.instructions.size() && s.instructions[a.instruction]) {
    const auto& names = s.instructions[a.instruction]->account_names;
    const auto k = static_cast<std::size_t>(std::find(names.begin(), names.end(), a.unit_account) -
                                            names.begin());
    const auto& accounts = m.instructions[a.instruction].accounts;
    is_static = k < names.size() && k < accounts.size() && accounts[k] < m.static_keys.size();
  }
  if (!is_static) {
    why = "whose " + a.unit_account + " account, the unit of " + a.path +
          ", is no static key of the message";
    return std::nullopt;
  }
  if (a.side == AmountUnit::Side::kKey) return a.mint_or_pool;
  const auto pinned = std::find_if(review.pools.begin(), review.pools.end(), [&](const auto& p) {
    return p.pinned && p.pool == a.mint_or_pool;
  });
  if (pinned == review.pools.end()) {
    why =
        "which moves tokens into a pool whose tokens this machine cannot verify (pin the pool "
        "in [[pools]])";
    return std::nullopt;
  }
  return a.side == AmountUnit::Side::kTokenX ? pinned->token_x : pinned->token_y;
}

// What the instruction a descriptor binds as step `s`'s own moves out of the vault, counted
// into `out`: each amount its descriptor's `outflows` names, read by the review in its unit, or
// named as what this machine cannot count.
void count_instruction(Outflows& out, const Review& review, const StepReview& s,
                       const StepOutflows& main) {
  const auto unknown = [&](std::string what) {
    out.unknown.push_back({std::nullopt, main.name + ", " + std::move(what), s.index});
  };
  if (!main.paths) {
    unknown("which moves tokens or states no amount its descriptor counts as leaving the vault");
    return;
  }
  for (const auto& path : *main.paths) {
    const auto a = std::find_if(s.amounts.begin(), s.amounts.end(), [&](const StatedAmount& x) {
      return x.instruction == main.instruction && x.path == path;
    });
    if (a == s.amounts.end()) {
      unknown("whose " + path + " or its unit cannot be read from the transaction");
      continue;
    }
    std::string why;
    const auto mint = unit_mint(review, s, *a, why);
    if (!mint) {
      unknown(why);
      continue;
    }
    constexpr auto kMost = std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t amount = a->total > kMost ? kMost : static_cast<std::uint64_t>(a->total);
    if (amount == 0) continue;
    const auto known = std::find_if(out.known.begin(), out.known.end(),
                                    [&](const audit::Outflow& o) { return o.mint == *mint; });
    if (known == out.known.end()) {
      out.known.push_back({*mint, amount});
    } else {
      known->amount = saturating_add(*known->amount, amount);
    }
  }
}

}  // namespace

Outflows outflows_of(const Review& review) {
  Outflows out;
  for (const auto& s : review.steps) {
    // Every step holds one instruction a descriptor binds, or the review refuses it; a step
    // without one is still never counted as moving nothing.
    if (s.outflows.empty())
      out.unknown.push_back({std::nullopt, "a step no descriptor binds", s.index});
    for (const auto& main : s.outflows) count_instruction(out, review, s, main);
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
