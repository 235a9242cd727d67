// Limits over rolling windows (docs/policy.md, "Caps over time"): how many requests may be signed,
// of any action or of one, and how much of a pinned token may leave the vault, in the last hour and
// the last day. A compromised online half can send a stream of requests each of which passes
// alone; these caps count them together, from the audit log this machine already holds and
// chains, so nothing but the log and the offline clock decides.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <airlock/formats/audit_record.h>
#include <airlock/formats/envelope.h>
#include <airlock/offline/audit.h>
#include <airlock/offline/policy.h>
#include <airlock/offline/review.h>

namespace airlock::offline {

inline constexpr std::int64_t kHourSeconds = 3600;
inline constexpr std::int64_t kDaySeconds = 86400;

// What a request would move out of the vault: for the instruction a descriptor binds as each
// step's own, the amounts its descriptor's `outflows` names (docs/descriptors.md), as the review
// read them (StepReview::amounts) in the unit of a mint account that is a static key of the
// message, or of token X or Y of a pool the policy pins. Moves no rule ties to a token and an
// amount are listed as unknown: an instruction whose descriptor states no outflows (a
// zap-out's swap, which spends what the position returns; a flip), a deposit into a pool the
// policy does not pin (only the online half says which tokens it holds), an amount whose unit
// came from a lookup table.
struct Outflows {
  std::vector<audit::Outflow> known;
  struct Unknown {
    std::optional<PublicKey> mint;
    std::string what;
    std::size_t step = 0;
  };
  std::vector<Unknown> unknown;
};
[[nodiscard]] Outflows outflows_of(const Review& review);

// The verdict of the policy's limits on one more signed request: refusals (policy.limit,
// naming the limit, the window's use and the request's share) and one line per limit for the
// summary ("USDC leaving the vault, last day: 3200 USDC of 10000 USDC (this request 500
// USDC)"). `log` is the audit log's entries, or null when there is none to count from: then
// every limit refuses, as does a clock that reads earlier than the log's latest entry, an
// entry in a window whose amounts were never recorded or not stated, and an unknown move
// that may be of a limited token. A Keystone request counts against every action's cap.
struct LimitsVerdict {
  std::vector<Finding> refusals;
  std::vector<std::string> lines;
};
[[nodiscard]] LimitsVerdict check_limits(const Policy& policy, const envelope::SignRequest& request,
                                         const Outflows& outflows,
                                         const std::vector<AuditEntry>* log, std::int64_t now);

}  // namespace airlock::offline
