#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <airlock/common/bytes.h>
#include <airlock/common/display.h>
#include <airlock/common/hash.h>
#include <airlock/formats/json_fields.h>
#include <airlock/online/act.h>
#include <airlock/online/api.h>
#include <airlock/online/reads.h>
#include <airlock/online/round.h>
#include <airlock/online/sender.h>

namespace airlock::online {
namespace {

// The vault's strategies as the API sees them now, so the operator sees what the confirmed steps
// changed before anything more is built.
void show_current_state(ApiClient& client, const json& body, std::ostream& log) {
  const std::string vault = body.is_object() ? json_fields::text(body, "vault") : "";
  if (vault.empty()) return;
  ReadArgs args;
  args.target = vault;
  auto path = read_path("strategies", args);
  if (!path.ok()) return;
  auto reply = client.get(*path);
  if (!reply.ok() || reply->failure) {
    log << "airlock-online: could not read the vault's current strategies: "
        << printable(reply.ok() ? reply->failure->code : reply.error().message()) << "\n";
    return;
  }
  log << "airlock-online: the vault's strategies now:\n" << render_read("strategies", reply->body);
}

// One run of the invocation: its build, signing rounds, sends and follow-ups, to done or a stop.
class Run {
 public:
  Run(ActContext& c, const ActOptions& options, int& rounds_left)
      : c_(c), options_(options), rounds_left_(rounds_left) {}

  // Sets failed_run() when the run stopped with nothing left open (its remaining work can be
  // planned).
  Status perform(std::string action, json body) {
    AIRLOCK_TRY(run_id, c_.journal.begin_run(options_.api, action, body, c_.clock()));
    run_id_ = run_id;
    for (int round_no = 1; rounds_left_ > 0; ++round_no) {
      --rounds_left_;  // every round counts, however it ends (a failed one too)
      AIRLOCK_TRY(next, round(round_no, action, body));
      if (!next.ok()) return stop(next.error());
      switch (*next) {
        case Next::kAgain:
          continue;
        case Next::kDone:
          c_.log << "airlock-online: " << action << " done\n";
          return c_.journal.finish_run(run_id_, "done", "every step confirmed", c_.clock());
        case Next::kFollowUp:
          action = follow_up_->first;
          body = follow_up_->second;
          c_.log << "airlock-online: follow-up " << printable(action) << "\n";
          continue;
      }
    }
    // The operator's bound, not a failure of the run: it ends `stopped`, its work left planned.
    return stop(Error(online::errors::kStopped, "stopped after --max-rounds signing rounds"),
                "stopped");
  }

  [[nodiscard]] std::int64_t failed_run() const { return failed_run_; }

 private:
  enum class Next { kAgain, kDone, kFollowUp };

