// reconcile: the offline audit log's signatures joined with the journal. Built from real
// records: an audit export written line by line as the offline half writes it (formats'
// audit_record) and a journal on disk holding real signed transactions.
#include <cctype>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/ed25519.h>
#include <airlock/common/secret.h>
#include <airlock/common/transaction.h>
#include <airlock/formats/audit_record.h>
#include <airlock/formats/keystone.h>
#include <airlock/online/reconcile.h>

#include "support/helpers.h"

using ::testing::HasSubstr;

namespace airlock::online {
namespace {

class Reconcile : public ::testing::Test {
 protected:
  void SetUp() override {
    auto seed = SecretBytes::allocate(32);
    ASSERT_TRUE(seed.ok());
    for (std::size_t i = 0; i < 32; ++i) seed->bytes()[i] = static_cast<std::uint8_t>(i + 1);
    auto key = Keypair::from_seed(seed->bytes());
    ASSERT_TRUE(key.ok());
    manager_.emplace(std::move(key).value());
    auto j = Journal::open(dir_.file("journal.sqlite"));
    ASSERT_TRUE(j.ok()) << j.error().to_string();
    journal_.emplace(std::move(j).value());
    auto run = journal_->begin_run("http://127.0.0.1:1/api/external/v1", "vault/update", {}, 100);
    ASSERT_TRUE(run.ok());
    run_ = *run;
  }

  // A transaction the manager signed (each `n` a different blockhash, so a different
  // signature).
  Transaction signed_tx(int n) {
    Message m;
    m.header.num_required_signatures = 1;
    m.header.num_readonly_unsigned = 1;
    m.static_keys = {manager_->public_key(), PublicKey{}};
    m.recent_blockhash.bytes[0] = static_cast<std::uint8_t>(n);
    m.instructions.push_back({1, {0}, Bytes{2, 0, 0, 0}});
    Transaction tx = unsigned_transaction(m);
    EXPECT_TRUE(sign_transaction(tx, *manager_).ok());
    return tx;
  }

  // The offline half's entry for a signed round.
  void log_signed(const std::vector<Transaction>& txs,
                  audit::Decision decision = audit::Decision::kSigned,
                  const std::string& action = "vault/update") {
    audit::Entry e;
    e.seq = entries_.size() + 1;
    e.time = 100 + static_cast<std::int64_t>(e.seq);
    e.prev = entries_.empty() ? Hash{} : entries_.back().hash;
    e.request_id[0] = static_cast<std::uint8_t>(e.seq);
    e.action = action;
    e.manager = manager_->public_key();
    e.decision = decision;
    for (const auto& tx : txs) {
      e.message_hashes.push_back(Hash{});
      e.signatures.push_back(tx.signatures.at(0));
    }
    e.hash = audit::chain_hash(e.prev, audit::body_text(e));
    entries_.push_back(e);
  }

  std::string export_text() const {
    std::string text;
    for (const auto& e : entries_) text += audit::line_of(e) + "\n";
    return text;
  }

  // The journal's record of a step this online half signed in.
  void journal_step(const Transaction& tx, const char* status, int number,
                    const std::string& receipt = "") {
    JournalStep st;
    st.run_id = run_;
    st.round = 1;
    st.step = number;
    st.action = "vault/update";
    st.ticket = "tkt_" + std::to_string(number);
    st.built_at = 100;
    st.transaction = to_base64(serialize_transaction(tx));
    st.signature = to_base58(tx.signatures.at(0));
    st.status = status;
    st.updated_at = 101;
    std::vector<JournalStep> steps = {st};
    ASSERT_TRUE(journal_->add_signed_steps(steps).ok());
    if (!receipt.empty()) {  // sent: the send's answer is recorded as its own update
      steps[0].receipt = receipt;
      ASSERT_TRUE(journal_->update_step(steps[0]).ok());
    }
  }

  Result<ReconcileReport> run(const ReconcileOptions& options = {}) {
    return reconcile(export_text(), "export.jsonl", *journal_, options, 1000);
  }

  static const SignatureAccount* find(const ReconcileReport& r, const Transaction& tx) {
    for (const auto& a : r.signatures)
      if (a.signature == to_base58(tx.signatures.at(0))) return &a;
    return nullptr;
  }

