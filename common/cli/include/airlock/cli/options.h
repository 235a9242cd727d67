// Boost.Program_options parsing with airlock's conventions, for the command-line programs
// (airlock::cli links Boost.Program_options for them).
#pragma once

#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/program_options.hpp>
#include <fcntl.h>

#include <airlock/cli/cli.h>

namespace airlock::cli {

namespace po = boost::program_options;

// An option whose value is kept in `*out` when given, so "not given" stays std::nullopt.
template <class T>
po::typed_value<T>* optional_value(std::optional<T>* out) {
  return po::value<T>()->notifier([out](const T& v) { *out = v; });
}

// Refuses a value outside [lo, hi] with a usage error naming the option and the range.
template <class T>
void check_range(const T& v, T lo, T hi, const char* option) {
  if (v < lo || v > hi) {
    throw po::error(std::string("--") + option + " must be " + std::to_string(lo) + " to " +
                    std::to_string(hi));
  }
}

// An integer option bound to `*out` that must lie in [lo, hi]; outside, a usage error names the
// option and the range.
template <class T>
po::typed_value<T>* value_in(T* out, T lo, T hi, const char* option) {
  return po::value<T>(out)->notifier(
      [lo, hi, option](const T& v) { check_range(v, lo, hi, option); });
}

// The latest time an option may name: the year 9999 (a time beyond is a typo, and arithmetic
// on it could overflow).
inline constexpr std::int64_t kLatestUnixTime = 253402300799;

// An optional integer option within [lo, hi] (absent stays std::nullopt).
template <class T>
po::typed_value<T>* optional_in(std::optional<T>* out, T lo, T hi, const char* option) {
  return po::value<T>()->notifier([out, lo, hi, option](const T& v) {
    check_range(v, lo, hi, option);
    *out = v;
  });
}

// A file descriptor option (--passphrase-fd 3): the descriptor must be open for reading when the
// command starts, so a redirection left off is a usage error naming the option, not an empty answer
// (read as "no" or as an empty passphrase) after the request was shown.
inline void check_descriptor(int fd, const char* option) {
  // Every descriptor option is read from: one open only for writing is as good as closed.
  const int flags = fd < 0 ? -1 : ::fcntl(fd, F_GETFL);
  if (flags == -1 || (flags & O_ACCMODE) == O_WRONLY) {
    throw po::error(std::string("--") + option +
                    " must name a file descriptor open for reading (give it with a redirection "
                    "such as " +
                    std::to_string(fd < 0 ? 3 : fd) + "<file)");
  }
}
// Bound to `*out`; -1 (its default) is the terminal.
inline po::typed_value<int>* descriptor(int* out, const char* option) {
  return po::value<int>(out)->notifier([option](int fd) {
    if (fd != -1) check_descriptor(fd, option);
  });
}
inline po::typed_value<int>* optional_descriptor(std::optional<int>* out, const char* option) {
  return po::value<int>()->notifier([out, option](int fd) {
    check_descriptor(fd, option);
    *out = fd;
  });
}

// A positional argument bound to a variable: one slot (`one`), or every further argument
// (`rest`).
struct Positional {
  const char* name;
  std::optional<std::string>* one = nullptr;
  std::vector<std::string>* rest = nullptr;
};

// An option read from an environment variable when the command line does not give it. The
// variable is declared beside the option; secrets never come this way (Boost keeps values in
// ordinary strings), so the API key's variable is read by the API client into secure memory.
struct FromEnvironment {
  const char* variable;
  const char* option;
};

namespace detail {

// An option's name as typed, without anything attached to it: `--api-key=SECRET` is named
// `--api-key`, `-kSECRET` is named `-k`. What follows a name may be a secret typed in the wrong
// place, so an error names the option and never repeats it.
inline std::string name_only(std::string typed) {
  typed = typed.substr(0, typed.find('='));
  if (typed.size() > 2 && typed[0] == '-' && typed[1] != '-') typed.resize(2);
  return typed;
}

// Boost takes the word after an option that needs a value as that value, even when it is the
// next option: `--journal --json` would make a journal named "--json". Refused instead, by name.
inline std::optional<std::string> option_as_value(const std::vector<std::string>& args,
                                                  const po::options_description& all) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") break;
    if (arg.size() < 3 || arg.rfind("--", 0) != 0 || arg.find('=') != std::string::npos) continue;
    const auto* option = all.find_nothrow(arg.substr(2), false);
    const std::string& next = args[i + 1];
    if (option != nullptr && option->semantic()->max_tokens() > 0 && next.size() > 2 &&
        next.rfind("--", 0) == 0) {
      return arg + " needs a value, and the next word " + name_only(next) +
             " is an option (write " + arg + "=VALUE for a value that starts with --)";
    }
  }
  return std::nullopt;
}

