// The codes of the review's findings: why a request is refused ("policy.*": a rule of the
// policy or of the transaction; "intent.*": the transaction is not what the manager asked for) or
// what a person must look at ("warn.*": never signed without asking). The names are stable: the
// signed refusal, the audit log, the JSON summary and docs/policy.md carry them, so never rename
// one. A code is made only here, as a named constant, so no call site can invent one (LevelDB's
// and ZXing-C++'s error codes work the same way); kAllFindingCodes lists them, and a docs test
// holds that list against the tables of docs/policy.md.
#pragma once

#include <array>
#include <string_view>

namespace airlock::offline {

class FindingCode {
 public:
  [[nodiscard]] constexpr std::string_view name() const noexcept { return name_; }
  // A warning asks a person; any other finding refuses.
  [[nodiscard]] constexpr bool warning() const noexcept { return name_.starts_with("warn."); }
  friend constexpr bool operator==(const FindingCode& a, const FindingCode& b) noexcept {
    return a.name_ == b.name_;
  }

  static const FindingCode kPolicyActionNotAllowed;
  static const FindingCode kPolicyActionUnknown;
  static const FindingCode kPolicyDeadlinePassed;
  static const FindingCode kPolicyDescriptor;
  static const FindingCode kPolicyDurableNonce;
  static const FindingCode kPolicyFeePayer;
  static const FindingCode kPolicyInvalidPresignature;
  static const FindingCode kPolicyLimit;
  static const FindingCode kPolicyLookupHintIncomplete;
  static const FindingCode kPolicyLookupTableBound;
  static const FindingCode kPolicyLookupTableMismatch;
  static const FindingCode kPolicyLookupTableUnpinned;
  static const FindingCode kPolicyManager;
  static const FindingCode kPolicyManagerOutsideVault;
  static const FindingCode kPolicyMissingSignature;
  static const FindingCode kPolicyPoolMismatch;
  static const FindingCode kPolicyPriceFloor;
  static const FindingCode kPolicyPriorityFee;
  static const FindingCode kPolicyProgramNotAllowed;
  static const FindingCode kPolicyRefused;
  static const FindingCode kPolicyReplay;
  static const FindingCode kPolicySignerSlot;
  static const FindingCode kPolicyUndecodable;
  static const FindingCode kPolicyUnparsable;
  static const FindingCode kPolicyVaultNotAllowed;
  static const FindingCode kPolicyVaultNotStatic;
  static const FindingCode kIntentAccount;
  static const FindingCode kIntentArgument;
  static const FindingCode kIntentAmount;
  static const FindingCode kIntentBins;
  static const FindingCode kIntentFee;
  static const FindingCode kIntentFlag;
  static const FindingCode kIntentInstruction;
  static const FindingCode kIntentMinimumOut;
  static const FindingCode kIntentMint;
  static const FindingCode kIntentOrderType;
  static const FindingCode kIntentOrders;
  static const FindingCode kIntentRoute;
  static const FindingCode kIntentShape;
  static const FindingCode kIntentSide;
  static const FindingCode kIntentSigner;
  static const FindingCode kIntentSlippage;
  static const FindingCode kIntentSteps;
  static const FindingCode kIntentUnreadable;
  static const FindingCode kIntentVault;
  static const FindingCode kWarnApproval;
  static const FindingCode kWarnAuthorityChange;
  static const FindingCode kWarnClose;
  static const FindingCode kWarnDurableNonce;
  static const FindingCode kWarnMisleadingHint;
  static const FindingCode kWarnNoIntent;
  static const FindingCode kWarnTransferFromManager;
  static const FindingCode kWarnUnboundAccount;
  static const FindingCode kWarnUnboundArgument;
  static const FindingCode kWarnUnknownField;
  static const FindingCode kWarnUnpause;
  static const FindingCode kWarnUnpriced;
  static const FindingCode kWarnDepositOffSide;
  static const FindingCode kWarnUnverifiable;
  static const FindingCode kWarnUnverifiedLookupTable;