  airlock::test::ScratchDir dir_{"airlock-reconcile"};
  std::optional<Keypair> manager_;
  std::optional<Journal> journal_;
  std::int64_t run_ = 0;
  std::vector<audit::Entry> entries_;
};

TEST_F(Reconcile, EverySignatureTheJournalSettledIsAccounted) {
  const auto landed = signed_tx(1), failed = signed_tx(2), expired = signed_tx(3);
  log_signed({landed, failed});
  log_signed({expired});
  log_signed({landed}, audit::Decision::kReissued);  // the same answer again: counted once
  journal_step(landed, step_status::kConfirmed, 1);
  journal_step(failed, step_status::kFailed, 2);
  journal_step(expired, step_status::kExpired, 3);
  auto r = run();
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(r->accounted());
  EXPECT_EQ(r->entries, 3U);
  ASSERT_EQ(r->signatures.size(), 3U);
  EXPECT_EQ(find(*r, landed)->standing, Standing::kLanded);
  EXPECT_EQ(find(*r, failed)->standing, Standing::kFailed);
  EXPECT_EQ(find(*r, expired)->standing, Standing::kExpired);
}

TEST_F(Reconcile, ASignatureAnsweredButNeverSentHereIsNamed) {
  const auto sent = signed_tx(1), elsewhere = signed_tx(2);
  log_signed({sent});
  log_signed({elsewhere});
  journal_step(sent, step_status::kConfirmed, 1);
  auto r = run();
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->accounted());
  ASSERT_NE(find(*r, elsewhere), nullptr);
  EXPECT_EQ(find(*r, elsewhere)->standing, Standing::kNotSentHere);
  EXPECT_EQ(find(*r, elsewhere)->entry, 2U);
  // The node says it is on chain: someone sent the answer this online half never had.
  ReconcileOptions options;
  options.on_chain = [&](const std::string& s) -> Result<bool> {
    return s == to_base58(elsewhere.signatures[0]);
  };
  auto with_chain = run(options);
  ASSERT_TRUE(with_chain.ok());
  EXPECT_TRUE(find(*with_chain, elsewhere)->landed_elsewhere);
  EXPECT_THAT(find(*with_chain, elsewhere)->detail, HasSubstr("IS on chain"));
}

// Issue 17: a log begun by `log start --continue-from` opens with its started entry and the
// old log's signatures of the last day, carried. Those are signatures the key made: accounted
// like signed ones (landed here, or named when this online half never sent them).
TEST_F(Reconcile, SignaturesCarriedIntoANewLogAreAccountedLikeSignedOnes) {
  audit::Entry started;
  started.seq = 1;
  started.time = 200;
  started.decision = audit::Decision::kStarted;
  started.start = audit::Start{audit::Start::Previous::kContinued, {}, 9, std::nullopt};
  started.hash = audit::chain_hash(started.prev, audit::body_text(started));
  entries_.push_back(started);
  const auto carried = signed_tx(1), carried_elsewhere = signed_tx(2), signed_here = signed_tx(3);
  log_signed({carried}, audit::Decision::kCarried);
  log_signed({carried_elsewhere}, audit::Decision::kCarried);
  log_signed({signed_here});
  journal_step(carried, step_status::kConfirmed, 1);
  journal_step(signed_here, step_status::kConfirmed, 2);
  auto r = run();
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->entries, 4U);
  ASSERT_EQ(r->signatures.size(), 3U);
  EXPECT_EQ(find(*r, carried)->standing, Standing::kLanded);
  EXPECT_EQ(find(*r, signed_here)->standing, Standing::kLanded);
  ASSERT_NE(find(*r, carried_elsewhere), nullptr);
  EXPECT_EQ(find(*r, carried_elsewhere)->standing, Standing::kNotSentHere);
  EXPECT_FALSE(r->accounted());
}

