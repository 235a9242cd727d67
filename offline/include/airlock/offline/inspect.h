// `airlock-offline inspect`: the structure of any transaction or message, for auditors and for
// the operator of the offline machine. Everything shown is read from the bytes themselves.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <airlock/common/accounts.h>
#include <airlock/common/bytes.h>
#include <airlock/common/error.h>
#include <airlock/common/transaction.h>
#include <airlock/offline/decode.h>

namespace airlock::offline {

enum class InputKind {
  kAuto,  // a transaction if the bytes parse as one, otherwise a message
  kTransaction,
  kMessage,
};

enum class InputEncoding {
  kBase64,  // padded standard base64; surrounding whitespace is ignored, inner whitespace is not
  kBinary,  // the raw bytes
};

// Largest input file inspect reads: a transaction is at most 1232 bytes, 1644 in base64; the
// API allows 3000 base64 characters. Anything larger is refused before it is read into memory.
inline constexpr std::size_t kMaxInspectInputBytes = 4096;

struct Inspection {
  bool is_transaction = false;
  std::size_t byte_size = 0;  // of the input as parsed
  Transaction transaction;    // for a bare message, the signatures are empty slots
  Hash message_sha256;
  std::vector<AccountRole> accounts;
  std::optional<DurableNonceUse> nonce;
  std::vector<SignatureCheck> signatures;  // empty for a bare message
  // Filled by decode_instructions: per instruction, the decoding or why there is none.
  std::vector<std::optional<Decoded>> decoded;
  std::vector<std::string> decode_errors;
};

// Turns the input text or bytes into wire bytes.
[[nodiscard]] Result<Bytes> decode_inspect_input(ByteView input, InputEncoding encoding);

// Parses, sanitizes and examines the wire bytes.
[[nodiscard]] Result<Inspection> inspect_bytes(ByteView bytes, InputKind kind);

// Decodes every instruction with the built-in decoders and the registry's IDLs.
void decode_instructions(Inspection& inspection, const DecoderRegistry& decoders);

// The machine form. Keys: kind, size, version, header {required_signatures, readonly_signed,
// readonly_unsigned}, fee_payer, static_keys, recent_blockhash, message_sha256, accounts
// [{index, key|null, origin, lookup?, table_index?, signer, writable, writable_requested,
// fee_payer, invoked}], instructions [{program, program_index, program_name?, accounts,
// data_hex, decoded? {program, instruction, accounts, args, nested?} | decode_error?}], lookups
// [{table, writable, readonly}], signatures [{key, status}], durable_nonce (null or {account,
// account_index, authority}).
[[nodiscard]] nlohmann::ordered_json inspection_to_json(const Inspection& inspection);

// The human form.
[[nodiscard]] std::string inspection_to_text(const Inspection& inspection);

}  // namespace airlock::offline
