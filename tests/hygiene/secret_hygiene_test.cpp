// Secrets never linger in freed ordinary memory. This program replaces the global operator new
// and delete: every block the C++ heap hands back is searched, as it is freed, for the secrets
// a test has armed. A secret copied through a std::string, a stream buffer or a growable vector
// shows up there; one kept in secure memory (SecretBytes, wiped by libsodium) never does.
//
// Its own program, because the replacement covers every allocation in the process.
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <string>
#include <thread>

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <airlock/common/secret.h>
#include <airlock/offline/derivation.h>
#include <airlock/offline/keystore.h>
#include <airlock/offline/slip39.h>
#include <airlock/online/api.h>

#include "support/helpers.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace {

// The armed secrets, in static storage: the search itself must not allocate.
constexpr std::size_t kMaxNeedles = 4, kMaxNeedleBytes = 128;
std::array<std::array<char, kMaxNeedleBytes>, kMaxNeedles> g_needles{};
std::array<std::size_t, kMaxNeedles> g_needle_sizes{};
std::atomic<bool> g_armed{false};
std::atomic<int> g_found{0};

// Each block carries its size in front, so a plain delete knows how much to search.
constexpr std::size_t kHeader = alignof(std::max_align_t);

void* allocate(std::size_t size) {
  auto* base = static_cast<unsigned char*>(std::malloc(size + kHeader));
  if (base == nullptr) throw std::bad_alloc();
  std::memcpy(base, &size, sizeof size);
  return base + kHeader;
}

void release(void* p) noexcept {
  if (p == nullptr) return;
  auto* base = static_cast<unsigned char*>(p) - kHeader;
  std::size_t size = 0;
  std::memcpy(&size, base, sizeof size);
  if (g_armed.load()) {
    for (std::size_t n = 0; n < kMaxNeedles; ++n) {
      if (g_needle_sizes[n] != 0 &&
          ::memmem(p, size, g_needles[n].data(), g_needle_sizes[n]) != nullptr)
        g_found.fetch_add(1);
    }
  }
  std::free(base);
}

// Arms the search for these secrets for the life of the guard; found() counts freed blocks that
// held one.
class Watch {
 public:
  explicit Watch(std::initializer_list<std::string_view> secrets) {
    std::size_t n = 0;
    for (const auto s : secrets) {
      if (n == kMaxNeedles || s.size() > kMaxNeedleBytes) std::abort();
      std::memcpy(g_needles[n].data(), s.data(), s.size());
      g_needle_sizes[n++] = s.size();
    }
    g_found = 0;
    g_armed = true;
  }
  ~Watch() {
    g_armed = false;
    g_needle_sizes.fill(0);
  }
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;
  [[nodiscard]] int found() const { return g_found.load(); }
};

}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }

namespace airlock {
namespace {

// Vectors and test inputs as secrets, for the functions that take only SecretText.
test::SecretArena as_secret;

constexpr std::string_view kApiKey = "hv1_hygiene_S3cretS3cretS3cretS3cretS3cretS3cret";
constexpr std::string_view kApiSecret = "S3cretS3cretS3cretS3cretS3cretS3cret";

// The search itself works: a secret freed from a std::string is found.
TEST(SecretHygiene, TheSearchFindsASecretLeftInAFreedString) {
  Watch watch({kApiSecret});
  {
    std::string copy(kApiKey);
    copy += " and more, so the string is on the heap";
  }
  EXPECT_GE(watch.found(), 1);
}

TEST(SecretHygiene, AnApiKeyFileLeavesNoCopyInFreedMemory) {
  test::ScratchDir dir("airlock-hygiene");
  std::ofstream(dir.file("api.key")) << "  " << kApiKey << "  \n";
  Watch watch({kApiSecret});
  {
    auto key = online::ApiKey::load(dir.file("api.key"));
    ASSERT_TRUE(key.ok()) << key.error().to_string();
    EXPECT_EQ(key->id(), "hygiene");
  }
  EXPECT_EQ(watch.found(), 0) << "the API key's secret was left in freed heap memory";
}

// One request with the key, to a loopback listener that reads it into static memory: the
// Authorization header is built and handed to libcurl without an ordinary copy.
TEST(SecretHygiene, ARequestLeavesNoCopyOfTheKeyInFreedMemory) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 1), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  static std::array<char, 8192> received{};
  std::thread server([listener] {
    const int c = ::accept(listener, nullptr, nullptr);
    if (c < 0) return;
    std::size_t have = 0;
    while (have < received.size() - 1) {
      const ssize_t n = ::recv(c, received.data() + have, received.size() - 1 - have, 0);
      if (n <= 0) break;
      have += static_cast<std::size_t>(n);
      if (::memmem(received.data(), have, "\r\n\r\n", 4) != nullptr) break;
    }
    static constexpr char kReply[] =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
        "Connection: close\r\n\r\n{}";
    (void)::send(c, kReply, sizeof kReply - 1, MSG_NOSIGNAL);
    ::close(c);
  });
  const std::string base =
      "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/api/external/v1";
  Watch watch({kApiSecret});
  {
    auto key = online::ApiKey::parse(as_secret(kApiKey));
    ASSERT_TRUE(key.ok());
    online::ClientOptions options;
    options.pace = false;
    options.max_attempts = 1;
    auto client = online::ApiClient::create(base, std::move(key).value(), options);
    ASSERT_TRUE(client.ok()) << client.error().to_string();
    auto reply = client->get("/vaults");
    ASSERT_TRUE(reply.ok()) << reply.error().to_string();
    EXPECT_EQ(reply->status, 200);
  }
  const int found = watch.found();
  server.join();
  ::close(listener);
  // The listener saw the header: the key did travel.
  EXPECT_THAT(std::string_view(received.data()),
              HasSubstr(std::string("Authorization: Bearer ") + std::string(kApiKey)));
  EXPECT_EQ(found, 0) << "the API key was left in freed heap memory by a request";
}

