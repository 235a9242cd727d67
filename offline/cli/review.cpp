// airlock-offline review: the verdict sign would reach, without the key. The request is read
// from the same sources, decoded by the same decoders and judged by the same code
// (offline::examine, which process_request runs too); nothing is signed, logged or written
// except the report asked for.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <vector>

#include <airlock/cli/cli.h>
#include <airlock/cli/options.h>
#include <airlock/common/display.h>
#include <airlock/formats/files.h>
#include <airlock/hardening/lockdown.h>
#include <airlock/offline/audit.h>
#include <airlock/offline/interfaces.h>
#include <airlock/offline/keystore.h>
#include <airlock/offline/policy.h>
#include <airlock/offline/signing.h>
#include <airlock/offline/summary.h>

#include "shared.h"

namespace offline_cli {

using airlock::Error;
using airlock::ErrorCode;

namespace {

using airlock::offline::Verdict;

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kRefused:
      return "refused";
    case Verdict::kAsks:
      return "signable";
    case Verdict::kAutomatic:
      return "auto-approvable";
    case Verdict::kReissued:
      return "reissued";
    case Verdict::kUnderApproval:
      return "approved-before";
  }
  return "refused";
}

// The verdict, in words, as the report's last line.
std::string verdict_line(Verdict verdict, const airlock::offline::Replay& replay,
                         const std::optional<airlock::envelope::Refusal>& replay_refused,
                         const airlock::offline::Review& review,
                         const airlock::offline::AuditEntry* approval, bool approval_request) {
  std::ostringstream out;
  switch (verdict) {
    case Verdict::kUnderApproval:
      out << "VERDICT: sign would sign this without asking: the approval in audit entry "
          << approval->seq
          << " covers exactly this intent, under this policy, unexpired and unused, and nothing "
             "warns.\n";
      break;
    case Verdict::kReissued:
      out << "VERDICT: the audit log signed this request id for these transactions "
             "(entry "
          << replay.earlier->seq
          << "): sign would answer it again from the log, without asking or opening the "
             "key.\n";
      break;
    case Verdict::kRefused:
      if (replay_refused) {
        out << "VERDICT: sign would refuse this request: " << replay_refused->code << ": "
            << replay_refused->reason << ".\n";
        break;
      }
      out << "VERDICT: sign would refuse this request (" << review.refusals.size()
          << " reason(s) above).\n";
      break;
    case Verdict::kAsks:
      if (approval_request) {
        out << "VERDICT: sign would show this approval request and ask the operator; a yes "
               "records the approval.\n";
        break;
      }
      out << "VERDICT: sign would show this and ask the operator"
          << (review.warnings.empty() ? "" : ", with the warnings above") << ".\n";
      break;
    case Verdict::kAutomatic:
      out << "VERDICT: sign would sign this without asking under --auto-approve (the "
             "policy marks the action auto_approve and nothing warns).\n";
      break;
  }
  return out.str();
}

// The report as one self-contained page: the verdict and what identifies the request first,
// the refusals and warnings, the text as shown, and the bins as pictures.
airlock::Status write_html(const std::string& path, const airlock::offline::HtmlReport& report) {
  const std::string page = airlock::offline::render_html_report(report);
  return airlock::files::write_atomically(path, airlock::text_bytes(page));
}

// The verdict line without its "VERDICT: " and newline: the page's one sentence.
// On the page the sentence heads the reasons and warnings, so what the terminal's last line
// points up to is below it.
std::string sentence_of(const std::string& line) {
  std::string out = line;
  if (out.rfind("VERDICT: ", 0) == 0) out.erase(0, 9);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  for (const std::string_view pointer : {"reason(s) above", "warnings above"}) {
    if (const auto at = out.find(pointer); at != std::string::npos)
      out.replace(at + pointer.size() - 5, 5, "below");
  }
  return out;
}

struct ReviewOptions {
  std::optional<std::string> policy;
  std::optional<std::string> keystore;
  std::optional<std::string> signer;
  std::optional<std::int64_t> at;
  std::string idl_dir = default_idl_dir();
  std::string descriptor_dir = default_descriptor_dir();
  std::optional<std::string> audit_log;
  bool json = false;
  std::optional<std::string> html;
  RequestSource source;
};

