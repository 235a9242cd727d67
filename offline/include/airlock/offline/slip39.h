// SLIP-0039: Shamir's secret sharing for mnemonic codes, written from the specification
// (satoshilabs/slips, slip-0039.md). A master secret is encrypted with a passphrase, split into
// groups, each group into members, and every member share is written as words from the 1,024-word
// SLIP-0039 list. Every secret, share value and mnemonic stays in SecretBytes; error messages name
// the rule and the share (counted from 1) but never contain words or secret bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string_view>
#include <vector>

#include <airlock/common/error.h>
#include <airlock/common/secret.h>

namespace airlock::offline::slip39 {

// Limits from the specification: 4-bit group and member fields, a 4-bit iteration exponent.
inline constexpr std::size_t kMaxGroups = 16;
inline constexpr std::size_t kMaxMembers = 16;
inline constexpr std::uint8_t kMaxIterationExponent = 15;
// The master secret: at least 128 bits and a whole number of 16-bit units (the spec's rules), and
// at most 512 bits, the longest BIP32 seed; longer secrets would only make longer mnemonics.
inline constexpr std::size_t kMinSecretBytes = 16;
inline constexpr std::size_t kMaxSecretBytes = 64;

// One group: how many of its member shares recover it, and how many there are.
struct GroupSpec {
  std::uint8_t threshold;  // 1..count; a threshold of 1 needs a count of 1
  std::uint8_t count;      // 1..16
};

struct SplitOptions {
  std::uint8_t group_threshold = 1;  // how many groups recover the secret: 1..groups.size()
  std::vector<GroupSpec> groups = {{1, 1}};
  // PBKDF2 runs 10000 << e iterations in all (2500 << e a round): 0..15.
  std::uint8_t iteration_exponent = 1;
  // Extendable sets leave the identifier out of the encryption, so a later split of the same secret
  // and passphrase with a new identifier decrypts the same under every passphrase.
  bool extendable = true;
};

// Where split takes its random bytes: randombytes_buf in production, a fixed stream in tests.
using RandomFill = std::function<void(std::span<std::uint8_t>)>;

// Splits `master_secret` (16..64 bytes, an even number) under `passphrase` (printable ASCII, codes
// 32..126; may be empty). Returns groups[g][m]: the mnemonic of member m of group g, its words
// joined by single spaces, in secure memory. Refuses options outside the limits above.
[[nodiscard]] Result<std::vector<std::vector<SecretBytes>>> split(const SecretBytes& master_secret,
                                                                  SecretText passphrase,
                                                                  const SplitOptions& options,
                                                                  const RandomFill& random);

// Recovers the master secret from exactly enough shares: for exactly group-threshold groups,
// exactly the member threshold of shares each, in any order (the spec asks for exact counts; extra
// shares are refused rather than silently ignored). Words may be separated by any whitespace and
// written in any case, but must be whole words. Fails, naming the rule and the share, on an unknown
// word, a bad checksum, padding or length, shares that disagree on identifier, extendable flag,
// iteration exponent, group threshold, group count, length or a group's member threshold, a
// repeated member, too few or too many shares, or a digest that does not verify. A wrong passphrase
// is not detectable: it yields a different secret, by design.
[[nodiscard]] Result<SecretBytes> combine(const std::vector<SecretText>& mnemonics,
                                          SecretText passphrase);

// What one share says about itself. Indices are as encoded (from 0; show them +1 to people);
// thresholds and counts are the real numbers (from 1).
struct ShareInfo {
  std::uint16_t identifier;  // 15 bits, the same for every share of one split
  bool extendable;
  std::uint8_t iteration_exponent;
  std::uint8_t group_index;
  std::uint8_t group_threshold;
  std::uint8_t group_count;
  std::uint8_t member_index;
  std::uint8_t member_threshold;
  std::size_t words;  // 20 for a 128-bit secret, 33 for 256 bits
};

// Parses and checks one share without combining: for confirming a share typed back in and telling
// the operator which group and member it is. The same checks as combine's per share.
[[nodiscard]] Result<ShareInfo> inspect(SecretText mnemonic);

// Shares gathered one at a time, as an operator types them, until they can recover the secret.
// Each is checked against the first as it comes (same set and shape, the same member threshold
// for its group, no member twice), so a paper of another set is named when it is typed, not
// after the last one; combine then gets exactly what it asks for.
class ShareSet {
 public:
  [[nodiscard]] std::size_t size() const { return shares_.size(); }
  // Whether enough groups have enough members to recover the secret.
  [[nodiscard]] bool enough() const;
  // Adds share `line` whose inspect() said `info`; refuses (kBackupInvalid, naming the share by
  // its place) one of another set or shape, one whose group threshold differs from an earlier
  // share of its group, and a member given before.
  [[nodiscard]] Status add(SecretBytes line, const ShareInfo& info);
  // Exactly the threshold: the first complete groups in group order, the first members given of
  // each. While no group is complete, every share, so that combining names what is missing.
  [[nodiscard]] std::vector<SecretText> chosen() const;

 private:
  [[nodiscard]] std::size_t threshold_of(int group) const;
  std::vector<SecretBytes> shares_;
  std::vector<ShareInfo> infos_;
  std::map<int, std::set<int>> members_;  // group -> members given
};

// Whether `word` is in the SLIP-0039 list (any case). A word of a share is a part of a secret,
// so it is taken only from secure memory, like the share.
[[nodiscard]] bool is_word(SecretText word);

// The words of the list that start with `prefix` (any case), for typing help. Every word is unique
// in its first four letters, so a prefix of four or more letters gives at most one.
// The words returned are the public list's own.
[[nodiscard]] std::vector<std::string_view> words_with_prefix(SecretText prefix);

}  // namespace airlock::offline::slip39
