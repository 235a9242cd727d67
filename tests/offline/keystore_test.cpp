#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <airlock/common/hash.h>
#include <airlock/offline/derivation.h>
#include <airlock/offline/keystore.h>

#include "../../offline/src/bip39_words.h"
#include "support/helpers.h"
#include "support/vectors.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace airlock::offline {
namespace {

// Vectors and test inputs as secrets, for the functions that take only SecretText.
test::SecretArena as_secret;

SecretBytes secret_of(std::string_view text) { return SecretBytes::copy_of(text).value(); }

TEST(Bip39, WordListIsTheStandardOne) {
  std::string joined;
  for (auto w : kBip39Words) joined += std::string(w) + "\n";
  EXPECT_EQ(to_hex(sha256(text_bytes(joined)).view()),
            "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda");
}

TEST(Bip39, SeedsAndPathsMatchTheVectors) {
  const auto vectors = test::vector_list("solana-mnemonic-keys.json");
  ASSERT_GE(vectors.size(), 6U);
  for (const auto& v : vectors) {
    const std::string mnemonic = v.at("mnemonic"), passphrase = v.at("passphrase");
    auto seed = mnemonic_to_seed(as_secret(mnemonic), as_secret(passphrase));
    ASSERT_TRUE(seed.ok()) << seed.error().to_string();
    EXPECT_EQ(to_hex(seed->bytes()), v.at("seed_hex").get<std::string>())
        << mnemonic.substr(0, 20) << " / " << passphrase;
    for (const auto& d : v.at("derived")) {
      auto path = keystone::DerivationPath::parse(d.at("path").get<std::string>());
      ASSERT_TRUE(path.ok());
      auto key = derive_ed25519(*seed, *path);
      ASSERT_TRUE(key.ok()) << key.error().to_string();
      EXPECT_EQ(to_hex(key->bytes()), d.at("secret_seed_hex").get<std::string>()) << d.at("path");
      auto keypair = Keypair::from_seed(key->bytes());
      EXPECT_EQ(to_base58(keypair->public_key()), d.at("pubkey").get<std::string>())
          << d.at("path");
    }
    // The Solana CLI without a path takes the first 32 bytes of the seed.
    auto cli = Keypair::from_seed(seed->bytes().first(32));
    EXPECT_EQ(to_base58(cli->public_key()), v.at("solana_cli_no_path_pubkey").get<std::string>());
  }
}

TEST(Bip39, RefusesBadMnemonicsWithTheRule) {
  const std::string good =
      "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon "
      "about";
  EXPECT_TRUE(mnemonic_to_seed(as_secret("  " + good + "\n"), as_secret("")).ok())
      << "surrounding whitespace is fine";
  struct Case {
    std::string mnemonic, passphrase, message;
  };
  const Case cases[] = {
      {"abandon abandon abandon", "", "12, 15, 18, 21 or 24 words"},
      {"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon "
       "abandon",
       "", "checksum"},
      {"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon "
       "abuot",
       "", "word 12"},
      {"abandonn abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon "
       "about",
       "", "word 1"},
      {good, "p\xc3\xa4ss", "ASCII"},
  };
  for (const auto& c : cases) {
    auto seed = mnemonic_to_seed(as_secret(c.mnemonic), as_secret(c.passphrase));
    ASSERT_FALSE(seed.ok()) << c.mnemonic;
    EXPECT_THAT(seed.error().message(), HasSubstr(c.message));
    EXPECT_THAT(seed.error().message(), Not(HasSubstr("abandon")))
        << "no mnemonic word in an error";
  }
  auto seed = mnemonic_to_seed(as_secret(good), as_secret(""));
  auto unhardened = derive_ed25519(*seed, keystone::DerivationPath::parse("m/44'/501'/0").value());
  ASSERT_FALSE(unhardened.ok());
  EXPECT_THAT(unhardened.error().message(), HasSubstr("hardened"));
}

TEST(SolanaKeypairFile, ParsesAndChecksThePublicHalf) {
  const Bytes seed = test::hex("cdf9fcd6e2e229d88b015fc793d36111e1a71d4b4ef3eafc4ab2576036e9e76b");
  auto keypair = Keypair::from_seed(seed);
  std::string json = "[";
  for (std::size_t i = 0; i < 64; ++i) {
    json += std::to_string(i < 32 ? seed[i] : keypair->public_key().bytes[i - 32]) +
            (i < 63 ? "," : "]");
  }
  auto parsed = seed_from_solana_keypair_json(as_secret(json + "\n"));
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  EXPECT_EQ(Bytes(parsed->bytes().begin(), parsed->bytes().end()), seed);

  std::string wrong_public = json;
  wrong_public.replace(wrong_public.rfind(','), std::string::npos, ",7]");
  EXPECT_THAT(seed_from_solana_keypair_json(as_secret(wrong_public)).error().message(),
              HasSubstr("public half"));
  for (const char* bad : {"", "[]", "[1,2,3]", "{\"a\":1}", "[256,1]", "[1,,2]", "[-1]"}) {
    auto r = seed_from_solana_keypair_json(as_secret(bad));
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.error().message(), HasSubstr("64 numbers"));
  }
  EXPECT_FALSE(seed_from_solana_keypair_json(as_secret(json + " [")).ok()) << "trailing content";
}

class KeystoreFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("airlock-keystore-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "manager.key").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void write(const SecretBytes& seed) {
    ASSERT_TRUE(write_keystore(path_, seed, secret_of("correct horse battery"),
                               {"generated", std::nullopt}, minimum_kdf_limits())
                    .ok());
  }
  nlohmann::json load() {
    std::ifstream in(path_);
    return nlohmann::json::parse(in);
  }
  void save(const nlohmann::json& j) { std::ofstream(path_) << j.dump(); }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(KeystoreFile, RoundTripsWithMode0600AndNeverOverwrites) {
  auto seed = generate_seed();
  ASSERT_TRUE(seed.ok());
  write(*seed);
  struct stat st {};
  ASSERT_EQ(stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600U);
  auto info = read_keystore_info(path_);
  ASSERT_TRUE(info.ok()) << info.error().to_string();
  auto keypair = open_keystore(path_, secret_of("correct horse battery"), test::locked_down());
  ASSERT_TRUE(keypair.ok()) << keypair.error().to_string();
  EXPECT_EQ(keypair->public_key(), info->public_key);
  EXPECT_EQ(keypair->public_key(), Keypair::from_seed(seed->bytes())->public_key());
  const auto again = write_keystore(path_, *seed, secret_of("correct horse battery"),
                                    {"generated", std::nullopt}, minimum_kdf_limits());
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.error().message(), HasSubstr("never overwritten"));
  // The file holds no secret in the clear.
  std::ifstream in(path_);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, Not(HasSubstr(to_hex(seed->bytes()))));
  EXPECT_THAT(text, Not(HasSubstr(to_base64(seed->bytes()))));
}

TEST_F(KeystoreFile, APassphraseChangeKeepsTheKeyAndOverwritesTheOldFile) {
  auto seed = generate_seed();
  ASSERT_TRUE(seed.ok());
  write(*seed);
  const auto before = read_keystore_info(path_).value();
  // A reader holding the old file open sees its bytes overwritten once the new file is in place.
  const int held = ::open(path_.c_str(), O_RDONLY);
  ASSERT_GE(held, 0);
  ASSERT_TRUE(change_keystore_passphrase(path_, secret_of("correct horse battery"),
                                         secret_of("a longer new passphrase"), minimum_kdf_limits(),
                                         test::locked_down())
                  .ok());
  char old_bytes[256] = {};
  const ssize_t n = ::pread(held, old_bytes, sizeof old_bytes, 0);
  ::close(held);
  ASSERT_GT(n, 0);
  EXPECT_TRUE(std::all_of(old_bytes, old_bytes + n, [](char c) { return c == 0; }))
      << "the old file's bytes are still there";
  EXPECT_FALSE(open_keystore(path_, secret_of("correct horse battery"), test::locked_down()).ok());
  auto keypair = open_keystore(path_, secret_of("a longer new passphrase"), test::locked_down());
  ASSERT_TRUE(keypair.ok()) << keypair.error().to_string();
  EXPECT_EQ(keypair->public_key(), before.public_key);
  const auto after = read_keystore_info(path_).value();
  EXPECT_EQ(after.created, before.created);
  EXPECT_EQ(after.origin.source, before.origin.source);
  // A keystore with another hard link is not changed: wiping its bytes would wipe the link.
  const std::string linked = path_ + ".link";
  std::filesystem::create_hard_link(path_, linked);
  const auto refused = change_keystore_passphrase(path_, secret_of("a longer new passphrase"),
                                                  secret_of("yet another passphrase"),
                                                  minimum_kdf_limits(), test::locked_down());
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message(), HasSubstr("hard links"));
  EXPECT_TRUE(
      open_keystore(linked, secret_of("a longer new passphrase"), test::locked_down()).ok());
  std::filesystem::remove(linked);
  // A wrong current passphrase changes nothing.
  EXPECT_FALSE(change_keystore_passphrase(path_, secret_of("correct horse battery"),
                                          secret_of("yet another passphrase"), minimum_kdf_limits(),
                                          test::locked_down())
                   .ok());
  EXPECT_TRUE(open_keystore(path_, secret_of("a longer new passphrase"), test::locked_down()).ok());
}

TEST(Bip39, WordsInAnyCaseGiveTheSameSeed) {
  const auto v = test::vector_list("solana-mnemonic-keys.json").at(0);
  std::string upper = v.at("mnemonic");
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto a = mnemonic_to_seed(as_secret(v.at("mnemonic").get<std::string>()), as_secret(""));
  auto b = mnemonic_to_seed(as_secret(upper), as_secret(""));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  EXPECT_TRUE(std::equal(a->bytes().begin(), a->bytes().end(), b->bytes().begin()));
}

