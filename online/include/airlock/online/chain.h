// What a Solana RPC node can prove about a signed transaction whose send went unanswered: that
// it landed (and how), or that it never can (its blockhash is past its last valid block height
// in a finalized view of the chain, and the signature is nowhere in the ledger's history). The
// online half frees an intent for a new build only on such a proof (docs/journal.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include <airlock/common/error.h>

namespace airlock::online {

struct ChainProof {
  enum class Outcome {
    kMayLand,       // the blockhash is still valid: the transaction may still land
    kNeverLands,    // the blockhash expired and the signature is not on chain: it never can
    kLanded,        // on chain without error
    kLandedFailed,  // on chain with an error (fees paid, nothing else happened)
  };
  Outcome outcome = Outcome::kMayLand;
  std::string detail;  // what the node said, for the journal and the operator
};

// Asks the node, in this order: is it healthy (a node far behind would not know a recent
// blockhash and would call it invalid); does its ledger reach back before the build (a node
// without that history would not find a landed signature: `elapsed_seconds` since the build,
// counted at 2.5 slots a second plus two minutes, must fit between its lowest and its finalized
// slot); is the blockhash still valid at finalized commitment (every later block descends from
// that view); and is the signature in the ledger's history. Asking about the signature after
// the blockhash means a landing in between is still seen.
using ChainProver = std::function<Result<ChainProof>(const std::string& signature_base58,
                                                     const std::string& blockhash_base58,
                                                     std::int64_t elapsed_seconds)>;

// The prover over a JSON-RPC node (the same transport rule as the API: https, or http to this
// machine).
[[nodiscard]] ChainProver rpc_prover(std::string rpc_url,
                                     std::chrono::milliseconds timeout = std::chrono::seconds(20));

}  // namespace airlock::online
