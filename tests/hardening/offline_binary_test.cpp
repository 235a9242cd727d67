// The offline executable must not be able to reach a network: it links no network library,
// imports no socket, connect or name-resolution function, and will not handle the key while a
// network interface is up.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <airlock/common/ed25519.h>
#include <airlock/hardening/lockdown.h>

#include "support/helpers.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace {

std::string capture(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  pclose(pipe);
  return out;
}

TEST(OfflineBinary, ImportsNoNetworkSymbol) {
  const std::string symbols =
      capture("nm -D --undefined-only " + std::string(AIRLOCK_OFFLINE_BIN) + " 2>&1");
  ASSERT_THAT(symbols, HasSubstr("sodium"))
      << "nm listed no imports at all, so this check would prove nothing:\n"
      << symbols;
  const std::set<std::string> forbidden{
      "socket",      "socketpair",  "connect",       "bind",           "listen",
      "accept",      "accept4",     "sendto",        "sendmsg",        "recvfrom",
      "recvmsg",     "getaddrinfo", "gethostbyname", "gethostbyname2", "gethostbyaddr",
      "getnameinfo", "res_query",   "res_search",    "__res_query",    "curl_easy_init"};
  std::istringstream lines(symbols);
  std::string line;
  while (std::getline(lines, line)) {
    // Lines look like "                 U connect@GLIBC_2.2.5".
    const auto u = line.find(" U ");
    if (u == std::string::npos) continue;
    std::string name = line.substr(u + 3);
    name = name.substr(0, name.find('@'));
    EXPECT_FALSE(forbidden.count(name)) << "airlock-offline imports " << name;
  }
}

TEST(OfflineBinary, LinksNoNetworkLibrary) {
  const std::string needed =
      capture("readelf -d " + std::string(AIRLOCK_OFFLINE_BIN) + " 2>&1 | grep NEEDED");
  ASSERT_THAT(needed, HasSubstr("libsodium"));
  for (const char* lib : {"libcurl", "libssl", "libcrypto", "libresolv", "libnss", "libzmq"}) {
    EXPECT_THAT(needed, Not(HasSubstr(lib))) << "airlock-offline links " << lib;
  }
}

}  // namespace

namespace {

// The commands that handle the key refuse while a non-loopback interface is up. Whether this
// machine has one decides which half is asserted: refused with the interface named, or let
// through. The override is then reported on every run.
TEST(OfflineBinary, KeyCommandsRefuseWhileTheNetworkIsUp) {
  airlock::test::ScratchDir dir("airlock-airgap");
  std::ofstream(dir.file("pass")) << "correct horse battery\n";
  auto interfaces = airlock::hardening::list_interfaces("/sys/class/net");
  ASSERT_TRUE(interfaces.ok());
  const auto refusal = airlock::hardening::refuse_network(*interfaces);
  // A key command that makes a keystore: import of a Solana CLI keypair file (init needs a
  // terminal for its words; it passes the same gate first).
  const airlock::Bytes seed(32, 7);
  auto keypair = airlock::Keypair::from_seed(seed);
  ASSERT_TRUE(keypair.ok());
  std::string json = "[";
  for (std::size_t i = 0; i < 64; ++i)
    json += std::to_string(i < 32 ? seed[i] : keypair->public_key().bytes[i - 32]) +
            (i < 63 ? "," : "]");
  std::ofstream(dir.file("id.json")) << json;
  const std::string init = std::string(AIRLOCK_OFFLINE_BIN) +
                           " import --kdf interactive --keystore " + dir.file("k") + " --keypair " +
                           dir.file("id.json") + " --passphrase-fd 3 3<" + dir.file("pass");
  const auto plain = airlock::test::run_command(init);
  if (!refusal.ok()) {
    EXPECT_EQ(plain.exit_code, 1) << plain.output;
    EXPECT_THAT(plain.output, HasSubstr("hardening.network_up"));
    EXPECT_FALSE(std::filesystem::exists(dir.file("k"))) << "no key was made";
    const auto sign = airlock::test::run_command(
        std::string(AIRLOCK_OFFLINE_BIN) + " sign --keystore " + dir.file("k") + " --policy p" +
        " --audit-log " + dir.file("log") + " --out " + dir.file("res") + " " + dir.file("req"));
    EXPECT_EQ(sign.exit_code, 1) << sign.output;
    EXPECT_THAT(sign.output, HasSubstr("hardening.network_up"));
    EXPECT_FALSE(std::filesystem::exists(dir.file("log"))) << "nothing was logged or read";
  } else {
    EXPECT_EQ(plain.exit_code, 0) << plain.output;
    EXPECT_TRUE(std::filesystem::exists(dir.file("k")));
    std::filesystem::remove(dir.file("k"));
  }
  const auto overridden = airlock::test::run_command(init + " --unsafe-allow-network");
  EXPECT_EQ(overridden.exit_code, 0) << overridden.output;
  EXPECT_TRUE(std::filesystem::exists(dir.file("k")));
  if (!refusal.ok()) {
    EXPECT_THAT(overridden.output, HasSubstr("WARNING: THIS MACHINE IS NOT AIR-GAPPED"));
  }
}

}  // namespace
