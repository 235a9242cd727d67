// Reviewing a sign request before anything is signed: every step parsed, every account and
// instruction decoded, every rule of the policy applied, and the decoded arguments compared with
// the build request (the intent). The online half is assumed compromised, so a yes rests only on
// what the bytes show; hints (lookup-table contents, token symbols) are used for display only,
// unless the policy pins a table's contents.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <airlock/common/accounts.h>
#include <airlock/common/transaction.h>
#include <airlock/formats/envelope.h>
#include <airlock/formats/keystone.h>
#include <airlock/offline/decode.h>
#include <airlock/offline/findings.h>
#include <airlock/offline/policy.h>

namespace airlock::offline {

// The vault program every manager instruction goes through.
inline constexpr std::string_view kVaultProgram = "AirLockVau1t1111111111111111111111111111111";

// A reason to refuse (code "policy.*" or "intent.*") or to warn ("warn.*"). Made only from a
// FindingCode (findings.h); the code is kept as its name for the log, the answer and the JSON.
struct Finding {
  Finding(FindingCode finding, std::string why, std::optional<std::size_t> at = std::nullopt)
      : code(finding.name()), message(std::move(why)), step(at) {}
  std::string code;
  std::string message;
  std::optional<std::size_t> step;
};

// What one part of the review found (the binder, a named checker), for the review to take.
struct TemplateFindings {
  std::vector<Finding> refusals;
  std::vector<Finding> warnings;
};

// How the review bound one account of one instruction to its source, per the action's
// template (offline/src/templates.cpp, docs/threat-model.md).
struct AccountBinding {
  std::string role;    // the account's name in its instruction ("lb_pair", "route account 3")
  std::string source;  // program, manager, vault, request, derived, new signer, checked on chain,
                       // route, unbound
  std::string detail;  // what it was checked against, in words for the screen
};

// A swap as its instruction and its route state it (an instruction a descriptor marks with
// "swaps": docs/descriptors.md), for the price rule (prices.h) and the decision screen.
struct SwapTerms {
  PublicKey sells;
  PublicKey buys;
  std::optional<std::uint64_t> spends;  // base units of `sells` the route spends (in_amount)
  // Base units of `buys` the swap returns at least: the larger of the floors the route and the
  // vault instruction enforce; nullopt when neither states one (refused elsewhere).
  std::optional<std::uint64_t> guaranteed;
  // The policy's floor for the pair ([[price_floors]]) as written, or empty: none.
  std::string floor;
};

// A token amount an instruction moves, as its descriptor states it ("amounts"): the argument
// (a list's field summed over its elements; a Jupiter route's amounts as route.in_amount and
// route.quoted_out_amount), and its unit: a mint, or the token X or Y of a pool, which the
// screens look up in the labels.
struct StatedAmount {
  std::size_t instruction = 0;
  std::string path;
  unsigned __int128 total = 0;
  PublicKey mint_or_pool;
  AmountUnit::Side side = AmountUnit::Side::kKey;  // kKey: mint_or_pool is the mint
  std::string moves;         // where it goes (docs/descriptors.md), or "" for the details only
  std::string unit_account;  // the instruction's account whose key mint_or_pool is
};

// The instruction a descriptor binds as a step's own, and which of its stated amounts leave the
// vault (DescribedInstruction::outflows: nullopt when its descriptor does not say).
struct StepOutflows {
  std::size_t instruction = 0;
  std::string name;  // the IDL's instruction name
  std::optional<std::vector<std::string>> paths;
};

struct StepReview {
  std::size_t index = 0;
  Transaction tx;
  Hash message_hash;
  std::vector<AccountRole> roles;
  std::vector<std::optional<Decoded>> instructions;  // nullopt: undecodable
  // Aligned with the message's instructions, then with each one's accounts.
  std::vector<std::vector<AccountBinding>> bindings;
  std::optional<PublicKey> venue_cosigner;  // perp/onboard: the one slot left for the venue
  std::optional<DurableNonceUse> nonce;
  std::uint64_t priority_fee_lamports = 0;    // compute-unit price x limit, plus any additional fee
  std::uint64_t additional_fee_lamports = 0;  // the deprecated request_units' own fee
  std::uint64_t compute_unit_limit = 0;
  std::vector<SwapTerms> swaps;        // each swap of the step, in instruction order
  std::vector<StatedAmount> amounts;   // each amount its instructions' descriptors state
  std::vector<StepOutflows> outflows;  // for each instruction a descriptor binds as the step's
};

// What the summary may call a mint: the policy's pinned symbol and decimals, or the online
// half's hint (shown as such). Hints that contradict the policy are left out and warned about.
struct TokenLabel {
  PublicKey mint;
  std::string symbol;
  std::uint8_t decimals = 0;
  bool pinned = false;
};

// Which mints a DLMM pool's token X and Y are: pinned by the policy ([[pools]]) or per the
// online half's pool hint. A hint that contradicts a pinned pool is left out and warned about.
struct PoolLabel {
  PublicKey pool;
  PublicKey token_x;
  PublicKey token_y;
  bool pinned = false;
};

// A field of the manager's body that is a token amount, as the descriptor ties it to an amount
// an instruction states (amounts.h): its JSON pointer, and its unit (a mint the body names, or
// the token X or Y of the pool it names or the online half's only pool hint).
struct BodyAmount {
  std::string pointer;
  PublicKey mint_or_pool;
  AmountUnit::Side side = AmountUnit::Side::kKey;
};

struct Review {
  // What the action does, in the one sentence its descriptor gives (empty: no descriptor
  // describes it).
  std::string reads;
  std::vector<StepReview> steps;
  std::vector<Finding> refusals;
  std::vector<Finding> warnings;
  std::vector<TokenLabel> tokens;
  std::vector<PoolLabel> pools;
  std::vector<BodyAmount> body_amounts;  // the body's amounts whose unit is known (amounts.h)
  // The argument paths a ranged action's steps name their first and last bin by (its
  // descriptor's steps.ranged, dotted), for the screens; empty when its steps are not ranged.
  std::string bins_lower, bins_upper;
  bool auto_approvable = false;  // the policy auto-approves the action and nothing warns
  // An approval in the audit log covers it (signing.cpp): signed without a question.
  bool under_approval = false;

  [[nodiscard]] bool refused() const noexcept { return !refusals.empty(); }
};

// The action of a request made from a Keystone `ur:sol-sign-request`: no build request comes
// with it, so nothing binds it to an intent. Reviewed under the policy's rules on programs, fee
// payer, signers and vaults, warned `warn.no_intent`, never auto-approvable, no deadline.
inline constexpr std::string_view kKeystoneAction = keystone::kSignRequestAction;

// An approval request (envelope.h): the rules that need no transaction (manager, action,
// descriptor, vault, deadline, body), with the token and pool labels; no steps, no binding.
[[nodiscard]] Review review_intent(const envelope::SignRequest& request, const Policy& policy,
                                   const DecoderRegistry& decoders, const PublicKey& signer,
                                   std::int64_t now_unix);

// `signer` is the keystore's key; `now_unix` the offline clock.
[[nodiscard]] Review review_request(const envelope::SignRequest& request, const Policy& policy,
                                    const DecoderRegistry& decoders, const PublicKey& signer,
                                    std::int64_t now_unix);

}  // namespace airlock::offline
