#include <algorithm>
#include <optional>
#include <set>

#include <airlock/common/display.h>
#include <airlock/common/pda.h>
#include <airlock/common/programs.h>
#include <airlock/common/units.h>
#include <airlock/formats/actions.h>
#include <airlock/offline/arguments.h>
#include <airlock/offline/checkers.h>
#include <airlock/offline/prices.h>
#include <airlock/offline/templates.h>
#include <airlock/offline/vault_addresses.h>

namespace airlock::offline {
namespace {

using ojson = nlohmann::ordered_json;
using Src = AccountSource::Kind;

// The integer at `path` inside decoded arguments, if it is one.
std::optional<std::int64_t> arg_int(const ojson& a, const std::vector<std::string>& path) {
  const ojson* at = &a;
  for (const auto& p : path) {
    if (!at->is_object() || !at->contains(p)) return std::nullopt;
    at = &(*at)[p];
  }
  return at->is_number_integer() ? std::optional(at->get<std::int64_t>()) : std::nullopt;
}

// One instruction being bound: its decoded form and its accounts' keys.
struct Bound {
  const Decoded& d;
  const std::vector<std::optional<PublicKey>>& keys;
  Derivations& derive;

  std::optional<PublicKey> key(std::string_view role) const {
    for (std::size_t i = 0; i < d.account_names.size() && i < keys.size(); ++i) {
      if (d.account_names[i] == role) return keys[i];
    }
    return std::nullopt;
  }
};

// ---- derivations: an address computed here from the instruction's own accounts -------------

// The bin a derivation names: the sum of its terms; nullopt when an argument is missing or the
// sum overflows.
std::optional<std::int64_t> bin_of(const Derivation& d, const Bound& b) {
  std::int64_t sum = 0;
  for (const auto& t : d.bin) {
    std::int64_t term = t.constant;
    if (!t.arg.empty()) {
      const auto value = arg_int(b.d.args, t.arg);
      if (!value) return std::nullopt;
      term = *value;
    }
    if (__builtin_add_overflow(sum, term, &sum)) return std::nullopt;
  }
  return sum;
}

std::optional<PublicKey> derive(const Derivation& d, const Bound& b) {
  switch (d.kind) {
    case Derivation::Kind::kPda: {
      std::vector<Bytes> seeds;
      for (const auto& s : d.seeds) {
        if (s.kind == SeedSource::Kind::kConst) {
          seeds.push_back(s.bytes);
          continue;
        }
        const auto k = b.key(s.account);
        if (!k) return std::nullopt;
        seeds.push_back(seed(*k));
      }
      return b.derive.pda(seeds, d.program);
    }
    case Derivation::Kind::kAssociatedToken: {
      const auto owner = b.key(d.owner), mint = b.key(d.mint), token = b.key(d.token_program);
      if (!owner || !mint || !token) return std::nullopt;
      return b.derive.associated(*owner, *mint, *token);
    }
    case Derivation::Kind::kBinArray: {
      const auto pool = b.key(d.pool);
      const auto bin = bin_of(d, b);
      if (!pool || !bin) return std::nullopt;
      return b.derive.bin_array(d.program, *pool, *bin);
    }
  }
  return std::nullopt;
}

// Two roles of one instruction may hold one key only when each binds it by itself to the same
// thing: both the manager (a payer that is the manager), both the vault, both a token program,
// or both addresses derived here (a step's two bin arrays when its bins lie in one array).
bool may_share(const AccountSource& a, const AccountSource& b) {
  return a.kind == b.kind && (a.kind == Src::kManager || a.kind == Src::kVault ||
                              a.kind == Src::kDerived || a.kind == Src::kTokenProgram);
}

// The described instruction a step of the action holds at `d`, if it is one.
const DescribedInstruction* described(const TemplateInput& in, const PublicKey& program,
                                      const Decoded& d) {
  return in.descriptor.step_instruction(in.action, program, d.instruction);
}

std::string short_key(const PublicKey& k) { return to_base58(k); }

// ---- binding one step -----------------------------------------------------------------------

class StepBinder {
 public:
  StepBinder(const TemplateInput& in, StepReview& s, TemplateFindings& out)
      : in_(in), s_(s), out_(out), m_(s.tx.message) {}

  void run() {
    const std::size_t n = s_.roles.size();
    want_writable_.assign(n, false);
    want_signer_.assign(n, false);
    free_flags_.assign(n, false);
    if (n > 0) want_writable_[0] = want_signer_[0] = true;  // the fee payer
    s_.bindings.assign(m_.instructions.size(), {});
    std::size_t mains = 0;
    std::set<std::string> budget_seen;
    std::vector<PublicKey> step_mints;
    // The main instruction first: ATA creations may only be for mints it names.
    for (std::size_t i = 0; i < m_.instructions.size(); ++i) {
      if (!s_.instructions[i]) continue;
      const PublicKey& program = m_.static_keys[m_.instructions[i].program_index];
      if (const auto* ix = described(in_, program, *s_.instructions[i])) {
        ++mains;
        bind_main(i, *ix, step_mints);
      }
    }
    for (std::size_t i = 0; i < m_.instructions.size(); ++i) {
      if (!s_.instructions[i]) continue;  // refused as undecodable already
      const auto& ix = m_.instructions[i];
      const Decoded& d = *s_.instructions[i];
      const PublicKey& program = m_.static_keys[ix.program_index];
      if (described(in_, program, d) != nullptr) continue;
      if (program == programs::key(programs::kComputeBudget)) {
        if (!ix.accounts.empty() || !budget_seen.insert(d.instruction).second) {
          refuse(FindingCode::kIntentInstruction, "instruction " + std::to_string(i + 1) +
                                                      " (compute budget " + d.instruction +
                                                      ") is repeated or names accounts");
        }
        // The builders set the unit limit and price only (request_units is refused with its
        // fee); a heap frame or an accounts-data limit is no builder's, and a small limit makes
        // the step fail with its fee paid.
        if (d.instruction != "set_compute_unit_limit" &&
            d.instruction != "set_compute_unit_price" && d.instruction != "request_units") {
          refuse(FindingCode::kIntentInstruction,
                 "instruction " + std::to_string(i + 1) + " (compute budget " + d.instruction +
                     ") is not part of a build: only the unit limit and price are");
        }
        // Nor does one set a limit too small for any vault instruction to run in (an attacker
        // review had a limit of 0 auto-approved): the step could only fail, its fee paid.
        constexpr std::uint64_t kLeastUnits = 10'000;
        if (d.instruction == "set_compute_unit_limit") {
          const auto units = Arguments(d.args).amount("units");
          if (units && *units < kLeastUnits)
            refuse(FindingCode::kIntentInstruction,
                   "instruction " + std::to_string(i + 1) + " sets a compute-unit limit of " +
                       std::to_string(*units) + ": no vault instruction runs in under " +
                       std::to_string(kLeastUnits) +
                       " units, so the step could only fail with its fee paid");
        }
        continue;
      }
      if (program == programs::key(programs::kSystem) && d.instruction == "advance_nonce_account") {
        // The runtime treats only a first-instruction advance as a durable nonce; the nonce
        // rules of the policy apply to it (policy.durable_nonce).
        if (i != 0)
          refuse(FindingCode::kIntentInstruction,
                 "instruction " + std::to_string(i + 1) +
                     " advances a nonce account; a nonce advance may only come first");
        bind_nonce(i);
        continue;
      }
      if (program == programs::key(programs::kAssociatedToken) &&
          (d.instruction == "create" || d.instruction == "create_idempotent")) {
        bind_ata_creation(i, step_mints);
        continue;
      }
      refuse(FindingCode::kIntentInstruction,
             "instruction " + std::to_string(i + 1) + " (" + d.program + " " + d.instruction +
                 ") is not part of " + in_.action.name + "'s template");
    }
    if (mains != 1) {
      refuse(FindingCode::kIntentInstruction, "a step of " + in_.action.name +
                                                  " holds exactly one of its instructions (" +
                                                  main_names() + "), not " + std::to_string(mains));
    }
    compare_flags();
  }

 private:
  void refuse(FindingCode code, std::string message) {
    out_.refusals.emplace_back(code, std::move(message), s_.index);
  }
  void warn(FindingCode code, std::string message) {
    out_.warnings.emplace_back(code, std::move(message), s_.index);
  }

