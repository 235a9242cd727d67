// The one generic binder: it binds each step of a request to what the action's descriptor
// (descriptor.h, docs/descriptors.md) says it may produce — the instructions a step may hold,
// and for every account of every instruction where its value comes from (a fixed program, the
// manager, the request's vault or one of its body's fields, an address derived here, a new
// signer made for the step, a value the chain checks, a co-signer, a policy-pinned market, a
// route account a named checker reads) — with its IDL flags; and the steps together to the
// action's step rule. Whatever the descriptor does not name is refused with a code naming the
// instruction and the account. What cannot be data is a named checker the descriptor refers
// to: Jupiter's route plan (remaining_accounts "jupiter_route") and bin tiling and shares (a
// ranged step rule).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <airlock/formats/envelope.h>
#include <airlock/offline/decode.h>
#include <airlock/offline/descriptor.h>
#include <airlock/offline/policy.h>
#include <airlock/offline/review.h>

namespace airlock::offline {

enum class Action {
  kAggregatorInitialize,
  kAggregatorSwap,
  kAggregatorSweep,
  kDlmmInitialize,
  kDlmmOpen,
  kDlmmAdd,
  kDlmmRemove,
  kDlmmFlip,
  kDlmmClaimFee,
  kDlmmZapOut,
  kDlmmClose,
  kDlmmExtend,
  kDlmmAddRange,
  kDlmmZapOutSwap,
  kDlmmLimitOrderPlace,
  kDlmmLimitOrderCancel,
  kPerpInitialize,
  kPerpOnboard,
  kPerpDeposit,
  kPerpWithdraw,
  kPerpOrder,
  kPerpCancel,
  kPerpSweep,
  kVaultInitialize,
  kVaultUpdate,
  kVaultClaimFee,
  kVaultClose,
  kStrategyClose,
};
inline constexpr int kActionCount = 28;

[[nodiscard]] std::string_view action_name(Action action);
[[nodiscard]] std::optional<Action> parse_action(std::string_view name);

class Derivations;     // airlock/offline/vault_addresses.h
class VaultAddresses;  // the same

struct TemplateInput {
  const Descriptor& descriptor;  // the pinned descriptor that describes the action
  const DescribedAction& action;
  const envelope::SignRequest& request;
  const nlohmann::ordered_json& intent;  // the manager's build request body
  const Policy& policy;
  const DecoderRegistry& decoders;
  Derivations& derivations;  // every address derived once per request
  VaultAddresses& own;       // what the vault's own addresses are, for the unconstrained roles
  // A request with no build request (Keystone's sol-sign-request): the accounts a body field
  // would name are bound to the instruction's own argument of that name where it has one, or
  // shown unbound; everything else binds as for any request.
  bool no_intent = false;
};

// The range the API states for an integer field of a build request body (spec part 4: bin ids,
// slippages, basis points), or nullopt for a field that is not one of them. A body outside it
// is no request the API would build, and arithmetic on it could overflow.
struct IntegerRange {
  std::int64_t min = 0, max = 0;  // inclusive
};
[[nodiscard]] std::optional<IntegerRange> body_integer_range(std::string_view field);

// Integer `field` of the body when it is an integer within its range; nullopt otherwise (absent,
// of another type, or out of range: the review refuses the last two as intent.unreadable).
[[nodiscard]] std::optional<std::int64_t> body_integer(const nlohmann::ordered_json& body,
                                                       std::string_view field);

// The action a step whose main instruction is `d` (of `program`) belongs to, in the registry's
// descriptors: how a request with no intent finds the template it is bound to. It is the first
// action whose first instruction `d` is (a vault set-up that a swap may also do alone,
// aggregator_initialize, is taken as its own action).
struct ActionOf {
  const Descriptor* descriptor = nullptr;
  const DescribedAction* action = nullptr;
};
[[nodiscard]] std::optional<ActionOf> action_of_instruction(const DecoderRegistry& registry,
                                                            const PublicKey& program,
                                                            const Decoded& d);

// Binds one reviewed step (parsed, accounts resolved, instructions decoded) to the action's
// template: the instruction sequence, every account's source, the IDL's writable and signer
// flags against the header's, the signers, and CPI data decoded only as the program it is
// passed to (a Jupiter route: its kind, fee and plan). Fills step.bindings and nested decodes.
void bind_step(const TemplateInput& in, StepReview& step, TemplateFindings& out);

// The steps together: how many the action may produce, which may carry a `next` follow-up,
// ranged batches tiling without overlap with each step's deposit within its bins' share, and
// no new account made twice.
void bind_steps(const TemplateInput& in, const std::vector<StepReview>& steps,
                TemplateFindings& out);

}  // namespace airlock::offline
