#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include <airlock/common/programs.h>

namespace airlock::programs {
namespace {

struct NamedKey {
  std::string_view base58;
  std::string_view name;
  bool reserved;  // in the runtime's reserved-account set
};

// Builtin programs and sysvars (all reserved), then common programs users will meet.
constexpr std::array kKnownKeys{
    NamedKey{kAddressLookupTable, "Address Lookup Table Program", true},
    NamedKey{"BPFLoader2111111111111111111111111111111111", "BPF Loader", true},
    NamedKey{"BPFLoader1111111111111111111111111111111111", "BPF Loader (deprecated)", true},
    NamedKey{kBpfLoaderUpgradeable, "BPF Upgradeable Loader", true},
    NamedKey{kComputeBudget, "Compute Budget Program", true},
    NamedKey{"Config1111111111111111111111111111111111111", "Config Program", true},
    NamedKey{"Ed25519SigVerify111111111111111111111111111", "Ed25519 Program", true},
    NamedKey{"Feature111111111111111111111111111111111111", "Feature Program", true},
    NamedKey{"LoaderV411111111111111111111111111111111111", "Loader v4", true},
    NamedKey{"KeccakSecp256k11111111111111111111111111111", "Secp256k1 Program", true},
    NamedKey{"Secp256r1SigVerify1111111111111111111111111", "Secp256r1 Program", true},
    NamedKey{"StakeConfig11111111111111111111111111111111", "Stake Config", true},
    NamedKey{"Stake11111111111111111111111111111111111111", "Stake Program", true},
    NamedKey{kSystem, "System Program", true},
    NamedKey{"Vote111111111111111111111111111111111111111", "Vote Program", true},
    NamedKey{"ZkE1Gama1Proof11111111111111111111111111111", "ZK ElGamal Proof Program", true},
    NamedKey{"ZkTokenProof1111111111111111111111111111111", "ZK Token Proof Program", true},
    NamedKey{"SysvarC1ock11111111111111111111111111111111", "Clock sysvar", true},
    NamedKey{"SysvarEpochRewards1111111111111111111111111", "Epoch Rewards sysvar", true},
    NamedKey{"SysvarEpochSchedu1e111111111111111111111111", "Epoch Schedule sysvar", true},
    NamedKey{"SysvarFees111111111111111111111111111111111", "Fees sysvar", true},
    NamedKey{"Sysvar1nstructions1111111111111111111111111", "Instructions sysvar", true},
    NamedKey{"SysvarLastRestartS1ot1111111111111111111111", "Last Restart Slot sysvar", true},
    NamedKey{kSysvarRecentBlockhashes, "Recent Blockhashes sysvar", true},
    NamedKey{"SysvarRent111111111111111111111111111111111", "Rent sysvar", true},
    NamedKey{"SysvarRewards111111111111111111111111111111", "Rewards sysvar", true},
    NamedKey{"SysvarS1otHashes111111111111111111111111111", "Slot Hashes sysvar", true},
    NamedKey{"SysvarS1otHistory11111111111111111111111111", "Slot History sysvar", true},
    NamedKey{"SysvarStakeHistory1111111111111111111111111", "Stake History sysvar", true},
    NamedKey{"NativeLoader1111111111111111111111111111111", "Native Loader", true},
    NamedKey{"Sysvar1111111111111111111111111111111111111", "Sysvar owner", true},
    NamedKey{kToken, "SPL Token Program", false},
    NamedKey{kToken2022, "SPL Token-2022 Program", false},
    NamedKey{kAssociatedToken, "Associated Token Account Program", false},
    NamedKey{kMemo, "Memo Program", false},
    NamedKey{kMemoV1, "Memo Program (v1)", false},
};

struct KnownInfo {
  std::string_view name;
  bool reserved;
};

const std::map<PublicKey, KnownInfo>& known_table() {
  static const auto table = [] {
    std::map<PublicKey, KnownInfo> out;
    for (const auto& entry : kKnownKeys)
      out.emplace(key(entry.base58), KnownInfo{entry.name, entry.reserved});
    return out;
  }();
  return table;
}

}  // namespace

const PublicKey& key(std::string_view base58) {
  static std::map<std::string, PublicKey, std::less<>> cache;  // guarded by the mutex below
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(base58); it != cache.end()) return it->second;
  auto decoded = fixed_from_base58<32>(base58);
  if (!decoded.ok()) std::abort();  // a constant in this file is wrong: fail loudly, never guess
  return cache.emplace(std::string(base58), decoded.value()).first->second;
}

std::optional<std::string_view> well_known_name(const PublicKey& key) {
  const auto& table = known_table();
  if (auto it = table.find(key); it != table.end()) return it->second.name;
  return std::nullopt;
}

bool is_reserved_account_key(const PublicKey& key) {
  const auto& table = known_table();
  auto it = table.find(key);
  return it != table.end() && it->second.reserved;
}

}  // namespace airlock::programs
