// The twin's private machinery, shared by the request handlers, the builders and the landing
// of transactions.
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include <airlock/apisim/message_builder.h>
#include <airlock/apisim/service.h>
#include <airlock/common/ed25519.h>
#include <airlock/common/transaction.h>

namespace airlock::apisim {

using json = nlohmann::json;

// Spec constants (manager-bot-api.md).
inline constexpr std::int64_t kTicketLifetimeMs = 90'000;
inline constexpr std::int64_t kReceiptLifetimeMs = 24LL * 3600 * 1000;
inline constexpr std::int64_t kSlotMs = 400;
// A blockhash is usable for 150 slots (about 60 s), as on the ledger.
inline constexpr std::int64_t kBlockhashSlots = 150;
inline constexpr std::size_t kMaxBodyBytes = 16384;
inline constexpr std::size_t kMaxUrlChars = 4096;
inline constexpr std::size_t kBinsPerTransaction = 70;
inline constexpr std::size_t kMaxOpenBins = 1400;

// What an API error looks like to the handlers: the status, the stable code and the message.
struct ApiError {
  int status;
  std::string code;
  std::string message;
};

template <class T>
using ApiResult = std::variant<T, ApiError>;

ApiError validation(const std::string& field, const std::string& rule);

// A token bucket refilled continuously: capacity tokens per period.
struct Bucket {
  double capacity = 0, tokens = 0;
  std::int64_t period_ms = 0, updated_ms = 0;
  void refill(std::int64_t now) {
    tokens = std::min(capacity, tokens + capacity * static_cast<double>(now - updated_ms) /
                                             static_cast<double>(period_ms));
    updated_ms = now;
  }
};

struct BuiltStep {
  Transaction tx;  // unsigned, except for pre-signed extra signers
  std::uint64_t units = 0;
  bool deferred = false;
  bool send_concurrently = false;
  std::optional<std::pair<std::string, json>> next;  // path, body
  json metadata = json::object();                    // e.g. position, vault
  std::function<void(Engine&)> effect;               // what confirming it does to the world
  PublicKey cosigner_slot_for_venue;                 // perp/onboard: the venue signs at submit
};

struct Ticket {
  std::string key_id;
  std::string action;
  Hash message_hash;
  PublicKey program;
  std::int64_t expires_ms = 0;
  std::uint64_t blockhash_slot = 0;
  // What confirming it does to the world.
  std::function<void(Engine&)> effect;
};

enum class Landing { kLands, kFails, kNever };

struct Receipt {
  std::string id;
  std::string key_id;
  Signature signature;
  std::string action;
  std::int64_t sent_ms = 0, land_ms = 0;
  std::uint64_t blockhash_slot = 0;
  Landing landing = Landing::kLands;
  std::string fail_code, fail_message;
  bool landed = false;
  bool read = false;                    // the client has polled this receipt's status at least once
  PublicKey fee_payer;                  // who paid: the transaction's first key
  std::uint64_t landed_slot = 0;        // the slot it landed in, once it has
  std::string status = "pending";       // pending, confirmed, failed, expired
  std::string send_status = "pending";  // what send answered: pending or unknown
  std::function<void(Engine&)> effect;
};

// Switchable faults (/_sim/faults).
struct Faults {
  bool rpc_outage = false;      // sends answer "unknown", reads 503
  bool rpc_no_history = false;  // /rpc keeps no transaction statuses: every signature unknown
  bool rpc_no_address_history = false;  // /rpc lists no address's transactions (an empty list)
  bool forget_receipts = false;     // status answers 404 for every receipt (retention, rotated key)
  bool key_lookup_failure = false;  // every authenticated request 503 ApiUnavailable
  std::optional<std::string> venue_failure;     // 502 with this code on venue-backed calls
  std::optional<std::string> preflight_reject;  // next sends: 422 with this code
  std::deque<Landing> next_landings;            // how the next sends land, in order
  std::string fail_code = "SlippageToleranceExceeded";
  std::int64_t extra_confirm_ms = 0;  // slow confirmation
  bool unknown_lands = true;          // whether "unknown" sends land later
  // The next sends are relayed (stored, and they land) but answered with these HTTP statuses
  // instead of the receipt: a gateway timing out after the relay (504, a non-JSON body), or a
  // 503 the service sends after the RPC took the transaction.
  std::deque<std::pair<int, std::string>> relay_then_fail;  // HTTP status, and a code or ""
  // Perp onboarding submits: the venue took the transaction but its answer failed in flight
  // (spec 3.1): the submit answers `unknown` with a receipt; it lands as unknown_lands says.
  bool venue_mid_submit = false;
  // The next sends are relayed (stored, and they land) but answered 200 with another
  // transaction's signature and receipt: a proxy or cache that mixes up replies. One per entry.
  int reply_about_another = 0;
  // Every status reply says this ("failed" or "confirmed") whatever the receipt's truth: a
  // status endpoint that lies, or a cache in front of it.
  std::optional<std::string> status_says;
};

struct Counters {
  std::uint64_t requests = 0, builds = 0, sends = 0, landed = 0;
  std::map<std::string, std::uint64_t> landed_by_signature;  // base58 signature -> times landed
  std::map<std::string, std::uint64_t> builds_by_action;
};

class Engine {
 public:
  Engine(World world, ServiceOptions options);