  std::string main_names() const {
    std::string names;
    for (const auto& key : in_.action.instructions)
      names += (names.empty() ? "" : " or ") + in_.descriptor.instruction(key)->instruction;
    return names;
  }

  std::vector<std::optional<PublicKey>> keys_of(const CompiledInstruction& ix) const {
    std::vector<std::optional<PublicKey>> keys;
    for (const auto a : ix.accounts)
      keys.push_back(a < s_.roles.size() ? s_.roles[a].key : std::nullopt);
    return keys;
  }

  void use(std::uint8_t account, bool writable, bool signer) {
    if (account >= want_writable_.size()) return;
    want_writable_[account] = want_writable_[account] || writable;
    want_signer_[account] = want_signer_[account] || signer;
  }

  // The key the body gives at the first of `pointers` it has. A body that has more than one
  // of them gives none: one instruction serving two actions names its value by either field,
  // and a body with both could steer the one bound away from the one the action reads.
  std::optional<PublicKey> request_key(const std::vector<std::string>& pointers) const {
    if (present(pointers) > 1) return std::nullopt;
    for (const auto& pointer : pointers) {
      const ojson* v = in_.intent.is_object() ? body_at(in_.intent, pointer) : nullptr;
      if (v == nullptr) continue;
      if (!v->is_string()) return std::nullopt;
      auto key = public_key_from_base58(v->get_ref<const std::string&>());
      return key.ok() ? std::optional(*key) : std::nullopt;
    }
    return std::nullopt;
  }

  // How many of `pointers` the body has.
  std::size_t present(const std::vector<std::string>& pointers) const {
    if (!in_.intent.is_object()) return 0;
    return static_cast<std::size_t>(
        std::count_if(pointers.begin(), pointers.end(),
                      [&](const std::string& p) { return body_at(in_.intent, p) != nullptr; }));
  }

  // The lookup table `account` is loaded from when the policy does not pin it (its key is then
  // the online half's word alone); nullopt for a static key or a pinned table's.
  std::optional<PublicKey> unpinned_table(std::uint8_t account) const {
    if (account >= s_.roles.size()) return std::nullopt;
    const AccountRole& role = s_.roles[account];
    if (role.origin == AccountOrigin::kStatic || role.lookup >= m_.lookups.size())
      return std::nullopt;
    const PublicKey& table = m_.lookups[role.lookup].table;
    if (in_.policy.pinned(table) != nullptr) return std::nullopt;
    return table;
  }

  void bind_main(std::size_t i, const DescribedInstruction& described_ix,
                 std::vector<PublicKey>& step_mints) {
    const auto& ix = m_.instructions[i];
    Decoded& d = *s_.instructions[i];
    const auto keys = keys_of(ix);
    const auto& spec = described_ix.accounts;
    const bool rest_follows = !described_ix.remaining.empty();
    const std::string where = "instruction " + std::to_string(i + 1) + " (" + d.instruction + ")";
    auto& bindings = s_.bindings[i];
    const Bound b{d, keys, in_.derivations};
    for (std::size_t p = 0; p < ix.accounts.size(); ++p) {
      const std::uint8_t account = ix.accounts[p];
      const std::optional<PublicKey>& key = keys[p];
      if (p >= spec.size()) {
        if (!rest_follows) {
          refuse(FindingCode::kIntentAccount,
                 where + " passes " + std::to_string(ix.accounts.size()) +
                     " accounts; its template names " + std::to_string(spec.size()));
          return;
        }
        passed_account(described_ix.remaining, p - spec.size(), account, key, where, bindings);
        continue;
      }
      const DescribedAccount& rule = spec[p];
      if (p >= d.account_names.size() || d.account_names[p] != rule.name) {
        refuse(FindingCode::kIntentAccount, where + ": account " + std::to_string(p + 1) +
                                                " is not the template's " + rule.name +
                                                " (the IDL and the template disagree)");
        return;
      }
      use(account, p < d.account_writable.size() && d.account_writable[p],
          p < d.account_signer.size() && d.account_signer[p]);
      if (!key) {
        bindings.push_back({rule.name, "unbound", "loaded from an unknown table"});
        continue;  // refused where the table is checked
      }
      // Found by an independent attacker review: the vault's destination account moved into an
      // unpinned table was shown "computed here" and signed, though on chain the table could
      // hold the attacker's account at that index.
      if (const auto table = unpinned_table(account)) {
        refuse(FindingCode::kPolicyLookupTableBound,
               where + ": " + rule.name + " is loaded from lookup table " + to_base58(*table) +
                   ", which the policy does not pin: the account at that index is the table's "
                   "to say on chain, and only the online half's hint names it here (" +
                   short_key(*key) +
                   "); an account this machine binds must be a static key of the message or "
                   "come from a pinned table");
        bindings.push_back({rule.name, "refused", "loaded from a table the policy does not pin"});
        continue;
      }
      bindings.push_back(bind(rule, *key, account, b, where));
      if (std::find(described_ix.mints.begin(), described_ix.mints.end(), rule.name) !=
          described_ix.mints.end()) {
        step_mints.push_back(*key);
        in_.own.add_mint(*key);
      }
    }
    distinct_roles(spec, keys, where);
    if (rest_follows) not_named_here(spec.size(), keys, bindings, where);
    if (described_ix.remaining == "jupiter_route") {
      route(d, keys, where);
      price(described_ix, b, where);
    }
    arguments(described_ix, d, where);
    stated_amounts(described_ix, b, i);
    s_.outflows.push_back({i, d.instruction, described_ix.outflows});
    // A step that only prepares the action (a swap's strategy set-up) announces what follows,
    // or the manager would have paid for a set-up with nothing after it.
    for (const auto& [key, then] : in_.action.then) {
      if (key != described_ix.key || in_.no_intent || s_.index >= in_.request.steps.size())
        continue;
      const auto& next = in_.request.steps[s_.index].next_action;
      if (!next || *next != then)
        refuse(FindingCode::kIntentInstruction, where + " only prepares " + then +
                                                    ", so its step must announce " + then +
                                                    " as its follow-up");
    }
  }

  // The amounts the descriptor says the instruction moves, for the screens: each in the unit
  // its mint account (or its pool's token, by the enum variant where that picks it) gives, and
  // a Jupiter route's spend and quote in the units of the mints the swap sells and buys.
  void stated_amounts(const DescribedInstruction& described_ix, const Bound& b, std::size_t i) {
    const Decoded& d = b.d;
    const Arguments args(d.args);
    for (const auto& a : described_ix.amounts) {
      std::string variant;
      if (!a.by.empty()) variant = args.variant(a.by).value_or("");
      const auto unit = std::find_if(a.units.begin(), a.units.end(),
                                     [&](const auto& u) { return u.first == variant; });
      if (unit == a.units.end()) continue;
      const auto key = b.key(unit->second.account);
      if (!key) continue;
      unsigned __int128 total = 0;
      const auto dot = a.path.find('.');
      const ojson* list = dot == std::string::npos ? nullptr : args.at(a.path.substr(0, dot));
      if (list != nullptr && list->is_array()) {
        for (const auto& element : *list) {
          if (const auto v = Arguments(element).amount(a.path.substr(dot + 1))) total += *v;
        }
      } else if (const auto v = args.amount(a.path)) {
        total = *v;
      } else {
        continue;
      }
      s_.amounts.push_back(
          {i, a.path, total, *key, unit->second.side, a.moves, unit->second.account});
    }
    const auto route = d.nested.find("route");
    if (described_ix.remaining != "jupiter_route" || route == d.nested.end()) return;
    const Arguments plan(route->second.args);
    for (const auto& [field, mint] : {std::pair{"in_amount", &described_ix.sells},
                                      std::pair{"quoted_out_amount", &described_ix.buys}}) {
      const auto key = b.key(*mint);
      const auto v = plan.amount(field);
      if (key && v)
        s_.amounts.push_back(
            {i, "route." + std::string(field), *v, *key, AmountUnit::Side::kKey, {}, *mint});
    }
  }

