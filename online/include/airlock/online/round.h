// One signing round of an action: the build reply turned into a sign request for the offline
// half (with lookup-table hints fetched from an RPC node when one is given), and the offline
// half's response checked and applied: the request id, the signer, and every signature
// verified against its message before any transaction may be sent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <airlock/common/error.h>
#include <airlock/common/transaction.h>
#include <airlock/formats/envelope.h>
#include <airlock/online/api.h>

namespace airlock::online {

// This module's error codes (their kinds and the exit codes: common/error.h).
namespace errors {
// A sign response that does not answer its request.
inline constexpr ErrorCode kResponseMismatch{ErrorKind::kInvalidInput, "response.mismatch"};
// A sign response that came back after the request's deadline.
inline constexpr ErrorCode kResponseLate{ErrorKind::kRefused, "response.late"};
}  // namespace errors

// Margin kept between the request's deadline and the tickets' expiry, for sending.
inline constexpr std::int64_t kSendMarginSeconds = 5;
inline constexpr std::int64_t kTicketSeconds = 90;
// How long a build's blockhash is taken to live when no RPC node measures it: the chain's
// 150 blocks at 400 ms. Signatures that come back later fail preflight (422) whatever the ticket.
inline constexpr std::int64_t kBlockhashSeconds = 60;

struct Round {
  std::string action;
  json body;
  std::vector<json> steps;  // the build reply's steps, in order
  std::vector<Transaction> transactions;
  envelope::SignRequest request;
  std::int64_t blockhash_seconds = kBlockhashSeconds;    // its life from the build, as measured
  bool blockhash_measured = false;                       // by the RPC node, else the estimate
  std::optional<std::uint64_t> last_valid_block_height;  // as the RPC node gave it
  // The node's finalized slot and genesis hash at the build: how far back its history must
  // reach when it is asked for a proof later, and which network it is.
  std::optional<std::uint64_t> node_build_slot;
  std::optional<std::string> node_genesis_hash;
  // The build reply's Date (the API's clock, unix seconds), when it had one: with this
  // machine's clock, the latest the build can have been (chain_question).
  std::optional<std::int64_t> api_date;
};

// `built_at` is the online clock when the build request started (unix seconds): the service's
// ticket clock starts during the request, never before. The request's deadline is the earlier
// of the tickets' and the blockhash's end, less the send margin. With `rpc_url`, lookup tables
// come from the node, and so does the blockhash's remaining life when it is the node's latest.
[[nodiscard]] Result<Round> prepare_round(const std::string& action, const json& body,
                                          const json& build_reply,
                                          const std::optional<std::string>& rpc_url,
                                          std::int64_t built_at);

// Adds token hints (symbol, decimals, name from GET /tokens/{mint}) for every mint the body
// names (fields ending in "Mint", "mint", and sources[].mint), and for a DLMM action a pool
// hint naming the pool's token X and Y (GET /dlmm/pools/{lbPair}; the pool of a position from
// the vault's strategies) with both tokens. Display only on the offline side. What the API
// cannot describe is skipped; the summary then shows base units alone.
void add_token_hints(ApiClient& client, Round& round);

struct Answer {
  std::optional<envelope::Refusal> refusal;  // the offline half said no
  std::vector<Transaction> signed_transactions;
};

// Fails with response.mismatch when the response answers another request, comes from another
// key, has the wrong number of signatures, or any signature does not verify; with response.late
// when signatures arrive after the request's deadline (`now_unix`, the online clock), when the
// tickets are too close to expiry to send: the action is built again instead.
[[nodiscard]] Result<Answer> apply_response(const Round& round,
                                            const envelope::SignResponse& response,
                                            std::int64_t now_unix);

}  // namespace airlock::online
