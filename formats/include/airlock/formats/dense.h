// airlock's dense multipart framing: byte-mode QR frames carrying fountain-coded fragments under
// a 34-byte binary header, the payload optionally deflated. Denser than BC-UR (no bytewords,
// which double the size, and no per-part CBOR), so a batch crosses in fewer frames.
//
// Frame layout (all integers big-endian), framing version 2:
//   0  2  magic A7 1C
//   2  1  framing version (2)
//   3  1  bit 7: payload deflated (zlib); bits 0-6: content type
//   4  4  sequence number, 1-based; above the count means a mixed fountain part
//   8  2  fragment count
//  10  4  carried payload length (after deflate, if used)
//  14  4  CRC-32 of the carried payload
//  18 16  transfer id: the first 16 bytes of the carried payload's SHA-256
//  34  …  fragment
//
// The transfer id tells transfers apart where length and CRC-32 could be forged to agree, and
// the reassembled payload must hash to it: fragments of different transfers mixed together
// never pass as content neither sender sent (version 1 relied on the CRC-32 alone).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>
#include <airlock/formats/fountain.h>

namespace airlock::dense {

// This module's error codes (their kinds and the exit codes: common/error.h).
namespace errors {
// A frame that is no frame of either framing, or a dense frame that breaks its layout.
inline constexpr ErrorCode kFrameInvalid{ErrorKind::kInvalidInput, "frame.invalid"};
// A dense frame of another transfer than this decoder's.
inline constexpr ErrorCode kOtherTransfer{ErrorKind::kInvalidInput, "dense.other_transfer"};
// Reassembled dense content that does not hash to its transfer id.
inline constexpr ErrorCode kMixed{ErrorKind::kInvalidInput, "dense.mixed"};
}  // namespace errors

inline constexpr std::array<std::uint8_t, 2> kMagic{0xA7, 0x1C};
inline constexpr std::uint8_t kFramingVersion = 2;
inline constexpr std::size_t kTransferIdBytes = 16;
inline constexpr std::size_t kHeaderBytes = 18 + kTransferIdBytes;
using TransferId = std::array<std::uint8_t, kTransferIdBytes>;
inline constexpr std::uint8_t kDeflatedFlag = 0x80;
// Limits: the same 1 MiB ceiling as BC-UR, for what is carried and for what inflating may
// produce (a decompression bomb stops at the ceiling), and at most 4096 fragments.
inline constexpr std::size_t kMaxPayloadBytes = 1 << 20;
inline constexpr std::size_t kMaxFragments = 4096;

enum class ContentType : std::uint8_t {
  kFile = 0,         // any file moved with airlock-qr
  kSignRequest = 1,  // formats/envelope.h
  kSignResponse = 2,
  // Keystone's Solana registry types (formats/keystone.h). They travel only as UR
  // (ur:sol-sign-request, ur:sol-signature), never in dense frames.
  kKeystoneSignRequest = 3,
  kKeystoneSignature = 4,
};

enum class Deflate { kAuto, kAlways, kNever };

class Encoder {
 public:
  // max_frame_bytes: the most a frame may hold (the QR symbol's byte capacity). With
  // Deflate::kAuto the payload is deflated only when that makes it smaller. Refuses an empty or
  // oversized payload, a frame with no room after the header, and more than kMaxFragments.
  [[nodiscard]] static Result<Encoder> create(ByteView payload, ContentType type,
                                              std::size_t max_frame_bytes,
                                              Deflate deflate = Deflate::kAuto);

  [[nodiscard]] std::uint32_t fragment_count() const noexcept { return fountain_.seq_len(); }
  [[nodiscard]] bool deflated() const noexcept { return deflated_; }
  [[nodiscard]] std::size_t carried_bytes() const noexcept { return carried_bytes_; }
  // Frame seq_num (1-based): the first fragment_count() are the fragments themselves.
  [[nodiscard]] Bytes frame(std::uint32_t seq_num) const;

 private:
  Encoder(ContentType type, bool deflated, std::size_t carried_bytes, TransferId id,
          fountain::Encoder fountain)
      : type_(type),
        deflated_(deflated),
        carried_bytes_(carried_bytes),
        id_(id),
        fountain_(std::move(fountain)) {}

  ContentType type_;
  bool deflated_;
  std::size_t carried_bytes_;
  TransferId id_;
  fountain::Encoder fountain_;
};

// True when the bytes start with the dense-frame magic.
[[nodiscard]] bool is_dense_frame(ByteView bytes) noexcept;
// The transfer id of a well-formed version-2 frame's header, else nothing.
[[nodiscard]] std::optional<TransferId> transfer_id(ByteView frame) noexcept;

struct Payload {
  ContentType type = ContentType::kFile;
  Bytes bytes;
};

class Decoder {
 public:
  Decoder();
  // Feeds one frame. A frame that is malformed or from another transfer is refused with a named
  // error (dense.other_transfer for the latter) and ignored; nothing received so far is lost.
  // Reassembled content that does not hash to the transfer id is dense.mixed, and reading
  // starts over.
  [[nodiscard]] Status receive(ByteView frame);
  [[nodiscard]] const std::optional<TransferId>& id() const noexcept { return id_; }
  [[nodiscard]] bool complete() const noexcept { return result_.has_value(); }
  [[nodiscard]] const Payload& result() const { return *result_; }
  [[nodiscard]] std::size_t fragments_known() const noexcept { return fountain_.fragments_known(); }
  [[nodiscard]] std::size_t fragments_total() const noexcept { return fountain_.seq_len(); }

 private:
  std::optional<std::uint8_t> flags_;
  std::optional<TransferId> id_;
  fountain::Decoder fountain_;
  std::optional<Payload> result_;
};

// zlib deflate at the best compression, and the bounded inflate the decoder uses: fails with
// bytes.too_large as soon as the output would pass `max_output`.
[[nodiscard]] Bytes deflate_bytes(ByteView input);
[[nodiscard]] Result<Bytes> inflate_bytes(ByteView input, std::size_t max_output);

}  // namespace airlock::dense
