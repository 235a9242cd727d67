#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include <airlock/formats/json_fields.h>
#include <airlock/online/remaining.h>
#include <airlock/online/round.h>

namespace airlock::online {
namespace {

using json = nlohmann::json;
namespace ss = step_status;

struct BinRange {
  std::int64_t lower = 0, upper = 0;  // inclusive
};

std::optional<BinRange> range_of(const JournalStep& st) {
  const json& m = st.metadata;
  if (!m.is_object() || !m.contains("lowerBinId") || !m.contains("upperBinId") ||
      !m["lowerBinId"].is_number_integer() || !m["upperBinId"].is_number_integer()) {
    return std::nullopt;
  }
  return BinRange{m["lowerBinId"].get<std::int64_t>(), m["upperBinId"].get<std::int64_t>()};
}

std::string bins(const BinRange& r) {
  return "bins " + std::to_string(r.lower) + " to " + std::to_string(r.upper);
}

// "step 2 (bins 5000 to 5069)" or "steps 1 (...), 3 (...)".
std::string step_list(const std::vector<const JournalStep*>& steps) {
  std::string out = steps.size() == 1 ? "step " : "steps ";
  bool first = true;
  for (const JournalStep* st : steps) {
    if (!first) out += ", ";
    first = false;
    out += std::to_string(st->step);
    if (auto r = range_of(*st)) out += " (" + bins(*r) + ")";
  }
  return out;
}

RemainingWork manual(std::string why) { return {RemainingWork::Kind::kManual, {}, std::move(why)}; }

// DLMM builders whose steps each cover one range of bins and that take `cursorBinId`.
bool is_ranged_action(const std::string& action) {
  return action == "dlmm/open" || action == "dlmm/add" || action == "dlmm/add-range" ||
         action == "dlmm/remove";
}

RemainingWork plan_builds(const std::vector<JournalStep>& steps, std::int64_t now,
                          const std::optional<BootInstant>& boot);

// A step whose outcome says the same request would fail the same way: it landed and failed, or
// the API refused it for what it is (preflight 422, validation, scope), not for the time it
// took (an expired ticket, the rate limit). Spec part 7: not again unchanged.
const JournalStep* needs_a_change(const std::vector<const JournalStep*>& undone) {
  for (const JournalStep* st : undone) {
    if (st->status == ss::kFailed) return st;
    if (st->status == ss::kRejected && st->code != "InvalidTicket" && st->code != "RateLimited")
      return st;
  }
  return nullptr;
}

}  // namespace

RemainingWork plan_remaining(const std::vector<JournalStep>& steps, std::int64_t now,
                             const std::optional<BootInstant>& boot) {
  RemainingWork plan = plan_builds(steps, now, boot);
  if (plan.kind != RemainingWork::Kind::kOffer || steps.empty()) return plan;
  const int last_round =
      std::max_element(steps.begin(), steps.end(), [](const auto& a, const auto& b) {
        return a.round < b.round;
      })->round;
  std::vector<const JournalStep*> undone;
  const JournalStep* any = nullptr;
  for (const auto& st : steps) {
    if (st.round != last_round) continue;
    any = &st;
    if (st.status != ss::kConfirmed) undone.push_back(&st);
  }
  // Only the identical build is held back; a resumed range (cursorBinId) or a follow-up is a
  // different request.
  const bool identical = plan.builds.size() == 1 && plan.builds[0].action == any->action &&
                         plan.builds[0].body == any->body;
  if (const JournalStep* st = identical ? needs_a_change(undone) : nullptr) {
    plan.kind = RemainingWork::Kind::kManual;
    plan.why = "step " + std::to_string(st->step) + " " +
               (st->status == ss::kFailed ? "landed and failed" : "was refused") +
               (st->code.empty() ? "" : " (" + st->code + ")") +
               ", so the same request would fail the same way: read the current state and "
               "change what caused it (slippage, amounts, range) before building; unchanged, " +
               plan.why;
  }
  return plan;
}

namespace {

// The steps of the journal's last round, in order.
std::vector<const JournalStep*> last_round_of(const std::vector<JournalStep>& steps) {
  const int last_round =
      std::max_element(steps.begin(), steps.end(), [](const auto& a, const auto& b) {
        return a.round < b.round;
      })->round;
  std::vector<const JournalStep*> round;
  for (const auto& st : steps)
    if (st.round == last_round) round.push_back(&st);
  std::sort(round.begin(), round.end(), [](auto* a, auto* b) { return a->step < b->step; });
  return round;
}

// Why nothing can be planned yet: a step whose outcome is not known, or one never sent whose
// signed bytes could still land.
std::optional<RemainingWork> not_yet(const std::vector<const JournalStep*>& round, std::int64_t now,
                                     const std::optional<BootInstant>& boot) {
  for (const JournalStep* st : round) {
    const std::string& s = st->status;
    if (s == ss::kSending || s == ss::kPending || s == ss::kUnknown) {
      return manual("step " + std::to_string(st->step) + " of round " + std::to_string(st->round) +
                    " is " + s + ": run airlock-online resume to learn its outcome first");
    }
    const std::int64_t left = kTicketSeconds - build_age(*st, now, boot).at_least;
    if (s == ss::kSigned && left > 0) {
      // Never sent, but the signed bytes could still land until the ticket and its blockhash
      // die; building the same work now could do it twice.
      return manual("step " + std::to_string(st->step) +
                    " was signed but not sent and stays valid for " + std::to_string(left) +
                    " s more; plan again after that");
    }
  }
  return std::nullopt;
}

// What is left of a ranged DLMM build some of whose ranges confirmed: the same build resumed at
// a cursor when the confirmed ranges all come first, one removal per range left, or by hand.
RemainingWork plan_ranges(const std::string& action, const json& body,
                          const std::vector<const JournalStep*>& round,
                          const std::vector<const JournalStep*>& done,
                          const std::vector<const JournalStep*>& undone) {
  std::int64_t cursor = INT64_MAX, first = INT64_MAX, last = INT64_MIN;
  for (const JournalStep* st : round) {
    const BinRange r = *range_of(*st);
    first = std::min(first, r.lower);
    last = std::max(last, r.upper);
    if (st->status != ss::kConfirmed) cursor = std::min(cursor, r.lower);
  }
  const bool suffix = std::all_of(done.begin(), done.end(), [&](const JournalStep* st) {
    return range_of(*st)->upper < cursor;
  });
  if (suffix) {
    json next = body;
    next["cursorBinId"] = cursor;
    // dlmm/add covers the whole position unless told otherwise; the range is named so the
    // offline half can check the share of the amounts that is left.
    if (action == "dlmm/add" && !next.contains("lowerBinId")) {
      next["lowerBinId"] = first;
      next["upperBinId"] = last;
    }
    return {RemainingWork::Kind::kOffer,
            {{action, next}},
            step_list(done) + " confirmed; the same build resumed at cursorBinId " +
                std::to_string(cursor) + " covers exactly the steps that did not (" +
                step_list(undone) + ")"};
  }
  if (action == "dlmm/remove") {
    RemainingWork out{RemainingWork::Kind::kOffer, {}, ""};
    for (const JournalStep* st : undone) {
      const BinRange r = *range_of(*st);
      json part = body;
      part.erase("cursorBinId");
      part["lowerBinId"] = r.lower;
      part["upperBinId"] = r.upper;
      out.builds.push_back({action, part});
    }
    out.why = step_list(done) + " confirmed around " + step_list(undone) +
              ", which did not; one removal per range left, each named by lowerBinId/upperBinId";
    return out;
  }
  return manual(step_list(undone) + " did not confirm but later ranges (" + step_list(done) +
                ") did; resuming at a cursor would do those again, and the amounts left per "
                "range are the builder's to split: read the current state and build the missing "
                "bins yourself (" +
                std::string(action == "dlmm/open" ? "dlmm/open" : "dlmm/add-range") +
                " with their lowerBinId/upperBinId)");
}

RemainingWork plan_builds(const std::vector<JournalStep>& steps, std::int64_t now,
                          const std::optional<BootInstant>& boot) {
  if (steps.empty()) return manual("no step was signed, so nothing was sent");
  const std::vector<const JournalStep*> round = last_round_of(steps);
  const int last_round = round.front()->round;
  const std::string action = round.front()->action;
  const json& body = round.front()->body;
  if (auto wait = not_yet(round, now, boot)) return *wait;

  std::vector<const JournalStep*> done, undone;
  for (const JournalStep* st : round) (st->status == ss::kConfirmed ? done : undone).push_back(st);
  if (undone.empty()) {
    const JournalStep& last = *round.back();
    if (last.next && json_fields::text(*last.next, "path").empty() == false) {
      return {RemainingWork::Kind::kOffer,
              {{json_fields::text(*last.next, "path"), last.next->value("body", json::object())}},
              "every step confirmed; the follow-up " + json_fields::text(*last.next, "path") +
                  " is still to be built with next.body unchanged"};
    }
    return {};
  }
  if (!body.is_object() || body.empty()) {
    return manual("the journal does not hold round " + std::to_string(last_round) +
                  "'s build body (it predates journal version 2); read the current state and "
                  "build what is left yourself");
  }
  if (done.empty()) {
    return {RemainingWork::Kind::kOffer,
            {{action, body}},
            "no step of round " + std::to_string(last_round) + " confirmed (" + step_list(undone) +
                " did not), so the same build is the work left"};
  }
  const bool ranged = is_ranged_action(action) &&
                      std::all_of(round.begin(), round.end(),
                                  [](const JournalStep* st) { return range_of(*st).has_value(); });
  if (!ranged) {
    return manual(step_list(done) + " of " + action + " confirmed and " + step_list(undone) +
                  " did not; what is left depends on what the confirmed steps changed: read the "
                  "current state and build the rest yourself");
  }
  return plan_ranges(action, body, round, done, undone);
}

}  // namespace

std::string shell_word(std::string_view text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("/._-:=,+@").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(text);
  const bool printable_ascii = std::all_of(
      text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '\\'; });
  std::string quoted;
  if (printable_ascii) {
    // Single quotes keep everything literal; a quote itself closes them, comes in double
    // quotes, and reopens them (no backslash, so the word reads the same on any screen).
    quoted = "'";
    for (char c : text) quoted += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
    return quoted + "'";
  }
  // Anything else (a backslash, a control character, any byte above ASCII) in bash's $'...'
  // quoting, byte by byte: the word is printable ASCII whatever the value holds, so a screen
  // shows it as it is and a shell reads back exactly the bytes.
  quoted = "$'";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || c == '\'') {
      quoted += '\\';
      quoted += c;
    } else if (byte >= 0x20 && byte < 0x7f) {
      quoted += c;
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      quoted += "\\x";
      quoted += kHex[byte >> 4];
      quoted += kHex[byte & 0xf];
    }
  }
  return quoted + "'";
}

std::string act_command(const Build& build, std::string_view options) {
  return "airlock-online act " + shell_word(build.action) + " --body " +
         shell_word(build.body.dump()) + std::string(options);
}

}  // namespace airlock::online
