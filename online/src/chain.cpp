#include <algorithm>

#include <airlock/online/api.h>
#include <airlock/online/chain.h>

namespace airlock::online {
namespace {

Error odd(const std::string& method, const std::string& what) {
  return Error(ErrorCode::kHttp, "RPC " + method + ": " + what);
}

}  // namespace

ChainProver rpc_prover(std::string rpc_url, std::chrono::milliseconds timeout) {
  return [rpc_url = std::move(rpc_url), timeout](
             const std::string& signature, const std::string& blockhash,
             std::int64_t elapsed_seconds) -> Result<ChainProof> {
    AIRLOCK_TRY(health, rpc_call(rpc_url, "getHealth", json::array(), timeout));
    if (health != "ok") return odd("getHealth", "the node is not healthy; ask another node");
    AIRLOCK_TRY(lowest, rpc_call(rpc_url, "minimumLedgerSlot", json::array(), timeout));
    AIRLOCK_TRY(
        slot, rpc_call(rpc_url, "getSlot", json::array({{{"commitment", "finalized"}}}), timeout));
    if (!lowest.is_number_unsigned() || !slot.is_number_unsigned())
      return odd("getSlot", "the slots are not unsigned numbers");
    const std::uint64_t reach = slot.get<std::uint64_t>() -
                                std::min(slot.get<std::uint64_t>(), lowest.get<std::uint64_t>());
    const std::uint64_t needed =
        static_cast<std::uint64_t>(std::max<std::int64_t>(elapsed_seconds, 0) + 120) * 5 / 2;
    if (reach < needed) {
      return odd("minimumLedgerSlot", "the node's history reaches back " + std::to_string(reach) +
                                          " slots, and " + std::to_string(needed) +
                                          " are needed to cover the build; use a node that keeps "
                                          "transaction history");
    }
    AIRLOCK_TRY(valid, rpc_call(rpc_url, "isBlockhashValid",
                                json::array({blockhash, {{"commitment", "finalized"}}}), timeout));
    if (!valid.is_object() || !valid.contains("value") || !valid["value"].is_boolean())
      return odd("isBlockhashValid", "the reply has no boolean value");
    const bool still_valid = valid["value"].get<bool>();
    AIRLOCK_TRY(
        found,
        rpc_call(rpc_url, "getSignatureStatuses",
                 json::array({json::array({signature}), {{"searchTransactionHistory", true}}}),
                 timeout));
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
    if (still_valid) {
      return ChainProof{ChainProof::Outcome::kMayLand,
                        "its blockhash is still valid and the signature is not on chain yet"};
    }
    return ChainProof{ChainProof::Outcome::kNeverLands,
                      "its blockhash has expired (finalized) and the signature is not on chain"};
  };
}

}  // namespace airlock::online
