// Ledger transactions: a compact-u16 count of 64-byte signatures, then the message. Signature i
// belongs to static key i; the first num_required_signatures static keys are the signers.
#pragma once

#include <cstddef>
#include <vector>

#include <airlock/common/bytes.h>
#include <airlock/common/ed25519.h>
#include <airlock/common/error.h>
#include <airlock/common/message.h>

namespace airlock {

struct Transaction {
  std::vector<Signature> signatures;  // all-zero = not signed yet
  Message message;
  friend bool operator==(const Transaction&, const Transaction&) = default;
};

// Decodes and sanitizes a transaction: at most kMaxTransactionBytes, the message sanitized as
// sanitize_message says, exactly num_required_signatures signatures
// (transaction.signature_count); the header rules then keep every signer a static key.
// Signatures are not verified here; see check_signatures.
[[nodiscard]] Result<Transaction> parse_transaction(ByteView bytes);

// The wire bytes; reproduces any input parse_transaction accepted byte for byte.
[[nodiscard]] Bytes serialize_transaction(const Transaction& tx);

// A transaction with the right number of empty signature slots around a message.
[[nodiscard]] Transaction unsigned_transaction(Message message);

enum class SignatureState {
  kValid,    // verifies against the signer's key and the message
  kInvalid,  // present but does not verify
  kEmpty,    // all zero: not signed yet
};

struct SignatureCheck {
  PublicKey signer;
  SignatureState state = SignatureState::kEmpty;
};

// One entry per signature slot, in order.
[[nodiscard]] std::vector<SignatureCheck> check_signatures(const Transaction& tx);

// Signs the message with `key` and stores the signature in that key's slot, keeping every other
// signature as it is. Fails with transaction.not_a_signer when the key is not among the signers.
[[nodiscard]] Status sign_transaction(Transaction& tx, const Keypair& key);

[[nodiscard]] const char* signature_state_name(SignatureState state) noexcept;

}  // namespace airlock