  // One signing round. The outer Result fails only on the journal; the inner one is the round's
  // own failure, which stops the run.
  Result<Result<Next>> round(int round_no, const std::string& action, const json& body) {
    // The service starts the tickets' clock while it builds: count from the request's start.
    const std::int64_t built_at = c_.clock();
    const std::optional<BootInstant> build_boot = c_.boot ? c_.boot() : std::nullopt;
    auto built = c_.client.build(action, body);
    if (!built.ok()) return Result<Next>(built.error());
    if (built->failure) return Result<Next>(api_error("build " + action, *built));
    auto prepared = prepare_round(action, body, built->body, options_.rpc, built_at);
    if (!prepared.ok()) return Result<Next>(prepared.error());
    Round& r = *prepared;
    r.api_date = built->date;
    if (round_no == 1 && options_.rpc && !r.transactions.empty() &&
        !r.transactions.front().message.static_keys.empty()) {
      const PublicKey& manager = r.transactions.front().message.static_keys.front();
      if (auto behind = chain_ahead_of_journal(manager); !behind.ok())
        return Result<Next>(behind.error());
    }
    AIRLOCK_CHECK(c_.journal.event(
        run_id_, "build",
        action + ": " + std::to_string(r.steps.size()) + " step(s), request " +
            to_hex(ByteView(r.request.request_id.data(), r.request.request_id.size())),
        c_.clock()));
    add_token_hints(c_.client, r);
    c_.log << "airlock-online: built " << action << ": " << r.steps.size()
           << " step(s); the offline half must answer within "
           << static_cast<std::int64_t>(r.request.deadline) - c_.clock() << " s (tickets live "
           << kTicketSeconds << " s, the blockhash " << (r.blockhash_measured ? "" : "about ")
           << r.blockhash_seconds << " s from the build"
           << (r.blockhash_measured ? ", by the RPC node" : "") << ")\n";
    auto response = c_.courier(r.request);
    if (!response.ok()) return Result<Next>(response.error());
    if (!*response) {
      c_.log << "airlock-online: no response before the deadline; building again\n";
      AIRLOCK_CHECK(
          c_.journal.event(run_id_, "late", "no response before the deadline", c_.clock()));
      return Result<Next>(Next::kAgain);
    }
    auto answer = apply_response(r, **response, c_.clock());
    if (!answer.ok() && answer.error().code() == online::errors::kResponseLate) {
      c_.log << "airlock-online: " << printable(answer.error().message()) << "\n";
      AIRLOCK_CHECK(c_.journal.event(run_id_, "late", answer.error().message(), c_.clock()));
      return Result<Next>(Next::kAgain);
    }
    if (!answer.ok()) return Result<Next>(answer.error());
    // Which state of the offline audit log answered: `reconcile` checks that an exported log
    // still holds it (a log cut short after this answer would not).
    AIRLOCK_CHECK(c_.journal.event(run_id_, "response",
                                   "audit head " + to_hex((*response)->audit_head.view()) +
                                       (answer->refusal ? " (refused)" : " (signed)"),
                                   c_.clock()));
    if (answer->refusal) {
      return Result<Next>(
          Error(online::errors::kOfflineRefused,
                "the offline half refused: " + envelope::describe(*answer->refusal)));
    }
    auto steps = steps_of_round(run_id_, round_no, r, answer->signed_transactions, built_at,
                                c_.clock(), build_boot);
    AIRLOCK_CHECK(c_.journal.add_signed_steps(steps));
    SendContext send{c_.client, c_.journal, c_.clock, c_.sleep, c_.log, c_.boot, c_.prove};
    auto sent = send_round(send, steps);
    if (!sent.ok()) return Result<Next>(sent.error());
    if (*sent == RoundEnd::kRebuild) return Result<Next>(Next::kAgain);
    const json& last = r.steps.back();
    if (!last.contains("next")) return Result<Next>(Next::kDone);
    follow_up_.emplace(json_fields::text(last["next"], "path"),
                       last["next"].value("body", json::object()));
    return Result<Next>(Next::kFollowUp);
  }

