#include <algorithm>
#include <set>
#include <stdexcept>

#include <airlock/common/display.h>
#include <airlock/common/hash.h>
#include <airlock/common/programs.h>
#include <airlock/common/units.h>
#include <airlock/formats/action_fields.h>
#include <airlock/formats/actions.h>
#include <airlock/formats/json_fields.h>
#include <airlock/offline/amounts.h>
#include <airlock/offline/arguments.h>
#include <airlock/offline/bins.h>
#include <airlock/offline/review.h>
#include <airlock/offline/templates.h>
#include <airlock/offline/vault_addresses.h>

namespace airlock::offline {
namespace {

using json = nlohmann::ordered_json;  // one type on both sides of every comparison
using ojson = nlohmann::ordered_json;

// An argument path's segments joined as Arguments reads them ("strategy.min_bin_id").
std::string dotted(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& segment : path) out += (out.empty() ? "" : ".") + segment;
  return out;
}

class Reviewer {
 public:
  Reviewer(const envelope::SignRequest& q, const Policy& p, const DecoderRegistry& d,
           const PublicKey& signer, std::int64_t now)
      : q_(q), policy_(p), decoders_(d), signer_(signer), now_(now) {
    // The body is at most 16 KiB, but nested that deep it would still strain the parser and
    // every recursive walk after it: a body deeper than any builder's is unreadable.
    // Strictly: a key twice in the body would show one value on the request line and bind
    // another (nlohmann keeps the last).
    if (json_fields::depth_at_most(q.intent_json, 32)) {
      auto strict = parse_strict_json<json>(q.intent_json, "the build request");
      if (strict.ok())
        intent_ = std::move(*strict);
      else
        intent_problem_ = strict.error().message();
    }
    if (intent_.is_discarded()) intent_ = json();
    action_ = parse_action(q.action);
    keystone_ = q.action == kKeystoneAction;
    descriptor_ = d.descriptor_for(q.action);
    if (descriptor_ != nullptr) described_ = descriptor_->action(q.action);
    if (described_ != nullptr) {
      review_.reads = described_->reads;
      if (described_->steps.ranged) {
        review_.bins_lower = dotted(described_->steps.lower);
        review_.bins_upper = dotted(described_->steps.upper);
      }
    }
    if (descriptor_ != nullptr) own_.describe(*descriptor_);
    known_own_addresses(own_);
  }

  Review run() {
    if (q_.approval) {
      refuse(FindingCode::kIntentSteps,
             "an approval request holds no transaction: it is approved (process_request), "
             "never signed");
      return std::move(review_);
    }
    request_checks();
    token_labels();
    pool_labels();
    amount_units();
    for (std::size_t i = 0; i < q_.steps.size(); ++i) step(i);
    off_side_warnings();
    if (described_ != nullptr) {
      TemplateFindings found;
      bind_steps(template_input(), review_.steps, found);
      take(found);
      if (descriptor_ != nullptr && !keystone_)
        add_stated_units(*descriptor_, *described_, intent_, review_.steps, review_.body_amounts);
    }
    const ActionRule rule = policy_.rule(q_.action);
    review_.auto_approvable =
        !keystone_ && rule.auto_approve && review_.refusals.empty() && review_.warnings.empty();
    return std::move(review_);
  }

  // The rules that need no transaction, for an approval request: the manager, the action (a
  // pinned descriptor describes it, the policy allows it), the vault, the deadline, the body.
  Review run_intent() {
    if (!q_.approval || !q_.steps.empty()) {
      refuse(FindingCode::kIntentSteps, "not an approval request: a sign request is reviewed");
      return std::move(review_);
    }
    // Its vault is made by the build: the vault on the approval would be one the online half
    // chose, bound to nothing.
    if (action_ == Action::kVaultInitialize)
      refuse(FindingCode::kPolicyActionNotAllowed,
             "vault/initialize makes its vault in the build: it cannot be approved before it is "
             "built");
    request_checks();
    token_labels();
    pool_labels();
    amount_units();
    unpriced_pairs();
    return std::move(review_);
  }

 private:
  void refuse(FindingCode code, std::string message,
              std::optional<std::size_t> step = std::nullopt) {
    review_.refusals.emplace_back(code, std::move(message), step);
  }
  void warn(FindingCode code, std::string message, std::optional<std::size_t> step = std::nullopt) {
    add_warning(Finding(code, std::move(message), step));
  }
  // A warning once, however many steps or rules find it.
  void add_warning(Finding f) {
    for (const auto& w : review_.warnings) {
      if (w.code == f.code && w.message == f.message) return;
    }
    review_.warnings.push_back(std::move(f));
  }

  // The request's deadline by this machine's clock. A deadline past 2^63 - 1 is later than any
  // clock reads (never a negative number).
  void deadline_check() {
    const auto deadline =
        static_cast<std::int64_t>(std::min<std::uint64_t>(q_.deadline, INT64_MAX));
    if (now_ > deadline) {
      // The request's times are the online machine's clock: one that was made moments ago but
      // reads as long past says the two clocks differ, which the operator can set right.
      const auto made = static_cast<std::int64_t>(
          std::min<std::uint64_t>(q_.created_at, static_cast<std::uint64_t>(INT64_MAX)));
      const std::string skew =
          made > 0 && made <= now_
              ? " (the online machine made it at " + iso_utc(made) + " by its clock, " +
                    std::to_string(now_ - made) +
                    " s before now by this one's: if it was made just now, the two machines' "
                    "clocks differ by about that much; set them right)"
              : "";
      refuse(FindingCode::kPolicyDeadlinePassed,
             "the deadline passed " + std::to_string(now_ - deadline) +
                 " s ago by this machine's clock; the tickets are dead" + skew);
    }
  }

