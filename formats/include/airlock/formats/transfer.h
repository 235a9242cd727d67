// Moving content across the air gap as a sequence of QR codes, in either framing: airlock's
// dense framing (the default, fewest frames) or BC-UR (interoperable). The receiver recognises
// both and ignores codes that are neither.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

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

// Follows the transfer being shown: codes of another transfer (a screen still showing the last
// request, a second sender in view) start a candidate of their own instead of failing the one
// under way, and whichever transfer completes first is the result. At most kMaxCandidates are
// followed at once; a new one replaces the one with the least progress.
class Receiver {
 public:
  static constexpr std::size_t kMaxCandidates = 4;

  // Feeds the bytes of one scanned QR code. A code that is not part of an airlock transfer, or
  // is malformed, is refused with a named error; progress stays.
  [[nodiscard]] Status receive(ByteView code);
  [[nodiscard]] bool complete() const noexcept { return result_.has_value(); }
  [[nodiscard]] const Content& result() const { return *result_; }
  // The framing of the completed transfer, or of the one furthest along.
  [[nodiscard]] std::optional<Framing> framing() const;
  // Progress of the transfer furthest along (0 of 0 before the first code); once complete, the
  // completed transfer's fragments, all known.
  [[nodiscard]] std::size_t fragments_known() const;
  [[nodiscard]] std::size_t fragments_total() const;
  // Other transfers whose codes were seen (and ignored by the result).
  [[nodiscard]] std::size_t other_transfers() const noexcept;

 private:
  struct Candidate {
    Framing framing = Framing::kDense;
    dense::Decoder dense;
    ur::Decoder ur;
    [[nodiscard]] std::size_t known() const {
      return framing == Framing::kDense ? dense.fragments_known() : ur.fragments_known();
    }
    [[nodiscard]] std::size_t total() const {
      return framing == Framing::kDense ? dense.fragments_total() : ur.fragments_total();
    }
  };
  [[nodiscard]] const Candidate* furthest() const;
  // The result of a completed candidate (a UR's type decides what it carries).
  [[nodiscard]] Status finish(Candidate& c);

  std::vector<Candidate> candidates_;
  std::optional<Framing> done_framing_;
  std::size_t done_fragments_ = 0;
  std::size_t others_ = 0;
  std::optional<Content> result_;
};

[[nodiscard]] Result<Framing> parse_framing(std::string_view text);

}  // namespace airlock::transfer