  // Found by an independent fault review: the state folder (journal, seal and registry side by
  // side under ~/.local/state/airlock) put back from a backup made before an action landed,
  // and the same intent built and landed again. Nothing on this machine tells such a copy from
  // the newest; the chain can. The manager pays for every step: the node lists its landings
  // newest first, back to one this journal knows landed (its anchor, found by signature, so no
  // clock and no record of this machine's can move it: a second review defeated a bound by
  // time with a retry's own record and with a record of a clock a day ahead), and every landing
  // before that must be a step of this journal's or of another journal the registry knows, or
  // one the operator accounted for (--accept-landed). A list that never reaches the anchor (a
  // node without that history, an empty answer) shows nothing, and nothing is built on it. A
  // journal none of whose steps landed has no anchor and is not checked (docs/journal.md).
  Status chain_ahead_of_journal(const PublicKey& manager) {
    AIRLOCK_TRY(known, c_.journal.known_signatures());
    if (known.landed.empty()) return {};
    const std::vector<std::string> elsewhere = c_.journal.signatures_elsewhere();
    const auto in = [](const std::vector<std::string>& sorted, const std::string& signature) {
      return std::binary_search(sorted.begin(), sorted.end(), signature);
    };
    constexpr std::size_t kPage = 1000, kPages = 10;
    std::vector<std::string> unknown;
    std::optional<std::string> before;
    std::size_t listed = 0;
    bool reached = false;
    for (std::size_t page = 0; page < kPages && !reached; ++page) {
      AIRLOCK_TRY(landed, landings_naming(*options_.rpc, manager, kPage, before));
      for (const auto& l : landed) {
        ++listed;
        if (in(known.landed, l.signature)) {
          reached = true;
          break;
        }
        if (in(known.signatures, l.signature) || in(elsewhere, l.signature) ||
            std::find(options_.accepted_landings.begin(), options_.accepted_landings.end(),
                      l.signature) != options_.accepted_landings.end())
          continue;
        unknown.push_back(l.signature + (l.block_time
                                             ? " (block time " + std::to_string(*l.block_time) + ")"
                                             : std::string(" (no block time)")));
      }
      if (landed.size() < kPage) break;  // the node's whole list of them
      before = landed.back().signature;
    }
    if (!unknown.empty()) {
      std::string named;
      for (const auto& u : unknown) named += (named.empty() ? "" : ", ") + u;
      return Error(errors::kUnfinished,
                   "the chain shows " + std::to_string(unknown.size()) +
                       " transaction(s) the manager " + to_base58(manager) +
                       " paid for after this journal's newest landing that are none of its "
                       "steps (nor of another journal the registry knows): " +
                       named +
                       ". This journal (and its registry) may have been put back from an older "
                       "copy, and an action of it may have landed already; or another machine "
                       "sent them. Find out which (airlock-online history under each journal, "
                       "an explorer); then give --accept-landed SIGNATURE for each one "
                       "accounted for, and build nothing again that landed");
    }
    if (!reached) {
      return Error(errors::kUnfinished,
                   "the RPC node lists " + std::to_string(listed) + " transaction(s) the manager " +
                       to_base58(manager) +
                       " paid for, and none of this journal's landed steps among them: it does "
                       "not keep that address's history back to them (or answers nothing), so "
                       "it cannot show whether anything landed since, as a journal put back "
                       "from an older copy would hide; use a node that keeps the address's "
                       "whole history (a twin started anew is another chain: give a new "
                       "--journal once this one has nothing in flight)");
    }
    return {};
  }

  // Ends the run in the journal: failed when nothing is left open, else it waits for resume.
  Status stop(const Error& error, const char* state = "failed") {
    AIRLOCK_TRY(open, c_.journal.unresolved());
    if (std::none_of(open.begin(), open.end(),
                     [&](const JournalStep& st) { return st.run_id == run_id_; })) {
      AIRLOCK_CHECK(c_.journal.finish_run(run_id_, state, error.message(), c_.clock()));
      failed_run_ = run_id_;
    } else {
      c_.log << "airlock-online: run " << run_id_
             << " stays open in the journal; run airlock-online resume\n";
    }
    return error;
  }

