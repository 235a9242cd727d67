#include <csignal>
#include <exception>
#include <filesystem>
#include <iostream>

#include <airlock/cli/cli.h>
#include <airlock/common/display.h>
#include <airlock/common/version.h>

namespace airlock::cli {

int exit_code_for(const Error& error) noexcept {
  switch (error.kind()) {
    case ErrorKind::kInvalidInput:
    case ErrorKind::kRefused:
    case ErrorKind::kCorruption:
      return kExitRejected;
    case ErrorKind::kIo:
      return kExitIo;
    case ErrorKind::kUsage:
      return kExitUsage;
    case ErrorKind::kInternal:
      return kExitInternal;
  }
  return kExitInternal;
}

int report(std::string_view program, const Error& error) {
  // Errors quote what they refuse; what came from outside is never printed raw.
  std::cerr << program << ": " << printable(error.to_string()) << "\n";
  return exit_code_for(error);
}

int dispatch(std::string_view program, std::string_view usage, int argc, char** argv,
             const std::map<std::string, Command, std::less<>>& commands) {
  // A write past the file-size limit (ulimit -f) fails with EFBIG, and is cut back, rather
  // than kill the program halfway through a line of a log or journal (found by an independent
  // review).
  std::signal(SIGXFSZ, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << usage;
    return kExitUsage;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << usage;
    return kExitOk;
  }
  if (args[0] == "--version" || args[0] == "version") {
    std::cout << program << " " << version() << " (commit " << git_commit() << ", " << build_type()
              << " build)\n";
    return kExitOk;
  }
  const auto command = commands.find(args[0]);
  if (command == commands.end()) {
    std::cerr << program << ": unknown command '" << args[0] << "'\n\n" << usage;
    return kExitUsage;
  }
  args.erase(args.begin());
  try {
    return command->second(args);
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

std::string beside_executable(std::string_view installed, std::string_view in_source) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::string(installed);
  const auto prefix = exe.parent_path().parent_path();
  const auto installed_path = prefix / installed;
  for (const auto& candidate : {installed_path, prefix.parent_path() / in_source}) {
    if (std::filesystem::exists(candidate, ec)) return candidate.string();
  }
  return installed_path.string();
}

}  // namespace airlock::cli
