// The keystore commands of the real airlock-offline executable.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <airlock/common/ed25519.h>

#include "support/helpers.h"
#include "support/vectors.h"

namespace {

using airlock::test::run_command;

class KeystoreCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("airlock-keystore-cli-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    write("pass", "correct horse battery\n");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(path(name)) << text;
  }
  // init and import refuse while a network interface is up; this machine has one, so the
  // tests pass the override after the command word (hardening_cli_test covers the refusal).
  airlock::test::CommandResult offline(const std::string& args) {
    std::string line = args;
    if (line.rfind("init ", 0) == 0 || line.rfind("import ", 0) == 0)
      line.insert(line.find(' '), " --unsafe-allow-network");
    return run_command(std::string(AIRLOCK_OFFLINE_BIN) + " " + line);
  }
  std::filesystem::path dir_;
};

TEST_F(KeystoreCli, ImportsAMnemonicAtTheDefaultPathAndPrintsTheKey) {
  const auto v = airlock::test::vector_list("solana-mnemonic-keys.json").at(0);
  write("words", v.at("mnemonic").get<std::string>() + "\n");
  const auto r = offline("import --keystore " + path("k") +
                         " --mnemonic --mnemonic-fd 3 --passphrase-fd 4 --kdf interactive 3<" +
                         path("words") + " 4<" + path("pass"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(v.at("derived")[0].at("pubkey").get<std::string>()), std::string::npos)
      << r.output;
  const auto pub = offline("pubkey --json --keystore " + path("k"));
  ASSERT_EQ(pub.exit_code, 0) << pub.output;
  const auto j = nlohmann::json::parse(pub.output);
  EXPECT_EQ(j["public_key"], v.at("derived")[0].at("pubkey"));
  EXPECT_EQ(j["path"], "m/44'/501'/0'/0'");
  EXPECT_EQ(j["source"], "bip39");
  EXPECT_EQ(r.output.find("abandon"), std::string::npos) << "the mnemonic is never echoed";
}

TEST_F(KeystoreCli, ImportsAKeypairFileAndAnotherPath) {
  const auto v = airlock::test::vector_list("solana-mnemonic-keys.json").at(1);
  write("words", v.at("mnemonic").get<std::string>() + "\n");
  write("bip39pass", v.at("passphrase").get<std::string>() + "\n");
  const auto r = offline("import --keystore " + path("k") +
                         " --mnemonic --path \"m/44'/501'/2'/0'\" --mnemonic-fd 3 "
                         "--mnemonic-passphrase-fd 5 --passphrase-fd 4 --kdf interactive 3<" +
                         path("words") + " 4<" + path("pass") + " 5<" + path("bip39pass"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(v.at("derived")[2].at("pubkey").get<std::string>()), std::string::npos)
      << r.output;

  // A Solana CLI keypair file of the web3.js vector's signer.
  const airlock::Bytes seed =
      airlock::test::hex("cdf9fcd6e2e229d88b015fc793d36111e1a71d4b4ef3eafc4ab2576036e9e76b");
  auto keypair = airlock::Keypair::from_seed(seed);
  std::string json = "[";
  for (std::size_t i = 0; i < 64; ++i)
    json += std::to_string(i < 32 ? seed[i] : keypair->public_key().bytes[i - 32]) +
            (i < 63 ? "," : "]");
  write("id.json", json);
  const auto k = offline("import --keystore " + path("k2") + " --keypair " + path("id.json") +
                         " --passphrase-fd 4 --kdf interactive 4<" + path("pass"));
  ASSERT_EQ(k.exit_code, 0) << k.output;
  EXPECT_NE(k.output.find("AjKRAbbKpVpsd9eKfZjK7gcdsgdBNshJiJ4j5N9z2pax"), std::string::npos);
}

TEST_F(KeystoreCli, InitMakesAFreshKeyAndRefusesToOverwrite) {
  const auto first = offline("init --keystore " + path("k") +
                             " --passphrase-fd 4 --kdf interactive 4<" + path("pass"));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const auto again = offline("init --keystore " + path("k") +
                             " --passphrase-fd 4 --kdf interactive 4<" + path("pass"));
  EXPECT_EQ(again.exit_code, 3) << again.output;
  EXPECT_NE(again.output.find("never overwritten"), std::string::npos);
}

TEST_F(KeystoreCli, BadInputsAreNamed) {
  write("words", "abandon abandon abandon\n");
  const auto words = offline("import --keystore " + path("k") +
                             " --mnemonic --mnemonic-fd 3 --passphrase-fd 4 3<" + path("words") +
                             " 4<" + path("pass"));
  EXPECT_EQ(words.exit_code, 1) << words.output;
  EXPECT_NE(words.output.find("mnemonic: must be 12"), std::string::npos) << words.output;
  EXPECT_FALSE(std::filesystem::exists(path("k")));
  const auto both = offline("import --keystore " + path("k") + " --mnemonic --keypair x");
  EXPECT_EQ(both.exit_code, 2);
  const auto missing = offline("pubkey");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  // Without a terminal (setsid leaves none) and without --passphrase-fd there is no one to ask.
  const auto no_tty =
      run_command("setsid -w " + std::string(AIRLOCK_OFFLINE_BIN) +
                  " init --unsafe-allow-network --keystore " + path("k") + " < /dev/null");
  EXPECT_EQ(no_tty.exit_code, 2) << no_tty.output;
  EXPECT_NE(no_tty.output.find("no terminal"), std::string::npos) << no_tty.output;
  const auto short_pass =
      offline("init --keystore " + path("k") + " --passphrase-fd 3 3< /dev/null");
  EXPECT_EQ(short_pass.exit_code, 2) << short_pass.output;
}

}  // namespace
