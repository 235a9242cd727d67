#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>

#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <airlock/hardening/lockdown.h>

#if defined(__SANITIZE_ADDRESS__)
#define AIRLOCK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AIRLOCK_SANITIZED 1
#endif
#endif

namespace airlock::hardening {
namespace {

constexpr unsigned long kIffUp = 0x1;
constexpr unsigned long kIffLoopback = 0x8;
constexpr unsigned long kArphrdLoopback = 772;

Error lockdown_error(std::string_view step) {
  return Error(hardening::errors::kLockdown,
               std::string(step) + " failed: " + std::strerror(errno));
}

[[maybe_unused]] std::string mebibytes(rlim_t bytes) {
  return std::to_string(bytes / (rlim_t{1024} * 1024)) + " MiB";
}

// The first line of a small sysfs file; empty when it cannot be read.
std::string first_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

bool parse_number(const std::string& text, int base, unsigned long& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtoul(text.c_str(), &end, base);
  return errno == 0 && end != text.c_str() && *end == '\0';
}

}  // namespace

Result<ProcessReport> lock_down_process() {
  const rlimit no_core{0, 0};
  if (::setrlimit(RLIMIT_CORE, &no_core) != 0) return lockdown_error("setrlimit(RLIMIT_CORE, 0)");
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return lockdown_error("prctl(PR_SET_DUMPABLE, 0)");
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return lockdown_error("prctl(PR_SET_NO_NEW_PRIVS, 1)");

  ProcessReport report;
#ifdef AIRLOCK_SANITIZED
  // The sanitizer run-time reserves terabytes of shadow memory; locking it is impossible.
  report.memory_note = "sanitizer build: memory is not locked as a whole";
#else
  rlimit memlock{};
  if (::getrlimit(RLIMIT_MEMLOCK, &memlock) != 0)
    return lockdown_error("getrlimit(RLIMIT_MEMLOCK)");
  // Raising the soft limit up to the hard one needs no privilege.
  if (memlock.rlim_cur != memlock.rlim_max) {
    memlock.rlim_cur = memlock.rlim_max;
    if (::setrlimit(RLIMIT_MEMLOCK, &memlock) != 0) (void)::getrlimit(RLIMIT_MEMLOCK, &memlock);
  }
  if (memlock.rlim_cur != RLIM_INFINITY && memlock.rlim_cur < kMinimumMemlockBytes) {
    // Locking everything with MCL_FUTURE under a small limit would make the key derivation's
    // allocation fail later, so say so and rely on sodium_malloc's own locked pages.
    report.memory_note = "memory is not locked as a whole: RLIMIT_MEMLOCK is " +
                         mebibytes(memlock.rlim_cur) + ", at least " +
                         mebibytes(kMinimumMemlockBytes) +
                         " or unlimited is needed (ulimit -l, or LimitMEMLOCK= in a unit); the "
                         "key and passphrase stay in sodium_malloc memory, which locks its own "
                         "pages";
    return report;
  }
  if (::mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
    report.memory_note =
        std::string("memory is not locked as a whole: mlockall failed: ") + std::strerror(errno);
    return report;
  }
  report.memory_locked = true;
#endif
  return report;
}

Result<std::vector<NetworkInterface>> list_interfaces(const std::string& sysfs_net) {
  std::error_code ec;
  std::filesystem::directory_iterator it(sysfs_net, ec);
  if (ec) {
    return Error(ErrorCode::kIo,
                 "cannot list network interfaces in " + sysfs_net + ": " + ec.message());
  }
  std::vector<NetworkInterface> out;
  for (const auto& entry : it) {
    NetworkInterface iface;
    iface.name = entry.path().filename().string();
    unsigned long flags = 0;
    // An interface whose flags cannot be read counts as up: unknown is not safe.
    if (!parse_number(first_line(entry.path() / "flags"), 16, flags)) flags = kIffUp;
    unsigned long type = 0;
    const bool typed = parse_number(first_line(entry.path() / "type"), 10, type);
    iface.up = (flags & kIffUp) != 0;
    iface.loopback = (flags & kIffLoopback) != 0 || (typed && type == kArphrdLoopback);
    out.push_back(std::move(iface));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

Status refuse_network(const std::vector<NetworkInterface>& interfaces) {
  std::string up;
  for (const auto& iface : interfaces) {
    if (!iface.up || iface.loopback) continue;
    if (!up.empty()) up += ", ";
    up += iface.name;
  }
  if (up.empty()) return {};
  return Error(hardening::errors::kNetworkUp,
               "network interface(s) up: " + up +
                   "; the offline half must run air-gapped (bring them down, or pass "
                   "--unsafe-allow-network to accept the risk for this run)");
}

std::vector<std::string> allowed_syscalls() {
  return {// Files: the request, keystore, policy, IDLs, audit log, response and QR frames.
          "read", "write", "readv", "writev", "pread64", "pwrite64", "open", "openat", "close",
          "lseek", "fstat", "newfstatat", "statx", "stat", "lstat", "access", "faccessat",
          "faccessat2", "getdents64", "readlink", "readlinkat", "fcntl", "dup", "dup2", "dup3",
          "flock", "fsync", "fdatasync", "ftruncate", "rename", "renameat", "renameat2", "unlink",
          "unlinkat", "mkdir", "mkdirat", "fchmod", "fchmodat", "umask", "getcwd",
          // Memory, including sodium_malloc's guarded, locked, never-dumped pages.
          "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "mlock", "mlock2", "munlock",
          // The terminal prompt (termios) and the V4L2 camera.
          "ioctl", "poll", "ppoll", "select", "pselect6",
          // Time, randomness, signals, threads' futexes, and leaving.
          "clock_gettime", "clock_nanosleep", "nanosleep", "gettimeofday", "getrandom", "futex",
          "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sched_yield", "getpid", "gettid",
          "tgkill", "exit", "exit_group"};
}

std::vector<std::string> sanitizer_extra_syscalls() {
  // LeakSanitizer stops the world at exit with a cloned tracer that uses ptrace; the
  // sanitizer run-time also reads /proc, queries the signal stack and affinity.
  return {"clone",   "clone3", "ptrace",      "wait4",
          "waitid",  "prctl",  "sigaltstack", "sched_getaffinity",
          "getppid", "kill",   "prlimit64",   "getrlimit",
          "pipe",    "pipe2",  "getdents"};
}

Result<LockedDown> install_syscall_allowlist() {
  scmp_filter_ctx ctx = ::seccomp_init(SCMP_ACT_KILL_PROCESS);
  if (ctx == nullptr) return Error(hardening::errors::kLockdown, "seccomp_init failed");
  auto names = allowed_syscalls();
#ifdef AIRLOCK_SANITIZED
  for (auto& extra : sanitizer_extra_syscalls()) names.push_back(std::move(extra));
#endif
  for (const auto& name : names) {
    const int number = ::seccomp_syscall_resolve_name(name.c_str());
    if (number == __NR_SCMP_ERROR) continue;  // not a system call on this architecture
    if (const int rc = ::seccomp_rule_add(ctx, SCMP_ACT_ALLOW, number, 0); rc != 0) {
      ::seccomp_release(ctx);
      return Error(hardening::errors::kLockdown,
                   "seccomp_rule_add(" + name + ") failed: " + std::strerror(-rc));
    }
  }
  const int rc = ::seccomp_load(ctx);
  ::seccomp_release(ctx);
  if (rc != 0)
    return Error(hardening::errors::kLockdown,
                 std::string("seccomp_load failed: ") + std::strerror(-rc));
  return LockedDown();
}

}  // namespace airlock::hardening
