#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include <fcntl.h>
#include <sodium.h>
#include <unistd.h>

#include <airlock/common/fd.h>
#include <airlock/common/secret.h>

namespace airlock {

Status crypto_init() {
  static const int result = sodium_init();  // thread-safe, runs once; 1 means already started
  if (result < 0) {
    return Error(ErrorCode::kCryptoUnavailable, "libsodium failed to initialise");
  }
  return {};
}

Result<SecretBytes> SecretBytes::allocate(std::size_t size) {
  if (auto status = crypto_init(); !status.ok()) return status.error();
  auto* data = static_cast<std::uint8_t*>(sodium_malloc(size == 0 ? 1 : size));
  if (data == nullptr) {
    return Error(ErrorCode::kOutOfSecureMemory,
                 "could not allocate " + std::to_string(size) + " bytes of secure memory");
  }
  sodium_memzero(data, size);
  return SecretBytes(data, size);
}

Result<SecretBytes> SecretBytes::copy_of(std::span<const std::uint8_t> bytes) {
  AIRLOCK_TRY(out, allocate(bytes.size()));
  std::copy(bytes.begin(), bytes.end(), out.bytes().begin());
  return out;
}

Result<SecretBytes> SecretBytes::copy_of(std::string_view text) {
  return copy_of(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

SecretBytes::SecretBytes(SecretBytes&& other) noexcept : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

SecretBytes& SecretBytes::operator=(SecretBytes&& other) noexcept {
  if (this != &other) {
    release();
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

SecretBytes::~SecretBytes() { release(); }

void SecretBytes::release() noexcept {
  if (data_ != nullptr) sodium_free(data_);  // wipes before unmapping
  data_ = nullptr;
  size_ = 0;
}

Result<SecretBytes> read_secret_file(const std::string& path, std::size_t limit) {
  const bool standard_input = path == "-";
  // Standard input is read, never closed; a named file is closed on every path out.
  const UniqueFd owner(standard_input ? -1 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  const int fd = standard_input ? STDIN_FILENO : owner.get();
  if (fd < 0) {
    return Error(ErrorCode::kIo, std::string("cannot open it: ") + std::strerror(errno));
  }
  auto buffer = SecretBytes::allocate(limit + 1);
  std::size_t have = 0;
  bool failed = false;
  while (buffer.ok() && have < limit + 1) {
    const ssize_t n = ::read(fd, buffer->bytes().data() + have, limit + 1 - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) failed = true;
    if (n <= 0) break;
    have += static_cast<std::size_t>(n);
  }
  const int saved = errno;
  if (!buffer.ok()) return buffer.error();
  if (failed) return Error(ErrorCode::kIo, std::string("cannot read it: ") + std::strerror(saved));
  if (have > limit) {
    return Error(ErrorCode::kTooLarge,
                 "it is larger than the limit of " + std::to_string(limit) + " bytes");
  }
  AIRLOCK_TRY(content, SecretBytes::allocate(have));
  std::memcpy(content.bytes().data(), buffer->bytes().data(), have);
  return content;  // `buffer` is wiped as it goes
}

}  // namespace airlock
