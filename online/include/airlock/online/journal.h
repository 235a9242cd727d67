// The online half's crash-safe journal (SQLite, WAL, synchronous=FULL): every run of an
// action, every build, every signed transaction before it is sent, every send result and every
// status change, each committed before the next irreversible step. `airlock-online resume`
// reads it after a crash to finish what was started without building anything twice;
// `airlock-online history` lists it. Schema and rules: docs/journal.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <airlock/common/error.h>
#include <airlock/common/fd.h>

struct sqlite3;

namespace airlock::online {

// A step's life: signed (verified, not yet sent) -> sending (the send call is under way; if
// the process dies here, whether it arrived is unknown) -> pending | unknown (the API has it,
// with a receipt) -> confirmed | failed | expired. `rejected`: the API refused the send (no
// receipt, nothing happened). `abandoned`: signed but never sent, and its ticket has expired.
namespace step_status {
inline constexpr const char* kSigned = "signed";
inline constexpr const char* kSending = "sending";
inline constexpr const char* kPending = "pending";
inline constexpr const char* kUnknown = "unknown";
inline constexpr const char* kConfirmed = "confirmed";
inline constexpr const char* kFailed = "failed";
inline constexpr const char* kExpired = "expired";
inline constexpr const char* kRejected = "rejected";
inline constexpr const char* kAbandoned = "abandoned";

// A status a receipt poll (GET /transactions/status) may answer, as the spec names them.
[[nodiscard]] inline bool is_receipt_status(std::string_view s) {
  return s == kPending || s == kUnknown || s == kConfirmed || s == kFailed || s == kExpired;
}
}  // namespace step_status

struct JournalRun {
  std::int64_t id = 0;
  std::int64_t started_at = 0;
  std::string api;
  std::string action;
  nlohmann::json body;
  std::string state;  // open, done, failed, stopped
  std::string note;
};

struct JournalStep {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  int round = 0;  // signing round within the run, from 1
  int step = 0;   // step within the round, from 1
  std::string action;
  std::string ticket;
  std::int64_t built_at = 0;  // the ticket expires 90 s later
  bool concurrent = false;    // sendConcurrently
  bool submit = false;        // perp onboarding: sent to the submit endpoint
  std::string transaction;    // signed, base64
  std::string signature;      // base58, the manager's (the transaction's id)
  std::string receipt;
  std::string status;
  std::string code;
  std::string message;
  std::optional<nlohmann::json> next;  // the build's follow-up, on a round's last step
  std::int64_t sent_at = 0;            // when the API accepted it (0: not yet)
  std::int64_t updated_at = 0;
  nlohmann::json body = nlohmann::json::object();      // the round's build request body
  nlohmann::json metadata = nlohmann::json::object();  // the build step's other fields
};

struct JournalEvent {
  std::int64_t run_id = 0;
  std::int64_t at = 0;
  std::string kind;
  std::string detail;
};

// An intent as the registry's in-flight lists name it: a hash of the action and its body.
[[nodiscard]] std::string intent_id(const std::string& action, const nlohmann::json& body);

// One process at a time acts on a journal: `act` and `resume` hold this lock (an flock on the
// database file itself, so every path to it, symlink or hard link, meets the same lock; the
// kernel releases it when the holder exits, however it exits) for as long as they run, so a
// resume can never close a run whose act is still about to send. Who holds it is written to
// the file's real path + ".lock".
class JournalLock {
 public:
  // Takes the lock without waiting; `who` is written into the lock file for the next comer.
  // Fails, naming the holder ("airlock-online act, pid 1234, since ..."), when it is taken.
  [[nodiscard]] static Result<JournalLock> take(const std::string& journal_path,
                                                const std::string& who);

