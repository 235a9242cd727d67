// Key custody: the recovery words a new key is made from (a BIP39 phrase, or SLIP-0039 shares
// of a master secret), the words the operator is asked to type back before anything is
// written, and the key each kind of backup gives. Every phrase, share and typed word stays in
// SecretBytes; views returned here point into them.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include <airlock/common/error.h>
#include <airlock/common/secret.h>
#include <airlock/formats/keystone.h>

namespace airlock::offline::custody {

// Words asked back: of a BIP39 phrase, and of each SLIP-0039 share.
inline constexpr std::size_t kPhraseWordsAsked = 3;
inline constexpr std::size_t kShareWordsAsked = 2;

// `count` distinct positions (from 1) among `words`, drawn from the system's random source,
// in increasing order.
[[nodiscard]] std::vector<std::size_t> positions_to_confirm(std::size_t words, std::size_t count);

// The words of space-separated text, as views into it.
[[nodiscard]] std::vector<SecretText> words_of(const SecretBytes& text);

// Whether what the operator typed is `expected`: surrounding whitespace and letter case aside,
// compared without an early exit.
[[nodiscard]] bool typed_matches(SecretText expected, const SecretBytes& typed);

// A fresh BIP39 phrase of `words` words (12, 15, 18, 21 or 24) from the system's random source.
[[nodiscard]] Result<SecretBytes> new_phrase(std::size_t words);

// The key a BIP39 phrase gives at `path` (with the BIP39 passphrase, empty for none).
[[nodiscard]] Result<SecretBytes> key_from_phrase(SecretText phrase, SecretText passphrase,
                                                  const keystone::DerivationPath& path);

// The key a SLIP-0039 master secret gives at `path`: SLIP-0010 with the master secret as the
// seed, as Trezor derives from its Shamir backups.
[[nodiscard]] Result<SecretBytes> key_from_master_secret(const SecretBytes& master_secret,
                                                         const keystone::DerivationPath& path);

// Parses "M-of-N" (a SLIP-0039 group: M of N shares recover it), naming the rule broken.
struct GroupShape {
  std::uint8_t threshold = 0;
  std::uint8_t count = 0;
};
[[nodiscard]] Result<GroupShape> parse_group(std::string_view text);

}  // namespace airlock::offline::custody
