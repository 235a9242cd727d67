// The chain prover (online/chain.h) against a scripted JSON-RPC node on loopback: the answers a
// healthy, a lagging or a nonce-advancing node gives, and what may be concluded from each. Only
// a proof that the transaction can never land frees an intent; everything else keeps it open.
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <airlock/common/bytes.h>
#include <airlock/online/chain.h>
#include <airlock/online/round.h>

#include "support/vectors.h"

using ::testing::HasSubstr;

namespace airlock::online {
namespace {

using json = nlohmann::json;
using Outcome = ChainProof::Outcome;

constexpr const char* kBlockhash = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn";
constexpr const char* kSignature =
    "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW";
// A signature of the node's own block before the build, which a node keeping history knows.
constexpr const char* kOldSignature =
    "2id3YC2jK9G5Wo2phDx4gJVAew8DcY5NAojnVuao8rkxwPYPe8cSwE5GzhEgJA2y8fVjDEo6iR6ykBvDxrTQrtpb";

// A node whose every answer the test sets: method (and, for isBlockhashValid, commitment) to
// result.
// The finalized slot the scripted node answers from.
constexpr std::uint64_t kNodeSlot = 1'000'000;
constexpr std::int64_t kNodeBlockTime = 1'800'000'000;

class ScriptedNode : public ::testing::Test {
 protected:
  void SetUp() override {
    answers_ = {
        {"getHealth", "ok"},
        {"getGenesisHash", "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d"},
        {"minimumLedgerSlot", 0},
        {"getSlot", 1'000'000},
        {"getEpochInfo", {{"absoluteSlot", 1'000'000}, {"blockHeight", 900'000}}},
        // Its finalized block's time: long after any build the tests ask about.
        {"getBlockTime", kNodeBlockTime},
        {"isBlockhashValid:finalized", {{"context", {{"slot", kNodeSlot}}}, {"value", false}}},
        {"isBlockhashValid:processed", {{"context", {{"slot", kNodeSlot}}}, {"value", false}}},
        {"getSignatureStatuses", {{"context", {{"slot", kNodeSlot}}}, {"value", {nullptr}}}},
        {"getBlock", {{"blockhash", kBlockhash}, {"signatures", {kOldSignature}}}},
        {"getSignatureStatuses:history",
         {{"context", {{"slot", kNodeSlot}}},
          {"value", {{{"slot", 2}, {"err", nullptr}, {"confirmationStatus", "finalized"}}}}}},
        {"getAccountInfo", {{"context", {{"slot", kNodeSlot}}}, {"value", nullptr}}}};
    server_.Post("/rpc", [this](const httplib::Request& in, httplib::Response& out) {
      const json call = json::parse(in.body);
      std::string method = call["method"];
      if (method == "isBlockhashValid")
        method += ":" + call["params"][1]["commitment"].get<std::string>();
      if (method == "getBlock") blocks_asked_.push_back(call["params"][0].get<std::uint64_t>());
      std::lock_guard<std::mutex> lock(mutex_);
      json result;
      if (method == "getBlock" && per_slot_signatures_ && !answers_.count("getBlock:set")) {
        const std::uint64_t slot = call["params"][0];
        result = {{"blockhash", kBlockhash}, {"signatures", {signature_of_block(slot)}}};
      } else if (method == "getSignatureStatuses" && per_slot_signatures_) {
        // Every block's signature known, but those of a hole in the statuses a test sets.
        const json& signatures = call["params"][0];
        result = answers_.at("getSignatureStatuses");
        json value = json::array();
        for (const auto& sig : signatures) {
          const Bytes raw = from_base58(sig.get<std::string>(), 64).value();
          std::uint64_t slot = 0;
          for (int i = 7; i >= 0; --i) slot = (slot << 8) | raw[static_cast<std::size_t>(i)];
          const bool in_hole =
              status_hole_ && slot >= status_hole_->first && slot <= status_hole_->second;
          value.push_back(sig == kSignature ? answers_.at("getSignatureStatuses")["value"][0]
                          : in_hole         ? json(nullptr)
                                    : answers_.at("getSignatureStatuses:history")["value"][0]);
        }
        result["value"] = value;
      } else if (method == "getSignatureStatuses") {
        // Each signature's status on its own: the old block's from the history answer (or, when
        // asked beside another, the "in a pair" one where a test sets it), the rest from the
        // main answer, whose context the reply takes unless only the old one is asked.
        const json& signatures = call["params"][0];
        const bool alone = signatures.size() == 1 && signatures[0] == kOldSignature;
        result = answers_.at(alone ? "getSignatureStatuses:history" : "getSignatureStatuses");
        json value = json::array();
        for (const auto& sig : signatures) {
          const bool paired = !alone && answers_.count("getSignatureStatuses:history-in-pair");
          value.push_back(sig != kOldSignature ? answers_.at("getSignatureStatuses")["value"][0]
                          : paired             ? answers_.at("getSignatureStatuses:history-in-pair")
                                   : answers_.at("getSignatureStatuses:history")["value"][0]);
        }
        result["value"] = value;
      } else if (method == "getBlocks" && !answers_.count("getBlocks")) {
        // Every slot of the range holds a block, but those of a hole a test sets.
        result = json::array();
        for (std::uint64_t slot = call["params"][0]; slot <= call["params"][1]; ++slot) {
          if (!hole_ || slot < hole_->first || slot > hole_->second) result.push_back(slot);
        }
      } else {
        result = answers_.at(method);
      }
      out.set_content(json{{"jsonrpc", "2.0"}, {"id", call["id"]}, {"result", result}}.dump(),
                      "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // Listening before any test may end (a stop before the listen would leave it listening).
    for (int i = 0; i < 1000 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  void TearDown() override {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  void set(const std::string& method, json result) {
    std::lock_guard<std::mutex> lock(mutex_);
    answers_[method] = std::move(result);
  }
  // The question about kSignature for a build `seconds` old, at least and at most.
  static ChainQuestion aged(std::int64_t seconds) {
    ChainQuestion q;
    q.signature = kSignature;
    q.blockhash = kBlockhash;
    q.elapsed_seconds = seconds;
    q.history_seconds = seconds;
    return q;
  }
  Outcome ask(ChainQuestion q, std::int64_t elapsed_seconds = 200) {
    q.signature = kSignature;
    if (q.blockhash.empty()) q.blockhash = kBlockhash;
    q.elapsed_seconds = elapsed_seconds;
    q.history_seconds = elapsed_seconds;
    auto proof = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(q);
    EXPECT_TRUE(proof.ok()) << proof.error().to_string();
    return proof.ok() ? proof->outcome : Outcome::kMayLand;
  }
  // A nonce account's data holding `nonce` as its durable nonce.
  static json nonce_account(const std::string& nonce) {
    Bytes data(80, 0);
    data[0] = 1;  // version: current
    data[4] = 1;  // state: initialised
    const Bytes value = from_base58(nonce, 32).value();
    std::copy(value.begin(), value.end(), data.begin() + 40);
    return {
        {"context", {{"slot", kNodeSlot}}},
        {"value",
         {{"data", {to_base64(data), "base64"}}, {"owner", "11111111111111111111111111111111"}}}};
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::map<std::string, json> answers_;
  std::vector<std::uint64_t> blocks_asked_;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> hole_;  // slots without a block
  // Each block holding a signature of its own (its slot in the first eight bytes), which the
  // statuses know but for those of `status_hole_`.
  bool per_slot_signatures_ = false;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> status_hole_;
  static std::string signature_of_block(std::uint64_t slot) {
    Bytes raw(64, 0xab);
    for (int i = 0; i < 8; ++i)
      raw[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(slot >> (8 * i));
    return to_base58(raw);
  }
};

TEST_F(ScriptedNode, AnExpiredBlockhashAndNoSignatureIsTheOnlyProofThatFrees) {
  EXPECT_EQ(ask({}), Outcome::kNeverLands);
  set("getSignatureStatuses",
      {{"context", {{"slot", kNodeSlot}}},
       {"value", {{{"slot", 5}, {"err", nullptr}, {"confirmationStatus", "finalized"}}}}});
  EXPECT_EQ(ask({}), Outcome::kLanded);
  set("getSignatureStatuses", {{"context", {{"slot", kNodeSlot}}},
                               {"value",
                                {{{"slot", 5},
                                  {"err", {{"InstructionError", {0, "Custom"}}}},
                                  {"confirmationStatus", "confirmed"}}}}});
  EXPECT_EQ(ask({}), Outcome::kLandedFailed);
  set("getSignatureStatuses",
      {{"context", {{"slot", kNodeSlot}}},
       {"value", {{{"slot", 5}, {"err", nullptr}, {"confirmationStatus", "processed"}}}}});
  EXPECT_EQ(ask({}), Outcome::kMayLand) << "processed only: its fork may still be dropped";
}

TEST_F(ScriptedNode, ALaggingFinalizedRootIsNoProof) {
  // Finalized does not know the blockhash (it is newer than the stalled root); the tip does.
  set("isBlockhashValid:processed", {{"context", {{"slot", kNodeSlot}}}, {"value", true}});
  EXPECT_EQ(ask({}), Outcome::kMayLand);
}

// A node whose answers come from backends at different heights (a load balancer): the
// blockhash found expired by a new one, the signature "not found" by one that has not reached
// its landing. An absence from a view behind any other answer of the proof proves nothing.
TEST_F(ScriptedNode, ASignatureAbsentFromAViewBehindTheRestIsNoProof) {
  set("getSignatureStatuses", {{"context", {{"slot", 1}}}, {"value", {nullptr}}});
  auto proof = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(aged(200));
  ASSERT_FALSE(proof.ok());
  EXPECT_THAT(proof.error().message(),
              HasSubstr("not on chain from a view of slot 1, behind slot 1000000"));
  // Behind the height view alone (getEpochInfo's slot), with the rest older: still no proof.
  set("getSignatureStatuses", {{"context", {{"slot", kNodeSlot}}}, {"value", {nullptr}}});
  set("getEpochInfo", {{"absoluteSlot", kNodeSlot + 5}, {"blockHeight", 900'000}});
  ChainQuestion q = aged(200);
  q.last_valid_block_height = 899'999;
  proof = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(q);
  ASSERT_FALSE(proof.ok());
  EXPECT_THAT(proof.error().message(), HasSubstr("behind slot 1000005"));
  // A landing is believed from any view: it is there.
  set("getSignatureStatuses",
      {{"context", {{"slot", 1}}},
       {"value", {{{"slot", 5}, {"err", nullptr}, {"confirmationStatus", "finalized"}}}}});
  EXPECT_EQ(ask(q), Outcome::kLanded);
}

// A build whose node nobody recorded (act ran without --rpc) is a mainnet build: a node of
// another network proves nothing about it, unless the API is this machine's twin.
TEST_F(ScriptedNode, WithNoNodeRecordedAtTheBuildTheNodeMustBeOnTheAPIsNetwork) {
  const std::string rpc = "http://127.0.0.1:" + std::to_string(port_) + "/rpc";
  set("getGenesisHash", "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG");  // devnet's
  auto proof = rpc_prover(rpc, std::chrono::seconds(20),
                          expected_network("https://api.example.com/api/external/v1"))(aged(200));
  ASSERT_FALSE(proof.ok());
  EXPECT_THAT(proof.error().message(),
              HasSubstr("than the API's, mainnet (" + std::string(kMainnetGenesisHash)));
  EXPECT_EQ(expected_network("http://127.0.0.1:8899/api/external/v1"), std::nullopt);
  proof = rpc_prover(rpc, std::chrono::seconds(20),
                     expected_network("http://127.0.0.1:8899/api/external/v1"))(aged(200));
  ASSERT_TRUE(proof.ok()) << proof.error().to_string();
  EXPECT_EQ(proof->outcome, Outcome::kNeverLands);
  set("getGenesisHash", std::string(kMainnetGenesisHash));
  proof = rpc_prover(rpc, std::chrono::seconds(20),
                     expected_network("https://api.example.com/api/external/v1"))(aged(200));
  ASSERT_TRUE(proof.ok()) << proof.error().to_string();
  EXPECT_EQ(proof->outcome, Outcome::kNeverLands);
}

// Found by an attacker review: a node stalled before the build (healthy by its own word, its
// answers consistent) calls the build's blockhash invalid at both commitments and knows nothing
// of the landing; with no last valid height measured at the build, the build's age alone then
// "proved" a landed transaction expired, and the intent landed twice. The node must show it has
// moved on since the build: its finalized block made a blockhash's life after it.
TEST_F(ScriptedNode, WithoutAMeasuredHeightANodeThatHasNotMovedOnSinceTheBuildProvesNothing) {
  const std::string rpc = "http://127.0.0.1:" + std::to_string(port_) + "/rpc";
  ChainQuestion q = aged(200);
  q.built_unix = kNodeBlockTime - 179;  // its finalized block is from 179 s after the build
  auto proof = rpc_prover(rpc)(q);
  ASSERT_FALSE(proof.ok()) << "a node not a blockhash's life past the build freed the intent";
  EXPECT_THAT(proof.error().message(), HasSubstr("has not moved on since the build"));
  q.built_unix = kNodeBlockTime + 500;  // frozen since before the build
  EXPECT_FALSE(rpc_prover(rpc)(q).ok());
  set("getBlockTime", nullptr);  // no time for its block
  q.built_unix = kNodeBlockTime - 1000;
  proof = rpc_prover(rpc)(q);
  ASSERT_FALSE(proof.ok());
  EXPECT_THAT(proof.error().message(), HasSubstr("getBlockTime"));
  // Made 180 s after the build: the blockhash is dead.
  set("getBlockTime", kNodeBlockTime);
  q.built_unix = kNodeBlockTime - 180;
  EXPECT_EQ(ask(q, 200), Outcome::kNeverLands);
}

TEST_F(ScriptedNode, TheBuildsLastValidHeightMustBeBehindTheFinalizedHeight) {
  ChainQuestion q;
  q.last_valid_block_height = 900'000;  // the finalized height is 900,000: not past it yet
  EXPECT_EQ(ask(q), Outcome::kMayLand);
  q.last_valid_block_height = 899'999;
  EXPECT_EQ(ask(q), Outcome::kNeverLands);
}

// The height a build is measured against comes from one getEpochInfo reply: a reply that is
// not an object with unsigned blockHeight and absoluteSlot proves nothing, however far past
// the build's last valid height it seems to say the chain is.
TEST_F(ScriptedNode, AMalformedEpochInfoProvesNothing) {
  ChainQuestion q = aged(200);
  q.last_valid_block_height = 899'999;
  const std::string rpc = "http://127.0.0.1:" + std::to_string(port_) + "/rpc";
  for (const json& reply : {json("900000"), json(nullptr), json::array({900'000, kNodeSlot}),
                            json{{"blockHeight", 900'000}}, json{{"absoluteSlot", kNodeSlot}},
                            json{{"absoluteSlot", kNodeSlot}, {"blockHeight", "900001"}},
                            json{{"absoluteSlot", kNodeSlot}, {"blockHeight", -900'001}},
                            json{{"absoluteSlot", kNodeSlot}, {"blockHeight", 900'001.5}},
                            json{{"absoluteSlot", -1}, {"blockHeight", 900'001}},
                            json{{"absoluteSlot", "1000000"}, {"blockHeight", 900'001}}}) {
    SCOPED_TRACE(reply.dump());
    set("getEpochInfo", reply);
    const auto proof = rpc_prover(rpc)(q);
    ASSERT_FALSE(proof.ok()) << "an unreadable height freed the intent";
    EXPECT_THAT(proof.error().message(), HasSubstr("getEpochInfo"));
  }
  // Read well, the same height proves it.
  set("getEpochInfo", {{"absoluteSlot", kNodeSlot}, {"blockHeight", 900'001}});
  EXPECT_EQ(ask(q), Outcome::kNeverLands);
}

TEST_F(ScriptedNode, ADurableNonceLandsUntilItsNonceMoves) {
  ChainQuestion q;
  q.nonce_account = public_key_from_base58("8eRGBBLisJ4DsFLsAMfxyq1AxS3iCLFtoDfHJv8k9JTo").value();
  // Its "blockhash" is the nonce value, which no node calls a valid blockhash.
  ChainQuestion unread = aged(200);
  unread.nonce_account = q.nonce_account;
  EXPECT_FALSE(rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(unread).ok())
      << "an unreadable nonce account proves nothing";
  set("getAccountInfo", nonce_account(kBlockhash));
  EXPECT_EQ(ask(q), Outcome::kMayLand) << "the nonce is still current";
  set("getAccountInfo", nonce_account("11111111111111111111111111111112"));
  EXPECT_EQ(ask(q), Outcome::kNeverLands) << "the nonce advanced";
}

TEST_F(ScriptedNode, AnUnhealthyNodeOrOneWithoutHistoryProvesNothing) {
  set("getHealth", "behind");
  EXPECT_FALSE(rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(aged(200)).ok());
  set("getHealth", "ok");
  set("minimumLedgerSlot", 999'900);  // 100 slots of history: under a minute
  auto shallow = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(aged(200));
  ASSERT_FALSE(shallow.ok());
  EXPECT_THAT(shallow.error().message(), HasSubstr("transaction history"));
}

// A node that has not seen the blockhash yet calls it invalid at both commitments: without the
// last valid height measured at the build, only the build's age past any blockhash's life
// proves it dead.
TEST_F(ScriptedNode, InvalidInBothViewsIsNoProofUntilTheBlockhashCouldHaveLived) {
  EXPECT_EQ(ask({}, 5), Outcome::kMayLand) << "a second after the send";
  EXPECT_EQ(ask({}, 179), Outcome::kMayLand);
  EXPECT_EQ(ask({}, 180), Outcome::kNeverLands);
}

// A node whose ledger reaches back far enough but which keeps no transaction statuses answers
// "unknown" for a signature that landed: it must know a signature of its own older block.
TEST_F(ScriptedNode, ANodeThatKeepsNoTransactionStatusesProvesNothing) {
  set("getSignatureStatuses:history", {{"context", {{"slot", kNodeSlot}}}, {"value", {nullptr}}});
  auto proof = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(aged(200));
  ASSERT_FALSE(proof.ok());
  EXPECT_THAT(proof.error().message(), HasSubstr("keeps no transaction history"));
  // The block it tests with is older than the build (and any status cache): 200 s and two
  // minutes back at 2.5 slots a second from the finalized slot.
  ASSERT_FALSE(blocks_asked_.empty());
  EXPECT_EQ(blocks_asked_.front(), 1'000'000u - (200 + 120) * 5 / 2);
}

// Found by an independent fault review: an endpoint balancing its calls over a backend that
// keeps history and one that does not had the history tested on the first and the signature
// found absent on the second; the landed send was proven expired and landed again. The answer
// that finds the signature absent must also find the old one the history was tested with.
TEST_F(ScriptedNode, AnAbsenceFromAnAnswerWithoutTheHistoryIsNoProof) {
  EXPECT_EQ(ask(aged(200)), Outcome::kNeverLands) << "the same node, keeping its history";
  set("getSignatureStatuses:history-in-pair", nullptr);
  auto proof = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(aged(200));
  ASSERT_FALSE(proof.ok());
  EXPECT_THAT(proof.error().message(), HasSubstr("a part of the node without that transaction "
                                                 "history, so it proves nothing absent"));
}

// Found by an independent fault review: an endpoint whose status calls reached a backend with a
// hole over the recent slots (it knew the old signature the history was tested with) and whose
// block calls reached a whole one said "not found" of a landed send, which was proven expired and
// landed again, three times. The answer that finds the signature absent must know a signature
// of blocks all over the window where it could have landed, not only one from before the build.
TEST_F(ScriptedNode, AnAbsenceFromAnAnswerWithAHoleWhereItCouldHaveLandedIsNoProof) {
  per_slot_signatures_ = true;
  EXPECT_EQ(ask(aged(200)), Outcome::kNeverLands) << "a node whose statuses are whole";
  const std::uint64_t before = 1'000'000u - (200 + 120) * 5 / 2;
  for (const auto& hole :
       std::vector<std::pair<std::uint64_t, std::uint64_t>>{{before + 300, before + 799},
                                                            {before + 700, before + 800},
                                                            {before + 40, before + 80}}) {
    status_hole_ = hole;
    auto proof = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(aged(200));
    ASSERT_FALSE(proof.ok()) << hole.first << " to " << hole.second;
    EXPECT_THAT(proof.error().message(),
                HasSubstr("a signature of a block it lists where ours could have landed"));
  }
  // Bounded: at most 64 blocks are read for it, besides the one before the build.
  blocks_asked_.clear();
  status_hole_.reset();
  EXPECT_EQ(ask(aged(200)), Outcome::kNeverLands);
  EXPECT_LE(blocks_asked_.size(), 65u);
}

// Found by an independent fault review: at the build, an endpoint balancing its calls answered
// isBlockhashValid from a current backend and getLatestBlockhash from one 100 s behind, whose
// older blockhash's last valid height (below the build's own) was recorded as the build's bound;
// later the lagging backend proved the landed send dead by it. The newest blockhash is taken
// only from a view at least as new as the one that saw the build's.
TEST_F(ScriptedNode, ABuildsHeightIsRecordedOnlyFromAViewThatHadSeenItsBlockhash) {
  const json vector = airlock::test::vector_named("solana-v0-transactions.json", "transfer");
  const json reply = {
      {"vault", "CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT"},
      {"result", json::array({{{"transaction", vector["unsigned_tx_base64"]}, {"ticket", "t"}}})}};
  set("isBlockhashValid:processed", {{"context", {{"slot", kNodeSlot}}}, {"value", true}});
  set("getBlockHeight", 900'000);
  const auto recorded = [&](std::uint64_t latest_slot) {
    set("getLatestBlockhash",
        {{"context", {{"slot", latest_slot}}},
         {"value", {{"blockhash", kBlockhash}, {"lastValidBlockHeight", 900'100}}}});
    auto round = prepare_round("vault/claim-fee",
                               {{"vault", "CVQ98jrMu9QDgQePvxX2XXugjGHgwGcPu5scmMiKY3hT"}}, reply,
                               "http://127.0.0.1:" + std::to_string(port_) + "/rpc", 1'800'000'000);
    EXPECT_TRUE(round.ok()) << round.error().to_string();
    return round.ok() ? round->last_valid_block_height : std::nullopt;
  };
  EXPECT_EQ(recorded(kNodeSlot), std::optional<std::uint64_t>(900'100));
  EXPECT_EQ(recorded(kNodeSlot - 250), std::nullopt) << "a view behind the one that saw it";
}

// Found by a second fault review: a node restarted from a newer snapshot over its old ledger
// held the block its history was tested with and the newest ones, but none where the send had
// landed, and proved it expired. Its ledger must hold the blocks through the blockhash's life.
TEST_F(ScriptedNode, ANodeWithAHoleInItsLedgerProvesNothing) {
  const std::uint64_t before = 1'000'000u - (200 + 120) * 5 / 2;
  hole_ = std::pair<std::uint64_t, std::uint64_t>{before + 100, before + 600};
  auto proof = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(aged(200));
  ASSERT_FALSE(proof.ok());
  EXPECT_THAT(proof.error().message(), HasSubstr("holds no block from slot"));
  // A run of skipped slots as leaders leave them is no hole.
  hole_ = std::pair<std::uint64_t, std::uint64_t>{before + 100, before + 130};
  EXPECT_EQ(ask(aged(200)), Outcome::kNeverLands);
  // A reply that is no ascending list of slots within the range asked proves nothing either.
  for (const auto& [reply, says] : std::vector<std::pair<json, std::string>>{
           {"all of them", "the reply is no list of slots"},
           {json::array({before + 5, before + 2}), "not ascending within the range asked"},
           {json::array({before, 2'000'000}), "not ascending within the range asked"},
           {json::array({before, -1}), "not ascending within the range asked"}}) {
    set("getBlocks", reply);
    auto odd = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(aged(200));
    ASSERT_FALSE(odd.ok()) << reply.dump();
    EXPECT_THAT(odd.error().message(), HasSubstr(says)) << reply.dump();
  }
}

TEST_F(ScriptedNode, ANodeWithNoReadableBlockBeforeTheBuildProvesNothing) {
  set("getBlock", nullptr);  // skipped slots, every one
  auto proof = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(aged(200));
  ASSERT_FALSE(proof.ok());
  EXPECT_THAT(proof.error().message(), HasSubstr("to test the node's transaction history"));
  EXPECT_EQ(blocks_asked_.size(), 8u) << "a few slots are tried, never an unbounded walk";
}

// A clock set back after the build makes the build look new, so a node with little history
// would do: nothing is concluded while the clock is behind the build.
TEST_F(ScriptedNode, AClockBehindTheBuildProvesNothing) {
  auto proof = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(aged(-50));
  ASSERT_FALSE(proof.ok());
  EXPECT_THAT(proof.error().message(), HasSubstr("s after this machine's clock"));
}

// Found by an independent fault review: both halves' clocks a day ahead at the build, then set
// right and the machine restarted. The build's recorded time lies a day after the clock, and
// the prover refused to ask the chain at all, even of a signature that had landed, telling the
// operator to set right a clock that was right: every act stayed refused for a day. A landing
// needs no clock; nor does the height the build's node measured.
TEST_F(ScriptedNode, AClockAheadAtTheBuildKeepsNeitherALandingNorAHeightFromProving) {
  ChainQuestion q = aged(-86'400);
  q.elapsed_seconds = 0;  // another boot: the boot clock tells nothing of the build's age
  set("getSignatureStatuses",
      {{"context", {{"slot", kNodeSlot}}},
       {"value", {{{"slot", 5}, {"err", nullptr}, {"confirmationStatus", "finalized"}}}}});
  auto landed = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(q);
  ASSERT_TRUE(landed.ok()) << landed.error().to_string();
  EXPECT_EQ(landed->outcome, Outcome::kLanded);
  // Not on chain: with the slot and height the build's node measured, the height proves it
  // dead whatever the clock says; without them, nothing is proved, and the message says why.
  set("getSignatureStatuses", {{"context", {{"slot", kNodeSlot}}}, {"value", {nullptr}}});
  auto unmeasured = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(q);
  ASSERT_FALSE(unmeasured.ok());
  EXPECT_THAT(unmeasured.error().message(), HasSubstr("the clock is behind now, or was ahead"));
  q.build_slot = kNodeSlot - 1'000;
  q.last_valid_block_height = 899'000;
  auto measured = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(q);
  ASSERT_TRUE(measured.ok()) << measured.error().to_string();
  EXPECT_EQ(measured->outcome, Outcome::kNeverLands) << measured->detail;
}

// A node of another network (devnet asked about a mainnet build) would call every blockhash
// invalid and every signature unknown.
TEST_F(ScriptedNode, ANodeOfAnotherNetworkProvesNothing) {
  ChainQuestion q = aged(200);
  q.genesis_hash = "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG";
  auto proof = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(q);
  ASSERT_FALSE(proof.ok());
  EXPECT_THAT(proof.error().message(), HasSubstr("on another network"));
  q.genesis_hash = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d";
  EXPECT_EQ(ask(q), Outcome::kNeverLands);
}

// Found by an independent fault review: act --rpc pointed at a node of another network
// recorded that network as the build's, and the same node then proved a landed send dead.
// The build's node must have been on the API's network (mainnet) for its record to count.
TEST_F(ScriptedNode, ABuildRecordedByANodeOfAnotherNetworkProvesNothing) {
  ChainQuestion q = aged(200);
  q.genesis_hash = "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG";        // devnet's, at the build
  set("getGenesisHash", "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG");  // the same node
  const auto mainnet = std::string(kMainnetGenesisHash);
  auto proof = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc",
                          std::chrono::seconds(20), mainnet)(q);
  ASSERT_FALSE(proof.ok()) << "proved from a devnet node's record";
  EXPECT_THAT(proof.error().message(), HasSubstr("the node asked at the build was on another"));
  // Without the API's network (the twin on this machine), the recorded node is the network.
  EXPECT_TRUE(rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(q).ok());
}

// act and resume refuse a node of another network before anything is built or proven (a fault
// review had act build, sign and send with a devnet node, whose record then proved nothing).
TEST_F(ScriptedNode, ANodeOfAnotherNetworkIsRefusedBeforeAnythingIsBuilt) {
  const std::string url = "http://127.0.0.1:" + std::to_string(port_) + "/rpc";
  const auto mainnet = std::string(kMainnetGenesisHash);
  EXPECT_TRUE(check_node_network(url, mainnet).ok());
  set("getGenesisHash", "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG");  // devnet's
  const auto refused = check_node_network(url, mainnet);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::kUsage);
  EXPECT_THAT(refused.error().to_string(), HasSubstr("--rpc"));
  EXPECT_THAT(refused.error().message(), HasSubstr("another network (genesis EtWTRABZ"));
  // The twin's API on this machine names no network; a node that does not answer is asked
  // again by each proof.
  EXPECT_TRUE(check_node_network(url, std::nullopt).ok());
  EXPECT_TRUE(check_node_network("http://127.0.0.1:1/rpc", mainnet).ok());
  EXPECT_EQ(expected_network("https://api.example.com/v1"), mainnet);
  EXPECT_EQ(expected_network("http://127.0.0.1:8080/v1"), std::nullopt);
}

// With the node's slot recorded at the build, the history asked for reaches back before it,
// whatever the clock says of the build's age.
TEST_F(ScriptedNode, TheHistoryAskedForReachesBackBeforeTheRecordedBuildSlot) {
  ChainQuestion q;
  q.build_slot = 990'000;
  set("minimumLedgerSlot", 995'000);  // enough for 200 s by the clock, not for the build slot
  ChainQuestion recorded = aged(200);
  recorded.build_slot = 990'000;
  auto proof = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(recorded);
  ASSERT_FALSE(proof.ok());
  EXPECT_THAT(proof.error().message(), HasSubstr("after slot 989850"));
  set("minimumLedgerSlot", 0);
  blocks_asked_.clear();
  EXPECT_EQ(ask(q), Outcome::kNeverLands);
  ASSERT_FALSE(blocks_asked_.empty());
  EXPECT_EQ(blocks_asked_.front(), 989'850U);
}

}  // namespace
}  // namespace airlock::online
