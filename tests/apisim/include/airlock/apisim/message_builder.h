// Compiling instructions into a version-0 message, the way @solana/web3.js's
// compileToV0Message does, so messages built here match those built by the ecosystem byte for
// byte. The API twin's: it builds the transactions the twin serves, and tests build hostile
// ones with it. No product code builds messages.
#pragma once

#include <span>
#include <vector>

#include <airlock/common/accounts.h>
#include <airlock/common/bytes.h>
#include <airlock/common/error.h>
#include <airlock/common/message.h>

namespace airlock {

struct AccountMeta {
  PublicKey key;
  bool signer = false;
  bool writable = false;
};

struct Instruction {
  PublicKey program;
  std::vector<AccountMeta> accounts;
  Bytes data;
};

// Orders the accounts: the fee payer first, then writable signers, readonly signers, writable
// non-signers and readonly non-signers, each group in order of first appearance (an
// instruction's program before its accounts). An account that is neither a signer nor an
// invoked program and appears in one of `tables` is loaded from the first such table instead
// of listed statically. The result is sanitized; fails like sanitize_message otherwise.
[[nodiscard]] Result<Message> compile_v0_message(const PublicKey& payer,
                                                 const std::vector<Instruction>& instructions,
                                                 const Hash& recent_blockhash,
                                                 std::span<const LoadedTable> tables = {});

}  // namespace airlock
