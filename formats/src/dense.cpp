#include <algorithm>
#include <string>

#include <zlib.h>

#include <airlock/common/hash.h>
#include <airlock/common/reader.h>
#include <airlock/formats/dense.h>

namespace airlock::dense {
namespace {

void put_u16(Bytes& out, std::uint32_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}
void put_u32(Bytes& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

Bytes carried_payload(ByteView payload, Deflate mode, bool& deflated) {
  if (mode != Deflate::kNever) {
    Bytes packed = deflate_bytes(payload);
    if (mode == Deflate::kAlways || packed.size() < payload.size()) {
      deflated = true;
      return packed;
    }
  }
  deflated = false;
  return Bytes(payload.begin(), payload.end());
}

TransferId id_of(ByteView carried) {
  const Hash h = sha256(carried);
  TransferId id{};
  std::copy(h.bytes.begin(), h.bytes.begin() + kTransferIdBytes, id.begin());
  return id;
}

}  // namespace

Bytes deflate_bytes(ByteView input) {
  uLongf size = compressBound(static_cast<uLong>(input.size()));
  Bytes out(size);
  if (compress2(out.data(), &size, input.data(), static_cast<uLong>(input.size()),
                Z_BEST_COMPRESSION) != Z_OK) {
    return Bytes(input.begin(), input.end());  // unreachable with a large enough buffer
  }
  out.resize(size);
  return out;
}

Result<Bytes> inflate_bytes(ByteView input, std::size_t max_output) {
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK)
    return Error(dense::errors::kFrameInvalid, "zlib failed to start");
  stream.next_in = const_cast<Bytef*>(input.data());
  stream.avail_in = static_cast<uInt>(input.size());
  Bytes out;
  std::uint8_t chunk[16384];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    stream.next_out = chunk;
    stream.avail_out = sizeof chunk;
    rc = inflate(&stream, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&stream);
      return Error(dense::errors::kFrameInvalid,
                   "deflated payload is corrupt (zlib error " + std::to_string(rc) + ")");
    }
    const std::size_t produced = sizeof chunk - stream.avail_out;
    if (out.size() + produced > max_output) {
      inflateEnd(&stream);
      return Error(ErrorCode::kTooLarge, "deflated payload inflates past the limit of " +
                                             std::to_string(max_output) + " bytes; refused");
    }
    out.insert(out.end(), chunk, chunk + produced);
    if (rc == Z_OK && produced == 0 && stream.avail_in == 0) {
      inflateEnd(&stream);
      return Error(dense::errors::kFrameInvalid, "deflated payload ends before its stream does");
    }
  }
  const bool trailing = stream.avail_in != 0;
  inflateEnd(&stream);
  if (trailing)
    return Error(dense::errors::kFrameInvalid, "bytes follow the end of the deflated payload");
  return out;
}

Result<Encoder> Encoder::create(ByteView payload, ContentType type, std::size_t max_frame_bytes,
                                Deflate deflate) {
  if (type > ContentType::kSignResponse)
    return Error(ErrorCode::kUsage, "Keystone content travels only as BC-UR, not in dense frames");
  if (payload.empty())
    return Error(ErrorCode::kUsage, "payload is empty; there is nothing to send");
  if (payload.size() > kMaxPayloadBytes) {
    return Error(ErrorCode::kTooLarge, "payload of " + std::to_string(payload.size()) +
                                           " bytes is over the limit of " +
                                           std::to_string(kMaxPayloadBytes));
  }
  if (max_frame_bytes <= kHeaderBytes) {
    return Error(ErrorCode::kUsage, "frames of " + std::to_string(max_frame_bytes) +
                                        " bytes leave no room after the " +
                                        std::to_string(kHeaderBytes) + "-byte header");
  }
  bool deflated = false;
  const Bytes carried = carried_payload(payload, deflate, deflated);
  const std::size_t fragment = max_frame_bytes - kHeaderBytes;
  if ((carried.size() + fragment - 1) / fragment > kMaxFragments) {
    return Error(ErrorCode::kTooLarge, "payload needs more than " + std::to_string(kMaxFragments) +
                                           " frames at " + std::to_string(max_frame_bytes) +
                                           " bytes each; choose a larger QR version");
  }
  return Encoder(type, deflated, carried.size(), id_of(carried),
                 fountain::Encoder(carried, fragment, 1, fountain::Chooser::kDense));
}

