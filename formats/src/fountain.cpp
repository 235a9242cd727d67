#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <zlib.h>

#include <airlock/common/hash.h>
#include <airlock/formats/fountain.h>

namespace airlock::fountain {

std::uint32_t crc32(ByteView data) {
  uLong crc = ::crc32(0L, Z_NULL, 0);
  if (!data.empty()) crc = ::crc32(crc, data.data(), static_cast<uInt>(data.size()));
  return static_cast<std::uint32_t>(crc);
}

namespace {

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void append_u32_be(std::uint32_t v, Bytes& out) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// Walker/Vose alias table over unnormalised weights, built as the reference builds it (small
// and large lists filled from the highest index down) so it draws the same values.
class AliasSampler {
 public:
  explicit AliasSampler(const std::vector<double>& weights) {
    const std::size_t n = weights.size();
    double sum = 0;
    for (double w : weights) sum += w;
    std::vector<double> scaled(n);
    for (std::size_t i = 0; i < n; ++i) scaled[i] = weights[i] * static_cast<double>(n) / sum;
    std::vector<std::size_t> small, large;
    for (std::size_t i = n; i-- > 0;) (scaled[i] < 1 ? small : large).push_back(i);
    probs_.assign(n, 0);
    aliases_.assign(n, 0);
    while (!small.empty() && !large.empty()) {
      const std::size_t a = small.back();
      small.pop_back();
      const std::size_t g = large.back();
      large.pop_back();
      probs_[a] = scaled[a];
      aliases_[a] = g;
      scaled[g] += scaled[a] - 1;
      (scaled[g] < 1 ? small : large).push_back(g);
    }
    for (std::size_t i : large) probs_[i] = 1;
    for (std::size_t i : small) probs_[i] = 1;  // only through rounding
  }

  std::size_t next(Xoshiro256& rng) const {
    const double r1 = rng.next_double();
    const double r2 = rng.next_double();
    const auto i = static_cast<std::size_t>(static_cast<double>(probs_.size()) * r1);
    return r2 < probs_[i] ? i : aliases_[i];
  }

 private:
  std::vector<double> probs_;
  std::vector<std::size_t> aliases_;
};

// The degree of a mixed part: 1..seq_len with probability proportional to 1/degree.
std::size_t choose_degree(std::size_t seq_len, Xoshiro256& rng) {
  std::vector<double> weights(seq_len);
  for (std::size_t i = 0; i < seq_len; ++i) weights[i] = 1.0 / static_cast<double>(i + 1);
  return AliasSampler(weights).next(rng) + 1;
}

}  // namespace

Xoshiro256::Xoshiro256(ByteView seed) {
  const Hash digest = sha256(seed);
  for (std::size_t i = 0; i < 4; ++i) {
    std::uint64_t v = 0;
    for (std::size_t b = 0; b < 8; ++b) v = (v << 8) | digest.bytes[i * 8 + b];
    s_[i] = v;
  }
}

std::uint64_t Xoshiro256::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Xoshiro256::next_double() {
  const double two_to_64 = static_cast<double>(std::numeric_limits<std::uint64_t>::max()) + 1.0;
  return static_cast<double>(next()) / two_to_64;
}

std::uint64_t Xoshiro256::next_int(std::uint64_t low, std::uint64_t high) {
  return static_cast<std::uint64_t>(next_double() * static_cast<double>(high - low + 1)) + low;
}

std::vector<std::size_t> choose_fragments(std::uint32_t seq_num, std::size_t seq_len,
                                          std::uint32_t checksum, Chooser chooser) {
  if (seq_num <= seq_len) return {seq_num - 1U};
  Bytes seed;
  append_u32_be(seq_num, seed);
  append_u32_be(checksum, seed);
  Xoshiro256 rng(seed);
  if (chooser == Chooser::kDense) {
    std::vector<std::size_t> chosen;
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < seq_len; ++i) {
      if (i % 64 == 0) bits = rng.next();
      if ((bits >> (i % 64)) & 1U) chosen.push_back(i);
    }
    if (chosen.empty()) chosen.push_back(static_cast<std::size_t>(rng.next_int(0, seq_len - 1)));
    return chosen;
  }
  const std::size_t degree = choose_degree(seq_len, rng);
  // The reference shuffles every index and keeps the first `degree`; the draws for later
  // positions do not change earlier ones, so stopping after `degree` picks gives the same set.
  std::vector<std::size_t> remaining(seq_len);
  for (std::size_t i = 0; i < seq_len; ++i) remaining[i] = i;
  std::vector<std::size_t> chosen;
  chosen.reserve(degree);
  while (chosen.size() < degree) {
    const auto index = static_cast<std::size_t>(rng.next_int(0, remaining.size() - 1));
    chosen.push_back(remaining[index]);
    remaining.erase(remaining.begin() + static_cast<std::ptrdiff_t>(index));
  }
  return chosen;
}

std::size_t nominal_fragment_length(std::size_t message_len, std::size_t min_fragment_len,
                                    std::size_t max_fragment_len) {
  const std::size_t max_count =
      std::max<std::size_t>(1, (message_len + min_fragment_len - 1) / min_fragment_len);
  std::size_t length = message_len;
  for (std::size_t count = 1; count <= max_count; ++count) {
    length = (message_len + count - 1) / count;
    if (length <= max_fragment_len) break;
  }
  return std::max<std::size_t>(length, 1);
}