// Parses `args` into `vm` (and the bound variables); on a usage error reports it and sets
// `exit_code`; on --help prints the visible options and the exit codes and sets `exit_code` to 0.
// Returns true when the command should run.
inline bool parse_options(std::string_view program, const std::vector<std::string>& args,
                          const po::options_description& visible,
                          const po::options_description& hidden,
                          const po::positional_options_description& positional,
                          po::variables_map& vm, int& exit_code,
                          const std::vector<FromEnvironment>& environment = {}) {
  po::options_description all;
  all.add(visible).add(hidden);
  if (auto swallowed = option_as_value(args, all)) {
    exit_code = report(program, Error(ErrorCode::kUsage, *swallowed + " (see --help)"));
    return false;
  }
  try {
    // Option names are matched whole: with guessing, `--api-key SECRET` would be taken as
    // `--api-key-file SECRET`, and a secret typed as an argument would not be refused.
    const int style =
        po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    po::store(po::command_line_parser(args).options(all).positional(positional).style(style).run(),
              vm);
    // Then the environment: a value stored from the command line stays; a default gives way.
    if (!environment.empty()) {
      po::store(po::parse_environment(all,
                                      [&](const std::string& variable) -> std::string {
                                        // Only the command's own options: a
                                        // variable for another command is not an error.
                                        for (const auto& e : environment) {
                                          if (variable == e.variable &&
                                              all.find_nothrow(e.option, false) != nullptr)
                                            return e.option;
                                        }
                                        return "";
                                      }),
                vm);
    }
    // Help before the required options are enforced: `sign --help` needs no --keystore.
    if (vm.count("help")) {
      std::cout << visible
                << "\nExit codes: 0 done, 1 input refused, 2 usage error, 3 I/O error, "
                   "4 internal error.\n";
      exit_code = kExitOk;
      return false;
    }
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    // The QR outputs were renamed into one family (--qr-png, --qr-html, --qr-terminal; in act,
    // prefixed by the direction): an old name says its new one.
    static const std::pair<const char*, const char*> kRenamed[] = {
        {"--png", "--qr-png"},
        {"--html", "--qr-html"},
        {"--terminal", "--qr-terminal"},
        {"--request-png", "--request-qr-png"},
        {"--request-html", "--request-qr-html"},
        {"--request-terminal", "--request-qr-terminal"},
        {"--response-qr", "--response-qr-png"}};
    const std::string name = name_only(e.get_option_name());
    std::string message = "unrecognised option '" + name + "' (see --help)";
    for (const auto& [old_name, new_name] : kRenamed) {
      if (name == old_name)
        message = std::string(old_name) + " is now " + new_name + " (see --help)";
    }
    exit_code = report(program, Error(ErrorCode::kUsage, message));
    return false;
  } catch (const po::validation_error& e) {
    // Boost's message quotes the value; it may be a secret typed where a number belongs
    // (`--passphrase-fd 'my passphrase'`), so only the option is named.
    exit_code = report(program, Error(ErrorCode::kUsage, name_only(e.get_option_name()) +
                                                             ": the value given is not valid "
                                                             "for it (see --help)"));
    return false;
  } catch (const po::error& e) {
    exit_code = report(program, Error(ErrorCode::kUsage, std::string(e.what()) + " (see --help)"));
    return false;
  }
  return true;
}

}  // namespace detail

// A command's options bound to variables (po::value<T>(&var), optional_value, value_in,
// po::bool_switch), its positional arguments and its environment fallbacks: the declaration is
// the whole parse, and the command reads its variables afterwards. Same reports as above.
inline bool parse(std::string_view program, const std::vector<std::string>& args,
                  const po::options_description& visible,
                  const std::vector<Positional>& positionals, int& exit_code,
                  const std::vector<FromEnvironment>& environment = {}) {
  po::options_description hidden;
  po::positional_options_description positional;
  for (const auto& p : positionals) {
    if (p.rest != nullptr) {
      hidden.add_options()(p.name, po::value<std::vector<std::string>>(p.rest)->multitoken(),
                           p.name);
      positional.add(p.name, -1);
    } else {
      hidden.add_options()(p.name, optional_value(p.one), p.name);
      positional.add(p.name, 1);
    }
  }
  po::variables_map vm;  // every value is in its bound variable once this returns
  return detail::parse_options(program, args, visible, hidden, positional, vm, exit_code,
                               environment);
}

}  // namespace airlock::cli
