// Well-known program and sysvar addresses, and the runtime's reserved-account set.
#pragma once

#include <optional>
#include <string_view>

#include <airlock/common/bytes.h>

namespace airlock::programs {

inline constexpr std::string_view kSystem = "11111111111111111111111111111111";
inline constexpr std::string_view kComputeBudget = "ComputeBudget111111111111111111111111111111";
inline constexpr std::string_view kAddressLookupTable =
    "AddressLookupTab1e1111111111111111111111111";
inline constexpr std::string_view kBpfLoaderUpgradeable =
    "BPFLoaderUpgradeab1e11111111111111111111111";
inline constexpr std::string_view kToken = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
inline constexpr std::string_view kToken2022 = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
inline constexpr std::string_view kAssociatedToken = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
inline constexpr std::string_view kMemo = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";
inline constexpr std::string_view kMemoV1 = "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo";
inline constexpr std::string_view kSysvarRecentBlockhashes =
    "SysvarRecentB1ockHashes11111111111111111111";

// The 32-byte form of one of the constants above (or any valid base58 key).
// Precondition: `base58` is a valid key; a bad constant aborts at first use.
[[nodiscard]] const PublicKey& key(std::string_view base58);

// A short human name for a well-known program or sysvar ("System Program", "Rent sysvar").
[[nodiscard]] std::optional<std::string_view> well_known_name(const PublicKey& key);

// True for the keys the runtime never lets a transaction write-lock (builtin programs, sysvars,
// the native loader): a writable request for them is demoted to readonly. This is the complete
// reserved set with every pending feature treated as active, as on mainnet today; if a pending
// key were still inactive, we would show an account readonly that the runtime lets be written.
[[nodiscard]] bool is_reserved_account_key(const PublicKey& key);

}  // namespace airlock::programs
