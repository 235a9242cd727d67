#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <airlock/common/bytes.h>
#include <airlock/common/transaction.h>
#include <airlock/formats/audit_record.h>
#include <airlock/formats/json_fields.h>
#include <airlock/formats/keystone.h>
#include <airlock/online/reconcile.h>
#include <airlock/online/sender.h>

namespace airlock::online {

const char* standing_name(Standing s) noexcept {
  switch (s) {
    case Standing::kLanded:
      return "landed";
    case Standing::kFailed:
      return "failed";
    case Standing::kExpired:
      return "expired";
    case Standing::kUnknown:
      return "unknown";
    case Standing::kNotSentHere:
      return "not sent by this online half";
    case Standing::kOtherWallet:
      return "answered to another wallet (Keystone)";
  }
  return "unknown";
}

bool ReconcileReport::accounted() const {
  return journal_only.empty() && missing_heads.empty() && missing_earlier_log.empty() &&
         std::none_of(signatures.begin(), signatures.end(), [](const SignatureAccount& a) {
           return a.standing == Standing::kNotSentHere;
         });
}

namespace {

// The standing the journal's own record gives a step, when it is final.
std::optional<Standing> settled(const JournalStep& st) {
  if (st.status == step_status::kConfirmed) return Standing::kLanded;
  if (st.status == step_status::kFailed) return Standing::kFailed;
  if (st.status == step_status::kExpired) return Standing::kExpired;
  return std::nullopt;
}

// A step the journal leaves open (sending, pending, unknown): its receipt as the API reads it,
// then the node's proof. Unsettled, it stays unknown, with what each said.
void settle_open(const JournalStep& st, const ReconcileOptions& options, std::int64_t now,
                 SignatureAccount& a) {
  a.standing = Standing::kUnknown;
  std::string said = "journal: " + st.status;
  if (!st.receipt.empty() && options.receipt_status) {
    auto polled = options.receipt_status(st.receipt);
    if (!polled.ok()) {
      said += "; the API could not be asked about receipt " + st.receipt + ": " +
              polled.error().message();
    } else if (*polled == step_status::kConfirmed || *polled == step_status::kFailed) {
      a.standing = *polled == step_status::kConfirmed ? Standing::kLanded : Standing::kFailed;
      a.detail = said + "; the API's receipt " + st.receipt + ": " + *polled +
                 " (airlock-online resume records it in the journal)";
      return;
    } else {
      said += "; the API's receipt " + st.receipt + ": " + *polled;
    }
  }
  if (!options.prove) {
    a.detail = said + " (give --rpc to settle it on chain)";
    return;
  }
  auto question = chain_question(st, now, options.boot ? options.boot() : std::nullopt);
  auto proof = question.ok() ? options.prove(*question) : Result<ChainProof>(question.error());
  if (!proof.ok()) {
    a.detail = said + "; the node could not settle it: " + proof.error().message();
    return;
  }
  switch (proof->outcome) {
    case ChainProof::Outcome::kLanded:
      a.standing = Standing::kLanded;
      break;
    case ChainProof::Outcome::kLandedFailed:
      a.standing = Standing::kFailed;
      break;
    case ChainProof::Outcome::kNeverLands:
      a.standing = Standing::kExpired;
      break;
    case ChainProof::Outcome::kMayLand:
      break;
  }
  a.detail = said + "; the node: " + proof->detail;
}

// The transaction's signers as base58: who a journal step was signed by.
std::set<std::string> signers_of(const JournalStep& st) {
  std::set<std::string> out;
  auto wire = from_base64(st.transaction, kMaxTransactionBytes);
  if (!wire.ok()) return out;
  auto tx = parse_transaction(*wire);
  if (!tx.ok()) return out;
  for (std::size_t i = 0;
       i < tx->message.header.num_required_signatures && i < tx->message.static_keys.size(); ++i)
    out.insert(to_base58(tx->message.static_keys[i]));
  return out;
}

// The logs of one chain, each continuing the one before, read as one: every entry, and per
// entry the name of the export that holds it.
struct ChainedLog {
  std::vector<audit::Entry> entries;
  std::vector<const std::string*> export_of;
};

Result<ChainedLog> read_chain(const std::vector<AuditExport>& exports) {
  ChainedLog chain;
  std::vector<audit::Entry> before;
  for (const auto& file : exports) {
    // An export's lines under its header; a log's own text is read as it is.
    AIRLOCK_TRY(log,
                audit::verify_lines(audit::export_lines(file.text).value_or(file.text), file.name));
    if (&file != &exports.front()) {
      if (auto s = audit::check_continues(before, log); !s.ok())
        return Error(audit::errors::kBroken,
                     "audit export " + file.name +
                         " does not continue the export before it: " + s.error().message());
    }
    chain.entries.insert(chain.entries.end(), log.begin(), log.end());
    chain.export_of.insert(chain.export_of.end(), log.size(), &file.name);
    before = std::move(log);
  }
  return chain;
}

// Every step the journal holds, by signature, and every audit head it was answered with.
struct JournalRecord {
  std::map<std::string, JournalStep> steps;
  std::vector<std::string> heads;
};

Result<JournalRecord> read_journal(const Journal& journal) {
  JournalRecord record;
  AIRLOCK_TRY(runs, journal.runs(false));
  for (const auto& run : runs) {
    AIRLOCK_TRY(run_steps, journal.steps(run.id));
    for (auto& st : run_steps) {
      if (!st.signature.empty()) record.steps.emplace(st.signature, std::move(st));
    }
    AIRLOCK_TRY(events, journal.events(run.id));
    for (const auto& e : events) {
      constexpr std::string_view kPrefix = "audit head ";
      if (e.kind == "response" && e.detail.rfind(kPrefix, 0) == 0)
        record.heads.push_back(e.detail.substr(kPrefix.size(), 64));
    }
  }
  return record;
}

// A signature the log holds and no journal step does: answered to Keystone, or sent by
// someone else; the node says whether it is on chain.
void account_unsent(const audit::Entry& e, const std::string& signature,
                    const ReconcileOptions& options, SignatureAccount& a) {
  const bool keystone = e.action == keystone::kSignRequestAction;
  a.standing =
      keystone && options.accept_keystone ? Standing::kOtherWallet : Standing::kNotSentHere;
  a.detail = keystone ? "a Keystone request: answered to the wallet that asked"
                      : "no journal step holds this signature: the answer went elsewhere";
  if (!options.on_chain) return;
  auto there = options.on_chain(signature);
  if (!there.ok()) {
    a.detail += "; the node could not be asked: " + there.error().message();
  } else if (*there) {
    a.landed_elsewhere = true;
    a.detail += "; and it IS on chain: someone sent it";
  } else {
    a.detail += "; not on chain (yet)";
  }
}

// Where the report starts: the entry count, the head, and the log this chain continues
// (unless it begins it). Refused when the offline machine showed another head.
Result<ReconcileReport> open_report(const std::vector<audit::Entry>& entries,
                                    const std::string& export_name,
                                    const ReconcileOptions& options) {
  ReconcileReport report;
  report.entries = entries.size();
  if (!entries.empty() && entries.front().start &&
      entries.front().start->previous == audit::Start::Previous::kContinued) {
    const audit::Start& start = *entries.front().start;
    report.missing_earlier_log = to_hex(start.previous_head.view()) + " (" +
                                 std::to_string(start.previous_entries) + " entries)";
  }
  if (!entries.empty()) report.export_head = to_hex(entries.back().hash.view());
  if (options.expected_head) {
    const std::string wanted = to_hex(options.expected_head->view());
    // A few digits off the export's head is a typing mistake off the offline screen.
    if (wanted != report.export_head && !entries.empty() &&
        audit::hex_digits_apart(*options.expected_head, entries.back().hash) <=
            audit::kMistypedHeadDigits) {
      return Error(
          ErrorCode::kUsage,
          "--head " + wanted + " differs from the head audit export " + export_name + " ends at (" +
              report.export_head + ") in only " +
              std::to_string(audit::hex_digits_apart(*options.expected_head, entries.back().hash)) +
              " of its 64 digits: most likely mistyped off the offline screen; check "
              "it (a cut log or another log would differ in nearly every digit)");
    }
    if (wanted != report.export_head) {
      return Error(audit::errors::kBroken,
                   "audit export " + export_name + " ends at head " +
                       (report.export_head.empty() ? std::string("(empty)") : report.export_head) +
                       " after " + std::to_string(entries.size()) +
                       " entries, not at the head the offline machine showed (" + wanted +
                       "): entries were cut from its end, or it is another log");
    }
  }
  return report;
}

}  // namespace

Result<ReconcileReport> reconcile(std::string_view export_text, const std::string& export_name,
                                  const Journal& journal, const ReconcileOptions& options,
                                  std::int64_t now) {
  return reconcile(std::vector<AuditExport>{{export_text, export_name}}, journal, options, now);
}

Result<ReconcileReport> reconcile(const std::vector<AuditExport>& exports, const Journal& journal,
                                  const ReconcileOptions& options, std::int64_t now) {
  AIRLOCK_TRY(chain, read_chain(exports));
  const std::vector<audit::Entry>& entries = chain.entries;
  const std::string export_name = exports.empty() ? std::string() : exports.back().name;
  AIRLOCK_TRY(report, open_report(entries, export_name, options));
  AIRLOCK_TRY(record, read_journal(journal));

  std::set<std::string> in_log, managers, log_heads;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const audit::Entry& e = entries[i];
    log_heads.insert(to_hex(e.hash.view()));
    if (e.decision == audit::Decision::kStarted || audit::ends_log(e)) continue;
    managers.insert(to_base58(e.manager));
    // Carried entries too: a signature of the log before, still in this one's last day.
    if (!audit::holds_signatures(e)) continue;
    for (const auto& sig : e.signatures) {
      const std::string signature = to_base58(sig);
      if (!in_log.insert(signature).second) continue;  // a reissue: the same signature again
      SignatureAccount a;
      a.signature = signature;
      a.entry = e.seq;
      a.export_name = *chain.export_of[i];
      a.action = e.action;
      a.vault = to_base58(e.vault);
      const auto step = record.steps.find(signature);
      if (step == record.steps.end()) {
        account_unsent(e, signature, options, a);
      } else if (auto final = settled(step->second)) {
        a.standing = *final;
        a.detail =
            "journal run " + std::to_string(step->second.run_id) + ": " + step->second.status;
      } else {
        settle_open(step->second, options, now, a);
      }
      report.signatures.push_back(std::move(a));
    }
  }
  // The other way: the journal's steps by this log's managers that the log does not hold.
  for (const auto& [signature, st] : record.steps) {
    if (in_log.count(signature)) continue;
    const auto signers = signers_of(st);
    if (std::any_of(signers.begin(), signers.end(),
                    [&](const std::string& s) { return managers.count(s) > 0; }))
      report.journal_only.push_back(signature);
  }
  for (const auto& head : record.heads) {
    if (!log_heads.count(head) &&
        std::find(report.missing_heads.begin(), report.missing_heads.end(), head) ==
            report.missing_heads.end())
      report.missing_heads.push_back(head);
  }
  return report;
}

Result<std::string> receipt_status_of(const Reply& reply, const std::string& receipt) {
  if (reply.failure) return api_error("status of receipt " + receipt, reply);
  std::string status = json_fields::text(reply.body, "status");
  if (!step_status::is_receipt_status(status)) {
    // Quoted as it came: whatever prints the error escapes it.
    return Error(online::errors::kHttp, "status of receipt " + receipt + ": '" + status +
                                            "' is not a receipt status the spec names");
  }
  return status;
}

}  // namespace airlock::online
