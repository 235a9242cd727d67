#include <algorithm>
#include <set>
#include <stdexcept>

#include <airlock/common/display.h>
#include <airlock/common/hash.h>
#include <airlock/common/programs.h>
#include <airlock/common/units.h>
#include <airlock/formats/actions.h>
#include <airlock/formats/json_fields.h>
#include <airlock/offline/review.h>
#include <airlock/offline/templates.h>
#include <airlock/offline/vault_addresses.h>

namespace airlock::offline {
namespace {

using json = nlohmann::ordered_json;  // one type on both sides of every comparison
using ojson = nlohmann::ordered_json;

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
    if (described_ != nullptr) review_.reads = described_->reads;
    review_.beyond_builder = described_ != nullptr && !action_;
    known_own_addresses(own_);
  }

  Review run() {
    request_checks();
    token_labels();
    pool_labels();
    for (std::size_t i = 0; i < q_.steps.size(); ++i) step(i);
    if (described_ != nullptr) {
      TemplateFindings found;
      bind_steps(template_input(), review_.steps, found);
      take(found);
    }
    if (review_.refusals.empty() && !keystone_) {
      try {
        intent_across_steps();
      } catch (const std::exception& e) {
        refuse(FindingCode::kIntentUnreadable,
               std::string("the build request's totals cannot be read: ") + e.what());
      }
    }
    const ActionRule rule = policy_.rule(q_.action);
    review_.auto_approvable =
        !keystone_ && rule.auto_approve && review_.refusals.empty() && review_.warnings.empty();
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
    if (now_ > static_cast<std::int64_t>(q_.deadline)) {
      refuse(FindingCode::kPolicyDeadlinePassed,
             "the deadline passed " +
                 std::to_string(now_ - static_cast<std::int64_t>(q_.deadline)) +
                 " s ago by this machine's clock; the tickets are dead");
    }
    if (!intent_.is_object()) {
      refuse(FindingCode::kIntentUnreadable, intent_problem_.empty()
                                                 ? "the build request body is not a JSON object"
                                                 : intent_problem_);
      return;
    }
    body_ranges();
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
               " are known only from the online half's hints",
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
    review_.steps.push_back(std::move(s));
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
        if (d.instruction == "set_compute_unit_limit") s.compute_unit_limit = u64(d.args["units"]);
        if (d.instruction == "set_compute_unit_price") price = u64(d.args["micro_lamports"]);
        if (d.instruction == "request_units") deprecated_fee(s, d, i, index);
      }
      dangerous(s, d, ix, index);
      manager_outside_vault(m, d, ix, i, index);
      s.instructions.emplace_back(std::move(decoded).value());
    }
    return price;
  }

  // The deprecated request_units instruction carries a fee of its own (additional_fee, in
  // lamports) beside the compute-unit price: it counts in the fee shown and capped, and since no
  // builder writes it and the runtime treats it apart from the price, it is refused.
  void deprecated_fee(StepReview& s, const Decoded& d, std::size_t i, std::size_t index) {
    const std::uint64_t fee = u64(d.args["additional_fee"]);
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

  // The rules of the policy and of a floor that need no build request, for a request that has
  // none: the floor a route states, and every slippage within the ceilings the policy sets for
  // the action the instruction belongs to.
  void rules_without_intent(const Decoded& d, const std::string& action, std::size_t index) {
    const ActionRule rule = policy_.rule(action);
    const auto within = [&](const char* arg, std::optional<std::uint16_t> ceiling,
                            const std::string& unit, const ojson& args) {
      if (!ceiling || !args.contains(arg)) return;
      const auto value = integer_arg(args[arg]);
      if (!value || *value > *ceiling) {
        refuse(FindingCode::kIntentSlippage,
               std::string(arg) + " " + args[arg].dump() + " is above the " +
                   std::to_string(*ceiling) + " " + unit + " the policy allows " + action,
               index);
      }
    };
    within("slippage_bps", rule.max_slippage_bps, "bps", d.args);
    within("max_active_bin_slippage", rule.max_active_bin_slippage, "bins", d.args);
    if (const auto route = d.nested.find("route"); route != d.nested.end()) {
      within("slippage_bps", rule.max_slippage_bps, "bps", route->second.args);
      route_floor(d, route->second.args, index);
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
      VaultAddresses own(for_vault.vault, derivations_);
      known_own_addresses(own);
      TemplateFindings found;
      bind_step({*action->descriptor, *action->action, for_vault, intent_, policy_, decoders_,
                 derivations_, own, true},
                s, found);
      take(found);
      rules_without_intent(*s.instructions[i], action->action->name, index);
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
           "token set_authority moves " + d.args["authority_type"].dump() + " authority", index);
    if (token && (d.instruction == "approve" || d.instruction == "approve_checked"))
      warn(FindingCode::kWarnApproval,
           "token approve lets a delegate spend " + d.args["amount"].get<std::string>() +
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
        warn(
            FindingCode::kWarnTransferFromManager,
            "a transfer of " + d.args["lamports"].get<std::string>() + " lamports from the manager",
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
      if (i >= s.instructions.size() || !s.instructions[i]) continue;
      const Decoded& d = *s.instructions[i];
      // The decoded arguments follow the IDL, so their shapes are known; the request body is
      // whatever the online half sent. Anything unexpected in either is a refusal, not a crash.
      try {
        per_step_intent(d, index);
      } catch (const std::exception& e) {
        refuse(FindingCode::kIntentUnreadable,
               std::string("the build request does not match the instruction's shape: ") + e.what(),
               index);
      }
    }
    if (vault_ixs != 1)
      refuse(FindingCode::kIntentInstruction,
             "a step must hold exactly one vault-program instruction, not " +
                 std::to_string(vault_ixs),
             index);
  }

  // ---- intent: the decoded arguments against the build request body ----

  std::string text(const char* field) const {
    return intent_.contains(field) && intent_[field].is_string() ? intent_[field].get<std::string>()
                                                                 : std::string();
  }
  // An integer field of the body, within the range the API states for it (body_integer).
  std::optional<std::int64_t> integer(const char* field) const {
    return body_integer(intent_, field);
  }
  // A decoded integer argument. The decoders write every integer field as one, so anything
  // else is a fault here, not a reading of zero.
  static std::uint64_t u64(const ojson& v) {
    const auto value = integer_arg(v);
    if (!value) throw std::logic_error("a decoded integer argument is not an unsigned integer");
    return *value;
  }

  void expect_equal(FindingCode code, const std::string& what, const std::string& got,
                    const std::string& want, std::size_t index) {
    if (got != want)
      refuse(code, what + ": the transaction has " + got + ", the request asked for " + want,
             index);
  }

  void expect_slippage(const ojson& bps, std::size_t index) {
    const auto asked = integer("slippageBps");
    std::uint64_t ceiling = asked ? static_cast<std::uint64_t>(*asked) : 0;
    if (const auto rule = policy_.rule(q_.action).max_slippage_bps)
      ceiling = std::min<std::uint64_t>(ceiling, *rule);
    if (u64(bps) > ceiling)
      refuse(FindingCode::kIntentSlippage,
             "slippage of " + std::to_string(u64(bps)) + " bps is above the " +
                 std::to_string(ceiling) + " bps allowed",
             index);
  }

  // The request's own fields against the step's decoded arguments, by the instruction's family.
  // An instruction none of them names has no fields of the request to match.
  void per_step_intent(const Decoded& d, std::size_t index) {
    const std::string& name = d.instruction;
    if (name.rfind("aggregator_", 0) == 0 || name == "dlmm_zap_out_swap") {
      swap_intent(d, index);
    } else if (name == "dlmm_limit_order_place") {
      limit_order_intent(d, index);
    } else if (name.rfind("dlmm_", 0) == 0) {
      position_intent(d, index);
    } else if (name.rfind("perp_", 0) == 0) {
      perp_intent(d, index);
    } else if (name.rfind("vault_", 0) == 0) {
      vault_intent(d, index);
    }
  }

  // A swap or sweep, and the zap-out's swap: mints, amounts, slippage and the route.
  void swap_intent(const Decoded& d, std::size_t index) {
    const ojson& a = d.args;
    if (d.instruction == "aggregator_swap") {
      expect_equal(FindingCode::kIntentMint, "source mint", a["source_mint"], text("sourceMint"),
                   index);
      expect_equal(FindingCode::kIntentMint, "destination mint", a["destination_mint"],
                   text("destinationMint"), index);
      expect_equal(FindingCode::kIntentAmount, "amount", a["amount"], text("amount"), index);
      expect_slippage(a["slippage_bps"], index);
      route_intent(d, index, text("amount"));
    } else if (d.instruction == "aggregator_initialize") {
      expect_equal(FindingCode::kIntentMint, "strategy token", a["target_mint"],
                   action_ == Action::kAggregatorSwap ? text("destinationMint") : text("mint"),
                   index);
      if (action_ == Action::kAggregatorSwap &&
          (!q_.steps[index].next_action ||
           *q_.steps[index].next_action != action_name(Action::kAggregatorSwap))) {
        refuse(FindingCode::kIntentInstruction,
               "a swap step that only sets up a strategy must be followed by the swap itself",
               index);
      }
    } else if (d.instruction == "aggregator_sweep") {
      expect_equal(FindingCode::kIntentMint, "mint", a["mint"], text("mint"), index);
      expect_slippage(a["slippage_bps"], index);
      route_intent(d, index, a["amount"]);
    } else if (d.instruction == "dlmm_zap_out_swap") {
      const json source = intent_.contains("sources") && intent_["sources"].is_array() &&
                                  !intent_["sources"].empty()
                              ? intent_["sources"][0]
                              : json::object();
      expect_equal(FindingCode::kIntentMint, "source mint", a["source_mint"],
                   source.value("mint", ""), index);
      expect_equal(FindingCode::kIntentAmount, "balance before", a["balance_before"],
                   source.value("balanceBefore", ""), index);
      if (a["close_when_empty"] != source.value("closeWhenEmpty", false))
        refuse(FindingCode::kIntentFlag, "closeWhenEmpty differs from the request", index);
      expect_slippage(a["slippage_bps"], index);
      route_intent(d, index, std::nullopt);
    }
  }

  // A liquidity position: its bins, shares, shapes and slippage.
  void position_intent(const Decoded& d, std::size_t index) {
    const ojson& a = d.args;
    if (d.instruction == "dlmm_flip") {
      for (const auto& [arg, field] : std::vector<std::pair<const char*, const char*>>{
               {"from_bin_id", "lowerBinId"},
               {"to_bin_id", "upperBinId"},
               {"active_id", "activeBinId"},
               {"max_active_bin_slippage", "maxActiveBinSlippage"}}) {
        if (!integer(field) || a[arg].get<std::int64_t>() != *integer(field))
          refuse(FindingCode::kIntentBins, std::string(field) + " differs from the request", index);
      }
      bin_slippage_ceiling(a, index);
    } else if (d.instruction == "dlmm_remove") {
      if (!integer("bpsToRemove") ||
          a["bps_to_remove"].get<std::int64_t>() != *integer("bpsToRemove"))
        refuse(FindingCode::kIntentAmount, "bpsToRemove differs from the request", index);
      inside_subrange(a["from_bin_id"].get<std::int64_t>(), a["to_bin_id"].get<std::int64_t>(),
                      index);
      if (const auto cursor = integer("cursorBinId");
          cursor && a["from_bin_id"].get<std::int64_t>() < *cursor) {
        refuse(FindingCode::kIntentBins,
               "removes from bin " + std::to_string(a["from_bin_id"].get<std::int64_t>()) +
                   ", before cursorBinId " + std::to_string(*cursor) + " (ranges already done)",
               index);
      }
    } else if (d.instruction == "dlmm_initialize") {
      // The position's geometry: its first bin and width are the request's bins.
      const auto lower = integer("lowerBinId"), upper = integer("upperBinId");
      if (!lower || !upper || a["lower_bin_id"].get<std::int64_t>() != *lower ||
          a["width"].get<std::int64_t>() != *upper - *lower) {
        refuse(FindingCode::kIntentBins,
               "the position spans bins " + std::to_string(a["lower_bin_id"].get<std::int64_t>()) +
                   " +" + std::to_string(a["width"].get<std::int64_t>()) +
                   ", not the requested lowerBinId to upperBinId",
               index);
      }
    } else if (d.instruction == "dlmm_open" || d.instruction == "dlmm_add" ||
               d.instruction == "dlmm_add_range") {
      if (d.instruction == "dlmm_open") {
        // The liquidity goes exactly into the bins of the position the step creates.
        const std::int64_t lower = a["lower_bin_id"].get<std::int64_t>();
        const std::int64_t width = a["width"].get<std::int64_t>();
        const bool spans_position =
            width >= 1 && a["strategy"]["min_bin_id"].get<std::int64_t>() == lower &&
            a["strategy"]["max_bin_id"].get<std::int64_t>() == lower + width - 1;
        if (!spans_position) {
          refuse(FindingCode::kIntentBins,
                 "the step's liquidity spans bins " +
                     std::to_string(a["strategy"]["min_bin_id"].get<std::int64_t>()) + " to " +
                     std::to_string(a["strategy"]["max_bin_id"].get<std::int64_t>()) +
                     ", not the position it opens (" + std::to_string(lower) + " +" +
                     std::to_string(width) + ")",
                 index);
        }
      }
      shapes_and_slippage(a, index);
      range_sums_.push_back({a["strategy"]["min_bin_id"].get<std::int64_t>(),
                             a["strategy"]["max_bin_id"].get<std::int64_t>(), u64(a["amount_x"]),
                             u64(a["amount_y"])});
      if (d.instruction != "dlmm_open")
        inside_subrange(a["strategy"]["min_bin_id"].get<std::int64_t>(),
                        a["strategy"]["max_bin_id"].get<std::int64_t>(), index);
    } else if (d.instruction == "dlmm_zap_out") {
      expect_slippage(a["slippage_bps"], index);
    } else if (d.instruction == "dlmm_extend") {
      const auto upper = integer("upperBinId");
      const std::int64_t last =
          a["lower_bin_id"].get<std::int64_t>() + a["width"].get<std::int64_t>() - 1;
      if (!upper || last > *upper)
        refuse(FindingCode::kIntentBins,
               "extends to bin " + std::to_string(last) + ", past the requested upperBinId", index);
    }
  }

  // A limit order: its side, and each bin (its price) and amount.
  void limit_order_intent(const Decoded& d, std::size_t index) {
    const ojson& a = d.args;
    if (d.instruction == "dlmm_limit_order_place") {
      const std::string side = text("side");
      if ((a["side"]["variant"] == "Bid") != (side == "bid"))
        refuse(FindingCode::kIntentSide, "the order side differs from the request", index);
      const json bins = intent_.value("bins", json::array());
      if (!bins.is_array() || bins.size() != a["bins"].size()) {
        refuse(FindingCode::kIntentBins, "the order's bins differ from the request", index);
      } else {
        for (std::size_t i = 0; i < bins.size(); ++i) {
          // The bin is the order's price; the amount its size.
          // The body's bin id as an integer within the bin range: value() would read
          // 2^64 - 5 as -5 and 5.7 as 5.
          const auto asked = body_integer(bins[i], "binId");
          if (!asked || a["bins"][i]["bin_id"].get<std::int64_t>() != *asked) {
            refuse(FindingCode::kIntentBins,
                   "order bin " + std::to_string(i) + " (its price) differs from the request",
                   index);
          }
          expect_equal(FindingCode::kIntentAmount, "order bin " + std::to_string(i) + " amount",
                       a["bins"][i]["amount"], bins[i].value("amount", ""), index);
        }
      }
    }
  }

  // Perpetuals: amounts, and an order's or a cancel's fields.
  void perp_intent(const Decoded& d, std::size_t index) {
    const ojson& a = d.args;
    if (d.instruction == "perp_deposit" || d.instruction == "perp_withdraw") {
      expect_equal(FindingCode::kIntentAmount, "amount", a["amount"], text("amount"), index);
    } else if (d.instruction == "perp_order") {
      const ojson& o = a["order"];
      if ((o["side"]["variant"] == "Long") != (text("side") == "long"))
        refuse(FindingCode::kIntentSide, "the order side differs from the request", index);
      if (!intent_.contains("reduceOnly") || o["reduce_only"] != intent_["reduceOnly"])
        refuse(FindingCode::kIntentFlag, "reduceOnly differs from the request", index);
      const json order = intent_.value("order", json::object());
      const std::string want = order.value("type", "") == "market" ? "ImmediateOrCancel"
                               : order.value("postOnly", false)    ? "PostOnly"
                                                                   : "Limit";
      if (o["order_type"]["variant"] != want)
        refuse(FindingCode::kIntentOrderType, "the order type differs from the request", index);
      warn(FindingCode::kWarnUnverifiable,
           "the order's size in base lots and price in ticks follow market parameters this machine "
           "cannot check",
           index);
    } else if (d.instruction == "perp_cancel") {
      const json orders = intent_.value("orders", json());
      const bool all = orders.is_string() && orders.get<std::string>() == "all";
      if (all != a["orders"].empty())
        refuse(FindingCode::kIntentOrders, "the cancelled orders differ from the request", index);
      if (!all && orders.is_array() && orders.size() == a["orders"].size()) {
        for (std::size_t i = 0; i < orders.size(); ++i) {
          if (a["orders"][i]["price_in_ticks"] != orders[i].value("priceInTicks", "") ||
              a["orders"][i]["order_sequence_number"] !=
                  orders[i].value("orderSequenceNumber", "")) {
            refuse(FindingCode::kIntentOrders,
                   "order " + std::to_string(i) + " differs from the request", index);
          }
        }
      } else if (!all) {
        refuse(FindingCode::kIntentOrders, "the cancelled orders differ from the request", index);
      }
    }
  }

  // The vault's own settings.
  void vault_intent(const Decoded& d, std::size_t index) {
    const ojson& a = d.args;
    if (d.instruction == "vault_update") {
      const ojson& u = a["update"];
      struct Field {
        const char *arg, *field;
        FindingCode code;
      };
      for (const Field& f :
           {Field{"deposit_cap", "depositCap", FindingCode::kIntentAmount},
            Field{"min_deposit", "minDeposit", FindingCode::kIntentAmount},
            Field{"min_withdrawal_shares", "minWithdrawalShares", FindingCode::kIntentAmount},
            Field{"paused", "paused", FindingCode::kIntentFlag},
            Field{"management_fee_bps", "managementFeeBps", FindingCode::kIntentFee},
            Field{"performance_fee_bps", "performanceFeeBps", FindingCode::kIntentFee}}) {
        // An option the request leaves out must stay None; one it sets must carry its value.
        const bool asked = intent_.contains(f.field);
        if (asked != !u[f.arg].is_null() || (asked && u[f.arg] != intent_[f.field]))
          refuse(f.code, std::string(f.field) + " differs from the request", index);
      }
      if (!u["paused"].is_null() && !u["paused"].get<bool>())
        warn(FindingCode::kWarnUnpause, "lifts the vault's pause", index);
    } else if (d.instruction == "vault_initialize") {
      const ojson& p = a["params"];
      for (const auto& [arg, field] : std::vector<std::pair<const char*, const char*>>{
               {"deposit_cap", "depositCap"},
               {"min_deposit", "minDeposit"},
               {"min_withdrawal_shares", "minWithdrawalShares"}}) {
        if (p[arg] != intent_.value(field, json()))
          refuse(FindingCode::kIntentAmount, std::string(field) + " differs from the request",
                 index);
      }
      if (p["management_fee_bps"] != intent_.value("managementFeeBps", json()) ||
          p["performance_fee_bps"] != intent_.value("performanceFeeBps", json())) {
        refuse(FindingCode::kIntentFee, "the fees differ from the request", index);
      }
    }
  }

  // A nested Jupiter route must spend what the vault instruction says, within the slippage.
  void route_intent(const Decoded& d, std::size_t index, const std::optional<std::string>& amount) {
    auto it = d.nested.find("route");
    if (it == d.nested.end()) {
      refuse(FindingCode::kPolicyUndecodable,
             "the swap's route is not a Jupiter route this machine can decode", index);
      return;
    }
    const ojson& r = it->second.args;
    if (amount && r.contains("in_amount") && r["in_amount"] != *amount)
      refuse(FindingCode::kIntentAmount,
             "the route spends " + r["in_amount"].get<std::string>() + ", not " + *amount, index);
    if (r.contains("slippage_bps")) expect_slippage(r["slippage_bps"], index);
    route_floor(d, r, index);
  }

  // The floor on what the vault receives. This machine holds no prices, so the quote comes
  // from the online half; but a floor must be a floor: the route states a quote of at least one
  // base unit, the quote less the slippage leaves at least one, the slippage itself is worth at
  // least one (a quote smaller than that makes the request's slippage meaningless), and the
  // vault instruction's own minimum follows from the quote. A lower one would let the swap be
  // sandwiched down to nothing.
  void route_floor(const Decoded& d, const ojson& r, std::size_t index) {
    if (!r.contains("quoted_out_amount")) {
      refuse(FindingCode::kIntentMinimumOut,
             "the route states no quote, so nothing bounds what it returns", index);
      return;
    }
    const std::uint64_t quoted = u64(r["quoted_out_amount"]);
    const std::uint64_t bps = std::min<std::uint64_t>(
        r.contains("slippage_bps") ? u64(r["slippage_bps"]) : 10'000, 10'000);
    const auto slack =
        static_cast<std::uint64_t>(static_cast<unsigned __int128>(quoted) * bps / 10'000);
    if (quoted == 0 || quoted - slack == 0) {
      refuse(FindingCode::kIntentMinimumOut,
             "the route quotes " + std::to_string(quoted) + " base units out at " +
                 std::to_string(bps) +
                 " bps of slippage: a floor of zero lets the swap return "
                 "nothing",
             index);
      return;
    }
    if (bps > 0 && slack == 0) {
      refuse(FindingCode::kIntentMinimumOut,
             "the route quotes only " + std::to_string(quoted) +
                 " base units out: " + std::to_string(bps) +
                 " bps of it is less than one base unit, so the quote "
                 "makes the request's slippage meaningless",
             index);
      return;
    }
    if (!d.args.contains("minimum_out")) return;  // the route's own floor is the swap's
    const std::uint64_t minimum = u64(d.args["minimum_out"]);
    const std::uint64_t vault_bps = std::min<std::uint64_t>(u64(d.args["slippage_bps"]), 10'000);
    const auto floor = static_cast<std::uint64_t>(static_cast<unsigned __int128>(quoted) *
                                                  (10'000 - vault_bps) / 10'000);
    if (minimum == 0 || minimum < floor) {
      refuse(FindingCode::kIntentMinimumOut,
             "minimum_out " + std::to_string(minimum) + " is below " +
                 std::to_string(std::max<std::uint64_t>(floor, 1)) +
                 ", the route's quote less the slippage" +
                 (minimum == 0 ? " (a floor of zero lets the swap return nothing)" : ""),
             index);
    }
  }

  void shapes_and_slippage(const ojson& a, std::size_t index) {
    static const std::map<std::string, std::string> kShapes = {
        {"spot", "Spot"}, {"curve", "Curve"}, {"bidAsk", "BidAsk"}};
    auto shape = kShapes.find(text("shape"));
    if (shape == kShapes.end() || a["strategy"]["shape"]["variant"] != shape->second)
      refuse(FindingCode::kIntentShape, "the liquidity shape differs from the request", index);
    if (!integer("maxActiveBinSlippage") ||
        a["max_active_bin_slippage"].get<std::int64_t>() != *integer("maxActiveBinSlippage")) {
      refuse(FindingCode::kIntentBins, "maxActiveBinSlippage differs from the request", index);
    }
    bin_slippage_ceiling(a, index);
  }

  // The policy's ceiling on how far the pool's active bin may move (max_active_bin_slippage):
  // the request's own value is bound above, and may not be above the policy's.
  void bin_slippage_ceiling(const ojson& a, std::size_t index) {
    const auto ceiling = policy_.rule(q_.action).max_active_bin_slippage;
    const std::int64_t bins = a["max_active_bin_slippage"].get<std::int64_t>();
    if (ceiling && (bins < 0 || bins > *ceiling)) {
      refuse(FindingCode::kIntentSlippage,
             "an active-bin slippage of " + std::to_string(bins) + " bins is above the " +
                 std::to_string(*ceiling) + " bins the policy allows " + q_.action,
             index);
    }
  }

  void inside_subrange(std::int64_t lower, std::int64_t upper, std::size_t index) {
    const auto lo = integer("lowerBinId"), hi = integer("upperBinId");
    if (lo && hi && (lower < *lo || upper > *hi))
      refuse(FindingCode::kIntentBins,
             "bins " + std::to_string(lower) + "-" + std::to_string(upper) +
                 " lie outside the requested range",
             index);
  }

  // dlmm/open, add, add-range: the steps' ranges tile the requested range and their amounts add
  // up to the requested totals exactly.
  void intent_across_steps() {
    if (range_sums_.empty()) return;
    std::uint64_t x = 0, y = 0;
    std::sort(range_sums_.begin(), range_sums_.end());
    for (std::size_t i = 0; i < range_sums_.size(); ++i) {
      // Checked: a sum that wrapped past 2^64 could equal the request's total.
      if (__builtin_add_overflow(x, range_sums_[i].x, &x) ||
          __builtin_add_overflow(y, range_sums_[i].y, &y)) {
        refuse(FindingCode::kIntentAmount,
               "the steps' deposits add up to more than 2^64 - 1 base units; no request asks that");
        return;
      }
      if (i > 0 && range_sums_[i].lower != range_sums_[i - 1].upper + 1)
        refuse(FindingCode::kIntentBins, "the steps' bin ranges leave a gap or overlap");
    }
    const auto lo = integer("lowerBinId");
    auto hi = integer("upperBinId");
    if (hi && action_ == Action::kDlmmOpen) *hi -= 1;  // exclusive in dlmm/open's body
    if (const auto cursor = integer("cursorBinId")) {
      resumed_amounts(*cursor, lo, hi, x, y);
      return;
    }
    expect_equal(FindingCode::kIntentAmount, "total amountX", std::to_string(x), text("amountX"),
                 0);
    expect_equal(FindingCode::kIntentAmount, "total amountY", std::to_string(y), text("amountY"),
                 0);
    if (action_ == Action::kDlmmOpen &&
        (!lo || !hi || range_sums_.front().lower != *lo || range_sums_.back().upper != *hi)) {
      refuse(FindingCode::kIntentBins, "the positions do not cover exactly the requested bins");
    }
  }

  // A build resumed at cursorBinId covers the bins from the cursor to the end of the requested
  // range, and deposits no more than those bins' share of the requested totals (by bin count,
  // rounded up, plus one base unit per bin left out for the builder's rounding): a build that
  // funds the ranges already done again cannot pass.
  void resumed_amounts(std::int64_t cursor, std::optional<std::int64_t> lo,
                       std::optional<std::int64_t> hi, std::uint64_t x, std::uint64_t y) {
    if (!lo || !hi) {
      refuse(FindingCode::kIntentBins,
             "cursorBinId needs lowerBinId and upperBinId in the request, so the share of the "
             "amounts left can be checked");
      return;
    }
    if (cursor <= *lo || cursor > *hi) {
      refuse(FindingCode::kIntentBins, "cursorBinId " + std::to_string(cursor) +
                                           " lies outside the requested bins after the first");
      return;
    }
    if (range_sums_.front().lower != cursor || range_sums_.back().upper != *hi) {
      refuse(FindingCode::kIntentBins, "the steps do not cover exactly the bins from cursorBinId " +
                                           std::to_string(cursor) + " to " + std::to_string(*hi));
    }
    const std::int64_t span = *hi - *lo + 1;  // bin ids are bounded: no overflow
    const auto width = static_cast<unsigned __int128>(span);
    const auto skipped = static_cast<std::uint64_t>(cursor - *lo);
    const auto left = width - skipped;
    for (const auto& [field, got] : {std::pair<const char*, std::uint64_t>{"amountX", x},
                                     std::pair<const char*, std::uint64_t>{"amountY", y}}) {
      const std::string asked = text(field);
      const auto asked_units = parse_base_units(asked);
      if (!asked_units) {
        refuse(FindingCode::kIntentAmount, std::string(field) + " is not a base-unit amount");
        continue;
      }
      const auto total = static_cast<unsigned __int128>(*asked_units);
      const auto share = static_cast<std::uint64_t>((total * left + width - 1) / width) + skipped;
      if (got > share) {
        refuse(FindingCode::kIntentAmount,
               std::string(field) + ": the resumed steps deposit " + std::to_string(got) +
                   ", more than the " + std::to_string(share) + " left of " + asked + " for bins " +
                   std::to_string(cursor) + " to " + std::to_string(*hi));
      }
    }
  }

  struct RangeSum {
    std::int64_t lower, upper;
    std::uint64_t x, y;
    bool operator<(const RangeSum& o) const { return lower < o.lower; }
  };

  const envelope::SignRequest& q_;
  const Policy& policy_;
  const DecoderRegistry& decoders_;
  PublicKey signer_;
  std::int64_t now_;
  json intent_;
  Derivations derivations_;
  VaultAddresses own_{q_.vault, derivations_};
  std::optional<Action> action_;
  std::string intent_problem_;  // why the body could not be read, where it says
  const Descriptor* descriptor_ = nullptr;
  const DescribedAction* described_ = nullptr;
  bool keystone_ = false;  // a Keystone sol-sign-request: no intent to bind to
  std::vector<RangeSum> range_sums_;
  Review review_;
};

}  // namespace

Review review_request(const envelope::SignRequest& request, const Policy& policy,
                      const DecoderRegistry& decoders, const PublicKey& signer,
                      std::int64_t now_unix) {
  return Reviewer(request, policy, decoders, signer, now_unix).run();
}

}  // namespace airlock::offline
