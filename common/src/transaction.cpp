#include <algorithm>
#include <string>

#include <airlock/common/reader.h>
#include <airlock/common/shortvec.h>
#include <airlock/common/transaction.h>

#include "message_wire.h"

namespace airlock {

Result<Transaction> parse_transaction(ByteView bytes) {
  if (bytes.size() > kMaxTransactionBytes) {
    return Error(ErrorCode::kTransactionTooLarge,
                 "transaction is " + std::to_string(bytes.size()) + " bytes; the limit is " +
                     std::to_string(kMaxTransactionBytes) + " (one network packet)");
  }
  ByteReader reader(bytes);
  Transaction tx;
  const std::size_t count = reader.shortvec("signatures length");
  if (reader.ok() && count * Signature::kSize > reader.remaining()) {
    return Error(ErrorCode::kTruncated,
                 "signatures: " + std::to_string(count) + " signatures need " +
                     std::to_string(count * Signature::kSize) + " bytes but only " +
                     std::to_string(reader.remaining()) + " remain");
  }
  tx.signatures.reserve(count);
  for (std::size_t i = 0; i < count && reader.ok(); ++i) {
    tx.signatures.push_back(
        reader.fixed<Signature::kSize>("signatures[" + std::to_string(i) + "]"));
  }
  detail::read_message(reader, tx.message);
  if (!reader.expect_end("transaction")) return reader.error();

  if (auto status = sanitize_message(tx.message); !status.ok()) return status.error();
  const std::size_t required = tx.message.header.num_required_signatures;
  if (tx.signatures.size() != required) {
    return Error(ErrorCode::kTransactionSignatureCount,
                 "signatures: the transaction carries " + std::to_string(tx.signatures.size()) +
                     " signatures but its header requires exactly " + std::to_string(required));
  }
  return tx;
}

Bytes serialize_transaction(const Transaction& tx) {
  Bytes out;
  out.reserve(kMaxTransactionBytes);
  encode_shortvec(static_cast<std::uint16_t>(tx.signatures.size()), out);
  for (const auto& sig : tx.signatures) out.insert(out.end(), sig.bytes.begin(), sig.bytes.end());
  Bytes message = serialize_message(tx.message);
  out.insert(out.end(), message.begin(), message.end());
  return out;
}

Transaction unsigned_transaction(Message message) {
  Transaction tx;
  tx.signatures.resize(message.header.num_required_signatures);
  tx.message = std::move(message);
  return tx;
}

std::vector<SignatureCheck> check_signatures(const Transaction& tx) {
  const Bytes message = serialize_message(tx.message);
  std::vector<SignatureCheck> checks;
  checks.reserve(tx.signatures.size());
  for (std::size_t i = 0; i < tx.signatures.size(); ++i) {
    SignatureCheck check;
    if (i < tx.message.static_keys.size()) check.signer = tx.message.static_keys[i];
    if (tx.signatures[i].is_zero()) {
      check.state = SignatureState::kEmpty;
    } else if (i < tx.message.static_keys.size() &&
               verify_signature(check.signer, message, tx.signatures[i])) {
      check.state = SignatureState::kValid;
    } else {
      check.state = SignatureState::kInvalid;
    }
    checks.push_back(check);
  }
  return checks;
}

Status sign_transaction(Transaction& tx, const Keypair& key) {
  const std::size_t signers = std::min<std::size_t>(tx.message.header.num_required_signatures,
                                                    tx.message.static_keys.size());
  for (std::size_t i = 0; i < signers; ++i) {
    if (tx.message.static_keys[i] == key.public_key()) {
      if (tx.signatures.size() < signers) tx.signatures.resize(signers);
      tx.signatures[i] = key.sign(serialize_message(tx.message));
      return {};
    }
  }
  return Error(ErrorCode::kNotASigner, "key " + to_base58(key.public_key()) +
                                           " is not one of the message's " +
                                           std::to_string(signers) + " required signers");
}

const char* signature_state_name(SignatureState state) noexcept {
  switch (state) {
    case SignatureState::kValid:
      return "valid";
    case SignatureState::kInvalid:
      return "invalid";
    case SignatureState::kEmpty:
      return "empty";
  }
  return "unknown";
}

}  // namespace airlock
