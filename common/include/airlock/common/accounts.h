// Who is who in a message: every account's origin, whether it signs, whether the runtime lets
// it be written, and whether the message uses a durable nonce. Follows the runtime's rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>
#include <airlock/common/message.h>

namespace airlock {

// The addresses stored in one on-chain address lookup table, as fetched by whoever has network
// access. For the offline half these are hints unless pinned in its policy.
struct LoadedTable {
  PublicKey table;
  std::vector<PublicKey> addresses;
};

// An address lookup table account as the Address Lookup Table program stores it: 56 bytes of
// metadata (u32 type 1, deactivation slot, last extended slot and start index, optional
// authority, padding), then the addresses, 32 bytes each. Fails with lookup.table_account
// naming the rule broken.
struct LookupTableAccount {
  std::uint64_t deactivation_slot = 0;  // UINT64_MAX while active
  std::optional<PublicKey> authority;   // none: the table is frozen
  std::vector<PublicKey> addresses;
  [[nodiscard]] bool active() const noexcept { return deactivation_slot == UINT64_MAX; }
};
[[nodiscard]] Result<LookupTableAccount> parse_lookup_table_account(ByteView data);

enum class AccountOrigin : std::uint8_t {
  kStatic,          // one of the message's static keys
  kLookupWritable,  // loaded from a table through a writable index
  kLookupReadonly,  // loaded from a table through a readonly index
};

struct AccountRole {
  std::size_t index = 0;  // the account index instructions use
  AccountOrigin origin = AccountOrigin::kStatic;
  std::size_t lookup = 0;        // for loaded accounts: which entry of Message::lookups
  std::uint8_t table_index = 0;  // for loaded accounts: the index inside that table
  // Static keys always; loaded ones only when their table's contents were supplied.
  std::optional<PublicKey> key;
  bool signer = false;
  bool fee_payer = false;
  bool invoked = false;  // some instruction calls it as its program
  // What the header (or the lookup index list) asks for.
  bool writable_requested = false;
  // What the runtime grants: requested, less the demotions of reserved keys and of invoked
  // programs (unless the upgradeable loader is present). For a loaded account whose key is
  // unknown, a reserved-key demotion cannot be ruled out; this is then the requested value.
  bool writable = false;
};

// Roles of every account in index order: static keys, then each lookup's writable loads, then
// each lookup's readonly loads. `tables` may supply table contents (any order; tables not
// supplied leave their accounts' keys unknown). A supplied table too short for an index
// fails with lookup.index_out_of_range. Precondition: the message is sanitized.
[[nodiscard]] Result<std::vector<AccountRole>> account_roles(
    const Message& message, std::span<const LoadedTable> tables = {});

struct DurableNonceUse {
  std::uint8_t nonce_account_index = 0;
  PublicKey nonce_account;
  // The advance instruction's third account, the nonce authority, when present and static.
  std::optional<PublicKey> authority;
};

// The runtime's durable-nonce test: instruction 0 calls the System program, its data starts
// with AdvanceNonceAccount (u32 little-endian 4), and its first account is a static key the
// runtime lets be written. Such a message never expires by blockhash age.
// Precondition: the message is sanitized.
[[nodiscard]] std::optional<DurableNonceUse> durable_nonce(const Message& message);

[[nodiscard]] const char* account_origin_name(AccountOrigin origin) noexcept;

}  // namespace airlock