 private:
  constexpr explicit FindingCode(std::string_view name) noexcept : name_(name) {}
  std::string_view name_;
};

inline constexpr FindingCode FindingCode::kPolicyActionNotAllowed{"policy.action_not_allowed"};
inline constexpr FindingCode FindingCode::kPolicyActionUnknown{"policy.action_unknown"};
inline constexpr FindingCode FindingCode::kPolicyDeadlinePassed{"policy.deadline_passed"};
inline constexpr FindingCode FindingCode::kPolicyDescriptor{"policy.descriptor"};
inline constexpr FindingCode FindingCode::kPolicyDurableNonce{"policy.durable_nonce"};
inline constexpr FindingCode FindingCode::kPolicyFeePayer{"policy.fee_payer"};
inline constexpr FindingCode FindingCode::kPolicyInvalidPresignature{"policy.invalid_presignature"};
inline constexpr FindingCode FindingCode::kPolicyLimit{"policy.limit"};
inline constexpr FindingCode FindingCode::kPolicyLookupHintIncomplete{
    "policy.lookup_hint_incomplete"};
inline constexpr FindingCode FindingCode::kPolicyLookupTableBound{"policy.lookup_table_bound"};
inline constexpr FindingCode FindingCode::kPolicyLookupTableMismatch{
    "policy.lookup_table_mismatch"};
inline constexpr FindingCode FindingCode::kPolicyLookupTableUnpinned{
    "policy.lookup_table_unpinned"};
inline constexpr FindingCode FindingCode::kPolicyManager{"policy.manager"};
inline constexpr FindingCode FindingCode::kPolicyManagerOutsideVault{
    "policy.manager_outside_vault"};
inline constexpr FindingCode FindingCode::kPolicyMissingSignature{"policy.missing_signature"};
inline constexpr FindingCode FindingCode::kPolicyPoolMismatch{"policy.pool_mismatch"};
inline constexpr FindingCode FindingCode::kPolicyPriceFloor{"policy.price_floor"};
inline constexpr FindingCode FindingCode::kPolicyPriorityFee{"policy.priority_fee"};
inline constexpr FindingCode FindingCode::kPolicyProgramNotAllowed{"policy.program_not_allowed"};
inline constexpr FindingCode FindingCode::kPolicyRefused{"policy.refused"};
inline constexpr FindingCode FindingCode::kPolicyReplay{"policy.replay"};
inline constexpr FindingCode FindingCode::kPolicySignerSlot{"policy.signer_slot"};
inline constexpr FindingCode FindingCode::kPolicyUndecodable{"policy.undecodable"};
inline constexpr FindingCode FindingCode::kPolicyUnparsable{"policy.unparsable"};
inline constexpr FindingCode FindingCode::kPolicyVaultNotAllowed{"policy.vault_not_allowed"};
inline constexpr FindingCode FindingCode::kPolicyVaultNotStatic{"policy.vault_not_static"};
inline constexpr FindingCode FindingCode::kIntentAccount{"intent.account"};
inline constexpr FindingCode FindingCode::kIntentArgument{"intent.argument"};
inline constexpr FindingCode FindingCode::kIntentAmount{"intent.amount"};
inline constexpr FindingCode FindingCode::kIntentBins{"intent.bins"};
inline constexpr FindingCode FindingCode::kIntentFee{"intent.fee"};
inline constexpr FindingCode FindingCode::kIntentFlag{"intent.flag"};
inline constexpr FindingCode FindingCode::kIntentInstruction{"intent.instruction"};
inline constexpr FindingCode FindingCode::kIntentMinimumOut{"intent.minimum_out"};
inline constexpr FindingCode FindingCode::kIntentMint{"intent.mint"};
inline constexpr FindingCode FindingCode::kIntentOrderType{"intent.order_type"};
inline constexpr FindingCode FindingCode::kIntentOrders{"intent.orders"};
inline constexpr FindingCode FindingCode::kIntentRoute{"intent.route"};
inline constexpr FindingCode FindingCode::kIntentShape{"intent.shape"};
inline constexpr FindingCode FindingCode::kIntentSide{"intent.side"};
inline constexpr FindingCode FindingCode::kIntentSigner{"intent.signer"};
inline constexpr FindingCode FindingCode::kIntentSlippage{"intent.slippage"};
inline constexpr FindingCode FindingCode::kIntentSteps{"intent.steps"};
inline constexpr FindingCode FindingCode::kIntentUnreadable{"intent.unreadable"};
inline constexpr FindingCode FindingCode::kIntentVault{"intent.vault"};
inline constexpr FindingCode FindingCode::kWarnApproval{"warn.approval"};
inline constexpr FindingCode FindingCode::kWarnAuthorityChange{"warn.authority_change"};
inline constexpr FindingCode FindingCode::kWarnClose{"warn.close"};
inline constexpr FindingCode FindingCode::kWarnDurableNonce{"warn.durable_nonce"};
inline constexpr FindingCode FindingCode::kWarnMisleadingHint{"warn.misleading_hint"};
inline constexpr FindingCode FindingCode::kWarnNoIntent{"warn.no_intent"};
inline constexpr FindingCode FindingCode::kWarnTransferFromManager{"warn.transfer_from_manager"};
inline constexpr FindingCode FindingCode::kWarnUnboundAccount{"warn.unbound_account"};
inline constexpr FindingCode FindingCode::kWarnUnboundArgument{"warn.unbound_argument"};
inline constexpr FindingCode FindingCode::kWarnUnknownField{"warn.unknown_field"};
inline constexpr FindingCode FindingCode::kWarnUnpause{"warn.unpause"};
inline constexpr FindingCode FindingCode::kWarnUnpriced{"warn.unpriced"};
inline constexpr FindingCode FindingCode::kWarnDepositOffSide{"warn.deposit_off_side"};
inline constexpr FindingCode FindingCode::kWarnUnverifiable{"warn.unverifiable"};
inline constexpr FindingCode FindingCode::kWarnUnverifiedLookupTable{
    "warn.unverified_lookup_table"};

inline constexpr std::array kAllFindingCodes = {&FindingCode::kPolicyActionNotAllowed,
                                                &FindingCode::kPolicyActionUnknown,
                                                &FindingCode::kPolicyDeadlinePassed,
                                                &FindingCode::kPolicyDescriptor,
                                                &FindingCode::kPolicyDurableNonce,
                                                &FindingCode::kPolicyFeePayer,
                                                &FindingCode::kPolicyInvalidPresignature,
                                                &FindingCode::kPolicyLimit,
                                                &FindingCode::kPolicyLookupHintIncomplete,
                                                &FindingCode::kPolicyLookupTableBound,
                                                &FindingCode::kPolicyLookupTableMismatch,
                                                &FindingCode::kPolicyLookupTableUnpinned,
                                                &FindingCode::kPolicyManager,
                                                &FindingCode::kPolicyManagerOutsideVault,
                                                &FindingCode::kPolicyMissingSignature,
                                                &FindingCode::kPolicyPoolMismatch,
                                                &FindingCode::kPolicyPriceFloor,
                                                &FindingCode::kPolicyPriorityFee,
                                                &FindingCode::kPolicyProgramNotAllowed,
                                                &FindingCode::kPolicyRefused,
                                                &FindingCode::kPolicyReplay,
                                                &FindingCode::kPolicySignerSlot,
                                                &FindingCode::kPolicyUndecodable,
                                                &FindingCode::kPolicyUnparsable,
                                                &FindingCode::kPolicyVaultNotAllowed,
                                                &FindingCode::kPolicyVaultNotStatic,
                                                &FindingCode::kIntentAccount,
                                                &FindingCode::kIntentArgument,
                                                &FindingCode::kIntentAmount,
                                                &FindingCode::kIntentBins,
                                                &FindingCode::kIntentFee,
                                                &FindingCode::kIntentFlag,
                                                &FindingCode::kIntentInstruction,
                                                &FindingCode::kIntentMinimumOut,
                                                &FindingCode::kIntentMint,
                                                &FindingCode::kIntentOrderType,
                                                &FindingCode::kIntentOrders,
                                                &FindingCode::kIntentRoute,
                                                &FindingCode::kIntentShape,
                                                &FindingCode::kIntentSide,
                                                &FindingCode::kIntentSigner,
                                                &FindingCode::kIntentSlippage,
                                                &FindingCode::kIntentSteps,
                                                &FindingCode::kIntentUnreadable,
                                                &FindingCode::kIntentVault,
                                                &FindingCode::kWarnApproval,
                                                &FindingCode::kWarnAuthorityChange,
                                                &FindingCode::kWarnClose,
                                                &FindingCode::kWarnDurableNonce,
                                                &FindingCode::kWarnMisleadingHint,
                                                &FindingCode::kWarnNoIntent,
                                                &FindingCode::kWarnTransferFromManager,
                                                &FindingCode::kWarnUnboundAccount,
                                                &FindingCode::kWarnUnboundArgument,
                                                &FindingCode::kWarnUnknownField,
                                                &FindingCode::kWarnUnpause,
                                                &FindingCode::kWarnUnpriced,
                                                &FindingCode::kWarnDepositOffSide,
                                                &FindingCode::kWarnUnverifiable,
                                                &FindingCode::kWarnUnverifiedLookupTable};

}  // namespace airlock::offline