  // The accounts past the named ones (a route's pools, an adaptor's accounts) are never one of
  // the accounts this instruction binds as the vault, the manager or an address derived here:
  // those are the vault's own, whoever passes them on.
  void not_named_here(std::size_t named, const std::vector<std::optional<PublicKey>>& keys,
                      std::vector<AccountBinding>& bindings, const std::string& where) {
    for (std::size_t p = named; p < keys.size() && p < bindings.size(); ++p) {
      if (!keys[p] || bindings[p].source == "refused") continue;
      for (std::size_t q = 0; q < named && q < keys.size(); ++q) {
        const std::string& source = bindings[q].source;
        if (keys[q] != keys[p] || (source != "vault" && source != "derived" && source != "manager"))
          continue;
        refuse(FindingCode::kIntentAccount, where + ": " + bindings[p].role + " " +
                                                short_key(*keys[p]) + " is the instruction's own " +
                                                bindings[q].role +
                                                "; an account passed on may "
                                                "not be one of the vault's own");
        bindings[p] = {bindings[p].role, "refused", "the instruction's own " + bindings[q].role};
        break;
      }
    }
  }

  // Each argument the descriptor rules, by its rule (docs/descriptors.md, "Argument rules"). A
  // request with no build request holds what needs none: the policy's ceilings and the named
  // checkers' rules on the instruction alone; the rest is the warning that it has no intent.
  void arguments(const DescribedInstruction& described_ix, const Decoded& d,
                 const std::string& where) {
    const Arguments args(d.args);
    const ojson* body = in_.no_intent || !in_.intent.is_object() ? nullptr : &in_.intent;
    const ActionRule rule = in_.policy.rule(in_.action.name);
    std::set<std::string_view> checked;
    for (const auto& arg : described_ix.args) {
      const ArgumentRule& r = arg.rule;
      const std::string what = where + ": " + arg.name + " " + args.shown(arg.name);
      switch (r.kind) {
        case ArgumentRule::Kind::kShown:
          warn(r.code != nullptr ? *r.code : FindingCode::kWarnUnboundArgument,
               what + " is bound to nothing the manager asked: " + r.reason);
          continue;
        case ArgumentRule::Kind::kUnconstrained:
          continue;
        case ArgumentRule::Kind::kChecker: {
          const NamedChecker* checker = argument_checker(r.checker);
          if (checker->check == nullptr || !checked.insert(checker->name).second) continue;
          TemplateFindings found;
          checker->check({d, args, body, rule, in_.action.name, where}, found);
          for (auto* list : {&found.refusals, &found.warnings}) {
            for (auto& f : *list) f.step = s_.index;
          }
          out_.refusals.insert(out_.refusals.end(), found.refusals.begin(), found.refusals.end());
          out_.warnings.insert(out_.warnings.end(), found.warnings.begin(), found.warnings.end());
          continue;
        }
        default:
          break;
      }
      within_ceiling(r, args, arg.name, rule, what);
      if (body != nullptr) held_to_body(r, args, arg.name, *body, what);
    }
  }

  // The policy's ceiling for the action on an argument (a slippage in bps or bins).
  void within_ceiling(const ArgumentRule& r, const Arguments& args, const std::string& name,
                      const ActionRule& rule, const std::string& what) {
    if (r.ceiling.empty()) return;
    const auto ceiling =
        r.ceiling == "max_slippage_bps" ? rule.max_slippage_bps : rule.max_active_bin_slippage;
    if (!ceiling) return;
    const auto value = args.integer(name);
    if (!value || *value < 0 || *value > *ceiling) {
      refuse(FindingCode::kIntentSlippage, what + " is above the " + std::to_string(*ceiling) +
                                               " the policy allows " + in_.action.name + " (" +
                                               r.ceiling + ")");
    }
  }

  static FindingCode code(const ArgumentRule& r, FindingCode otherwise) {
    return r.code != nullptr ? *r.code : otherwise;
  }

  // Equal to the body's field (the one of several the body gives), or None where the body
  // leaves an option out.
  void equals(const ArgumentRule& r, const ojson* value, const ojson& body,
              const std::string& what) {
    const ojson* want = nullptr;
    std::string field = r.pointers.front();
    for (const auto& pointer : r.pointers) {
      if ((want = body_at(body, pointer)) != nullptr) {
        field = pointer;
        break;
      }
    }
    if (r.pointers.size() > 1 && present(r.pointers) > 1) {
      std::string fields;
      for (const auto& p : r.pointers) fields += (fields.empty() ? "" : ", ") + p;
      refuse(code(r, FindingCode::kIntentArgument),
             what + " must equal one field of the build request, which gives more than one of " +
                 fields + ": which one binds it is ambiguous");
      return;
    }
    if (want == nullptr && r.absent_is_none) {
      if (value == nullptr || !value->is_null())
        refuse(code(r, FindingCode::kIntentArgument),
               what + " is set, but the build request leaves " + field + " out");
      return;
    }
    if (want == nullptr) {
      refuse(
          code(r, FindingCode::kIntentArgument),
          what + " must equal the build request's " + field + ", which the request does not give");
    } else if (value == nullptr || !same_value(*value, *want)) {
      refuse(code(r, FindingCode::kIntentArgument),
             what + "; the build request's " + field + " is " + printable(want->dump()));
    }
  }

  void held_to_body(const ArgumentRule& r, const Arguments& args, const std::string& name,
                    const ojson& body, const std::string& what) {
    const ojson* value = args.at(name);
    switch (r.kind) {
      case ArgumentRule::Kind::kEquals:
        equals(r, value, body, what);
        return;
      case ArgumentRule::Kind::kAtMost: {
        const ojson* bound = body_at(body, r.pointer);
        const auto most = bound == nullptr ? std::nullopt : integer_value(*bound);
        const auto got = args.integer(name);
        if (!most || !got || *got > *most)
          refuse(code(r, FindingCode::kIntentSlippage),
                 what + " is above the build request's " + r.pointer + " (" +
                     (bound == nullptr ? std::string("not given") : printable(bound->dump())) +
                     ")");
        return;
      }
      case ArgumentRule::Kind::kWithin: {
        const ojson* lo = body_at(body, r.lower);
        const ojson* hi = body_at(body, r.upper);
        const ojson* from = r.from.empty() ? nullptr : body_at(body, r.from);
        const auto lower = lo == nullptr ? std::nullopt : integer_value(*lo);
        const auto upper = hi == nullptr ? std::nullopt : integer_value(*hi);
        const auto start = from == nullptr ? std::nullopt : integer_value(*from);
        const auto got = args.integer(name);
        if (r.if_given && lo == nullptr && hi == nullptr) return;  // the body names no range
        if (!lower || !upper)
          refuse(code(r, FindingCode::kIntentBins),
                 what + " must lie inside a range the build request names by " + r.lower + " and " +
                     r.upper + ", and it names none");
        else if (const std::int64_t first = lower.value_or(0), last = upper.value_or(0);
                 !got || *got < first || *got > last)
          refuse(code(r, FindingCode::kIntentBins),
                 what + " lies outside the requested " + r.lower + " to " + r.upper + " (" +
                     std::to_string(first) + " to " + std::to_string(last) + ")");
        else if (from != nullptr && (!start || *got < *start))
          refuse(code(r, FindingCode::kIntentBins),
                 what + " lies before the request's " + r.from + " (bins already done)");
        return;
      }
      case ArgumentRule::Kind::kVariant: {
        const ojson* asked = body_at(body, r.pointer);
        const auto got = args.variant(name);
        const auto mapped = std::find_if(r.variants.begin(), r.variants.end(), [&](const auto& v) {
          return asked != nullptr && asked->is_string() && *asked == v.first;
        });
        if (mapped == r.variants.end() || !got || *got != mapped->second)
          refuse(code(r, FindingCode::kIntentArgument),
                 what + " is not what the build request's " + r.pointer + " (" +
                     (asked == nullptr ? std::string("not given") : printable(asked->dump())) +
                     ") asks for");
        return;
      }
      case ArgumentRule::Kind::kEach:
        each(r, value, body, what);
        return;
      default:
        return;
    }
  }

