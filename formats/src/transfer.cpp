#include <algorithm>

#include <airlock/formats/cbor.h>
#include <airlock/formats/dense.h>
#include <airlock/formats/keystone.h>
#include <airlock/formats/transfer.h>
#include <airlock/formats/ur.h>

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
    case dense::ContentType::kKeystoneSignRequest:
      return keystone::kSignRequestType;
    case dense::ContentType::kKeystoneSignature:
      return keystone::kSignatureType;
  }
  return kUrFileType;
}

// Worst-case characters a UR part adds around its fragment: "ur:" + type + "/" + two 10-digit
// numbers and "-" and "/", and in bytewords (2 characters a byte) the part's CBOR framing
// (array head 1, four u32 values up to 5 each, byte-string head up to 3) plus the 4-byte CRC.
std::size_t ur_overhead_chars(std::string_view type) {
  return 3 + type.size() + 1 + 22 + std::size_t{2} * (1 + 20 + 3 + 4);
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
  const bool keystone = content.type == dense::ContentType::kKeystoneSignRequest ||
                        content.type == dense::ContentType::kKeystoneSignature;
  if (options.framing == Framing::kDense && keystone) {
    return Error(ErrorCode::kUsage, "Keystone's ur:" + std::string(ur_type_for(content.type)) +
                                        " travels only as BC-UR: choose the ur framing");
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
    return Error(dense::errors::kFrameInvalid,
                 "QR code is neither an airlock dense frame nor a UR");
  }
  const std::string_view text(reinterpret_cast<const char*>(code.data()), code.size());
  const auto feed = [&](Candidate& c) {
    return framing == Framing::kDense ? c.dense.receive(code) : c.ur.receive(text);
  };
  const auto other_transfer = [](const Status& s) {
    return !s.ok() && (s.error().code() == dense::errors::kOtherTransfer ||
                       s.error().code() == ur::errors::kInconsistentPart);
  };
  for (auto& c : candidates_) {
    if (c.framing != framing) continue;
    Status status = feed(c);
    if (other_transfer(status)) continue;
    if (!status.ok()) return status;
    const bool done = framing == Framing::kDense ? c.dense.complete() : c.ur.complete();
    return done ? finish(c) : Status{};
  }
  // A transfer not seen before: followed beside the others, replacing the least advanced one
  // when kMaxCandidates are already followed.
  if (candidates_.size() >= kMaxCandidates) {
    const auto least = std::min_element(
        candidates_.begin(), candidates_.end(),
        [](const Candidate& a, const Candidate& b) { return a.known() < b.known(); });
    candidates_.erase(least);
  }
  Candidate fresh;
  fresh.framing = framing;
  Status status = feed(fresh);
  if (!status.ok()) return status;  // a malformed code starts nothing
  candidates_.push_back(std::move(fresh));
  Candidate& c = candidates_.back();
  const bool done = framing == Framing::kDense ? c.dense.complete() : c.ur.complete();
  return done ? finish(c) : Status{};
}

Status Receiver::finish(Candidate& c) {
  if (c.framing == Framing::kDense) {
    result_ = Content{c.dense.result().type, c.dense.result().bytes};
  } else {
    const ur::Resource& r = c.ur.result();
    if (r.type == kUrRequestType) {
      result_ = Content{dense::ContentType::kSignRequest, r.cbor};
    } else if (r.type == kUrResponseType) {
      result_ = Content{dense::ContentType::kSignResponse, r.cbor};
    } else if (r.type == keystone::kSignRequestType) {
      result_ = Content{dense::ContentType::kKeystoneSignRequest, r.cbor};
    } else if (r.type == keystone::kSignatureType) {
      result_ = Content{dense::ContentType::kKeystoneSignature, r.cbor};
    } else {
      auto value = cbor::decode_strict(r.cbor, {ur::kMaxMessageBytes + 16, 1, 1});
      if (!value.ok() || value->kind() != cbor::Value::Kind::kBytes) {
        // The message is made before the candidate goes: `r` lives in its state.
        Error error(ur::errors::kInvalid, "ur:" + r.type + " does not carry a CBOR byte string");
        std::erase_if(candidates_, [&](const Candidate& x) { return &x == &c; });
        return error;
      }
      result_ = Content{dense::ContentType::kFile, value->byte_string()};
    }
  }
  done_framing_ = c.framing;
  done_fragments_ = c.total();
  others_ = candidates_.size() - 1;
  candidates_.clear();
  return {};
}

const Receiver::Candidate* Receiver::furthest() const {
  const Candidate* best = nullptr;
  for (const auto& c : candidates_) {
    if (best == nullptr || c.known() >= best->known()) best = &c;
  }
  return best;
}

std::optional<Framing> Receiver::framing() const {
  if (done_framing_) return done_framing_;
  const Candidate* c = furthest();
  return c ? std::optional<Framing>(c->framing) : std::nullopt;
}

std::size_t Receiver::other_transfers() const noexcept {
  if (complete()) return others_;
  return candidates_.empty() ? 0 : candidates_.size() - 1;
}

std::size_t Receiver::fragments_known() const {
  if (complete()) return done_fragments_;
  const Candidate* c = furthest();
  return c ? c->known() : 0;
}

std::size_t Receiver::fragments_total() const {
  if (complete()) return done_fragments_;
  const Candidate* c = furthest();
  return c ? c->total() : 0;
}

Result<Framing> parse_framing(std::string_view text) {
  if (text == "dense") return Framing::kDense;
  if (text == "ur") return Framing::kUr;
  return Error(ErrorCode::kUsage,
               "framing must be 'dense' or 'ur', got '" + std::string(text) + "'");
}

}  // namespace airlock::transfer