  void request_checks() {
    if (q_.manager != policy_.manager)
      refuse(FindingCode::kPolicyManager, "the request is for manager " + to_base58(q_.manager) +
                                              ", not this policy's " + to_base58(policy_.manager));
    if (signer_ != policy_.manager)
      refuse(FindingCode::kPolicyManager,
             "the keystore's key " + to_base58(signer_) + " is not the policy's manager");
    if (keystone_) {
      // No build request, no deadline: the bytes are all there is. The policy's rules on
      // programs, fee payer, signers and vaults still apply to every instruction.
      if (!policy_.rule(q_.action).allowed)
        refuse(FindingCode::kPolicyActionNotAllowed,
               "the policy does not allow Keystone sol-sign-requests");
      warn(FindingCode::kWarnNoIntent,
           "a Keystone sol-sign-request carries no build request: nothing binds its accounts, "
           "programs or amounts to what the manager asked for. Read every instruction below; "
           "it is never signed without asking");
      return;
    }
    if (!action_ && described_ == nullptr)
      refuse(FindingCode::kPolicyActionUnknown,
             "action '" + q_.action +
                 "' is not a builder action this version knows, nor one a pinned descriptor "
                 "describes");
    else if (described_ == nullptr)
      refuse(FindingCode::kPolicyDescriptor,
             "no descriptor the policy pins describes " + q_.action +
                 ": nothing says what it may produce ([[descriptors]] in the policy)");
    if (!policy_.rule(q_.action).allowed)
      refuse(FindingCode::kPolicyActionNotAllowed, "the policy does not allow " + q_.action);
    // An action a descriptor adds beyond the builder's is allowed only where the policy names
    // it: pinning a descriptor says what its actions are, not that the key may do them.
    if (!action_ && described_ != nullptr && policy_.actions.count(q_.action) == 0)
      refuse(FindingCode::kPolicyActionNotAllowed,
             q_.action + " is no builder action, and the policy does not name it in [actions]");
    if (action_ == Action::kVaultInitialize) {
      if (!policy_.allow_vault_initialize)
        refuse(FindingCode::kPolicyVaultNotAllowed, "the policy does not allow creating vaults");
    } else if (policy_.vaults.count(q_.vault) == 0) {
      refuse(FindingCode::kPolicyVaultNotAllowed,
             "vault " + to_base58(q_.vault) + " is not in the policy's vaults");
    }
    deadline_check();
    if (!intent_.is_object()) {
      refuse(FindingCode::kIntentUnreadable, intent_problem_.empty()
                                                 ? "the build request body is not a JSON object"
                                                 : intent_problem_);
      return;
    }
    body_ranges();
    body_key_names(intent_, "");
    unknown_fields();
    if (action_ != Action::kVaultInitialize) {
      // The envelope's vault is what the transactions are checked against; it must be the one
      // the manager's body names, or a two-vault policy could be steered to the other vault.
      const bool named = intent_.contains("vault") && intent_["vault"].is_string() &&
                         intent_["vault"].get<std::string>() == to_base58(q_.vault);
      if (!named)
        refuse(FindingCode::kIntentVault,
               "the request is for vault " + to_base58(q_.vault) +
                   ", but the build request body names " +
                   (intent_.contains("vault") ? intent_["vault"].dump() : std::string("no vault")));
    }
  }