TEST(SecretHygiene, AKeypairFileLeavesNoCopyInFreedMemory) {
  // A Solana CLI keypair whose secret half begins with these bytes (the public half is derived).
  std::array<std::uint8_t, 32> seed{};
  for (std::size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<std::uint8_t>(200 + i % 50);
  auto secret_seed = SecretBytes::allocate(32);
  ASSERT_TRUE(secret_seed.ok());
  std::memcpy(secret_seed->bytes().data(), seed.data(), 32);
  auto pair = Keypair::from_seed(secret_seed->bytes());
  ASSERT_TRUE(pair.ok());
  std::string json = "[";
  for (auto b : seed) json += std::to_string(b) + ",";
  for (std::size_t i = 0; i < 32; ++i)
    json += std::to_string(pair->public_key().bytes[i]) + (i == 31 ? "]" : ",");
  test::ScratchDir dir("airlock-hygiene");
  std::ofstream(dir.file("id.json")) << json << "\n";
  const std::string text_of_seed = json.substr(0, 60);
  Watch watch(
      {text_of_seed, std::string_view(reinterpret_cast<const char*>(seed.data()), seed.size())});
  {
    auto text = read_secret_file(dir.file("id.json"), 4096);
    ASSERT_TRUE(text.ok()) << text.error().to_string();
    auto read = offline::seed_from_solana_keypair_json(*text);
    ASSERT_TRUE(read.ok()) << read.error().to_string();
    EXPECT_EQ(std::memcmp(read->bytes().data(), seed.data(), 32), 0);
  }
  EXPECT_EQ(watch.found(), 0) << "the keypair's secret was left in freed heap memory";
}

// The test's own secrets live in static storage or secure memory, so only what the code under
// test copies can be found.
std::string_view view(const SecretBytes& s, std::size_t n) {
  return {reinterpret_cast<const char*>(s.bytes().data()), std::min(n, s.size())};
}

constexpr std::string_view kPhrase =
    "legal winner thank year wave sausage worth useful legal winner thank yellow";

TEST(SecretHygiene, ARecoveryPhraseItsSeedAndTheKeyLeaveNoCopyInFreedMemory) {
  auto path = keystone::DerivationPath::parse(offline::kDefaultDerivationPath);
  ASSERT_TRUE(path.ok());
  // The secrets each step makes, computed once before watching.
  auto seed = offline::mnemonic_to_seed(as_secret(kPhrase), as_secret("TREZOR"));
  ASSERT_TRUE(seed.ok());
  auto key = offline::derive_ed25519(*seed, *path);
  ASSERT_TRUE(key.ok());
  auto entropy = offline::mnemonic_entropy(as_secret(kPhrase));
  ASSERT_TRUE(entropy.ok());
  Watch watch({kPhrase.substr(0, 40), view(*seed, 32), view(*key, 32), view(*entropy, 16)});
  {
    auto again = offline::mnemonic_to_seed(as_secret(kPhrase), as_secret("TREZOR"));
    ASSERT_TRUE(again.ok());
    auto derived = offline::derive_ed25519(*again, *path);
    ASSERT_TRUE(derived.ok());
    EXPECT_EQ(std::memcmp(derived->bytes().data(), key->bytes().data(), 32), 0);
    auto e = offline::mnemonic_entropy(as_secret(kPhrase));
    ASSERT_TRUE(e.ok());
    auto words = offline::mnemonic_from_entropy(*e);
    ASSERT_TRUE(words.ok());
    EXPECT_EQ(view(*words, 1000), kPhrase);
  }
  EXPECT_EQ(watch.found(), 0) << "a phrase, seed, entropy or key was left in freed heap memory";
}

TEST(SecretHygiene, Slip39SharesAndTheirSecretLeaveNoCopyInFreedMemory) {
  auto master = SecretBytes::copy_of("0123456789abcdef0123456789abcdef");
  ASSERT_TRUE(master.ok());
  offline::slip39::SplitOptions options;
  options.groups = {{2, 3}};
  options.iteration_exponent = 0;
  const auto fill = [](std::span<std::uint8_t> out) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(i * 7 + 1);
  };
  auto shares = offline::slip39::split(*master, as_secret(""), options, fill);
  ASSERT_TRUE(shares.ok());
  Watch watch({view(*master, 32), view((*shares)[0][0], 60), view((*shares)[0][2], 60)});
  {
    auto again = offline::slip39::split(*master, as_secret(""), options, fill);
    ASSERT_TRUE(again.ok());
    auto back = offline::slip39::combine({(*again)[0][0], (*again)[0][2]}, {});
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(view(*back, 32), view(*master, 32));
  }
  EXPECT_EQ(watch.found(), 0) << "a share or the master secret was left in freed heap memory";
}

