// Moving content across the air gap as a sequence of QR codes, in either framing: airlock's
// dense framing (the default, fewest frames) or BC-UR (interoperable). The receiver recognises
// both and ignores codes that are neither.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>
#include <airlock/formats/dense.h>
#include <airlock/formats/qr.h>
#include <airlock/formats/ur.h>

namespace airlock::transfer {

enum class Framing { kDense, kUr };

// UR types for each content type: files travel as ur:bytes (the payload a CBOR byte string),
// envelopes as their own CBOR.
inline constexpr std::string_view kUrFileType = "bytes";
inline constexpr std::string_view kUrRequestType = "airlock-sign-request";
inline constexpr std::string_view kUrResponseType = "airlock-sign-response";

struct Options {
  Framing framing = Framing::kDense;
  int max_version = qr::kDefaultMaxVersion;
  qr::EcLevel level = qr::kDefaultLevel;
  dense::Deflate deflate = dense::Deflate::kAuto;
  // UR only: fragment bytes per part; 0 means the largest that fits max_version.
  std::size_t ur_fragment_len = 0;
};

struct Content {
  dense::ContentType type = dense::ContentType::kFile;
  Bytes bytes;
  friend bool operator==(const Content&, const Content&) = default;
};

class Sender {
 public:
  // Fails with a named error when the content cannot be framed at these settings.
  [[nodiscard]] static Result<Sender> create(const Content& content, const Options& options);

  [[nodiscard]] std::uint32_t fragment_count() const;
  // What QR code number seq_num (1-based, endless) carries: bytes or UR text.
  [[nodiscard]] std::variant<Bytes, std::string> code(std::uint32_t seq_num) const;
  [[nodiscard]] Result<qr::Symbol> symbol(std::uint32_t seq_num) const;
  [[nodiscard]] const Options& options() const noexcept { return options_; }

 private:
  Sender(Options options, std::variant<dense::Encoder, ur::MultipartEncoder> encoder)
      : options_(options), encoder_(std::move(encoder)) {}
  Options options_;
  std::variant<dense::Encoder, ur::MultipartEncoder> encoder_;
};

class Receiver {
 public:
  // Feeds the bytes of one scanned QR code. A code that is not part of an airlock transfer, or
  // of another transfer than the one under way, is refused with a named error; progress stays.
  [[nodiscard]] Status receive(ByteView code);
  [[nodiscard]] bool complete() const noexcept { return result_.has_value(); }
  [[nodiscard]] const Content& result() const { return *result_; }
  [[nodiscard]] std::optional<Framing> framing() const noexcept { return framing_; }
  [[nodiscard]] std::size_t fragments_known() const;
  [[nodiscard]] std::size_t fragments_total() const;

 private:
  std::optional<Framing> framing_;
  dense::Decoder dense_;
  ur::Decoder ur_;
  std::optional<Content> result_;
};

[[nodiscard]] Result<Framing> parse_framing(std::string_view text);

}  // namespace airlock::transfer