  // A list argument element by element against the body's list: the same length, each field
  // equal; or, where the rule names a word for "every one" and the body says it, empty (an
  // empty list then stands only for that word).
  void each(const ArgumentRule& r, const ojson* value, const ojson& body, const std::string& what) {
    const ojson* asked = body_at(body, r.pointer);
    if (value == nullptr || !value->is_array()) {
      refuse(code(r, FindingCode::kIntentArgument), what + " is not a list");
      return;
    }
    if (!r.all.empty() && asked != nullptr && asked->is_string() && *asked == r.all) {
      if (!value->empty())
        refuse(code(r, FindingCode::kIntentArgument),
               what + " names entries; the request asks for " + r.pointer + " " + r.all);
      return;
    }
    if (asked == nullptr || !asked->is_array() || asked->size() != value->size() ||
        (!r.all.empty() && value->empty())) {
      refuse(code(r, FindingCode::kIntentArgument),
             what + " differs from the build request's " + r.pointer + " in its entries");
      return;
    }
    for (std::size_t i = 0; i < value->size(); ++i) {
      const ojson& got = (*value)[i];
      for (std::size_t f = 0; f < r.fields.size(); ++f) {
        const auto& [field, inner] = r.fields[f];
        const ojson* want = body_at((*asked)[i], inner);
        const bool same = got.is_object() && got.contains(field) && want != nullptr &&
                          same_value(got[field], *want);
        if (same) continue;
        const FindingCode* field_code = f < r.field_codes.size() ? r.field_codes[f] : nullptr;
        refuse(field_code != nullptr ? *field_code : code(r, FindingCode::kIntentArgument),
               what + ": entry " + std::to_string(i) + "'s " + field +
                   " differs from the request's " + r.pointer + "/" + std::to_string(i) + inner);
      }
    }
  }

  // One key, one role: an account bound as (or checked on chain as) one role cannot stand in
  // for another role of the same instruction. Only a step's two bin arrays may coincide, when
  // its bins lie in one array.
  void distinct_roles(const std::vector<DescribedAccount>& spec,
                      const std::vector<std::optional<PublicKey>>& keys, const std::string& where) {
    for (std::size_t a = 0; a < spec.size() && a < keys.size(); ++a) {
      for (std::size_t b = a + 1; b < spec.size() && b < keys.size(); ++b) {
        if (!keys[a] || !keys[b] || *keys[a] != *keys[b]) continue;
        if (may_share(spec[a].source, spec[b].source)) continue;
        refuse(FindingCode::kIntentAccount, where + ": " + short_key(*keys[a]) +
                                                " stands as both " + spec[a].name + " and " +
                                                spec[b].name);
      }
    }
  }

  AccountBinding bind(const DescribedAccount& account_rule, const PublicKey& key,
                      std::uint8_t account, const Bound& b, const std::string& where) {
    const AccountSource& rule = account_rule.source;
    const std::string& role = account_rule.name;
    const auto mismatch = [&](const std::string& want) {
      return refuse_account(role, key, where, want);
    };
    if (rule.kind != Src::kManager && key == in_.policy.manager) {
      refuse(FindingCode::kIntentAccount,
             where + ": " + role + " is the manager's key, which signs only as the manager");
      return AccountBinding{role, "refused", "the manager's key in another role"};
    }
    switch (rule.kind) {
      case Src::kVault:
        if (key != in_.request.vault) return mismatch("the request's vault");
        return {role, "vault", "the request's vault"};
      case Src::kManager:
        if (key != in_.policy.manager) return mismatch("the manager");
        return {role, "manager", "this machine's key"};
      case Src::kProgram:
        if (key != rule.program) return mismatch(rule.label);
        return {role, "program", rule.label};
      case Src::kTokenProgram:
        if (key != programs::key(programs::kToken) && key != programs::key(programs::kToken2022))
          return mismatch("SPL Token or Token-2022");
        return {role, "program",
                key == programs::key(programs::kToken) ? "SPL Token" : "Token-2022"};
      case Src::kBody: {
        if (in_.no_intent) return bind_without_intent(role, key, b, where);
        const auto want = request_key(rule.pointers);
        const std::string field = rule.pointers.front().substr(1);
        if (present(rule.pointers) > 1)
          return mismatch(
              "one key the build request gives, but it gives more than one of the "
              "fields that may name it");
        if (!want) return mismatch("a key the build request gives (" + field + " is missing)");
        if (key != *want) return mismatch("the request's " + field + " " + short_key(*want));
        return {role, "request", "as requested (" + field + ")"};
      }
      case Src::kDerived: {
        std::optional<PublicKey> first;
        for (const auto& derivation : rule.any_of) {
          const auto candidate = derive(derivation, b);
          if (candidate && *candidate == key)
            return {role, "derived", rule.text + ", computed here"};
          if (!first) first = candidate;
        }
        return mismatch(rule.text + (first ? " (" + short_key(*first) + ")" : ""));
      }
      case Src::kNewSigner:
      case Src::kNewVault:
        return bind_new_account(role, rule.kind, key, account, where);
      case Src::kChecked:
        if (rule.pool_hint) return not_own(bind_pool(role, rule.text, key, where), key, where);
        return not_own({role, "checked on chain", rule.text}, key, where);
      case Src::kPolicyMarket:
        return not_own(bind_market(role, key, where), key, where);
      case Src::kCosigner:
        if (account >= m_.header.num_required_signatures) return mismatch("a co-signer (a signer)");
        s_.venue_cosigner = key;
        return not_own({role, "checked on chain", rule.text}, key, where);
      case Src::kUnconstrained:
        if (account < m_.header.num_required_signatures || key == in_.request.vault)
          return mismatch("an account that neither signs nor is the vault");
        return not_own({role, "unbound", rule.text}, key, where);
    }
    return mismatch("anything the template names");
  }

  // With no build request, an account a body field would name is bound to the instruction's
  // own argument of the same name (a swap's source_mint account to its source_mint argument:
  // what the limits count is then what the accounts move), or shown unbound and warned.
  AccountBinding bind_without_intent(const std::string& role, const PublicKey& key, const Bound& b,
                                     const std::string& where) {
    if (b.d.args.is_object() && b.d.args.contains(role) && b.d.args[role].is_string()) {
      const auto named = public_key_from_base58(b.d.args[role].get<std::string>());
      if (!named.ok() || *named != key)
        return refuse_account(role, key, where, "the instruction's own " + role + " argument");
      return {role, "instruction",
              "the instruction's own " + role + " argument (no build request)"};
    }
    warn(FindingCode::kWarnUnboundAccount,
         where + ": " + role + " " + short_key(key) +
             " would be named by the build request, and none came with "
             "this request");
    // The manager's own choice, were there a body: a position, an order or a strategy of the
    // vault, so one of its own addresses (a strategy/close's strategy must be).
    return {role, "unbound", "no build request names it"};
  }

  // An account whose value another party chooses (the chain checks it, the online half names
  // it, or nothing binds it) is never one of the vault's own addresses: its token accounts, its
  // strategies, its trader account or its positions would then pass as someone else's.
  AccountBinding not_own(AccountBinding binding, const PublicKey& key, const std::string& where) {
    if (binding.source == "refused") return binding;
    if (const auto own = in_.own.what(key)) {
      refuse(FindingCode::kIntentAccount,
             where + ": " + binding.role + " " + short_key(key) + " is " + *own +
                 "; an account the template does not bind to its source may "
                 "not be one of the vault's own");
      return {binding.role, "refused", "the vault's own account (" + *own + ")"};
    }
    return binding;
  }

  // Refuses an account, naming what the template wanted in its place.
  AccountBinding refuse_account(const std::string& role, const PublicKey& key,
                                const std::string& where, const std::string& want) {
    refuse(FindingCode::kIntentAccount,
           where + ": " + role + " is " + short_key(key) + ", not " + want);
    return AccountBinding{role, "refused", "not " + want};
  }

  // A new account the builder signs for (a position, an order, a new vault): a signer, and
  // never the vault unless it is the new vault the request names.
  AccountBinding bind_new_account(const std::string& role, Src kind, const PublicKey& key,
                                  std::uint8_t account, const std::string& where) {
    if (account >= m_.header.num_required_signatures)
      return refuse_account(role, key, where, "a new account signed by the builder");
    if (key == in_.request.vault && kind == Src::kNewSigner)
      return refuse_account(role, key, where, "a new account (it is the vault)");
    if (kind == Src::kNewVault && key != in_.request.vault)
      return refuse_account(role, key, where, "the new vault the request names");
    new_signers_.insert(key);
    if (kind == Src::kNewSigner) in_.own.add_holding(key);
    return {role, "new signer",
            kind == Src::kNewVault ? "the new vault, signed by the builder"
                                   : "a new account, signed by the builder"};
  }