po::options_description review_options(ReviewOptions& o) {
  po::options_description options(
      "usage: airlock-offline review (REQUEST | --qr IMAGE... | --raw WxH | --camera DEVICE)\n"
      "                              [--policy FILE] [--keystore FILE | --signer KEY]\n"
      "                              [--json | --html FILE]\n\n"
      "Shows the review sign would show for a request, and its verdict, without the key: the\n"
      "same decoding, intent binding and policy, for an auditor or a second reviewer on any\n"
      "machine. Nothing is signed or logged. The signer is the keystore's key (only its public\n"
      "header is read), or --signer, or else the policy's manager. Without --policy the request\n"
      "is judged under the empty policy, which allows nothing (so the verdict is refused), and\n"
      "the decoding and intent checks are still shown. The report starts with the SHA-256 of\n"
      "the request as a file, to compare with `sha256sum` where it was made. With --audit-log\n"
      "(read, never written), a request id the log has signed is judged as sign judges it:\n"
      "answered again from the log (verdict reissued), or refused as policy.replay.\n"
      "Exit 0 when sign would accept it (asking, or automatically under --auto-approve), 1 when\n"
      "it would refuse.\n\noptions");
  options.add_options()("help,h", "show this help")(
      "policy", airlock::cli::optional_value(&o.policy), "policy file (docs/policy.md)")(
      "keystore", airlock::cli::optional_value(&o.keystore),
      "the signer is this keystore's key (its public header only; no passphrase)")(
      "signer", airlock::cli::optional_value(&o.signer), "the signer's public key (base58)")(
      "at", airlock::cli::optional_in<std::int64_t>(&o.at, 0, airlock::cli::kLatestUnixTime, "at"),
      "judge as at this unix time (default now): deadlines and the summary's times")(
      "idl-dir", po::value<std::string>(&o.idl_dir)->default_value(o.idl_dir),
      "folder of the Anchor IDL files the policy's descriptors pin")(
      "descriptor-dir", po::value<std::string>(&o.descriptor_dir)->default_value(o.descriptor_dir),
      "folder of the descriptors the policy pins; without --policy every descriptor in it is "
      "read, unpinned, to show the binding (the empty policy refuses anyway)")(
      "audit-log", airlock::cli::optional_value(&o.audit_log),
      "the signer's audit log, read only: judge a request id it has signed as sign would")(
      "json", po::bool_switch(&o.json), "print the summary and verdict as JSON instead of text")(
      "html", airlock::cli::optional_value(&o.html),
      "also write the report as one self-contained HTML page to this file (the text report and "
      "each DLMM instruction's bins as a picture; nothing in it is fetched)");
  add_request_source(options, o.source);
  return options;
}

// Who signs: the keystore's key, --signer, or the policy's manager (else, later, the request's).
airlock::Status choose_signer(const ReviewOptions& o, const airlock::offline::Policy& policy,
                              std::optional<airlock::PublicKey>& signer, std::string& source) {
  if (o.keystore) {
    AIRLOCK_TRY(info, airlock::offline::read_keystore_info(*o.keystore));
    signer = info.public_key;
    source = "the keystore's key";
  } else if (o.signer) {
    auto key = airlock::public_key_from_base58(*o.signer);
    if (!key.ok()) return Error(ErrorCode::kUsage, "--signer: " + key.error().message());
    signer = *key;
    source = "given with --signer";
  } else if (o.policy) {
    signer = policy.manager;
    source = "the policy's manager";
  }
  return {};
}

// review's options that can be judged before anything is read: one report, one signer, and
// an HTML report that can be written and is none of the inputs.
airlock::Status check_review_options(const ReviewOptions& o) {
  AIRLOCK_CHECK(check_request_source(o.source));
  if (o.json && o.html) return Error(ErrorCode::kUsage, "give one report: --json or --html");
  if (o.keystore && o.signer)
    return Error(ErrorCode::kUsage, "give the signer once: --keystore or --signer");
  if (o.html) {
    AIRLOCK_CHECK(airlock::files::check_outputs({{"--html", *o.html}},
                                                {{"--keystore", o.keystore.value_or("")},
                                                 {"--policy", o.policy.value_or("")},
                                                 {"--audit-log", o.audit_log.value_or("")},
                                                 {"REQUEST", o.source.file.value_or("")}}));
  }
  return {};
}

