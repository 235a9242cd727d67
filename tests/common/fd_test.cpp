// The descriptor and lock owners: what they hold is given back on every path, exactly once.
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <airlock/common/fd.h>

namespace airlock {
namespace {

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

std::string temp_file() {
  std::string path = (std::filesystem::temp_directory_path() / "airlock-fd-XXXXXX").string();
  const int fd = ::mkstemp(path.data());
  EXPECT_GE(fd, 0);
  ::close(fd);
  return path;
}

TEST(UniqueFd, ClosesWhatItOwnsOnceAndOnlyThat) {
  int raw = -1;
  {
    UniqueFd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    raw = fd.get();
    ASSERT_TRUE(fd.valid());
    UniqueFd moved(std::move(fd));
    EXPECT_FALSE(fd.valid())
        << "the moved-from owner holds nothing";  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(moved.get(), raw);
    EXPECT_TRUE(is_open(raw));
  }
  EXPECT_FALSE(is_open(raw)) << "closed when its owner went";

  UniqueFd kept(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  const int released = kept.release();
  EXPECT_FALSE(kept.valid());
  EXPECT_TRUE(is_open(released)) << "release gives it up without closing";
  ::close(released);

  UniqueFd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  UniqueFd b(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  const int first = a.get();
  a = std::move(b);
  EXPECT_FALSE(is_open(first)) << "assigning over an owner closes what it held";
  EXPECT_TRUE(a.close());
  EXPECT_FALSE(a.valid());
  EXPECT_TRUE(a.close()) << "closing nothing is no error";
}

TEST(FileLock, HeldUntilItsGuardGoesAndNotAfter) {
  const std::string path = temp_file();
  UniqueFd mine(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  UniqueFd theirs(::open(path.c_str(), O_RDWR | O_CLOEXEC));  // another open file description
  ASSERT_TRUE(mine.valid() && theirs.valid());
  {
    auto lock = FileLock::exclusive(mine.get(), false);
    ASSERT_TRUE(lock.has_value());
    EXPECT_FALSE(FileLock::exclusive(theirs.get(), false).has_value()) << "taken";
    EXPECT_EQ(errno, EWOULDBLOCK);
    lock->unlock();
    auto other = FileLock::exclusive(theirs.get(), false);
    EXPECT_TRUE(other.has_value()) << "unlock released it early";
  }
  {
    auto lock = FileLock::exclusive(mine.get(), true);
    ASSERT_TRUE(lock.has_value());
    auto moved = std::move(*lock);
    lock.reset();  // the moved-from guard releases nothing
    EXPECT_FALSE(FileLock::exclusive(theirs.get(), false).has_value());
  }
  EXPECT_TRUE(FileLock::exclusive(theirs.get(), false).has_value()) << "released with its guard";
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace airlock