  // The pool a position is in.
  AccountBinding bind_pool(const std::string& role, const std::string& why, const PublicKey& key,
                           const std::string& where) {
    // Which pool a position is in is chain state. The online half names it (the pool
    // hint, read from the vault's strategies): a pool it did not name is refused, and
    // without a hint the account is shown unbound and never auto-approved.
    const auto& pools = in_.request.hints.pools;
    if (pools.empty()) {
      warn(FindingCode::kWarnUnboundAccount,
           where + ": " + role + " " + short_key(key) +
               " is not named by a pool hint; which pool the position is in is known "
               "only on chain");
      return {role, "unbound", why + "; no pool hint names it"};
    }
    if (std::none_of(pools.begin(), pools.end(),
                     [&](const envelope::PoolHint& h) { return h.pool == key; }))
      return refuse_account(role, key, where, "the pool the online half names for this position");
    return {role, "checked on chain", why + "; the online half's pool hint names it"};
  }

  // A perp market: the one the policy pins for the request's symbol, or shown unbound.
  AccountBinding bind_market(const std::string& role, const PublicKey& key,
                             const std::string& where) {
    const std::string symbol =
        in_.intent.is_object() && in_.intent.contains("symbol") && in_.intent["symbol"].is_string()
            ? in_.intent["symbol"].get<std::string>()
            : std::string();
    if (const PinnedMarket* pinned = in_.policy.market(symbol)) {
      if (key != pinned->address)
        return refuse_account(role, key, where,
                              "the market the policy pins for " + pinned->symbol + " (" +
                                  short_key(pinned->address) + ")");
      return {role, "policy", "market " + pinned->symbol + ", pinned by the policy"};
    }
    warn(FindingCode::kWarnUnboundAccount,
         where + ": market " + short_key(key) +
             " is the online half's choice; the policy pins no market for this symbol "
             "([[markets]] in the policy binds it)");
    return {role, "unbound", "the online half's market; not pinned by the policy"};
  }

  // The accounts past an instruction's named ones, as its named checker reads them: Jupiter's
  // pools and vaults each hop passes through (the router chooses them; what the vault receives
  // is bounded by the route's minimum, which the review checks), or the accounts an adaptor
  // program is passed. None may sign or be the manager, the vault or one of the vault's own.
  void passed_account(const std::string& checker, std::size_t n, std::uint8_t account,
                      const std::optional<PublicKey>& key, const std::string& where,
                      std::vector<AccountBinding>& bindings) {
    if (account < free_flags_.size()) free_flags_[account] = true;
    const bool route = checker == "jupiter_route";
    const std::string role = (route ? "route account " : "passed account ") + std::to_string(n + 1);
    if (account < m_.header.num_required_signatures || (key && *key == in_.policy.manager) ||
        (key && *key == in_.request.vault)) {
      refuse(FindingCode::kIntentAccount,
             where + ": " + role +
                 " is a signer, the manager or the vault; route accounts are "
                 "the pools the route passes through");
      bindings.push_back({role, "refused", "a route account may not sign"});
      return;
    }
    AccountBinding binding =
        route ? AccountBinding{role, "route",
                               "the router's choice of pool; the minimum out bounds it"}
              : AccountBinding{role, "passed on",
                               "an account the instruction passes to the program it calls"};
    bindings.push_back(key ? not_own(std::move(binding), *key, where) : std::move(binding));
  }

  // The route is decoded only as the program in the instruction's jupiter_program account
  // (bound to Jupiter above), and only an exact-in route with no platform fee is accepted.
  void route(Decoded& d, const std::vector<std::optional<PublicKey>>& keys,
             const std::string& where) {
    if (auto decoded = in_.decoders.decode_cpi_arguments(d, keys); !decoded.ok()) {
      refuse(FindingCode::kPolicyUndecodable, where + ": " + decoded.error().message());
      return;
    }
    const auto it = d.nested.find("route");
    if (it == d.nested.end()) {
      refuse(FindingCode::kPolicyUndecodable, where + ": the route is missing");
      return;
    }
    const Decoded& r = it->second;
    if (r.instruction != "route" && r.instruction != "shared_accounts_route") {
      refuse(FindingCode::kIntentRoute,
             where + ": the route is Jupiter's " + r.instruction +
                 "; only exact-in routes (route, shared_accounts_route) state "
                 "the amount they spend");
      return;
    }
    const ojson& a = r.args;
    if (!a.contains("platform_fee_bps") || !a["platform_fee_bps"].is_number_unsigned() ||
        a["platform_fee_bps"].get<std::uint64_t>() != 0) {
      refuse(
          FindingCode::kIntentFee,
          where + ": the route takes a platform fee of " +
              (a.contains("platform_fee_bps") ? a["platform_fee_bps"].dump() : std::string("?")) +
              " bps; a vault swap pays none");
    }
    route_plan(a, where);
  }

  // What the swap guarantees, against the policy's price floor for its pair (prices.h): the
  // larger of the route's quote less its slippage and the instruction's own minimum out.
  void price(const DescribedInstruction& described_ix, const Bound& b, const std::string& where) {
    const Decoded& d = b.d;
    const auto sells = b.key(described_ix.sells), buys = b.key(described_ix.buys);
    const auto it = d.nested.find("route");
    if (!sells || !buys || it == d.nested.end()) return;  // refused where they are bound
    const Arguments route(it->second.args), instruction(d.args);
    SwapTerms swap{*sells,
                   *buys,
                   route.amount("in_amount"),
                   route_guarantee(route.amount("quoted_out_amount"), route.amount("slippage_bps")),
                   {}};
    if (instruction.at("minimum_out") != nullptr) {
      const auto minimum = instruction.amount("minimum_out");
      if (minimum && (!swap.guaranteed || *minimum > *swap.guaranteed)) swap.guaranteed = minimum;
    }
    if (const PriceFloor* floor = in_.policy.price_floor(swap.sells, swap.buys))
      swap.floor = floor->text;
    s_.swaps.push_back(swap);
    TemplateFindings found;
    judge_price(in_.policy, swap, where, found);
    for (auto* list : {&found.refusals, &found.warnings}) {
      for (auto& f : *list) f.step = s_.index;
    }
    out_.refusals.insert(out_.refusals.end(), found.refusals.begin(), found.refusals.end());
    out_.warnings.insert(out_.warnings.end(), found.warnings.begin(), found.warnings.end());
  }

  // Each hop reads an earlier hop's output (index 0 is what the vault sells), the shares
  // leaving each index add up to 100%, and every hop leads to the one final output.
  void route_plan(const ojson& a, const std::string& where) {
    if (!a.contains("route_plan") || !a["route_plan"].is_array() || a["route_plan"].empty()) {
      refuse(FindingCode::kIntentRoute, where + ": the route has no hops");
      return;
    }
    std::map<std::uint64_t, std::uint64_t> share_out;
    std::set<std::uint64_t> produced{0}, consumed;
    std::uint64_t last = 0;
    for (const auto& hop : a["route_plan"]) {
      const auto field = [&](const char* name) -> std::optional<std::uint64_t> {
        if (!hop.is_object() || !hop.contains(name) || !hop[name].is_number_unsigned())
          return std::nullopt;
        return hop[name].get<std::uint64_t>();
      };
      const auto percent = field("percent"), input = field("input_index"),
                 output = field("output_index");
      if (!percent || !input || !output || *percent == 0 || *percent > 100 || *output <= *input ||
          produced.count(*input) == 0) {
        refuse(FindingCode::kIntentRoute, where +
                                              ": a hop of the route does not follow from the one "
                                              "before it (shares and indexes)");
        return;
      }
      share_out[*input] += *percent;
      produced.insert(*output);
      consumed.insert(*input);
      last = std::max(last, *output);
    }
    for (const auto& [index, share] : share_out) {
      if (share != 100) {
        refuse(FindingCode::kIntentRoute, where + ": the route splits token " +
                                              std::to_string(index) + " into shares adding up to " +
                                              std::to_string(share) + "%");
        return;
      }
    }
    for (const auto index : produced) {
      if (index != last && consumed.count(index) == 0) {
        refuse(FindingCode::kIntentRoute,
               where + ": the route leaves an intermediate token unswapped");
        return;
      }
    }
  }

