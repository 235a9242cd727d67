// Every example in README.md and docs/ holds: each fenced block says what it is; `sh` blocks run
// as written (against the API twin where they name it, the offline half in a network namespace
// with nothing in it, a terminal answering the prompts) and end with the exit status they
// state ("# exit N" at the end of a command; 0 when unsaid); every synopsis (a `synopsis` block,
// or a heading naming a command) names only options its program's --help lists; the README's
// entry commands are what CI runs. The operator's guide has a test of its own
// (operator_guide_test.cpp), which also answers its key ceremony.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conformance_support.h"
#include "docs/docs_support.h"
#include "support/helpers.h"
#include "support/interfaces.h"

using ::testing::HasSubstr;

namespace {

namespace fs = std::filesystem;
using airlock::test::CommandResult;
using airlock::test::DocBlock;
using airlock::test::slurp;

const fs::path kSource = AIRLOCK_SOURCE_DIR;

// README.md and every document in docs/, by their paths from the source tree.
std::vector<std::string> documents() {
  std::vector<std::string> out = {"README.md"};
  for (const auto& entry : fs::directory_iterator(kSource / "docs"))
    if (entry.path().extension() == ".md")
      out.push_back("docs/" + entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<DocBlock> blocks_of(const std::string& document) {
  return airlock::test::fenced_blocks(slurp((kSource / document).string()));
}

// What a block may be. Commands are `sh`; everything else says what it is instead.
const std::set<std::string, std::less<>> kKinds = {
    "sh",              // run as written
    "sh settings",     // the names the commands use (NAME=value)
    "sh alternative",  // the operator's guide's other road, run by its own test
    "sh entry",        // the README's two entry commands, run by CI itself
    "sh kit",          // the offline kit's build and root install (tests/kit_test.sh)
    "sh rehearsal",    // the guide's twin set-up (PORT is what the twin prints): the guide's
                       // test starts its twin the same way, with --manager
    "synopsis",        // a command's shape: its options are checked against --help
    "toml", "cddl", "text", "json"};

TEST(Docs, EveryBlockSaysWhatItIs) {
  int blocks = 0;
  for (const auto& document : documents()) {
    for (const auto& block : blocks_of(document)) {
      SCOPED_TRACE(document + ":" + std::to_string(block.line));
      ++blocks;
      EXPECT_TRUE(kKinds.contains(block.kind))
          << "a fenced block without a known kind ('" << block.kind
          << "'): commands are `sh`, and anything else says what it is";
      if (block.kind == "sh alternative") {
        EXPECT_EQ(document, "docs/operator-guide.md");
      }
      if (block.kind == "sh entry") {
        EXPECT_EQ(document, "README.md");
      }
      if (block.kind == "sh kit") {
        EXPECT_EQ(document, "docs/operator-guide.md");
      }
    }
  }
  EXPECT_GE(blocks, 20) << "the documents' blocks were not found";
}

TEST(Docs, TheReadmesEntryCommandsAreTheScriptsCiRuns) {
  std::vector<std::string> entry;
  for (const auto& block : blocks_of("README.md"))
    if (block.kind == "sh entry")
      for (const auto& c : block.commands) entry.push_back(c.substr(0, c.find(' ')));
  EXPECT_THAT(entry, testing::ElementsAre("scripts/demo", "scripts/test"));
  for (const auto& script : entry) {
    const auto status = fs::status(kSource / script);
    EXPECT_TRUE(fs::is_regular_file(status)) << script;
    EXPECT_NE(status.permissions() & fs::perms::owner_exec, fs::perms::none) << script;
  }
  EXPECT_THAT(slurp((kSource / ".ci/run").string()), HasSubstr("\nexec scripts/test\n"));
}

// The guide's kit commands run on two machines, one as root: the kit test takes the same steps
// (builds the kit, unpacks it, checks it, runs what it installs) in an empty root instead.
TEST(Docs, TheGuidesKitCommandsAreTheStepsTheKitTestTakes) {
  std::string commands;
  for (const auto& block : blocks_of("docs/operator-guide.md"))
    if (block.kind == "sh kit")
      for (const auto& c : block.commands) commands += c + "\n";
  const std::string kit_test = slurp((kSource / "tests/kit_test.sh").string());
  for (const char* step : {"scripts/offline-kit", "tar -xzf", "install.sh", "--version"}) {
    EXPECT_THAT(commands, HasSubstr(step));
    EXPECT_THAT(kit_test, HasSubstr(step)) << "tests/kit_test.sh does not take this step";
  }
}

// The program and command words at the start of a synopsis ("airlock-offline log verify|show
// --audit-log L" gives {airlock-offline, log, verify}), the first of each alternative.
std::vector<std::string> command_words(const std::string& synopsis) {
  std::istringstream in(synopsis);
  std::vector<std::string> words;
  std::string token;
  const std::regex word(R"([a-z][a-z0-9/-]*(\|[a-z0-9/-]+)*)");
  while (in >> token) {
    if (token == "|") break;  // "init | import | ...": the first command stands for them
    if (!std::regex_match(token, word)) break;
    words.push_back(token.substr(0, token.find('|')));
    if (words.size() == 1 && words[0] == "airlock-apisim") break;  // the twin has no commands
  }
  return words;
}

// Every synopsis in the documents: `synopsis` lines, and headings that name a command.
std::vector<std::pair<std::string, std::string>> synopses() {
  std::vector<std::pair<std::string, std::string>> out;  // (where, synopsis)
  const std::regex heading(R"(^#+ .*`(airlock-[a-z]+ [^`]*)`)");
  for (const auto& document : documents()) {
    std::istringstream in(slurp((kSource / document).string()));
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      std::smatch m;
      if (std::regex_search(line, m, heading))
        out.emplace_back(document + ":" + std::to_string(number), m[1]);
    }
    for (const auto& block : blocks_of(document)) {
      if (block.kind != "synopsis") continue;
      for (const auto& c : block.commands)
        out.emplace_back(document + ":" + std::to_string(block.line), c);
    }
  }
  return out;
}

std::string binary_of(std::string program) {
  program = program.substr(program.rfind('/') + 1);  // build/bin/airlock-apisim
  if (program == "airlock-offline") return AIRLOCK_OFFLINE_BIN;
  if (program == "airlock-online") return AIRLOCK_ONLINE_BIN;
  if (program == "airlock-qr") return AIRLOCK_QR_BIN;
  if (program == "airlock-apisim") return AIRLOCK_APISIM_BIN;
  return {};
}

TEST(Docs, EverySynopsisNamesOnlyOptionsItsProgramHas) {
  const auto all = synopses();
  ASSERT_GE(all.size(), 12U) << "the documents' synopses were not found";
  const std::regex option(R"(--[a-z][a-z0-9-]*)");
  for (const auto& [where, synopsis] : all) {
    SCOPED_TRACE(where + ": " + synopsis);
    const auto words = command_words(synopsis);
    ASSERT_FALSE(words.empty());
    const std::string binary = binary_of(words[0]);
    ASSERT_FALSE(binary.empty()) << "not one of airlock's programs";
    std::string line = binary;
    for (std::size_t i = 1; i < words.size(); ++i) line += " " + words[i];
    const auto help = airlock::test::run_command(line + " --help");
    ASSERT_EQ(help.exit_code, 0) << help.output;
    for (std::sregex_iterator it(synopsis.begin(), synopsis.end(), option), end; it != end; ++it) {
      const std::string name = it->str();
      EXPECT_TRUE(std::regex_search(help.output, std::regex(name + R"((?![a-z0-9-]))")))
          << name << " is not in `" << line.substr(line.rfind('/') + 1) << " --help`";
    }
  }
}

// The sh blocks of README.md and docs/ (but the operator's guide), run in order in a workspace
// that looks like the repository's root (build/bin holds the programs under test), with the
// names of the guide's settings pointing at the twin and at scratch files.
class DocExamples : public ::testing::Test {
 protected:
  void SetUp() override {
    airgapped_ = (kSource / "scripts/airgapped").string();
    if (airlock::test::run_command(airgapped_ + " true").exit_code != 0)
      GTEST_SKIP() << "no network namespaces here (unshare --net refused)";
    work_ = dir_.path() / "work";
    fs::create_directories(work_ / "build");
    fs::create_directories(dir_.path() / "path");
    fs::create_directories(dir_.path() / "usb");
    fs::create_directories(dir_.path() / "home");
    for (const auto& entry : fs::directory_iterator(kSource)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("build", 0) == 0 || name == ".git") continue;
      fs::create_symlink(entry.path(), work_ / name);
    }
    const fs::path bin = fs::path(AIRLOCK_OFFLINE_BIN).parent_path();
    fs::create_directories(dir_.path() / "bin");
    // build/bin/airlock-offline runs air-gapped too, as on the offline machine.
    for (const fs::path& folder : {dir_.path() / "path", dir_.path() / "bin"}) {
      airlock::test::write_program(folder / "airlock-offline",
                                   "exec " + airgapped_ + " " + AIRLOCK_OFFLINE_BIN + " \"$@\"");
      airlock::test::write_program(folder / "airlock-online",
                                   std::string("exec ") + AIRLOCK_ONLINE_BIN + " \"$@\"");
      airlock::test::write_program(folder / "airlock-qr",
                                   std::string("exec ") + AIRLOCK_QR_BIN + " \"$@\"");
      airlock::test::write_program(folder / "airlock-apisim",
                                   "exec " + (bin / "airlock-apisim").string() + " \"$@\"");
    }
    fs::create_directory_symlink(dir_.path() / "bin", work_ / "build" / "bin");
    names_ = airlock::test::guide_settings(dir_.path(), dir_.path() / "usb");
  }

  std::string shell_line(const std::string& command) const {
    std::string line = "cd " + work_.string() + " && export HOME=" + dir_.file("home") +
                       " PATH=" + dir_.file("path") + ":/usr/bin:/bin AIRLOCK_PACE_FILE=none;";
    for (const auto& [name, value] : names_) line += " " + name + "='" + value + "';";
    return "bash -c \"$(cat <<'DOCS'\n" + line + " " + command + "\nDOCS\n)\"";
  }

  CommandResult run_answering(const std::string& command) {
    return airlock::test::run_on_terminal(
        shell_line(command), [&](const std::string& shown) -> std::optional<std::string> {
          if (shown.ends_with("Keystore passphrase: ")) return passphrase_;
          if (std::regex_search(shown, std::regex(R"(\[y/N\] $|\[y/N, d: details\])")))
            return std::string("y");
          return std::nullopt;
        });
  }

  // The key, the policy, the twin and the API key the names point at, made once before the
  // first command that names any of them.
  void prepare() {
    if (twin_.running()) return;
    const std::string pass = dir_.file("pass"), keypair = dir_.file("manager.json");
    std::ofstream(pass) << passphrase_ << "\n";
    auto made = airlock::test::run_command((kSource / "scripts/demo-keypair").string() + " " +
                                           AIRLOCK_VECTORS_DIR + " " + keypair);
    ASSERT_EQ(made.exit_code, 0) << made.output;
    made = airlock::test::run_command(
        airgapped_ + " " + AIRLOCK_OFFLINE_BIN + " import --keystore " + names_.at("KEYSTORE") +
        " --keypair " + keypair + " --kdf interactive --passphrase-fd 3 3<" + pass);
    ASSERT_EQ(made.exit_code, 0) << made.output;
    std::ofstream(names_.at("POLICY"))
        << "version = 1\nmanager = \"AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax\"\n"
        << "vaults = [\"" << airlock::apisim::test::kVault << "\"]\n"
        << "programs = [\"AirLockVau1t1111111111111111111111111111111\", "
           "\"ComputeBudget111111111111111111111111111111\"]\n"
        << "max_priority_fee_lamports = 100000\nallow_unverified_lookup_tables = true\n"
        << airlock::test::twin_pin_toml();
    std::ofstream(names_.at("API_KEY")) << airlock::apisim::test::kDemoKey << "\n";
    const auto base =
        twin_.start(AIRLOCK_APISIM_BIN, AIRLOCK_APISIM_DEMO_FIXTURES, dir_.file("apisim.log"));
    ASSERT_TRUE(base) << "the twin did not say where it serves:\n"
                      << slurp(dir_.file("apisim.log"));
    names_["API"] = *base + "/api/external/v1";
    names_["RPC"] = *base + "/rpc";
  }

  airlock::test::ScratchDir dir_{"airlock-docs"};
  fs::path work_;
  std::string airgapped_;
  airlock::test::TwinProcess twin_;
  std::map<std::string, std::string> names_;
  std::string passphrase_ = "docs passphrase";
};

// The exit status a command states at its end ("# exit 1"), else 0.
int stated_exit(const std::string& command) {
  std::smatch m;
  if (std::regex_search(command, m, std::regex(R"(#\s*exit\s+(\d+)\s*$)"))) return std::stoi(m[1]);
  return 0;
}

// Where an act command writes its request, to wait for before the offline command beside it.
std::string request_path(const std::string& command) {
  std::smatch m;
  if (std::regex_search(command, m, std::regex(R"(--request-(?:qr-png|file|out) (\S+))")))
    return m[1];
  return {};
}

TEST_F(DocExamples, EveryCommandRunsAsWritten) {
  int ran = 0;
  for (const auto& document : documents()) {
    if (document == "docs/operator-guide.md") continue;  // its own test runs it
    for (const auto& block : blocks_of(document)) {
      if (block.kind != "sh") continue;
      CommandResult act_result;
      std::jthread act;  // an act command runs beside the block's next command(s)
      // How many offline commands answer it: an --approve-first act is answered twice (the
      // approval, then the signature), each after act has written the request it answers.
      int answers_left = 0;
      fs::path act_request;
      std::string answered;  // the request file as the last answer found it
      for (const auto& command : block.commands) {
        SCOPED_TRACE(document + ":" + std::to_string(block.line) + ": " + command);
        ++ran;
        for (const auto& [name, value] : names_) {
          if (command.find("$" + name) == std::string::npos) continue;
          prepare();
          ASSERT_TRUE(twin_.running());
          break;
        }
        if (command.find("airlock-online act ") != std::string::npos &&
            command.find("--help") == std::string::npos) {
          ASSERT_FALSE(act.joinable()) << "two act commands with no answer between them";
          const std::string request = request_path(command);
          ASSERT_FALSE(request.empty()) << "an act example that writes no request";
          act = std::jthread([&, command] { act_result = run_answering(command); });
          const fs::path written = (work_ / request).lexically_normal();  // "req/" is a folder
          ASSERT_TRUE(airlock::test::wait_for_file(
              written.has_filename() ? written : written.parent_path(), std::chrono::seconds(30)))
              << "act wrote no request";
          answers_left = command.find("--approve-first") != std::string::npos ? 2 : 1;
          act_request = written;
          answered.clear();
          continue;
        }
        if (act.joinable() && !answered.empty() && act_request.has_filename()) {
          // The next request: wait until act has written it over the one answered.
          for (int i = 0; i < 300 && slurp(act_request.string()) == answered; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        if (act.joinable() && act_request.has_filename()) answered = slurp(act_request.string());
        const auto result = run_answering(command);
        EXPECT_EQ(result.exit_code, stated_exit(command)) << result.output;
        if (act.joinable() && --answers_left == 0) {
          act.join();
          EXPECT_EQ(act_result.exit_code, 0) << act_result.output;
          EXPECT_THAT(act_result.output, HasSubstr("confirmed"));
        }
      }
      ASSERT_FALSE(act.joinable())
          << document << ":" << block.line << ": an act example with nothing to answer it";
    }
  }
  EXPECT_GE(ran, 10) << "fewer commands ran than the documents have";
}

}  // namespace