TEST(Bip39, EntropyAndPhraseRoundTripOnTheSharedVectors) {
  for (const auto& v : test::vector_list("solana-mnemonic-keys.json")) {
    const std::string phrase = v.at("mnemonic");
    auto entropy = mnemonic_entropy(as_secret(phrase));
    ASSERT_TRUE(entropy.ok()) << entropy.error().to_string();
    auto again = mnemonic_from_entropy(*entropy);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(again->bytes().data()), again->size()),
              phrase);
  }
  // Fresh entropy of every length makes a phrase whose checksum verifies.
  for (std::size_t bytes = 16; bytes <= 32; bytes += 4) {
    auto entropy = SecretBytes::allocate(bytes);
    ASSERT_TRUE(entropy.ok());
    for (std::size_t i = 0; i < bytes; ++i)
      entropy->bytes()[i] = static_cast<std::uint8_t>(i * 37 + 1);
    auto phrase = mnemonic_from_entropy(*entropy);
    ASSERT_TRUE(phrase.ok());
    const std::string_view text(reinterpret_cast<const char*>(phrase->bytes().data()),
                                phrase->size());
    EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), ' ')) + 1,
              bytes * 3 / 4);
    auto back = mnemonic_entropy(as_secret(text));
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_TRUE(std::equal(back->bytes().begin(), back->bytes().end(), entropy->bytes().begin()));
  }
}

TEST_F(KeystoreFile, WrongPassphraseAndEveryTamperingFail) {
  auto seed = generate_seed();
  write(*seed);
  auto wrong = open_keystore(path_, secret_of("correct horse batterz"), test::locked_down());
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.error().message(), HasSubstr("wrong passphrase, or the file was altered"));

  const auto original = load();
  auto tampered = original;
  auto header = nlohmann::json::parse(original["header"].get<std::string>());
  header["created"] = "2020-01-01T00:00:00Z";
  tampered["header"] = header.dump();
  save(tampered);
  EXPECT_FALSE(open_keystore(path_, secret_of("correct horse battery"), test::locked_down()).ok())
      << "the header is authenticated";

  header = nlohmann::json::parse(original["header"].get<std::string>());
  header["kdf"]["opslimit"] = 1;
  tampered["header"] = header.dump();
  save(tampered);
  auto weak = open_keystore(path_, secret_of("correct horse battery"), test::locked_down());
  ASSERT_FALSE(weak.ok());
  EXPECT_THAT(weak.error().message(), HasSubstr("interactive"));

  tampered = original;
  std::string ct = original["ciphertext"];
  ct[3] = ct[3] == 'A' ? 'B' : 'A';
  tampered["ciphertext"] = ct;
  save(tampered);
  EXPECT_FALSE(open_keystore(path_, secret_of("correct horse battery"), test::locked_down()).ok());

  save(nlohmann::json{{"hello", 1}});
  EXPECT_THAT(read_keystore_info(path_).error().message(), HasSubstr("not an airlock keystore"));
  save(original);
  EXPECT_TRUE(open_keystore(path_, secret_of("correct horse battery"), test::locked_down()).ok());
}

// Found by the keystore_file fuzz target: header fields of the wrong JSON type threw
// nlohmann::json type errors instead of being refused by rule.
TEST_F(KeystoreFile, HeaderFieldsOfTheWrongTypeAreRefusedByRule) {
  auto seed = generate_seed();
  write(*seed);
  const auto original = load();
  const auto base = nlohmann::json::parse(original["header"].get<std::string>());
  const std::vector<std::pair<std::string, nlohmann::json>> cases = {
      {"airlock_keystore", "1"}, {"kdf", 5},         {"cipher", 5},       {"public_key", 7},
      {"origin", "bip39"},       {"created", false}, {"kdf", {{"id", 3}}}};
  for (const auto& [field, value] : cases) {
    auto header = base;
    header[field] = value;
    const std::string text =
        nlohmann::json{{"header", header.dump()}, {"ciphertext", original["ciphertext"]}}.dump();
    auto info = airlock::offline::parse_keystore_info(text);
    if (field == "origin" || field == "created") {
      EXPECT_TRUE(info.ok()) << field << " is display only";
      continue;
    }
    ASSERT_FALSE(info.ok()) << field;
    EXPECT_THAT(info.error().message(), HasSubstr("header."))
        << field << ": " << info.error().message();
  }
}

TEST_F(KeystoreFile, ShortPassphraseAndWeakLimitsAreRefusedWhenWriting) {
  auto seed = generate_seed();
  EXPECT_EQ(write_keystore(path_, *seed, secret_of("short"), {"generated", std::nullopt},
                           minimum_kdf_limits())
                .error()
                .code(),
            ErrorCode::kUsage);
  EXPECT_EQ(write_keystore(path_, *seed, secret_of("long enough passphrase"),
                           {"generated", std::nullopt}, {1, 8192})
                .error()
                .code(),
            ErrorCode::kUsage);
  EXPECT_FALSE(std::filesystem::exists(path_));
}

}  // namespace
}  // namespace airlock::offline