// Issue 17, after an independent attack: a change of log (`log start --continue-from`) made
// every later reconcile name the old log's heads and steps as missing, a false alarm on every
// rotation. The exports of one chain are given oldest first and read as one log; each must
// continue the one before (the old one closed naming the new one, the new one naming the old
// one's head), and the newest must end at the head shown.
TEST_F(Reconcile, TheExportsOfAChainOfLogsAreReadAsOne) {
  const auto before_change = signed_tx(1), carried_over = signed_tx(2), after_change = signed_tx(3);
  log_signed({before_change});
  log_signed({carried_over});
  journal_step(before_change, step_status::kConfirmed, 1);
  journal_step(carried_over, step_status::kConfirmed, 2);
  journal_step(after_change, step_status::kConfirmed, 3);
  ASSERT_TRUE(journal_
                  ->event(run_, "response",
                          "audit head " + to_hex(entries_.back().hash.view()) + " (signed)", 103)
                  .ok());
  const Hash old_head = entries_.back().hash;
  std::vector<audit::Entry> old_log = entries_;

  // The new log, as `log start --continue-from` begins it at 200 (both old entries are of its
  // last day, so both are carried), then one signed since.
  entries_ = audit::begun_entries(audit::Start::Previous::kContinued, old_log, 200);
  ASSERT_EQ(entries_.size(), 3U);
  const Hash begun = entries_.back().hash;
  log_signed({after_change});
  const std::string new_text = export_text();
  const Hash new_head = entries_.back().hash;

  // The old log, closing and closed naming the new one.
  audit::Entry closing;
  closing.time = 200;
  closing.decision = audit::Decision::kClosing;
  closing.successor = begun;
  closing.successor_file = "/var/lib/airlock/new.log";
  audit::Entry closed = closing;
  closed.time = 201;
  closed.decision = audit::Decision::kClosed;
  closed.successor_file.reset();
  old_log.push_back(closing);
  old_log.push_back(closed);
  audit::chain(old_log);
  std::string old_text;
  for (const auto& e : old_log) old_text += audit::line_of(e) + "\n";

  ReconcileOptions options;
  options.expected_head = new_head;
  auto alone = reconcile(new_text, "new.jsonl", *journal_, options, 1000);
  ASSERT_TRUE(alone.ok()) << alone.error().to_string();
  EXPECT_FALSE(alone->accounted()) << "the new log alone lacks the old one's steps and heads";
  // Even with no step or head of the old log's in the journal, the new log alone is not the
  // whole account (found by an independent review: it said "every signature is accounted for").
  EXPECT_EQ(alone->missing_earlier_log, to_hex(old_head.view()) + " (2 entries)");

  auto both =
      reconcile({{old_text, "old.jsonl"}, {new_text, "new.jsonl"}}, *journal_, options, 1000);
  ASSERT_TRUE(both.ok()) << both.error().to_string();
  EXPECT_TRUE(both->accounted()) << "journal only: " << both->journal_only.size()
                                 << ", heads missing: " << both->missing_heads.size();
  EXPECT_EQ(both->signatures.size(), 3U);
  EXPECT_EQ(both->entries, 8U);
  EXPECT_TRUE(both->missing_earlier_log.empty());
  // Each entry number is its own log's, so the export is named with it.
  EXPECT_EQ(find(*both, before_change)->export_name, "old.jsonl");
  EXPECT_EQ(find(*both, carried_over)->export_name, "old.jsonl") << "the first that holds it";
  EXPECT_EQ(find(*both, after_change)->export_name, "new.jsonl");
  EXPECT_EQ(find(*both, after_change)->entry, 4U);

  // Out of order, or a link missing: refused, naming the export.
  auto reversed =
      reconcile({{new_text, "new.jsonl"}, {old_text, "old.jsonl"}}, *journal_, options, 1000);
  ASSERT_FALSE(reversed.ok());
  EXPECT_THAT(reversed.error().message(),
              HasSubstr("audit export old.jsonl does not continue the export before it"));
  std::string unclosed;
  for (std::size_t i = 0; i + 1 < old_log.size(); ++i)
    unclosed += audit::line_of(old_log[i]) + "\n";
  auto open_old =
      reconcile({{unclosed, "old.jsonl"}, {new_text, "new.jsonl"}}, *journal_, options, 1000);
  ASSERT_FALSE(open_old.ok());
  EXPECT_THAT(open_old.error().message(),
              HasSubstr("the earlier log does not end with the entry that closed it"));
}

