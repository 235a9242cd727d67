// Reading secrets (passphrases, mnemonics) without echo and without ever holding them outside
// SecretBytes: from the controlling terminal, or from a file descriptor for unattended use.
// Never from a command-line argument, which other users can read in the process list.
#pragma once

#include <csignal>
#include <iterator>
#include <string_view>

#include <termios.h>

#include <airlock/common/error.h>
#include <airlock/common/secret.h>

namespace airlock::offline {

// Longest secret line accepted (a 24-word mnemonic is under 220 characters).
inline constexpr std::size_t kMaxSecretLine = 1024;

// One line from `fd`, without its line ending; an empty line is an error unless `allow_empty`.
[[nodiscard]] Result<SecretBytes> read_secret_line(int fd, bool allow_empty = false);

// Echo off on a terminal for the object's lifetime, and put back on an interrupt (SIGINT,
// SIGTERM, SIGHUP, SIGQUIT) before the process ends by it; the handlers in place before come
// back after. `newline`: the terminal still echoes Enter (ECHONL). One at a time.
class QuietTerminal {
 public:
  // Nothing changes when `tty` is not a terminal.
  QuietTerminal(int tty, bool newline);
  ~QuietTerminal();
  QuietTerminal(const QuietTerminal&) = delete;
  QuietTerminal& operator=(const QuietTerminal&) = delete;

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  bool active_ = false;
  struct sigaction previous_[std::size(kSignals)]{};
};

// Prompts on /dev/tty with echo off and reads one line (an empty one only if `allow_empty`).
[[nodiscard]] Result<SecretBytes> prompt_secret(std::string_view prompt, bool allow_empty = false);

// For `fd` >= 0 reads from it; otherwise prompts (twice when `confirm`, which must match).
[[nodiscard]] Result<SecretBytes> obtain_secret(int fd, std::string_view prompt, bool confirm);

}  // namespace airlock::offline