 private:
  // Closing the database file's last descriptor releases the flock.
  explicit JournalLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

// A lock file's holder line, for the next comer's error: read (empty when none), and written
// as "WHO, pid N, since unix T" over what was there (false when it cannot be).
[[nodiscard]] std::string lock_holder(int fd);
[[nodiscard]] bool write_lock_holder(int fd, const std::string& who);

// Where the journals' identities are kept by id: $AIRLOCK_JOURNAL_REGISTRY, else
// ~/.local/state/airlock/journals; empty (no registry: each journal's seal beside it alone)
// when neither is set.
[[nodiscard]] std::string journal_registry_dir();

class Journal {
 public:
  // Opens (creating when missing) and checks the schema version. Another process may hold the
  // journal too; writers wait up to five seconds for each other. Refuses a journal file with
  // more than one name (hard links), and one its seal (PATH.seal: the journal's identity and
  // how many changes it has seen, rewritten after each change) says was emptied, replaced or
  // rolled back.
  // Each journal's identity is also kept by id in a registry (journal_registry_dir()): a
  // journal moved or copied to another name (its write-ahead log left behind), or an older copy
  // of it, holds fewer changes than the registry counted and is refused naming the name it was
  // last used under; a second file that is the same journal is refused too.
  [[nodiscard]] static Result<Journal> open(const std::string& path);
  // The journal as it stands, for the commands that only read it (history, reconcile): nothing
  // is created, upgraded or sealed, and the same checks hold (one name, the seal's identity and
  // count). A journal that is not there, or of another schema version, is an error saying so.
  [[nodiscard]] static Result<Journal> open_read_only(const std::string& path);
  ~Journal();
  Journal(Journal&& other) noexcept;
  Journal& operator=(Journal&& other) noexcept;
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  [[nodiscard]] Result<std::int64_t> begin_run(const std::string& api, const std::string& action,
                                               const nlohmann::json& body, std::int64_t now);
  [[nodiscard]] Status event(std::int64_t run_id, const std::string& kind,
                             const std::string& detail, std::int64_t now);
  // Records the signed steps of one round, all in one transaction, before any is sent; sets
  // their ids.
  [[nodiscard]] Status add_signed_steps(std::vector<JournalStep>& steps);
  [[nodiscard]] Status update_step(const JournalStep& step);
  [[nodiscard]] Status finish_run(std::int64_t run_id, const std::string& state,
                                  const std::string& note, std::int64_t now);

  [[nodiscard]] Result<std::vector<JournalRun>> runs(bool open_only) const;
  [[nodiscard]] Result<std::vector<JournalStep>> steps(std::int64_t run_id) const;
  [[nodiscard]] Result<std::vector<JournalEvent>> events(std::int64_t run_id) const;

  // The signatures this journal holds: every step's, and those of the steps it knows landed
  // (confirmed or failed on chain), each sorted.
  struct Known {
    std::vector<std::string> signatures;
    std::vector<std::string> landed;
  };
  [[nodiscard]] Result<Known> known_signatures() const;
  // The step signatures of every other journal the registry knows, where its file can be read
  // (sorted): another journal's landing is no sign that this one was put back.
  [[nodiscard]] std::vector<std::string> signatures_elsewhere() const;

  // Steps sent or possibly sent whose outcome is not yet known (sending, pending, unknown), in
  // any open run: while there are any, nothing may be built.
  [[nodiscard]] Result<std::vector<JournalStep>> unresolved() const;

  // Other journals of this machine's registry with an action in flight (an open run, or a step
  // whose outcome is open) with `api`, however its URL is spelt (api_identity), or for `vault`
  // through any API: "journal ID, last used as PATH, has an action in flight ..." for each.
  // Money in flight is the machine's, not one journal's: a second journal name (another
  // --journal, a symlinked folder switched to another release) or another spelling of the
  // API's URL would otherwise build the same intent again.
  // Or of the same intent (intent_id) through any API: a vault/initialize names no vault.
  [[nodiscard]] std::vector<std::string> in_flight_elsewhere(
      const std::string& api, const std::optional<std::string>& vault,
      const std::string& intent) const;

 private:
  explicit Journal(sqlite3* db) : db_(db) {}
  [[nodiscard]] Status seal() const;
  sqlite3* db_ = nullptr;
  std::string seal_path_;
  std::string real_path_;      // the journal's own name, as the registry records it
  std::string registry_path_;  // its entry in the registry; empty when there is none
};

}  // namespace airlock::online
