// The pieces every airlock-online command shares (shared.h).
#include "shared.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <sys/stat.h>

#include <airlock/common/display.h>
#include <airlock/online/remaining.h>

using namespace airlock;

namespace online_cli {
namespace {

// A file in airlock's state folder, ~/.local/state/airlock (created when missing).
Result<std::string> state_file(const char* name, const char* how_else) {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0')
    return Error(ErrorCode::kUsage,
                 std::string("no HOME for the default ") + name + ": " + how_else);
  const std::filesystem::path dir = std::filesystem::path(home) / ".local/state/airlock";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error(ErrorCode::kIo, "cannot create " + dir.string() + ": " + ec.message());
  return (dir / name).string();
}

// The journal lock of this process (act and resume), held until it exits.
std::optional<online::JournalLock> g_journal_lock;

}  // namespace

int report(const Error& error) { return cli::report(kProgram, error); }

const std::vector<cli::FromEnvironment> kEnvironment = {{"AIRLOCK_PACE_FILE", "pace-file"},
                                                        {"AIRLOCK_JOURNAL", "journal"}};

// Deadlines within a run are on the monotonic clock: a wall clock that jumps mid-run moves none.
std::int64_t now_s() { return online::steady_unix_now(); }

void api_options(po::options_description& options, ApiOptions& o, bool required) {
  auto* api = po::value<std::string>(&o.api);
  if (required) api->required();
  options.add_options()("help,h", "show this help")(
      "api", api,
      required ? "the API's base URL, ending in /api/external/v1"
               : "the API's base URL, ending in /api/external/v1: read the receipts the journal "
                 "left unread")(
      "api-key-file", cli::optional_value(&o.api_key_file),
      "read the API key from this file (default: the AIRLOCK_API_KEY environment variable)")(
      "pace-file", cli::optional_value(&o.pace_file),
      "pace requests together with every process using this file (default: $AIRLOCK_PACE_FILE, "
      "else ~/.local/state/airlock/pacing; 'none': this process alone)");
}

void repeat(std::string& out, const char* name, const std::optional<std::string>& value) {
  // An empty value means the default (an empty environment variable, say): nothing to repeat.
  if (value && !value->empty()) out += std::string(" --") + name + " " + online::shell_word(*value);
}
void repeat_flag(std::string& out, const char* name, bool given) {
  if (given) out += std::string(" --") + name;
}
std::string repeated(const ApiOptions& o) {
  std::string out;
  repeat(out, "api", o.api);
  repeat(out, "api-key-file", o.api_key_file);
  repeat(out, "pace-file", o.pace_file);
  return out;
}

std::string api_of(const ApiOptions& o) {
  std::string url = o.api;
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

namespace {

// A key file others on this machine can read gives them the key: said on every run (as
// ssh refuses such a private key; here the key only reads and builds, so it is a warning).
void warn_if_shared(const std::optional<std::string>& key_file) {
  struct stat st {};
  if (!key_file || ::stat(key_file->c_str(), &st) != 0 || (st.st_mode & 077) == 0) return;
  char mode[8];
  std::snprintf(mode, sizeof mode, "%03o", static_cast<unsigned>(st.st_mode & 0777));
  std::cerr << kProgram << ": warning: the API key file " << printable(*key_file)
            << " can be read by other users (mode " << mode << "): chmod 600 it\n";
}

}  // namespace

Result<online::ApiClient> client_from(const ApiOptions& o) {
  AIRLOCK_TRY(key, online::ApiKey::load(o.api_key_file));
  warn_if_shared(o.api_key_file);
  // Requests are paced together with every other airlock-online on this machine, since the
  // per-address limits count them all.
  online::ClientOptions options;
  if (o.pace_file && !o.pace_file->empty()) {
    options.pace_file = *o.pace_file;
  } else {
    AIRLOCK_TRY(path, state_file("pacing", "give --pace-file FILE or --pace-file none"));
    options.pace_file = path;
  }
  if (options.pace_file == "none") options.pace_file.clear();
  return online::ApiClient::create(o.api, std::move(key), options);
}

void journal_option(po::options_description& options, std::optional<std::string>& journal) {
  options.add_options()("journal", cli::optional_value(&journal),
                        "the SQLite journal (default: $AIRLOCK_JOURNAL, else "
                        "~/.local/state/airlock/journal.sqlite)");
}

Result<online::Journal> open_journal(const std::optional<std::string>& journal,
                                     std::optional<std::string> holder) {
  std::string path;
  if (journal && !journal->empty()) {
    path = *journal;
  } else {
    AIRLOCK_TRY(state, state_file("journal.sqlite", "give --journal FILE or set AIRLOCK_JOURNAL"));
    path = state;
  }
  // A command that only reads (no holder: history, reconcile) creates, upgrades and seals
  // nothing.
  if (!holder) return online::Journal::open_read_only(path);
  AIRLOCK_TRY(lock, online::JournalLock::take(path, "airlock-online " + *holder));
  g_journal_lock.emplace(std::move(lock));
  return online::Journal::open(path);
}

}  // namespace online_cli
