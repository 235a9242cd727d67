// What the commands of airlock-online share across its source files: the error report, the
// API's and the journal's options, and the commands each file defines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <airlock/cli/options.h>
#include <airlock/common/error.h>
#include <airlock/online/api.h>
#include <airlock/online/journal.h>

namespace online_cli {

namespace po = boost::program_options;

inline constexpr std::string_view kProgram = "airlock-online";

// Prints the error as the CLI does and returns its exit code.
int report(const airlock::Error& error);

std::int64_t now_s();

// The options every command that talks to the API takes.
struct ApiOptions {
  std::string api;
  std::optional<std::string> api_key_file;
  std::optional<std::string> pace_file;  // else $AIRLOCK_PACE_FILE, else the state folder's
};

// --api (required unless `required` is false), --api-key-file and --pace-file, bound to `o`.
void api_options(po::options_description& options, ApiOptions& o, bool required = true);

// Options that fall back to an environment variable, declared once for every command that has
// them. (The API key's variable, AIRLOCK_API_KEY, is a secret: the API client reads it into
// secure memory itself.)
extern const std::vector<airlock::cli::FromEnvironment> kEnvironment;

// The options of this invocation, as the printed `act` commands for the work left repeat them:
// " --name value" each, values shell words. A value an environment variable gave is repeated
// too, so the printed command runs the same in another shell.
void repeat(std::string& out, const char* name, const std::optional<std::string>& value);
void repeat_flag(std::string& out, const char* name, bool given);
std::string repeated(const ApiOptions& o);

// The API's base URL as runs are recorded and matched: without trailing slashes, so
// `--api https://host/api/external/v1/` finds the runs made with `.../v1`.
std::string api_of(const ApiOptions& o);

// The API client, its requests paced with every other airlock-online on this machine.
airlock::Result<airlock::online::ApiClient> client_from(const ApiOptions& o);

// The journal: --journal, else AIRLOCK_JOURNAL, else ~/.local/state/airlock/journal.sqlite.
void journal_option(po::options_description& options, std::optional<std::string>& journal);

// Opens the journal; `holder` (act, resume) also takes its lock, held until the process exits,
// so no other process acts on it at the same time.
airlock::Result<airlock::online::Journal> open_journal(
    const std::optional<std::string>& journal, std::optional<std::string> holder = std::nullopt);

// reads.cpp: one GET, and the named reads as tables.
int run_get(const std::vector<std::string>& args);
int run_read(const std::string& command, const std::vector<std::string>& args);

// act.cpp: build, sign across the gap, send and follow; and finish after a crash.
int run_act(const std::vector<std::string>& args);
int run_resume(const std::vector<std::string>& args);

// history.cpp: the journal's runs, and the offline audit log accounted for.
int run_history(const std::vector<std::string>& args);
int run_reconcile(const std::vector<std::string>& args);

}  // namespace online_cli