TEST(SecretHygiene, AKeystoreWrittenAndOpenedLeavesNoCopyInFreedMemory) {
  test::ScratchDir dir("airlock-hygiene");
  auto seed = SecretBytes::copy_of("seed seed seed seed seed seed 32");
  auto passphrase = SecretBytes::copy_of("a hygiene passphrase");
  auto next = SecretBytes::copy_of("the next hygiene passphrase");
  ASSERT_TRUE(seed.ok() && passphrase.ok() && next.ok());
  Watch watch({view(*seed, 32), view(*passphrase, 100), view(*next, 100)});
  {
    const std::string file = dir.file("k.keystore");
    ASSERT_TRUE(offline::write_keystore(file, *seed, *passphrase, {"generated", std::nullopt},
                                        offline::minimum_kdf_limits())
                    .ok());
    ASSERT_TRUE(offline::change_keystore_passphrase(
                    file, *passphrase, *next, offline::minimum_kdf_limits(), test::locked_down())
                    .ok());
    auto opened = offline::open_keystore_seed(file, *next, test::locked_down());
    ASSERT_TRUE(opened.ok()) << opened.error().to_string();
    EXPECT_EQ(view(*opened, 32), view(*seed, 32));
    auto pair = offline::open_keystore(file, *next, test::locked_down());
    ASSERT_TRUE(pair.ok());
  }
  EXPECT_EQ(watch.found(), 0) << "the seed or a passphrase was left in freed heap memory";
}

TEST(SecretHygiene, ASecretFileIsRefusedWithoutQuotingItsContentOrItsName) {
  test::ScratchDir dir("airlock-hygiene");
  std::ofstream(dir.file("big")) << std::string(5000, 'k');
  auto text = read_secret_file(dir.file("big"), 4096);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().code(), ErrorCode::kTooLarge);
  EXPECT_THAT(text.error().message(), Not(HasSubstr("kkkk")));
  auto missing = read_secret_file(dir.file("absent"), 4096);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kIo);
  EXPECT_THAT(missing.error().message(), HasSubstr("cannot open it"));
  // A secret pasted where the file's name belongs is not printed back.
  auto pasted = read_secret_file(dir.file("hv1_demo_0123456789abcdefghijklmnopqrstuv"), 4096);
  ASSERT_FALSE(pasted.ok());
  EXPECT_THAT(pasted.error().message(), Not(HasSubstr("0123456789abcdef")));
  EXPECT_THAT(text.error().message(), Not(HasSubstr("big")));
}

}  // namespace
}  // namespace airlock
