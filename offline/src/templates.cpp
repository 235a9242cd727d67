#include <algorithm>
#include <optional>
#include <set>

#include <airlock/common/pda.h>
#include <airlock/common/programs.h>
#include <airlock/common/units.h>
#include <airlock/formats/actions.h>
#include <airlock/offline/templates.h>
#include <airlock/offline/vault_addresses.h>

namespace airlock::offline {
namespace {

using ojson = nlohmann::ordered_json;

constexpr std::size_t kMaxBinsPerStep = 70;  // one DLMM bin array's worth per transaction

// ---- where an account comes from ----------------------------------------------------------

enum class Src {
  kVault,         // the request's vault
  kManager,       // this machine's key
  kProgram,       // a fixed program id (`arg`)
  kTokenProgram,  // SPL Token or Token-2022 (the mint's own program; the chain checks the pair)
  kRequest,       // a key field of the manager's body (`arg`: JSON pointers, first present wins)
  kDerived,       // computed here from bound accounts (`derive`); `arg` says what it is
  kNewSigner,     // a new account made for this step, whose signature the builder added
  kNewVault,      // vault/initialize: a new signer that is the request's vault
  kChecked,       // the chain refuses any other value (`arg` says why); shown, not derived
  kMarket,        // the perp market of the body's symbol, as the policy pins it
  kVenue,         // the perp venue's co-signer, the one signature left empty
};

// The integer at `path` inside decoded arguments, if it is one.
std::optional<std::int64_t> arg_int(const ojson& a, std::initializer_list<const char*> path) {
  const ojson* at = &a;
  for (const char* p : path) {
    if (!at->is_object() || !at->contains(p)) return std::nullopt;
    at = &(*at)[p];
  }
  return at->is_number_integer() ? std::optional(at->get<std::int64_t>()) : std::nullopt;
}

// One instruction being bound: its decoded form and its accounts' keys.
struct Bound {
  const Decoded& d;
  const std::vector<std::optional<PublicKey>>& keys;
  const PublicKey& vault;
  Derivations& derive;

