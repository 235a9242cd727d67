#include <algorithm>
#include <array>
#include <string>

#include <airlock/common/accounts.h>
#include <airlock/common/programs.h>
#include <airlock/common/reader.h>

namespace airlock {
namespace {

// SystemInstruction::AdvanceNonceAccount: bincode enum tag 4 as a little-endian u32.
constexpr std::array<std::uint8_t, 4> kAdvanceNonceTag{4, 0, 0, 0};

bool invoked_as_program(const Message& m, std::size_t index) {
  return std::any_of(m.instructions.begin(), m.instructions.end(),
                     [&](const CompiledInstruction& ix) { return ix.program_index == index; });
}

// The header's answer for a static key.
bool static_writable_requested(const Message& m, std::size_t index) {
  const std::size_t signers = m.header.num_required_signatures;
  if (index < signers) return index < signers - m.header.num_readonly_signed;
  const std::size_t unsigned_count = m.static_keys.size() - signers;
  return index - signers < unsigned_count - m.header.num_readonly_unsigned;
}

bool demoted(const Message& m, std::size_t index, const std::optional<PublicKey>& key,
             bool upgradeable_loader_present) {
  if (key && programs::is_reserved_account_key(*key)) return true;
  return invoked_as_program(m, index) && !upgradeable_loader_present;
}

Error bad_table(const std::string& rule) {
  return Error(ErrorCode::kLookupTableAccount, "lookup table account: " + rule);
}

}  // namespace

Result<LookupTableAccount> parse_lookup_table_account(ByteView data) {
  constexpr std::size_t kMetaSize = 56;
  constexpr std::size_t kMaxAddresses = 256;
  if (data.size() < kMetaSize) {
    return bad_table("is " + std::to_string(data.size()) +
                     " bytes, shorter than the 56-byte metadata");
  }
  ByteReader r(data);
  if (r.le(4, "type") != 1) return bad_table("type field is not 1 (LookupTable)");
  if ((data.size() - kMetaSize) % 32 != 0) {
    return bad_table("address area of " + std::to_string(data.size() - kMetaSize) +
                     " bytes is not a whole number of 32-byte keys");
  }
  if ((data.size() - kMetaSize) / 32 > kMaxAddresses)
    return bad_table("holds more than 256 addresses");
  LookupTableAccount out;
  out.deactivation_slot = r.le(8, "deactivation_slot");
  (void)r.le(8, "last_extended_slot");
  (void)r.u8("last_extended_slot_start_index");
  const std::uint8_t has_authority = r.u8("authority tag");
  const auto authority = r.fixed<32>("authority");  // present (zeros) even when the tag is 0
  (void)r.take(2, "padding");
  if (has_authority > 1) return bad_table("authority option tag is neither 0 nor 1");
  if (has_authority == 1) out.authority = authority;
  while (r.ok() && r.remaining() != 0) out.addresses.push_back(r.fixed<32>("address"));
  if (!r.expect_end("the lookup table")) return bad_table(r.error().message());
  return out;
}

Result<std::vector<AccountRole>> account_roles(const Message& m,
                                               std::span<const LoadedTable> tables) {
  std::vector<AccountRole> roles;
  roles.reserve(m.account_count());
  for (std::size_t i = 0; i < m.static_keys.size(); ++i) {
    AccountRole role;
    role.index = i;
    role.key = m.static_keys[i];
    role.signer = i < m.header.num_required_signatures;
    role.fee_payer = i == 0;
    role.invoked = invoked_as_program(m, i);
    role.writable_requested = static_writable_requested(m, i);
    roles.push_back(role);
  }
  // Writable loads of every lookup come before the readonly loads of any.
  for (AccountOrigin origin : {AccountOrigin::kLookupWritable, AccountOrigin::kLookupReadonly}) {
    for (std::size_t l = 0; l < m.lookups.size(); ++l) {
      const auto& lookup = m.lookups[l];
      const auto& indexes = origin == AccountOrigin::kLookupWritable ? lookup.writable_indexes
                                                                     : lookup.readonly_indexes;
      const auto table = std::find_if(tables.begin(), tables.end(), [&](const LoadedTable& t) {
        return t.table == lookup.table;
      });
      for (std::uint8_t table_index : indexes) {
        AccountRole role;
        role.index = roles.size();
        role.origin = origin;
        role.lookup = l;
        role.table_index = table_index;
        role.writable_requested = origin == AccountOrigin::kLookupWritable;
        if (table != tables.end()) {
          if (table_index >= table->addresses.size()) {
            return Error(ErrorCode::kLookupIndexOutOfRange,
                         "lookups[" + std::to_string(l) + "]: index " +
                             std::to_string(table_index) + " is past the end of table " +
                             to_base58(lookup.table) + ", which holds " +
                             std::to_string(table->addresses.size()) + " addresses");
          }
          role.key = table->addresses[table_index];
        }
        roles.push_back(role);
      }
    }
  }
  // The runtime refuses a transaction that loads one account twice (AccountLoadedTwice): a
  // table entry that repeats a static key or another loaded key would give one account two
  // sets of flags here.
  for (std::size_t i = m.static_keys.size(); i < roles.size(); ++i) {
    if (!roles[i].key) continue;
    for (std::size_t j = 0; j < i; ++j) {
      if (roles[j].key != roles[i].key) continue;
      return Error(ErrorCode::kMessageDuplicateAccount,
                   "lookups[" + std::to_string(roles[i].lookup) + "]: index " +
                       std::to_string(roles[i].table_index) + " loads " + to_base58(*roles[i].key) +
                       ", which the message already lists as account " + std::to_string(j) +
                       "; the runtime refuses an account loaded twice");
    }
  }
  const PublicKey& upgradeable = programs::key(programs::kBpfLoaderUpgradeable);
  const bool upgradeable_present = std::any_of(
      roles.begin(), roles.end(), [&](const AccountRole& r) { return r.key == upgradeable; });
  for (auto& role : roles) {
    role.writable =
        role.writable_requested && !demoted(m, role.index, role.key, upgradeable_present);
  }
  return roles;
}

std::optional<DurableNonceUse> durable_nonce(const Message& m) {
  if (m.instructions.empty()) return std::nullopt;
  const auto& ix = m.instructions.front();
  if (ix.program_index >= m.static_keys.size() ||
      m.static_keys[ix.program_index] != programs::key(programs::kSystem)) {
    return std::nullopt;
  }
  if (ix.data.size() < kAdvanceNonceTag.size() ||
      !std::equal(kAdvanceNonceTag.begin(), kAdvanceNonceTag.end(), ix.data.begin())) {
    return std::nullopt;
  }
  if (ix.accounts.empty()) return std::nullopt;
  const std::size_t nonce_index = ix.accounts.front();
  if (nonce_index >= m.static_keys.size()) return std::nullopt;  // must be a static key
  const PublicKey& upgradeable = programs::key(programs::kBpfLoaderUpgradeable);
  const bool upgradeable_present =
      std::find(m.static_keys.begin(), m.static_keys.end(), upgradeable) != m.static_keys.end();
  const bool writable = static_writable_requested(m, nonce_index) &&
                        !demoted(m, nonce_index, m.static_keys[nonce_index], upgradeable_present);
  if (!writable) return std::nullopt;

  DurableNonceUse use;
  use.nonce_account_index = static_cast<std::uint8_t>(nonce_index);
  use.nonce_account = m.static_keys[nonce_index];
  if (ix.accounts.size() >= 3 && ix.accounts[2] < m.static_keys.size()) {
    use.authority = m.static_keys[ix.accounts[2]];
  }
  return use;
}

const char* account_origin_name(AccountOrigin origin) noexcept {
  switch (origin) {
    case AccountOrigin::kStatic:
      return "static";
    case AccountOrigin::kLookupWritable:
      return "lookup_writable";
    case AccountOrigin::kLookupReadonly:
      return "lookup_readonly";
  }
  return "unknown";
}

}  // namespace airlock
