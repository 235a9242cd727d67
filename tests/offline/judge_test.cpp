// offline::judge: the one place sign and review decide what becomes of an examined request, in
// its order (the log first, then refusals, then an approval, then auto_approve, else ask).
#include <gmock/gmock.h>

#include <airlock/common/hash.h>
#include <airlock/formats/envelope.h>
#include <airlock/offline/signing.h>

namespace airlock::offline {
namespace {

using ::testing::HasSubstr;

class Judge : public ::testing::Test {
 protected:
  Judge() {
    q.request_id.fill(7);
    q.created_at = 1000;
    q.deadline = 1090;
    q.manager.bytes.fill(1);
    q.vault.bytes.fill(2);
    q.action = "aggregator/swap";
    q.intent_json = R"({"amount":"5"})";
    envelope::Step step;
    step.transaction = Bytes{1, 2, 3};  // unparsed: hashed as it is
    q.steps.push_back(step);
    policy.bytes.fill(9);
  }

  AuditEntry signed_entry(std::uint64_t seq, Bytes transaction) const {
    AuditEntry e;
    e.seq = seq;
    e.request_id = q.request_id;
    e.action = q.action;
    e.manager = q.manager;
    e.vault = q.vault;
    e.decision = Decision::kSigned;
    e.message_hashes = {sha256(transaction)};
    return e;
  }

  AuditEntry approved_entry(std::uint64_t seq) const {
    AuditEntry e;
    e.seq = seq;
    e.request_id.fill(static_cast<std::uint8_t>(seq));
    e.action = q.action;
    e.manager = q.manager;
    e.vault = q.vault;
    e.decision = Decision::kApproved;
    e.approved = AuditEntry::Approved{envelope::intent_hash(q), 2000, policy};
    return e;
  }

  Judgement judge_now(const Review& review, const std::vector<AuditEntry>& log) const {
    return judge(q, review, log, policy, 1010);
  }

  envelope::SignRequest q;
  Hash policy;
};

Review refusing() {
  Review r;
  r.refusals.emplace_back(FindingCode::kPolicyDeadlinePassed, "late");
  return r;
}

Review warning() {
  Review r;
  r.warnings.emplace_back(FindingCode::kWarnUnverifiedLookupTable, "a table");
  return r;
}

TEST_F(Judge, TheSameTransactionsSignedBeforeAreReissuedWhateverTheReviewSays) {
  const std::vector<AuditEntry> log = {signed_entry(1, {1, 2, 3})};
  const Judgement j = judge_now(refusing(), log);
  EXPECT_EQ(j.verdict, Verdict::kReissued);
  EXPECT_EQ(j.replay.earlier, &log[0]);
  EXPECT_FALSE(j.log_refusal);
}

TEST_F(Judge, OtherTransactionsUnderASignedIdAreRefusedByTheLogBeforeAnyApproval) {
  const std::vector<AuditEntry> log = {approved_entry(1), signed_entry(2, {9})};
  Review review;
  review.auto_approvable = true;
  const Judgement j = judge_now(review, log);
  EXPECT_EQ(j.verdict, Verdict::kRefused);
  ASSERT_TRUE(j.log_refusal);
  EXPECT_EQ(j.log_refusal->code, "policy.replay");
  EXPECT_THAT(j.log_refusal->reason, HasSubstr("audit entry 2"));
  EXPECT_EQ(j.approval, nullptr);
}

TEST_F(Judge, AReviewsRefusalRefusesEvenUnderAnApproval) {
  const std::vector<AuditEntry> log = {approved_entry(1)};
  const Judgement j = judge_now(refusing(), log);
  EXPECT_EQ(j.verdict, Verdict::kRefused);
  EXPECT_FALSE(j.log_refusal);
  EXPECT_EQ(j.approval, nullptr);
}

TEST_F(Judge, AnApprovalSignsWithoutAQuestionOnlyWhenNothingWarns) {
  const std::vector<AuditEntry> log = {approved_entry(1)};
  const Judgement clean = judge_now(Review{}, log);
  EXPECT_EQ(clean.verdict, Verdict::kUnderApproval);
  EXPECT_EQ(clean.approval, &log[0]);
  const Judgement warned = judge_now(warning(), log);
  EXPECT_EQ(warned.verdict, Verdict::kAsks);
  EXPECT_EQ(warned.approval, nullptr);
  // An approval under another policy is none.
  const Judgement other = judge(q, Review{}, log, sha256(Bytes{1}), 1010);
  EXPECT_EQ(other.verdict, Verdict::kAsks);
}

TEST_F(Judge, AutoApproveIsTheVerdictOnlyWhereTheReviewAllowsItElseAsk) {
  Review review;
  review.auto_approvable = true;
  EXPECT_EQ(judge_now(review, {}).verdict, Verdict::kAutomatic);
  EXPECT_EQ(judge_now(Review{}, {}).verdict, Verdict::kAsks);
}

TEST_F(Judge, AnApprovalRequestIsAskedOnceAndNeverSignedWithoutAQuestion) {
  q.approval = true;
  q.steps.clear();
  Review review;
  review.auto_approvable = true;
  EXPECT_EQ(judge_now(review, {}).verdict, Verdict::kAsks);
  EXPECT_EQ(judge_now(refusing(), {}).verdict, Verdict::kRefused);
  AuditEntry declined;
  declined.seq = 1;
  declined.request_id = q.request_id;
  declined.decision = Decision::kDeclined;
  const Judgement again = judge_now(review, {declined});
  EXPECT_EQ(again.verdict, Verdict::kRefused);
  ASSERT_TRUE(again.log_refusal);
  EXPECT_THAT(again.log_refusal->reason, HasSubstr("already decided (audit entry 1)"));
}

}  // namespace
}  // namespace airlock::offline
