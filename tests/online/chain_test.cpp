// The chain prover (online/chain.h) against a scripted JSON-RPC node on loopback: the answers a
// healthy, a lagging or a nonce-advancing node gives, and what may be concluded from each. Only
// a proof that the transaction can never land frees an intent; everything else keeps it open.
#include <map>
#include <mutex>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <airlock/common/bytes.h>
#include <airlock/online/chain.h>

using ::testing::HasSubstr;

namespace airlock::online {
namespace {

using json = nlohmann::json;
using Outcome = ChainProof::Outcome;

constexpr const char* kBlockhash = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn";
constexpr const char* kSignature =
    "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW";

// A node whose every answer the test sets: method (and, for isBlockhashValid, commitment) to
// result.
class ScriptedNode : public ::testing::Test {
 protected:
  void SetUp() override {
    answers_ = {{"getHealth", "ok"},
                {"minimumLedgerSlot", 0},
                {"getSlot", 1'000'000},
                {"getBlockHeight", 900'000},
                {"isBlockhashValid:finalized", {{"context", {{"slot", 1}}}, {"value", false}}},
                {"isBlockhashValid:processed", {{"context", {{"slot", 1}}}, {"value", false}}},
                {"getSignatureStatuses", {{"context", {{"slot", 1}}}, {"value", {nullptr}}}},
                {"getAccountInfo", {{"context", {{"slot", 1}}}, {"value", nullptr}}}};
    server_.Post("/rpc", [this](const httplib::Request& in, httplib::Response& out) {
      const json call = json::parse(in.body);
      std::string method = call["method"];
      if (method == "isBlockhashValid")
        method += ":" + call["params"][1]["commitment"].get<std::string>();
      std::lock_guard<std::mutex> lock(mutex_);
      out.set_content(
          json{{"jsonrpc", "2.0"}, {"id", call["id"]}, {"result", answers_.at(method)}}.dump(),
          "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  void TearDown() override {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  void set(const std::string& method, json result) {
    std::lock_guard<std::mutex> lock(mutex_);
    answers_[method] = std::move(result);
  }
  Outcome ask(ChainQuestion q) {
    q.signature = kSignature;
    if (q.blockhash.empty()) q.blockhash = kBlockhash;
    q.elapsed_seconds = 200;
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
        {"context", {{"slot", 1}}},
        {"value",
         {{"data", {to_base64(data), "base64"}}, {"owner", "11111111111111111111111111111111"}}}};
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::map<std::string, json> answers_;
};

TEST_F(ScriptedNode, AnExpiredBlockhashAndNoSignatureIsTheOnlyProofThatFrees) {
  EXPECT_EQ(ask({}), Outcome::kNeverLands);
  set("getSignatureStatuses",
      {{"context", {{"slot", 1}}},
       {"value", {{{"slot", 5}, {"err", nullptr}, {"confirmationStatus", "finalized"}}}}});
  EXPECT_EQ(ask({}), Outcome::kLanded);
  set("getSignatureStatuses", {{"context", {{"slot", 1}}},
                               {"value",
                                {{{"slot", 5},
                                  {"err", {{"InstructionError", {0, "Custom"}}}},
                                  {"confirmationStatus", "confirmed"}}}}});
  EXPECT_EQ(ask({}), Outcome::kLandedFailed);
  set("getSignatureStatuses",
      {{"context", {{"slot", 1}}},
       {"value", {{{"slot", 5}, {"err", nullptr}, {"confirmationStatus", "processed"}}}}});
  EXPECT_EQ(ask({}), Outcome::kMayLand) << "processed only: its fork may still be dropped";
}

TEST_F(ScriptedNode, ALaggingFinalizedRootIsNoProof) {
  // Finalized does not know the blockhash (it is newer than the stalled root); the tip does.
  set("isBlockhashValid:processed", {{"context", {{"slot", 1}}}, {"value", true}});
  EXPECT_EQ(ask({}), Outcome::kMayLand);
}

TEST_F(ScriptedNode, TheBuildsLastValidHeightMustBeBehindTheFinalizedHeight) {
  ChainQuestion q;
  q.last_valid_block_height = 900'000;  // the finalized height is 900,000: not past it yet
  EXPECT_EQ(ask(q), Outcome::kMayLand);
  q.last_valid_block_height = 899'999;
  EXPECT_EQ(ask(q), Outcome::kNeverLands);
}

TEST_F(ScriptedNode, ADurableNonceLandsUntilItsNonceMoves) {
  ChainQuestion q;
  q.nonce_account = public_key_from_base58("8eRGBBLisJ4DsFLsAMfxyq1AxS3iCLFtoDfHJv8k9JTo").value();
  // Its "blockhash" is the nonce value, which no node calls a valid blockhash.
  EXPECT_FALSE(rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(
                   ChainQuestion{kSignature, kBlockhash, 200, q.nonce_account, std::nullopt})
                   .ok())
      << "an unreadable nonce account proves nothing";
  set("getAccountInfo", nonce_account(kBlockhash));
  EXPECT_EQ(ask(q), Outcome::kMayLand) << "the nonce is still current";
  set("getAccountInfo", nonce_account("11111111111111111111111111111112"));
  EXPECT_EQ(ask(q), Outcome::kNeverLands) << "the nonce advanced";
}

TEST_F(ScriptedNode, AnUnhealthyNodeOrOneWithoutHistoryProvesNothing) {
  set("getHealth", "behind");
  EXPECT_FALSE(rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(
                   ChainQuestion{kSignature, kBlockhash, 200, std::nullopt, std::nullopt})
                   .ok());
  set("getHealth", "ok");
  set("minimumLedgerSlot", 999'900);  // 100 slots of history: under a minute
  auto shallow = rpc_prover("http://127.0.0.1:" + std::to_string(port_) + "/rpc")(
      ChainQuestion{kSignature, kBlockhash, 200, std::nullopt, std::nullopt});
  ASSERT_FALSE(shallow.ok());
  EXPECT_THAT(shallow.error().message(), HasSubstr("transaction history"));
}

}  // namespace
}  // namespace airlock::online
