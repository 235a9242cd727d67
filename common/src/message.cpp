#include <algorithm>
#include <string>

#include <airlock/common/message.h>
#include <airlock/common/reader.h>
#include <airlock/common/shortvec.h>

#include "message_wire.h"

namespace airlock {
namespace {

// Smallest encodings, used to reject a count before allocating for it.
constexpr std::size_t kMinInstructionBytes = 3;  // program index, two empty lengths
constexpr std::size_t kMinLookupBytes = 32 + 2;  // table key, two empty lengths

std::string indexed(std::string_view name, std::size_t i) {
  return std::string(name) + "[" + std::to_string(i) + "]";
}

// Reads a count of items of at least min_size bytes each; fails if they cannot all fit.
std::size_t read_count(ByteReader& reader, const std::string& field, std::size_t min_size) {
  const std::size_t count = reader.shortvec(field + " length");
  if (reader.ok() && count * min_size > reader.remaining()) {
    reader.fail(Error(ErrorCode::kTruncated,
                      field + ": " + std::to_string(count) + " entries need at least " +
                          std::to_string(count * min_size) + " bytes but only " +
                          std::to_string(reader.remaining()) + " remain"));
    return 0;
  }
  return count;
}

std::vector<std::uint8_t> read_index_list(ByteReader& reader, const std::string& field) {
  const std::size_t count = read_count(reader, field, 1);
  auto bytes = reader.take(count, field);
  return {bytes.begin(), bytes.end()};
}

void write_index_list(const std::vector<std::uint8_t>& list, Bytes& out) {
  encode_shortvec(static_cast<std::uint16_t>(list.size()), out);
  out.insert(out.end(), list.begin(), list.end());
}

Error index_error(ErrorCode code, const std::string& field, std::string rule) {
  return Error(code, field + ": " + std::move(rule));
}

}  // namespace

namespace detail {

void read_message(ByteReader& reader, Message& out) {
  const std::uint8_t first = reader.u8("message version or header");
  if (!reader.ok()) return;
  if ((first & kVersionedMessageFlag) != 0) {
    const unsigned version = first & 0x7fU;
    if (version != 0) {
      reader.fail(Error(ErrorCode::kMessageUnsupportedVersion,
                        "message version " + std::to_string(version) +
                            " is not supported; only legacy and version 0 exist"));
      return;
    }
    out.version = MessageVersion::kV0;
    out.header.num_required_signatures = reader.u8("header.num_required_signatures");
  } else {
    out.version = MessageVersion::kLegacy;
    out.header.num_required_signatures = first;
  }
  out.header.num_readonly_signed = reader.u8("header.num_readonly_signed_accounts");
  out.header.num_readonly_unsigned = reader.u8("header.num_readonly_unsigned_accounts");

  const std::size_t key_count = read_count(reader, "static_keys", PublicKey::kSize);
  out.static_keys.reserve(key_count);
  for (std::size_t i = 0; i < key_count && reader.ok(); ++i) {
    out.static_keys.push_back(reader.fixed<PublicKey::kSize>(indexed("static_keys", i)));
  }
  out.recent_blockhash = reader.fixed<Hash::kSize>("recent_blockhash");

  const std::size_t ix_count = read_count(reader, "instructions", kMinInstructionBytes);
  out.instructions.reserve(ix_count);
  for (std::size_t i = 0; i < ix_count && reader.ok(); ++i) {
    const std::string field = indexed("instructions", i);
    CompiledInstruction ix;
    ix.program_index = reader.u8(field + ".program_index");
    ix.accounts = read_index_list(reader, field + ".accounts");
    const std::size_t data_size = reader.shortvec(field + ".data length");
    auto data = reader.take(data_size, field + ".data");
    ix.data.assign(data.begin(), data.end());
    out.instructions.push_back(std::move(ix));
  }

  if (out.version == MessageVersion::kV0) {
    const std::size_t lookup_count = read_count(reader, "lookups", kMinLookupBytes);
    out.lookups.reserve(lookup_count);
    for (std::size_t i = 0; i < lookup_count && reader.ok(); ++i) {
      const std::string field = indexed("lookups", i);
      AddressTableLookup lookup;
      lookup.table = reader.fixed<PublicKey::kSize>(field + ".table");
      lookup.writable_indexes = read_index_list(reader, field + ".writable_indexes");
      lookup.readonly_indexes = read_index_list(reader, field + ".readonly_indexes");
      out.lookups.push_back(std::move(lookup));
    }
  }
}

}  // namespace detail

std::size_t Message::loaded_writable_count() const noexcept {
  std::size_t n = 0;
  for (const auto& lookup : lookups) n += lookup.writable_indexes.size();
  return n;
}

std::size_t Message::loaded_readonly_count() const noexcept {
  std::size_t n = 0;
  for (const auto& lookup : lookups) n += lookup.readonly_indexes.size();
  return n;
}

std::size_t Message::account_count() const noexcept {
  return static_keys.size() + loaded_writable_count() + loaded_readonly_count();
}

Result<Message> decode_message(ByteView bytes) {
  if (bytes.size() > kMaxTransactionBytes) {
    return Error(ErrorCode::kTooLarge, "message is " + std::to_string(bytes.size()) +
                                           " bytes; no transaction can exceed " +
                                           std::to_string(kMaxTransactionBytes));
  }
  ByteReader reader(bytes);
  Message message;
  detail::read_message(reader, message);
  if (!reader.expect_end("message")) return reader.error();
  return message;
}

Status sanitize_message(const Message& m) {
  const auto& h = m.header;
  const std::size_t static_count = m.static_keys.size();
  if (std::size_t{h.num_required_signatures} + h.num_readonly_unsigned > static_count) {
    return Error(ErrorCode::kMessageHeaderCounts,
                 "header: " + std::to_string(h.num_required_signatures) + " signers plus " +
                     std::to_string(h.num_readonly_unsigned) +
                     " readonly unsigned accounts exceed the " + std::to_string(static_count) +
                     " static keys");
  }
  if (h.num_readonly_signed >= h.num_required_signatures) {
    return Error(ErrorCode::kMessageNoWritableFeePayer,
                 "header: " + std::to_string(h.num_readonly_signed) + " of " +
                     std::to_string(h.num_required_signatures) +
                     " signers are readonly; the fee payer must be a writable signer");
  }
  for (std::size_t i = 0; i < m.lookups.size(); ++i) {
    if (m.lookups[i].writable_indexes.empty() && m.lookups[i].readonly_indexes.empty()) {
      return Error(ErrorCode::kMessageEmptyLookup,
                   indexed("lookups", i) + ": a lookup must load at least one account");
    }
  }
  // No separate "no static keys" check is needed: the two header rules above already require
  // at least one signer, and the signers are static keys.
  const std::size_t total = m.account_count();
  if (total > kMaxAccounts) {
    return Error(ErrorCode::kMessageTooManyAccounts,
                 "accounts: " + std::to_string(total) + " accounts (static and loaded) exceed " +
                     std::to_string(kMaxAccounts) + ", the most a one-byte index can name");
  }
  for (std::size_t i = 0; i < m.instructions.size(); ++i) {
    const auto& ix = m.instructions[i];
    const std::string field = indexed("instructions", i);
    if (ix.program_index >= static_count) {
      return index_error(ErrorCode::kMessageProgramIndexOutOfRange, field + ".program_index",
                         std::to_string(ix.program_index) + " is not one of the " +
                             std::to_string(static_count) +
                             " static keys; programs cannot come from lookup tables");
    }
    if (ix.program_index == 0) {
      return index_error(ErrorCode::kMessageProgramIsFeePayer, field + ".program_index",
                         "0 names the fee payer, which cannot be a program");
    }
    for (std::size_t a = 0; a < ix.accounts.size(); ++a) {
      if (ix.accounts[a] >= total) {
        return index_error(ErrorCode::kMessageAccountIndexOutOfRange,
                           indexed(field + ".accounts", a),
                           std::to_string(ix.accounts[a]) + " is past the last of the " +
                               std::to_string(total) + " accounts");
      }
    }
  }
  std::vector<PublicKey> sorted = m.static_keys;
  std::sort(sorted.begin(), sorted.end());
  if (auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end()) {
    auto first = std::find(m.static_keys.begin(), m.static_keys.end(), *dup);
    auto second = std::find(first + 1, m.static_keys.end(), *dup);
    return Error(ErrorCode::kMessageDuplicateAccount,
                 indexed("static_keys", static_cast<std::size_t>(second - m.static_keys.begin())) +
                     ": repeats static_keys[" + std::to_string(first - m.static_keys.begin()) +
                     "] (" + to_base58(*dup) + "); an account may appear only once");
  }
  return {};
}

Result<Message> parse_message(ByteView bytes) {
  auto message = decode_message(bytes);
  if (!message.ok()) return message;
  if (auto status = sanitize_message(*message); !status.ok()) return status.error();
  return message;
}

Bytes serialize_message(const Message& m) {
  Bytes out;
  out.reserve(kMaxTransactionBytes);
  if (m.version == MessageVersion::kV0) out.push_back(kVersionedMessageFlag);
  out.push_back(m.header.num_required_signatures);
  out.push_back(m.header.num_readonly_signed);
  out.push_back(m.header.num_readonly_unsigned);
  encode_shortvec(static_cast<std::uint16_t>(m.static_keys.size()), out);
  for (const auto& key : m.static_keys) out.insert(out.end(), key.bytes.begin(), key.bytes.end());
  out.insert(out.end(), m.recent_blockhash.bytes.begin(), m.recent_blockhash.bytes.end());
  encode_shortvec(static_cast<std::uint16_t>(m.instructions.size()), out);
  for (const auto& ix : m.instructions) {
    out.push_back(ix.program_index);
    write_index_list(ix.accounts, out);
    encode_shortvec(static_cast<std::uint16_t>(ix.data.size()), out);
    out.insert(out.end(), ix.data.begin(), ix.data.end());
  }
  if (m.version == MessageVersion::kV0) {
    encode_shortvec(static_cast<std::uint16_t>(m.lookups.size()), out);
    for (const auto& lookup : m.lookups) {
      out.insert(out.end(), lookup.table.bytes.begin(), lookup.table.bytes.end());
      write_index_list(lookup.writable_indexes, out);
      write_index_list(lookup.readonly_indexes, out);
    }
  }
  return out;
}

}  // namespace airlock
