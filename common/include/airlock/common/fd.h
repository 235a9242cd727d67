// Owners for what must be given back to the kernel: a file descriptor, closed when its one owner
// goes, and an exclusive flock, released when its guard goes. Every path out of a function that
// holds one gives it back, including the early returns and the exceptions.
#pragma once

#include <optional>
#include <utility>

namespace airlock {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  ~UniqueFd() { reset(); }

  [[nodiscard]] int get() const noexcept { return fd_; }
  [[nodiscard]] bool valid() const noexcept { return fd_ >= 0; }
  // Gives the descriptor up without closing it.
  [[nodiscard]] int release() noexcept { return std::exchange(fd_, -1); }
  // Closes the descriptor held (if any) and holds `fd` instead.
  void reset(int fd = -1) noexcept;
  // Closes now and says whether close(2) succeeded: on some file systems a write's error is
  // reported only there, so a writer that must know checks it. Holds nothing afterwards.
  [[nodiscard]] bool close() noexcept;

 private:
  int fd_ = -1;
};

// An exclusive flock(2) on a descriptor someone else owns (which must outlive the guard).
class FileLock {
 public:
  // Takes the lock, waiting for it when `wait`; nullopt (errno set) when it cannot be had.
  [[nodiscard]] static std::optional<FileLock> exclusive(int fd, bool wait);
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileLock& operator=(FileLock&&) = delete;
  ~FileLock() { unlock(); }

  // Releases the lock now (errno kept); the guard holds nothing afterwards.
  void unlock() noexcept;

 private:
  explicit FileLock(int fd) noexcept : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace airlock
