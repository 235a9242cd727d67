// The review's finding codes (offline/include/airlock/offline/findings.h) are the ones
// docs/policy.md documents: each code in its table (refusals under Refusals, warnings under
// Warnings), and no code in those tables that the review cannot make.
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include <airlock/offline/findings.h>

namespace airlock::offline {
namespace {

// The codes in the first column of each table row of the section headed `heading`.
std::set<std::string> documented(const std::string& markdown, const std::string& heading) {
  const auto start = markdown.find("\n## " + heading + "\n");
  EXPECT_NE(start, std::string::npos) << heading;
  if (start == std::string::npos) return {};
  const auto end = markdown.find("\n## ", start + 1);
  std::istringstream section(markdown.substr(start, end - start));
  std::set<std::string> codes;
  const std::regex code("`((?:policy|intent|warn)\\.[a-z_]+)`");
  for (std::string line; std::getline(section, line);) {
    if (line.rfind("| ", 0) != 0) continue;
    const std::string first = line.substr(0, line.find(" |", 1));
    for (std::sregex_iterator it(first.begin(), first.end(), code), stop; it != stop; ++it)
      codes.insert((*it)[1]);
  }
  return codes;
}

TEST(FindingCodes, EachIsDocumentedInItsTableAndTheTablesHoldNoOther) {
  std::ifstream in(AIRLOCK_POLICY_DOC);
  std::stringstream text;
  text << in.rdbuf();
  const auto refusals = documented(text.str(), "Refusals");
  const auto warnings = documented(text.str(), "Warnings");
  std::set<std::string> made;
  for (const FindingCode* code : kAllFindingCodes) {
    const std::string name(code->name());
    EXPECT_TRUE(made.insert(name).second) << name << " is listed twice";
    const auto& table = code->warning() ? warnings : refusals;
    EXPECT_EQ(table.count(name), 1U) << name << " is not in docs/policy.md's "
                                     << (code->warning() ? "Warnings" : "Refusals") << " table";
  }
  for (const auto& table : {refusals, warnings}) {
    for (const auto& name : table)
      EXPECT_EQ(made.count(name), 1U) << name << " is documented, but the review never makes it";
  }
}

}  // namespace
}  // namespace airlock::offline
