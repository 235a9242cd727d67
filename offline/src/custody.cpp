#include <algorithm>
#include <cctype>
#include <charconv>

#include <sodium.h>

#include <airlock/offline/custody.h>
#include <airlock/offline/derivation.h>

namespace airlock::offline::custody {

std::vector<std::size_t> positions_to_confirm(std::size_t words, std::size_t count) {
  std::vector<std::size_t> picked;
  count = std::min(count, words);
  while (picked.size() < count) {
    const std::size_t p = 1 + randombytes_uniform(static_cast<std::uint32_t>(words));
    if (std::find(picked.begin(), picked.end(), p) == picked.end()) picked.push_back(p);
  }
  std::sort(picked.begin(), picked.end());
  return picked;
}

std::vector<SecretText> words_of(const SecretBytes& text) { return words_of_text(text); }

bool typed_matches(SecretText expected_word, const SecretBytes& typed) {
  const auto words = words_of(typed);
  const std::string_view got = words.size() == 1 ? words[0].view() : std::string_view();
  const std::string_view expected = expected_word.view();
  // Every letter is looked at whatever differs first; only the lengths show early.
  unsigned diff = got.size() == expected.size() ? 0U : 1U;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const char g = i < got.size() ? got[i] : '\0';
    diff |= static_cast<unsigned>(std::tolower(static_cast<unsigned char>(g)) ^
                                  std::tolower(static_cast<unsigned char>(expected[i])));
  }
  return diff == 0;
}

Result<SecretBytes> new_phrase(std::size_t words) {
  if (words < 12 || words > 24 || words % 3 != 0)
    return Error(ErrorCode::kUsage, "--words: must be 12, 15, 18, 21 or 24");
  AIRLOCK_TRY(entropy, SecretBytes::allocate(words * 4 / 3));
  randombytes_buf(entropy.bytes().data(), entropy.size());
  return mnemonic_from_entropy(entropy);
}

Result<SecretBytes> key_from_phrase(SecretText phrase, SecretText passphrase,
                                    const keystone::DerivationPath& path) {
  AIRLOCK_TRY(seed, mnemonic_to_seed(phrase, passphrase));
  return derive_ed25519(seed, path);
}

Result<SecretBytes> key_from_master_secret(const SecretBytes& master_secret,
                                           const keystone::DerivationPath& path) {
  return derive_ed25519(master_secret, path);
}

Result<GroupShape> parse_group(std::string_view text) {
  const auto bad = [&] {
    return Error(ErrorCode::kUsage, "--group '" + std::string(text) +
                                        "': must be M-of-N with 1 <= M <= N <= 16 (and N = 1 when "
                                        "M = 1)");
  };
  const std::size_t of = text.find("-of-");
  if (of == std::string_view::npos) return bad();
  unsigned m = 0, n = 0;
  const std::string_view a = text.substr(0, of), b = text.substr(of + 4);
  if (std::from_chars(a.data(), a.data() + a.size(), m).ptr != a.data() + a.size() || a.empty() ||
      std::from_chars(b.data(), b.data() + b.size(), n).ptr != b.data() + b.size() || b.empty())
    return bad();
  if (m < 1 || n > 16 || m > n || (m == 1 && n != 1)) return bad();
  return GroupShape{static_cast<std::uint8_t>(m), static_cast<std::uint8_t>(n)};
}

}  // namespace airlock::offline::custody