  Response handle(const Request& request);

  // Time.
  std::int64_t now_ms() const;
  std::uint64_t slot() const { return static_cast<std::uint64_t>(now_ms() / kSlotMs); }
  Hash blockhash_for(std::uint64_t slot) const;
  // Every receipt moves on the twin's clock, whether or not anyone polls it: a relayed
  // transaction lands on chain all the same.
  void advance_receipts();
  // Transactions that landed although the client never read their receipt's status.
  std::uint64_t landed_unread() const;
  // Every receipt, for the chain's views of what landed.
  const std::map<std::string, Receipt>& receipts() const { return receipts_; }

  // Keys the twin signs with: a position or limit-order account, the perp venue.
  Result<Keypair> derived_keypair(std::string_view tag, const PublicKey& base,
                                  std::uint64_t n) const;

  World world;
  ServiceOptions options;
  Faults faults;
  Counters counters;
  std::int64_t clock_offset_ms = 0;
  std::int64_t frozen_ms = 0;
  std::uint64_t nonce = 0;  // makes every created account unique

  // Lookup tables the twin "deployed": address -> contents.
  std::map<PublicKey, std::vector<PublicKey>> lookup_tables;

 private:
  friend class Handlers;
  std::map<std::string, Bucket> buckets_;
  std::map<std::string, Ticket> tickets_;
  std::map<std::string, Receipt> receipts_;
  std::map<std::string, std::string> receipt_by_signature_;
  std::int64_t start_wall_ms_ = 0;

 public:
  // Rate limits: all of `names` must have a token or none is taken (a rejected request uses up
  // nothing). Returns the name of an exhausted bucket.
  using Limits = std::vector<std::pair<std::string, std::pair<double, std::int64_t>>>;
  std::optional<std::string> take_tokens(const Limits& limits, bool consume = true);

  std::string add_ticket(Ticket ticket);
  const Ticket* ticket(const std::string& id) const;
  Receipt& add_receipt(Receipt receipt);
  Receipt* receipt(const std::string& id);
  Receipt* receipt_for_signature(const Signature& signature);
  void advance_receipt(Receipt& receipt);
  void drop_expired();
};

// The builders: one per action, each validating its body and producing the steps.
struct BuildContext {
  Engine& engine;
  const ApiKey& key;
  std::string action;
  const json& body;
};
ApiResult<std::vector<BuiltStep>> build_action(BuildContext& ctx);
bool is_builder_action(std::string_view action);
const std::vector<std::string>& builder_actions();

// Views of the world for the read endpoints.
json vault_summary(const World& world, const Vault& vault);
json vault_detail(const World& world, const Vault& vault);
json holdings_view(const World& world, const Vault& vault);
json strategies_view(const World& world, const Vault& vault);
json token_info(const Token& token);

}  // namespace airlock::apisim
