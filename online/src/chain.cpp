#include <algorithm>
#include <functional>

#include <airlock/common/bytes.h>
#include <airlock/online/api.h>
#include <airlock/online/chain.h>

namespace airlock::online {
namespace {

Error odd(const std::string& method, const std::string& what) {
  return Error(online::errors::kHttp, "RPC " + method + ": " + what);
}

// One JSON-RPC call to the node: the method and its parameters, the reply's result.
using RpcCall = std::function<Result<json>(const std::string& method, const json& params)>;

// The node is healthy and its history reaches back past the build (at 2.5 slots a second, with
// two minutes to spare), so "not found" means not there.
Status check_node_reach(const RpcCall& call, const ChainQuestion& q) {
  AIRLOCK_TRY(health, call("getHealth", json::array()));
  if (health != "ok") return odd("getHealth", "the node is not healthy; ask another node");
  AIRLOCK_TRY(lowest, call("minimumLedgerSlot", json::array()));
  AIRLOCK_TRY(slot, call("getSlot", json::array({{{"commitment", "finalized"}}})));
  if (!lowest.is_number_unsigned() || !slot.is_number_unsigned())
    return odd("getSlot", "the slots are not unsigned numbers");
  const std::uint64_t reach =
      slot.get<std::uint64_t>() - std::min(slot.get<std::uint64_t>(), lowest.get<std::uint64_t>());
  const std::uint64_t needed =
      static_cast<std::uint64_t>(std::max<std::int64_t>(q.elapsed_seconds, 0) + 120) * 5 / 2;
  if (reach < needed) {
    return odd("minimumLedgerSlot", "the node's history reaches back " + std::to_string(reach) +
                                        " slots, and " + std::to_string(needed) +
                                        " are needed to cover the build; use a node that keeps "
                                        "transaction history");
  }
  return {};
}

// Why a transaction on a durable nonce can never land (its nonce has advanced), or "" when it
// still can. A durable nonce never expires with time: only a new nonce value ends it.
Result<std::string> why_nonce_dead(const RpcCall& call, const PublicKey& nonce_account,
                                   const std::string& blockhash) {
  AIRLOCK_TRY(account, call("getAccountInfo",
                            json::array({to_base58(nonce_account),
                                         {{"encoding", "base64"}, {"commitment", "finalized"}}})));
  const json* value =
      account.is_object() && account.contains("value") ? &account["value"] : nullptr;
  if (value == nullptr || !value->is_object() || !value->contains("data") ||
      !(*value)["data"].is_array() || (*value)["data"].empty() ||
      !(*value)["data"][0].is_string()) {
    return odd("getAccountInfo", "the nonce account " + to_base58(nonce_account) +
                                     " cannot be read, so whether its nonce moved is unknown");
  }
  AIRLOCK_TRY(data, from_base64((*value)["data"][0].get<std::string>(), 128));
  // Versions (u32), state (u32, 1 initialised), authority (32), nonce (32), fee calculator.
  if (data.size() < 72 || data[4] != 1) {
    return odd("getAccountInfo", "the nonce account " + to_base58(nonce_account) +
                                     " is not an initialised nonce account, so whether the "
                                     "transaction can land is unknown");
  }
  if (to_base58(ByteView(data.data() + 40, 32)) == blockhash) return std::string();
  return std::string("its durable nonce has advanced (finalized)");
}

// Why a transaction on a recent blockhash can never land (the blockhash has expired in the
// finalized and the processed view, and past its last valid height when that is known), or ""
// when it still can.
Result<std::string> why_blockhash_dead(const RpcCall& call, const ChainQuestion& q) {
  AIRLOCK_TRY(final_view,
              call("isBlockhashValid", json::array({q.blockhash, {{"commitment", "finalized"}}})));
  AIRLOCK_TRY(tip_view,
              call("isBlockhashValid", json::array({q.blockhash, {{"commitment", "processed"}}})));
  for (const json* v : {&final_view, &tip_view}) {
    if (!v->is_object() || !v->contains("value") || !(*v)["value"].is_boolean())
      return odd("isBlockhashValid", "the reply has no boolean value");
  }
  bool expired = !final_view["value"].get<bool>() && !tip_view["value"].get<bool>();
  if (expired && q.last_valid_block_height) {
    AIRLOCK_TRY(height, call("getBlockHeight", json::array({{{"commitment", "finalized"}}})));
    if (!height.is_number_unsigned())
      return odd("getBlockHeight", "the height is not an unsigned number");
    expired = height.get<std::uint64_t>() > *q.last_valid_block_height;
  }
  return std::string(expired ? "its blockhash has expired (finalized and processed)" : "");
}

// The proof: the signature's status on chain, and when it is not there, whether it still may
// land (`why_dead` empty) or never can.
Result<ChainProof> signature_outcome(const RpcCall& call, const ChainQuestion& q,
                                     const std::string& why_dead) {
  AIRLOCK_TRY(
      found, call("getSignatureStatuses",
                  json::array({json::array({q.signature}), {{"searchTransactionHistory", true}}})));
  if (!found.is_object() || !found.contains("value") || !found["value"].is_array() ||
      found["value"].size() != 1) {
    return odd("getSignatureStatuses", "the reply has no one-entry value array");
  }
  const json& status = found["value"][0];
  if (!status.is_null()) {
    if (!status.is_object() || !status.contains("err"))
      return odd("getSignatureStatuses", "a status without err");
    const std::string level =
        status.contains("confirmationStatus") && status["confirmationStatus"].is_string()
            ? status["confirmationStatus"].get<std::string>()
            : "";
    if (level != "confirmed" && level != "finalized") {
      // Processed only: it may still be dropped with its fork; not a proof either way.
      return ChainProof{
          ChainProof::Outcome::kMayLand,
          "the signature is on chain at " + (level.empty() ? "no" : level) + " commitment only"};
    }
    if (status["err"].is_null())
      return ChainProof{ChainProof::Outcome::kLanded, "on chain (" + level + ") without error"};
    return ChainProof{ChainProof::Outcome::kLandedFailed,
                      "on chain (" + level + ") with error " + status["err"].dump(-1, ' ', true)};
  }
  if (why_dead.empty()) {
    return ChainProof{ChainProof::Outcome::kMayLand,
                      q.nonce_account ? "its durable nonce is still current and the signature "
                                        "is not on chain yet"
                                      : "its blockhash is not shown expired in both views and "
                                        "the signature is not on chain yet"};
  }
  return ChainProof{ChainProof::Outcome::kNeverLands,
                    why_dead + " and the signature is not on chain"};
}

}  // namespace

ChainProver rpc_prover(std::string rpc_url, std::chrono::milliseconds timeout) {
  return [rpc_url = std::move(rpc_url), timeout](const ChainQuestion& q) -> Result<ChainProof> {
    const RpcCall call = [&](const std::string& method, const json& params) {
      return rpc_call(rpc_url, method, params, timeout);
    };
    AIRLOCK_CHECK(check_node_reach(call, q));
    AIRLOCK_TRY(why_dead, q.nonce_account ? why_nonce_dead(call, *q.nonce_account, q.blockhash)
                                          : why_blockhash_dead(call, q));
    return signature_outcome(call, q, why_dead);
  };
}

}  // namespace airlock::online
