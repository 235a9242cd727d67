// Replays every stored fuzz input (tests/fuzz/corpus/<target>/*) through its target, so the
// corpora and every past finding keep being checked without clang or libFuzzer.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz_targets.h"

namespace {

class CorpusReplay : public ::testing::TestWithParam<airlock::fuzz::NamedTarget> {};

TEST_P(CorpusReplay, EveryInputRunsCleanly) {
  const auto target = GetParam();
  const std::filesystem::path dir =
      std::filesystem::path(AIRLOCK_FUZZ_CORPUS_DIR) / std::string(target.name);
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << "no corpus for " << target.name;
  std::size_t inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::vector<std::uint8_t> data((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
    SCOPED_TRACE(entry.path().string());
    EXPECT_EQ(target.run(data.data(), data.size()), 0);
    ++inputs;
  }
  EXPECT_GE(inputs, 3U) << "corpus for " << target.name << " is nearly empty";
}

// The fuzz preset builds, and scripts/fuzz campaigns, the targets of targets.txt: every entry
// point here must be there, or no campaign ever runs it.
TEST(FuzzTargets, TheListTheCampaignRunsIsEveryTarget) {
  std::ifstream in(AIRLOCK_FUZZ_TARGET_LIST);
  ASSERT_TRUE(in) << AIRLOCK_FUZZ_TARGET_LIST;
  std::vector<std::string> listed;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) listed.push_back(line);
  std::vector<std::string> known;
  for (const auto& t : airlock::fuzz::kTargets) known.emplace_back(t.name);
  EXPECT_EQ(listed, known);
}

INSTANTIATE_TEST_SUITE_P(Fuzz, CorpusReplay, ::testing::ValuesIn(airlock::fuzz::kTargets),
                         [](const auto& p) { return std::string(p.param.name); });

}  // namespace
