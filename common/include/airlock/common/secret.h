// Memory for key material. Backed by sodium_malloc: guard pages around it, locked against
// swapping where the limit allows, and wiped by sodium_free when released. The type cannot be
// copied, so a secret never silently multiplies; moving transfers the one allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include <airlock/common/error.h>

namespace airlock {

class SecretBytes {
 public:
  // Allocates `size` zeroed bytes of secure memory; kOutOfSecureMemory when none is left,
  // kCryptoUnavailable when libsodium cannot start.
  [[nodiscard]] static Result<SecretBytes> allocate(std::size_t size);

  SecretBytes(SecretBytes&& other) noexcept;
  SecretBytes& operator=(SecretBytes&& other) noexcept;
  SecretBytes(const SecretBytes&) = delete;
  SecretBytes& operator=(const SecretBytes&) = delete;
  ~SecretBytes();

  [[nodiscard]] std::span<std::uint8_t> bytes() noexcept { return {data_, size_}; }
  [[nodiscard]] std::span<const std::uint8_t> bytes() const noexcept { return {data_, size_}; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  SecretBytes(std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}
  void release() noexcept;

  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

// A small secret file (a keypair file, an API key file) read straight into secure memory: no
// stream buffer or growable container ever holds its bytes. "-" reads standard input. Fails
// with io.failed, or too_large when the file has more than `limit` bytes. The error quotes
// neither the content nor the path: a secret pasted where its file's name belongs would be
// printed back. The caller names the file by its option.
[[nodiscard]] Result<SecretBytes> read_secret_file(const std::string& path, std::size_t limit);

// Starts libsodium once per process; safe to call from any thread, any number of times.
[[nodiscard]] Status crypto_init();

}  // namespace airlock
