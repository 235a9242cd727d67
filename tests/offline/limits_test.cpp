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

// A log begun by `log start --first` (it holds every signature the key made), then `entries`.
std::vector<AuditEntry> first_log(std::vector<AuditEntry> entries) {
  AuditEntry started;
  started.decision = audit::Decision::kStarted;
  started.start = audit::Start{};
  entries.insert(entries.begin(), started);
  return entries;
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
  const auto log =
      first_log({signed_at(100'000, "aggregator/swap", {{usdc, 5'000'000}}), refused_behind});
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
  const auto swapped = first_log({signed_at(1000, "aggregator/swap")});
  const auto keystone =
      check_limits(policy, request_for(std::string(kKeystoneAction)), {}, &swapped, 2000);
  EXPECT_THAT(reasons(keystone),
              HasSubstr("signed aggregator/swap requests in the last day: 1 of 1 already signed"));
  const auto keystone_signed = first_log({signed_at(1000, std::string(kKeystoneAction))});
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
    const auto log = first_log({signed_at(1000, "dlmm/zap-out", {recorded})});
    const auto v = check_limits(policy, request_for("aggregator/swap"), {}, &log, 2000);
    EXPECT_THAT(reasons(v), HasSubstr("audit entry 1000 moved an amount its bytes did not "
                                      "state; it leaves the window at 87400"));
    const auto later = check_limits(policy, request_for("aggregator/swap"), {}, &log, 87'401);
    EXPECT_TRUE(later.refusals.empty()) << reasons(later);
  }
  Outflows unknown_now;
  unknown_now.unknown.push_back({std::nullopt, "dlmm_limit_order_place, which moves tokens", 0});
  const auto empty = first_log({});
  const auto v =
      check_limits(policy, request_for("dlmm/limit-order/place"), unknown_now, &empty, 2000);
  EXPECT_THAT(reasons(v), HasSubstr("USDC leaving the vault cannot be judged: step 1 is a "
                                    "dlmm_limit_order_place"));
}

// A window that reaches back before the log held every signature is not counted as empty: a
// log begun by its first decision (what sign did before `log start`), one started after losing
// its predecessor, or an empty one. A log continued from another counts the entries carried
// over, and holds every signature as far back as the one before it did.
TEST(Limits, AWindowBeforeTheLogHeldEverySignatureIsNotCountedAsEmpty) {
  const auto policy =
      policy_with("[limits]\nrounds_per_hour = 5\n[limits.tokens.USDC]\nper_day = \"10\"\n");
  const auto swap = request_for("aggregator/swap");

  const std::vector<AuditEntry> begun_by_sign = {signed_at(1000, "aggregator/swap")};
  EXPECT_THAT(
      reasons(check_limits(policy, swap, {}, &begun_by_sign, 2000)),
      HasSubstr(
          "policy.limit: the last day cannot be counted: this audit log holds every "
          "signature only since 1970-01-01T00:16:40Z (the log was begun by its first decision"));
  EXPECT_TRUE(check_limits(policy, swap, {}, &begun_by_sign, 87'401).refusals.empty());

  const std::vector<AuditEntry> none;
  EXPECT_THAT(reasons(check_limits(policy, swap, {}, &none, 2000)),
              HasSubstr("only since 1970-01-01T00:33:20Z (the log is empty"));

  AuditEntry after_loss;
  after_loss.time = 1000;
  after_loss.decision = audit::Decision::kStarted;
  after_loss.start = audit::Start{audit::Start::Previous::kLost, {}, 0, 1000};
  const std::vector<AuditEntry> lost = {after_loss, signed_at(1500, "aggregator/swap")};
  EXPECT_THAT(reasons(check_limits(policy, swap, {}, &lost, 2000)),
              HasSubstr("(the log was started with --previous-lost); it can from "
                        "1970-01-02T00:16:40Z"));
  EXPECT_TRUE(check_limits(policy, swap, {}, &lost, 87'401).refusals.empty());

  // Continued from a log that held them only since its first decision: said as such (an
  // independent review found it called a lost log).
  AuditEntry from_young = after_loss;
  from_young.start = audit::Start{audit::Start::Previous::kContinued, {}, 3, 900};
  const std::vector<AuditEntry> continued_young = {from_young};
  EXPECT_THAT(
      reasons(check_limits(policy, swap, {}, &continued_young, 2000)),
      HasSubstr("only since 1970-01-01T00:15:00Z (the log it continues held them only since then"));
  // A log closed when it was continued counts nothing: what was signed since is elsewhere.
  AuditEntry closed;
  closed.time = 1800;
  closed.decision = audit::Decision::kClosed;
  closed.successor = Hash{};
  const auto closed_log = first_log({signed_at(1500, "aggregator/swap"), closed});
  EXPECT_THAT(reasons(check_limits(policy, swap, {}, &closed_log, 2000)),
              HasSubstr("the audit log was closed at 1800 and continued in another log"));
  // As does one whose continuation was begun and not finished (its closing entry last).
  AuditEntry closing = closed;
  closing.decision = audit::Decision::kClosing;
  closing.successor_file = "/next.log";
  const auto closing_log = first_log({signed_at(1500, "aggregator/swap"), closing});
  EXPECT_THAT(reasons(check_limits(policy, swap, {}, &closing_log, 2000)),
              HasSubstr("the audit log was closed at 1800 and continued in another log"));

  // Only an hour's limit: the log must hold the last hour, no more.
  const auto hourly = policy_with("[limits]\nrounds_per_hour = 5\n");
  EXPECT_TRUE(check_limits(hourly, swap, {}, &lost, 4601).refusals.empty());
  EXPECT_FALSE(check_limits(hourly, swap, {}, &lost, 4599).refusals.empty());

  // Continued: what was carried over counts, as signed entries do.
  AuditEntry continued = after_loss;
  continued.start = audit::Start{audit::Start::Previous::kContinued, {}, 7, std::nullopt};
  AuditEntry carried = signed_at(900, "aggregator/swap", {{usdc, 8'000'000}});
  carried.decision = audit::Decision::kCarried;
  const std::vector<AuditEntry> chained = {continued, carried};
  EXPECT_THAT(reasons(check_limits(policy, swap, {{{usdc, 3'000'000}}, {}}, &chained, 2000)),
              HasSubstr("USDC leaving the vault in the last day: 8 USDC of 10 USDC already "
                        "signed; this request moves 3 USDC"));
  EXPECT_TRUE(
      check_limits(policy, swap, {{{usdc, 2'000'000}}, {}}, &chained, 2000).refusals.empty());
}

}  // namespace
}  // namespace airlock::offline