  ActContext& c_;
  const ActOptions& options_;
  int& rounds_left_;
  std::int64_t run_id_ = 0;
  std::int64_t failed_run_ = 0;
  std::optional<std::pair<std::string, json>> follow_up_;
};

}  // namespace

Result<RemainingWork> plan_after_stop(ApiClient& client, const Journal& journal,
                                      std::int64_t run_id, const json& body, std::int64_t now,
                                      const std::optional<BootInstant>& boot, std::ostream& log,
                                      std::string_view command_options) {
  AIRLOCK_TRY(steps, journal.steps(run_id));
  const RemainingWork plan = plan_remaining(steps, now, boot);
  if (plan.kind == RemainingWork::Kind::kNone) return plan;
  show_current_state(client, body, log);
  log << "airlock-online: what is left of run " << run_id << ": " << printable(plan.why) << "\n";
  for (const auto& b : plan.builds)
    log << "  " << act_command(b, command_options) << "\n";  // shell words: printable ASCII
  return plan;
}

Result<envelope::SignRequest> approval_request(const std::string& action, const json& body,
                                               const PublicKey& manager, std::int64_t now,
                                               std::int64_t seconds) {
  if (action == "vault/initialize")
    return Error(ErrorCode::kUsage,
                 "vault/initialize makes its vault in the build: it cannot be approved first");
  if (!body.is_object() || !body.contains("vault") || !body["vault"].is_string())
    return Error(ErrorCode::kUsage, "the build request body names no vault");
  AIRLOCK_TRY(vault, public_key_from_base58(body["vault"].get<std::string>()));
  if (seconds < 60 || seconds > 86400)
    return Error(ErrorCode::kUsage, "an approval is asked to hold 60 s to a day");
  envelope::SignRequest q;
  q.request_id = envelope::random_request_id();
  q.created_at = static_cast<std::uint64_t>(now);
  q.deadline = static_cast<std::uint64_t>(now + seconds);
  q.manager = manager;
  q.vault = vault;
  q.action = action;
  q.intent_json = body.dump();  // exactly the text the sign request will carry (round.cpp)
  q.approval = true;
  return q;
}

namespace {

// --approve-first: the intent crosses to the offline half and its approval comes back before
// anything is built, so the ticket window that a build opens holds no reading.
Status get_approval(ActContext& c, const ActOptions& options, const std::string& action,
                    const json& body) {
  AIRLOCK_TRY(q, approval_request(action, body, *options.approve_first, c.clock(),
                                  options.approval_seconds));
  c.log << "airlock-online: approval request for " << action << " carried across first; "
        << "nothing is built until the offline half approves it (it may take "
        << options.approval_seconds / 60 << " min)\n";
  AIRLOCK_TRY(response, c.courier(q));
  if (!response)
    return Error(errors::kNotApproved,
                 "no approval came back before the approval request's time ran out; nothing "
                 "was built");
  const auto mismatch = [](const std::string& what) {
    return Error(errors::kResponseMismatch, "the answer to the approval request: " + what);
  };
  if (response->request_id != q.request_id) return mismatch("it answers another request id");
  if (response->signer != q.manager) {
    std::string what = "it names the key " + to_base58(response->signer) + ", not the manager " +
                       to_base58(q.manager) +
                       " (the offline half holds another keystore, or the answer is not "
                       "from this manager's machine)";
    if (const auto* refusal = std::get_if<envelope::Refusal>(&response->result))
      what += "; it refuses: " + printable(envelope::describe(*refusal));
    return mismatch(what);
  }
  if (const auto* refusal = std::get_if<envelope::Refusal>(&response->result))
    return Error(errors::kOfflineRefused,
                 "the offline half did not approve: " + envelope::describe(*refusal));
  const auto* approval = std::get_if<envelope::Approval>(&response->result);
  if (approval == nullptr) return mismatch("it holds signatures, which answer no approval");
  if (approval->intent != envelope::intent_hash(q))
    return mismatch("it approves another intent than the one carried across");
  c.log << "airlock-online: approved until "
        << iso_utc(
               static_cast<std::int64_t>(std::min<std::uint64_t>(approval->expires_at, INT64_MAX)))
        << " by the offline clock; building now\n";
  return {};
}

}  // namespace

Result<ActLock> ActLock::take(const std::string& api, const std::optional<std::string>& vault,
                              const std::string& intent) {
  const std::string dir = journal_registry_dir();
  if (dir.empty() || dir.front() != '/') return ActLock({});
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::vector<UniqueFd> held;
  // The API's lock, then the vault's: `what` says whose in an error.
  const auto lock = [&](const std::string& name, const std::string& key,
                        const std::string& what) -> Status {
    const Hash id = sha256(text_bytes(key));
    const std::string path = dir + "/" + name + to_hex(id.view().first(8)) + ".lock";
    UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!fd.valid()) {
      return Error(ErrorCode::kIo,
                   "journal: cannot open the act lock '" + path + "': " + std::strerror(errno));
    }
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      const int why = errno;
      if (why != EWOULDBLOCK)
        return Error(ErrorCode::kIo, "cannot lock '" + path + "': " + std::strerror(why));
      const std::string text = lock_holder(fd.get());
      return Error(online::errors::kUnfinished,
                   "another act " + what + " is running on this machine (" +
                       (text.empty() ? std::string("its process") : text) + ", lock '" + path +
                       "'): what one act has in flight the next must see, so one act at a "
                       "time builds " +
                       what + "; wait for it to end and run this again");
    }
    if (!write_lock_holder(fd.get(), "airlock-online act"))
      return Error(ErrorCode::kIo, "cannot write the act lock '" + path + "'");
    held.push_back(std::move(fd));
    return {};
  };
  AIRLOCK_CHECK(lock("act-", api_identity(api), "with this API"));
  if (vault) AIRLOCK_CHECK(lock("act-vault-", *vault, "for this vault"));
  // Found by an independent fault review: two acts of one vault/initialize started together
  // through two names of one API (different API locks, no vault to lock) both read the
  // registry before either wrote its entry, and two vaults were made.
  if (!intent.empty()) AIRLOCK_CHECK(lock("act-intent-", intent, "of this same intent"));
  return ActLock(std::move(held));
}

