#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/accounts.h>
#include <airlock/common/programs.h>

#include "common/message_builder.h"

using ::testing::HasSubstr;

namespace airlock {
namespace {

using test::numbered_key;
using test::simple_message;

const PublicKey& system_program() { return programs::key(programs::kSystem); }

// payer, nonce account, destination | System program, RecentBlockhashes sysvar.
Message nonce_message() {
  Message m;
  m.header = {1, 0, 2};
  m.static_keys = {numbered_key(1), numbered_key(2), numbered_key(3), system_program(),
                   programs::key(programs::kSysvarRecentBlockhashes)};
  m.recent_blockhash = numbered_key(9);
  m.instructions.push_back({3, {1, 4, 0}, {4, 0, 0, 0}});
  m.instructions.push_back({3, {0, 2}, {2, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0}});
  return m;
}

TEST(Programs, EveryWellKnownKeyDecodesAndReservedKeysAreFlagged) {
  EXPECT_TRUE(system_program().is_zero());
  EXPECT_TRUE(programs::is_reserved_account_key(system_program()));
  EXPECT_TRUE(programs::is_reserved_account_key(programs::key(programs::kComputeBudget)));
  EXPECT_TRUE(programs::is_reserved_account_key(programs::key(programs::kSysvarRecentBlockhashes)));
  EXPECT_FALSE(programs::is_reserved_account_key(programs::key(programs::kToken)));
  EXPECT_FALSE(programs::is_reserved_account_key(numbered_key(1)));
  EXPECT_EQ(programs::well_known_name(programs::key(programs::kMemo)), "Memo Program");
  EXPECT_FALSE(programs::well_known_name(numbered_key(1)).has_value());
}

TEST(AccountRoles, HeaderDecidesSignersAndWritability) {
  Message m = simple_message();
  m.static_keys.insert(m.static_keys.begin() + 1, numbered_key(11));  // a readonly signer
  m.header = {2, 1, 1};
  m.instructions[0].program_index = 3;
  auto roles = account_roles(m);
  ASSERT_TRUE(roles.ok());
  ASSERT_EQ(roles->size(), 4U);
  EXPECT_TRUE((*roles)[0].signer && (*roles)[0].writable && (*roles)[0].fee_payer);
  EXPECT_TRUE((*roles)[1].signer && !(*roles)[1].writable && !(*roles)[1].fee_payer);
  EXPECT_TRUE(!(*roles)[2].signer && (*roles)[2].writable);
  EXPECT_TRUE(!(*roles)[3].signer && !(*roles)[3].writable && (*roles)[3].invoked);
}

TEST(AccountRoles, ReservedKeysAndInvokedProgramsAreDemoted) {
  Message m = simple_message();
  m.header = {1, 0, 0};  // everything writable as far as the header goes
  m.static_keys[1] = programs::key("SysvarC1ock11111111111111111111111111111111");
  auto roles = account_roles(m);
  ASSERT_TRUE(roles.ok());
  EXPECT_TRUE((*roles)[1].writable_requested);
  EXPECT_FALSE((*roles)[1].writable) << "a sysvar is never write-locked";
  EXPECT_TRUE((*roles)[2].writable_requested);
  EXPECT_FALSE((*roles)[2].writable) << "an invoked program is demoted";

  // With the upgradeable loader among the accounts, an invoked program keeps its write lock.
  m.static_keys.push_back(programs::key(programs::kBpfLoaderUpgradeable));
  auto with_loader = account_roles(m);
  ASSERT_TRUE(with_loader.ok());
  EXPECT_TRUE((*with_loader)[2].writable);
  EXPECT_FALSE((*with_loader)[3].writable) << "the loader itself is reserved";
}

TEST(AccountRoles, SuppliedTablesResolveLoadedKeys) {
  Message m = simple_message();
  m.lookups.push_back({numbered_key(50), {2}, {0}});
  m.lookups.push_back({numbered_key(60), {1}, {}});
  LoadedTable first{numbered_key(50), {numbered_key(51), numbered_key(52), system_program()}};
  LoadedTable second{numbered_key(60), {numbered_key(61), numbered_key(62)}};
  const LoadedTable tables[] = {second, first};
  auto roles = account_roles(m, tables);
  ASSERT_TRUE(roles.ok()) << roles.error().to_string();
  ASSERT_EQ(roles->size(), 6U);
  // Writable loads of both lookups come first, then the readonly ones.
  EXPECT_EQ((*roles)[3].key, system_program());
  EXPECT_TRUE((*roles)[3].writable_requested);
  EXPECT_FALSE((*roles)[3].writable) << "a reserved key loaded writable is still demoted";
  EXPECT_EQ((*roles)[4].key, numbered_key(62));
  EXPECT_EQ((*roles)[4].lookup, 1U);
  EXPECT_TRUE((*roles)[4].writable);
  EXPECT_EQ((*roles)[5].key, numbered_key(51));
  EXPECT_EQ((*roles)[5].origin, AccountOrigin::kLookupReadonly);

  // Without the tables the keys stay unknown but the order and requests are the same.
  auto unresolved = account_roles(m);
  ASSERT_TRUE(unresolved.ok());
  EXPECT_FALSE((*unresolved)[3].key.has_value());
  EXPECT_TRUE((*unresolved)[3].writable);

  LoadedTable too_short{numbered_key(50), {numbered_key(51)}};
  const LoadedTable bad[] = {too_short};
  auto error = account_roles(m, bad);
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error().code(), ErrorCode::kLookupIndexOutOfRange);
  EXPECT_THAT(error.error().message(), HasSubstr("lookups[0]"));
}

// The runtime refuses an account loaded twice (AccountLoadedTwice): a table entry that repeats a
// static key, or another table's entry, would give one account two sets of flags.
TEST(AccountRoles, AnAccountLoadedTwiceIsRefused) {
  Message m = simple_message();
  m.lookups.push_back({numbered_key(50), {0}, {1}});
  const PublicKey static_key = m.static_keys.at(1);
  for (const auto& [entries, repeats] : std::vector<std::pair<std::vector<PublicKey>, std::string>>{
           {{static_key, numbered_key(52)}, "account 1"},
           {{numbered_key(51), static_key}, "account 1"},
           {{numbered_key(51), numbered_key(51)},
            "account " + std::to_string(m.static_keys.size())}}) {
    const LoadedTable tables[] = {LoadedTable{numbered_key(50), entries}};
    auto roles = account_roles(m, tables);
    ASSERT_FALSE(roles.ok());
    EXPECT_EQ(roles.error().code(), ErrorCode::kMessageDuplicateAccount);
    EXPECT_THAT(roles.error().message(), HasSubstr("already lists as " + repeats));
  }
  const LoadedTable distinct[] = {
      LoadedTable{numbered_key(50), {numbered_key(51), numbered_key(52)}}};
  EXPECT_TRUE(account_roles(m, distinct).ok());
}

TEST(DurableNonce, DetectedExactlyAsTheRuntimeDoes) {
  auto nonce = durable_nonce(nonce_message());
  ASSERT_TRUE(nonce.has_value());
  EXPECT_EQ(nonce->nonce_account, numbered_key(2));
  EXPECT_EQ(nonce->authority, numbered_key(1));

  Message trailing = nonce_message();
  trailing.instructions[0].data.push_back(0xaa);  // the runtime ignores bytes after the tag
  EXPECT_TRUE(durable_nonce(trailing).has_value());
}

TEST(DurableNonce, NotANonceWhenAnyConditionFails) {
  Message second = nonce_message();
  std::swap(second.instructions[0], second.instructions[1]);
  EXPECT_FALSE(durable_nonce(second).has_value()) << "advance must be instruction 0";

  Message other_tag = nonce_message();
  other_tag.instructions[0].data = {5, 0, 0, 0};
  EXPECT_FALSE(durable_nonce(other_tag).has_value());

  Message short_data = nonce_message();
  short_data.instructions[0].data = {4, 0, 0};
  EXPECT_FALSE(durable_nonce(short_data).has_value());

  Message other_program = nonce_message();
  other_program.static_keys[3] = numbered_key(77);
  EXPECT_FALSE(durable_nonce(other_program).has_value());

  Message readonly_account = nonce_message();
  readonly_account.instructions[0].accounts[0] = 4;  // the sysvar: reserved, so never writable
  EXPECT_FALSE(durable_nonce(readonly_account).has_value());

  Message loaded = nonce_message();
  loaded.lookups.push_back({numbered_key(50), {0}, {}});
  loaded.instructions[0].accounts[0] = 5;  // a writable account from a table
  EXPECT_FALSE(durable_nonce(loaded).has_value()) << "the nonce account must be static";

  Message no_accounts = nonce_message();
  no_accounts.instructions[0].accounts.clear();
  EXPECT_FALSE(durable_nonce(no_accounts).has_value());
  EXPECT_FALSE(durable_nonce(simple_message()).has_value());
}

// The Address Lookup Table program's account layout, written out field by field.
Bytes table_account(std::uint32_t type, std::uint64_t deactivation,
                    std::optional<PublicKey> authority, std::size_t count) {
  Bytes d;
  const auto le = [&](std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) d.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  le(type, 4);
  le(deactivation, 8);
  le(1234, 8);     // last extended slot
  d.push_back(3);  // its start index
  d.push_back(authority ? 1 : 0);
  const PublicKey a = authority.value_or(PublicKey{});
  d.insert(d.end(), a.bytes.begin(), a.bytes.end());
  le(0, 2);
  for (std::size_t i = 0; i < count; ++i) {
    const PublicKey k = numbered_key(static_cast<std::uint8_t>(i));
    d.insert(d.end(), k.bytes.begin(), k.bytes.end());
  }
  return d;
}

TEST(LookupTableAccount, ParsesMetadataAndAddresses) {
  auto frozen = parse_lookup_table_account(table_account(1, UINT64_MAX, std::nullopt, 3));
  ASSERT_TRUE(frozen.ok()) << frozen.error().to_string();
  EXPECT_TRUE(frozen->active());
  EXPECT_FALSE(frozen->authority.has_value());
  ASSERT_EQ(frozen->addresses.size(), 3U);
  EXPECT_EQ(frozen->addresses[2], numbered_key(2));

  auto owned = parse_lookup_table_account(table_account(1, 99, numbered_key(9), 0));
  ASSERT_TRUE(owned.ok());
  EXPECT_FALSE(owned->active());
  EXPECT_EQ(owned->deactivation_slot, 99U);
  EXPECT_EQ(owned->authority, numbered_key(9));
  EXPECT_TRUE(owned->addresses.empty());
}

TEST(LookupTableAccount, RefusesWhatTheProgramWouldNotStore) {
  const auto code = [](const Bytes& b) {
    auto r = parse_lookup_table_account(b);
    return r.ok() ? std::string("ok") : r.error().message();
  };
  EXPECT_THAT(code(table_account(0, UINT64_MAX, std::nullopt, 1)), HasSubstr("type"));
  Bytes ragged = table_account(1, UINT64_MAX, std::nullopt, 1);
  ragged.pop_back();
  EXPECT_THAT(code(ragged), HasSubstr("32-byte"));
  EXPECT_THAT(code(Bytes(55, 0)), HasSubstr("shorter"));
  Bytes bad_tag = table_account(1, UINT64_MAX, std::nullopt, 1);
  bad_tag[21] = 2;
  EXPECT_THAT(code(bad_tag), HasSubstr("option tag"));
  Bytes too_many = table_account(1, UINT64_MAX, std::nullopt, 256);
  EXPECT_EQ(code(too_many), "ok");
  too_many.insert(too_many.end(), 32, 7);
  EXPECT_THAT(code(too_many), HasSubstr("256"));
  auto failed = parse_lookup_table_account(Bytes(10, 0));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code(), ErrorCode::kLookupTableAccount);
}

}  // namespace
}  // namespace airlock
