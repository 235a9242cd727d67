// The offline policy: what this machine will sign. A TOML file (docs/policy.md, with a
// commented example in offline/policy.example.toml). Safe defaults refuse: an empty policy
// allows no vault, no program, no unpinned lookup table and no durable nonce.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <airlock/common/accounts.h>
#include <airlock/common/bytes.h>
#include <airlock/common/error.h>

namespace airlock::offline {

// This module's error codes (their kinds and the exit codes: common/error.h).
namespace errors {
// A policy setting that breaks its rule: the command is misconfigured.
inline constexpr ErrorCode kPolicyInvalid{ErrorKind::kUsage, "policy.invalid"};
}  // namespace errors

struct ActionRule {
  bool allowed = true;
  bool auto_approve = false;                      // sign without asking, when nothing warns
  std::optional<std::uint16_t> max_slippage_bps;  // a ceiling stricter than the request's own
  // The most bins a liquidity action's pool may move before it fails (maxActiveBinSlippage).
  std::optional<std::uint16_t> max_active_bin_slippage;
};

// How an action's slippage is counted, which says which ceiling of an [actions] rule applies to
// it: a ceiling on an action that carries no slippage of that kind is refused when the policy
// loads, so every ceiling the policy accepts is enforced.
enum class SlippageKind { kNone, kBps, kBins };
[[nodiscard]] SlippageKind slippage_kind(std::string_view action);

// A token whose symbol and decimals this machine knows for itself. The online half's token
// hints are checked against these and never override them.
struct PinnedToken {
  PublicKey mint;
  std::string symbol;
  std::uint8_t decimals = 0;
};

// A perp market's account for its symbol: the build request names a market by symbol only, so
// the offline half can bind the market account only to what its policy pins.
struct PinnedMarket {
  std::string symbol;
  PublicKey address;
};

// A DLMM pool whose two tokens this machine knows for itself; both must be pinned tokens
// ([[tokens]]), so the summary's symbols and decimals for it are the policy's too. A deposit's
// amount_x and amount_y carry no mint; with the pool pinned they count under the tokens'
// limits, and a pool hint from the online half that says otherwise is refused.
struct PinnedPool {
  PublicKey address;
  PublicKey token_x;
  PublicKey token_y;
};

// The least a swap from one pinned token to another must guarantee, in whole units of the token
// bought per whole unit of the token sold (docs/policy.md, "Price floors"). This machine holds no
// prices of its own; with no floor for its pair a swap's quote is the online half's word alone,
// and the review says so.
struct PriceFloor {
  PinnedToken sells;
  PinnedToken buys;
  // at_least = numerator / 10^scale ("1.25" is 125 / 10^2).
  std::uint64_t numerator = 0;
  std::uint8_t scale = 0;
  std::string text;  // as the policy writes it
};
// The most decimal places a floor may be written with.
inline constexpr std::uint8_t kMaxPriceScale = 24;

// Caps over rolling windows, counted from the audit log (docs/policy.md, "Caps over time"): an hour
// is the last 3,600 s, a day the last 86,400 s of the offline clock.
struct WindowLimit {
  std::optional<std::uint64_t> per_hour;
  std::optional<std::uint64_t> per_day;
  [[nodiscard]] bool any() const noexcept { return per_hour || per_day; }
};

// The amount of a pinned token that may leave the vault (swapped away, or sent to a venue), in
// its base units.
struct TokenLimit {
  PinnedToken token;
  WindowLimit amount;
};

struct Limits {
  WindowLimit rounds;                                       // signed requests, any action
  std::map<std::string, WindowLimit, std::less<>> actions;  // signed requests of one action
  std::vector<TokenLimit> tokens;
  [[nodiscard]] bool any() const noexcept {
    return rounds.any() || !actions.empty() || !tokens.empty();
  }
};

// A descriptor this policy lets the review bind requests to, and the IDLs it uses, each by the
// SHA-256 of its file: a descriptor says what the key will sign, so a changed one is refused
// until a person has reviewed it and pinned its new hash (docs/descriptors.md).
struct DescriptorPin {
  std::string file;  // a file name in the descriptor folder
  Hash sha256{};
  std::map<std::string, Hash> idls;  // file name in the IDL folder -> SHA-256
};

struct Policy {
  PublicKey manager;
  std::set<PublicKey> vaults;
  std::set<PublicKey> programs;
  std::vector<LoadedTable> pinned_tables;  // full contents, index by index
  std::vector<PinnedToken> tokens;
  std::vector<PinnedMarket> markets;
  std::vector<PinnedPool> pools;
  std::vector<DescriptorPin> descriptors;
  std::vector<PriceFloor> price_floors;
  bool allow_unverified_lookup_tables = false;
  bool allow_durable_nonce = false;
  bool allow_vault_initialize = false;  // vault/initialize names a vault not yet in `vaults`
  std::uint64_t max_priority_fee_lamports = 0;  // compute-unit price x limit; 0 refuses any
  // Per-action rules; an action with no entry is allowed, never auto-approved.
  std::map<std::string, ActionRule, std::less<>> actions;
  Limits limits;

  [[nodiscard]] const LoadedTable* pinned(const PublicKey& table) const;
  [[nodiscard]] const PinnedToken* token(const PublicKey& mint) const;
  [[nodiscard]] const PinnedMarket* market(std::string_view symbol) const;
  [[nodiscard]] const PinnedPool* pool(const PublicKey& address) const;
  // The floor for swaps selling `sells` for `buys`, or nullptr (the other direction is another
  // pair).
  [[nodiscard]] const PriceFloor* price_floor(const PublicKey& sells, const PublicKey& buys) const;
  [[nodiscard]] ActionRule rule(std::string_view action) const;
};

// Token symbols compare without regard to case and by Unicode's confusable skeleton: "usdc"
// claims to be USDC, and so does "JU\u03A1" (a Greek Rho) to be JUP.
[[nodiscard]] bool same_symbol(std::string_view a, std::string_view b);

// A symbol the online half may label a mint with: 1 to kMaxTickerBytes ASCII letters, digits
// and ". - _ $ +". Symbols are pasted into sentences on the screen ("5 JUP (pinned)"), so a hint
// with spaces, brackets or commas could write a provenance of its own.
inline constexpr std::size_t kMaxTickerBytes = 16;
// The most decimals a token is shown with, pinned or hinted: more would read as a smaller amount.
inline constexpr int kMaxTokenDecimals = 18;
[[nodiscard]] bool is_ticker(std::string_view symbol);

// Parses and checks the policy; errors name the key and the rule ("policy: vaults[1]: ...").
[[nodiscard]] Result<Policy> parse_policy(std::string_view toml_text);
[[nodiscard]] Result<Policy> load_policy_file(const std::string& path);

// The policy as TOML that parse_policy reads back to the same policy: every setting written
// out, defaults included (what a review report shows as the policy in effect).
[[nodiscard]] std::string policy_toml(const Policy& policy);

}  // namespace airlock::offline