TEST_F(Reconcile, ASentStepWhoseReceiptWasNeverReadIsSettledByTheNode) {
  const auto pending = signed_tx(1), sending = signed_tx(2);
  log_signed({pending, sending});
  journal_step(pending, step_status::kPending, 1);
  journal_step(sending, step_status::kSending, 2);
  auto bare = run();
  ASSERT_TRUE(bare.ok());
  EXPECT_TRUE(bare->accounted()) << "in flight from here: the journal accounts for them";
  EXPECT_EQ(find(*bare, pending)->standing, Standing::kUnknown);
  std::vector<std::string> asked;
  ReconcileOptions options;
  options.prove = [&](const ChainQuestion& q) -> Result<ChainProof> {
    asked.push_back(q.signature);
    EXPECT_EQ(q.elapsed_seconds, 900);  // from the build at 100 to now at 1000
    ChainProof p;
    p.outcome = q.signature == to_base58(pending.signatures[0]) ? ChainProof::Outcome::kLanded
                                                                : ChainProof::Outcome::kNeverLands;
    p.detail = "proof";
    return p;
  };
  auto proven = run(options);
  ASSERT_TRUE(proven.ok());
  EXPECT_EQ(asked.size(), 2U);
  EXPECT_EQ(find(*proven, pending)->standing, Standing::kLanded);
  EXPECT_EQ(find(*proven, sending)->standing, Standing::kExpired);
}

TEST_F(Reconcile, AReceiptTheJournalLeftUnreadIsReadFromTheApi) {
  const auto landed = signed_tx(1), failed = signed_tx(2), said_expired = signed_tx(3),
             unanswered = signed_tx(4), no_receipt = signed_tx(5);
  log_signed({landed, failed, said_expired, unanswered, no_receipt});
  journal_step(landed, step_status::kPending, 1, "rcpt_1");
  journal_step(failed, step_status::kUnknown, 2, "rcpt_2");
  journal_step(said_expired, step_status::kPending, 3, "rcpt_3");
  journal_step(unanswered, step_status::kPending, 4, "rcpt_4");
  journal_step(no_receipt, step_status::kSending, 5);
  std::vector<std::string> asked;
  ReconcileOptions options;
  options.receipt_status = [&](const std::string& receipt) -> Result<std::string> {
    asked.push_back(receipt);
    if (receipt == "rcpt_1") return std::string("confirmed");
    if (receipt == "rcpt_2") return std::string("failed");
    if (receipt == "rcpt_3") return std::string("expired");
    return Error(ErrorCode::kIo, "HTTP 503");
  };
  auto r = run(options);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_THAT(asked, testing::ElementsAre("rcpt_1", "rcpt_2", "rcpt_3", "rcpt_4"))
      << "a step sent without a receipt has none to read";
  EXPECT_EQ(find(*r, landed)->standing, Standing::kLanded);
  EXPECT_THAT(find(*r, landed)->detail, HasSubstr("the API's receipt rcpt_1: confirmed"));
  EXPECT_EQ(find(*r, failed)->standing, Standing::kFailed);
  // The API's expired is not a proof that it never lands: only the node settles that.
  EXPECT_EQ(find(*r, said_expired)->standing, Standing::kUnknown);
  EXPECT_THAT(find(*r, said_expired)->detail, HasSubstr("rcpt_3: expired"));
  EXPECT_EQ(find(*r, unanswered)->standing, Standing::kUnknown);
  EXPECT_THAT(find(*r, unanswered)->detail, HasSubstr("could not be asked about receipt rcpt_4"));
  EXPECT_EQ(find(*r, no_receipt)->standing, Standing::kUnknown);
  // Then the node settles what the receipts left open.
  options.prove = [&](const ChainQuestion&) -> Result<ChainProof> {
    ChainProof p;
    p.outcome = ChainProof::Outcome::kNeverLands;
    p.detail = "blockhash expired";
    return p;
  };
  auto proven = run(options);
  ASSERT_TRUE(proven.ok());
  EXPECT_EQ(find(*proven, landed)->standing, Standing::kLanded) << "the receipt settled it";
  EXPECT_EQ(find(*proven, said_expired)->standing, Standing::kExpired);
  EXPECT_THAT(find(*proven, said_expired)->detail, HasSubstr("rcpt_3: expired; the node"));
}

