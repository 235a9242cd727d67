#include <mutex>

#include <sodium.h>

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

}  // namespace airlock