Status act(ActContext& c, const ActOptions& options, const std::string& action, const json& body) {
  // One act at a time for an API, and for a vault, on this machine, whatever its journal (held
  // to the end). vault/initialize names no vault: its build makes one.
  const std::optional<std::string> vault =
      body.is_object() && body.contains("vault") && body["vault"].is_string()
          ? std::optional(body["vault"].get<std::string>())
          : std::nullopt;
  const std::string intent = intent_id(action, body);
  AIRLOCK_TRY(act_lock, ActLock::take(options.api, vault, intent));
  // Never build while an earlier run is unfinished: its signed steps may still be sent (resume
  // sends those whose tickets live) or may have landed.
  AIRLOCK_TRY(open_runs, c.journal.runs(true));
  if (!open_runs.empty()) {
    return Error(online::errors::kUnfinished,
                 "run " + std::to_string(open_runs.front().id) + " (" + open_runs.front().action +
                     ") is unfinished in the journal; run airlock-online resume "
                     "before building anything");
  }
  // Nor while an earlier send's outcome is open, whatever its run says.
  AIRLOCK_TRY(unresolved, c.journal.unresolved());
  if (!unresolved.empty()) {
    const auto& st = unresolved.front();
    return Error(online::errors::kUnfinished,
                 "run " + std::to_string(st.run_id) + " step " + std::to_string(st.step) + " (" +
                     st.action + ") is " + st.status +
                     "; run airlock-online resume before building anything");
  }
  // Nor while another journal of this machine has an action in flight with this API: the
  // same intent, acted under a second journal name, would be built again.
  if (const auto elsewhere = c.journal.in_flight_elsewhere(options.api, vault, intent);
      !elsewhere.empty()) {
    return Error(online::errors::kUnfinished,
                 elsewhere.front() +
                     "; run airlock-online "
                     "resume --journal with that journal before building "
                     "anything (if it is gone for good and you know how its "
                     "steps ended, move its registry entry away knowingly: " +
                     journal_registry_dir() + ")");
  }
  if (options.approve_first) AIRLOCK_CHECK(get_approval(c, options, action, body));
  int rounds_left = options.max_rounds;
  std::deque<Build> queue{{action, body}};
  Status last;
  while (!queue.empty()) {
    const Build next = queue.front();
    queue.pop_front();
    Run run(c, options, rounds_left);
    last = run.perform(next.action, next.body);
    if (last.ok()) continue;
    if (run.failed_run() == 0) return last;  // still open in the journal: resume, not replan
    auto plan = plan_after_stop(c.client, c.journal, run.failed_run(), next.body, c.clock(),
                                c.boot ? c.boot() : std::nullopt, c.log, options.command_options);
    if (!plan.ok()) {
      c.log << "airlock-online: " << printable(plan.error().to_string()) << "\n";
      return last;
    }
    if (plan->kind != RemainingWork::Kind::kOffer) return last;
    bool build = options.remaining == RemainingMode::kBuild;
    if (options.remaining == RemainingMode::kAsk) {
      if (c.ask_remaining) {
        build = c.ask_remaining();
      } else {
        c.log << "airlock-online: not a terminal, so not asking; --remaining build builds it "
                 "without asking\n";
      }
    }
    if (!build) return last;
    if (rounds_left <= 0) {
      c.log << "airlock-online: no signing rounds left (--max-rounds)\n";
      return last;
    }
    // This stop is not the invocation's last word: it is said here, as it will not be returned.
    c.log << "airlock-online: " << printable(last.error().to_string()) << "\n";
    queue.insert(queue.begin(), plan->builds.begin(), plan->builds.end());
  }
  return last;
}

}  // namespace airlock::online
