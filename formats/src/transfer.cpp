#include <airlock/formats/cbor.h>
#include <airlock/formats/transfer.h>

namespace airlock::transfer {
namespace {

std::string_view ur_type_for(dense::ContentType type) {
  switch (type) {
    case dense::ContentType::kSignRequest:
      return kUrRequestType;
    case dense::ContentType::kSignResponse:
      return kUrResponseType;
    case dense::ContentType::kFile:
      return kUrFileType;
  }
  return kUrFileType;
}

// Worst-case characters a UR part adds around its fragment: "ur:" + type + "/" + two 10-digit
// numbers and "-" and "/", and in bytewords (2 characters a byte) the part's CBOR framing
// (array head 1, four u32 values up to 5 each, byte-string head up to 3) plus the 4-byte CRC.
std::size_t ur_overhead_chars(std::string_view type) {
  return 3 + type.size() + 1 + 22 + 2 * (1 + 20 + 3 + 4);
}

bool starts_with_ur(ByteView code) {
  if (code.size() < 3) return false;
  const auto lower = [](std::uint8_t c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  };
  return lower(code[0]) == 'u' && lower(code[1]) == 'r' && code[2] == ':';
}

}  // namespace

Result<Sender> Sender::create(const Content& content, const Options& options) {
  if (options.max_version < 1 || options.max_version > 40) {
    return Error(ErrorCode::kUsage,
                 "QR version must be 1 to 40, got " + std::to_string(options.max_version));
  }
  if (options.framing == Framing::kDense) {
    AIRLOCK_TRY(encoder,
                dense::Encoder::create(content.bytes, content.type,
                                       qr::byte_capacity(options.max_version, options.level),
                                       options.deflate));
    return Sender(options, std::move(encoder));
  }
  if (content.bytes.empty())
    return Error(ErrorCode::kUsage, "content is empty; there is nothing to send");
  if (content.bytes.size() > ur::kMaxMessageBytes) {
    return Error(ErrorCode::kTooLarge, "content of " + std::to_string(content.bytes.size()) +
                                           " bytes is over the UR limit of " +
                                           std::to_string(ur::kMaxMessageBytes));
  }
  const std::string_view type = ur_type_for(content.type);
  const std::size_t capacity = qr::text_capacity(options.max_version, options.level);
  const std::size_t overhead = ur_overhead_chars(type);
  const std::size_t fitting = capacity > overhead ? (capacity - overhead) / 2 : 0;
  const std::size_t fragment = options.ur_fragment_len == 0 ? fitting : options.ur_fragment_len;
  if (fragment == 0 || fragment > fitting) {
    return Error(ErrorCode::kUsage, "UR fragments of " + std::to_string(fragment) +
                                        " bytes do not fit a version-" +
                                        std::to_string(options.max_version) + " QR code; at most " +
                                        std::to_string(fitting));
  }
  ur::Resource resource{std::string(type), content.type == dense::ContentType::kFile
                                               ? cbor::encode(cbor::Value::bytes(content.bytes))
                                               : content.bytes};
  if ((resource.cbor.size() + fragment - 1) / fragment > ur::kMaxSequenceLength) {
    return Error(ErrorCode::kTooLarge, "content needs more than " +
                                           std::to_string(ur::kMaxSequenceLength) +
                                           " UR parts; choose a larger QR version");
  }
  return Sender(options, ur::MultipartEncoder(std::move(resource), fragment));
}

std::uint32_t Sender::fragment_count() const {
  if (const auto* d = std::get_if<dense::Encoder>(&encoder_)) return d->fragment_count();
  return std::get<ur::MultipartEncoder>(encoder_).seq_len();
}

std::variant<Bytes, std::string> Sender::code(std::uint32_t seq_num) const {
  if (const auto* d = std::get_if<dense::Encoder>(&encoder_)) return d->frame(seq_num);
  return std::get<ur::MultipartEncoder>(encoder_).part(seq_num);
}

Result<qr::Symbol> Sender::symbol(std::uint32_t seq_num) const {
  const auto c = code(seq_num);
  if (const auto* bytes = std::get_if<Bytes>(&c))
    return qr::encode(*bytes, options_.max_version, options_.level);
  return qr::encode_text(std::get<std::string>(c), options_.max_version, options_.level);
}

Status Receiver::receive(ByteView code) {
  if (complete()) return {};
  Framing framing;
  if (dense::is_dense_frame(code)) {
    framing = Framing::kDense;
  } else if (starts_with_ur(code)) {
    framing = Framing::kUr;
  } else {
    return Error(ErrorCode::kFrameInvalid, "QR code is neither an airlock dense frame nor a UR");
  }
  if (framing_ && *framing_ != framing) {
    return Error(ErrorCode::kUrInconsistentPart,
                 "QR code uses another framing than the transfer under way");
  }
  if (framing == Framing::kDense) {
    AIRLOCK_CHECK(dense_.receive(code));
    framing_ = framing;
    if (dense_.complete()) result_ = Content{dense_.result().type, dense_.result().bytes};
    return {};
  }
  const std::string_view text(reinterpret_cast<const char*>(code.data()), code.size());
  AIRLOCK_CHECK(ur_.receive(text));
  framing_ = framing;
  if (!ur_.complete()) return {};
  const ur::Resource& r = ur_.result();
  if (r.type == kUrRequestType) {
    result_ = Content{dense::ContentType::kSignRequest, r.cbor};
  } else if (r.type == kUrResponseType) {
    result_ = Content{dense::ContentType::kSignResponse, r.cbor};
  } else {
    auto value = cbor::decode_strict(r.cbor, {ur::kMaxMessageBytes + 16, 1, 1});
    if (!value.ok() || value->kind() != cbor::Value::Kind::kBytes) {
      // The message is made before the reset: `r` lives in the state the reset frees.
      Error error(ErrorCode::kUrInvalid, "ur:" + r.type + " does not carry a CBOR byte string");
      *this = Receiver();
      return error;
    }
    result_ = Content{dense::ContentType::kFile, value->byte_string()};
  }
  return {};
}

std::size_t Receiver::fragments_known() const {
  return framing_ == Framing::kUr ? ur_.fragments_known() : dense_.fragments_known();
}

std::size_t Receiver::fragments_total() const {
  return framing_ == Framing::kUr ? ur_.fragments_total() : dense_.fragments_total();
}

Result<Framing> parse_framing(std::string_view text) {
  if (text == "dense") return Framing::kDense;
  if (text == "ur") return Framing::kUr;
  return Error(ErrorCode::kUsage,
               "framing must be 'dense' or 'ur', got '" + std::string(text) + "'");
}

}  // namespace airlock::transfer
