// Addresses the ledger derives rather than generates: program-derived addresses (PDAs) and
// associated token accounts. Both are pure functions of public data (SHA-256 and a test for
// whether 32 bytes decode to a point of the Ed25519 curve), so the offline half computes them
// itself and never has to take an address on the online half's word.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <airlock/common/bytes.h>

namespace airlock {

// True when the 32 bytes decompress to a point of the Ed25519 curve, as the runtime decides it:
// the y coordinate (the top bit taken as x's sign, y read modulo p) has a matching x. Keys with
// a private key are on the curve; program-derived addresses never are.
[[nodiscard]] bool is_on_curve(const PublicKey& key) noexcept;

// The runtime's create_program_address: SHA-256 of the seeds, the program id and
// "ProgramDerivedAddress". Empty when a seed is longer than 32 bytes, there are more than 16
// seeds, or the hash lies on the curve.
[[nodiscard]] std::optional<PublicKey> create_program_address(const std::vector<Bytes>& seeds,
                                                              const PublicKey& program);

// The runtime's find_program_address: the first bump from 255 down whose address is off the
// curve, with that bump. Empty only if no bump works (never seen in practice).
[[nodiscard]] std::optional<std::pair<PublicKey, std::uint8_t>> find_program_address(
    const std::vector<Bytes>& seeds, const PublicKey& program);

// The seeds of those two derivations, for a caller that derives through a cache of its own: an
// associated token account's (under the Associated Token Account program) and a bin array's
// (under the DLMM program).
[[nodiscard]] std::vector<Bytes> associated_token_seeds(const PublicKey& owner,
                                                        const PublicKey& mint,
                                                        const PublicKey& token_program);
[[nodiscard]] std::vector<Bytes> bin_array_seeds(const PublicKey& lb_pair, std::int64_t bin);

// The associated token account of `owner` for `mint` under `token_program` (SPL Token or
// Token-2022): the Associated Token Account program's address derived from owner, token program
// and mint.
[[nodiscard]] PublicKey associated_token_address(const PublicKey& owner, const PublicKey& mint,
                                                 const PublicKey& token_program);

// Meteora DLMM's bin array holding `bin` in pool `lb_pair`: seeds "bin_array", the pool and
// the array's index, floor(bin / 70), as a little-endian i64, under `dlmm_program`.
[[nodiscard]] std::int64_t bin_array_index(std::int64_t bin) noexcept;
[[nodiscard]] PublicKey bin_array_address(const PublicKey& lb_pair, std::int64_t bin,
                                          const PublicKey& dlmm_program);

// A seed holding the bytes of a string or a key.
[[nodiscard]] Bytes seed(std::string_view text);
[[nodiscard]] Bytes seed(const PublicKey& key);

}  // namespace airlock
