// Small helpers shared by the test programs.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

#include <airlock/common/bytes.h>
#include <airlock/common/secret.h>
#include <airlock/hardening/locked_down.h>

namespace airlock::test {

// The token that opens a keystore (hardening/locked_down.h), for the tests that run the signing
// path in their own process, which they cannot put under the syscall allowlist. Tests only.
const hardening::LockedDown& locked_down();

// n pseudo-random bytes, the same for the same seed.
Bytes random_bytes(std::size_t n, std::uint32_t seed);

struct CommandResult {
  int exit_code = -1;  // -1 when the command did not exit normally
  std::string output;  // standard output and standard error, interleaved
};

// Runs a shell command line and captures what it prints.
CommandResult run_command(const std::string& command_line);

// Runs a shell command line on a fresh pseudo-terminal (so it sees a terminal on its standard
// input and output), typing each answer followed by Enter when its prompt text appears; returns
// the exit code and everything the terminal showed. Bounded: 60 s in all.
CommandResult run_on_terminal(const std::string& command_line,
                              const std::vector<std::pair<std::string, std::string>>& answers);

// The same with answers worked out from the screen: `respond` sees everything shown since its
// last answer and returns the line to type, or nothing to wait for more.
CommandResult run_on_terminal(
    const std::string& command_line,
    const std::function<std::optional<std::string>(const std::string& shown)>& respond);

// The recovery words `airlock-offline init` shows (its numbered list, "1 word 2 word ..."),
// read off a terminal's screen text (carriage returns and escape sequences included): the
// words of the last screen shown, in order; empty when none is shown.
std::vector<std::string> recovery_words_on_screen(const std::string& shown);

// A fresh private folder under the system's temporary directory, removed with its contents
// when the object goes away.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// An environment variable set for the object's lifetime, then put back as it was.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> before_;
};

// Processes in tests synchronise on files and on the kernel's notices, never on a timer.

// A watch on one folder (inotify): `wait` returns as soon as anything in it is created,
// written and closed, renamed into it or removed, or false once `timeout` passes with nothing.
class FolderWatch {
 public:
  explicit FolderWatch(const std::filesystem::path& folder);
  ~FolderWatch();
  FolderWatch(const FolderWatch&) = delete;
  FolderWatch& operator=(const FolderWatch&) = delete;
  bool wait(std::chrono::milliseconds timeout);

 private:
  int fd_ = -1;
};

// The file's bytes, or nothing when it cannot be read.
std::optional<std::string> text_of(const std::filesystem::path& path);

// Waits until `path` exists (made there or renamed into place whole), at most `timeout`.
bool wait_for_file(const std::filesystem::path& path, std::chrono::milliseconds timeout);

// Waits until the file's text matches `pattern` (as it is written), at most `timeout`; returns
// the text then, or nothing.
std::optional<std::string> wait_for_text(const std::filesystem::path& path,
                                         const std::regex& pattern,
                                         std::chrono::milliseconds timeout);

// Waits for a child process to end (its pidfd, polled with the timeout) and reaps it: its
// wait status, or nothing if it is still running after `timeout`.
std::optional<int> wait_for_exit(pid_t pid, std::chrono::milliseconds timeout);

// Compares `text` line by line with the golden file tests/data/<name> (a failure names the
// first line that differs and shows the whole text). With AIRLOCK_UPDATE_GOLDEN=1 the file is
// rewritten instead, after a deliberate change; its diff is then reviewed like code.
void expect_golden(const std::string& name, const std::string& text);

// Test vectors as secrets: each text copied into its own SecretBytes, kept as long as the arena,
// so that a test can hand a literal phrase, share or passphrase to a function that takes only
// SecretText (common/secret.h). Aborts the test program when secure memory is exhausted.
class SecretArena {
 public:
  SecretText operator()(std::string_view text);
  std::vector<SecretText> operator()(const std::vector<std::string>& texts);
  std::vector<SecretText> operator()(const std::vector<std::string_view>& texts);

 private:
  std::deque<SecretBytes> held_;
};

}  // namespace airlock::test
