// docs/operator-guide.md runs as written: every `sh` block, in order, against the API twin.
// The guide's names (its `sh settings` block) point at scratch files; the offline half runs in a
// network namespace with nothing in it (scripts/airgapped), so it locks itself down for real;
// each command gets a fresh terminal whose prompts are answered as an operator would (the words
// read off the screen and typed back, the passphrase, `y`). `sh alternative` blocks are the
// other road (shares instead of a phrase, a rebuilt machine): they run too, on a keystore of
// their own. Between the key ceremony and the first online command the test does what the guide
// leaves to people: the vault's authority is the new key (the twin's fixtures say so), the
// policy is the guide's first recipe with that manager, and the API key is in its file.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "conformance_support.h"
#include "docs/docs_support.h"
#include "support/helpers.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace {

using airlock::test::CommandResult;

using airlock::test::slurp;

// The guide's sh blocks ("sh", "sh settings", "sh alternative", "sh kit").
std::vector<airlock::test::DocBlock> sh_blocks(const std::string& markdown) {
  std::vector<airlock::test::DocBlock> out;
  for (auto& block : airlock::test::fenced_blocks(markdown))
    if (block.kind.rfind("sh", 0) == 0) out.push_back(std::move(block));
  return out;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

class OperatorGuide : public ::testing::Test {
 protected:
  void SetUp() override {
    airgapped_ = std::string(AIRLOCK_SOURCE_DIR) + "/scripts/airgapped";
    if (airlock::test::run_command(airgapped_ + " true").exit_code != 0)
      GTEST_SKIP() << "no network namespaces here (unshare --net refused)";
    // The programs by the names the guide uses; the offline one air-gapped.
    std::filesystem::create_directories(dir_.path() / "bin");
    std::filesystem::create_directories(dir_.path() / "secure");
    std::filesystem::create_directories(dir_.path() / "usb");
    std::filesystem::create_directories(dir_.path() / "home");
    write_program("airlock-offline", "exec " + airgapped_ + " " + AIRLOCK_OFFLINE_BIN + " \"$@\"");
    write_program("airlock-online", std::string("exec ") + AIRLOCK_ONLINE_BIN + " \"$@\"");
    names_ = airlock::test::guide_settings(dir_.path() / "secure", dir_.path() / "usb");
  }
  void write_program(const std::string& name, const std::string& body) {
    airlock::test::write_program(dir_.path() / "bin" / name, body);
  }

  // The shell line a guide command runs as: the names set, HOME and PATH pointing here.
  std::string shell_line(const std::string& command, const std::string& keystore) const {
    std::string line = "export HOME=" + dir_.file("home") + " PATH=" + dir_.file("bin") +
                       ":/usr/bin:/bin AIRLOCK_PACE_FILE=none;";
    for (const auto& [name, value] : names_)
      line += " " + name + "='" + (name == "KEYSTORE" ? keystore : value) + "';";
    return "bash -c \"$(cat <<'GUIDE'\n" + line + " " + command + "\nGUIDE\n)\"";
  }

  // Answers the prompts of one command on its terminal.
  CommandResult run_answering(const std::string& command, const std::string& keystore) {
    const bool changing = command.find("airlock-offline passphrase") != std::string::npos;
    const bool slip39 = command.find("slip39") != std::string::npos;
    const std::regex word_asked(R"(Word (\d+): $)");
    const std::regex share_asked(
        R"(Share (\d+) \(words separated by spaces; empty when done\): $)");
    int new_passphrase_prompts = 0;
    auto result = airlock::test::run_on_terminal(
        shell_line(command, keystore), [&](const std::string& raw) -> std::optional<std::string> {
          std::string shown = raw;
          shown.erase(std::remove(shown.begin(), shown.end(), '\r'), shown.end());
          std::smatch m;
          if (shown.find("Press Enter once they are written down") != std::string::npos) {
            shown_words_ = airlock::test::recovery_words_on_screen(shown);
            (slip39 ? shares_ : phrase_).push_back(shown_words_);
            return "";
          }
          if (std::regex_search(shown, m, word_asked)) {
            const auto at = static_cast<std::size_t>(std::stoul(m[1]));
            return at >= 1 && at <= shown_words_.size() ? shown_words_[at - 1] : "?";
          }
          if (std::regex_search(shown, m, share_asked)) {
            const auto at = static_cast<std::size_t>(std::stoul(m[1]));
            return at <= 2 && at <= shares_.size() ? join(shares_[at - 1]) : std::string();
          }
          if (shown.ends_with("BIP39 recovery phrase (words separated by spaces): "))
            return phrase_.empty() ? std::string() : join(phrase_.back());
          // init sets no passphrase on the words or shares it shows.
          if (shown.ends_with("passphrase, if one was set when the backup was made (Enter for "
                              "none): ")) {
            ++backup_passphrase_prompts_;
            return std::string();
          }
          if (shown.ends_with("Current keystore passphrase: ") ||
              shown.ends_with("Keystore passphrase: "))
            return passphrase_;
          if (shown.ends_with("New keystore passphrase: ")) {
            ++new_passphrase_prompts;
            return changing ? next_passphrase_ : passphrase_;
          }
          if (shown.ends_with("Again: ")) return changing ? next_passphrase_ : passphrase_;
          if (std::regex_search(shown, m, std::regex(R"(\[y/N\] $|\[y/N, d: details\])")))
            return std::string("y");
          return std::nullopt;
        });
    if (changing && result.exit_code == 0) passphrase_ = next_passphrase_;
    return result;
  }

  // What the guide leaves to people, done once the manager key exists.
  void prepare_online_side() {
    if (twin_.running()) return;
    ASSERT_FALSE(manager_.empty()) << "the guide made no key before the first online command";
    // The twin's vault is managed by the new key, as the guide's rehearsal starts it.
    const auto base = twin_.start(AIRLOCK_APISIM_BIN, AIRLOCK_APISIM_DEMO_FIXTURES,
                                  dir_.file("apisim.log"), {"--manager", manager_});
    ASSERT_TRUE(base) << "the twin did not say where it serves:\n"
                      << slurp(dir_.file("apisim.log"));
    names_["API"] = *base + "/api/external/v1";
    names_["RPC"] = *base + "/rpc";
    std::ofstream(names_.at("API_KEY")) << airlock::apisim::test::kDemoKey << "\n";
    // The policy: the guide's first recipe, with this manager.
    const std::string guide = slurp(std::string(AIRLOCK_SOURCE_DIR) + "/docs/operator-guide.md");
    const auto from = guide.find("```toml\n");
    ASSERT_NE(from, std::string::npos) << "the guide has no policy recipe";
    const auto body = from + 8;
    std::string recipe = guide.substr(body, guide.find("```", body) - body);
    const auto manager_line = recipe.find("manager = \"");
    ASSERT_NE(manager_line, std::string::npos);
    recipe.replace(manager_line + 11, 44, manager_);
    std::ofstream(names_.at("POLICY")) << recipe;
    // Serving is said once the port listens: the first read is answered.
    const auto first_read = airlock::test::run_command(shell_line(
        "airlock-online vaults --api \"$API\" --api-key-file \"$API_KEY\"", names_.at("KEYSTORE")));
    ASSERT_EQ(first_read.exit_code, 0) << first_read.output;
  }

  airlock::test::ScratchDir dir_{"airlock-guide"};
  std::string airgapped_;
  airlock::test::TwinProcess twin_;
  std::map<std::string, std::string> names_;
  std::string passphrase_ = "first guide passphrase";
  std::string next_passphrase_ = "second guide passphrase";
  std::vector<std::string> shown_words_;
  std::vector<std::vector<std::string>> phrase_;  // each phrase init showed
  std::vector<std::vector<std::string>> shares_;  // each share init showed
  int backup_passphrase_prompts_ = 0;  // words or shares typed, then their passphrase asked
  std::string manager_;
};

TEST_F(OperatorGuide, EveryCommandRunsAsWritten) {
  const auto blocks = sh_blocks(slurp(std::string(AIRLOCK_SOURCE_DIR) + "/docs/operator-guide.md"));
  ASSERT_GE(blocks.size(), 6U) << "the guide's sh blocks were not found";
  // The settings block names exactly what this test provides.
  std::set<std::string> named;
  for (const auto& b : blocks) {
    if (b.kind != "sh settings") continue;
    for (const auto& c : b.commands) named.insert(c.substr(0, c.find('=')));
  }
  std::set<std::string> provided;
  for (const auto& [name, value] : names_) provided.insert(name);
  // What the operator reads off a screen, not a setting: the head `log export` shows.
  provided.erase("SHOWN_HEAD");
  EXPECT_EQ(named, provided) << "the guide's settings and the names this test sets differ";

  const std::regex base58_line(R"((^|\n)([1-9A-HJ-NP-Za-km-z]{32,44})\r?\n)");
  std::string alternative_keystore;
  int alternatives = 0;
  int ran = 0;
  CommandResult online_result;
  std::jthread online;  // joined on every way out, a failed assertion included (after the result
                        // it writes, which outlives it)
  for (const auto& block : blocks) {
    // kit: kit_test.sh; rehearsal: the twin this test starts, as that block starts it
    if (block.kind == "sh settings" || block.kind == "sh kit" || block.kind == "sh rehearsal")
      continue;
    ASSERT_TRUE(block.kind == "sh" || block.kind == "sh alternative")
        << "line " << block.line << ": unknown block kind '" << block.kind << "'";
    const bool alternative = block.kind == "sh alternative";
    for (const auto& command : block.commands) {
      SCOPED_TRACE("guide line " + std::to_string(block.line) + ": " + command);
      ++ran;
      // Another road starts on a keystore of its own.
      if (alternative && (command.find(" init ") != std::string::npos ||
                          command.find(" import ") != std::string::npos))
        alternative_keystore = dir_.file("secure/alternative-" + std::to_string(++alternatives));
      const std::string keystore = alternative ? alternative_keystore : names_.at("KEYSTORE");
      if (command.rfind("airlock-online", 0) == 0) {
        prepare_online_side();
        ASSERT_TRUE(twin_.running());
      }
      if (command.rfind("airlock-online act ", 0) == 0) {
        // act waits for the offline half: it runs beside the guide's next command.
        ASSERT_FALSE(online.joinable());
        online = std::jthread([&, command] {
          online_result = airlock::test::run_command(shell_line(command, keystore));
        });
        const auto request = names_.at("USB") + "/request.alreq";
        ASSERT_TRUE(airlock::test::wait_for_file(request, std::chrono::seconds(30)))
            << "act wrote no request";
        continue;
      }
      const auto result = run_answering(command, keystore);
      EXPECT_EQ(result.exit_code, 0) << result.output;
      if (command.rfind("airlock-offline init ", 0) == 0 && !alternative) {
        std::smatch m;
        ASSERT_TRUE(std::regex_search(result.output, m, base58_line)) << result.output;
        manager_ = m[2];
      }
      if (command.find(" import ") != std::string::npos ||
          command.find(" pubkey ") != std::string::npos) {
        EXPECT_THAT(result.output, HasSubstr(manager_)) << "not the manager the ceremony made:\n"
                                                        << result.output;
      }
      if (command.rfind("airlock-offline log export ", 0) == 0) {
        // The operator copies the head off the offline screen for reconcile --head.
        std::smatch m;
        ASSERT_TRUE(std::regex_search(result.output, m, std::regex("head ([0-9a-f]{64})")))
            << result.output;
        names_["SHOWN_HEAD"] = m[1];
      }
      if (command.find("backup verify") != std::string::npos) {
        EXPECT_THAT(result.output, HasSubstr("matches"));
      }
      if (command.rfind("airlock-offline sign ", 0) == 0) {
        EXPECT_THAT(result.output, HasSubstr("signed; audit head"));
        EXPECT_THAT(result.output, Not(HasSubstr("NOT AIR-GAPPED")));
        ASSERT_TRUE(online.joinable()) << "sign ran with no act waiting";
        online.join();
        EXPECT_EQ(online_result.exit_code, 0) << online_result.output;
        EXPECT_THAT(online_result.output, HasSubstr("confirmed"));
      }
    }
  }
  if (online.joinable()) online.join();
  EXPECT_GE(ran, 12) << "fewer guide commands ran than the guide has";
  EXPECT_EQ(phrase_.size(), 1U) << "init showed a phrase once";
  EXPECT_EQ(shares_.size(), 3U) << "init showed three shares";
  // Words and shares typed on the terminal: their passphrase asked each time (the guide's
  // backup verify of each, and its import).
  EXPECT_GE(backup_passphrase_prompts_, 3) << "a backup typed with its passphrase never asked";
}

}  // namespace
