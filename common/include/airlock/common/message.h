// Ledger messages: the bytes every signer signs. Version 0 (with address-lookup tables) is what
// the Manager Bot API builds; legacy messages are parsed too, for inspection only.
//
// Wire layout of a version-0 message:
//   0x80 | header(3) | compact-u16 n, n × 32-byte static keys | 32-byte recent blockhash |
//   compact-u16 n, n × { program index u8, compact-u16 n, n × account index u8,
//                        compact-u16 n, n data bytes } |
//   compact-u16 n, n × { 32-byte table key, compact-u16 n, n × writable index u8,
//                        compact-u16 n, n × readonly index u8 }
// A legacy message is the same without the leading 0x80 and without the lookup section.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>

namespace airlock {

// Largest transaction the network carries (PACKET_DATA_SIZE): an IPv6 minimum MTU of 1280
// bytes less 40 for the IPv6 header and 8 for the fragment header. Also the API's limit.
inline constexpr std::size_t kMaxTransactionBytes = 1232;
// Account indexes are single bytes, so a message can name at most 256 accounts in total.
inline constexpr std::size_t kMaxAccounts = 256;
// The first byte of a versioned message has the high bit set; the low 7 bits are the version.
inline constexpr std::uint8_t kVersionedMessageFlag = 0x80;

enum class MessageVersion : std::uint8_t { kLegacy, kV0 };

struct MessageHeader {
  std::uint8_t num_required_signatures = 0;
  std::uint8_t num_readonly_signed = 0;
  std::uint8_t num_readonly_unsigned = 0;
  friend bool operator==(const MessageHeader&, const MessageHeader&) = default;
};

struct CompiledInstruction {
  std::uint8_t program_index = 0;      // into the static keys only (lookups cannot load programs)
  std::vector<std::uint8_t> accounts;  // into static keys, then writable, then readonly loads
  Bytes data;
  friend bool operator==(const CompiledInstruction&, const CompiledInstruction&) = default;
};

struct AddressTableLookup {
  PublicKey table;
  std::vector<std::uint8_t> writable_indexes;  // indexes inside the table
  std::vector<std::uint8_t> readonly_indexes;
  friend bool operator==(const AddressTableLookup&, const AddressTableLookup&) = default;
};

struct Message {
  MessageVersion version = MessageVersion::kV0;
  MessageHeader header;
  std::vector<PublicKey> static_keys;
  Hash recent_blockhash;
  std::vector<CompiledInstruction> instructions;
  std::vector<AddressTableLookup> lookups;  // always empty for legacy messages

  // Accounts loaded through lookups, writable ones first (the order indexes use).
  [[nodiscard]] std::size_t loaded_writable_count() const noexcept;
  [[nodiscard]] std::size_t loaded_readonly_count() const noexcept;
  [[nodiscard]] std::size_t account_count() const noexcept;
  // The fee payer: the first static key. Precondition: static_keys is not empty (sanitized).
  [[nodiscard]] const PublicKey& fee_payer() const { return static_keys.front(); }

  friend bool operator==(const Message&, const Message&) = default;
};

// Decodes the wire layout only: every length in canonical compact-u16, every section complete,
// no byte left over, at most kMaxTransactionBytes. Does not apply the sanitize rules.
[[nodiscard]] Result<Message> decode_message(ByteView bytes);

// The runtime's sanitize rules for a message, each failure with its own code:
//  - required signatures + readonly unsigned must not exceed the static keys (header_counts);
//  - at least one writable signer, the fee payer (no_writable_fee_payer);
//  - every lookup loads at least one account (empty_lookup);
//  - at most 256 accounts, static plus loaded (too_many_accounts);
//  - a program index is never 0, the fee payer (program_is_fee_payer), and always names a static
//    key (program_index_out_of_range);
//  - every account index names an account (account_index_out_of_range);
//  - no static key appears twice (duplicate_account; the runtime refuses such a transaction
//    as AccountLoadedTwice before running it).
[[nodiscard]] Status sanitize_message(const Message& message);

// decode_message followed by sanitize_message.
[[nodiscard]] Result<Message> parse_message(ByteView bytes);

// The wire bytes of a message. For any message parse_message accepted, this reproduces the
// input byte for byte (every encoding is canonical).
[[nodiscard]] Bytes serialize_message(const Message& message);

}  // namespace airlock
