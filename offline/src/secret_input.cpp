#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sodium.h>
#include <termios.h>
#include <unistd.h>

#include <airlock/common/fd.h>
#include <airlock/offline/secret_input.h>

namespace airlock::offline {

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
  termios saved{};
  const bool is_tty = tcgetattr(tty, &saved) == 0;
  if (is_tty) {
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    quiet.c_lflag |= ECHONL;
    tcsetattr(tty, TCSAFLUSH, &quiet);
  }
  (void)!::write(tty, prompt.data(), prompt.size());
  auto secret = read_secret_line(tty, allow_empty);
  if (is_tty) tcsetattr(tty, TCSAFLUSH, &saved);
  return secret;
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
