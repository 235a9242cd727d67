#include "support/helpers.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace airlock::hardening {
struct UnlockedForTests {
  static LockedDown make() { return LockedDown(); }
};
}  // namespace airlock::hardening

namespace airlock::test {
namespace {

// Each test process keeps a journal registry of its own (online/src/journal.cpp), inside the
// one CMake points every test at, or in a fresh folder when run by hand: money in flight is the
// machine's (Journal::in_flight_elsewhere), so a journal another test (or an earlier run) left in
// flight must not hold this one's act, and no test touches the user's registry. The processes
// a test starts inherit it.
[[maybe_unused]] const bool kOwnJournalRegistry = [] {
  const char* shared = std::getenv("AIRLOCK_JOURNAL_REGISTRY");
  std::error_code ec;
  std::string own;
  if (shared != nullptr && *shared != '\0') {
    std::filesystem::create_directories(shared, ec);
    own = std::string(shared) + "/process-XXXXXX";
  } else {
    own = (std::filesystem::temp_directory_path(ec) / "airlock-journals-XXXXXX").string();
  }
  if (::mkdtemp(own.data()) == nullptr) return false;
  ::setenv("AIRLOCK_JOURNAL_REGISTRY", own.c_str(), 1);
  static const std::string registry = own;
  std::atexit([] {
    std::error_code ignored;
    std::filesystem::remove_all(registry, ignored);
  });
  return true;
}();

}  // namespace

const hardening::LockedDown& locked_down() {
  static const hardening::LockedDown token = hardening::UnlockedForTests::make();
  return token;
}

Bytes random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes out(n);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

CommandResult run_command(const std::string& command_line) {
  CommandResult result;
  FILE* pipe = popen((command_line + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

CommandResult run_on_terminal(const std::string& command,
                              const std::vector<std::pair<std::string, std::string>>& answers) {
  std::size_t next = 0;
  return run_on_terminal(command, [&](const std::string& shown) -> std::optional<std::string> {
    if (next < answers.size() && shown.find(answers[next].first) != std::string::npos)
      return answers[next++].second;
    return std::nullopt;
  });
}

CommandResult run_on_terminal(
    const std::string& command,
    const std::function<std::optional<std::string>(const std::string& shown)>& respond) {
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::string screen;
  std::size_t seen = 0;  // what earlier answers already responded to
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < give_up) {
    pollfd p{master, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n <= 0) break;  // the child closed the terminal
    screen.append(buffer, static_cast<std::size_t>(n));
    if (auto answer = respond(screen.substr(seen))) {
      seen = screen.size();
      const std::string line = *answer + "\n";
      if (::write(master, line.data(), line.size()) != static_cast<ssize_t>(line.size())) break;
    }
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, screen};
}

ScratchDir::ScratchDir(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("mkdtemp failed for " + pattern);
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

ScopedEnv::ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
  if (const char* was = std::getenv(name_.c_str()); was != nullptr) before_ = was;
  ::setenv(name_.c_str(), value.c_str(), 1);
}

ScopedEnv::~ScopedEnv() {
  if (before_)
    ::setenv(name_.c_str(), before_->c_str(), 1);
  else
    ::unsetenv(name_.c_str());
}

std::vector<std::string> recovery_words_on_screen(const std::string& raw) {
  std::string shown = raw;  // the terminal ends lines with \r\n
  shown.erase(std::remove(shown.begin(), shown.end(), '\r'), shown.end());
  // The numbered words: after the screen's title (its blank line), before the advice.
  const std::size_t top = shown.rfind("\x1b[H");
  std::size_t from = shown.find("\n\n", top == std::string::npos ? 0 : top);
  if (from == std::string::npos) from = 0;
  const std::size_t to = shown.find("Write them down", from);
  const std::string list =
      shown.substr(from, to == std::string::npos ? std::string::npos : to - from);
  static const std::regex numbered(R"((\d+) ([a-z]+))");
  std::vector<std::string> words;
  for (std::sregex_iterator it(list.begin(), list.end(), numbered), end; it != end; ++it)
    words.push_back((*it)[2]);
  return words;
}

FolderWatch::FolderWatch(const std::filesystem::path& folder)
    : fd_(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) {
  if (fd_ < 0) throw std::runtime_error("inotify_init1 failed");
  const auto mask = IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MODIFY | IN_DELETE;
  if (::inotify_add_watch(fd_, folder.c_str(), mask) < 0) {
    ::close(fd_);
    throw std::runtime_error("cannot watch " + folder.string());
  }
}

FolderWatch::~FolderWatch() { ::close(fd_); }

bool FolderWatch::wait(std::chrono::milliseconds timeout) {
  pollfd p{fd_, POLLIN, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
  if (ready <= 0) return false;
  alignas(inotify_event) std::array<char, 4096> events{};
  while (::read(fd_, events.data(), events.size()) > 0) {
  }
  return true;
}

namespace {

std::chrono::milliseconds left_until(std::chrono::steady_clock::time_point end) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
  return std::max(left, std::chrono::milliseconds(0));
}

}  // namespace

std::optional<std::string> text_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool wait_for_file(const std::filesystem::path& path, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  FolderWatch watch(path.parent_path());  // watching before looking: nothing slips between
  while (!std::filesystem::exists(path)) {
    if (left_until(end).count() == 0) return false;
    watch.wait(left_until(end));
  }
  return true;
}

std::optional<std::string> wait_for_text(const std::filesystem::path& path,
                                         const std::regex& pattern,
                                         std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  FolderWatch watch(path.parent_path());
  for (;;) {
    if (auto text = text_of(path); text && std::regex_search(*text, pattern)) return text;
    if (left_until(end).count() == 0) return std::nullopt;
    watch.wait(left_until(end));
  }
}

std::optional<int> wait_for_exit(pid_t pid, std::chrono::milliseconds timeout) {
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) throw std::runtime_error("pidfd_open failed");
  pollfd p{fd, POLLIN, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
  ::close(fd);
  if (ready <= 0) return std::nullopt;
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return std::nullopt;
  return status;
}

void expect_golden(const std::string& name, const std::string& text) {
  const std::string path = std::string(AIRLOCK_TEST_DATA_DIR) + "/" + name;
  const char* update = std::getenv("AIRLOCK_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "no golden file " << path << "; run with AIRLOCK_UPDATE_GOLDEN=1";
  const std::string golden((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream want(golden);
  std::istringstream got(text);
  std::string w;
  std::string g;
  for (int line = 1;; ++line) {
    const bool more_w = static_cast<bool>(std::getline(want, w));
    const bool more_g = static_cast<bool>(std::getline(got, g));
    if (!more_w && !more_g) break;
    ASSERT_EQ(g, w) << name << " line " << line << "\nwhole text:\n" << text;
  }
}

SecretText SecretArena::operator()(std::string_view text) {
  auto bytes = SecretBytes::copy_of(text);
  if (!bytes.ok()) {
    std::fprintf(stderr, "SecretArena: %s\n", bytes.error().to_string().c_str());
    std::abort();
  }
  held_.push_back(std::move(bytes).value());
  return SecretText(held_.back());
}

std::vector<SecretText> SecretArena::operator()(const std::vector<std::string>& texts) {
  return (*this)(std::vector<std::string_view>(texts.begin(), texts.end()));
}

std::vector<SecretText> SecretArena::operator()(const std::vector<std::string_view>& texts) {
  std::vector<SecretText> out;
  for (const auto t : texts) out.push_back((*this)(t));
  return out;
}

}  // namespace airlock::test
