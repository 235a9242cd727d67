// What the operator reads before saying yes: the request, then every step's instructions with
// their accounts and arguments as decoded from the bytes, then warnings and refusals. Keys are
// always printed in full: a shortened key is one an attacker can grind a look-alike for.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include <airlock/formats/envelope.h>
#include <airlock/offline/review.h>

namespace airlock::offline {

// Plain text, one line per fact; `now_unix` words the deadline ("in 74 s").
[[nodiscard]] std::string render_summary(const envelope::SignRequest& request, const Review& review,
                                         std::int64_t now_unix);

// The decision screen: what the whole request does and moves (whole tokens, each figure's
// label source), its fees and deadline, the verdict, and the refusals or warnings last, right
// above the prompt; at most `max_lines` lines of at most `width` columns (a finding too many
// for the room is counted, "d: details"). The details are render_summary's.
[[nodiscard]] std::string render_decision(const envelope::SignRequest& request,
                                          const Review& review, std::int64_t now_unix,
                                          std::size_t width = 80, std::size_t max_lines = 23);

// The screen of an approval request (docs/approvals.md): what the action does, the vault,
// every leaf of the body (bins[2].amount: 1000), keys the policy or a hint labels as tokens
// saying which, until when the approval would hold, what approving means, and the refusals or
// warnings. Nothing is cut, however many lines it takes: the approval is decided at leisure
// and what it covers is signed later without a question. Lines of at most `width` columns.
[[nodiscard]] std::string render_approval(const envelope::SignRequest& request,
                                          const Review& review, std::int64_t expires_at,
                                          std::int64_t now_unix, std::size_t width = 80);

// What an auditor's page says: the verdict first, in one word and one sentence, the facts that
// identify what was reviewed, the refusals and warnings before any detail, then the terminal's
// report exactly, and the bins as pictures.
struct HtmlReport {
  std::string verdict;   // one word: "refused", "signable", "undecodable", ...
  std::string sentence;  // what sign would do
  std::vector<std::pair<std::string, std::string>> facts;  // label, value (any text: escaped)
  const Review* review = nullptr;                          // null: the request did not decode
  // Without a review: why it was refused (an error's code and message).
  std::vector<std::pair<std::string, std::string>> problems;
  std::string report_text;  // the terminal's report
};

// One self-contained HTML page for an auditor to file: the report's parts above, the
// terminal's text in a <pre id="report">, each DLMM instruction's bins as SVG. The page has no
// script and no external resource, and its Content-Security-Policy forbids fetching any.
[[nodiscard]] std::string render_html_report(const HtmlReport& report);

// The same content for tools.
[[nodiscard]] nlohmann::ordered_json summary_json(const envelope::SignRequest& request,
                                                  const Review& review);

}  // namespace airlock::offline
