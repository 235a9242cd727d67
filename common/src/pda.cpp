#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>

#include <gmp.h>

#include <airlock/common/hash.h>
#include <airlock/common/pda.h>
#include <airlock/common/programs.h>

namespace airlock {
namespace {

// Arithmetic modulo p = 2^255 - 19 in five 51-bit limbs: only what the curve test needs.
static_assert(sizeof(mp_limb_t) == 8, "the curve test hands GMP four 64-bit limbs");
struct Fe {
  std::uint64_t v[5];
};
using u128 = unsigned __int128;
constexpr std::uint64_t kMask = (std::uint64_t{1} << 51) - 1;

Fe fe_from_bytes(const std::uint8_t* s) {
  std::uint64_t w[4];
  for (int i = 0; i < 4; ++i) {
    w[i] = 0;
    for (int b = 7; b >= 0; --b) w[i] = (w[i] << 8) | s[8 * i + b];
  }
  // The top bit (x's sign) is not part of y.
  return Fe{{w[0] & kMask, ((w[0] >> 51) | (w[1] << 13)) & kMask,
             ((w[1] >> 38) | (w[2] << 26)) & kMask, ((w[2] >> 25) | (w[3] << 39)) & kMask,
             (w[3] >> 12) & kMask}};
}

Fe fe_carry(u128 r0, u128 r1, u128 r2, u128 r3, u128 r4) {
  r1 += r0 >> 51;
  r2 += r1 >> 51;
  r3 += r2 >> 51;
  r4 += r3 >> 51;
  u128 l0 = (r0 & kMask) + (r4 >> 51) * 19;
  const u128 l1 = (r1 & kMask) + (l0 >> 51);
  l0 &= kMask;
  return Fe{{static_cast<std::uint64_t>(l0), static_cast<std::uint64_t>(l1),
             static_cast<std::uint64_t>(r2 & kMask), static_cast<std::uint64_t>(r3 & kMask),
             static_cast<std::uint64_t>(r4 & kMask)}};
}

Fe fe_mul(const Fe& a, const Fe& b) {
  const auto m = [](std::uint64_t x, std::uint64_t y) { return static_cast<u128>(x) * y; };
  const std::uint64_t b1 = b.v[1] * 19, b2 = b.v[2] * 19, b3 = b.v[3] * 19, b4 = b.v[4] * 19;
  const u128 r0 = m(a.v[0], b.v[0]) + m(a.v[1], b4) + m(a.v[2], b3) + m(a.v[3], b2) + m(a.v[4], b1);
  const u128 r1 =
      m(a.v[0], b.v[1]) + m(a.v[1], b.v[0]) + m(a.v[2], b4) + m(a.v[3], b3) + m(a.v[4], b2);
  const u128 r2 =
      m(a.v[0], b.v[2]) + m(a.v[1], b.v[1]) + m(a.v[2], b.v[0]) + m(a.v[3], b4) + m(a.v[4], b3);
  const u128 r3 =
      m(a.v[0], b.v[3]) + m(a.v[1], b.v[2]) + m(a.v[2], b.v[1]) + m(a.v[3], b.v[0]) + m(a.v[4], b4);
  const u128 r4 = m(a.v[0], b.v[4]) + m(a.v[1], b.v[3]) + m(a.v[2], b.v[2]) + m(a.v[3], b.v[1]) +
                  m(a.v[4], b.v[0]);
  return fe_carry(r0, r1, r2, r3, r4);
}

Fe fe_add(const Fe& a, const Fe& b) {
  return fe_carry(u128{a.v[0]} + b.v[0], u128{a.v[1]} + b.v[1], u128{a.v[2]} + b.v[2],
                  u128{a.v[3]} + b.v[3], u128{a.v[4]} + b.v[4]);
}

// a - b, computed as a + 2p - b so no limb goes negative.
Fe fe_sub(const Fe& a, const Fe& b) {
  constexpr std::uint64_t k2p0 = 0xfffffffffffdaULL, k2p = 0xffffffffffffeULL;
  return fe_carry(u128{a.v[0]} + k2p0 - b.v[0], u128{a.v[1]} + k2p - b.v[1],
                  u128{a.v[2]} + k2p - b.v[2], u128{a.v[3]} + k2p - b.v[3],
                  u128{a.v[4]} + k2p - b.v[4]);
}

// The unique representative in [0, p), limb by limb.
Fe fe_canonical(Fe f) {
  for (int pass = 0; pass < 2; ++pass) {  // every limb below 2^51, the value below 2^255
    for (int i = 0; i < 4; ++i) {
      f.v[i + 1] += f.v[i] >> 51;
      f.v[i] &= kMask;
    }
    f.v[0] += 19 * (f.v[4] >> 51);
    f.v[4] &= kMask;
  }
  std::uint64_t q = (f.v[0] + 19) >> 51;
  for (int i = 1; i < 5; ++i) q = (f.v[i] + q) >> 51;
  f.v[0] += 19 * q;
  for (int i = 0; i < 4; ++i) {
    f.v[i + 1] += f.v[i] >> 51;
    f.v[i] &= kMask;
  }
  f.v[4] &= kMask;
  return f;
}

// d = -121665/121666 mod p, little-endian.
constexpr std::uint8_t kD[32] = {0xa3, 0x78, 0x59, 0x13, 0xca, 0x4d, 0xeb, 0x75, 0xab, 0xd8, 0x41,
                                 0x41, 0x4d, 0x0a, 0x70, 0x00, 0x98, 0xe8, 0x79, 0x77, 0x79, 0x40,
                                 0xc7, 0x8c, 0x73, 0xfe, 0x6f, 0x2b, 0xee, 0x6c, 0x03, 0x52};

}  // namespace

bool is_on_curve(const PublicKey& key) noexcept {
  // -x^2 + y^2 = 1 + d x^2 y^2  =>  x^2 = (y^2 - 1) / (d y^2 + 1). The denominator is never 0
  // (-1/d is not a square), so an x exists exactly when u * v is a square or zero: its Jacobi
  // symbol modulo the prime p is 1 or 0. GMP computes that symbol by a binary GCD, about three
  // times faster than Euler's criterion (a^((p-1)/2), 254 squarings); the key is public, so
  // its running time may depend on it.
  const Fe one{{1, 0, 0, 0, 0}};
  const Fe y = fe_from_bytes(key.bytes.data());
  const Fe y2 = fe_mul(y, y);
  const Fe u = fe_sub(y2, one);
  const Fe v = fe_add(fe_mul(fe_from_bytes(kD), y2), one);
  const Fe w = fe_canonical(fe_mul(u, v));
  const mp_limb_t w_limbs[4] = {w.v[0] | (w.v[1] << 51), (w.v[1] >> 13) | (w.v[2] << 38),
                                (w.v[2] >> 26) | (w.v[3] << 25), (w.v[3] >> 39) | (w.v[4] << 12)};
  static constexpr mp_limb_t kP[4] = {0xffffffffffffffedULL, ~0ULL, ~0ULL, 0x7fffffffffffffffULL};
  mpz_t w_z, p_z;  // read-only views of the limbs: nothing is allocated
  mpz_roinit_n(w_z, w_limbs, 4);
  mpz_roinit_n(p_z, kP, 4);
  return mpz_jacobi(w_z, p_z) >= 0;
}

namespace {

constexpr std::size_t kMaxSeeds = 16, kMaxSeedBytes = 32;
constexpr std::string_view kMarker = "ProgramDerivedAddress";

// What the runtime hashes for an address: the seeds, then the bump (when searching for one), the
// program and the marker, laid out once in a buffer on the stack so that trying another bump
// changes one byte. Seeds the runtime refuses leave it invalid.
class Preimage {
 public:
  Preimage(const std::vector<Bytes>& seeds, bool with_bump, const PublicKey& program) {
    if (seeds.size() + (with_bump ? 1 : 0) > kMaxSeeds) return;
    for (const auto& s : seeds) {
      if (s.size() > kMaxSeedBytes) return;
      append(s);
    }
    if (with_bump) bump_at_ = size_++;
    append(program.view());
    append(text_bytes(kMarker));
    valid_ = true;
  }
  [[nodiscard]] bool valid() const { return valid_; }
  void set_bump(std::uint8_t bump) { bytes_[bump_at_] = bump; }
  // The address these bytes hash to, or nullopt when it is on the curve (a key someone could
  // hold the private half of).
  [[nodiscard]] std::optional<PublicKey> address() const {
    const PublicKey address = sha256(ByteView(bytes_.data(), size_));
    if (is_on_curve(address)) return std::nullopt;
    return address;
  }