// What review reads before the request, and who it judges as the signer.
struct ReviewInputs {
  airlock::offline::Policy policy;  // without --policy the empty one, which allows nothing
  std::optional<airlock::PublicKey> signer;
  std::string signer_source;
  std::vector<airlock::offline::AuditEntry> log;
  airlock::offline::DecoderRegistry decoders;
};

airlock::Status load_inputs(const ReviewOptions& o, ReviewInputs& in) {
  if (o.policy) {
    AIRLOCK_TRY(policy, airlock::offline::load_policy_file(*o.policy));
    in.policy = std::move(policy);
  }
  AIRLOCK_CHECK(choose_signer(o, in.policy, in.signer, in.signer_source));
  if (o.audit_log) {
    AIRLOCK_TRY(entries, airlock::offline::verify_audit_log(*o.audit_log));
    in.log = std::move(entries);
  }
  if (o.policy)
    return airlock::offline::load_pinned_interfaces(in.policy, {o.idl_dir, o.descriptor_dir},
                                                    in.decoders);
  // No policy: nothing will be signed, so the binding is shown under every descriptor the
  // folder holds, each still held to its own IDLs' hashes.
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(o.descriptor_dir, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  if (ec) return Error(ErrorCode::kIo, "cannot read " + o.descriptor_dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    auto checked = airlock::offline::check_descriptor_files(file, o.idl_dir, in.decoders);
    if (!checked.ok()) return checked.error();
  }
  return {};
}

// The verdict and what it rests on besides the review: the log's earlier answer to the id.
// sign's judgement of the request (offline::judge), and the request's digest.
struct Judgement : airlock::offline::Judgement {
  std::string digest;  // of the request as read, hex
};

void print_json(const ReviewOptions& o, const ReviewInputs& in,
                const airlock::envelope::SignRequest& request,
                const airlock::offline::Review& review, const Judgement& j, std::int64_t now) {
  auto out = airlock::offline::summary_json(request, review);
  out["review"] = {
      {"request_sha256", j.digest},
      {"verdict", verdict_name(j.verdict)},
      {"signer", airlock::to_base58(*in.signer)},
      {"signer_source", in.signer_source},
      {"policy", o.policy ? nlohmann::ordered_json(*o.policy) : nlohmann::ordered_json(nullptr)},
      {"at", now}};
  if (j.replay.earlier) {
    out["review"]["replay"] = {{"entry", j.replay.earlier->seq},
                               {"same_transactions", j.replay.same_transactions}};
  }
  if (j.log_refusal)
    out["review"]["refused_by_log"] = {{"code", j.log_refusal->code},
                                       {"reason", j.log_refusal->reason}};
  if (j.approval != nullptr) out["review"]["under_approval_entry"] = j.approval->seq;
  std::cout << out.dump(2, ' ', true) << "\n";
}

std::string policy_text(const ReviewOptions& o) {
  return o.policy ? airlock::printable(*o.policy)
                  : std::string("none: the empty policy, which allows nothing");
}

// The text report on standard output, and with --html the same text as a page.
airlock::Status print_text(const ReviewOptions& o, const ReviewInputs& in,
                           const airlock::envelope::SignRequest& request,
                           const airlock::offline::Examination& examined, const Judgement& j,
                           std::int64_t now) {
  std::ostringstream text;
  text << "REVIEW ONLY: nothing is signed here.\n"
       << "request SHA-256  " << j.digest << "\n"
       << "signer           " << airlock::to_base58(*in.signer) << " (" << in.signer_source << ")\n"
       << "policy           " << policy_text(o) << "\n\n"
       << examined.summary << "\n";
  const std::string verdict = verdict_line(j.verdict, j.replay, j.log_refusal, examined.review,
                                           j.approval, request.approval);
  text << verdict;
  const std::string report_text = text.str();  // the summary is escaped where it is made
  std::cout << report_text;
  if (!o.html) return {};
  airlock::offline::HtmlReport report;
  report.verdict = verdict_name(j.verdict);
  report.sentence = sentence_of(verdict);
  report.facts = {
      {"Request SHA-256", j.digest},
      {"Action", request.action + (examined.review.reads.empty() ? std::string()
                                                                 : ": " + examined.review.reads)},
      {"Request id",
       airlock::to_hex(airlock::ByteView(request.request_id.data(), request.request_id.size()))},
      {"Vault", airlock::to_base58(request.vault)},
      {"Signer", airlock::to_base58(*in.signer) + " (" + in.signer_source + ")"},
      {"Policy", policy_text(o)},
      {"Reviewed as at", airlock::iso_utc(now)}};
  report.review = &examined.review;
  report.report_text = report_text;
  return write_html(*o.html, report);
}

// A request that does not decode: sign would answer nothing. Its SHA-256 and the reason are
// still the auditor's, as text, JSON or a page.
int report_undecodable(const ReviewOptions& o, const RequestBytes& read, const Error& why,
                       std::int64_t now) {
  const std::string digest = airlock::to_hex(read.digest.view());
  const std::string reason = airlock::printable(why.to_string());
  if (o.json) {
    nlohmann::ordered_json out;
    out["review"] = {
        {"request_sha256", digest},
        {"verdict", "undecodable"},
        {"error", {{"code", why.code_name()}, {"message", why.message()}}},
        {"policy", o.policy ? nlohmann::ordered_json(*o.policy) : nlohmann::ordered_json(nullptr)},
        {"at", now}};
    std::cout << out.dump(2, ' ', true) << "\n";
    return airlock::cli::kExitRejected;
  }
  const std::string sentence =
      "sign would refuse to read this request and answer nothing: it does not decode.";
  std::ostringstream text;
  text << "REVIEW ONLY: nothing is signed here.\n"
       << "request SHA-256  " << digest << "\n"
       << "policy           " << policy_text(o) << "\n\n"
       << "The request does not decode: " << reason << "\n\n"
       << "VERDICT: " << sentence << "\n";
  const std::string report_text = text.str();
  std::cout << report_text << std::flush;
  if (o.html) {
    airlock::offline::HtmlReport page;
    page.verdict = "undecodable";
    page.sentence = sentence;
    page.facts = {{"Request SHA-256", digest},
                  {"Policy", policy_text(o)},
                  {"Reviewed as at", airlock::iso_utc(now)}};
    page.problems.emplace_back(std::string(why.code_name()), airlock::printable(why.message()));
    page.report_text = report_text;
    if (auto s = write_html(*o.html, page); !s.ok()) return report(s.error());
  }
  return airlock::cli::kExitRejected;
}

}  // namespace