TEST_F(Reconcile, AJournalStepTheLogDoesNotHoldAndAMissingHeadAreNamed) {
  const auto logged = signed_tx(1), unlogged = signed_tx(2);
  log_signed({logged});
  journal_step(logged, step_status::kConfirmed, 1);
  journal_step(unlogged, step_status::kConfirmed, 2);
  ASSERT_TRUE(journal_
                  ->event(run_, "response",
                          "audit head " + to_hex(entries_.back().hash.view()) + " (signed)", 102)
                  .ok());
  auto r = run();
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->accounted());
  ASSERT_EQ(r->journal_only.size(), 1U);
  EXPECT_EQ(r->journal_only[0], to_base58(unlogged.signatures[0]));
  EXPECT_TRUE(r->missing_heads.empty()) << "the head the response carried is in the export";
  // A later answer whose head the export does not reach: the export is stale or was cut.
  ASSERT_TRUE(
      journal_->event(run_, "response", "audit head " + std::string(64, 'a') + " (signed)", 103)
          .ok());
  auto later = run();
  ASSERT_TRUE(later.ok());
  ASSERT_EQ(later->missing_heads.size(), 1U);
  EXPECT_EQ(later->missing_heads[0], std::string(64, 'a'));
}

TEST_F(Reconcile, AKeystoneAnswerIsAccountedOnlyWhenAccepted) {
  const auto keystone = signed_tx(1);
  log_signed({keystone}, audit::Decision::kSigned, std::string(keystone::kSignRequestAction));
  auto plain = run();
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->accounted());
  ReconcileOptions options;
  options.accept_keystone = true;
  auto accepted = run(options);
  ASSERT_TRUE(accepted.ok());
  EXPECT_TRUE(accepted->accounted());
  EXPECT_EQ(find(*accepted, keystone)->standing, Standing::kOtherWallet);
}

TEST_F(Reconcile, AnExportThatDoesNotVerifyIsRefused) {
  const auto a = signed_tx(1), b = signed_tx(2);
  log_signed({a});
  log_signed({b});
  std::string text = export_text();
  // Drop the first line: what is left starts at seq 2.
  const std::string cut = text.substr(text.find('\n') + 1);
  auto r = reconcile(cut, "export.jsonl", *journal_, {}, 1000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), audit::errors::kBroken);
  // An edited signature breaks its line's hash.
  std::string edited = text;
  const auto at = edited.find(to_base58(b.signatures[0]));
  ASSERT_NE(at, std::string::npos);
  edited[at] = edited[at] == '2' ? '3' : '2';
  auto e = reconcile(edited, "export.jsonl", *journal_, {}, 1000);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code(), audit::errors::kBroken);
}

// The head read off the offline screen anchors the export: a tail cut off (which still chains)
// or another chain is refused. Found by an independent review: without it, cutting the entries
// after the last answer this online half saw hid a signature answered elsewhere.
TEST_F(Reconcile, AnExportThatDoesNotEndAtTheShownHeadIsRefused) {
  const auto sent = signed_tx(1), elsewhere = signed_tx(2);
  log_signed({sent});
  log_signed({elsewhere});
  journal_step(sent, step_status::kConfirmed, 1);
  const Hash shown_hash = entries_.back().hash;
  const std::string shown = to_hex(shown_hash.view());
  const std::string whole = export_text();
  const std::string cut = whole.substr(0, whole.find('\n') + 1);  // the first entry alone
  ReconcileOptions options;
  options.expected_head = shown_hash;
  auto r = reconcile(cut, "export.jsonl", *journal_, options, 1000);
  ASSERT_FALSE(r.ok()) << "a cut export was reconciled";
  EXPECT_EQ(r.error().code(), audit::errors::kBroken);
  EXPECT_THAT(r.error().message(), HasSubstr(shown));
  // Without the anchor the cut export looks complete: exactly what the head is for.
  auto unanchored = reconcile(cut, "export.jsonl", *journal_, {}, 1000);
  ASSERT_TRUE(unanchored.ok());
  EXPECT_TRUE(unanchored->accounted());
  // The whole export, at the shown head: the hidden signature is named.
  auto whole_report = reconcile(whole, "export.jsonl", *journal_, options, 1000);
  ASSERT_TRUE(whole_report.ok()) << whole_report.error().to_string();
  EXPECT_FALSE(whole_report->accounted());
  EXPECT_EQ(find(*whole_report, elsewhere)->standing, Standing::kNotSentHere);
}

