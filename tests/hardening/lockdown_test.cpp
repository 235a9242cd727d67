// The offline half's process lock-down (hardening/). The irreversible steps run in forked
// children so the test process itself stays ordinary; the parent reads how each child ended.
#include <cerrno>
#include <csignal>
#include <fstream>
#include <functional>

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sodium.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <airlock/hardening/lockdown.h>

#include "support/helpers.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace {

using airlock::hardening::install_syscall_allowlist;
using airlock::hardening::list_interfaces;
using airlock::hardening::lock_down_process;
using airlock::hardening::refuse_network;

// How a forked child ended: its exit code, or the signal that killed it.
struct Ending {
  bool signaled = false;
  int value = 0;  // exit code or signal number
};

// Runs `body` in a child that first locks itself down (process steps and, if `filter`, the
// syscall allowlist). The child exits with body's return value; 100+ means a setup step failed.
Ending run_locked_down(bool filter, const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!lock_down_process().ok()) ::_exit(100);
    if (filter && !install_syscall_allowlist().ok()) ::_exit(101);
    ::_exit(body());
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) return {true, WTERMSIG(status)};
  return {false, WEXITSTATUS(status)};
}

TEST(Lockdown, ProcessIsNotDumpableHasNoCoreAndNoNewPrivileges) {
  const Ending end = run_locked_down(false, [] {
    rlimit core{};
    if (::getrlimit(RLIMIT_CORE, &core) != 0 || core.rlim_cur != 0 || core.rlim_max != 0) return 1;
    if (::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0) return 2;
    if (::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) return 3;
    return 0;
  });
  EXPECT_FALSE(end.signaled);
  EXPECT_EQ(end.value, 0) << "1: core limit, 2: dumpable, 3: no_new_privs, 100: setup";
}

TEST(Lockdown, OpeningASocketKillsTheProcess) {
  const Ending end = run_locked_down(true, [] {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    return fd >= 0 ? 0 : 1;  // reaching here at all is the failure
  });
  EXPECT_TRUE(end.signaled) << "the child survived socket() and exited with " << end.value;
  EXPECT_EQ(end.value, SIGSYS);
}

TEST(Lockdown, ConnectAndExecKillTheProcessToo) {
  // connect on a descriptor that is not a socket would fail with ENOTSOCK if it were allowed.
  const Ending connect_end = run_locked_down(true, [] {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    return ::connect(0, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 ? 0 : 1;
  });
  EXPECT_TRUE(connect_end.signaled);
  EXPECT_EQ(connect_end.value, SIGSYS);
  const Ending exec_end = run_locked_down(true, [] {
    ::execl("/bin/true", "true", static_cast<char*>(nullptr));
    return 1;
  });
  EXPECT_TRUE(exec_end.signaled);
  EXPECT_EQ(exec_end.value, SIGSYS);
}

TEST(Lockdown, TheWorkOfSigningStillRunsUnderTheFilter) {
  // Files with locks, fsync and rename (the audit log and atomic writes), randomness, and
  // sodium_malloc's guarded pages: what sign does after the filter is in place.
  ASSERT_GE(sodium_init(), 0);
  airlock::test::ScratchDir dir("airlock-lockdown");
  const std::string path = dir.file("log");
  const std::string renamed = dir.file("log.final");
  const Ending end = run_locked_down(true, [&] {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return 1;
    if (::flock(fd, LOCK_EX) != 0) return 2;
    unsigned char random[32];
    if (::getrandom(random, sizeof random, 0) != static_cast<ssize_t>(sizeof random)) return 3;
    if (::write(fd, random, sizeof random) != static_cast<ssize_t>(sizeof random)) return 4;
    if (::fsync(fd) != 0 || ::ftruncate(fd, 16) != 0 || ::close(fd) != 0) return 5;
    if (::rename(path.c_str(), renamed.c_str()) != 0) return 6;
    void* secret = sodium_malloc(64);
    if (secret == nullptr) return 7;
    sodium_memzero(secret, 64);
    sodium_free(secret);
    return 0;
  });
  EXPECT_FALSE(end.signaled) << "killed by signal " << end.value;
  EXPECT_EQ(end.value, 0);
  std::ifstream in(renamed, std::ios::binary | std::ios::ate);
  EXPECT_EQ(static_cast<long>(in.tellg()), 16);
}

TEST(Lockdown, TheAllowlistHasNoNetworkOrProcessControlCall) {
  const auto allowed = airlock::hardening::allowed_syscalls();
  for (const char* forbidden : {"socket",
                                "socketpair",
                                "connect",
                                "bind",
                                "listen",
                                "accept",
                                "accept4",
                                "sendto",
                                "sendmsg",
                                "recvfrom",
                                "recvmsg",
                                "execve",
                                "execveat",
                                "fork",
                                "vfork",
                                "clone",
                                "ptrace",
                                "process_vm_readv",
                                "process_vm_writev",
                                "mount",
                                "setuid",
                                "prctl",
                                "seccomp"}) {
    EXPECT_EQ(std::count(allowed.begin(), allowed.end(), forbidden), 0) << forbidden;
  }
}

// A sysfs-like tree: one folder per interface with its flags and link type.
void add_interface(const airlock::test::ScratchDir& dir, const std::string& name,
                   const std::string& flags, const std::string& type) {
  std::filesystem::create_directories(dir.path() / name);
  if (!flags.empty()) std::ofstream(dir.path() / name / "flags") << flags << "\n";
  std::ofstream(dir.path() / name / "type") << type << "\n";
}

TEST(Lockdown, InterfacesComeFromSysfsAndOnlyNonLoopbackUpOnesRefuse) {
  airlock::test::ScratchDir dir("airlock-sysfs");
  add_interface(dir, "lo", "0x9", "772");
  add_interface(dir, "wlan0", "0x1002", "1");  // down
  auto quiet = list_interfaces(dir.path().string());
  ASSERT_TRUE(quiet.ok());
  ASSERT_EQ(quiet->size(), 2U);
  EXPECT_TRUE((*quiet)[0].loopback);
  EXPECT_TRUE((*quiet)[0].up);
  EXPECT_FALSE((*quiet)[1].up);
  EXPECT_TRUE(refuse_network(*quiet).ok()) << "loopback and a down interface are fine";

  add_interface(dir, "eth0", "0x1003", "1");
  add_interface(dir, "usb0", "", "1");  // flags unreadable: counted as up
  auto busy = list_interfaces(dir.path().string());
  ASSERT_TRUE(busy.ok());
  const auto refusal = refuse_network(*busy);
  ASSERT_FALSE(refusal.ok());
  EXPECT_EQ(refusal.error().code(), airlock::hardening::errors::kNetworkUp);
  EXPECT_THAT(refusal.error().message(), HasSubstr("eth0, usb0"));
  EXPECT_THAT(refusal.error().message(), Not(HasSubstr("wlan0")));

  EXPECT_FALSE(list_interfaces(dir.file("missing")).ok());
}

}  // namespace
