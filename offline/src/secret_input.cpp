#include <cerrno>
#include <csignal>
#include <cstring>
#include <iterator>

#include <fcntl.h>
#include <sodium.h>
#include <termios.h>
#include <unistd.h>

#include <airlock/common/fd.h>
#include <airlock/offline/secret_input.h>

namespace airlock::offline {
namespace {

// While a secret is typed with echo off, an interrupt (Ctrl-C, a hang-up, a kill) puts the
// terminal back as it was before the process ends: left without echo, the operator's next
// commands would be typed blind (an operator walk-through found it so after Ctrl-C).
volatile sig_atomic_t g_quiet_tty = -1;
termios g_saved_termios{};

extern "C" void restore_echo_and_die(int signal_number) {
  if (g_quiet_tty >= 0) {
    tcsetattr(g_quiet_tty, TCSANOW, &g_saved_termios);
    (void)!::write(g_quiet_tty, "\n", 1);
  }
  struct sigaction plain {};
  plain.sa_handler = SIG_DFL;
  sigemptyset(&plain.sa_mask);
  ::sigaction(signal_number, &plain, nullptr);
  ::raise(signal_number);
}

}  // namespace

QuietTerminal::QuietTerminal(int tty, bool newline) {
  termios saved{};
  if (g_quiet_tty >= 0 || tcgetattr(tty, &saved) != 0) return;
  active_ = true;
  g_saved_termios = saved;
  g_quiet_tty = tty;
  struct sigaction action {};
  action.sa_handler = restore_echo_and_die;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    ::sigaction(kSignals[i], &action, &previous_[i]);
  termios quiet = saved;
  quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
  if (newline) quiet.c_lflag |= ECHONL;
  tcsetattr(tty, TCSAFLUSH, &quiet);
}

QuietTerminal::~QuietTerminal() {
  if (!active_) return;
  tcsetattr(g_quiet_tty, TCSAFLUSH, &g_saved_termios);
  g_quiet_tty = -1;
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    ::sigaction(kSignals[i], &previous_[i], nullptr);
}

Result<SecretBytes> read_secret_line(int fd, bool allow_empty) {
  AIRLOCK_TRY(buffer, SecretBytes::allocate(kMaxSecretLine));
  std::size_t n = 0;
  for (;;) {
    std::uint8_t c = 0;
    const ssize_t got = ::read(fd, &c, 1);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      return Error(ErrorCode::kIo, std::string("cannot read the secret: ") + std::strerror(errno));
    if (got == 0 || c == '\n') break;
    if (n == kMaxSecretLine)
      return Error(ErrorCode::kTooLarge, "secret: longer than 1024 characters");
    buffer.bytes()[n++] = c;
  }
  if (n > 0 && buffer.bytes()[n - 1] == '\r') --n;
  if (n == 0 && allow_empty) return SecretBytes::allocate(0);
  if (n == 0) return Error(ErrorCode::kUsage, "secret: empty");
  AIRLOCK_TRY(out, SecretBytes::allocate(n));
  std::memcpy(out.bytes().data(), buffer.bytes().data(), n);
  return out;
}

Result<SecretBytes> prompt_secret(std::string_view prompt, bool allow_empty) {
  const UniqueFd owner(::open("/dev/tty", O_RDWR | O_CLOEXEC));
  const int tty = owner.get();
  if (tty < 0) {
    return Error(ErrorCode::kUsage,
                 "no terminal to ask on; give the secret on a file descriptor (--passphrase-fd / "
                 "--mnemonic-fd)");
  }
  const QuietTerminal quiet(tty, true);
  (void)!::write(tty, prompt.data(), prompt.size());
  return read_secret_line(tty, allow_empty);
}

Result<SecretBytes> obtain_secret(int fd, std::string_view prompt, bool confirm) {
  if (fd >= 0) return read_secret_line(fd);
  AIRLOCK_TRY(first, prompt_secret(prompt));
  if (!confirm) return first;
  AIRLOCK_TRY(second, prompt_secret("Again: "));
  if (first.size() != second.size() ||
      sodium_memcmp(first.bytes().data(), second.bytes().data(), first.size()) != 0) {
    return Error(ErrorCode::kUsage, "the two entries differ");
  }
  return first;
}

}  // namespace airlock::offline
