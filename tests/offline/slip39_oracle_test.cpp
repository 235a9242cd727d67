// SLIP-0039 against an independent implementation, the npm package `slip39`, both ways:
// tests/oracle/slip39_vectors.mjs (run by ctest just before this program) splits fixed secrets in
// many shapes, plain and extendable, and every set must combine here; then shares split here
// must combine in the oracle (`node slip39_vectors.mjs --combine`) to the same secret.
// AIRLOCK_SLIP39_VECTORS and AIRLOCK_SLIP39_ORACLE (compile definitions, or environment
// variables of those names, which win) say where the vectors and the script are.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <airlock/common/bytes.h>
#include <airlock/offline/slip39.h>

#include "support/helpers.h"

#ifndef AIRLOCK_SLIP39_VECTORS
#define AIRLOCK_SLIP39_VECTORS ""
#endif
#ifndef AIRLOCK_SLIP39_ORACLE
#define AIRLOCK_SLIP39_ORACLE ""
#endif

namespace airlock::offline::slip39 {
namespace {

// Vectors and test inputs as secrets, for the functions that take only SecretText.
test::SecretArena as_secret;

using json = nlohmann::json;

std::string setting(const char* name, const char* fallback) {
  const char* env = std::getenv(name);
  return env != nullptr && *env != '\0' ? env : fallback;
}

std::string_view text_of(const SecretBytes& s) {
  return {reinterpret_cast<const char*>(s.bytes().data()), s.size()};
}

json vectors() {
  const std::string path = setting("AIRLOCK_SLIP39_VECTORS", AIRLOCK_SLIP39_VECTORS);
  std::ifstream in(path);
  EXPECT_TRUE(in)
      << "no oracle vectors at '" << path
      << "' (ctest runs Slip39Oracle.Vectors first; it needs tests/oracle/node_modules)";
  return json::parse(in, nullptr, false);
}

TEST(Slip39Oracle, TheOraclesSetsCombineHere) {
  const json v = vectors();
  ASSERT_TRUE(v.is_object());
  std::size_t sets = 0, combinations = 0, extendable = 0;
  for (const auto& set : v.at("sets")) {
    const std::string name = set.at("name").get<std::string>();
    const std::string passphrase = set.at("passphrase").get<std::string>();
    const std::size_t group_threshold = set.at("group_threshold").get<std::size_t>();
    const auto groups = set.at("groups").get<std::vector<std::vector<std::size_t>>>();
    const auto mnemonics = set.at("mnemonics").get<std::vector<std::vector<std::string>>>();
    // Threshold-many groups from the front or the back, threshold-many members from the front or
    // the back of each, shuffled.
    for (int pattern = 0; pattern < 4; ++pattern) {
      std::vector<std::string_view> subset;
      for (std::size_t k = 0; k < group_threshold; ++k) {
        const std::size_t g = (pattern & 1) ? groups.size() - 1 - k : k;
        const std::size_t t = groups[g][0], n = groups[g][1];
        for (std::size_t m = 0; m < t; ++m)
          subset.push_back(mnemonics[g][(pattern & 2) ? n - 1 - m : m]);
      }
      std::shuffle(subset.begin(), subset.end(), std::mt19937(static_cast<unsigned>(pattern)));
      auto secret = combine(as_secret(subset), as_secret(passphrase));
      ASSERT_TRUE(secret.ok()) << name << ": " << secret.error().to_string();
      EXPECT_EQ(to_hex(secret->bytes()), set.at("secret").get<std::string>()) << name;
      ++combinations;
    }
    auto info = inspect(as_secret(mnemonics[0][0]));
    ASSERT_TRUE(info.ok()) << name;
    EXPECT_EQ(info->extendable, set.at("extendable").get<bool>()) << name;
    EXPECT_EQ(info->iteration_exponent, set.at("iteration_exponent").get<int>()) << name;
    extendable += info->extendable ? 1U : 0U;
    ++sets;
  }
  EXPECT_GE(sets, 10U);
  EXPECT_GT(extendable, 0U);
  EXPECT_LT(extendable, sets);
  std::cout << "[ slip39   ] " << v.value("generator", "?") << ": " << sets << " sets, "
            << combinations << " combinations agree\n";
}

TEST(Slip39Oracle, OurSetsCombineInTheOracle) {
  const std::string oracle = setting("AIRLOCK_SLIP39_ORACLE", AIRLOCK_SLIP39_ORACLE);
  ASSERT_FALSE(oracle.empty()) << "AIRLOCK_SLIP39_ORACLE is not set";
  struct Shape {
    std::string name;
    std::size_t bytes;
    std::string passphrase;
    SplitOptions options;
  };
  std::vector<Shape> shapes;
  for (const bool ext : {false, true}) {
    const std::string tag = ext ? "-ext" : "-plain";
    shapes.push_back({"1of1" + tag, 16, "", {1, {{1, 1}}, 0, ext}});
    shapes.push_back({"2of3" + tag, 16, "TREZOR", {1, {{2, 3}}, 1, ext}});
    shapes.push_back({"groups" + tag, 32, "a b ~", {2, {{2, 3}, {1, 1}, {3, 5}}, 0, ext}});
    shapes.push_back({"groups-512" + tag, 64, "x", {3, {{1, 1}, {2, 2}, {4, 6}, {2, 3}}, 2, ext}});
  }
  json request = {{"sets", json::array()}};
  std::vector<std::string> expected;
  std::uint32_t seed = 100;
  for (const auto& shape : shapes) {
    const Bytes bytes = test::random_bytes(shape.bytes, seed++);
    auto secret = SecretBytes::copy_of(bytes).value();
    std::mt19937 rng(seed++);
    auto shares = split(secret, as_secret(shape.passphrase), shape.options,
                        [&rng](std::span<std::uint8_t> out) {
                          for (auto& b : out) b = static_cast<std::uint8_t>(rng());
                        });
    ASSERT_TRUE(shares.ok()) << shape.name << ": " << shares.error().to_string();
    json mnemonics = json::array();
    for (std::size_t g = 0; g < shape.options.group_threshold; ++g) {
      const std::size_t t = shape.options.groups[g].threshold;
      for (std::size_t m = 0; m < t; ++m)
        mnemonics.push_back(std::string(text_of((*shares)[g][m])));
    }
    request["sets"].push_back(
        {{"name", shape.name}, {"passphrase", shape.passphrase}, {"mnemonics", mnemonics}});
    expected.push_back(to_hex(secret.bytes()));
  }
  test::ScratchDir dir("slip39-oracle");
  const std::string in_path = dir.file("request.json");
  std::ofstream(in_path) << request.dump();
  const auto run = test::run_command("node '" + oracle + "' --combine '" + in_path + "'");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const json reply = json::parse(run.output, nullptr, false);
  ASSERT_TRUE(reply.is_object()) << run.output;
  const auto& results = reply.at("results");
  ASSERT_EQ(results.size(), shapes.size());
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    EXPECT_FALSE(results[i].contains("error")) << shapes[i].name << ": " << results[i].dump();
    EXPECT_EQ(results[i].value("secret", ""), expected[i]) << shapes[i].name;
  }
  std::cout << "[ slip39   ] " << reply.value("generator", "?") << " combined " << shapes.size()
            << " of our sets to the same secrets\n";
}

}  // namespace
}  // namespace airlock::offline::slip39