int run_review(const std::vector<std::string>& args) {
  ReviewOptions o;
  const auto options = review_options(o);
  int code = 0;
  if (!airlock::cli::parse(kProgram, args, options, {request_positional(o.source)}, code))
    return code;
  if (auto s = check_review_options(o); !s.ok()) return report(s.error());
  const std::int64_t now = o.at.value_or(unix_now());
  ReviewInputs in;
  if (auto s = load_inputs(o, in); !s.ok()) return report(s.error());
  auto read = read_request_bytes(o.source);
  if (!read.ok()) return report(read.error());
  auto incoming = decode_incoming(*read, now);
  if (!incoming.ok()) return report_undecodable(o, *read, incoming.error(), now);
  // Everything is read: what follows parses hostile bytes with no socket, exec or ptrace.
  if (auto s = airlock::hardening::install_syscall_allowlist(); !s.ok()) return report(s.error());
  const auto& request = incoming->request;
  if (!in.signer) {
    in.signer = request.manager;
    in.signer_source = "the request's own manager (no policy or keystore to bind it)";
  }

  const auto examined = airlock::offline::examine(request, in.policy, in.decoders, *in.signer, now,
                                                  o.audit_log ? &in.log : nullptr);
  // sign decides a request id its log has decided before from the log, before any review: an
  // approval request's whatever the decision, a sign request's when it was signed.
  Judgement j;
  static_cast<airlock::offline::Judgement&>(j) = airlock::offline::judge(
      request, examined.review, in.log, airlock::offline::policy_hash(in.policy), now);
  j.digest = airlock::to_hex(incoming->digest.view());
  if (o.json) {
    print_json(o, in, request, examined.review, j, now);
  } else if (auto s = print_text(o, in, request, examined, j, now); !s.ok()) {
    return report(s.error());
  }
  std::cout << std::flush;
  return j.verdict == Verdict::kRefused ? airlock::cli::kExitRejected : airlock::cli::kExitOk;
}

}  // namespace offline_cli
