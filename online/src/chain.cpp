#include <algorithm>
#include <functional>

#include <airlock/common/bytes.h>
#include <airlock/common/display.h>
#include <airlock/online/api.h>
#include <airlock/online/chain.h>

namespace airlock::online {
namespace {

Error odd(const std::string& method, const std::string& what) {
  return Error(online::errors::kHttp, "RPC " + method + ": " + what);
}

// One JSON-RPC call to the node: the method and its parameters, the reply's result.
using RpcCall = std::function<Result<json>(const std::string& method, const json& params)>;

// A blockhash lives 151 blocks: about 60 s at the cluster's 400 ms slots. Three times that
// covers a run of skipped slots; a build older than this on the clock cannot still land, but
// only a node that has seen the blockhash can say so sooner.
constexpr std::int64_t kBlockhashMaxLifeSeconds = 180;

// The slots a build `elapsed_seconds` old lies behind the finalized slot (2.5 a second), with
// two minutes to spare.
std::uint64_t slots_back(std::int64_t elapsed_seconds) {
  return static_cast<std::uint64_t>(std::max<std::int64_t>(elapsed_seconds, 0) + 120) * 5 / 2;
}

// The slots a node keeps recent signature statuses for whatever its history: a block to test
// the history with lies further back than this.
constexpr std::uint64_t kStatusCacheSlots = 512;

// The newest finalized slot any answer of one proof came from. A "not found" for the signature
// proves nothing from a view older than that: a node whose answers come from backends at
// different heights could say the blockhash expired from a new one and the signature absent
// from one that has not reached its landing yet.
struct Views {
  std::uint64_t newest = 0;
  void saw(std::uint64_t slot) { newest = std::max(newest, slot); }
  // An RpcResponse's context slot, when it has one.
  void saw_context(const json& reply) {
    if (reply.is_object() && reply.contains("context") && reply["context"].is_object() &&
        reply["context"].contains("slot") && reply["context"]["slot"].is_number_unsigned())
      saw(reply["context"]["slot"].get<std::uint64_t>());
  }
};

// The node is on the build's network and healthy, and its ledger reaches back past the build,
// so a block from before the build (and before any status cache) is there to test its history
// with (check_history). Returns that block's slot.
Status check_build_network(const RpcCall& call, const ChainQuestion& q,
                           const std::optional<std::string>& network) {
  // The build's node must have been on the API's network: one of another (act --rpc pointed
  // at devnet) measured a blockhash life and a height that say nothing of the API's chain, and
  // the same node would later prove a landed send dead. Nothing is proved from such a build.
  if (q.genesis_hash && network && *q.genesis_hash != *network) {
    return odd("the build's record",
               "the node asked at the build was on another network (genesis " + *q.genesis_hash +
                   ") than the API's, mainnet (" + *network +
                   "): what it measured says nothing of the API's chain, so nothing is proved "
                   "from it; find the signature on a mainnet explorer before building anything "
                   "for this action again");
  }
  // The build's network: its node's, when one was asked then; else the API's (mainnet).
  if (const auto& wanted = q.genesis_hash ? q.genesis_hash : network) {
    AIRLOCK_TRY(genesis, call("getGenesisHash", json::array()));
    if (!genesis.is_string() || genesis.get<std::string>() != *wanted) {
      return odd("getGenesisHash",
                 "the node is on another network (genesis " +
                     (genesis.is_string() ? genesis.get<std::string>() : "?") + ") than " +
                     (q.genesis_hash ? "the node asked at the build (" + *wanted + ")"
                                     : "the API's, mainnet (" + *wanted +
                                           "; no node was asked at the build)") +
                     "; ask a node of that network");
    }
  }
  return {};
}

Result<std::uint64_t> check_node_reach(const RpcCall& call, const ChainQuestion& q, Views& views) {
  // How far back the node's history must reach: from the slot the build's node recorded, or
  // else from the build's age on the clock, which a clock now behind the build's recorded time
  // cannot tell (that clock is wrong now, or was ahead at the build).
  if (q.history_seconds < 0 && !q.build_slot) {
    return Error(online::errors::kHttp,
                 "the build's recorded time is " + std::to_string(-q.history_seconds) +
                     " s after this machine's clock (the clock is behind now, or was ahead at "
                     "the build), and no node measured the build, so how far back the node's "
                     "history must reach cannot be told; ask again once this clock has passed "
                     "the build's recorded time, or find the signature on an explorer");
  }
  AIRLOCK_TRY(health, call("getHealth", json::array()));
  if (health != "ok") return odd("getHealth", "the node is not healthy; ask another node");
  AIRLOCK_TRY(lowest, call("minimumLedgerSlot", json::array()));
  AIRLOCK_TRY(slot, call("getSlot", json::array({{{"commitment", "finalized"}}})));
  if (!lowest.is_number_unsigned() || !slot.is_number_unsigned())
    return odd("getSlot", "the slots are not unsigned numbers");
  const std::uint64_t now = slot.get<std::uint64_t>();
  views.saw(now);
  // Before the build: the slot the build's node recorded, less the blockhash's life for a node
  // that lagged; else the build's age on the clock. And before the status cache either way.
  std::uint64_t before = now - std::min(now, slots_back(q.history_seconds));
  if (q.build_slot) before = *q.build_slot - std::min<std::uint64_t>(*q.build_slot, 150);
  before = std::min(before, now - std::min(now, kStatusCacheSlots));
  if (lowest.get<std::uint64_t>() > before) {
    return odd("minimumLedgerSlot", "the node's history begins at slot " +
                                        std::to_string(lowest.get<std::uint64_t>()) +
                                        ", after slot " + std::to_string(before) +
                                        ", which it must reach to cover the build; use a node "
                                        "that keeps transaction history");
  }
  return before;
}

// The first transaction signature of the finalized block at `slot`; nullopt for a skipped
// slot, a block without transactions or a reply that is not one.
std::optional<std::string> first_signature_of_block(const RpcCall& call, std::uint64_t slot) {
  auto block = call("getBlock", json::array({slot,
                                             {{"commitment", "finalized"},
                                              {"encoding", "json"},
                                              {"transactionDetails", "signatures"},
                                              {"rewards", false},
                                              {"maxSupportedTransactionVersion", 0}}}));
  if (!block.ok() || !block->is_object() || !block->contains("signatures") ||
      !(*block)["signatures"].is_array() || (*block)["signatures"].empty() ||
      !(*block)["signatures"][0].is_string())
    return std::nullopt;
  return (*block)["signatures"][0].get<std::string>();
}

// The node keeps the transaction statuses that would show the signature: a signature from a
// block older than the build, and older than any status cache, must be known to it. A node
// whose ledger reaches back but which keeps no statuses answers "unknown signature" for one
// that landed; its "not found" proves nothing. Skipped slots are passed over, a few at most.
// Returns that known signature: the answer that finds ours absent must find it too
// (signature_outcome), since an endpoint spread over several backends may answer each call
// from another.
Result<std::string> check_history(const RpcCall& call, std::uint64_t before_build) {
  constexpr int kSlotsTried = 8;
  for (int i = 0; i < kSlotsTried; ++i) {
    const std::uint64_t slot = before_build + static_cast<std::uint64_t>(i);
    const auto first = first_signature_of_block(call, slot);
    if (!first) continue;  // a skipped slot, or a block without transactions
    const std::string& known = *first;
    AIRLOCK_TRY(found,
                call("getSignatureStatuses",
                     json::array({json::array({known}), {{"searchTransactionHistory", true}}})));
    const bool kept = found.is_object() && found.contains("value") && found["value"].is_array() &&
                      found["value"].size() == 1 && found["value"][0].is_object();
    if (!kept) {
      return odd("getSignatureStatuses",
                 "the node does not know signature " + known + " of its own block " +
                     std::to_string(slot) +
                     ": it keeps no transaction history, so a signature it does not find may "
                     "still have landed; use a node that keeps transaction history");
    }
    return known;
  }
  return odd("getBlock", "no block of slots " + std::to_string(before_build) + " to " +
                             std::to_string(before_build + kSlotsTried - 1) +
                             " could be read to test the node's transaction history");
}

// The node holds every block where the signature could have landed: from the block its history
// was tested with (before the build) through the blockhash's whole life, with no run of missing
// slots longer than skipped leaders leave. A node restarted from a newer snapshot over its old
// ledger keeps both ends and nothing between; a signature that landed there is unknown to it
// (found by an independent fault review: a landed send proven expired, and landed again).
Result<std::vector<std::uint64_t>> check_ledger_window(const RpcCall& call,
                                                       std::uint64_t before_build,
                                                       std::uint64_t finalized) {
  // 2,000 slots (about 13 minutes) reach past any blockhash's life from before the build; a run
  // of 48 missing slots is twelve leaders in a row producing nothing.
  constexpr std::uint64_t kWindowSlots = 2'000;
  constexpr std::uint64_t kLongestSkip = 48;
  const std::uint64_t end = std::min(before_build + kWindowSlots, finalized);
  std::vector<std::uint64_t> held;
  if (end <= before_build) return held;
  AIRLOCK_TRY(blocks,
              call("getBlocks", json::array({before_build, end, {{"commitment", "finalized"}}})));
  if (!blocks.is_array()) return odd("getBlocks", "the reply is no list of slots");
  std::uint64_t last = before_build;
  for (const auto& slot : blocks) {
    if (!slot.is_number_unsigned() || slot.get<std::uint64_t>() < last ||
        slot.get<std::uint64_t>() > end)
      return odd("getBlocks", "the slots are not ascending within the range asked");
    if (slot.get<std::uint64_t>() - last > kLongestSkip) {
      return odd("getBlocks", "the node holds no block from slot " + std::to_string(last + 1) +
                                  " to " + std::to_string(slot.get<std::uint64_t>() - 1) +
                                  ", where the signature could have landed: its ledger has a "
                                  "hole, so a signature it does not find may still have landed; "
                                  "ask a node whose ledger is whole");
    }
    last = slot.get<std::uint64_t>();
    held.push_back(last);
  }
  if (end - last > kLongestSkip) {
    return odd("getBlocks", "the node holds no block after slot " + std::to_string(last) +
                                " up to slot " + std::to_string(end) +
                                ", where the signature could have landed; ask a node whose "
                                "ledger is whole");
  }
  return held;
}

// Signatures of blocks spread over the window where the signature could have landed, one from
// each of up to kProbes stretches of the blocks the node listed (check_ledger_window): the
// answer that finds ours absent must know every one of them (signature_outcome). One old
// signature shows that answer keeps history from before the build, not that it keeps all of it
// since: an endpoint whose status calls reach a backend with a hole over the recent slots,
// while its block calls reach a whole one, knew the old one, said "not found" of a landed send,
// and had it proven expired and landed again (found by an independent fault review).
Result<std::vector<std::string>> window_probes(const RpcCall& call,
                                               const std::vector<std::uint64_t>& blocks) {
  constexpr std::size_t kProbes = 64;
  std::vector<std::string> probes;
  const std::size_t stretch = (blocks.size() + kProbes - 1) / kProbes;
  for (std::size_t from = 0; from < blocks.size(); from += stretch) {
    const std::size_t to = std::min(blocks.size(), from + stretch);
    std::optional<std::string> found;
    // The first block of the stretch with a transaction in it (an empty block has none).
    for (std::size_t i = from; i < to && !found; ++i) {
      found = first_signature_of_block(call, blocks[i]);
    }
    if (!found) {
      return odd("getBlock", "no block the node lists from slot " + std::to_string(blocks[from]) +
                                 " to " + std::to_string(blocks[to - 1]) +
                                 " could be read with a transaction in it, to test that its "
                                 "statuses cover where the signature could have landed");
    }
    probes.push_back(*found);
  }
  return probes;
}

// Why a transaction on a durable nonce can never land (its nonce has advanced), or "" when it
// still can. A durable nonce never expires with time: only a new nonce value ends it.
Result<std::string> why_nonce_dead(const RpcCall& call, const PublicKey& nonce_account,
                                   const std::string& blockhash, Views& views) {
  AIRLOCK_TRY(account, call("getAccountInfo",
                            json::array({to_base58(nonce_account),
                                         {{"encoding", "base64"}, {"commitment", "finalized"}}})));
  views.saw_context(account);
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
Result<std::string> why_blockhash_dead(const RpcCall& call, const ChainQuestion& q, Views& views) {
  AIRLOCK_TRY(final_view,
              call("isBlockhashValid", json::array({q.blockhash, {{"commitment", "finalized"}}})));
  AIRLOCK_TRY(tip_view,
              call("isBlockhashValid", json::array({q.blockhash, {{"commitment", "processed"}}})));
  for (const json* v : {&final_view, &tip_view}) {
    if (!v->is_object() || !v->contains("value") || !(*v)["value"].is_boolean())
      return odd("isBlockhashValid", "the reply has no boolean value");
  }
  views.saw_context(final_view);
  if (final_view["value"].get<bool>() || tip_view["value"].get<bool>()) return std::string();
  // Invalid in both views may only mean the node has not seen the blockhash yet (a node
  // behind). It is dead when the finalized height is past its last valid height, measured at
  // the build by a node that had seen it; or, with no such measure, when the build is older on
  // the clock than any blockhash lives.
  if (q.last_valid_block_height) {
    // The height and its slot from one view (getEpochInfo), so the signature is then asked of a
    // view at least that new.
    AIRLOCK_TRY(epoch, call("getEpochInfo", json::array({{{"commitment", "finalized"}}})));
    if (!epoch.is_object() || !epoch.contains("blockHeight") ||
        !epoch["blockHeight"].is_number_unsigned() || !epoch.contains("absoluteSlot") ||
        !epoch["absoluteSlot"].is_number_unsigned())
      return odd("getEpochInfo", "no unsigned blockHeight and absoluteSlot");
    const json height = epoch["blockHeight"];
    views.saw(epoch["absoluteSlot"].get<std::uint64_t>());
    if (height.get<std::uint64_t>() <= *q.last_valid_block_height) return std::string();
    return "its blockhash has expired (the finalized height " +
           std::to_string(height.get<std::uint64_t>()) + " is past its last valid height " +
           std::to_string(*q.last_valid_block_height) + ")";
  }
  if (q.elapsed_seconds < kBlockhashMaxLifeSeconds) return std::string();
  // Invalid in both views is also what a node answers that stalled before the blockhash (and
  // calls itself healthy): found by an attacker review, whose frozen node had a landed
  // transaction declared expired and the intent landed twice. The node must show it has moved
  // on since the build: its finalized block made at least a blockhash's life after it.
  AIRLOCK_TRY(epoch, call("getEpochInfo", json::array({{{"commitment", "finalized"}}})));
  if (!epoch.is_object() || !epoch.contains("absoluteSlot") ||
      !epoch["absoluteSlot"].is_number_unsigned())
    return odd("getEpochInfo", "no unsigned absoluteSlot");
  const std::uint64_t slot = epoch["absoluteSlot"].get<std::uint64_t>();
  views.saw(slot);
  AIRLOCK_TRY(made, call("getBlockTime", json::array({slot})));
  if (!made.is_number_integer()) {
    return odd("getBlockTime", "no time for the finalized slot " + std::to_string(slot) +
                                   ", so whether the node has moved on since the build is "
                                   "unknown");
  }
  if (made.get<std::int64_t>() < q.built_unix + kBlockhashMaxLifeSeconds) {
    return odd("getBlockTime",
               "the node's finalized block (slot " + std::to_string(slot) + ") was made at " +
                   std::to_string(made.get<std::int64_t>()) + ", not " +
                   std::to_string(kBlockhashMaxLifeSeconds) + " s after the build at " +
                   std::to_string(q.built_unix) +
                   ": a node that has not moved on since the build calls any newer blockhash "
                   "invalid");
  }
  return "its blockhash has expired (invalid finalized and processed, the build at least " +
         std::to_string(q.elapsed_seconds) + " s old " + q.age_measured_by +
         ", and the node's finalized block made " +
         std::to_string(made.get<std::int64_t>() - q.built_unix) + " s after it: past the " +
         std::to_string(kBlockhashMaxLifeSeconds) + " s any blockhash lives)";
}

// The commitment a signature status (an object with `err`) reports, or "" when none.
std::string commitment_of(const json& status) {
  return status.contains("confirmationStatus") && status["confirmationStatus"].is_string()
             ? status["confirmationStatus"].get<std::string>()
             : "";
}

// A status at confirmed or finalized commitment: landed, with or without an error. nullopt at
// processed only (its fork may still be dropped).
std::optional<ChainProof> landing_in(const json& status) {
  const std::string level = commitment_of(status);
  if (level != "confirmed" && level != "finalized") return std::nullopt;
  if (status["err"].is_null())
    return ChainProof{ChainProof::Outcome::kLanded, "on chain (" + level + ") without error"};
  return ChainProof{ChainProof::Outcome::kLandedFailed,
                    "on chain (" + level + ") with error " + status["err"].dump(-1, ' ', true)};
}

// The signature's landing, when the node shows it at confirmed or finalized commitment; nullopt
// otherwise (not there, processed only, or an odd reply: the full proof then decides).
Result<std::optional<ChainProof>> landing_of(const RpcCall& call, const ChainQuestion& q) {
  AIRLOCK_TRY(
      found, call("getSignatureStatuses",
                  json::array({json::array({q.signature}), {{"searchTransactionHistory", true}}})));
  if (!found.is_object() || !found.contains("value") || !found["value"].is_array() ||
      found["value"].size() != 1 || !found["value"][0].is_object() ||
      !found["value"][0].contains("err"))
    return std::optional<ChainProof>();
  return landing_in(found["value"][0]);
}

// The proof: the signature's status on chain, and when it is not there, whether it still may
// land (`why_dead` empty) or never can.
// `known` is the signature of an old block the node showed it keeps (check_history), `probes`
// those of blocks over the window where ours could have landed (window_probes): they are asked
// in the same call, so the answer that finds ours absent is one that keeps that history.
Result<ChainProof> signature_outcome(const RpcCall& call, const ChainQuestion& q,
                                     const std::string& why_dead, const Views& views,
                                     const std::string& known,
                                     const std::vector<std::string>& probes) {
  json asked = json::array({q.signature, known});
  for (const auto& probe : probes) asked.push_back(probe);
  AIRLOCK_TRY(found, call("getSignatureStatuses",
                          json::array({asked, {{"searchTransactionHistory", true}}})));
  if (!found.is_object() || !found.contains("value") || !found["value"].is_array() ||
      found["value"].size() != asked.size()) {
    return odd("getSignatureStatuses", "the reply has not one entry for each signature asked");
  }
  const json& status = found["value"][0];
  if (!status.is_null()) {
    if (!status.is_object() || !status.contains("err"))
      return odd("getSignatureStatuses", "a status without err");
    if (auto landed = landing_in(status)) return *landed;
    // Processed only: it may still be dropped with its fork; not a proof either way.
    const std::string level = commitment_of(status);
    return ChainProof{
        ChainProof::Outcome::kMayLand,
        "the signature is on chain at " + (level.empty() ? "no" : level) + " commitment only"};
  }
  if (why_dead.empty()) {
    return ChainProof{ChainProof::Outcome::kMayLand,
                      q.nonce_account ? "its durable nonce is still current and the signature "
                                        "is not on chain yet"
                                      : "its blockhash is not proven expired (by a node that has "
                                        "seen it, or by the build's age) and the signature is "
                                        "not on chain yet"};
  }
  // Absent, from an answer that keeps the history: one backend of a balanced endpoint may keep
  // it (check_history asked that one) and another not (found by an independent fault review:
  // a landed send proven expired, and landed again).
  for (std::size_t i = 1; i < asked.size(); ++i) {
    if (found["value"][i].is_object()) continue;
    return odd("getSignatureStatuses",
               "the answer that does not find the signature does not find " +
                   asked[i].get<std::string>() + " either, " +
                   (i == 1 ? std::string("an old signature the node showed it keeps")
                           : "a signature of a block it lists where ours could have landed") +
                   ": that answer came from a part of the node without that transaction "
                   "history, so it proves nothing absent; ask again, or ask a node that is one "
                   "server");
  }
  // Absent, from a view at least as new as every other answer of this proof: else a backend
  // behind the landing could be what says so.
  const bool fresh = found.contains("context") && found["context"].is_object() &&
                     found["context"].contains("slot") &&
                     found["context"]["slot"].is_number_unsigned() &&
                     found["context"]["slot"].get<std::uint64_t>() >= views.newest;
  if (!fresh) {
    return odd("getSignatureStatuses",
               "the node says the signature is not on chain from a view of slot " +
                   (found.contains("context") && found["context"].is_object() &&
                            found["context"].contains("slot")
                        ? found["context"]["slot"].dump()
                        : std::string("?")) +
                   ", behind slot " + std::to_string(views.newest) +
                   " its other answers came from: a part of the node that lags proves nothing "
                   "absent; ask again, or ask another node");
  }
  return ChainProof{ChainProof::Outcome::kNeverLands,
                    why_dead + " and the signature is not on chain"};
}

}  // namespace

ChainProver rpc_prover(std::string rpc_url, std::chrono::milliseconds timeout,
                       std::optional<std::string> network_genesis) {
  return [rpc_url = std::move(rpc_url), timeout,
          network = std::move(network_genesis)](const ChainQuestion& q) -> Result<ChainProof> {
    const RpcCall call = [&](const std::string& method, const json& params) {
      return rpc_call(rpc_url, method, params, timeout);
    };
    Views views;
    AIRLOCK_CHECK(check_build_network(call, q, network));
    // A landing needs no proof of the node's reach or of the clock: the signature on chain at
    // confirmed or finalized commitment is the proof (a clock that was wrong at the build
    // cannot keep a landed step open).
    AIRLOCK_TRY(landed, landing_of(call, q));
    if (landed) return *landed;
    AIRLOCK_TRY(before_build, check_node_reach(call, q, views));
    AIRLOCK_TRY(known, check_history(call, before_build));
    AIRLOCK_TRY(blocks, check_ledger_window(call, before_build, views.newest));
    AIRLOCK_TRY(why_dead, q.nonce_account
                              ? why_nonce_dead(call, *q.nonce_account, q.blockhash, views)
                              : why_blockhash_dead(call, q, views));
    std::vector<std::string> probes;
    if (!why_dead.empty()) {  // only an absence that would free the intent needs them
      AIRLOCK_TRY(found, window_probes(call, blocks));
      probes = std::move(found);
    }
    return signature_outcome(call, q, why_dead, views, known, probes);
  };
}

Result<std::vector<Landing>> landings_naming(const std::string& rpc_url, const PublicKey& address,
                                             std::size_t limit,
                                             const std::optional<std::string>& before,
                                             std::chrono::milliseconds timeout) {
  json config = {{"limit", limit}, {"commitment", "confirmed"}};
  if (before) config["before"] = *before;
  AIRLOCK_TRY(listed, rpc_call(rpc_url, "getSignaturesForAddress",
                               json::array({to_base58(address), config}), timeout));
  const auto bad = [&](const std::string& why) {
    return Error(online::errors::kHttp, "RPC getSignaturesForAddress: " + why);
  };
  if (!listed.is_array() || listed.size() > limit)
    return bad("the reply is no list of at most " + std::to_string(limit) + " entries");
  std::vector<Landing> out;
  for (const auto& entry : listed) {
    if (!entry.is_object() || !entry.contains("signature") || !entry["signature"].is_string() ||
        !fixed_from_base58<64>(entry["signature"].get<std::string>()).ok())
      return bad("an entry has no base58 signature");
    Landing landing{entry["signature"].get<std::string>(), std::nullopt};
    if (entry.contains("blockTime") && entry["blockTime"].is_number_integer())
      landing.block_time = entry["blockTime"].get<std::int64_t>();
    out.push_back(std::move(landing));
  }
  return out;
}

Status check_node_network(const std::string& rpc_url, const std::optional<std::string>& network) {
  if (!network) return {};
  auto genesis = rpc_call(rpc_url, "getGenesisHash", json::array());
  if (!genesis.ok() || !genesis->is_string() || genesis->get<std::string>() == *network) return {};
  return Error(ErrorCode::kUsage,
               "the node is on another network (genesis " + printable(genesis->get<std::string>()) +
                   ") than the API, which serves mainnet (genesis " + *network +
                   "): its blockhashes and signatures are another chain's, so it can prove "
                   "nothing about a send; give a mainnet node")
      .in_field("--rpc");
}

std::optional<std::string> expected_network(const std::string& url) {
  if (check_transport(url).ok() && url.rfind("http://", 0) == 0) return std::nullopt;
  return std::string(kMainnetGenesisHash);
}

}  // namespace airlock::online
