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

enum class Verdict { kRefused, kAsks, kAutomatic, kReissued, kUnderApproval };

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

// What sign would do: answer again from the log, refuse, sign without asking under an
// approval given before the build, ask, or sign under --auto-approve.
Verdict judge(const airlock::offline::Replay& replay, bool replay_refused,
              const airlock::offline::Review& review,
              const airlock::offline::AuditEntry* approval) {
  if (replay.earlier && replay.same_transactions) return Verdict::kReissued;
  if (replay_refused || review.refused()) return Verdict::kRefused;
  if (approval != nullptr && review.warnings.empty()) return Verdict::kUnderApproval;
  if (review.auto_approvable) return Verdict::kAutomatic;
  return Verdict::kAsks;
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

// The report as one self-contained page: the text as shown, and the bins as pictures.
airlock::Status write_html(const std::string& path, const airlock::offline::Review& review,
                           Verdict verdict, const std::string& digest,
                           const std::string& report_text) {
  const std::string page = airlock::offline::render_html_report(
      review,
      "airlock review: " + std::string(verdict_name(verdict)) + ", request SHA-256 " + digest,
      report_text);
  return airlock::files::write_atomically(
      path, airlock::ByteView(reinterpret_cast<const std::uint8_t*>(page.data()), page.size()));
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
struct Judgement {
  Verdict verdict = Verdict::kRefused;
  airlock::offline::Replay replay;
  std::optional<airlock::envelope::Refusal> replay_refused;
  const airlock::offline::AuditEntry* approval = nullptr;  // the one sign would sign under
  std::string digest;                                      // of the request as read, hex
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
  if (j.replay_refused)
    out["review"]["refused_by_log"] = {{"code", j.replay_refused->code},
                                       {"reason", j.replay_refused->reason}};
  if (j.approval != nullptr) out["review"]["under_approval_entry"] = j.approval->seq;
  std::cout << out.dump(2, ' ', true) << "\n";
}

// The text report on standard output, and with --html the same text as a page.
airlock::Status print_text(const ReviewOptions& o, const ReviewInputs& in,
                           const airlock::offline::Examination& examined, const Judgement& j,
                           bool examined_is_approval) {
  std::ostringstream text;
  text << "REVIEW ONLY: nothing is signed here.\n"
       << "request SHA-256  " << j.digest << "\n"
       << "signer           " << airlock::to_base58(*in.signer) << " (" << in.signer_source << ")\n"
       << "policy           "
       << (o.policy ? airlock::printable(*o.policy)
                    : std::string("none: the empty policy, which allows nothing"))
       << "\n\n"
       << examined.summary << "\n";
  text << verdict_line(j.verdict, j.replay, j.replay_refused, examined.review, j.approval,
                       examined_is_approval);
  const std::string report_text = text.str();  // the summary is escaped where it is made
  std::cout << report_text;
  if (!o.html) return {};
  return write_html(*o.html, examined.review, j.verdict, j.digest, report_text);
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
  auto incoming = read_request(o.source, now);
  if (!incoming.ok()) return report(incoming.error());
  // Everything is read: what follows parses hostile bytes with no socket, exec or ptrace.
  if (auto s = airlock::hardening::install_syscall_allowlist(); !s.ok()) return report(s.error());
  const auto& request = incoming->request;
  if (!in.signer) {
    in.signer = request.manager;
    in.signer_source = "the request's own manager (no policy or keystore to bind it)";
  }

  const auto examined = airlock::offline::examine(request, in.policy, in.decoders, *in.signer, now,
                                                  o.audit_log ? &in.log : nullptr);
  Judgement j;
  // sign decides a request id its log has decided before from the log, before any review: an
  // approval request's whatever the decision, a sign request's when it was signed.
  if (request.approval) {
    j.replay_refused = airlock::offline::approval_replay(in.log, request);
  } else {
    j.replay = airlock::offline::check_replay(in.log, request);
    if (j.replay.earlier && !j.replay.same_transactions)
      j.replay_refused = airlock::offline::replay_refusal(*j.replay.earlier);
    j.approval = airlock::offline::usable_approval(in.log, request,
                                                   airlock::offline::policy_hash(in.policy), now);
  }
  j.verdict = judge(j.replay, j.replay_refused.has_value(), examined.review, j.approval);
  j.digest = airlock::to_hex(incoming->digest.view());
  if (o.json) {
    print_json(o, in, request, examined.review, j, now);
  } else if (auto s = print_text(o, in, examined, j, request.approval); !s.ok()) {
    return report(s.error());
  }
  std::cout << std::flush;
  return j.verdict == Verdict::kRefused ? airlock::cli::kExitRejected : airlock::cli::kExitOk;
}

}  // namespace offline_cli