  // Every key of the body, at any depth, a plain field name (ASCII letters, digits and `_`, as
  // every field of the API is): the API ignores a field it does not know, so a look-alike
  // ("аmount" with a Cyrillic a) beside the field a rule reads would show the operator an
  // amount nothing signs, on the approval screen and in the summary alike.
  void body_key_names(const json& v, const std::string& at) {
    if (v.is_array()) {
      for (std::size_t i = 0; i < v.size(); ++i)
        body_key_names(v[i], at + "[" + std::to_string(i) + "]");
      return;
    }
    if (!v.is_object()) return;
    for (const auto& [key, value] : v.items()) {
      const bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_';
      });
      if (!plain) {
        refuse(FindingCode::kIntentUnreadable,
               "the build request's key \"" + printable(key) + "\"" +
                   (at.empty() ? std::string() : " (in " + printable(at) + ")") +
                   " is not a field name of the API (ASCII letters, digits and _): a look-alike "
                   "of a field would be shown beside the one the transactions are held to");
        continue;
      }
      body_key_names(value, at.empty() ? key : at + "." + key);
    }
  }

  // A field the action does not take (the field table both halves share): the API ignores it,
  // so it says nothing of what is signed, yet on a screen it would read as asked. An attacker
  // review hid a 100% performance fee past the screen behind a long made-up "reason": such a
  // field is warned about, and the screens show it last and marked (summary.cpp). An action
  // beyond the builder's has no table: its descriptor's rules are what read its body.
  void unknown_fields() {
    if (action_fields(q_.action) == nullptr) return;
    std::vector<std::string> names;
    for (const auto& path : leaf_paths(intent_)) {
      if (takes_path(q_.action, path)) continue;
      // A list's elements each once: "bins[].note".
      std::string name;
      for (std::size_t i = 0; i < path.size(); ++i) {
        if (path[i] != '[') {
          name += path[i];
          continue;
        }
        name += "[]";
        while (i < path.size() && path[i] != ']') ++i;
      }
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    if (names.empty()) return;
    std::string listed;
    for (const auto& n : names) listed += (listed.empty() ? "" : ", ") + printable(n);
    warn(FindingCode::kWarnUnknownField,
         "the build request holds " + listed + ", which " + q_.action +
             " does not take: the API ignores a field it does not know, so it says nothing of "
             "what is signed (shown last, marked)");
  }

  // The body's integer fields within the ranges the API states: a slippage of -1 would read as a
  // ceiling of 2^64 - 1, and bin ids near 2^63 would overflow the arithmetic on bins.
  void body_ranges() {
    for (const auto& [name, value] : intent_.items()) {
      const auto range = body_integer_range(name);
      if (!range || body_integer(intent_, name)) continue;
      refuse(FindingCode::kIntentUnreadable,
             "the build request's " + name + " is " + printable(value.dump()) +
                 "; the API takes an integer from " + std::to_string(range->min) + " to " +
                 std::to_string(range->max));
    }
  }

  // Token hints are display only, but a wrong symbol or decimals would mislead the operator by
  // orders of magnitude. The policy's pinned tokens win; a hint that contradicts one, or claims
  // a pinned symbol for another mint, is warned about and not shown.
  void token_labels() {
    for (const auto& t : policy_.tokens)
      review_.tokens.push_back({t.mint, t.symbol, t.decimals, true});
    for (const auto& hint : q_.hints.tokens) {
      const std::string mint = to_base58(hint.mint);
      if (!is_printable(hint.symbol) || (hint.name && !is_printable(*hint.name))) {
        // Shown escaped; a symbol that needs escaping is itself a warning sign.
        warn(FindingCode::kWarnMisleadingHint, "the online half's symbol or name for mint " + mint +
                                                   " holds characters a screen does not show as "
                                                   "themselves: '" +
                                                   printable(hint.symbol) + "'");
        continue;
      }
      if (!is_ticker(hint.symbol)) {
        // A symbol is pasted into sentences ("5 JUP (pinned)"): spaces, brackets or commas in
        // it could write its own provenance, so only a ticker's characters are shown.
        warn(FindingCode::kWarnMisleadingHint,
             "the online half's symbol for mint " + mint + ", '" + hint.symbol +
                 "', is not a ticker (1 to " + std::to_string(kMaxTickerBytes) +
                 " of the letters A-Z and a-z, the digits and . - _ $ +); it is not shown");
        continue;
      }
      if (hint.decimals > kMaxTokenDecimals) {
        // Whole units are shown from at most 18 decimals (a pin's limit too); more would read
        // as a smaller amount, and the summary once fell back to base units labelled as if
        // the hint's decimals were applied.
        warn(FindingCode::kWarnMisleadingHint,
             "the online half gives mint " + mint + " (" + hint.symbol + ") " +
                 std::to_string(hint.decimals) + " decimals, more than the " +
                 std::to_string(kMaxTokenDecimals) +
                 " any token here is shown with; its amounts are shown in base units");
        continue;
      }
      if (const PinnedToken* pinned = policy_.token(hint.mint)) {
        if (hint.symbol != pinned->symbol || hint.decimals != pinned->decimals) {
          warn(FindingCode::kWarnMisleadingHint,
               "the online half calls mint " + mint + " '" + hint.symbol + "' with " +
                   std::to_string(hint.decimals) + " decimals; the policy pins it as " +
                   pinned->symbol + " with " + std::to_string(pinned->decimals));
        }
        continue;
      }
      const auto impersonated =
          std::find_if(policy_.tokens.begin(), policy_.tokens.end(),
                       [&](const PinnedToken& t) { return same_symbol(t.symbol, hint.symbol); });
      if (impersonated != policy_.tokens.end()) {
        warn(FindingCode::kWarnMisleadingHint, "the online half calls mint " + mint + " '" +
                                                   hint.symbol + "', a symbol the policy pins to " +
                                                   to_base58(impersonated->mint));
        continue;
      }
      review_.tokens.push_back({hint.mint, hint.symbol, hint.decimals, false});
    }
  }

  // Pool hints are display only too, but with the pool pinned its tokens also count under the
  // policy's token limits: the pin wins, and a hint that says otherwise is refused. Either the
  // online half lies or the pin is wrong (token X and Y swapped would count one token's
  // deposits against the other's limit); both must stop the request.
  void pool_labels() {
    for (const auto& p : policy_.pools)
      review_.pools.push_back({p.address, p.token_x, p.token_y, true});
    for (const auto& hint : q_.hints.pools) {
      if (const PinnedPool* pinned = policy_.pool(hint.pool)) {
        if (hint.token_x != pinned->token_x || hint.token_y != pinned->token_y) {
          refuse(FindingCode::kPolicyPoolMismatch,
                 "the online half says pool " + to_base58(hint.pool) + " holds " +
                     to_base58(hint.token_x) + " (X) and " + to_base58(hint.token_y) +
                     " (Y); the policy pins it to " + to_base58(pinned->token_x) + " (X) and " +
                     to_base58(pinned->token_y) +
                     " (Y): check the pin, or distrust the online "
                     "machine");
        }
        continue;
      }
      review_.pools.push_back({hint.pool, hint.token_x, hint.token_y, false});
    }
  }

  // A swap of a pair the policy gives no price floor is asked at its build whatever was
  // approved (warn.unpriced): the approval says so now, where the body names both mints.
  void unpriced_pairs() {
    if (descriptor_ == nullptr || described_ == nullptr) return;
    for (const auto& swap : body_swaps(*descriptor_, *described_, intent_)) {
      if (!swap.sells || !swap.buys || policy_.price_floor(*swap.sells, *swap.buys) != nullptr)
        continue;
      const PinnedToken* sells = policy_.token(*swap.sells);
      const PinnedToken* buys = policy_.token(*swap.buys);
      warn(FindingCode::kWarnUnpriced,
           swap.instruction + " would swap " + (sells ? sells->symbol : to_base58(*swap.sells)) +
               " for " + (buys ? buys->symbol : to_base58(*swap.buys)) +
               ", a pair with no [[price_floors]] entry: its build is priced by the online "
               "half's quote alone, so it is asked again however this is answered");
    }
  }

  // Which of the body's fields are token amounts, and in which token, for the screens. Before
  // the build (an approval) no transaction names the pool a position is in, so a pool only the
  // hints name labels nothing: the build could be in another pool, signed under the approval.
  void amount_units() {
    if (descriptor_ == nullptr || described_ == nullptr || keystone_) return;
    std::vector<PublicKey> hinted;
    if (!q_.approval)
      for (const auto& hint : q_.hints.pools) hinted.push_back(hint.pool);
    review_.body_amounts = body_amounts(*descriptor_, *described_, intent_, hinted);
  }

  // Lookup tables: pinned contents are trusted; hints only when the policy allows unverified ones.
  std::vector<LoadedTable> tables_for(const Message& m, std::size_t index) {
    std::vector<LoadedTable> tables;
    for (const auto& lookup : m.lookups) {
      const LoadedTable* pinned = policy_.pinned(lookup.table);
      const envelope::LookupTableHint* hint = nullptr;
      for (const auto& h : q_.hints.lookup_tables) {
        if (h.table == lookup.table) hint = &h;
      }
      if (pinned != nullptr) {
        if (hint != nullptr) {
          for (const auto& [i, address] : hint->entries) {
            if (i >= pinned->addresses.size() || pinned->addresses[i] != address) {
              refuse(FindingCode::kPolicyLookupTableMismatch,
                     "the hint for table " + to_base58(lookup.table) + " index " +
                         std::to_string(i) + " contradicts the pinned contents",
                     index);
              break;
            }
          }
        }
        tables.push_back(*pinned);
        continue;
      }
      if (!policy_.allow_unverified_lookup_tables) {
        refuse(FindingCode::kPolicyLookupTableUnpinned,
               "lookup table " + to_base58(lookup.table) + " is not pinned in the policy", index);
        continue;
      }
      warn(FindingCode::kWarnUnverifiedLookupTable,
           "accounts of table " + to_base58(lookup.table) +
               " are known only from the online half's hints: on chain they are whatever the "
               "table holds, which may be other accounts, the vault's own among them (only "
               "route and passed-on accounts may come from it)",
           index);
      // Every index the message loads must be hinted: a gap would show a made-up key.
      const auto hinted = [&](std::uint8_t i) {
        return hint != nullptr && std::any_of(hint->entries.begin(), hint->entries.end(),
                                              [&](const auto& e) { return e.first == i; });
      };
      const bool complete =
          std::all_of(lookup.writable_indexes.begin(), lookup.writable_indexes.end(), hinted) &&
          std::all_of(lookup.readonly_indexes.begin(), lookup.readonly_indexes.end(), hinted);
      if (!complete) {
        refuse(FindingCode::kPolicyLookupHintIncomplete,
               "the accounts loaded from table " + to_base58(lookup.table) +
                   " are not all named by the request's hints",
               index);
        continue;
      }
      {
        LoadedTable from_hint{lookup.table, {}};
        std::size_t max_index = 0;
        for (const auto& [i, a] : hint->entries) max_index = std::max<std::size_t>(max_index, i);
        from_hint.addresses.resize(max_index + 1);
        for (const auto& [i, a] : hint->entries) from_hint.addresses[i] = a;
        tables.push_back(std::move(from_hint));
      }
    }
    return tables;
  }

  void step(std::size_t index) {
    StepReview s;
    s.index = index;
    auto tx = parse_transaction(q_.steps[index].transaction);
    if (!tx.ok()) {
      refuse(FindingCode::kPolicyUnparsable,
             "step " + std::to_string(index + 1) + ": " + tx.error().to_string(), index);
      review_.steps.push_back(std::move(s));
      return;
    }
    s.tx = std::move(tx).value();
    message_checks(s, index);
    const std::uint64_t price = decode_instructions(s, index);
    priority_fee_check(s, price, index);
    if (described_ != nullptr && !s.roles.empty()) {
      TemplateFindings found;
      bind_step(template_input(), s, found);
      take(found);
    } else if (keystone_ && !s.roles.empty()) {
      keystone_binding(s, index);
    }
    presignature_checks(s, index);
    vault_checks(s, index);
    off_side_deposits(s, index);
    review_.steps.push_back(std::move(s));
  }

  // A DLMM deposit of a token into bins none of which is on that token's side of the active bin
  // (X above it, Y at and below): by the shape the amount has nowhere to go, so it cannot land
  // as the deposit line reads. Gathered per token over the steps (off_side_warnings), asked,
  // never auto-approved.
  void off_side_deposits(const StepReview& s, std::size_t index) {
    for (std::size_t i = 0; i < s.instructions.size(); ++i) {
      if (!s.instructions[i]) continue;
      const auto picture = bin_picture(*s.instructions[i]);
      if (!picture || picture->kind != BinPicture::Kind::kDeposit) continue;
      for (const auto& [stranded, side] :
           {std::pair{picture->x_stranded, 0}, std::pair{picture->y_stranded, 1}}) {
        if (stranded) off_side_[side].push_back({index, *picture});
      }
    }
  }

  void off_side_warnings() {
    for (int side = 0; side < 2; ++side) {
      const auto& found = off_side_[side];
      if (found.empty()) continue;
      const char* token = side == 0 ? "X" : "Y";
      std::string steps;
      std::int64_t first = INT64_MAX, last = INT64_MIN;
      for (const auto& [step, picture] : found) {
        steps += (steps.empty() ? "" : ", ") + std::to_string(step + 1);
        first = std::min(first, picture.first_bin);
        last = std::max(last, picture.last_bin);
      }
      const auto& active = found.front().second.active_bin;
      warn(FindingCode::kWarnDepositOffSide,
           std::string(found.size() == 1 ? "step " : "steps ") + steps + " deposit" +
               (found.size() == 1 ? "s" : "") + " token " + token + " into bins (within " +
               std::to_string(first) + " to " + std::to_string(last) + ") none of which is on " +
               token + "'s side of the active bin " +
               (active ? std::to_string(*active) : std::string("?")) +
               ": by the shape those amounts have nowhere to go");
    }
  }

  // The message as a whole: its version, fee payer and signer slots, a durable nonce, and the
  // accounts its lookup tables give (the step's roles).
  void message_checks(StepReview& s, std::size_t index) {
    const Message& m = s.tx.message;
    if (m.version != MessageVersion::kV0)
      refuse(FindingCode::kPolicyUnparsable, "only version-0 messages are signed", index);
    s.message_hash = sha256(serialize_message(m));
    if (m.fee_payer() != policy_.manager) {
      refuse(FindingCode::kPolicyFeePayer,
             "the fee payer is " + to_base58(m.fee_payer()) + ", not the manager", index);
    }
    for (std::size_t i = 1; i < m.header.num_required_signatures; ++i) {
      if (m.static_keys[i] == policy_.manager)
        refuse(FindingCode::kPolicySignerSlot,
               "the manager would sign in slot " + std::to_string(i) + ", not as fee payer", index);
    }
    s.nonce = durable_nonce(m);
    if (s.nonce) {
      if (policy_.allow_durable_nonce) {
        warn(FindingCode::kWarnDurableNonce,
             "uses durable nonce " + to_base58(s.nonce->nonce_account) + ": it never expires",
             index);
      } else {
        refuse(FindingCode::kPolicyDurableNonce,
               "uses a durable nonce (it would never expire); the policy refuses them", index);
      }
    }
    const auto tables = tables_for(m, index);
    auto roles = account_roles(m, tables);
    if (!roles.ok()) {
      refuse(roles.error().code() == ErrorCode::kMessageDuplicateAccount
                 ? FindingCode::kPolicyUnparsable
                 : FindingCode::kPolicyLookupTableMismatch,
             roles.error().message(), index);
    } else {
      s.roles = std::move(roles).value();
    }
  }

  // Each instruction: its program allowed, decoded, the compute budget read, and the checks
  // on dangerous instructions and on the manager's accounts. Returns the compute unit price.
  std::uint64_t decode_instructions(StepReview& s, std::size_t index) {
    const Message& m = s.tx.message;
    std::uint64_t price = 0;
    for (std::size_t i = 0; i < m.instructions.size(); ++i) {
      const auto& ix = m.instructions[i];
      const PublicKey& program = m.static_keys[ix.program_index];
      if (policy_.programs.count(program) == 0) {
        refuse(FindingCode::kPolicyProgramNotAllowed,
               "instruction " + std::to_string(i + 1) + " calls " + to_base58(program) +
                   (programs::well_known_name(program)
                        ? " (" + std::string(*programs::well_known_name(program)) + ")"
                        : "") +
                   ", which the policy does not allow",
               index);
      }
      auto decoded = decoders_.decode(program, ix.data, ix.accounts.size());
      if (!decoded.ok()) {
        refuse(FindingCode::kPolicyUndecodable,
               "instruction " + std::to_string(i + 1) + ": " + decoded.error().message(), index);
        s.instructions.emplace_back(std::nullopt);
        continue;
      }
      const Decoded& d = *decoded;
      if (program == programs::key(programs::kComputeBudget)) {
        if (d.instruction == "set_compute_unit_limit")
          s.compute_unit_limit = budget_value(d, "units", index);
        if (d.instruction == "set_compute_unit_price")
          price = budget_value(d, "micro_lamports", index);
        if (d.instruction == "request_units") deprecated_fee(s, d, i, index);
      }
      dangerous(s, d, ix, index);
      manager_outside_vault(m, d, ix, i, index);
      s.instructions.emplace_back(std::move(decoded).value());
    }
    return price;
  }

  // A compute budget's integer. The decoder writes one, so anything else refuses the step; the
  // fee is then counted at its worst.
  std::uint64_t budget_value(const Decoded& d, std::string_view arg, std::size_t index) {
    const auto value = Arguments(d.args).amount(arg);
    if (!value)
      refuse(FindingCode::kPolicyUndecodable,
             "compute budget " + d.instruction + "'s " + std::string(arg) +
                 " is not an unsigned integer",
             index);
    return value.value_or(UINT32_MAX);
  }

  // The deprecated request_units instruction carries a fee of its own (additional_fee, in
  // lamports) beside the compute-unit price: it counts in the fee shown and capped, and since no
  // builder writes it and the runtime treats it apart from the price, it is refused.
  void deprecated_fee(StepReview& s, const Decoded& d, std::size_t i, std::size_t index) {
    const std::uint64_t fee = budget_value(d, "additional_fee", index);
    s.additional_fee_lamports += fee;  // at most 2^32 - 1 per instruction, never wraps here
    refuse(FindingCode::kPolicyPriorityFee,
           "instruction " + std::to_string(i + 1) +
               " is the deprecated compute budget request_units, which pays an additional fee of " +
               std::to_string(fee) +
               " lamports outside the compute-unit price; no builder writes it",
           index);
  }

  // The most the step can pay as a priority fee, against the policy's ceiling.
  void priority_fee_check(StepReview& s, std::uint64_t price, std::size_t index) {
    const Message& m = s.tx.message;
    const std::uint64_t limit = s.compute_unit_limit == 0
                                    ? 200'000 * std::max<std::size_t>(1, m.instructions.size())
                                    : s.compute_unit_limit;
    const auto fee = (static_cast<unsigned __int128>(price) * limit + 999'999) / 1'000'000 +
                     s.additional_fee_lamports;
    s.priority_fee_lamports = fee > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(fee);
    if (s.priority_fee_lamports > policy_.max_priority_fee_lamports) {
      refuse(FindingCode::kPolicyPriorityFee,
             "the priority fee of up to " + std::to_string(s.priority_fee_lamports) +
                 " lamports is over the policy's " +
                 std::to_string(policy_.max_priority_fee_lamports),
             index);
    }
  }

  // Signatures already present (new position, vault or order accounts) must be valid; the
  // one empty slot allowed is the perp venue's, at the venue account of its onboarding.
  void presignature_checks(const StepReview& s, std::size_t index) {
    const auto checks = check_signatures(s.tx);
    for (std::size_t i = 1; i < checks.size(); ++i) {
      if (checks[i].state == SignatureState::kInvalid) {
        refuse(FindingCode::kPolicyInvalidPresignature,
               "the signature of " + to_base58(checks[i].signer) + " does not verify", index);
      } else if (checks[i].state == SignatureState::kEmpty &&
                 !(s.venue_cosigner && checks[i].signer == *s.venue_cosigner)) {
        refuse(
            FindingCode::kPolicyMissingSignature,
            to_base58(checks[i].signer) + " must sign too, and this machine does not hold its key",
            index);
      } else if (checks[i].state == SignatureState::kValid && s.venue_cosigner &&
                 checks[i].signer == *s.venue_cosigner) {
        refuse(FindingCode::kPolicyInvalidPresignature,
               "the venue's slot is already signed: the venue signs only when the API submits",
               index);
      }
    }
  }

  // A program the action's own instructions run in (the vault program, and for perp/onboard the
  // perp venue): the manager signs for it, and its instruction is the step's vault instruction.
  bool described_program(const PublicKey& program) const {
    if (described_ == nullptr) return false;
    return std::any_of(
        described_->instruction_index.begin(), described_->instruction_index.end(),
        [&](std::size_t i) { return descriptor_->instructions[i].program_id == program; });
  }

  TemplateInput template_input() {
    return TemplateInput{*descriptor_, *described_, q_,           intent_,
                         policy_,      decoders_,   derivations_, own_};
  }

  // The mints and holdings this machine knows of for the vault, from the policy, the hints and
  // the body: their token accounts, strategies and positions are the vault's own, and no
  // account another party chooses may be one of them (templates.cpp, not_own).
  void known_own_addresses(VaultAddresses& own) const {
    for (const auto& t : policy_.tokens) own.add_mint(t.mint);
    for (const auto& p : policy_.pools) {
      own.add_mint(p.token_x);
      own.add_mint(p.token_y);
    }
    for (const auto& t : q_.hints.tokens) own.add_mint(t.mint);
    for (const auto& p : q_.hints.pools) {
      own.add_mint(p.token_x);
      own.add_mint(p.token_y);
    }
    body_keys(own, intent_, "");
  }

  // Every key the body names: under a field called "…Mint" or "mint" a mint, under "position",
  // "limitOrder" or "strategy" a holding of the vault.
  static void body_keys(VaultAddresses& own, const json& v, std::string_view field) {
    if (v.is_object()) {
      for (const auto& [name, value] : v.items()) body_keys(own, value, name);
    } else if (v.is_array()) {
      for (const auto& item : v) body_keys(own, item, field);
    } else if (v.is_string()) {
      const auto key = public_key_from_base58(v.get_ref<const std::string&>());
      if (!key.ok()) return;
      const bool mint =
          field == "mint" || (field.size() > 4 && field.substr(field.size() - 4) == "Mint");
      if (mint) own.add_mint(*key);
      if (field == "position" || field == "limitOrder" || field == "strategy")
        own.add_holding(*key);
    }
  }

  // A Keystone request names no action and no vault: the step is bound to the template of the
  // action its vault instruction belongs to, for the vault that instruction names (one of the
  // policy's, or vault_checks refuses it), as far as the instruction alone allows: fixed
  // programs, the manager, the vault and what derives from it, the decoded route; accounts a
  // body would name are tied to the instruction's own arguments or shown unbound.
  void keystone_binding(StepReview& s, std::size_t index) {
    const Message& m = s.tx.message;
    for (std::size_t i = 0; i < m.instructions.size() && i < s.instructions.size(); ++i) {
      if (!s.instructions[i]) continue;
      const auto& ix = m.instructions[i];
      const auto action =
          action_of_instruction(decoders_, m.static_keys[ix.program_index], *s.instructions[i]);
      if (!action) continue;
      if (ix.accounts.empty() || ix.accounts[0] >= m.static_keys.size() ||
          policy_.vaults.count(m.static_keys[ix.accounts[0]]) == 0) {
        refuse(FindingCode::kPolicyVaultNotAllowed,
               "instruction " + std::to_string(i + 1) + " (" + s.instructions[i]->instruction +
                   ")'s vault is not a static key in the policy's vaults",
               index);
        return;
      }
      envelope::SignRequest for_vault = q_;
      for_vault.vault = m.static_keys[ix.accounts[0]];
      VaultAddresses own(for_vault.vault, policy_.manager, derivations_);
      own.describe(*action->descriptor);
      known_own_addresses(own);
      TemplateFindings found;
      bind_step({*action->descriptor, *action->action, for_vault, intent_, policy_, decoders_,
                 derivations_, own, true},
                s, found);
      take(found);
      return;
    }
    refuse(FindingCode::kIntentInstruction,
           "no instruction of the step is a builder action's vault instruction: a Keystone "
           "request is bound to the template of the action its vault instruction belongs to",
           index);
  }
  void take(TemplateFindings& found) {
    for (auto& f : found.refusals) review_.refusals.push_back(std::move(f));
    for (auto& f : found.warnings) add_warning(std::move(f));
  }

  std::optional<PublicKey> account_key(const StepReview& s, const CompiledInstruction& ix,
                                       std::size_t position) const {
    if (position >= ix.accounts.size() || ix.accounts[position] >= s.roles.size())
      return std::nullopt;
    return s.roles[ix.accounts[position]].key;
  }

  // The manager's signature authorises every instruction that lists the manager as a signer.
  // A vault action needs it only for the vault program (and the perp venue's onboarding), for
  // creating an associated token account it pays rent for, and as a durable nonce's authority
  // (which has its own rule). Anything else the manager would authorise directly — a System
  // transfer or assign, a token approve, set_authority, close or transfer from the manager — is
  // refused, however ordinary the rest of the step looks.
  void manager_outside_vault(const Message& m, const Decoded& d, const CompiledInstruction& ix,
                             std::size_t position, std::size_t index) {
    const PublicKey& program = m.static_keys[ix.program_index];
    if (program == programs::key(kVaultProgram)) return;
    if (described_program(program)) return;
    if (program == programs::key(programs::kAssociatedToken) && d.instruction != "recover_nested")
      return;
    if (program == programs::key(programs::kSystem) && d.instruction == "advance_nonce_account")
      return;
    for (const auto account : ix.accounts) {
      if (account < m.header.num_required_signatures && account < m.static_keys.size() &&
          m.static_keys[account] == policy_.manager) {
        refuse(FindingCode::kPolicyManagerOutsideVault,
               "instruction " + std::to_string(position + 1) + " (" + d.program + " " +
                   d.instruction +
                   ") needs the manager's signature; the manager signs only for the vault "
                   "program, fees and token-account creation",
               index);
        return;
      }
    }
  }

  // Instructions that move authority or funds away from the manager are flagged first.
  void dangerous(const StepReview& s, const Decoded& d, const CompiledInstruction& ix,
                 std::size_t index) {
    const auto named = [&](std::string_view name) -> std::optional<PublicKey> {
      for (std::size_t i = 0; i < d.account_names.size(); ++i) {
        if (d.account_names[i] == name) return account_key(s, ix, i);
      }
      return std::nullopt;
    };
    const PublicKey& program = s.tx.message.static_keys[ix.program_index];
    const bool token = program == programs::key(programs::kToken) ||
                       program == programs::key(programs::kToken2022);
    if (token && d.instruction == "set_authority")
      warn(FindingCode::kWarnAuthorityChange,
           "token set_authority moves " + Arguments(d.args).shown("authority_type") + " authority",
           index);
    if (token && (d.instruction == "approve" || d.instruction == "approve_checked"))
      warn(FindingCode::kWarnApproval,
           "token approve lets a delegate spend " + Arguments(d.args).shown("amount") +
               " base units",
           index);
    if (token && d.instruction == "close_account")
      warn(FindingCode::kWarnClose, "token close_account closes an account", index);
    // A *_checked instruction states the mint's decimals, and the token program refuses it if
    // they are wrong: a hint that disagrees is misleading.
    if (token && d.args.contains("decimals") && d.args["decimals"].is_number_unsigned()) {
      if (const auto mint = named("mint")) {
        for (const auto& hint : q_.hints.tokens) {
          if (hint.mint == *mint && hint.decimals != d.args["decimals"].get<unsigned>()) {
            warn(FindingCode::kWarnMisleadingHint,
                 "the online half says mint " + to_base58(*mint) + " has " +
                     std::to_string(hint.decimals) + " decimals; the " + d.instruction +
                     " instruction says " + d.args["decimals"].dump() + ", which the chain checks",
                 index);
          }
        }
      }
    }
    if (token && (d.instruction == "transfer" || d.instruction == "transfer_checked") &&
        named("owner") == policy_.manager) {
      warn(FindingCode::kWarnTransferFromManager,
           "a token transfer spends from the manager's own account", index);
    }
    if (program == programs::key(programs::kSystem)) {
      if ((d.instruction == "transfer" || d.instruction == "transfer_with_seed") &&
          named("from") == policy_.manager) {
        warn(FindingCode::kWarnTransferFromManager,
             "a transfer of " + Arguments(d.args).shown("lamports") + " lamports from the manager",
             index);
      }
      if (d.instruction == "assign" || d.instruction == "assign_with_seed" ||
          d.instruction == "authorize_nonce_account") {
        warn(FindingCode::kWarnAuthorityChange,
             "System " + d.instruction + " changes an account's owner or authority", index);
      }
      if (d.instruction == "withdraw_nonce_account")
        warn(FindingCode::kWarnTransferFromManager, "withdraws from a nonce account", index);
    }
  }

  // The vault the request names must be a static key of the vault-program instruction, and
  // that instruction must be one the action builds.
  void vault_checks(StepReview& s, std::size_t index) {
    const PublicKey& vault_program = programs::key(kVaultProgram);
    const Message& m = s.tx.message;
    if (keystone_) {
      // Without a request naming the vault, each vault instruction's own vault must be one of
      // the policy's.
      for (const auto& ix : m.instructions) {
        if (m.static_keys[ix.program_index] != vault_program) continue;
        if (ix.accounts.empty() || ix.accounts[0] >= m.static_keys.size() ||
            policy_.vaults.count(m.static_keys[ix.accounts[0]]) == 0) {
          refuse(FindingCode::kPolicyVaultNotAllowed,
                 "a vault instruction's vault is not a static key in the policy's vaults", index);
        }
      }
      return;
    }
    // An action beyond the builder's 28: the binder holds its one instruction, every account
    // and every argument to the descriptor's rules; the rules below are the builder API's.
    if (!action_) return;
    std::size_t vault_ixs = 0;
    for (std::size_t i = 0; i < m.instructions.size(); ++i) {
      const auto& ix = m.instructions[i];
      const PublicKey& program = m.static_keys[ix.program_index];
      if (program != vault_program && !described_program(program)) continue;
      ++vault_ixs;
      if (action_ != Action::kVaultInitialize) {
        if (ix.accounts.empty() || ix.accounts[0] >= m.static_keys.size() ||
            m.static_keys[ix.accounts[0]] != q_.vault) {
          refuse(FindingCode::kPolicyVaultNotStatic,
                 "the vault instruction's vault account is not the request's vault as a static key",
                 index);
        }
      }
    }
    if (vault_ixs != 1)
      refuse(FindingCode::kIntentInstruction,
             "a step must hold exactly one vault-program instruction, not " +
                 std::to_string(vault_ixs),
             index);
  }

  const envelope::SignRequest& q_;
  const Policy& policy_;
  const DecoderRegistry& decoders_;
  PublicKey signer_;
  std::int64_t now_;
  json intent_;
  Derivations derivations_;
  VaultAddresses own_{q_.vault, policy_.manager, derivations_};
  std::optional<Action> action_;
  std::string intent_problem_;  // why the body could not be read, where it says
  const Descriptor* descriptor_ = nullptr;
  const DescribedAction* described_ = nullptr;
  // DLMM deposits of token X (0) and Y (1) into bins none on that token's side: step, picture.
  std::vector<std::pair<std::size_t, BinPicture>> off_side_[2];
  bool keystone_ = false;  // a Keystone sol-sign-request: no intent to bind to
  Review review_;
};

}  // namespace

Review review_request(const envelope::SignRequest& request, const Policy& policy,
                      const DecoderRegistry& decoders, const PublicKey& signer,
                      std::int64_t now_unix) {
  return Reviewer(request, policy, decoders, signer, now_unix).run();
}

Review review_intent(const envelope::SignRequest& request, const Policy& policy,
                     const DecoderRegistry& decoders, const PublicKey& signer,
                     std::int64_t now_unix) {
  return Reviewer(request, policy, decoders, signer, now_unix).run_intent();
}

}  // namespace airlock::offline