  void bind_nonce(std::size_t i) {
    const auto& ix = m_.instructions[i];
    // nonce account (writable), recent blockhashes sysvar, nonce authority (signer).
    const bool flags[][2] = {{true, false}, {false, false}, {false, true}};
    auto& bindings = s_.bindings[i];
    const char* roles[] = {"nonce_account", "recent_blockhashes_sysvar", "nonce_authority"};
    for (std::size_t p = 0; p < ix.accounts.size() && p < 3; ++p) {
      use(ix.accounts[p], flags[p][0], flags[p][1]);
      bindings.push_back({roles[p], "checked by the nonce rule",
                          "the durable-nonce rule of the policy applies (policy.durable_nonce)"});
    }
    if (ix.accounts.size() != 3)
      refuse(FindingCode::kIntentInstruction,
             "the nonce advance must name exactly its three accounts");
  }

  // The vault's own associated token accounts, paid by the manager, for a mint the step's
  // vault instruction names: anything else would spend the manager's rent on someone else.
  void bind_ata_creation(std::size_t i, const std::vector<PublicKey>& mints) {
    const auto& ix = m_.instructions[i];
    const auto keys = keys_of(ix);
    const std::string where = "instruction " + std::to_string(i + 1) + " (associated token " +
                              s_.instructions[i]->instruction + ")";
    auto& bindings = s_.bindings[i];
    if (ix.accounts.size() != 6 ||
        std::any_of(keys.begin(), keys.end(), [](const auto& k) { return !k.has_value(); })) {
      refuse(FindingCode::kIntentInstruction, where + " must name its six accounts as static keys");
      return;
    }
    const bool flags[][2] = {{true, true},   {true, false},  {false, false},
                             {false, false}, {false, false}, {false, false}};
    for (std::size_t p = 0; p < 6; ++p) use(ix.accounts[p], flags[p][0], flags[p][1]);
    const PublicKey &payer = *keys[0], &ata = *keys[1], &owner = *keys[2], &mint = *keys[3],
                    &system = *keys[4], &token = *keys[5];
    const bool token_ok =
        token == programs::key(programs::kToken) || token == programs::key(programs::kToken2022);
    if (payer != in_.policy.manager || owner != in_.request.vault ||
        std::find(mints.begin(), mints.end(), mint) == mints.end() ||
        system != programs::key(programs::kSystem) || !token_ok ||
        ata != in_.derivations.associated(owner, mint, token)) {
      refuse(FindingCode::kIntentAccount,
             where + " creates " + short_key(ata) + " for owner " + short_key(owner) +
                 "; the template allows only the vault's own token account for a mint of the "
                 "step, paid by the manager");
      return;
    }
    bindings = {{"funding", "manager", "this machine's key"},
                {"associated_account", "derived", "the vault's token account, computed here"},
                {"wallet", "vault", "the request's vault"},
                {"mint", "request", "a mint the step's vault instruction names"},
                {"system_program", "program", "System Program"},
                {"token_program", "program", "a token program"}};
  }

  // The header must ask for exactly the writable and signer flags the instructions' IDLs
  // need: an extra writable lock or signer is something the manager did not ask for.
  void compare_flags() {
    for (std::size_t j = 0; j < s_.roles.size(); ++j) {
      const AccountRole& role = s_.roles[j];
      if (!role.key) continue;
      // Worded only for a refusal: base58 text for every account was a sixth of a swap's review.
      const auto name = [&] { return short_key(*role.key); };
      if (!free_flags_[j] && role.writable_requested != want_writable_[j]) {
        refuse(FindingCode::kIntentAccount,
               "account " + name() + " is " + (role.writable_requested ? "writable" : "read-only") +
                   " in the header; the instructions' interfaces make it " +
                   (want_writable_[j] ? "writable" : "read-only"));
      }
      if (role.signer && !want_signer_[j]) {
        refuse(FindingCode::kIntentSigner,
               "account " + name() + " must sign, but no instruction of the template asks it to");
      } else if (!role.signer && want_signer_[j]) {
        refuse(FindingCode::kIntentSigner,
               "account " + name() + " must sign per its instruction, but the header does not ask");
      }
    }
  }

