// What a Solana RPC node can prove about a signed transaction whose send went unanswered: that
// it landed (and how), or that it never can (its blockhash is past its last valid block height
// in a finalized view of the chain, and the signature is nowhere in the ledger's history). The
// online half frees an intent for a new build only on such a proof (docs/journal.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <airlock/common/bytes.h>
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

// What the prover is asked about one signed transaction.
struct ChainQuestion {
  std::string signature;  // base58, the manager's
  std::string blockhash;  // base58, the message's recent blockhash (or nonce value)
  // The build's age, at least (what may prove the blockhash dead by age; clock.h, build_age).
  std::int64_t elapsed_seconds = 0;
  // A durable-nonce transaction: its nonce account. It stays landable while the account holds
  // `blockhash` as its nonce, whatever the age of any blockhash.
  std::optional<PublicKey> nonce_account;
  // The blockhash's last valid block height, or a bound above it, measured at the build by a
  // node that had seen the blockhash.
  std::optional<std::uint64_t> last_valid_block_height;
  // The node's finalized slot and genesis hash at the build, when one was asked then: the
  // history asked for reaches back before that slot, and the node proving must be on the same
  // network.
  std::optional<std::uint64_t> build_slot;
  std::optional<std::string> genesis_hash;
  // The build's age at most (what sizes the history the node must keep; negative: the clock is
  // behind the build), and how the age was measured, for the operator.
  std::int64_t history_seconds = 0;
  std::string age_measured_by = "on the wall clock";
  // When it was built, in unix seconds on this machine's wall clock, at the latest (its record,
  // or now less its age at least if later): without a measured last valid height, the node's
  // finalized block must be a blockhash's life younger than this.
  std::int64_t built_unix = 0;
};

// Asks the node, in this order: is this machine's clock not behind the build (its age sizes the
// history asked for); is the node on the build's network (its genesis hash, when recorded);
// is it healthy (a node far behind would not know a recent
// blockhash and would call it invalid); does its ledger reach back before the build (the
// elapsed time at 2.5 slots a second plus two minutes must fit between its lowest and its
// finalized slot); does it keep transaction history (a signature of one of its blocks from
// before the build must be known to it, or its "not found" proves nothing); can the transaction
// still land — for a durable nonce, does the nonce account (finalized) still hold its nonce;
// otherwise is the blockhash invalid both at finalized commitment and at processed (a blockhash
// newer than a lagging finalized root is unknown there, not expired) and provably dead: the
// finalized block height past the last valid height measured at the build, or without that
// measure the build older than any blockhash lives (180 s) and the node's finalized block made
// at least that long after the build (a node stalled before the blockhash calls it invalid
// too); and last, is the signature in the
// ledger's history. Asking about the signature after the rest means a landing in between is
// still seen. Anything short of a proof is kMayLand or an error naming what is missing.
using ChainProver = std::function<Result<ChainProof>(const ChainQuestion&)>;

// The prover over a JSON-RPC node (the same transport rule as the API: https, or http to this
// machine). `network_genesis`: the API's network, as expected_network gives it (nullopt: any,
// the twin's): the genesis hash a node must have when the build recorded none (act ran without
// --rpc), and the one a recorded build node must have had for its measures to count.
[[nodiscard]] ChainProver rpc_prover(std::string rpc_url,
                                     std::chrono::milliseconds timeout = std::chrono::seconds(20),
                                     std::optional<std::string> network_genesis = std::nullopt);

// A transaction the chain shows landed naming an address: its signature and block time (nullopt
// when the node does not say).
struct Landing {
  std::string signature;
  std::optional<std::int64_t> block_time;
};

// The newest transactions (at most `limit`, newest first; with `before`, those older than that
// signature) that landed naming `address`, as the node at `rpc_url` lists them
// (getSignaturesForAddress, confirmed).
[[nodiscard]] Result<std::vector<Landing>> landings_naming(
    const std::string& rpc_url, const PublicKey& address, std::size_t limit,
    const std::optional<std::string>& before = std::nullopt,
    std::chrono::milliseconds timeout = std::chrono::seconds(20));

// Mainnet's genesis hash: the Manager Bot API serves mainnet only (spec part 1).
inline constexpr std::string_view kMainnetGenesisHash =
    "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d";

// The network a node must be on to prove anything about a build whose node nobody recorded:
// mainnet's, unless `url` (the API's, else the node's) is on this machine, where the API is the
// twin and the network its own (nullopt).
[[nodiscard]] std::optional<std::string> expected_network(const std::string& url);

// Before anything is built or proven: the node at `rpc_url` is on `network` (its genesis hash,
// as expected_network gives it; nullopt: any). A node that answers another genesis is refused
// by name (usage.invalid, field --rpc): what it says about blockhashes and signatures is about
// another chain. A node that does not answer is not refused here; each proof asks it again.
[[nodiscard]] Status check_node_network(const std::string& rpc_url,
                                        const std::optional<std::string>& network);

}  // namespace airlock::online