Encoder::Encoder(ByteView message, std::size_t max_fragment_len, std::size_t min_fragment_len,
                 Chooser chooser)
    : message_len_(static_cast<std::uint32_t>(message.size())),
      checksum_(crc32(message)),
      fragment_len_(nominal_fragment_length(message.size(), min_fragment_len, max_fragment_len)),
      chooser_(chooser) {
  if (message.empty() || message.size() > UINT32_MAX || max_fragment_len == 0) __builtin_trap();
  for (std::size_t offset = 0; offset < message.size(); offset += fragment_len_) {
    Bytes fragment(fragment_len_, 0);
    const std::size_t n = std::min(fragment_len_, message.size() - offset);
    std::copy_n(message.begin() + static_cast<std::ptrdiff_t>(offset), n, fragment.begin());
    fragments_.push_back(std::move(fragment));
  }
}

Part Encoder::part(std::uint32_t seq_num) const {
  Part p;
  p.seq_num = seq_num;
  p.seq_len = seq_len();
  p.message_len = message_len_;
  p.checksum = checksum_;
  p.data.assign(fragment_len_, 0);
  for (std::size_t index : choose_fragments(seq_num, fragments_.size(), checksum_, chooser_)) {
    for (std::size_t i = 0; i < fragment_len_; ++i) p.data[i] ^= fragments_[index][i];
  }
  return p;
}

Status Decoder::receive(const Part& p) {
  if (complete()) return {};
  if (p.seq_num == 0 || p.seq_len == 0 || p.message_len == 0 || p.data.empty()) {
    return Error(ur::errors::kInvalid,
                 "part: sequence number, count, message length and "
                 "fragment must all be non-zero");
  }
  if (p.message_len > limits_.max_message_len) {
    return Error(ErrorCode::kTooLarge, "part: message of " + std::to_string(p.message_len) +
                                           " bytes is over the limit of " +
                                           std::to_string(limits_.max_message_len));
  }
  if (p.seq_len > limits_.max_seq_len) {
    return Error(ErrorCode::kTooLarge, "part: " + std::to_string(p.seq_len) +
                                           " fragments is over the limit of " +
                                           std::to_string(limits_.max_seq_len));
  }
  const std::size_t needed = (p.message_len + p.data.size() - 1) / p.data.size();
  if (needed != p.seq_len) {
    return Error(ur::errors::kInvalid, "part: " + std::to_string(p.seq_len) + " fragments of " +
                                           std::to_string(p.data.size()) +
                                           " bytes do not make a message of " +
                                           std::to_string(p.message_len) + " bytes");
  }
  if (started_ && (p.seq_len != seq_len_ || p.message_len != message_len_ ||
                   p.checksum != checksum_ || p.data.size() != fragment_len_)) {
    return Error(ur::errors::kInconsistentPart,
                 "part " + std::to_string(p.seq_num) + " belongs to another message (count, " +
                     "length or checksum differ from the parts already read)");
  }
  if (!started_) {
    started_ = true;
    seq_len_ = p.seq_len;
    message_len_ = p.message_len;
    checksum_ = p.checksum;
    fragment_len_ = p.data.size();
    pivots_.resize(seq_len_);
  }
  ++parts_received_;

  const std::size_t words = (seq_len_ + 63) / 64;
  Row row{std::vector<std::uint64_t>(words, 0), p.data};
  for (std::size_t index : choose_fragments(p.seq_num, seq_len_, checksum_, chooser_)) {
    row.bits[index / 64] ^= std::uint64_t{1} << (index % 64);
  }
  // Reduce by the pivots, lowest bit first; a new lowest bit without a pivot becomes one.
  for (std::size_t w = 0; w < words; ++w) {
    while (row.bits[w] != 0) {
      const auto bit = static_cast<std::size_t>(__builtin_ctzll(row.bits[w]));
      const std::size_t index = w * 64 + bit;
      if (!pivots_[index]) {
        pivots_[index] = std::move(row);
        ++rank_;
        return rank_ == seq_len_ ? finish() : Status{};
      }
      const Row& pivot = *pivots_[index];
      for (std::size_t k = w; k < words; ++k) row.bits[k] ^= pivot.bits[k];
      for (std::size_t i = 0; i < fragment_len_; ++i) row.data[i] ^= pivot.data[i];
    }
  }
  return {};  // a combination of equations already known
}

// Full rank: back-substitute from the highest pivot down so each row holds one fragment.
Status Decoder::finish() {
  const std::size_t words = (seq_len_ + 63) / 64;
  for (std::size_t i = seq_len_; i-- > 0;) {
    Row& row = *pivots_[i];
    for (std::size_t w = i / 64; w < words; ++w) {
      std::uint64_t higher = row.bits[w];
      if (w == i / 64) higher &= ~((std::uint64_t{2} << (i % 64)) - 1);  // bits above i only
      while (higher != 0) {
        const std::size_t j = w * 64 + static_cast<std::size_t>(__builtin_ctzll(higher));
        higher &= higher - 1;
        const Row& solved = *pivots_[j];  // already a single fragment
        for (std::size_t k = 0; k < fragment_len_; ++k) row.data[k] ^= solved.data[k];
      }
    }
  }
  Bytes joined;
  joined.reserve(static_cast<std::size_t>(seq_len_) * fragment_len_);
  for (const auto& row : pivots_) joined.insert(joined.end(), row->data.begin(), row->data.end());
  joined.resize(message_len_);
  if (crc32(joined) != checksum_) {
    *this = Decoder(limits_, chooser_);  // start over: some stored part was corrupt
    return Error(ur::errors::kChecksum,
                 "reassembled message does not match its CRC-32; a "
                 "part was corrupted, so reading starts over");
  }
  message_ = std::move(joined);
  pivots_.clear();
  return {};
}

}  // namespace airlock::fountain