  const TemplateInput& in_;
  StepReview& s_;
  TemplateFindings& out_;
  const Message& m_;
  std::vector<bool> want_writable_, want_signer_, free_flags_;
  std::set<PublicKey> new_signers_;
};

// The main instruction of a step, if it decoded.
const Decoded* main_of(const TemplateInput& in, const StepReview& s) {
  for (std::size_t i = 0; i < s.instructions.size() && i < s.tx.message.instructions.size(); ++i) {
    if (!s.instructions[i]) continue;
    const PublicKey& program = s.tx.message.static_keys[s.tx.message.instructions[i].program_index];
    if (described(in, program, *s.instructions[i]) != nullptr) return &*s.instructions[i];
  }
  return nullptr;
}

// An intent's BaseUnitAmount: the API sends amounts as strings, never as JSON numbers.
std::optional<std::uint64_t> body_amount(const ojson& intent, const std::string& name) {
  if (!intent.is_object() || !intent.contains(name) || !intent[name].is_string())
    return std::nullopt;
  return parse_base_units(intent[name].get_ref<const std::string&>());
}

struct Range {
  std::int64_t lower = 0, upper = 0;
  // Per share of the step rule, the step's deposit; nullopt: it could not be read.
  std::vector<std::optional<std::uint64_t>> deposits;
  std::optional<std::int64_t> active;  // the active bin the step states, under a sides rule
  std::size_t step = 0;
};

// The bins of [first, last] on one side of `active` (at and above it, or at and below it):
// nullopt when none is.
std::optional<std::pair<std::int64_t, std::int64_t>> side_bins(std::int64_t first,
                                                               std::int64_t last,
                                                               std::int64_t active, bool above) {
  const std::int64_t lo = above ? std::max(first, active) : first;
  const std::int64_t hi = above ? last : std::min(last, active);
  if (lo > hi) return std::nullopt;
  return std::pair{lo, hi};
}

// How many bins of [lo, hi] lie in [from, to].
std::int64_t bins_within(std::int64_t lo, std::int64_t hi, std::int64_t from, std::int64_t to) {
  const std::int64_t a = std::max(lo, from), b = std::min(hi, to);
  return a > b ? 0 : b - a + 1;
}

// ceil(total * part / whole), for 0 <= part <= whole, whole > 0.
std::uint64_t share_of(std::uint64_t total, std::int64_t part, std::int64_t whole) {
  const auto w = static_cast<unsigned __int128>(whole);
  return static_cast<std::uint64_t>(
      (static_cast<unsigned __int128>(total) * static_cast<unsigned __int128>(part) + w - 1) / w);
}

}  // namespace

// The enum follows the spec's order, as the one list of names does (formats/actions.h).
static_assert(kBuilderActions.size() == kActionCount);

std::string_view action_name(Action action) {
  const auto i = static_cast<std::size_t>(action);
  return i < kBuilderActions.size() ? kBuilderActions[i] : std::string_view();
}

std::optional<Action> parse_action(std::string_view name) {
  for (int i = 0; i < kActionCount; ++i) {
    if (action_name(static_cast<Action>(i)) == name) return static_cast<Action>(i);
  }
  return std::nullopt;
}

std::optional<IntegerRange> body_integer_range(std::string_view field) {
  // DLMM bin ids lie within +-443636; an exclusive upper bound may be one past it.
  constexpr std::int64_t kBin = 443636;
  static constexpr std::pair<std::string_view, IntegerRange> kRanges[] = {
      {"lowerBinId", {-kBin, kBin + 1}},  {"upperBinId", {-kBin, kBin + 1}},
      {"cursorBinId", {-kBin, kBin + 1}}, {"activeBinId", {-kBin, kBin + 1}},
      {"fromBinId", {-kBin, kBin + 1}},   {"binId", {-kBin, kBin + 1}},
      {"slippageBps", {1, 10'000}},       {"maxActiveBinSlippage", {0, 1'000}},
      {"bpsToRemove", {1, 10'000}},       {"managementFeeBps", {0, 10'000}},
      {"performanceFeeBps", {0, 10'000}}};
  for (const auto& [name, range] : kRanges) {
    if (name == field) return range;
  }
  return std::nullopt;
}

std::optional<std::int64_t> body_integer(const ojson& body, std::string_view field) {
  const std::string name(field);
  if (!body.is_object() || !body.contains(name) || !body[name].is_number_integer())
    return std::nullopt;
  // An unsigned value past INT64_MAX reads as negative here; the range check refuses it.
  const auto value = body[name].is_number_unsigned() &&
                             body[name].get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)
                         ? std::optional<std::int64_t>()
                         : std::optional(body[name].get<std::int64_t>());
  const auto range = body_integer_range(field);
  if (!value || (range && (*value < range->min || *value > range->max))) return std::nullopt;
  return value;
}

std::optional<ActionOf> action_of_instruction(const DecoderRegistry& registry,
                                              const PublicKey& program, const Decoded& d) {
  for (const auto& descriptor : registry.descriptors()) {
    for (const auto& action : descriptor.actions) {
      const DescribedInstruction* first = descriptor.instruction(action.instructions.front());
      if (first->program_id == program && first->instruction == d.instruction)
        return ActionOf{&descriptor, &action};
    }
  }
  return std::nullopt;
}

void bind_step(const TemplateInput& in, StepReview& step, TemplateFindings& out) {
  StepBinder(in, step, out).run();
}

namespace {

// The checks across a request's steps: how many there are and what follows them, each new
// account made once, and for ranged batches the bins and amounts of each step.
class BatchBinder {
 public:
  BatchBinder(const TemplateInput& in, const std::vector<StepReview>& steps, TemplateFindings& out)
      : in_(in), steps_(steps), out_(out), action_(in.action.name), rule_(in.action.steps) {}

  void run() {
    check_steps();
    check_new_accounts();
    if (!rule_.ranged) return;
    // Ranged batches: each step one run of bins, the runs in order without gap or overlap.
    auto ranges = step_ranges();
    if (!ranges || !contiguous(*ranges) || ranges->empty()) return;
    const auto requested_lo = body_integer(in_.intent, rule_.body_lower);
    auto lo = requested_lo, hi = body_integer(in_.intent, rule_.body_upper);
    if (hi && rule_.body_upper_exclusive) *hi -= 1;
    const auto cursor =
        rule_.body_resume.empty() ? std::nullopt : body_integer(in_.intent, rule_.body_resume);
    if (cursor) {
      // A build resumed after the ranges already confirmed: it starts inside the requested
      // range, after its first bin, and covers the rest of it.
      if (!requested_lo || !hi || *cursor <= *requested_lo || *cursor > *hi) {
        refuse(FindingCode::kIntentBins,
               rule_.body_resume + " " + std::to_string(*cursor) +
                   " does not lie inside the requested bins after the first (" + rule_.body_lower +
                   " and " + rule_.body_upper + " must be given)");
        return;
      }
      lo = cursor;
    }
    // A removal whose request names no range removes from the position's own bins; a deposit
    // must name the range its totals are spread over.
    const bool named = lo && hi;
    const bool must_cover = rule_.cover || cursor;
    if (must_cover && (named || !rule_.shares.empty()) &&
        (!named || ranges->front().lower != *lo || ranges->back().upper != *hi)) {
      refuse(FindingCode::kIntentBins,
             "the steps do not cover exactly the requested bins" +
                 (lo && hi ? " " + std::to_string(*lo) + " to " + std::to_string(*hi)
                           : std::string(" (the request names no range)")));
    }
    if (rule_.shares.empty()) return;
    if (!named && !cursor) {
      // A deposit into the whole position (the range is optional): the program keeps every
      // step inside the position, but whether the steps cover all of it only the chain knows,
      // so the shares below are taken over the steps' own bins and the operator is asked.
      out_.warnings.emplace_back(
          FindingCode::kWarnUnboundArgument,
          "the request names no range (" + rule_.body_lower + ", " + rule_.body_upper +
              "): its amounts go into bins " + std::to_string(ranges->front().lower) + " to " +
              std::to_string(ranges->back().upper) +
              ", which the position on chain must contain; whether they are all of the "
              "position's bins, this machine cannot tell");
    }
    // Each step's share is its bins' share of the whole requested range, resumed or not: a
    // build resumed at cursorBinId is held to the same rate per bin as the first build, so one
    // of its steps cannot take what the others leave.
    const auto active = batch_active(*ranges);
    check_shares(*ranges, requested_lo ? *requested_lo : ranges->front().lower,
                 hi ? *hi : ranges->back().upper, active);
    totals(*ranges, requested_lo, hi, cursor, active);
  }

 private:
  void refuse(FindingCode code, std::string message,
              std::optional<std::size_t> step = std::nullopt) {
    out_.refusals.emplace_back(code, std::move(message), step);
  }

  // The number of steps, and the follow-ups they announce: only by the last step, and only
  // actions this one may need.
  void check_steps() {
    if (!rule_.ranged && steps_.size() != 1) {
      refuse(FindingCode::kIntentSteps, action_ + " builds exactly one step; the request has " +
                                            std::to_string(steps_.size()));
    }
    const auto& allowed_next = in_.action.follow_ups;
    for (std::size_t i = 0; i < in_.request.steps.size(); ++i) {
      const auto& next = in_.request.steps[i].next_action;
      if (!next) continue;
      if (std::find(allowed_next.begin(), allowed_next.end(), *next) == allowed_next.end()) {
        refuse(FindingCode::kIntentSteps,
               "step " + std::to_string(i + 1) + " announces a follow-up " + *next + ", which " +
                   action_ + " never needs",
               i);
      } else if (i + 1 != in_.request.steps.size()) {
        refuse(FindingCode::kIntentSteps, "only the last step may announce a follow-up", i);
      }
    }
  }

  // A new account (position, order, vault) is made by one step only.
  void check_new_accounts() {
    std::map<PublicKey, std::size_t> made;
    for (const auto& s : steps_) {
      for (std::size_t i = 0;
           i < s.tx.message.header.num_required_signatures && i < s.tx.message.static_keys.size();
           ++i) {
        const PublicKey& k = s.tx.message.static_keys[i];
        if (k == in_.policy.manager) continue;
        const auto [it, fresh] = made.emplace(k, s.index);
        if (!fresh && it->second != s.index) {
          refuse(FindingCode::kIntentSigner, "steps " + std::to_string(it->second + 1) + " and " +
                                                 std::to_string(s.index + 1) +
                                                 " both make account " + to_base58(k));
        }
      }
    }
  }

  // Each step's run of bins and amounts; nullopt when one cannot be read (refused per step
  // already) or covers no bins or more than a step may.
  std::optional<std::vector<Range>> step_ranges() {
    std::vector<Range> ranges;
    for (const auto& s : steps_) {
      const Decoded* d = main_of(in_, s);
      if (d == nullptr) return std::nullopt;
      const ojson& a = d->args;
      Range r;
      r.step = s.index;
      const auto lo = arg_int(a, rule_.lower), hi = arg_int(a, rule_.upper);
      for (const auto& share : rule_.shares) {
        r.deposits.push_back(a.contains(share.first) ? integer_arg(a[share.first]) : std::nullopt);
      }
      if (!rule_.active.empty()) r.active = arg_int(a, rule_.active);
      if (!lo || !hi) return std::nullopt;
      r.lower = *lo;
      r.upper = *hi;
      if (r.upper < r.lower || static_cast<std::uint64_t>(r.upper - r.lower) + 1 > rule_.max_bins) {
        refuse(FindingCode::kIntentBins,
               "step " + std::to_string(s.index + 1) + " covers bins " + std::to_string(r.lower) +
                   " to " + std::to_string(r.upper) + "; a step covers 1 to " +
                   std::to_string(rule_.max_bins) + " bins",
               s.index);
        return std::nullopt;
      }
      ranges.push_back(r);
    }
    return ranges;
  }

  // Sorts the runs by their first bin; refuses an overlap or a gap between them.
  bool contiguous(std::vector<Range>& ranges) {
    std::sort(ranges.begin(), ranges.end(),
              [](const Range& a, const Range& b) { return a.lower < b.lower; });
    for (std::size_t i = 1; i < ranges.size(); ++i) {
      if (ranges[i].lower <= ranges[i - 1].upper) {
        refuse(FindingCode::kIntentBins, "steps " + std::to_string(ranges[i - 1].step + 1) +
                                             " and " + std::to_string(ranges[i].step + 1) +
                                             " overlap at bin " + std::to_string(ranges[i].lower) +
                                             ": the same bins would be funded or removed twice");
        return false;
      }
      if (ranges[i].lower != ranges[i - 1].upper + 1) {
        refuse(FindingCode::kIntentBins,
               "the steps' bins leave a gap before bin " + std::to_string(ranges[i].lower));
        return false;
      }
    }
    return true;
  }

  // The active bin every step of the batch states, under a sides rule: nullopt (refused) when a
  // step states none or another than the first; the shares are then by bin count only.
  std::optional<std::int64_t> batch_active(const std::vector<Range>& ranges) {
    if (rule_.active.empty() || ranges.empty()) return std::nullopt;
    for (const auto& r : ranges) {
      if (!r.active || *r.active != *ranges.front().active) {
        refuse(FindingCode::kIntentBins,
               "the steps of one batch must state one active bin" +
                   (r.active && ranges.front().active
                        ? ": step " + std::to_string(ranges.front().step + 1) + " states " +
                              std::to_string(*ranges.front().active) + ", step " +
                              std::to_string(r.step + 1) + " " + std::to_string(*r.active)
                        : std::string(": a step states none")),
               r.step);
        return std::nullopt;
      }
    }
    return ranges.front().active;
  }

  // Which side of the active bin share k is deposited on: nullopt for neither (or no sides).
  std::optional<bool> share_side(std::size_t k) const {
    if (rule_.active.empty()) return std::nullopt;
    if (rule_.shares[k].first == rule_.above) return true;
    if (rule_.shares[k].first == rule_.below) return false;
    return std::nullopt;
  }

  // Each step deposits its bins' share of the batch over bins first to last (by bin count,
  // rounded up, plus one base unit per run of the whole range, resumed or not, for the builder's
  // rounding, which puts the remainder on the last run): the totals alone would
  // let one position take everything. Under a sides rule a step may instead take its share of
  // the bins on the token's side of the active bin (a pool puts X only at and above it, Y only
  // at and below), as a builder that funds each side where it can go does.
  void check_shares(const std::vector<Range>& ranges, std::int64_t first, std::int64_t last,
                    std::optional<std::int64_t> active) {
    if (last < first) return;
    const std::int64_t span = last - first + 1;  // bin ids are bounded: no overflow
    // The builder's rounding: each run's share rounded down, the remainder (less than one base
    // unit per run of the whole range) on the last run. A resumed build holds only the runs
    // left, so the allowance counts the whole range's runs, not the steps in the request.
    const auto runs = std::max<std::uint64_t>(
        ranges.size(), (static_cast<std::uint64_t>(span) + rule_.max_bins - 1) / rule_.max_bins);
    for (std::size_t k = 0; k < rule_.shares.size(); ++k) {
      const std::string& field = rule_.shares[k].second;
      const auto total = body_amount(in_.intent, field);
      if (!total) continue;  // refused by the totals check
      const auto side = share_side(k);
      const auto sided = active && side ? side_bins(first, last, *active, *side) : std::nullopt;
      for (const auto& r : ranges) {
        const std::int64_t range_bins = r.upper - r.lower + 1;
        std::uint64_t share = share_of(*total, range_bins, span) + runs;
        std::string basis =
            "their share of " + std::to_string(*total) + " over " + std::to_string(span) + " bins";
        if (sided) {
          const std::int64_t side_span = sided->second - sided->first + 1;
          const std::uint64_t by_side =
              share_of(*total, bins_within(r.lower, r.upper, sided->first, sided->second),
                       side_span) +
              runs;
          share = std::max(share, by_side);
          basis += ", or over the " + std::to_string(side_span) + " bins " +
                   std::to_string(sided->first) + " to " + std::to_string(sided->second) +
                   " on its side of the active bin " + std::to_string(*active) + ",";
        }
        const std::optional<std::uint64_t>& deposit = r.deposits[k];
        if (!deposit) {
          refuse(FindingCode::kIntentAmount,
                 "step " + std::to_string(r.step + 1) + "'s " + field +
                     " deposit is not an unsigned integer",
                 r.step);
        } else if (*deposit > share) {
          refuse(FindingCode::kIntentAmount,
                 "step " + std::to_string(r.step + 1) + " deposits " + std::to_string(*deposit) +
                     " of " + field + " into " + std::to_string(range_bins) + " bins; " + basis +
                     " is at most " + std::to_string(share),
                 r.step);
        }
      }
    }
  }

  // The steps' deposits together (sums checked: one that wrapped past 2^64 could equal the
  // request): exactly the request's totals, or for a build resumed at `cursor` no more than the
  // share of the totals its bins leave (by bin count, rounded up, plus one base unit per bin
  // already done for the builder's rounding), so a build that funds the done ranges again fails.
  void totals(const std::vector<Range>& ranges, std::optional<std::int64_t> lo,
              std::optional<std::int64_t> hi, std::optional<std::int64_t> cursor,
              std::optional<std::int64_t> active) {
    for (std::size_t k = 0; k < rule_.shares.size(); ++k) {
      const std::string& field = rule_.shares[k].second;
      std::uint64_t sum = 0;
      bool readable = true;
      for (const auto& r : ranges) {
        if (!r.deposits[k]) {
          readable = false;  // refused by check_shares
          break;
        }
        if (__builtin_add_overflow(sum, *r.deposits[k], &sum)) {
          refuse(FindingCode::kIntentAmount,
                 "the steps' " + field +
                     " deposits add up to more than 2^64 - 1 base units; no "
                     "request asks that");
          readable = false;
          break;
        }
      }
      if (!readable) continue;
      const auto asked = body_amount(in_.intent, field);
      if (!asked) {
        refuse(FindingCode::kIntentAmount,
               "the build request's " + field + " is not a base-unit amount");
        continue;
      }
      if (!cursor) {
        if (sum != *asked)
          refuse(FindingCode::kIntentAmount, "total " + field + ": the transactions deposit " +
                                                 std::to_string(sum) + ", the request asked for " +
                                                 std::to_string(*asked));
        continue;
      }
      // lo < cursor <= hi here (run() checked it); bin ids are bounded: no overflow.
      const std::int64_t span = *hi - *lo + 1;
      const auto width = static_cast<unsigned __int128>(span);
      const auto skipped = static_cast<std::uint64_t>(*cursor - *lo);
      const auto left = width - skipped;
      auto share = static_cast<std::uint64_t>(
                       (static_cast<unsigned __int128>(*asked) * left + width - 1) / width) +
                   skipped;
      // Under a sides rule, or the share of the token's side of the active bin the bins left
      // hold (the resumed build states the active bin it was built at: the pool may have moved
      // since the first build, within what its slippage lets land).
      const auto side = share_side(k);
      if (const auto sided = active && side ? side_bins(*lo, *hi, *active, *side) : std::nullopt) {
        const std::int64_t side_span = sided->second - sided->first + 1;
        share = std::max(
            share,
            share_of(*asked, bins_within(*cursor, *hi, sided->first, sided->second), side_span) +
                skipped);
      }
      if (sum > share) {
        refuse(FindingCode::kIntentAmount,
               field + ": the resumed steps deposit " + std::to_string(sum) + ", more than the " +
                   std::to_string(share) + " left of " + std::to_string(*asked) + " for bins " +
                   std::to_string(*cursor) + " to " + std::to_string(*hi));
      }
    }
  }

  const TemplateInput& in_;
  const std::vector<StepReview>& steps_;
  TemplateFindings& out_;
  const std::string action_;
  const StepRule& rule_;
};

}  // namespace

void bind_steps(const TemplateInput& in, const std::vector<StepReview>& steps,
                TemplateFindings& out) {
  BatchBinder(in, steps, out).run();
}

}  // namespace airlock::offline
