// Writing an output file where the operator points: replaced whole when it is a file, written
// into when it is a pipe or a device, and never turned from one into the other.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <string>

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <airlock/formats/files.h>

#include "support/helpers.h"

using ::testing::HasSubstr;

namespace {

namespace files = airlock::files;

class WriteAtomically : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("airlock-files-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static mode_t type_of(const std::string& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
  }
  std::filesystem::path dir_;
};

const airlock::Bytes kData{'a', 'i', 'r', 'l', 'o', 'c', 'k', '\n'};

TEST_F(WriteAtomically, AFileIsReplacedWholeAndOnlyItsOwnerReadsIt) {
  std::ofstream(path("out")) << "an older and longer content";
  ASSERT_TRUE(files::write_atomically(path("out"), kData).ok());
  std::ifstream in(path("out"), std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "airlock\n");
  struct stat st {};
  ASSERT_EQ(::stat(path("out").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600U);
  // No temporary file is left beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

TEST_F(WriteAtomically, APipeIsWrittenIntoAndStaysAPipe) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  auto reader = std::async(std::launch::async, [p = path("fifo")] {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  });
  ASSERT_TRUE(files::write_atomically(path("fifo"), kData).ok());
  EXPECT_EQ(reader.get(), "airlock\n");
  EXPECT_EQ(type_of(path("fifo")), static_cast<mode_t>(S_IFIFO));
}

TEST_F(WriteAtomically, ACharacterDeviceIsWrittenIntoNeverReplaced) {
  // A null device of our own, so a regression cannot turn the machine's /dev/null into a file.
  if (::mknod(path("null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot create a device node here (needs root): " << std::strerror(errno);
  if (const int fd = ::open(path("null").c_str(), O_WRONLY); fd < 0) {
    GTEST_SKIP() << "device nodes cannot be opened on this file system";
  } else {
    ::close(fd);
  }
  ASSERT_TRUE(files::write_atomically(path("null"), kData).ok());
  EXPECT_EQ(type_of(path("null")), static_cast<mode_t>(S_IFCHR));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

TEST_F(WriteAtomically, ADirectoryIsRefusedByNameAndLeftAsItWas) {
  std::filesystem::create_directories(path("folder"));
  std::ofstream(path("folder") + "/kept") << "kept";
  const auto s = files::write_atomically(path("folder"), kData);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().to_string(), HasSubstr(path("folder")));
  EXPECT_THAT(s.error().to_string(), HasSubstr("neither a regular file"));
  EXPECT_EQ(type_of(path("folder")), static_cast<mode_t>(S_IFDIR));
  EXPECT_TRUE(std::filesystem::exists(path("folder") + "/kept"));
}

TEST_F(WriteAtomically, ALinkToAFileReplacesThatFileAndStaysALink) {
  std::ofstream(path("victim")) << "old";
  std::filesystem::create_symlink(path("victim"), path("link"));
  ASSERT_TRUE(files::write_atomically(path("link"), kData).ok());
  EXPECT_EQ(type_of(path("link")), static_cast<mode_t>(S_IFLNK));
  EXPECT_EQ(airlock::test::text_of(path("victim")), "airlock\n");
  // As `-o /dev/stdout` with standard output redirected to a file: the file gets the bytes and
  // the descriptor's link is left alone.
  std::ofstream(path("redirected")) << "";
  const int fd = ::open(path("redirected").c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  const std::string proc_link = "/proc/self/fd/" + std::to_string(fd);
  ASSERT_TRUE(files::write_atomically(proc_link, kData).ok());
  ::close(fd);
  EXPECT_EQ(airlock::test::text_of(path("redirected")), "airlock\n");
}

TEST_F(WriteAtomically, ANameNearTheFileSystemsLimitStillWorks) {
  const std::string name(250, 'n');
  ASSERT_TRUE(files::write_atomically(path(name), kData).ok());
  EXPECT_EQ(airlock::test::text_of(path(name)), "airlock\n");
}

// "-" reads standard input, so as an output it would surprise as a file named "-" (as
// `airlock-qr decode -o -` made one): refused, naming /dev/stdout, and nothing is written.
TEST_F(WriteAtomically, ADashIsNoOutputFileName) {
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  const airlock::Bytes data = {1, 2, 3};
  const auto atomically = files::write_atomically("-", data);
  const auto fresh = files::write_new("-", data);
  const auto checked = files::check_can_write("-");
  const bool made = std::filesystem::exists(dir_ / "-");
  std::filesystem::current_path(cwd);
  for (const airlock::Status* s : {&atomically, &fresh, &checked}) {
    ASSERT_FALSE(s->ok());
    EXPECT_THAT(s->error().message(), HasSubstr("to write to standard output, give /dev/stdout"));
  }
  EXPECT_FALSE(made) << "a file named '-' was written";
}

TEST_F(WriteAtomically, OutputsAreCheckedAgainstTheInputsTheyWouldReplace) {
  std::ofstream(path("keystore")) << "the key";
  std::filesystem::create_symlink(path("keystore"), path("alias"));
  const auto same =
      files::check_outputs({{"--out", path("alias")}}, {{"--keystore", path("keystore")}});
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.error().code(), airlock::ErrorCode::kUsage);
  EXPECT_THAT(same.error().to_string(),
              HasSubstr("--out: '" + path("alias") + "' is the file of --keystore"));
  const auto nowhere = files::check_outputs({{"--out", path("no/such/folder/x")}}, {});
  ASSERT_FALSE(nowhere.ok());
  EXPECT_THAT(nowhere.error().to_string(), HasSubstr("--out: cannot write"));
  EXPECT_THAT(nowhere.error().to_string(), HasSubstr("its folder does not exist"));
  EXPECT_TRUE(
      files::check_outputs({{"--out", path("new.alres")}}, {{"--keystore", path("keystore")}})
          .ok());
  EXPECT_EQ(airlock::test::text_of(path("keystore")), "the key");
}

}  // namespace
