// A generator of hostile sign requests (docs/threat-model.md). Each case starts from a request
// the API twin really built and changes exactly what one attack needs, so anything the offline
// half refuses is refused for that attack and not for some side effect of crafting it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <airlock/common/ed25519.h>
#include <airlock/formats/envelope.h>
#include <airlock/offline/policy.h>

namespace airlock::adversarial {

enum class Expect {
  kRefused,  // nothing signed whatever the operator answers; the code is among the refusals
  kFlagged,  // a warning with the code; --auto-approve is not honoured, the operator is asked
};

struct HostileCase {
  std::string name;  // the attack, as docs/threat-model.md lists it
  envelope::SignRequest request;
  offline::Policy policy;
  std::string code;  // the refusal or warning code that must stop or flag it
  Expect expect = Expect::kRefused;
};

// What the generator starts from: honest twin builds of the actions it tampers with, the
// policy each passes under, and the demo world's keys.
struct HonestBuilds {
  envelope::SignRequest vault_update;  // one step, no lookup tables
  envelope::SignRequest swap;          // one step, a route lookup table (hinted)
  // SOL to JUP before the vault has a JUP strategy: one step that only sets it up, announcing
  // the swap as its follow-up
  envelope::SignRequest swap_setup;
  // aggregator/initialize of BONK: a set-up that is not the swap's
  envelope::SignRequest bonk_initialize;
  envelope::SignRequest sweep;         // aggregator/sweep of SOL: the amount is the balance
  envelope::SignRequest dlmm_open;     // a batch
  envelope::SignRequest limit_order;   // dlmm/limit-order/place
  envelope::SignRequest perp_order;    // perp/order
  envelope::SignRequest perp_onboard;  // perp/onboard: the venue's slot left empty
  envelope::SignRequest perp_deposit;  // perp/deposit
  envelope::SignRequest dlmm_initialize;
  envelope::SignRequest dlmm_remove;     // one step over a confirmed position
  envelope::SignRequest dlmm_add;        // one step into bins 4990 to 5010 of that position
  envelope::SignRequest dlmm_add_whole;  // one step into the whole position: no sub-range
  // dlmm/extend of that position to bin 5200: its first whole step of 70 bins
  envelope::SignRequest dlmm_extend;
  envelope::SignRequest strategy_close;  // an empty aggregator strategy
  // dlmm/open over 210 bins resumed at cursorBinId after its first 70: two steps of 70
  envelope::SignRequest dlmm_open_resumed;
  // dlmm/open over 211 bins resumed at its last, one-bin run, amounts that do not divide: the
  // builder's remainder on that run (an honest build the share rule must pass)
  envelope::SignRequest dlmm_open_resumed_last;
  // dlmm/open over 1400 bins resumed after its first 70: nineteen steps, the rounding each step
  // may keep adding up to more than the 70 bins done allow the whole
  envelope::SignRequest dlmm_open_resumed_early;
  std::function<offline::Policy(const envelope::SignRequest&)> policy_for;
  // The keys the honest review of a request's first step binds (every source but route,
  // passed on and unbound), in the order they first appear.
  std::function<std::vector<PublicKey>(const envelope::SignRequest&)> bound_keys;
  PublicKey manager;
  PublicKey stranger;  // a key the offline half holds nothing for
  std::int64_t now = 0;
};

// `q` as a Keystone sol-sign-request would arrive: the same bytes, no action, no build request,
// no vault named, no hints, no deadline (offline/src/signing.cpp makes the same of one).
envelope::SignRequest as_keystone(const envelope::SignRequest& q);

// Every transaction-level, intent, deadline and hint attack of the threat model.
std::vector<HostileCase> hostile_cases(const HonestBuilds& honest);

}  // namespace airlock::adversarial
