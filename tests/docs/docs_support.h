// What the tests that run the documentation share: a document's fenced blocks, the programs
// under the names the documents use, and the API twin in a process of its own.
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conformance_support.h"
#include "support/helpers.h"

namespace airlock::test {

struct DocBlock {
  std::string kind;                   // the info string: "sh", "sh settings", "toml", ...
  std::vector<std::string> lines;     // as written, unindented
  std::vector<std::string> commands;  // continuations joined; blank and comment lines dropped
  int line = 0;                       // where the block opens in the document
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every fenced block (``` at the start of a line, indentation allowed), in order.
inline std::vector<DocBlock> fenced_blocks(const std::string& markdown) {
  std::vector<DocBlock> blocks;
  std::istringstream in(markdown);
  std::string line;
  int number = 0;
  std::optional<DocBlock> open;
  std::string pending;
  while (std::getline(in, line)) {
    ++number;
    const auto first = line.find_first_not_of(' ');
    const std::string text = first == std::string::npos ? "" : line.substr(first);
    if (text.rfind("```", 0) == 0) {
      if (open) {
        blocks.push_back(*open);
        open.reset();
        pending.clear();
      } else {
        open = DocBlock{text.substr(3), {}, {}, number};
      }
      continue;
    }
    if (!open) continue;
    open->lines.push_back(text);
    if (text.empty() || text[0] == '#') continue;
    if (text.back() == '\\') {
      pending += text.substr(0, text.size() - 1);
      continue;
    }
    open->commands.push_back(pending + text);
    pending.clear();
  }
  return blocks;
}

// The names of the operator's guide's settings, which every document's commands use: the
// offline machine's files in `secure`, the stick at `usb`, the twin's vault. API and RPC are
// empty until the twin has bound a port.
inline std::map<std::string, std::string> guide_settings(const std::filesystem::path& secure,
                                                         const std::filesystem::path& usb) {
  return {
      {"KEYSTORE", (secure / "manager.keystore").string()},
      {"POLICY", (secure / "policy.toml").string()},
      {"AUDIT", (secure / "audit.log").string()},
      {"USB", usb.string()},
      {"API", ""},
      {"RPC", ""},
      {"API_KEY", (secure / "api.key").string()},
      {"VAULT", apisim::test::kVault},
      {"MANAGER", "AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax"},  // the vectors' demo key
  };
}

// A program by the name a document uses: a shell script that runs `body`.
inline void write_program(const std::filesystem::path& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
}

// airlock-apisim in a process of its own on a port the kernel picks (so tests running beside
// this one cannot take it first), stopped when the object goes away.
class TwinProcess {
 public:
  TwinProcess() = default;
  TwinProcess(const TwinProcess&) = delete;
  TwinProcess& operator=(const TwinProcess&) = delete;
  ~TwinProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  // Starts the twin with these fixtures and `more` options, its log in `log`. The base URL it
  // serves ("http://127.0.0.1:PORT"), or nothing when it named none in time (the log says why).
  std::optional<std::string> start(const std::string& binary, const std::string& fixtures,
                                   const std::string& log,
                                   const std::vector<std::string>& more = {}) {
    std::vector<std::string> args = {binary, "--listen", "127.0.0.1:0", "--fixtures", fixtures};
    args.insert(args.end(), more.begin(), more.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd < 0 || ::dup2(fd, STDERR_FILENO) < 0) ::_exit(126);
      ::execv(binary.c_str(), argv.data());
      ::_exit(127);
    }
    const std::regex serving(R"(serving http://127\.0\.0\.1:(\d+)/)");
    const auto said = wait_for_text(log, serving, std::chrono::seconds(20));
    std::smatch port;
    if (!said || !std::regex_search(*said, port, serving)) return std::nullopt;
    return "http://127.0.0.1:" + port[1].str();
  }
  [[nodiscard]] bool running() const { return pid_ > 0; }

 private:
  pid_t pid_ = -1;
};

}  // namespace airlock::test