Bytes Encoder::frame(std::uint32_t seq_num) const {
  const fountain::Part part = fountain_.part(seq_num);
  Bytes out;
  out.reserve(kHeaderBytes + part.data.size());
  out.insert(out.end(), kMagic.begin(), kMagic.end());
  out.push_back(kFramingVersion);
  out.push_back(static_cast<std::uint8_t>((deflated_ ? kDeflatedFlag : 0) |
                                          static_cast<std::uint8_t>(type_)));
  put_u32(out, part.seq_num);
  put_u16(out, part.seq_len);
  put_u32(out, part.message_len);
  put_u32(out, part.checksum);
  out.insert(out.end(), id_.begin(), id_.end());
  out.insert(out.end(), part.data.begin(), part.data.end());
  return out;
}

bool is_dense_frame(ByteView bytes) noexcept {
  return bytes.size() >= 2 && bytes[0] == kMagic[0] && bytes[1] == kMagic[1];
}

std::optional<TransferId> transfer_id(ByteView frame) noexcept {
  if (!is_dense_frame(frame) || frame.size() <= kHeaderBytes || frame[2] != kFramingVersion)
    return std::nullopt;
  TransferId id{};
  std::copy(frame.begin() + 18, frame.begin() + 18 + kTransferIdBytes, id.begin());
  return id;
}

Decoder::Decoder() : fountain_({kMaxPayloadBytes, kMaxFragments}, fountain::Chooser::kDense) {}

Status Decoder::receive(ByteView frame) {
  if (complete()) return {};
  if (!is_dense_frame(frame))
    return Error(dense::errors::kFrameInvalid, "frame does not start with the dense-frame magic");
  if (frame.size() <= kHeaderBytes) {
    return Error(dense::errors::kFrameInvalid, "frame of " + std::to_string(frame.size()) +
                                                   " bytes has no fragment after its header");
  }
  if (frame[2] != kFramingVersion) {
    return Error(dense::errors::kFrameInvalid,
                 "frame uses dense framing version " + std::to_string(frame[2]) +
                     "; this build reads version " + std::to_string(kFramingVersion) +
                     " (both halves must be the same airlock release)");
  }
  const auto id = transfer_id(frame);
  if (id_ && id && *id_ != *id) {
    return Error(dense::errors::kOtherTransfer,
                 "frame belongs to another transfer (its id differs)");
  }
  const std::uint8_t flags = frame[3];
  const auto type = static_cast<std::uint8_t>(flags & 0x7f);
  if (type > static_cast<std::uint8_t>(ContentType::kSignResponse)) {
    return Error(dense::errors::kFrameInvalid,
                 "frame has unknown content type " + std::to_string(type));
  }
  if (flags_ && *flags_ != flags) {
    return Error(dense::errors::kOtherTransfer,
                 "frame belongs to another transfer (its content type or compression differ)");
  }
  ByteReader header(frame);
  (void)header.take(4, "magic, version and flags");  // checked above
  fountain::Part part;
  part.seq_num = static_cast<std::uint32_t>(header.be(4, "seq_num"));
  part.seq_len = static_cast<std::uint32_t>(header.be(2, "seq_len"));
  part.message_len = static_cast<std::uint32_t>(header.be(4, "message_len"));
  part.checksum = static_cast<std::uint32_t>(header.be(4, "checksum"));
  (void)header.take(kTransferIdBytes, "transfer id");  // read by transfer_id above
  if (!header.ok()) return header.error();
  const ByteView fragment = header.take(header.remaining(), "fragment");
  part.data.assign(fragment.begin(), fragment.end());
  AIRLOCK_CHECK(fountain_.receive(part));
  flags_ = flags;
  id_ = id;
  if (!fountain_.complete()) return {};
  if (id_of(fountain_.message()) != *id_) {
    *this = Decoder();
    return Error(dense::errors::kMixed,
                 "the reassembled payload does not hash to its transfer id: frames of different "
                 "transfers were mixed (or forged); reading starts over");
  }

  Payload payload;
  payload.type = static_cast<ContentType>(type);
  if ((flags & kDeflatedFlag) != 0) {
    auto inflated = inflate_bytes(fountain_.message(), kMaxPayloadBytes);
    if (!inflated.ok()) {
      *this = Decoder();
      return std::move(inflated).error();
    }
    payload.bytes = std::move(inflated).value();
  } else {
    payload.bytes = fountain_.message();
  }
  result_ = std::move(payload);
  return {};
}

}  // namespace airlock::dense