// The head as the operator types it: either case is the same head; anything but 64 hex digits
// is a usage error naming the option and the rule, refused before the export or the journal
// is read.
TEST_F(Reconcile, TheCommandTakesTheHeadInEitherCaseAndRefusesAnythingElseByRule) {
  const auto sent = signed_tx(1);
  log_signed({sent});
  journal_step(sent, step_status::kConfirmed, 1);
  std::ofstream(dir_.file("export.jsonl")) << export_text();
  journal_.reset();  // the command takes the journal's lock
  std::string head = to_hex(entries_.back().hash.view());
  const auto command = [&](const std::string& head_arg, const std::string& export_file) {
    return airlock::test::run_command(std::string(AIRLOCK_ONLINE_BIN) +
                                      " reconcile --audit-export " + export_file + " --journal " +
                                      dir_.file("journal.sqlite") + " --head '" + head_arg + "'");
  };
  for (char& c : head) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const auto upper = command(head, dir_.file("export.jsonl"));
  EXPECT_EQ(upper.exit_code, 0) << upper.output;
  const struct {
    std::string head, rule;
  } bad[] = {
      {"00ff", "got 4 characters"},
      {head + "0", "got 65 characters"},
      {"", "got 0 characters"},
      {head.substr(0, 4) + "g" + head.substr(5), "character 5 is not a hex digit"},
      {" " + head.substr(1), "character 1 is not a hex digit"},
  };
  // Two digits off the export's head: a typing mistake, said so, not a cut log.
  std::string typo = to_hex(entries_.back().hash.view());
  typo[3] = typo[3] == '0' ? '1' : '0';
  typo[63] = typo[63] == 'a' ? 'b' : 'a';
  const auto mistyped = command(typo, dir_.file("export.jsonl"));
  EXPECT_EQ(mistyped.exit_code, 2) << mistyped.output;
  EXPECT_THAT(mistyped.output, ::testing::HasSubstr("in only 2 of its 64 digits: most likely "
                                                    "mistyped off the offline screen"));
  EXPECT_THAT(mistyped.output, ::testing::Not(::testing::HasSubstr("cut from its end")));
  for (const auto& b : bad) {
    // A missing export: the head is refused first, as usage, whatever else is wrong.
    const auto r = command(b.head, dir_.file("missing.jsonl"));
    EXPECT_EQ(r.exit_code, 2) << b.head << "\n" << r.output;
    EXPECT_THAT(r.output, ::testing::HasSubstr("usage.invalid: --head: must be the 64 hex digits"));
    EXPECT_THAT(r.output, ::testing::HasSubstr(b.rule)) << b.head;
  }
}

// The status reply is the API's: only the words the spec names for a receipt are taken, and an
// error reply is said with its code.
TEST(ReceiptStatus, OnlyTheSpecsWordsAreTakenFromTheReply) {
  Reply reply;
  reply.status = 200;
  for (const char* word : {"pending", "confirmed", "failed", "expired", "unknown"}) {
    reply.body = {{"status", word}};
    auto read = receipt_status_of(reply, "rcpt_1");
    ASSERT_TRUE(read.ok()) << word;
    EXPECT_EQ(*read, word);
  }
  for (const json& odd : {json("landed"), json("Confirmed"), json(""), json(1), json(nullptr)}) {
    reply.body = {{"status", odd}};
    auto read = receipt_status_of(reply, "rcpt_1");
    ASSERT_FALSE(read.ok()) << odd.dump();
    EXPECT_THAT(read.error().message(), HasSubstr("status of receipt rcpt_1: '"));
    EXPECT_THAT(read.error().message(), HasSubstr("is not a receipt status the spec names"));
  }
  reply.body = json::object();
  EXPECT_FALSE(receipt_status_of(reply, "rcpt_1").ok()) << "no status at all";
  reply.status = 404;
  reply.failure = ApiFailure{404, "NotFound", "no such receipt"};
  auto failed = receipt_status_of(reply, "rcpt_9");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message(),
            "status of receipt rcpt_9: HTTP 404 NotFound: no such receipt");
}

}  // namespace
}  // namespace airlock::online
