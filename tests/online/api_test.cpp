// The API client's local rules: the key format, the transport rule and the request limits,
// all checked before anything leaves the machine.
#include <cstdlib>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/online/api.h>

#include "support/helpers.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace airlock::online {
namespace {

// Keys and vectors as secrets, for the functions that take only SecretText.
airlock::test::SecretArena as_secret;

const std::string kSecret = "abcdefghijklmnopqrstuvwxyz012345";  // 32 characters

TEST(ApiKey, AcceptsTheSpecFormatAndNamesTheRuleOtherwise) {
  auto key = ApiKey::parse(as_secret("hv1_bot-7_" + kSecret));
  ASSERT_TRUE(key.ok()) << key.error().to_string();
  EXPECT_EQ(key->id(), "bot-7");
  auto header = key->header();
  ASSERT_TRUE(header.ok());
  // NUL-terminated for libcurl, in secure memory.
  ASSERT_EQ(header->bytes().back(), 0);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(header->bytes().data())),
            "Authorization: Bearer hv1_bot-7_" + kSecret);

  const std::vector<std::pair<std::string, std::string>> bad = {
      {"hv2_bot_" + kSecret, "must start with hv1_"},
      {"hv1_" + kSecret, "hv1_<id>_<secret>"},
      {"hv1__" + kSecret, "id must be 1 to 48"},
      {"hv1_" + std::string(49, 'a') + "_" + kSecret, "id must be 1 to 48"},
      {"hv1_bot_" + kSecret.substr(1), "secret must be 32 to 128"},
      {"hv1_bot_" + std::string(129, 'a'), "secret must be 32 to 128"},
      {"hv1_bot_" + kSecret.substr(1) + "!", "only A-Z"},
      {"hv1_bot_" + kSecret.substr(1) + " ", "only A-Z"},
  };
  for (const auto& [text, rule] : bad) {
    auto r = ApiKey::parse(as_secret(text));
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().code(), online::errors::kApiKeyInvalid);
    EXPECT_THAT(r.error().message(), HasSubstr(rule));
    EXPECT_THAT(r.error().message(), Not(HasSubstr(kSecret.substr(4))))
        << "an error must not repeat the secret";
  }
}

TEST(ApiKey, LoadsFromAFileOrTheEnvironment) {
  airlock::test::ScratchDir dir("airlock-apikey");
  std::ofstream(dir.file("key")) << "  hv1_file_" << kSecret << "\n";
  auto from_file = ApiKey::load(dir.file("key"));
  ASSERT_TRUE(from_file.ok()) << from_file.error().to_string();
  EXPECT_EQ(from_file->id(), "file");

  ::setenv("AIRLOCK_API_KEY", ("hv1_env_" + kSecret).c_str(), 1);
  auto from_env = ApiKey::load(std::nullopt);
  ASSERT_TRUE(from_env.ok());
  EXPECT_EQ(from_env->id(), "env");
  ::unsetenv("AIRLOCK_API_KEY");
  auto missing = ApiKey::load(std::nullopt);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message(), HasSubstr("AIRLOCK_API_KEY"));
  // Set but empty is said as such, not as a malformed key.
  ::setenv("AIRLOCK_API_KEY", " ", 1);
  auto empty = ApiKey::load(std::nullopt);
  ::unsetenv("AIRLOCK_API_KEY");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message(),
            "AIRLOCK_API_KEY is set but empty: set it to the key, or give --api-key-file");
  std::ofstream(dir.file("blank")) << "\n"
                                   << "hv1_second_line_" << kSecret << "\n";
  auto blank = ApiKey::load(dir.file("blank"));
  ASSERT_FALSE(blank.ok());
  EXPECT_THAT(blank.error().message(), HasSubstr("holds no key on its first line"));
}

TEST(Transport, HttpsEverywhereAndPlainHttpOnlyToThisMachine) {
  EXPECT_TRUE(check_transport("https://api.example.com/api/external/v1").ok());
  EXPECT_TRUE(check_transport("http://127.0.0.1:8080/api/external/v1").ok());
  EXPECT_TRUE(check_transport("http://localhost/api/external/v1").ok());
  EXPECT_TRUE(check_transport("http://[::1]:9/x").ok());
  for (const char* url :
       {"http://api.example.com/api/external/v1", "http://127.0.0.1.evil.com/",
        "http://localhost.evil.com:80/", "ftp://127.0.0.1/", "127.0.0.1:80",
        // User-info: the text before '@' is not the host (issue 13).
        "http://localhost:80@other-host/api/external/v1", "http://127.0.0.1:x@other-host/",
        "http://[::1]:x@other-host/", "https://bot:secret@api.example.com/api/external/v1"}) {
    auto s = check_transport(url);
    EXPECT_FALSE(s.ok()) << url;
  }
  auto key = ApiKey::parse(as_secret("hv1_bot_" + kSecret));
  ASSERT_TRUE(key.ok());
  auto client = ApiClient::create("http://api.example.com/api/external/v1", std::move(key).value());
  ASSERT_FALSE(client.ok());
  EXPECT_THAT(client.error().message(), HasSubstr("refusing plain HTTP"));
}

TEST(Limits, OversizedBodiesAndPayersAreRefusedBeforeSending) {
  auto key = ApiKey::parse(as_secret("hv1_bot_" + kSecret));
  ASSERT_TRUE(key.ok());
  // Port 9 on loopback: nothing is expected to listen; the checks must fail first anyway.
  auto client = ApiClient::create("http://127.0.0.1:9/api/external/v1", std::move(key).value());
  ASSERT_TRUE(client.ok());
  auto payer = client->build("aggregator/swap", {{"payer", "x"}});
  ASSERT_FALSE(payer.ok());
  EXPECT_THAT(payer.error().message(), HasSubstr("body.payer"));
  auto big = client->build("vault/update", {{"vault", std::string(20000, 'a')}});
  ASSERT_FALSE(big.ok());
  EXPECT_THAT(big.error().message(), HasSubstr("16384"));
}

}  // namespace
}  // namespace airlock::online