  std::optional<PublicKey> key(std::string_view role) const {
    for (std::size_t i = 0; i < d.account_names.size() && i < keys.size(); ++i) {
      if (d.account_names[i] == role) return keys[i];
    }
    return std::nullopt;
  }
  std::optional<std::int64_t> integer(std::initializer_list<const char*> path) const {
    return arg_int(d.args, path);
  }
};

using Derive = std::vector<PublicKey> (*)(const Bound&);

struct Spec {
  std::string_view role;
  Src src;
  std::string_view arg = {};
  Derive derive = nullptr;
};

// ---- derivations (docs/apisim.md: the vault program's addresses) ---------------------------

std::vector<PublicKey> vault_pda(const Bound& b, const std::vector<Bytes>& seeds) {
  auto found = b.derive.vault_pda(seeds);
  if (!found) return {};
  return {*found};
}

std::vector<PublicKey> aggregator_strategy(const Bound& b, std::string_view mint_role) {
  const auto mint = b.key(mint_role);
  if (!mint) return {};
  return vault_pda(b, {seed("aggregator"), seed(b.vault), seed(*mint)});
}

std::vector<PublicKey> associated(const Bound& b, std::string_view mint_role) {
  const auto mint = b.key(mint_role), program = b.key("token_program");
  if (!mint || !program) return {};
  return {b.derive.associated(b.vault, *mint, *program)};
}

std::vector<PublicKey> strategy_of(const Bound& b, std::string_view kind, std::string_view role) {
  const auto account = b.key(role);
  if (!account) return {};
  return vault_pda(b, {seed(kind), seed(b.vault), seed(*account)});
}

std::vector<PublicKey> bin_array(const Bound& b, std::optional<std::int64_t> bin) {
  const auto pool = b.key("lb_pair");
  if (!pool || !bin) return {};
  return {b.derive.bin_array(*pool, *bin)};
}

std::vector<PublicKey> d_target_strategy(const Bound& b) {
  return aggregator_strategy(b, "target_mint");
}
std::vector<PublicKey> d_swap_strategy(const Bound& b) {
  // The strategy holds the swap's non-deposit token, which this machine cannot tell from the
  // deposit token: either mint's strategy is accepted, both being the request's.
  auto out = aggregator_strategy(b, "source_mint");
  for (const auto& k : aggregator_strategy(b, "destination_mint")) out.push_back(k);
  return out;
}
std::vector<PublicKey> d_mint_strategy(const Bound& b) { return aggregator_strategy(b, "mint"); }
std::vector<PublicKey> d_source_strategy(const Bound& b) {
  return aggregator_strategy(b, "source_mint");
}
std::vector<PublicKey> d_position_strategy(const Bound& b) {
  return strategy_of(b, "dlmm", "position");
}
std::vector<PublicKey> d_order_strategy(const Bound& b) {
  return strategy_of(b, "limit_order", "limit_order");
}
std::vector<PublicKey> d_perp_strategy(const Bound& b) {
  return vault_pda(b, {seed("perp"), seed(b.vault)});
}
std::vector<PublicKey> d_trader(const Bound& b) {
  return vault_pda(b, {seed("trader"), seed(b.vault)});
}
std::vector<PublicKey> d_manager_shares(const Bound& b) {
  return vault_pda(b, {seed("manager_shares"), seed(b.vault)});
}
std::vector<PublicKey> d_source_account(const Bound& b) { return associated(b, "source_mint"); }
std::vector<PublicKey> d_destination_account(const Bound& b) {
  return associated(b, "destination_mint");
}
std::vector<PublicKey> d_mint_account(const Bound& b) { return associated(b, "mint"); }
std::vector<PublicKey> d_deposit_account(const Bound& b) { return associated(b, "deposit_mint"); }
std::vector<PublicKey> d_open_lower(const Bound& b) {
  return bin_array(b, b.integer({"lower_bin_id"}));
}
std::vector<PublicKey> d_open_upper(const Bound& b) {
  const auto lower = b.integer({"lower_bin_id"}), width = b.integer({"width"});
  if (!lower || !width) return {};
  return bin_array(b, *lower + *width - 1);
}
std::vector<PublicKey> d_strategy_lower(const Bound& b) {
  return bin_array(b, b.integer({"strategy", "min_bin_id"}));
}
std::vector<PublicKey> d_strategy_upper(const Bound& b) {
  return bin_array(b, b.integer({"strategy", "max_bin_id"}));
}
std::vector<PublicKey> d_from_bin(const Bound& b) {
  return bin_array(b, b.integer({"from_bin_id"}));
}
std::vector<PublicKey> d_to_bin(const Bound& b) { return bin_array(b, b.integer({"to_bin_id"})); }

// ---- the templates --------------------------------------------------------------------------

constexpr std::string_view kPoolChecked =
    "the position's pool: the DLMM program refuses any pool but the position's";
constexpr std::string_view kDepositChecked =
    "the vault's deposit token: the vault program refuses any other mint";

const Spec kVaultSpec{"vault", Src::kVault};
const Spec kManagerSpec{"manager", Src::kManager};
Spec program(std::string_view role, std::string_view id) { return {role, Src::kProgram, id}; }
Spec token_program() { return {"token_program", Src::kTokenProgram}; }
Spec derived(std::string_view role, std::string_view what, Derive derive) {
  return {role, Src::kDerived, what, derive};
}

// Accounts several templates share.
const Spec kSystemProgram = program("system_program", programs::kSystem);
const Spec kJupiterProgram = program("jupiter_program", kJupiter);
const Spec kDlmmProgram = program("dlmm_program", kDlmm);
const Spec kPerpProgram = program("perp_program", kPerpVenue);
const Spec kPositionSpec{"position", Src::kRequest, "/position"};
const Spec kCheckedPool{"lb_pair", Src::kChecked, kPoolChecked};
const Spec kDepositMint{"deposit_mint", Src::kChecked, kDepositChecked};
const Spec kTraderSpec = derived("trader_account", "the vault's perp trader account", d_trader);
const Spec kDepositAccount = derived(
    "vault_deposit_account", "the vault's token account for the deposit mint", d_deposit_account);

// The aggregator strategy's instructions (Jupiter swaps through the vault).
std::vector<Spec> aggregator_specs(InstructionKind kind) {
  switch (kind) {
    case InstructionKind::kAggregatorInitialize:
      return {
          kVaultSpec,
          kManagerSpec,
          derived("strategy", "the vault's aggregator strategy for the token", d_target_strategy),
          {"target_mint", Src::kRequest, "/mint|/destinationMint"},
          kSystemProgram};
    case InstructionKind::kAggregatorSwap:
      return {kVaultSpec,
              kManagerSpec,
              derived("strategy", "the vault's aggregator strategy for one of the swap's tokens",
                      d_swap_strategy),
              {"source_mint", Src::kRequest, "/sourceMint"},
              {"destination_mint", Src::kRequest, "/destinationMint"},
              derived("vault_source_account", "the vault's token account for the source mint",
                      d_source_account),
              derived("vault_destination_account",
                      "the vault's token account for the destination mint", d_destination_account),
              kJupiterProgram,
              token_program()};
    case InstructionKind::kAggregatorSweep:
      return {kVaultSpec,
              kManagerSpec,
              derived("strategy", "the vault's aggregator strategy for the token", d_mint_strategy),
              {"mint", Src::kRequest, "/mint"},
              kDepositMint,
              derived("vault_source_account", "the vault's token account for the swept mint",
                      d_mint_account),
              kDepositAccount,
              kJupiterProgram,
              token_program()};
    default:
      return {};
  }
}

// The DLMM instructions that move liquidity through bins: each names the bin arrays of its
// range.
std::vector<Spec> dlmm_liquidity_specs(InstructionKind kind) {
  switch (kind) {
    case InstructionKind::kDlmmOpen:
      return {
          kVaultSpec,
          kManagerSpec,
          derived("strategy", "the vault's strategy for the new position", d_position_strategy),
          {"position", Src::kNewSigner},
          {"lb_pair", Src::kRequest, "/lbPair"},
          derived("bin_array_lower", "the pool's bin array of the step's first bin", d_open_lower),
          derived("bin_array_upper", "the pool's bin array of the step's last bin", d_open_upper),
          kDlmmProgram,
          token_program(),
          kSystemProgram};
    case InstructionKind::kDlmmAdd:
    case InstructionKind::kDlmmAddRange:
      return {kVaultSpec,
              kManagerSpec,
              kPositionSpec,
              kCheckedPool,
              derived("bin_array_lower", "the pool's bin array of the step's first bin",
                      d_strategy_lower),
              derived("bin_array_upper", "the pool's bin array of the step's last bin",
                      d_strategy_upper),
              kDlmmProgram,
              token_program()};
    case InstructionKind::kDlmmRemove:
    case InstructionKind::kDlmmFlip:
      return {
          kVaultSpec,
          kManagerSpec,
          kPositionSpec,
          kCheckedPool,
          derived("bin_array_lower", "the pool's bin array of the step's first bin", d_from_bin),
          derived("bin_array_upper", "the pool's bin array of the step's last bin", d_to_bin),
          kDlmmProgram,
          token_program()};
    default:
      return {};
  }
}

// The DLMM strategy's other instructions: positions, fees, limit orders, the zap out.
std::vector<Spec> dlmm_specs(InstructionKind kind) {
  switch (kind) {
    case InstructionKind::kDlmmInitialize:
      return {kVaultSpec,
              kManagerSpec,
              derived("strategy", "the vault's strategy for the new position", d_position_strategy),
              {"position", Src::kNewSigner},
              {"lb_pair", Src::kRequest, "/lbPair"},
              kSystemProgram};
    case InstructionKind::kDlmmClaimFee:
      return {kVaultSpec, kManagerSpec, kPositionSpec, kCheckedPool, kDlmmProgram, token_program()};
    case InstructionKind::kDlmmZapOut:
      return {kVaultSpec,
              kManagerSpec,
              derived("strategy", "the vault's strategy for the position", d_position_strategy),
              kPositionSpec,
              kCheckedPool,
              kDlmmProgram,
              token_program()};
    case InstructionKind::kDlmmClose:
      return {kVaultSpec,
              kManagerSpec,
              derived("strategy", "the vault's strategy for the position", d_position_strategy),
              kPositionSpec,
              kCheckedPool,
              kDlmmProgram};
    case InstructionKind::kDlmmExtend:
      return {kVaultSpec, kManagerSpec, kPositionSpec, kCheckedPool, kDlmmProgram, kSystemProgram};
    case InstructionKind::kDlmmZapOutSwap:
      return {kVaultSpec,
              kManagerSpec,
              derived("strategy", "the vault's aggregator strategy for the source token",
                      d_source_strategy),
              {"source_mint", Src::kRequest, "/sources/0/mint"},
              kDepositMint,
              derived("vault_source_account", "the vault's token account for the source mint",
                      d_source_account),
              kDepositAccount,
              kJupiterProgram,
              token_program()};
    case InstructionKind::kDlmmLimitOrderPlace:
      return {kVaultSpec,
              kManagerSpec,
              derived("strategy", "the vault's strategy for the new limit order", d_order_strategy),
              {"limit_order", Src::kNewSigner},
              {"lb_pair", Src::kRequest, "/lbPair"},
              kDlmmProgram,
              token_program(),
              kSystemProgram};
    case InstructionKind::kDlmmLimitOrderCancel:
      return {kVaultSpec,
              kManagerSpec,
              derived("strategy", "the vault's strategy for the limit order", d_order_strategy),
              {"limit_order", Src::kRequest, "/limitOrder"},
              {"lb_pair", Src::kChecked,
               "the order's pool: the DLMM program refuses any pool but the order's"},
              kDlmmProgram,
              token_program()};
    default:
      return {};
  }
}

// The perp strategy's instructions and the venue's onboarding.
std::vector<Spec> perp_specs(InstructionKind kind) {
  switch (kind) {
    case InstructionKind::kPerpInitialize:
      return {kVaultSpec,
              kManagerSpec,
              derived("strategy", "the vault's perp strategy", d_perp_strategy),
              kTraderSpec,
              kPerpProgram,
              kSystemProgram};
    case InstructionKind::kPerpOnboard:
      return {kVaultSpec,
              kManagerSpec,
              kTraderSpec,
              {"venue_authority", Src::kVenue,
               "the venue's co-signer: it signs when the API submits the transaction"},
              kPerpProgram};
    case InstructionKind::kVenueOnboard:
      return {kVaultSpec,
              kManagerSpec,
              kTraderSpec,
              {"venue", Src::kVenue,
               "the venue's co-signer: it signs when the API submits the transaction"}};
    case InstructionKind::kPerpDeposit:
    case InstructionKind::kPerpWithdraw:
      return {kVaultSpec,      kManagerSpec, kTraderSpec,    kDepositMint,
              kDepositAccount, kPerpProgram, token_program()};
    case InstructionKind::kPerpOrder:
    case InstructionKind::kPerpCancel:
      return {kVaultSpec, kManagerSpec, kTraderSpec, {"market", Src::kMarket}, kPerpProgram};
    case InstructionKind::kPerpSweep:
      return {kVaultSpec,
              kManagerSpec,
              derived("strategy", "the vault's perp strategy", d_perp_strategy),
              kTraderSpec,
              kDepositMint,
              kDepositAccount,
              kPerpProgram,
              token_program()};
    default:
      return {};
  }
}

// The vault's own instructions.
std::vector<Spec> vault_specs(InstructionKind kind) {
  switch (kind) {
    case InstructionKind::kVaultInitialize:
      return {{"vault", Src::kNewVault},
              kManagerSpec,
              {"deposit_mint", Src::kRequest, "/depositMint"},
              token_program(),
              kSystemProgram};
    case InstructionKind::kVaultUpdate:
      return {kVaultSpec, kManagerSpec};
    case InstructionKind::kVaultClaimFee:
      return {kVaultSpec, kManagerSpec,
              derived("manager_share_account", "the manager's fee-share account of the vault",
                      d_manager_shares),
              token_program()};
    case InstructionKind::kVaultClose:
      return {kVaultSpec, kManagerSpec, kSystemProgram};
    case InstructionKind::kStrategyClose:
      return {kVaultSpec, kManagerSpec, {"strategy", Src::kRequest, "/strategy"}};
    default:
      return {};
  }
}

// Every kind names its group here, so a new kind without a template does not compile quietly.
std::vector<Spec> specs(InstructionKind kind) {
  switch (kind) {
    case InstructionKind::kAggregatorInitialize:
    case InstructionKind::kAggregatorSwap:
    case InstructionKind::kAggregatorSweep:
      return aggregator_specs(kind);
    case InstructionKind::kDlmmInitialize:
    case InstructionKind::kDlmmClaimFee:
    case InstructionKind::kDlmmZapOut:
    case InstructionKind::kDlmmClose:
    case InstructionKind::kDlmmExtend:
    case InstructionKind::kDlmmZapOutSwap:
    case InstructionKind::kDlmmLimitOrderPlace:
    case InstructionKind::kDlmmLimitOrderCancel:
      return dlmm_specs(kind);
    case InstructionKind::kDlmmOpen:
    case InstructionKind::kDlmmAdd:
    case InstructionKind::kDlmmAddRange:
    case InstructionKind::kDlmmRemove:
    case InstructionKind::kDlmmFlip:
      return dlmm_liquidity_specs(kind);
    case InstructionKind::kPerpInitialize:
    case InstructionKind::kPerpOnboard:
    case InstructionKind::kVenueOnboard:
    case InstructionKind::kPerpDeposit:
    case InstructionKind::kPerpWithdraw:
    case InstructionKind::kPerpOrder:
    case InstructionKind::kPerpCancel:
    case InstructionKind::kPerpSweep:
      return perp_specs(kind);
    case InstructionKind::kVaultInitialize:
    case InstructionKind::kVaultUpdate:
    case InstructionKind::kVaultClaimFee:
    case InstructionKind::kVaultClose:
    case InstructionKind::kStrategyClose:
      return vault_specs(kind);
  }
  return {};
}

// Instructions whose extra accounts, past the template's, are the route's (Jupiter's remaining
// accounts: the pools a route passes through, chosen by the router).
bool carries_route(InstructionKind kind) {
  switch (kind) {
    case InstructionKind::kAggregatorSwap:
    case InstructionKind::kAggregatorSweep:
    case InstructionKind::kDlmmZapOutSwap:
      return true;
    case InstructionKind::kAggregatorInitialize:
    case InstructionKind::kDlmmInitialize:
    case InstructionKind::kDlmmOpen:
    case InstructionKind::kDlmmAdd:
    case InstructionKind::kDlmmRemove:
    case InstructionKind::kDlmmFlip:
    case InstructionKind::kDlmmClaimFee:
    case InstructionKind::kDlmmZapOut:
    case InstructionKind::kDlmmClose:
    case InstructionKind::kDlmmExtend:
    case InstructionKind::kDlmmAddRange:
    case InstructionKind::kDlmmLimitOrderPlace:
    case InstructionKind::kDlmmLimitOrderCancel:
    case InstructionKind::kPerpInitialize:
    case InstructionKind::kPerpOnboard:
    case InstructionKind::kPerpDeposit:
    case InstructionKind::kPerpWithdraw:
    case InstructionKind::kPerpOrder:
    case InstructionKind::kPerpCancel:
    case InstructionKind::kPerpSweep:
    case InstructionKind::kVaultInitialize:
    case InstructionKind::kVaultUpdate:
    case InstructionKind::kVaultClaimFee:
    case InstructionKind::kVaultClose:
    case InstructionKind::kStrategyClose:
    case InstructionKind::kVenueOnboard:
      return false;
  }
  return false;
}

// The instruction kinds a step of each action may hold (exactly one of them per step).
std::vector<InstructionKind> main_kinds(Action action) {
  using K = InstructionKind;
  switch (action) {
    case Action::kAggregatorInitialize:
      return {K::kAggregatorInitialize};
    // A two-hop swap that must first open its strategy sets it up alone (spec 3.4).
    case Action::kAggregatorSwap:
      return {K::kAggregatorSwap, K::kAggregatorInitialize};
    case Action::kAggregatorSweep:
      return {K::kAggregatorSweep};
    case Action::kDlmmInitialize:
      return {K::kDlmmInitialize};
    case Action::kDlmmOpen:
      return {K::kDlmmOpen};
    case Action::kDlmmAdd:
      return {K::kDlmmAdd};
    case Action::kDlmmRemove:
      return {K::kDlmmRemove};
    case Action::kDlmmFlip:
      return {K::kDlmmFlip};
    case Action::kDlmmClaimFee:
      return {K::kDlmmClaimFee};
    case Action::kDlmmZapOut:
      return {K::kDlmmZapOut};
    case Action::kDlmmClose:
      return {K::kDlmmClose};
    case Action::kDlmmExtend:
      return {K::kDlmmExtend};
    case Action::kDlmmAddRange:
      return {K::kDlmmAddRange};
    case Action::kDlmmZapOutSwap:
      return {K::kDlmmZapOutSwap};
    case Action::kDlmmLimitOrderPlace:
      return {K::kDlmmLimitOrderPlace};
    case Action::kDlmmLimitOrderCancel:
      return {K::kDlmmLimitOrderCancel};
    case Action::kPerpInitialize:
      return {K::kPerpInitialize};
    // Only the venue program is invoked (spec 4.10).
    case Action::kPerpOnboard:
      return {K::kVenueOnboard};
    case Action::kPerpDeposit:
      return {K::kPerpDeposit};
    case Action::kPerpWithdraw:
      return {K::kPerpWithdraw};
    case Action::kPerpOrder:
      return {K::kPerpOrder};
    case Action::kPerpCancel:
      return {K::kPerpCancel};
    case Action::kPerpSweep:
      return {K::kPerpSweep};
    case Action::kVaultInitialize:
      return {K::kVaultInitialize};
    case Action::kVaultUpdate:
      return {K::kVaultUpdate};
    case Action::kVaultClaimFee:
      return {K::kVaultClaimFee};
    case Action::kVaultClose:
      return {K::kVaultClose};
    case Action::kStrategyClose:
      return {K::kStrategyClose};
  }
  return {};
}

// Ranged DLMM batches may hold several steps, one per run of at most 70 bins; every other
// action builds exactly one.
bool ranged(Action action) {
  switch (action) {
    case Action::kDlmmOpen:
    case Action::kDlmmAdd:
    case Action::kDlmmAddRange:
    case Action::kDlmmRemove:
      return true;
    case Action::kAggregatorInitialize:
    case Action::kAggregatorSwap:
    case Action::kAggregatorSweep:
    case Action::kDlmmInitialize:
    case Action::kDlmmFlip:
    case Action::kDlmmClaimFee:
    case Action::kDlmmZapOut:
    case Action::kDlmmClose:
    case Action::kDlmmExtend:
    case Action::kDlmmZapOutSwap:
    case Action::kDlmmLimitOrderPlace:
    case Action::kDlmmLimitOrderCancel:
    case Action::kPerpInitialize:
    case Action::kPerpOnboard:
    case Action::kPerpDeposit:
    case Action::kPerpWithdraw:
    case Action::kPerpOrder:
    case Action::kPerpCancel:
    case Action::kPerpSweep:
    case Action::kVaultInitialize:
    case Action::kVaultUpdate:
    case Action::kVaultClaimFee:
    case Action::kVaultClose:
    case Action::kStrategyClose:
      return false;
  }
  return false;
}

// The follow-ups (`next`) an action's step may announce (spec 3.4, 4.7, 4.15 and the twin).
std::vector<std::string_view> follow_ups(Action action) {
  switch (action) {
    case Action::kAggregatorSwap:
      return {"aggregator/swap", "aggregator/sweep"};
    case Action::kDlmmZapOut:
      return {"aggregator/sweep"};
    case Action::kDlmmExtend:
      return {"dlmm/extend", "dlmm/add-range"};
    case Action::kDlmmZapOutSwap:
      return {"dlmm/zap-out/swap"};
    case Action::kAggregatorInitialize:
    case Action::kAggregatorSweep:
    case Action::kDlmmInitialize:
    case Action::kDlmmOpen:
    case Action::kDlmmAdd:
    case Action::kDlmmRemove:
    case Action::kDlmmFlip:
    case Action::kDlmmClaimFee:
    case Action::kDlmmClose:
    case Action::kDlmmAddRange:
    case Action::kDlmmLimitOrderPlace:
    case Action::kDlmmLimitOrderCancel:
    case Action::kPerpInitialize:
    case Action::kPerpOnboard:
    case Action::kPerpDeposit:
    case Action::kPerpWithdraw:
    case Action::kPerpOrder:
    case Action::kPerpCancel:
    case Action::kPerpSweep:
    case Action::kVaultInitialize:
    case Action::kVaultUpdate:
    case Action::kVaultClaimFee:
    case Action::kVaultClose:
    case Action::kStrategyClose:
      return {};
  }
  return {};
}

std::optional<InstructionKind> kind_of(const PublicKey& program, const Decoded& d) {
  if (program == programs::key(kPerpVenue) && d.program == "airlock_perp_venue" &&
      d.instruction == "perp_onboard")
    return InstructionKind::kVenueOnboard;
  if (program != programs::key(kVaultProgram)) return std::nullopt;
  for (int i = 0; i < kInstructionKindCount; ++i) {
    const auto kind = static_cast<InstructionKind>(i);
    if (kind != InstructionKind::kVenueOnboard && instruction_name(kind) == d.instruction)
      return kind;
  }
  return std::nullopt;
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
    const auto allowed = main_kinds(in_.action);
    // The main instruction first: ATA creations may only be for mints it names.
    for (std::size_t i = 0; i < m_.instructions.size(); ++i) {
      if (!s_.instructions[i]) continue;
      const PublicKey& program = m_.static_keys[m_.instructions[i].program_index];
      const auto kind = kind_of(program, *s_.instructions[i]);
      if (kind && std::find(allowed.begin(), allowed.end(), *kind) != allowed.end()) {
        ++mains;
        bind_main(i, *kind, step_mints);
      }
    }
    for (std::size_t i = 0; i < m_.instructions.size(); ++i) {
      if (!s_.instructions[i]) continue;  // refused as undecodable already
      const auto& ix = m_.instructions[i];
      const Decoded& d = *s_.instructions[i];
      const PublicKey& program = m_.static_keys[ix.program_index];
      const auto kind = kind_of(program, d);
      if (kind && std::find(allowed.begin(), allowed.end(), *kind) != allowed.end()) continue;
      if (program == programs::key(programs::kComputeBudget)) {
        if (!ix.accounts.empty() || !budget_seen.insert(d.instruction).second) {
          refuse(FindingCode::kIntentInstruction, "instruction " + std::to_string(i + 1) +
                                                      " (compute budget " + d.instruction +
                                                      ") is repeated or names accounts");
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
                 ") is not part of " + std::string(action_name(in_.action)) + "'s template");
    }
    if (mains != 1) {
      refuse(FindingCode::kIntentInstruction, "a step of " + std::string(action_name(in_.action)) +
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
    for (const auto kind : main_kinds(in_.action))
      names += (names.empty() ? "" : " or ") + std::string(instruction_name(kind));
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

  std::optional<PublicKey> request_key(std::string_view pointers) const {
    std::size_t start = 0;
    while (start <= pointers.size()) {
      const std::size_t bar = pointers.find('|', start);
      const std::string pointer(pointers.substr(
          start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
      try {
        const ojson::json_pointer at(pointer);
        if (in_.intent.is_object() && in_.intent.contains(at)) {
          const ojson& v = in_.intent.at(at);
          if (!v.is_string()) return std::nullopt;
          auto key = public_key_from_base58(v.get<std::string>());
          return key.ok() ? std::optional(*key) : std::nullopt;
        }
      } catch (const nlohmann::json::exception&) {
        return std::nullopt;  // the body's shape does not hold the field
      }
      if (bar == std::string_view::npos) break;
      start = bar + 1;
    }
    return std::nullopt;
  }

  void bind_main(std::size_t i, InstructionKind kind, std::vector<PublicKey>& step_mints) {
    const auto& ix = m_.instructions[i];
    Decoded& d = *s_.instructions[i];
    const auto keys = keys_of(ix);
    const auto spec = specs(kind);
    const std::string where = "instruction " + std::to_string(i + 1) + " (" + d.instruction + ")";
    auto& bindings = s_.bindings[i];
    const Bound b{d, keys, in_.request.vault, in_.derivations};
    for (std::size_t p = 0; p < ix.accounts.size(); ++p) {
      const std::uint8_t account = ix.accounts[p];
      const std::optional<PublicKey>& key = keys[p];
      if (p >= spec.size()) {
        if (!carries_route(kind)) {
          refuse(FindingCode::kIntentAccount,
                 where + " passes " + std::to_string(ix.accounts.size()) +
                     " accounts; its template names " + std::to_string(spec.size()));
          return;
        }
        route_account(p - spec.size(), account, key, where, bindings);
        continue;
      }
      const Spec& rule = spec[p];
      if (p >= d.account_names.size() || d.account_names[p] != rule.role) {
        refuse(FindingCode::kIntentAccount, where + ": account " + std::to_string(p + 1) +
                                                " is not the template's " + std::string(rule.role) +
                                                " (the IDL and the template disagree)");
        return;
      }
      use(account, p < d.account_writable.size() && d.account_writable[p],
          p < d.account_signer.size() && d.account_signer[p]);
      if (!key) {
        bindings.push_back({std::string(rule.role), "unbound", "loaded from an unknown table"});
        continue;  // refused where the table is checked
      }
      bindings.push_back(bind(rule, *key, account, b, where));
      if (rule.role.find("mint") != std::string_view::npos) {
        step_mints.push_back(*key);
        in_.own.add_mint(*key);
      }
    }
    distinct_roles(spec, keys, where);
    if (carries_route(kind)) route(d, keys, where);
  }

  // One key, one role: an account bound as (or checked on chain as) one role cannot stand in
  // for another role of the same instruction. Only a step's two bin arrays may coincide, when
  // its bins lie in one array.
  void distinct_roles(const std::vector<Spec>& spec,
                      const std::vector<std::optional<PublicKey>>& keys, const std::string& where) {
    const auto bin_array_role = [](std::string_view role) {
      return role.rfind("bin_array", 0) == 0;
    };
    for (std::size_t a = 0; a < spec.size() && a < keys.size(); ++a) {
      for (std::size_t b = a + 1; b < spec.size() && b < keys.size(); ++b) {
        if (!keys[a] || !keys[b] || *keys[a] != *keys[b]) continue;
        if (bin_array_role(spec[a].role) && bin_array_role(spec[b].role)) continue;
        refuse(FindingCode::kIntentAccount, where + ": " + short_key(*keys[a]) +
                                                " stands as both " + std::string(spec[a].role) +
                                                " and " + std::string(spec[b].role));
      }
    }
  }

  AccountBinding bind(const Spec& rule, const PublicKey& key, std::uint8_t account, const Bound& b,
                      const std::string& where) {
    const std::string role(rule.role);
    const auto mismatch = [&](const std::string& want) {
      return refuse_account(role, key, where, want);
    };
    if (rule.src != Src::kManager && key == in_.policy.manager) {
      refuse(FindingCode::kIntentAccount,
             where + ": " + role + " is the manager's key, which signs only as the manager");
      return AccountBinding{role, "refused", "the manager's key in another role"};
    }
    switch (rule.src) {
      case Src::kVault:
        if (key != in_.request.vault) return mismatch("the request's vault");
        return {role, "vault", "the request's vault"};
      case Src::kManager:
        if (key != in_.policy.manager) return mismatch("the manager");
        return {role, "manager", "this machine's key"};
      case Src::kProgram:
        return bind_program(rule, key, where);
      case Src::kTokenProgram:
        if (key != programs::key(programs::kToken) && key != programs::key(programs::kToken2022))
          return mismatch("SPL Token or Token-2022");
        return {role, "program",
                key == programs::key(programs::kToken) ? "SPL Token" : "Token-2022"};
      case Src::kRequest: {
        if (in_.no_intent) return bind_without_intent(role, key, b, where);
        const auto want = request_key(rule.arg);
        const std::string field(rule.arg.substr(1, rule.arg.find('|') - 1));
        if (!want) return mismatch("a key the build request gives (" + field + " is missing)");
        if (key != *want) return mismatch("the request's " + field + " " + short_key(*want));
        return {role, "request", "as requested (" + field + ")"};
      }
      case Src::kDerived: {
        const auto candidates = rule.derive(b);
        if (std::find(candidates.begin(), candidates.end(), key) == candidates.end()) {
          return mismatch(std::string(rule.arg) +
                          (candidates.empty() ? "" : " (" + short_key(candidates.front()) + ")"));
        }
        return {role, "derived", std::string(rule.arg) + ", computed here"};
      }
      case Src::kNewSigner:
      case Src::kNewVault:
        return bind_new_account(rule, key, account, where);
      case Src::kChecked:
        if (role == "lb_pair") return not_own(bind_pool(rule, key, where), key, where);
        return not_own({role, "checked on chain", std::string(rule.arg)}, key, where);
      case Src::kMarket:
        return not_own(bind_market(rule, key, where), key, where);
      case Src::kVenue:
        if (account >= m_.header.num_required_signatures)
          return mismatch("the venue's co-signer (a signer)");
        s_.venue_cosigner = key;
        return not_own({role, "checked on chain", std::string(rule.arg)}, key, where);
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

  // A fixed program, named as the operator knows it.
  AccountBinding bind_program(const Spec& rule, const PublicKey& key, const std::string& where) {
    const std::string role(rule.role);
    const PublicKey& want = programs::key(rule.arg);
    const auto name = programs::well_known_name(want);
    const std::string label = name                     ? std::string(*name)
                              : rule.arg == kJupiter   ? "Jupiter v6"
                              : rule.arg == kDlmm      ? "Meteora DLMM"
                              : rule.arg == kPerpVenue ? "the perp venue (Phoenix)"
                                                       : std::string(rule.arg);
    if (key != want) return refuse_account(role, key, where, label);
    return {role, "program", label};
  }

  // A new account the builder signs for (a position, an order, a new vault): a signer, and
  // never the vault unless it is the new vault the request names.
  AccountBinding bind_new_account(const Spec& rule, const PublicKey& key, std::uint8_t account,
                                  const std::string& where) {
    const std::string role(rule.role);
    if (account >= m_.header.num_required_signatures)
      return refuse_account(role, key, where, "a new account signed by the builder");
    if (key == in_.request.vault && rule.src == Src::kNewSigner)
      return refuse_account(role, key, where, "a new account (it is the vault)");
    if (rule.src == Src::kNewVault && key != in_.request.vault)
      return refuse_account(role, key, where, "the new vault the request names");
    new_signers_.insert(key);
    if (rule.src == Src::kNewSigner) in_.own.add_holding(key);
    return {role, "new signer",
            rule.src == Src::kNewVault ? "the new vault, signed by the builder"
                                       : "a new account, signed by the builder"};
  }

  // The pool a position is in.
  AccountBinding bind_pool(const Spec& rule, const PublicKey& key, const std::string& where) {
    const std::string role(rule.role);
    // Which pool a position is in is chain state. The online half names it (the pool
    // hint, read from the vault's strategies): a pool it did not name is refused, and
    // without a hint the account is shown unbound and never auto-approved.
    const auto& pools = in_.request.hints.pools;
    if (pools.empty()) {
      warn(FindingCode::kWarnUnboundAccount,
           where + ": lb_pair " + short_key(key) +
               " is not named by a pool hint; which pool the position is in is known "
               "only on chain");
      return {role, "unbound", std::string(rule.arg) + "; no pool hint names it"};
    }
    if (std::none_of(pools.begin(), pools.end(),
                     [&](const envelope::PoolHint& h) { return h.pool == key; }))
      return refuse_account(role, key, where, "the pool the online half names for this position");
    return {role, "checked on chain",
            std::string(rule.arg) + "; the online half's pool hint names it"};
  }

  // A perp market: the one the policy pins for the request's symbol, or shown unbound.
  AccountBinding bind_market(const Spec& rule, const PublicKey& key, const std::string& where) {
    const std::string role(rule.role);
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

  // Jupiter's remaining accounts: the pools and vaults each hop passes through. The router
  // chooses them; what the vault receives is bounded by the route's minimum, which the review
  // checks. None may sign or be the manager.
  void route_account(std::size_t n, std::uint8_t account, const std::optional<PublicKey>& key,
                     const std::string& where, std::vector<AccountBinding>& bindings) {
    if (account < free_flags_.size()) free_flags_[account] = true;
    const std::string role = "route account " + std::to_string(n + 1);
    if (account < m_.header.num_required_signatures || (key && *key == in_.policy.manager) ||
        (key && *key == in_.request.vault)) {
      refuse(FindingCode::kIntentAccount,
             where + ": " + role +
                 " is a signer, the manager or the vault; route accounts are "
                 "the pools the route passes through");
      bindings.push_back({role, "refused", "a route account may not sign"});
      return;
    }
    AccountBinding binding{role, "route", "the router's choice of pool; the minimum out bounds it"};
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
    const auto kind = kind_of(program, *s.instructions[i]);
    const auto allowed = main_kinds(in.action);
    if (kind && std::find(allowed.begin(), allowed.end(), *kind) != allowed.end())
      return &*s.instructions[i];
  }
  return nullptr;
}

// An intent's BaseUnitAmount: the API sends amounts as strings, never as JSON numbers.
std::optional<std::uint64_t> body_amount(const ojson& intent, const char* name) {
  if (!intent.is_object() || !intent.contains(name) || !intent[name].is_string())
    return std::nullopt;
  return parse_base_units(intent[name].get_ref<const std::string&>());
}

struct Range {
  std::int64_t lower = 0, upper = 0;
  std::optional<std::uint64_t> x, y;  // nullopt: the step's amount could not be read
  std::size_t step = 0;
};

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

std::optional<Action> action_of_instruction(const PublicKey& program, const Decoded& d) {
  const auto kind = kind_of(program, d);
  if (!kind) return std::nullopt;
  for (int i = 0; i < kActionCount; ++i) {
    const auto action = static_cast<Action>(i);
    const auto kinds = main_kinds(action);
    if (!kinds.empty() && kinds.front() == *kind) return action;
  }
  return std::nullopt;
}

std::string_view instruction_name(InstructionKind kind) {
  using K = InstructionKind;
  switch (kind) {
    case K::kAggregatorInitialize:
      return "aggregator_initialize";
    case K::kAggregatorSwap:
      return "aggregator_swap";
    case K::kAggregatorSweep:
      return "aggregator_sweep";
    case K::kDlmmInitialize:
      return "dlmm_initialize";
    case K::kDlmmOpen:
      return "dlmm_open";
    case K::kDlmmAdd:
      return "dlmm_add";
    case K::kDlmmRemove:
      return "dlmm_remove";
    case K::kDlmmFlip:
      return "dlmm_flip";
    case K::kDlmmClaimFee:
      return "dlmm_claim_fee";
    case K::kDlmmZapOut:
      return "dlmm_zap_out";
    case K::kDlmmClose:
      return "dlmm_close";
    case K::kDlmmExtend:
      return "dlmm_extend";
    case K::kDlmmAddRange:
      return "dlmm_add_range";
    case K::kDlmmZapOutSwap:
      return "dlmm_zap_out_swap";
    case K::kDlmmLimitOrderPlace:
      return "dlmm_limit_order_place";
    case K::kDlmmLimitOrderCancel:
      return "dlmm_limit_order_cancel";
    case K::kPerpInitialize:
      return "perp_initialize";
    case K::kPerpOnboard:
      return "perp_onboard";
    case K::kPerpDeposit:
      return "perp_deposit";
    case K::kPerpWithdraw:
      return "perp_withdraw";
    case K::kPerpOrder:
      return "perp_order";
    case K::kPerpCancel:
      return "perp_cancel";
    case K::kPerpSweep:
      return "perp_sweep";
    case K::kVaultInitialize:
      return "vault_initialize";
    case K::kVaultUpdate:
      return "vault_update";
    case K::kVaultClaimFee:
      return "vault_claim_fee";
    case K::kVaultClose:
      return "vault_close";
    case K::kStrategyClose:
      return "strategy_close";
    case K::kVenueOnboard:
      return "perp_onboard";
  }
  return "";
}

std::vector<std::string_view> template_accounts(InstructionKind kind) {
  std::vector<std::string_view> names;
  for (const auto& spec : specs(kind)) names.push_back(spec.role);
  return names;
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
      : in_(in), steps_(steps), out_(out), action_(action_name(in.action)) {}

  void run() {
    check_steps();
    check_new_accounts();
    if (!ranged(in_.action)) return;
    // Ranged batches: each step one run of bins, the runs in order without gap or overlap.
    auto ranges = step_ranges();
    if (!ranges || !contiguous(*ranges) || ranges->empty()) return;
    const auto requested_lo = body_integer(in_.intent, "lowerBinId");
    auto lo = requested_lo, hi = body_integer(in_.intent, "upperBinId");
    if (hi && in_.action == Action::kDlmmOpen) *hi -= 1;  // exclusive in dlmm/open's body
    if (const auto cursor = body_integer(in_.intent, "cursorBinId")) lo = cursor;
    if (in_.action == Action::kDlmmRemove) {
      if (lo && hi && (ranges->front().lower != *lo || ranges->back().upper != *hi)) {
        refuse(FindingCode::kIntentBins, "the removals do not cover exactly bins " +
                                             std::to_string(*lo) + " to " + std::to_string(*hi));
      }
      return;
    }
    // Each step's share is its bins' share of the whole requested range, resumed or not: a
    // build resumed at cursorBinId is held to the same rate per bin as the first build, so one
    // of its steps cannot take what the others leave (the remainder's total is checked in
    // review.cpp, resumed_amounts).
    check_shares(*ranges, requested_lo ? *requested_lo : ranges->front().lower,
                 hi ? *hi : ranges->back().upper);
  }

 private:
  void refuse(FindingCode code, std::string message,
              std::optional<std::size_t> step = std::nullopt) {
    out_.refusals.emplace_back(code, std::move(message), step);
  }

  // The number of steps, and the follow-ups they announce: only by the last step, and only
  // actions this one may need.
  void check_steps() {
    if (!ranged(in_.action) && steps_.size() != 1) {
      refuse(FindingCode::kIntentSteps, action_ + " builds exactly one step; the request has " +
                                            std::to_string(steps_.size()));
    }
    const auto allowed_next = follow_ups(in_.action);
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
      std::optional<std::int64_t> lo, hi;
      if (in_.action == Action::kDlmmRemove) {
        lo = arg_int(a, {"from_bin_id"});
        hi = arg_int(a, {"to_bin_id"});
      } else {
        lo = arg_int(a, {"strategy", "min_bin_id"});
        hi = arg_int(a, {"strategy", "max_bin_id"});
        r.x = a.contains("amount_x") ? integer_arg(a["amount_x"]) : std::nullopt;
        r.y = a.contains("amount_y") ? integer_arg(a["amount_y"]) : std::nullopt;
      }
      if (!lo || !hi) return std::nullopt;
      r.lower = *lo;
      r.upper = *hi;
      if (r.upper < r.lower ||
          static_cast<std::uint64_t>(r.upper - r.lower) + 1 > kMaxBinsPerStep) {
        refuse(FindingCode::kIntentBins,
               "step " + std::to_string(s.index + 1) + " covers bins " + std::to_string(r.lower) +
                   " to " + std::to_string(r.upper) + "; a step covers 1 to 70 bins",
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

  // Each step deposits its bins' share of the batch over bins first to last (by bin count,
  // rounded up, plus one base unit per run of the whole range, resumed or not, for the builder's
  // rounding, which puts the remainder on the last run): the totals alone would
  // let one position take everything.
  void check_shares(const std::vector<Range>& ranges, std::int64_t first, std::int64_t last) {
    if (last < first) return;
    const std::int64_t span = last - first + 1;  // bin ids are bounded: no overflow
    const auto width = static_cast<unsigned __int128>(span);
    // The builder's rounding: each run's share rounded down, the remainder (less than one base
    // unit per run of the whole range) on the last run. A resumed build holds only the runs
    // left, so the allowance counts the whole range's runs, not the steps in the request.
    const auto runs = std::max<std::uint64_t>(
        ranges.size(), (static_cast<std::uint64_t>(span) + kMaxBinsPerStep - 1) / kMaxBinsPerStep);
    for (const auto& [field, pick] :
         {std::pair<const char*, std::optional<std::uint64_t> Range::*>{"amountX", &Range::x},
          std::pair<const char*, std::optional<std::uint64_t> Range::*>{"amountY", &Range::y}}) {
      const auto total = body_amount(in_.intent, field);
      if (!total) continue;  // refused by the totals check
      for (const auto& r : ranges) {
        const std::int64_t range_bins = r.upper - r.lower + 1;
        const auto bins = static_cast<unsigned __int128>(range_bins);
        const auto share = static_cast<std::uint64_t>(
            (static_cast<unsigned __int128>(*total) * bins + width - 1) / width + runs);
        const std::optional<std::uint64_t>& deposit = r.*pick;
        if (!deposit) {
          refuse(FindingCode::kIntentAmount,
                 "step " + std::to_string(r.step + 1) + "'s " + field +
                     " deposit is not an unsigned integer",
                 r.step);
        } else if (*deposit > share) {
          refuse(FindingCode::kIntentAmount,
                 "step " + std::to_string(r.step + 1) + " deposits " + std::to_string(*deposit) +
                     " of " + field + " into " + std::to_string(r.upper - r.lower + 1) +
                     " bins; their share of " + std::to_string(*total) + " over " +
                     std::to_string(last - first + 1) + " bins is at most " + std::to_string(share),
                 r.step);
        }
      }
    }
  }

  const TemplateInput& in_;
  const std::vector<StepReview>& steps_;
  TemplateFindings& out_;
  const std::string action_;
};

}  // namespace

void bind_steps(const TemplateInput& in, const std::vector<StepReview>& steps,
                TemplateFindings& out) {
  BatchBinder(in, steps, out).run();
}

}  // namespace airlock::offline
