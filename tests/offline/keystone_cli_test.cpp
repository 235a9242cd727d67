// Keystone interop in the executables (issue 14): a `ur:sol-sign-request` made at test time by
// Keystone's own registry (@keystonehq/bc-ur-registry-sol) for a transaction the twin built is
// read by `airlock-offline sign` from a UR text file and from QR frames (multipart, through
// `airlock-qr encode`), reviewed without an intent, signed only when the operator says yes, and
// answered with a `ur:sol-signature` that the registry reads and @noble/curves verifies.
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gmock/gmock.h>

#include <airlock/common/bytes.h>
#include <airlock/common/message.h>

#include "conformance_support.h"
#include "support/helpers.h"
#include "support/interfaces.h"
#include "support/vectors.h"

using ::testing::HasSubstr;

namespace airlock::apisim::test {
namespace {

constexpr const char* kUuid = "5f2b1c9e-8a41-4c7e-9d3a-2e6f0b7c4a18";

class KeystoneCli : public SigningTwin {
 protected:
  void SetUp() override {
    SigningTwin::SetUp();
    // A transaction the manager really would sign: the twin's vault/update.
    const Reply built =
        post("/transactions/vault/update", {{"vault", kVault}, {"depositCap", "20000000000000"}});
    ASSERT_EQ(built.status, 200) << built.body.dump();
    message_hex = to_hex(serialize_message(tx_of(steps_of(built.body).at(0)).message));
    manager = to_base58(manager_->public_key());
    write("pass", "correct horse\n");
  }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir.file(name), std::ios::binary) << text;
  }
  std::string read(const std::string& name) {
    std::ifstream in(dir.file(name), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  void policy(const std::string& extra = "") {
    write("policy.toml", "version = 1\nmanager = \"" + manager + "\"\nvaults = [\"" + kVault +
                             "\"]\nprograms = [\"AirLockVau1t1111111111111111111111111111111\", "
                             "\"ComputeBudget111111111111111111111111111111\"]\n"
                             "max_priority_fee_lamports = 100000\n"
                             "allow_unverified_lookup_tables = true\n" +
                             airlock::test::twin_pin_toml() + extra);
  }

  // Keystone's registry makes the request: its UR parts, one a line.
  void make_request(const std::string& name, int fragment_len, const std::string& hex) {
    const auto made = airlock::test::run_command(
        "node " + std::string(AIRLOCK_ORACLE_DIR) + "/keystone_interop.mjs make " + hex + " " +
        manager + " " + kUuid + " " + std::to_string(fragment_len) + " " + dir.file(name));
    ASSERT_EQ(made.exit_code, 0) << made.output;
  }
  // The registry reads the answer and checks the signature independently.
  airlock::test::CommandResult verify(const std::string& name) {
    return airlock::test::run_command("node " + std::string(AIRLOCK_ORACLE_DIR) +
                                      "/keystone_interop.mjs verify " + dir.file(name) + " " +
                                      message_hex + " " + manager + " " + kUuid);
  }
  airlock::test::CommandResult sign(const std::string& input, const std::string& outputs,
                                    const std::string& answer, const std::string& flags = "") {
    write("answer", answer + "\n");
    return airlock::test::run_command(
        std::string(AIRLOCK_OFFLINE_BIN) + " sign --unsafe-allow-network --keystore " + keystore +
        " --policy " + dir.file("policy.toml") + " --audit-log " + dir.file("keystone-audit.log") +
        " --passphrase-fd 3 --confirm-fd 4 " + flags + " " + input + " " + outputs + " 3<" +
        dir.file("pass") + " 4<" + dir.file("answer"));
  }

  std::string message_hex;
  std::string manager;
};

TEST_F(KeystoneCli, ARegistryRequestFromAUrFileIsSignedAndTheRegistryVerifiesTheAnswer) {
  policy();
  make_request("request.ur", 0, message_hex);
  const auto signed_ = sign(dir.file("request.ur"), "--out " + dir.file("signature.ur"), "y");
  ASSERT_EQ(signed_.exit_code, 0) << signed_.output;
  // No intent came with it, and the screen says so.
  EXPECT_THAT(signed_.output, HasSubstr("NO INTENT"));
  EXPECT_THAT(signed_.output, HasSubstr("warn.no_intent"));
  EXPECT_EQ(read("signature.ur").rfind("ur:sol-signature/", 0), 0U) << read("signature.ur");
  const auto checked = verify("signature.ur");
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
  EXPECT_THAT(checked.output, HasSubstr("\"ok\":true"));
}

TEST_F(KeystoneCli, AMultipartRequestShownAsQrIsReadSignedAndAnsweredAsQr) {
  policy();
  make_request("request.ur", 40, message_hex);  // several parts, fountain parts after them
  const auto frames =
      airlock::test::run_command(std::string(AIRLOCK_QR_BIN) + " encode " + dir.file("request.ur") +
                                 " --qr-png " + dir.file("request-frames"));
  ASSERT_EQ(frames.exit_code, 0) << frames.output;
  EXPECT_THAT(frames.output, HasSubstr("BC-UR"));
  const auto signed_ =
      sign("--qr " + dir.file("request-frames"), "--qr-png " + dir.file("answer-frames"), "y");
  ASSERT_EQ(signed_.exit_code, 0) << signed_.output;
  const auto decoded =
      airlock::test::run_command(std::string(AIRLOCK_QR_BIN) + " decode " +
                                 dir.file("answer-frames") + " --out " + dir.file("signature.ur"));
  ASSERT_EQ(decoded.exit_code, 0) << decoded.output;
  const auto checked = verify("signature.ur");
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
}

TEST_F(KeystoneCli, ItIsNeverAutoApprovedAndADeclineWritesNoAnswer) {
  make_request("request.ur", 0, message_hex);
  // A policy cannot ask for it to be signed without asking, and can turn it off.
  policy("[actions.\"keystone/sol-sign-request\"]\nauto_approve = true\n");
  const auto contradictory = sign(dir.file("request.ur"), "--out " + dir.file("signature.ur"), "y");
  EXPECT_EQ(contradictory.exit_code, 2) << contradictory.output;
  EXPECT_THAT(contradictory.output, HasSubstr("never signed without asking"));
  policy("[actions.\"keystone/sol-sign-request\"]\nallowed = false\n");
  const auto off = sign(dir.file("request.ur"), "--out " + dir.file("signature.ur"), "y");
  EXPECT_EQ(off.exit_code, 1) << off.output;
  EXPECT_THAT(off.output, HasSubstr("policy.action_not_allowed"));
  // The action it builds auto-approved, and --auto-approve given: it is still asked.
  policy("[actions.\"vault/update\"]\nauto_approve = true\n");
  const auto declined =
      sign(dir.file("request.ur"), "--out " + dir.file("signature.ur"), "n", "--auto-approve");
  EXPECT_EQ(declined.exit_code, 1) << declined.output;
  EXPECT_THAT(declined.output, HasSubstr("operator.declined"));
  EXPECT_THAT(declined.output, HasSubstr("no answer was written"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("signature.ur")));
}

TEST_F(KeystoneCli, ARequestForAnotherSignerOrOutsideThePolicyIsRefused) {
  // The shared vector: made by the registry for another key.
  policy();
  const json vectors = airlock::test::load_vectors("keystone-sol.json");
  write("other.ur", vectors["vectors"][0]["request_ur"].get<std::string>() + "\n");
  const auto other = sign(dir.file("other.ur"), "--out " + dir.file("signature.ur"), "y");
  EXPECT_EQ(other.exit_code, 1) << other.output;
  EXPECT_THAT(other.output, HasSubstr("policy."));
  EXPECT_FALSE(std::filesystem::exists(dir.file("signature.ur")));
  // Our manager's request, but the policy does not hold the vault it touches.
  write("policy.toml", "version = 1\nmanager = \"" + manager +
                           "\"\nvaults = [\"11111111111111111111111111111112\"]\n"
                           "programs = [\"AirLockVau1t1111111111111111111111111111111\", "
                           "\"ComputeBudget111111111111111111111111111111\"]\n"
                           "allow_unverified_lookup_tables = true\n" +
                           airlock::test::twin_pin_toml());
  make_request("request.ur", 0, message_hex);
  const auto outside = sign(dir.file("request.ur"), "--out " + dir.file("signature.ur"), "y");
  EXPECT_EQ(outside.exit_code, 1) << outside.output;
  EXPECT_THAT(outside.output, HasSubstr("policy.vault_not_allowed"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("signature.ur")));
}

}  // namespace
}  // namespace airlock::apisim::test
