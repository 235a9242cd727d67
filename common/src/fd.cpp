#include <cerrno>

#include <sys/file.h>
#include <unistd.h>

#include <airlock/common/fd.h>

namespace airlock {

void UniqueFd::reset(int fd) noexcept {
  if (fd_ >= 0 && fd_ != fd) {
    const int saved = errno;
    (void)::close(fd_);
    errno = saved;
  }
  fd_ = fd;
}

bool UniqueFd::close() noexcept {
  if (fd_ < 0) return true;
  return ::close(std::exchange(fd_, -1)) == 0;
}

std::optional<FileLock> FileLock::exclusive(int fd, bool wait) {
  while (::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
    if (errno != EINTR) return std::nullopt;
  }
  return FileLock(fd);
}

void FileLock::unlock() noexcept {
  if (fd_ < 0) return;
  const int saved = errno;
  (void)::flock(std::exchange(fd_, -1), LOCK_UN);
  errno = saved;
}

}  // namespace airlock
