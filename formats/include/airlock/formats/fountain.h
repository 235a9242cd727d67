// Fountain codes for multipart transfers. A message is cut into seq_len equal fragments (the
// last zero-padded). Parts 1..seq_len carry one fragment each; every later part carries the XOR
// of a pseudo-random subset chosen from (seq_num, checksum), so a reader can join at any point
// and recover from lost frames with a few extra ones.
//
// Two choosers pick the subsets:
//  - kUr: BC-UR's (Blockchain Commons BCR-2024-001), degree drawn with weight 1/degree, for
//    interoperability;
//  - kDense: airlock's dense framing, each fragment included with probability 1/2, so that any
//    seq_len + a few parts received from any starting point determine the message.
// The decoder solves the parts as linear equations over GF(2) (incremental Gaussian
// elimination), which decodes as soon as the parts received determine the message, whichever
// chooser made them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <airlock/common/bytes.h>
#include <airlock/common/error.h>

namespace airlock::fountain {

// CRC-32 (ISO-HDLC, as zlib and BC-UR compute it).
[[nodiscard]] std::uint32_t crc32(ByteView data);

// xoshiro256** seeded with SHA-256 of the seed bytes, read as four big-endian words.
class Xoshiro256 {
 public:
  explicit Xoshiro256(ByteView seed);
  std::uint64_t next();
  double next_double();                                           // in [0, 1)
  std::uint64_t next_int(std::uint64_t low, std::uint64_t high);  // inclusive range

 private:
  std::uint64_t s_[4]{};
};

enum class Chooser : std::uint8_t { kUr, kDense };

// The fragment indexes (0-based) that part `seq_num` (1-based) combines.
[[nodiscard]] std::vector<std::size_t> choose_fragments(std::uint32_t seq_num, std::size_t seq_len,
                                                        std::uint32_t checksum,
                                                        Chooser chooser = Chooser::kUr);

// The fragment length the reference encoders choose: the smallest count of fragments whose
// length (message_len / count, rounded up) is at most max_fragment_len.
[[nodiscard]] std::size_t nominal_fragment_length(std::size_t message_len,
                                                  std::size_t min_fragment_len,
                                                  std::size_t max_fragment_len);

struct Part {
  std::uint32_t seq_num = 0;  // 1-based; above seq_len means a mixed part
  std::uint32_t seq_len = 0;
  std::uint32_t message_len = 0;
  std::uint32_t checksum = 0;  // CRC-32 of the whole message
  Bytes data;                  // one fragment's length
};

class Encoder {
 public:
  // Precondition (checked, traps): message is not empty and fits a u32 length;
  // max_fragment_len >= 1.
  Encoder(ByteView message, std::size_t max_fragment_len, std::size_t min_fragment_len = 10,
          Chooser chooser = Chooser::kUr);

  [[nodiscard]] std::uint32_t seq_len() const noexcept {
    return static_cast<std::uint32_t>(fragments_.size());
  }
  [[nodiscard]] std::size_t fragment_len() const noexcept { return fragment_len_; }
  // Part seq_num (1-based); any number, the sequence is endless.
  [[nodiscard]] Part part(std::uint32_t seq_num) const;

 private:
  std::uint32_t message_len_;
  std::uint32_t checksum_;
  std::size_t fragment_len_;
  Chooser chooser_;
  std::vector<Bytes> fragments_;
};

// Hard limits for what a decoder accepts, checked before allocating.
struct DecoderLimits {
  std::size_t max_message_len;
  std::size_t max_seq_len;
};

class Decoder {
 public:
  Decoder(DecoderLimits limits, Chooser chooser) : limits_(limits), chooser_(chooser) {}

  // Feeds one part. Fails (and changes nothing) for a part that is malformed or does not belong
  // to the message the first accepted part started (ur.inconsistent_part); fails with
  // ur.checksum if the completed message does not match its checksum.
  [[nodiscard]] Status receive(const Part& part);

  [[nodiscard]] bool complete() const noexcept { return message_.has_value(); }
  [[nodiscard]] const Bytes& message() const { return *message_; }
  // Progress: independent equations received so far (the message is known at seq_len).
  [[nodiscard]] std::size_t fragments_known() const noexcept { return rank_; }
  [[nodiscard]] std::size_t seq_len() const noexcept { return seq_len_; }
  [[nodiscard]] std::size_t parts_received() const noexcept { return parts_received_; }

 private:
  // One equation: the XOR of the fragments whose bits are set equals `data`.
  struct Row {
    std::vector<std::uint64_t> bits;
    Bytes data;
  };
  Status finish();

  DecoderLimits limits_;
  Chooser chooser_;
  bool started_ = false;
  std::uint32_t seq_len_ = 0, message_len_ = 0, checksum_ = 0;
  std::size_t fragment_len_ = 0;
  std::size_t parts_received_ = 0;
  std::size_t rank_ = 0;
  // pivots_[i]: an equation whose lowest set bit is i (row echelon form).
  std::vector<std::optional<Row>> pivots_;
  std::optional<Bytes> message_;
};

}  // namespace airlock::fountain

namespace airlock::ur {
// The UR format's error codes (their kinds and the exit codes: common/error.h), declared
// with its fountain decoder, the lowest part of it that reports them (ur.h includes this).
namespace errors {
inline constexpr ErrorCode kInvalid{ErrorKind::kInvalidInput, "ur.invalid"};
inline constexpr ErrorCode kChecksum{ErrorKind::kInvalidInput, "ur.checksum"};
inline constexpr ErrorCode kInconsistentPart{ErrorKind::kInvalidInput, "ur.inconsistent_part"};
}  // namespace errors

}  // namespace airlock::ur
