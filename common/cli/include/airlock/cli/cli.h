// What every airlock command-line program shares: exit codes, error reporting, and dispatching
// `program <command> [args]` with --help and unknown commands handled the same way.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <airlock/common/error.h>

namespace airlock::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRejected = 1;  // the input was refused; stderr names the rule
inline constexpr int kExitUsage = 2;
inline constexpr int kExitIo = 3;
inline constexpr int kExitInternal = 4;  // a bug: an exception escaped a command

[[nodiscard]] int exit_code_for(const Error& error) noexcept;

// Prints "<program>: <code>: <message>" on stderr and returns the error's exit code.
int report(std::string_view program, const Error& error);

using Command = std::function<int(const std::vector<std::string>& args)>;

// Runs the command named by argv[1] with the rest of the arguments. No command prints `usage`
// on stderr (exit 2); --help, -h and help print it on stdout (exit 0); --version prints the
// version, commit and build type (exit 0); an unknown command, and
// an exception escaping a command, are reported under the program's name.
int dispatch(std::string_view program, std::string_view usage, int argc, char** argv,
             const std::map<std::string, Command, std::less<>>& commands);

// Where a program's data is, found from the running executable so no build path is compiled
// in: <prefix>/<installed> beside an installed <prefix>/bin/program, else <source>/<in_source>
// when run from a build tree (<source>/<build>/bin/program). When neither exists, the
// installed path (so an error names where it was looked for).
[[nodiscard]] std::string beside_executable(std::string_view installed, std::string_view in_source);

}  // namespace airlock::cli
