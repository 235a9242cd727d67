// The limits over rolling windows, counted from a log made here: the clock, Keystone requests,
// and moves whose amount was not stated (issue 17, and the findings of an independent review).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/offline/limits.h>

using ::testing::HasSubstr;

namespace airlock::offline {
namespace {

constexpr const char* kUsdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

Policy policy_with(const std::string& limits) {
  auto p = parse_policy(std::string("version = 1\nmanager = "
                                    "\"AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax\"\n"
                                    "[[tokens]]\nmint = \"") +
                        kUsdc + "\"\nsymbol = \"USDC\"\ndecimals = 6\n" + limits);
  EXPECT_TRUE(p.ok()) << p.error().to_string();
  return p.ok() ? *p : Policy{};
}

AuditEntry signed_at(std::int64_t time, const std::string& action,
                     std::vector<audit::Outflow> outflows = {}) {
  AuditEntry e;
  e.seq = static_cast<std::uint64_t>(time);
  e.time = time;
  e.action = action;
  e.decision = audit::Decision::kSigned;
  e.outflows = std::move(outflows);
  return e;
}

envelope::SignRequest request_for(const std::string& action) {
  envelope::SignRequest q;
  q.action = action;
  return q;
}

std::string reasons(const LimitsVerdict& v) {
  std::string out;
  for (const auto& f : v.refusals) out += f.code + ": " + f.message + "\n";
  return out;
}

const PublicKey usdc = public_key_from_base58(kUsdc).value();

// The latest entry, not the last line, places the clock: an entry written while the clock was
// behind moved the check back with it, and the next request counted an empty window.
TEST(Limits, AClockBehindAnyEntryRefusesEvenAfterAnEntryWrittenBehind) {
  const auto policy = policy_with("[limits.tokens.USDC]\nper_day = \"10\"\n");
  AuditEntry refused_behind = signed_at(100, "aggregator/swap");
  refused_behind.decision = audit::Decision::kRefused;
  const std::vector<AuditEntry> log = {signed_at(100'000, "aggregator/swap", {{usdc, 5'000'000}}),
                                       refused_behind};
  const auto v = check_limits(policy, request_for("aggregator/swap"), {}, &log, 500);
  EXPECT_THAT(reasons(v), HasSubstr("policy.limit: the offline clock reads 500, earlier than "
                                    "the audit log's latest entry (100000)"));
  const auto fine = check_limits(policy, request_for("aggregator/swap"), {}, &log, 100'010);
  EXPECT_TRUE(fine.refusals.empty()) << reasons(fine);
}

// A Keystone request names no action and may carry any vault instruction: it counts against
// every action's cap, and a Keystone entry in the log counts for every action.
TEST(Limits, AKeystoneRequestCountsAgainstEveryActionsCap) {
  const auto policy = policy_with("[limits.actions.\"aggregator/swap\"]\nrounds_per_day = 1\n");
  const std::vector<AuditEntry> swapped = {signed_at(1000, "aggregator/swap")};
  const auto keystone =
      check_limits(policy, request_for(std::string(kKeystoneAction)), {}, &swapped, 2000);
  EXPECT_THAT(reasons(keystone),
              HasSubstr("signed aggregator/swap requests in the last day: 1 of 1 already signed"));
  const std::vector<AuditEntry> keystone_signed = {signed_at(1000, std::string(kKeystoneAction))};
  const auto swap =
      check_limits(policy, request_for("aggregator/swap"), {}, &keystone_signed, 2000);
  EXPECT_THAT(reasons(swap), HasSubstr("1 of 1 already signed"));
  const auto other = check_limits(policy, request_for("vault/update"), {}, &keystone_signed, 2000);
  EXPECT_TRUE(other.refusals.empty()) << reasons(other);
}

// A move whose amount the bytes did not state is recorded as such, and a token limit set later
// refuses to count it as nothing while it is in the window; so does an unknown move now.
TEST(Limits, AMoveWithoutAStatedAmountIsNeverCountedAsNothing) {
  const auto policy = policy_with("[limits.tokens.USDC]\nper_day = \"10\"\n");
  for (const audit::Outflow& recorded :
       {audit::Outflow{usdc, std::nullopt}, audit::Outflow{std::nullopt, std::nullopt}}) {
    const std::vector<AuditEntry> log = {signed_at(1000, "dlmm/zap-out", {recorded})};
    const auto v = check_limits(policy, request_for("aggregator/swap"), {}, &log, 2000);
    EXPECT_THAT(reasons(v), HasSubstr("audit entry 1000 moved an amount its bytes did not "
                                      "state; it leaves the window at 87400"));
    const auto later = check_limits(policy, request_for("aggregator/swap"), {}, &log, 87'401);
    EXPECT_TRUE(later.refusals.empty()) << reasons(later);
  }
  Outflows unknown_now;
  unknown_now.unknown.push_back({std::nullopt, "dlmm_limit_order_place, which moves tokens", 0});
  const std::vector<AuditEntry> empty;
  const auto v =
      check_limits(policy, request_for("dlmm/limit-order/place"), unknown_now, &empty, 2000);
  EXPECT_THAT(reasons(v), HasSubstr("USDC leaving the vault cannot be judged: step 1 is a "
                                    "dlmm_limit_order_place"));
}

}  // namespace
}  // namespace airlock::offline