 private:
  void append(ByteView b) {
    std::copy(b.begin(), b.end(), bytes_.begin() + static_cast<std::ptrdiff_t>(size_));
    size_ += b.size();
  }
  std::array<std::uint8_t, kMaxSeeds * kMaxSeedBytes + PublicKey::kSize + kMarker.size()> bytes_{};
  std::size_t size_ = 0, bump_at_ = 0;
  bool valid_ = false;
};

}  // namespace

std::optional<PublicKey> create_program_address(const std::vector<Bytes>& seeds,
                                                const PublicKey& program) {
  const Preimage preimage(seeds, false, program);
  if (!preimage.valid()) return std::nullopt;
  return preimage.address();
}

std::optional<std::pair<PublicKey, std::uint8_t>> find_program_address(
    const std::vector<Bytes>& seeds, const PublicKey& program) {
  Preimage preimage(seeds, true, program);  // the bump is a seed too
  if (!preimage.valid()) return std::nullopt;
  for (int bump = 255; bump >= 0; --bump) {
    preimage.set_bump(static_cast<std::uint8_t>(bump));
    if (auto address = preimage.address())
      return std::make_pair(*address, static_cast<std::uint8_t>(bump));
  }
  return std::nullopt;
}

std::vector<Bytes> associated_token_seeds(const PublicKey& owner, const PublicKey& mint,
                                          const PublicKey& token_program) {
  return {seed(owner), seed(token_program), seed(mint)};
}

PublicKey associated_token_address(const PublicKey& owner, const PublicKey& mint,
                                   const PublicKey& token_program) {
  const auto found = find_program_address(associated_token_seeds(owner, mint, token_program),
                                          programs::key(programs::kAssociatedToken));
  // Three 32-byte seeds always find an address; an all-zero key would never match a real one.
  return found ? found->first : PublicKey{};
}

std::int64_t bin_array_index(std::int64_t bin) noexcept {
  constexpr std::int64_t kBinsPerArray = 70;
  return bin >= 0 ? bin / kBinsPerArray : -((-bin + kBinsPerArray - 1) / kBinsPerArray);
}

std::vector<Bytes> bin_array_seeds(const PublicKey& lb_pair, std::int64_t bin) {
  const auto index = static_cast<std::uint64_t>(bin_array_index(bin));
  Bytes le;
  for (int i = 0; i < 8; ++i) le.push_back(static_cast<std::uint8_t>(index >> (8 * i)));
  return {seed("bin_array"), seed(lb_pair), std::move(le)};
}

PublicKey bin_array_address(const PublicKey& lb_pair, std::int64_t bin,
                            const PublicKey& dlmm_program) {
  const auto found = find_program_address(bin_array_seeds(lb_pair, bin), dlmm_program);
  return found ? found->first : PublicKey{};
}

Bytes seed(std::string_view text) { return Bytes(text.begin(), text.end()); }
Bytes seed(const PublicKey& key) { return Bytes(key.bytes.begin(), key.bytes.end()); }

}  // namespace airlock
