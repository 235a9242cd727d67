// Memory for key material. Backed by sodium_malloc: guard pages around it, locked against
// swapping where the limit allows, and wiped by sodium_free when released. The type cannot be
// copied, so a secret never silently multiplies; moving transfers the one allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <airlock/common/error.h>

namespace airlock {

class SecretBytes {
 public:
  // Allocates `size` zeroed bytes of secure memory; kOutOfSecureMemory when none is left,
  // kCryptoUnavailable when libsodium cannot start.
  [[nodiscard]] static Result<SecretBytes> allocate(std::size_t size);
  // A copy of `bytes` (or of `text`'s characters) in secure memory: for a secret that arrives in
  // memory the process does not control (the environment, a test vector). The original is the
  // caller's to wipe, when it can be.
  [[nodiscard]] static Result<SecretBytes> copy_of(std::span<const std::uint8_t> bytes);
  [[nodiscard]] static Result<SecretBytes> copy_of(std::string_view text);

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

// Text held in secure memory, read only: a view of a SecretBytes, or of a part of one. It can
// be made from nothing else, so a function that takes a SecretText (a phrase, a share, a
// passphrase, a keypair file's text) cannot be handed a secret that sits in ordinary memory;
// SecretTypes.* checks that every secret-bearing function takes and returns only SecretText
// and SecretBytes. Like std::string_view it must not outlive what it views, so it cannot be
// made from a temporary SecretBytes.
class SecretText {
 public:
  // Empty: no secret (an absent passphrase). Every empty text views "" rather than null, so it
  // can be handed to memcpy and the like.
  constexpr SecretText() noexcept = default;
  SecretText(const SecretBytes& bytes) noexcept  // NOLINT(google-explicit-constructor): by design
      : text_(bytes.size() == 0
                  ? std::string_view("")
                  : std::string_view(reinterpret_cast<const char*>(bytes.bytes().data()),
                                     bytes.size())) {}
  SecretText(SecretBytes&&) = delete;

  [[nodiscard]] std::string_view view() const noexcept { return text_; }
  [[nodiscard]] std::size_t size() const noexcept { return text_.size(); }
  [[nodiscard]] bool empty() const noexcept { return text_.empty(); }
  // A part of this text; `pos` past the end gives the empty text.
  [[nodiscard]] SecretText substr(std::size_t pos,
                                  std::size_t count = std::string_view::npos) const noexcept {
    return pos >= text_.size() ? SecretText() : SecretText(text_.substr(pos, count));
  }

 private:
  explicit SecretText(std::string_view within_secret) noexcept : text_(within_secret) {}
  std::string_view text_{""};
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
