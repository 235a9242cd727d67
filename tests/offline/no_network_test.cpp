// The offline executable must not be able to reach a network: it links no network library and
// imports no socket, connect or name-resolution function.
#include <array>
#include <cstdio>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

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
  ASSERT_NE(symbols.find("sodium"), std::string::npos)
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
  ASSERT_NE(needed.find("libsodium"), std::string::npos) << needed;
  for (const char* lib : {"libcurl", "libssl", "libcrypto", "libresolv", "libnss", "libzmq"}) {
    EXPECT_EQ(needed.find(lib), std::string::npos) << "airlock-offline links " << lib;
  }
}

}  // namespace
