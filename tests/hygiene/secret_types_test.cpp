// Which types carry secrets, checked when this file compiles: every function that takes or
// gives a phrase, a share, a passphrase, a seed, a key or a key file's text does so only as
// SecretText (a view of secure memory) or SecretBytes (secure memory itself). A change that lets
// one of them take a std::string or std::string_view, which could be ordinary memory, fails to
// build here rather than leaving a copy of a secret where the allocator will not wipe it.
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <airlock/common/secret.h>
#include <airlock/hardening/lockdown.h>
#include <airlock/offline/custody.h>
#include <airlock/offline/derivation.h>
#include <airlock/offline/keystore.h>
#include <airlock/offline/slip39.h>
#include <airlock/online/api.h>

namespace airlock {
namespace {

template <class Function, class Expected>
constexpr bool has_signature = std::is_same_v<Function, Expected>;

// SecretText comes only from secure memory: not from text in ordinary memory, nor from a
// SecretBytes about to be freed.
static_assert(!std::is_constructible_v<SecretText, std::string_view>);
static_assert(!std::is_constructible_v<SecretText, const std::string&>);
static_assert(!std::is_constructible_v<SecretText, const char*>);
static_assert(!std::is_constructible_v<SecretText, SecretBytes&&>);
static_assert(std::is_constructible_v<SecretText, const SecretBytes&>);
// A secret never silently multiplies.
static_assert(!std::is_copy_constructible_v<SecretBytes>);
static_assert(!std::is_copy_assignable_v<SecretBytes>);

// BIP39 and SLIP-0010.
static_assert(has_signature<decltype(&offline::mnemonic_to_seed),
                            Result<SecretBytes> (*)(SecretText, SecretText)>);
static_assert(
    has_signature<decltype(&offline::mnemonic_entropy), Result<SecretBytes> (*)(SecretText)>);
static_assert(has_signature<decltype(&offline::mnemonic_from_entropy),
                            Result<SecretBytes> (*)(const SecretBytes&)>);
static_assert(
    has_signature<decltype(&offline::words_of_text), std::vector<SecretText> (*)(SecretText)>);
static_assert(
    has_signature<decltype(&offline::derive_ed25519),
                  Result<SecretBytes> (*)(const SecretBytes&, const keystone::DerivationPath&)>);
static_assert(has_signature<decltype(&offline::seed_from_solana_keypair_json),
                            Result<SecretBytes> (*)(SecretText)>);

// Custody: new phrases, typed words, keys from phrases and master secrets.
static_assert(
    has_signature<decltype(&offline::custody::new_phrase), Result<SecretBytes> (*)(std::size_t)>);
static_assert(has_signature<decltype(&offline::custody::words_of),
                            std::vector<SecretText> (*)(const SecretBytes&)>);
static_assert(has_signature<decltype(&offline::custody::typed_matches),
                            bool (*)(SecretText, const SecretBytes&)>);
static_assert(has_signature<decltype(&offline::custody::key_from_phrase),
                            Result<SecretBytes> (*)(SecretText, SecretText,
                                                    const keystone::DerivationPath&)>);
static_assert(
    has_signature<decltype(&offline::custody::key_from_master_secret),
                  Result<SecretBytes> (*)(const SecretBytes&, const keystone::DerivationPath&)>);

// SLIP-0039.
static_assert(
    has_signature<decltype(&offline::slip39::split),
                  Result<std::vector<std::vector<SecretBytes>>> (*)(
                      const SecretBytes&, SecretText, const offline::slip39::SplitOptions&,
                      const offline::slip39::RandomFill&)>);
static_assert(has_signature<decltype(&offline::slip39::combine),
                            Result<SecretBytes> (*)(const std::vector<SecretText>&, SecretText)>);
static_assert(has_signature<decltype(&offline::slip39::inspect),
                            Result<offline::slip39::ShareInfo> (*)(SecretText)>);
static_assert(has_signature<decltype(&offline::slip39::is_word), bool (*)(SecretText)>);
static_assert(has_signature<decltype(&offline::slip39::words_with_prefix),
                            std::vector<std::string_view> (*)(SecretText)>);
// Copied into secure memory from where a secret arrives in ordinary memory (the environment).
static_assert(has_signature<decltype(static_cast<Result<SecretBytes> (*)(std::string_view)>(
                                &SecretBytes::copy_of)),
                            Result<SecretBytes> (*)(std::string_view)>);

// The keystore: seeds and passphrases in secure memory.
// Opening one takes the proof that the process is under the syscall allowlist, which only
// install_syscall_allowlist() makes (hardening/locked_down.h).
static_assert(has_signature<decltype(&offline::open_keystore_seed),
                            Result<SecretBytes> (*)(const std::string&, const SecretBytes&,
                                                    const hardening::LockedDown&)>);
static_assert(has_signature<decltype(&offline::open_keystore),
                            Result<Keypair> (*)(const std::string&, const SecretBytes&,
                                                const hardening::LockedDown&)>);
static_assert(has_signature<decltype(&hardening::install_syscall_allowlist),
                            Result<hardening::LockedDown> (*)()>);
static_assert(!std::is_default_constructible_v<hardening::LockedDown> &&
                  !std::is_copy_constructible_v<hardening::LockedDown>,
              "only install_syscall_allowlist() makes the token, and it is not copied");
static_assert(has_signature<decltype(&offline::generate_seed), Result<SecretBytes> (*)()>);

// Files and the API key.
static_assert(has_signature<decltype(&read_secret_file),
                            Result<SecretBytes> (*)(const std::string&, std::size_t)>);
static_assert(
    has_signature<decltype(&online::ApiKey::parse), Result<online::ApiKey> (*)(SecretText)>);
static_assert(has_signature<decltype(&online::ApiKey::header),
                            Result<SecretBytes> (online::ApiKey::*)() const>);

// The view it gives is of the secure bytes themselves, not a copy.
TEST(SecretTypes, ATextViewsTheSecureBytesItWasMadeFrom) {
  auto bytes = SecretBytes::allocate(5);
  ASSERT_TRUE(bytes.ok());
  const SecretText text(*bytes);
  EXPECT_EQ(static_cast<const void*>(text.view().data()),
            static_cast<const void*>(bytes->bytes().data()));
  EXPECT_EQ(text.substr(1, 3).view().data(), text.view().data() + 1);
  EXPECT_EQ(text.substr(1, 3).size(), 3U);
  EXPECT_TRUE(text.substr(9).empty()) << "past the end is empty, not undefined";
  EXPECT_TRUE(SecretText().empty());
  // Found by the slip39 fuzz target: an empty passphrase viewed null, and memcpy(dst, null, 0)
  // is undefined. No empty text views null.
  EXPECT_NE(SecretText().view().data(), nullptr);
  EXPECT_NE(text.substr(9).view().data(), nullptr);
  auto none = SecretBytes::allocate(0);
  ASSERT_TRUE(none.ok());
  EXPECT_NE(SecretText(*none).view().data(), nullptr);
}

}  // namespace
}  // namespace airlock
