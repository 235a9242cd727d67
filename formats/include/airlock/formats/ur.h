// Uniform Resources (Blockchain Commons BCR-2020-005): CBOR payloads as text for QR codes,
// `ur:<type>/<bytewords>` for one part or `ur:<type>/<seq>-<count>/<bytewords>` for a part of a
// fountain-coded multipart sequence (BCR-2024-001). Bytewords use the minimal style (first and
// last letter of each word) with a CRC-32 appended (BCR-2020-012).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>
#include <airlock/formats/fountain.h>

namespace airlock::ur {

// Bytewords, minimal style, of `data` followed by its CRC-32 (big-endian).
[[nodiscard]] std::string bytewords_encode(ByteView data);
// The inverse; fails with ur.invalid on a letter pair that is no byteword and ur.checksum on a
// CRC mismatch. Accepts upper case (QR alphanumeric mode carries only upper case).
[[nodiscard]] Result<Bytes> bytewords_decode(std::string_view text);

// What any UR carries: a type (lowercase letters, digits, hyphens) and a CBOR payload.
struct Resource {
  std::string type;
  Bytes cbor;
  friend bool operator==(const Resource&, const Resource&) = default;
};

// Limits of what a reader accepts: 1 MiB takes about half a minute to move at the densest QR
// settings, and no airlock envelope comes close.
inline constexpr std::size_t kMaxMessageBytes = 1 << 20;
inline constexpr std::size_t kMaxSequenceLength = 4096;
inline constexpr std::size_t kMaxTypeChars = 64;

[[nodiscard]] std::string encode_single(const Resource& resource);

// Emits the parts of one resource: pure fragments first, then an endless fountain.
class MultipartEncoder {
 public:
  MultipartEncoder(Resource resource, std::size_t max_fragment_len,
                   std::size_t min_fragment_len = 10);
  [[nodiscard]] std::uint32_t seq_len() const noexcept { return encoder_.seq_len(); }
  // Part `seq_num` (1-based) as UR text. With one fragment, the single-part form.
  [[nodiscard]] std::string part(std::uint32_t seq_num) const;

 private:
  Resource resource_;
  fountain::Encoder encoder_;
};

// Accepts single-part and multipart UR text in any order, with loss and duplicates.
class Decoder {
 public:
  Decoder();
  // Feeds one scanned text. Fails with a named error for text that is not a valid UR part or
  // does not belong to the resource being read; such a part is ignored, nothing is lost.
  [[nodiscard]] Status receive(std::string_view text);
  [[nodiscard]] bool complete() const noexcept { return result_.has_value(); }
  [[nodiscard]] const Resource& result() const { return *result_; }
  // Progress: fragments recovered out of the total (0 of 0 before the first part).
  [[nodiscard]] std::size_t fragments_known() const noexcept { return fountain_.fragments_known(); }
  [[nodiscard]] std::size_t fragments_total() const noexcept { return fountain_.seq_len(); }

 private:
  std::optional<std::string> type_;
  fountain::Decoder fountain_;
  std::optional<Resource> result_;
};

}  // namespace airlock::ur
