#include <algorithm>
#include <charconv>
#include <limits>

#include <airlock/common/programs.h>
#include <airlock/common/units.h>
#include <airlock/offline/limits.h>

namespace airlock::offline {
namespace {

using ojson = nlohmann::ordered_json;

// An IDL integer argument: a JSON number, or a string when wider than 53 bits.
std::optional<std::uint64_t> u64_arg(const ojson& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (!v.is_string()) return std::nullopt;
  const std::string text = v.get<std::string>();
  std::uint64_t out = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return out;
}

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

}  // namespace

Outflows outflows_of(const Review& review) {
  Outflows out;
  const PublicKey& vault_program = programs::key(kVaultProgram);
  const auto add = [&](const PublicKey& mint, std::uint64_t amount) {
    for (auto& o : out.known) {
      if (o.mint == mint) {
        o.amount = saturating_add(o.amount, amount);
        return;
      }
    }
    out.known.push_back({mint, amount});
  };
  for (const auto& s : review.steps) {
    const Message& m = s.tx.message;
    for (std::size_t i = 0; i < m.instructions.size() && i < s.instructions.size(); ++i) {
      const auto& ix = m.instructions[i];
      if (ix.program_index >= m.static_keys.size() ||
          m.static_keys[ix.program_index] != vault_program || !s.instructions[i])
        continue;
      const Decoded& d = *s.instructions[i];
      const auto unknown = [&](std::optional<PublicKey> mint, std::string what) {
        out.unknown.push_back({mint, std::move(what), s.index});
      };
      if (d.instruction == "aggregator_swap" || d.instruction == "aggregator_sweep") {
        const auto mint = key_arg(
            d.args.value(d.instruction == "aggregator_swap" ? "source_mint" : "mint", ojson()));
        const auto amount = u64_arg(d.args.value("amount", ojson()));
        if (mint && amount) {
          add(*mint, *amount);
        } else {
          unknown(mint, d.instruction + " with an unreadable mint or amount");
        }
      } else if (d.instruction == "perp_deposit") {
        // The mint is an account: known when it is a static key of the message.
        std::optional<PublicKey> mint;
        const auto at = std::find(d.account_names.begin(), d.account_names.end(), "deposit_mint");
        if (at != d.account_names.end()) {
          const auto k = static_cast<std::size_t>(at - d.account_names.begin());
          if (k < ix.accounts.size() && ix.accounts[k] < m.static_keys.size())
            mint = m.static_keys[ix.accounts[k]];
        }
        const auto amount = u64_arg(d.args.value("amount", ojson()));
        if (mint && amount) {
          add(*mint, *amount);
        } else {
          unknown(mint, "perp_deposit whose mint is not a static account or amount unreadable");
        }
      } else if (d.instruction == "dlmm_zap_out_swap") {
        unknown(key_arg(d.args.value("source_mint", ojson())),
                "dlmm_zap_out_swap, which swaps what the position returns: no amount is stated");
      }
    }
  }
  return out;
}

LimitsVerdict check_limits(const Policy& policy, const envelope::SignRequest& request,
                           const Outflows& outflows, const std::vector<AuditEntry>* log,
                           std::int64_t now) {
  LimitsVerdict v;
  const Limits& limits = policy.limits;
  if (!limits.any()) return v;
  const auto refuse = [&](std::string message) {
    v.refusals.push_back({"policy.limit", std::move(message), std::nullopt});
  };
  // Fail closed: without the log, or with a clock behind it, no window can be counted.
  if (log == nullptr) {
    refuse("the policy sets limits, and there is no audit log to count them from");
    return v;
  }
  if (!log->empty() && now < log->back().time) {
    refuse("the offline clock reads " + std::to_string(now) +
           ", earlier than the audit log's last entry (" + std::to_string(log->back().time) +
           "): the windows cannot be placed; set the clock");
    return v;
  }
  const auto signed_in = [&](const AuditEntry& e, const Window& w) {
    return e.decision == audit::Decision::kSigned && e.time > now - w.seconds;
  };

  // Signed requests: of any action, and of this one.
  const auto count_rounds = [&](const WindowLimit& limit, const std::string& what,
                                bool this_action_only) {
    for (const Window& w : kWindows) {
      if (!(limit.*w.limit)) continue;
      const std::uint64_t cap = *(limit.*w.limit);
      const auto used = static_cast<std::uint64_t>(
          std::count_if(log->begin(), log->end(), [&](const AuditEntry& e) {
            return signed_in(e, w) && (!this_action_only || e.action == request.action);
          }));
      v.lines.push_back(what + ", last " + w.name + ": " + std::to_string(used) + " of " +
                        std::to_string(cap) + " (this request makes " + std::to_string(used + 1) +
                        ")");
      if (used + 1 > cap)
        refuse(what + " in the last " + w.name + ": " + std::to_string(used) + " of " +
               std::to_string(cap) + " already signed; this request would be one more");
    }
  };
  count_rounds(limits.rounds, "signed requests", false);
  if (const auto it = limits.actions.find(request.action); it != limits.actions.end())
    count_rounds(it->second, "signed " + request.action + " requests", true);

  // Tokens leaving the vault, in base units of the pinned mint.
  for (const TokenLimit& limit : limits.tokens) {
    const PinnedToken& token = limit.token;
    const auto amount_text = [&](std::uint64_t base) {
      return whole_units(std::to_string(base), token.decimals) + " " + token.symbol;
    };
    const std::string what = token.symbol + " leaving the vault";
    bool judged = true;
    for (const auto& u : outflows.unknown) {
      if (!u.mint || *u.mint == token.mint) {
        refuse(what + " cannot be judged: step " + std::to_string(u.step + 1) + " is a " + u.what);
        judged = false;
      }
    }
    if (!judged) continue;
    std::uint64_t asked = 0;
    for (const auto& o : outflows.known)
      if (o.mint == token.mint) asked = saturating_add(asked, o.amount);
    for (const Window& w : kWindows) {
      if (!(limit.amount.*w.limit)) continue;
      const std::uint64_t cap = *(limit.amount.*w.limit);
      std::uint64_t used = 0;
      const AuditEntry* unrecorded = nullptr;
      for (const auto& e : *log) {
        if (!signed_in(e, w)) continue;
        if (!e.outflows) {
          unrecorded = &e;
          continue;
        }
        for (const auto& o : *e.outflows)
          if (o.mint == token.mint) used = saturating_add(used, o.amount);
      }
      if (unrecorded != nullptr) {
        refuse(what + " in the last " + w.name + " cannot be counted: audit entry " +
               std::to_string(unrecorded->seq) +
               " was signed before amounts were recorded; it leaves the window at " +
               std::to_string(unrecorded->time + w.seconds));
        continue;
      }
      v.lines.push_back(what + ", last " + w.name + ": " + amount_text(used) + " of " +
                        amount_text(cap) + " (this request " + amount_text(asked) + ")");
      if (saturating_add(used, asked) > cap)
        refuse(what + " in the last " + w.name + ": " + amount_text(used) + " of " +
               amount_text(cap) + " already signed; this request moves " + amount_text(asked));
    }
  }
  return v;
}

}  // namespace airlock::offline
