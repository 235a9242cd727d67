// history and reconcile: what the journal holds, and every signature of the offline log
// accounted for.
#include <iostream>
#include <map>

#include <airlock/common/display.h>
#include <airlock/formats/files.h>
#include <airlock/online/reconcile.h>
#include <airlock/online/round.h>
#include <airlock/online/sender.h>

#include "shared.h"

using namespace airlock;

namespace online_cli {
namespace {

// A receipt's status as the API reads it now: the spec's status word, or why it could not be
// read.
Result<std::string> receipt_status(online::ApiClient& client, const std::string& receipt) {
  AIRLOCK_TRY(reply, client.status(receipt));
  return online::receipt_status_of(reply, receipt);
}

// The report as JSON, or as text naming what is not accounted for.
void print_reconcile(const online::ReconcileReport& r, bool json, bool chain) {
  if (json) {
    online::json out = {{"entries", r.entries},
                        {"exportHead", r.export_head},
                        {"accounted", r.accounted()},
                        {"signatures", online::json::array()},
                        {"journalOnly", r.journal_only},
                        {"missingHeads", r.missing_heads},
                        {"missingEarlierLog", r.missing_earlier_log}};
    for (const auto& a : r.signatures) {
      out["signatures"].push_back({{"signature", a.signature},
                                   {"entry", a.entry},
                                   {"export", a.export_name},
                                   {"action", a.action},
                                   {"vault", a.vault},
                                   {"standing", online::standing_name(a.standing)},
                                   {"landedElsewhere", a.landed_elsewhere},
                                   {"detail", a.detail}});
    }
    std::cout << out.dump(2, ' ', true) << "\n";
  } else {
    std::map<std::string, std::size_t> counts;
    for (const auto& a : r.signatures) ++counts[online::standing_name(a.standing)];
    std::cout << r.entries << " audit entries (head "
              << (r.export_head.empty() ? "none" : r.export_head) << "), " << r.signatures.size()
              << " signature(s):";
    for (const auto& [name, n] : counts) std::cout << " " << n << " " << name << ";";
    std::cout << "\n";
    for (const auto& a : r.signatures) {
      if (a.standing == online::Standing::kLanded || a.standing == online::Standing::kFailed ||
          a.standing == online::Standing::kExpired)
        continue;
      std::cout << (a.standing == online::Standing::kNotSentHere ? "NOT ACCOUNTED  " : "  ")
                << a.signature << "  entry " << a.entry
                << (chain ? " of " + printable(a.export_name) : std::string()) << "  "
                << printable(a.action) << "  vault " << a.vault << "  "
                << online::standing_name(a.standing) << ": " << printable(a.detail) << "\n";
    }
    for (const auto& s : r.journal_only) {
      std::cout << "NOT IN THE LOG  " << printable(s)
                << "  the journal holds this step, signed by the log's manager, and the log does "
                   "not: the log was cut or another log signed\n";
    }
    for (const auto& h : r.missing_heads) {
      std::cout << "HEAD MISSING    " << printable(h)
                << "  a response carried this audit head and the export does not hold it: the "
                   "export is older than that answer, or the log was cut short\n";
    }
    if (!r.missing_earlier_log.empty()) {
      std::cout << "EARLIER LOG MISSING  the first export continues the log with head "
                << r.missing_earlier_log
                << ": its signatures are not accounted for; give its export first "
                   "(--audit-export OLD --audit-export NEW), back to a log started with --first "
                   "or --previous-lost\n";
    }
    std::cout << (r.accounted() ? "every signature is accounted for\n"
                                : "NOT every signature is accounted for (above)\n");
  }
}

// What reconcile may ask the RPC node: the outcome of a send, and whether a signature is on
// chain at all.
void with_rpc(online::ReconcileOptions& options, const std::string& rpc, const std::string& api) {
  // A build the journal recorded no node for is proven only on the API's network (mainnet, or
  // the twin's on this machine; with no --api, the node's own place says which).
  options.prove = online::rpc_prover(rpc, std::chrono::seconds(20),
                                     online::expected_network(api.empty() ? rpc : api));
  options.on_chain = [rpc](const std::string& signature) -> Result<bool> {
    AIRLOCK_TRY(reply, online::rpc_call(rpc, "getSignatureStatuses",
                                        online::json::array({online::json::array({signature}),
                                                             {{"searchTransactionHistory", true}}}),
                                        std::chrono::seconds(20)));
    const auto* value = reply.is_object() && reply.contains("value") && reply["value"].is_array() &&
                                !reply["value"].empty()
                            ? &reply["value"][0]
                            : nullptr;
    if (value == nullptr)
      return Error(online::errors::kHttp, "getSignatureStatuses: an answer without value[0]");
    return !value->is_null();
  };
}

}  // namespace

int run_history(const std::vector<std::string>& args) {
  po::options_description options(
      "usage: airlock-online history [--journal FILE] [--json]\n\n"
      "Lists every run in the journal with its steps: signature, receipt and status.\n\noptions");
  bool json = false;
  std::optional<std::string> journal_file;
  options.add_options()("help,h", "show this help")("json", po::bool_switch(&json),
                                                    "print one JSON array");
  journal_option(options, journal_file);
  int code = 0;
  if (!cli::parse(kProgram, args, options, {}, code, kEnvironment)) return code;
  auto journal = open_journal(journal_file);
  if (!journal.ok()) return report(journal.error());
  auto runs = journal->runs(false);
  if (!runs.ok()) return report(runs.error());
  online::json all = online::json::array();
  for (const auto& run : *runs) {
    auto steps = journal->steps(run.id);
    if (!steps.ok()) return report(steps.error());
    online::json j = {{"run", run.id},
                      {"startedAt", run.started_at},
                      {"action", run.action},
                      {"body", run.body},
                      {"state", run.state},
                      {"note", run.note},
                      {"steps", online::json::array()}};
    for (const auto& st : *steps) {
      j["steps"].push_back({{"round", st.round},
                            {"step", st.step},
                            {"action", st.action},
                            {"status", st.status},
                            {"signature", st.signature},
                            {"receipt", st.receipt},
                            {"code", st.code},
                            {"builtAt", st.built_at},
                            {"sentAt", st.sent_at}});
    }
    all.push_back(std::move(j));
  }
  if (json) {
    std::cout << all.dump(2, ' ', true) << "\n";
    return cli::kExitOk;
  }
  for (const auto& j : all) {
    std::cout << "run " << j["run"].get<std::int64_t>() << "  "
              << iso_utc(j["startedAt"].get<std::int64_t>()) << "  "
              << printable(j["action"].get<std::string>()) << "  " << j["state"].get<std::string>()
              << "  " << printable(j["note"].get<std::string>()) << "\n";
    for (const auto& st : j["steps"]) {
      std::cout << "    round " << st["round"].get<int>() << " step " << st["step"].get<int>()
                << "  built " << iso_utc(st["builtAt"].get<std::int64_t>()) << "  "
                << printable(st["action"].get<std::string>()) << "  "
                << st["status"].get<std::string>();
      const auto sent_at = st["sentAt"].get<std::int64_t>();
      if (sent_at != 0) {
        std::cout << "  sent with "
                  << st["builtAt"].get<std::int64_t>() + online::kTicketSeconds - sent_at
                  << " s left on its ticket";
      }
      std::cout << "  " << st["signature"].get<std::string>()
                << (st["code"].get<std::string>().empty()
                        ? ""
                        : "  " + printable(st["code"].get<std::string>()))
                << "\n";
    }
  }
  return cli::kExitOk;
}

int run_reconcile(const std::vector<std::string>& args) {
  po::options_description options(
      "usage: airlock-online reconcile --audit-export FILE... --head HEX [--journal FILE]\n"
      "                                [--api URL] [--rpc URL] [--accept-keystone] [--json]\n\n"
      "Accounts for every signature the offline key made: the offline audit log, exported with\n"
      "`airlock-offline log export`, joined with this journal. Each signature is landed, failed,\n"
      "expired (provably never lands), unknown (sent or signed here, not settled: run resume),\n"
      "or NOT SENT BY THIS ONLINE HALF. With --api the receipts of steps the journal leaves open\n"
      "are read (confirmed or failed settles them; the journal is not written: resume records).\n"
      "With --rpc the node settles what is still open and says whether a signature never sent\n"
      "here is on chain anyway. Also named: journal steps\n"
      "by the log's managers that the log does not hold (the log was cut, or another log\n"
      "signed) and audit heads that responses carried and the export lacks (an export older than\n"
      "the last answer, or a log cut short). --head is the head `log export` printed on the\n"
      "offline machine's screen, typed here: the export must end exactly there (a chain checks\n"
      "itself only from within; without that anchor whoever carried it could cut its end or\n"
      "bring another chain). After `log start --continue-from`, give each log's export, oldest\n"
      "first (--audit-export OLD --audit-export NEW): each must continue the one before, and\n"
      "--head is the newest one's. Exit 0 when everything is accounted for, 1 when anything\n"
      "above is named.\n\noptions");
  std::vector<std::string> paths;
  std::string head_text;
  std::optional<std::string> rpc;
  std::optional<std::string> journal_file;
  bool json = false;
  online::ReconcileOptions reconcile_options;
  ApiOptions api;
  api_options(options, api, false);
  options.add_options()(
      "audit-export", po::value<std::vector<std::string>>(&paths)->required(),
      "the exported audit log (airlock-offline log export --out, or airlock-qr decode --out); "
      "again for each later log of the chain, oldest first")(
      "head", po::value<std::string>(&head_text)->required(),
      "the head `airlock-offline log export` showed (64 hex digits), read off its screen")(
      "rpc", cli::optional_value(&rpc),
      "a Solana RPC URL (keeping transaction history) to settle open steps on chain")(
      "accept-keystone", po::bool_switch(&reconcile_options.accept_keystone),
      "Keystone requests' signatures were answered to another wallet: accounted for")(
      "json", po::bool_switch(&json), "print the report as JSON");
  journal_option(options, journal_file);
  int code = 0;
  if (!cli::parse(kProgram, args, options, {}, code, kEnvironment)) return code;
  auto head = audit::parse_head(head_text, "--head");
  if (!head.ok()) return report(head.error());
  // An offline log is read up to 65 MiB (offline/audit.h, LogBounds).
  std::vector<Bytes> texts;
  for (const auto& path : paths) {
    auto text = files::read_limited(path, std::size_t{65} << 20);
    if (!text.ok()) return report(text.error());
    texts.push_back(std::move(text).value());
  }
  auto journal = open_journal(journal_file);
  if (!journal.ok()) return report(journal.error());
  reconcile_options.expected_head = *head;
  std::optional<online::ApiClient> client;
  if (!api.api.empty()) {
    auto made = client_from(api);
    if (!made.ok()) return report(made.error());
    client.emplace(std::move(made).value());
    reconcile_options.receipt_status = [&client](const std::string& receipt) {
      return receipt_status(*client, receipt);
    };
  }
  if (rpc) {
    if (auto s = online::check_transport(*rpc); !s.ok()) return report(s.error().in_field("--rpc"));
    with_rpc(reconcile_options, *rpc, api.api);
  }
  std::vector<online::AuditExport> exports;
  for (std::size_t i = 0; i < paths.size(); ++i)
    exports.push_back(
        {std::string_view(reinterpret_cast<const char*>(texts[i].data()), texts[i].size()),
         paths[i]});
  auto result = online::reconcile(exports, *journal, reconcile_options, now_s());
  if (!result.ok()) return report(result.error());
  const auto& r = *result;
  print_reconcile(r, json, paths.size() > 1);
  return r.accounted() ? cli::kExitOk : cli::kExitRejected;
}

}  // namespace online_cli
