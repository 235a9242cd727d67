// SLIP-0039 against the reference implementation's vectors (../shared/vectors/slip39-vectors.json,
// made by python-shamir-mnemonic), then round trips through split and combine for many shapes,
// and the rules combine must enforce. The vectors' fourth field (a BIP32 xprv of the secret) is
// not checked: BIP32 is not part of this module.
#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <airlock/common/bytes.h>
#include <airlock/common/hash.h>
#include <airlock/offline/derivation.h>
#include <airlock/offline/slip39.h>

#include "../../offline/src/slip39_words.h"
#include "support/helpers.h"
#include "support/vectors.h"

using ::testing::HasSubstr;
using ::testing::Not;

namespace airlock::offline::slip39 {
namespace {

// Vectors and test inputs as secrets, for the functions that take only SecretText.
test::SecretArena as_secret;

std::string_view text_of(const SecretBytes& s) {
  return {reinterpret_cast<const char*>(s.bytes().data()), s.size()};
}

SecretBytes secret_from(const Bytes& bytes) { return SecretBytes::copy_of(bytes).value(); }

// A fixed stream per seed, so failures reproduce.
RandomFill fixed_random(std::uint32_t seed) {
  auto rng = std::make_shared<std::mt19937>(seed);
  return [rng](std::span<std::uint8_t> out) {
    for (auto& b : out) b = static_cast<std::uint8_t>((*rng)());
  };
}

std::vector<std::string> words_of(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// An error must not repeat the shares it is about. A few list words are also plain English our
// messages use; any other list word, or any two words of a share in a row, would be a leak.
void expect_no_words_in(const Error& error, const std::vector<std::string_view>& mnemonics) {
  static const std::set<std::string> kOurs = {"group", "member", "twice", "order", "verify"};
  const std::vector<std::string> message = words_of(error.message());
  for (const auto mnemonic : mnemonics) {
    const auto words = words_of(mnemonic);
    for (std::size_t i = 0; i < words.size(); ++i) {
      std::string w = words[i];
      std::transform(w.begin(), w.end(), w.begin(), ::tolower);
      if (kOurs.count(w) == 0) {
        for (const auto& m : message) EXPECT_THAT(m, Not(HasSubstr(w))) << error.message();
      }
      if (i + 1 < words.size()) {
        EXPECT_THAT(error.message(), Not(HasSubstr(words[i] + " " + words[i + 1])));
      }
    }
  }
}

TEST(Slip39, EveryReferenceVectorCombinesOrFailsAsTheReferenceDoes) {
  const nlohmann::json vectors = test::load_vectors("slip39-vectors.json");
  ASSERT_TRUE(vectors.is_array());
  std::size_t valid = 0, invalid = 0;
  for (const auto& v : vectors) {
    const std::string name = v.at(0).get<std::string>();
    std::vector<std::string> texts = v.at(1).get<std::vector<std::string>>();
    const std::vector<std::string_view> mnemonics(texts.begin(), texts.end());
    const std::string expected = v.at(2).get<std::string>();
    auto result = combine(as_secret(mnemonics), as_secret("TREZOR"));
    if (expected.empty()) {
      ASSERT_FALSE(result.ok()) << name;
      EXPECT_EQ(result.error().code(), offline::errors::kBackupInvalid) << name;
      expect_no_words_in(result.error(), mnemonics);
      ++invalid;
    } else {
      ASSERT_TRUE(result.ok()) << name << ": " << result.error().to_string();
      EXPECT_EQ(to_hex(result->bytes()), expected) << name;
      for (const auto m : mnemonics) EXPECT_TRUE(inspect(as_secret(m)).ok()) << name;
      ++valid;
    }
  }
  EXPECT_EQ(vectors.size(), 45U);
  EXPECT_EQ(valid + invalid, vectors.size());
  std::cout << "[ slip39   ] reference vectors: " << valid << " valid combined, " << invalid
            << " invalid refused\n";
}

// A few vectors' failures must come from the rule the vector is about, not from an earlier one.
TEST(Slip39, ReferenceFailuresNameTheirRule) {
  const nlohmann::json vectors = test::load_vectors("slip39-vectors.json");
  const std::vector<std::pair<std::string, std::string>> rules = {
      {"2. Mnemonic with invalid checksum (128 bits)", "share 1: checksum does not verify"},
      {"3. Mnemonic with invalid padding (128 bits)", "share 1: padding bits are not zero"},
      {"6. Mnemonics with different identifiers (128 bits)", "identifiers differ"},
      {"7. Mnemonics with different iteration exponents (128 bits)", "iteration exponents differ"},
      {"8. Mnemonics with mismatching group thresholds (128 bits)", "group thresholds differ"},
      {"9. Mnemonics with mismatching group counts (128 bits)", "group counts differ"},
      {"10. Mnemonics with greater group threshold than group counts (128 bits)",
       "is greater than the group count"},
      {"11. Mnemonics with duplicate member indices (128 bits)", "twice"},
      {"12. Mnemonics with mismatching member thresholds (128 bits)", "member thresholds differ"},
      {"13. Mnemonics giving an invalid digest (128 bits)", "digest does not verify"},
      {"14. Insufficient number of groups (128 bits, case 1)", "groups needed, 1 given"},
      {"16. Threshold number of groups, but insufficient number of members in one group (128 "
       "bits)",
       "shares, 1 given"},
      {"39. Mnemonic with insufficient length", "words; a share has 20 to 59"},
      {"40. Mnemonic with invalid master secret length", "at most 8 allowed"},
  };
  for (const auto& [name, rule] : rules) {
    bool found = false;
    for (const auto& v : vectors) {
      if (v.at(0) != name) continue;
      found = true;
      std::vector<std::string> texts = v.at(1).get<std::vector<std::string>>();
      auto result = combine(as_secret(std::vector<std::string_view>(texts.begin(), texts.end())),
                            as_secret("TREZOR"));
      ASSERT_FALSE(result.ok()) << name;
      EXPECT_THAT(result.error().message(), HasSubstr(rule))
          << name << " -> " << result.error().message();
    }
    EXPECT_TRUE(found) << name;
  }
}

TEST(Slip39, WordsMayBeInAnyCaseWithAnyWhitespace) {
  const nlohmann::json vectors = test::load_vectors("slip39-vectors.json");
  const auto& v = vectors.at(0);  // valid, one share
  std::string text = v.at(1).at(0).get<std::string>();
  std::string messy = "\n\t ";
  for (const auto& w : words_of(text)) {
    std::string upper = w;
    std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
    messy += upper + " \t\r\n ";
  }
  auto result = combine({as_secret(messy)}, as_secret("TREZOR"));
  ASSERT_TRUE(result.ok()) << result.error().to_string();
  EXPECT_EQ(to_hex(result->bytes()), v.at(2).get<std::string>());
}

TEST(Slip39, InspectReadsTheFields) {
  const nlohmann::json vectors = test::load_vectors("slip39-vectors.json");
  // "17. Threshold number of groups and members in each group (128 bits, case 1)"
  const std::string text = vectors.at(16).at(1).at(0).get<std::string>();
  auto info = inspect(as_secret(text));
  ASSERT_TRUE(info.ok()) << info.error().to_string();
  EXPECT_EQ(info->words, 20U);
  EXPECT_FALSE(info->extendable);
  EXPECT_EQ(info->group_threshold, 2);
  EXPECT_GE(info->group_count, info->group_threshold);
  EXPECT_GE(info->member_threshold, 1);
  // The extendable vectors carry the flag.
  auto extendable = inspect(as_secret(vectors.at(41).at(1).at(0).get<std::string>()));
  ASSERT_TRUE(extendable.ok());
  EXPECT_TRUE(extendable->extendable);
}

TEST(Slip39, WordListIsTheSpecsOne) {
  std::string joined;
  for (auto w : kWords) joined += std::string(w) + "\n";
  EXPECT_EQ(to_hex(sha256(text_bytes(joined)).view()),
            "bcc4555340332d169718aed8bf31dd9d5248cb7da6e5d355140ef4f1e601eec3");
}

TEST(Slip39, WordLookup) {
  EXPECT_TRUE(is_word(as_secret("academic")));
  EXPECT_TRUE(is_word(as_secret("ZERO")));
  EXPECT_TRUE(is_word(as_secret("Yoga")));
  EXPECT_FALSE(is_word(as_secret("academi")));
  EXPECT_FALSE(is_word(as_secret("academics")));
  EXPECT_FALSE(is_word(as_secret("")));
  EXPECT_EQ(words_with_prefix(as_secret("acad")), std::vector<std::string_view>{"academic"});
  EXPECT_EQ(words_with_prefix(as_secret("ACADEMIC")), std::vector<std::string_view>{"academic"});
  EXPECT_EQ(words_with_prefix(as_secret("")).size(), 1024U);
  EXPECT_TRUE(words_with_prefix(as_secret("qqq")).empty());
  for (const auto w : words_with_prefix(as_secret("ac"))) EXPECT_EQ(w.substr(0, 2), "ac");
  EXPECT_GE(words_with_prefix(as_secret("ac")).size(), 3U);
  // Every four-letter prefix names one word.
  for (const auto w : words_with_prefix(as_secret("")))
    EXPECT_EQ(words_with_prefix(as_secret(w.substr(0, 4))).size(), 1U);
}

struct Shape {
  std::string name;
  std::size_t secret_bytes;
  SplitOptions options;
};

std::vector<Shape> shapes() {
  std::vector<Shape> out;
  for (const bool extendable : {false, true}) {
    for (std::uint8_t e = 0; e <= 2; ++e) {
      const std::string tag = std::string(extendable ? "ext" : "plain") + "-e" + std::to_string(e);
      out.push_back({"1of1-" + tag, 16, {1, {{1, 1}}, e, extendable}});
      out.push_back({"2of3-" + tag, 16, {1, {{2, 3}}, e, extendable}});
      out.push_back({"groups-2of3-" + tag, 16, {2, {{2, 3}, {1, 1}, {3, 5}}, e, extendable}});
      out.push_back({"256bit-groups-" + tag, 32, {2, {{2, 3}, {1, 1}, {3, 5}}, e, extendable}});
    }
  }
  out.push_back({"256bit-5of16", 32, {1, {{5, 16}}, 0, false}});
  out.push_back({"512bit-3of4-groups", 64, {3, {{1, 1}, {2, 2}, {16, 16}, {2, 3}}, 0, true}});
  out.push_back({"160bit-1of2-groups", 20, {1, {{1, 1}, {2, 2}}, 0, false}});
  return out;
}

// The shares of groups `groups`, the first or last `threshold` members of each, shuffled.
std::vector<std::string_view> pick(const std::vector<std::vector<SecretBytes>>& all,
                                   const SplitOptions& o, const std::vector<std::size_t>& groups,
                                   bool last, std::uint32_t seed) {
  std::vector<std::string_view> out;
  for (const std::size_t g : groups) {
    const std::size_t t = o.groups[g].threshold, n = o.groups[g].count;
    for (std::size_t m = 0; m < t; ++m) out.push_back(text_of(all[g][last ? n - 1 - m : m]));
  }
  std::shuffle(out.begin(), out.end(), std::mt19937(seed));
  return out;
}

std::vector<std::size_t> first_groups(const SplitOptions& o) {
  std::vector<std::size_t> g(o.group_threshold);
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = i;
  return g;
}

std::vector<std::size_t> last_groups(const SplitOptions& o) {
  std::vector<std::size_t> g(o.group_threshold);
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = o.groups.size() - 1 - i;
  return g;
}

TEST(Slip39, SplitThenCombineRoundTrips) {
  std::uint32_t seed = 1;
  for (const auto& shape : shapes()) {
    SCOPED_TRACE(shape.name);
    const auto& o = shape.options;
    const SecretBytes secret = secret_from(test::random_bytes(shape.secret_bytes, seed++));
    const std::string passphrase = "TREZOR ~ 42";
    auto shares = split(secret, as_secret(passphrase), o, fixed_random(seed++));
    ASSERT_TRUE(shares.ok()) << shares.error().to_string();
    ASSERT_EQ(shares->size(), o.groups.size());
    const std::size_t expected_words = 4 + (shape.secret_bytes * 8 + 9) / 10 + 3;
    std::set<std::uint16_t> identifiers;
    for (std::size_t g = 0; g < o.groups.size(); ++g) {
      ASSERT_EQ((*shares)[g].size(), o.groups[g].count);
      for (std::size_t m = 0; m < o.groups[g].count; ++m) {
        auto info = inspect(as_secret(text_of((*shares)[g][m])));
        ASSERT_TRUE(info.ok()) << info.error().to_string();
        EXPECT_EQ(info->words, expected_words);
        EXPECT_EQ(info->extendable, o.extendable);
        EXPECT_EQ(info->iteration_exponent, o.iteration_exponent);
        EXPECT_EQ(info->group_index, g);
        EXPECT_EQ(info->group_threshold, o.group_threshold);
        EXPECT_EQ(info->group_count, o.groups.size());
        EXPECT_EQ(info->member_index, m);
        EXPECT_EQ(info->member_threshold, o.groups[g].threshold);
        identifiers.insert(info->identifier);
        EXPECT_EQ(words_of(text_of((*shares)[g][m])).size(), expected_words);
      }
    }
    EXPECT_EQ(identifiers.size(), 1U);
    for (const bool last : {false, true}) {
      for (const auto& groups : {first_groups(o), last_groups(o)}) {
        const auto subset = pick(*shares, o, groups, last, seed++);
        auto back = combine(as_secret(subset), as_secret(passphrase));
        ASSERT_TRUE(back.ok()) << back.error().to_string();
        EXPECT_EQ(to_hex(back->bytes()), to_hex(secret.bytes()));
      }
    }
    // Another passphrase gives another secret, without an error (there is nothing to check it by).
    auto other = combine(as_secret(pick(*shares, o, first_groups(o), false, seed++)),
                         as_secret("TREZOR ~ 43"));
    ASSERT_TRUE(other.ok());
    EXPECT_NE(to_hex(other->bytes()), to_hex(secret.bytes()));
  }
}

TEST(Slip39, CombineRefusesWhatIsNotExactlyEnough) {
  const SecretBytes secret = secret_from(test::random_bytes(16, 7));
  const SplitOptions o{2, {{2, 3}, {1, 1}, {3, 5}}, 0, false};
  auto shares = split(secret, as_secret(""), o, fixed_random(8));
  ASSERT_TRUE(shares.ok());
  const auto& s = *shares;
  const auto fails_with = [](const std::vector<std::string_view>& set, const std::string& rule) {
    auto r = combine(as_secret(set), as_secret(""));
    ASSERT_FALSE(r.ok()) << rule;
    EXPECT_THAT(r.error().message(), HasSubstr(rule));
    expect_no_words_in(r.error(), set);
  };
  // Enough: group 1 (2 of 3) and group 2 (1 of 1).
  ASSERT_TRUE(
      combine(as_secret({text_of(s[0][0]), text_of(s[0][2]), text_of(s[1][0])}), as_secret(""))
          .ok());
  fails_with({text_of(s[0][0]), text_of(s[1][0])}, "shares: group 1 needs 2 shares, 1 given");
  fails_with({text_of(s[0][0]), text_of(s[0][1])}, "shares: 2 groups needed, 1 given");
  fails_with({text_of(s[2][0]), text_of(s[2][1]), text_of(s[1][0])},
             "shares: group 3 needs 3 shares, 2 given");
  fails_with({text_of(s[0][0]), text_of(s[0][1]), text_of(s[0][2]), text_of(s[1][0])},
             "group 1 needs 2 shares, 3 given (give exactly the threshold)");
  fails_with({text_of(s[0][0]), text_of(s[0][1]), text_of(s[1][0]), text_of(s[2][0]),
              text_of(s[2][1]), text_of(s[2][2])},
             "2 groups needed, 3 given");
  fails_with({text_of(s[0][1]), text_of(s[0][1]), text_of(s[1][0])},
             "shares: group 1 has member 2 twice (share 1 and share 2)");
  fails_with({}, "shares: none given");

  // A share of another split of the same secret.
  auto again = split(secret, as_secret(""), o, fixed_random(9));
  ASSERT_TRUE(again.ok());
  fails_with({text_of(s[0][0]), text_of((*again)[0][1]), text_of(s[1][0])},
             "identifiers differ (share 1 and share 2)");
  // Another split with the same identifier (the same random stream start) but other shares: the
  // digest catches it.
  auto twin = split(secret, as_secret(""), o,
                    [first = true, rng = std::mt19937(8),
                     alt = std::mt19937(99)](std::span<std::uint8_t> out) mutable {
                      for (auto& b : out) b = static_cast<std::uint8_t>(first ? rng() : alt());
                      first = false;
                    });
  ASSERT_TRUE(twin.ok());
  ASSERT_EQ(inspect(as_secret(text_of((*twin)[0][0])))->identifier,
            inspect(as_secret(text_of(s[0][0])))->identifier);
  fails_with({text_of(s[0][0]), text_of((*twin)[0][1]), text_of(s[1][0])},
             "shares: group 1 digest does not verify");

  // One word changed: the checksum catches it.
  auto words = words_of(text_of(s[0][1]));
  words[7] = words[7] == "academic" ? "acid" : "academic";
  std::string altered;
  for (const auto& w : words) altered += w + " ";
  fails_with({text_of(s[0][0]), altered, text_of(s[1][0])}, "share 2: checksum does not verify");
  // A word that is not in the list.
  words[7] = "bitcoin";
  altered.clear();
  for (const auto& w : words) altered += w + " ";
  fails_with({altered}, "share 1: word 8 is not in the SLIP-0039 word list");
  // Words dropped.
  fails_with({std::string_view(text_of(s[1][0])).substr(0, 40)}, "share 1: has ");
}

// Shares typed one at a time: enough once the group threshold of groups has its members, each
// checked against the first as it comes, and exactly the threshold handed to combine.
TEST(Slip39, AShareSetKnowsWhenItIsEnoughAndHandsCombineExactlyTheThreshold) {
  const SecretBytes secret = secret_from(test::random_bytes(16, 31));
  const SplitOptions o{2, {{2, 3}, {1, 1}, {3, 5}}, 0, false};
  auto shares = split(secret, as_secret(""), o, fixed_random(32));
  ASSERT_TRUE(shares.ok());
  const auto& s = *shares;
  const auto add = [](ShareSet& set, const SecretBytes& share) {
    auto info = inspect(SecretText(share));
    EXPECT_TRUE(info.ok());
    return set.add(SecretBytes::copy_of(share.bytes()).value(), *info);
  };
  ShareSet set;
  EXPECT_FALSE(set.enough());
  ASSERT_TRUE(add(set, s[2][4]).ok());  // group 3 (3 of 5): one given
  ASSERT_TRUE(add(set, s[0][1]).ok());  // group 1 (2 of 3): one given
  EXPECT_FALSE(set.enough());
  // While no group is complete, every share goes to combine, which names what is missing.
  EXPECT_EQ(set.chosen().size(), 2U);
  auto short_of = combine(set.chosen(), as_secret(""));
  ASSERT_FALSE(short_of.ok());
  EXPECT_THAT(short_of.error().message(), HasSubstr("needs"));
  ASSERT_TRUE(add(set, s[0][0]).ok());  // group 1 complete: one group of the two needed
  EXPECT_FALSE(set.enough());
  ASSERT_TRUE(add(set, s[2][0]).ok());
  ASSERT_TRUE(add(set, s[0][2]).ok());  // group 1 over its threshold: not handed on
  EXPECT_FALSE(set.enough());
  ASSERT_TRUE(add(set, s[1][0]).ok());  // group 2 (1 of 1) complete: enough
  EXPECT_TRUE(set.enough());
  EXPECT_EQ(set.size(), 6U);
  // Group 1's first two members given and group 2's one: group 3, incomplete, is left out.
  const auto chosen = set.chosen();
  ASSERT_EQ(chosen.size(), 3U);
  auto recovered = combine(chosen, as_secret(""));
  ASSERT_TRUE(recovered.ok()) << recovered.error().to_string();
  EXPECT_EQ(recovered->bytes().size(), secret.bytes().size());
  EXPECT_TRUE(
      std::equal(recovered->bytes().begin(), recovered->bytes().end(), secret.bytes().begin()));
}

TEST(Slip39, AShareSetRefusesAShareOfAnotherSetARepeatedMemberAndAnotherThreshold) {
  const SecretBytes secret = secret_from(test::random_bytes(16, 33));
  const SplitOptions o{1, {{2, 3}}, 0, false};
  auto shares = split(secret, as_secret(""), o, fixed_random(34));
  auto other = split(secret, as_secret(""), o, fixed_random(35));
  auto wider = split(secret, as_secret(""), SplitOptions{1, {{3, 3}}, 0, false},
                     fixed_random(34));  // the same identifier, another member threshold
  ASSERT_TRUE(shares.ok() && other.ok() && wider.ok());
  const auto info_of = [](const SecretBytes& share) { return *inspect(SecretText(share)); };
  const auto copy = [](const SecretBytes& share) {
    return SecretBytes::copy_of(share.bytes()).value();
  };
  ShareSet set;
  ASSERT_TRUE(set.add(copy((*shares)[0][0]), info_of((*shares)[0][0])).ok());
  const auto refused = [&](const SecretBytes& share, const std::string& rule) {
    const Status s = set.add(copy(share), info_of(share));
    ASSERT_FALSE(s.ok()) << rule;
    EXPECT_EQ(s.error().code(), offline::errors::kBackupInvalid);
    EXPECT_THAT(s.error().message(), HasSubstr(rule));
    expect_no_words_in(s.error(), {text_of(share), text_of((*shares)[0][0])});
  };
  refused((*other)[0][1], "share 2: not from the same set as share 1");
  refused((*shares)[0][0], "share 2: repeats group 1 member 1");
  ASSERT_EQ(info_of((*wider)[0][1]).identifier, info_of((*shares)[0][0]).identifier);
  refused((*wider)[0][1], "share 2: its group's member threshold differs");
  EXPECT_EQ(set.size(), 1U) << "a refused share is not kept";
  EXPECT_FALSE(set.enough());
  ASSERT_TRUE(set.add(copy((*shares)[0][2]), info_of((*shares)[0][2])).ok());
  EXPECT_TRUE(set.enough());
}

// Extendable sets leave the identifier out of the encryption, so two splits of one secret
// decrypt alike under any passphrase; non-extendable ones do not.
TEST(Slip39, ExtendableSetsAgreeUnderEveryPassphrase) {
  const SecretBytes secret = secret_from(test::random_bytes(32, 11));
  for (const bool extendable : {true, false}) {
    const SplitOptions o{1, {{1, 1}}, 0, extendable};
    auto a = split(secret, as_secret("right"), o, fixed_random(12));
    auto b = split(secret, as_secret("right"), o, fixed_random(13));
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_NE(inspect(as_secret(text_of((*a)[0][0])))->identifier,
              inspect(as_secret(text_of((*b)[0][0])))->identifier);
    auto wrong_a = combine({as_secret(text_of((*a)[0][0]))}, as_secret("wrong"));
    auto wrong_b = combine({as_secret(text_of((*b)[0][0]))}, as_secret("wrong"));
    ASSERT_TRUE(wrong_a.ok() && wrong_b.ok());
    EXPECT_EQ(to_hex(wrong_a->bytes()) == to_hex(wrong_b->bytes()), extendable);
  }
}

TEST(Slip39, SplitRefusesOptionsOutsideTheSpec) {
  const auto refuses = [](std::size_t bytes, const SplitOptions& o, std::string_view passphrase,
                          const std::string& rule) {
    const SecretBytes secret = secret_from(test::random_bytes(bytes, 3));
    auto r = split(secret, as_secret(passphrase), o, fixed_random(4));
    ASSERT_FALSE(r.ok()) << rule;
    EXPECT_THAT(r.error().message(), HasSubstr(rule));
  };
  const SplitOptions fine{};
  refuses(14, fine, "", "master secret: must be 16 to 64 bytes");
  refuses(17, fine, "", "master secret: must be 16 to 64 bytes");
  refuses(66, fine, "", "master secret: must be 16 to 64 bytes");
  refuses(16, fine, "caf\xc3\xa9", "passphrase: SLIP-0039 allows printable ASCII only");
  refuses(16, fine, "tab\there", "passphrase: SLIP-0039 allows printable ASCII only");
  refuses(16, {1, {{1, 1}}, 16, true}, "", "iteration_exponent: must be 0 to 15");
  refuses(16, {0, {{1, 1}}, 0, true}, "", "group_threshold: must be 1 to the number of groups");
  refuses(16, {3, {{1, 1}, {1, 1}}, 0, true}, "", "group_threshold: must be 1 to the number");
  refuses(16, {1, {}, 0, true}, "", "groups: must be 1 to 16");
  refuses(16, {1, std::vector<GroupSpec>(17, {1, 1}), 0, true}, "", "groups: must be 1 to 16");
  refuses(16, {1, {{1, 2}}, 0, true}, "", "groups[0]: a member threshold of 1 needs");
  refuses(16, {1, {{1, 1}, {3, 2}}, 0, true}, "", "groups[1]: member threshold must be 1 to");
  refuses(16, {1, {{0, 1}}, 0, true}, "", "groups[0]: member threshold must be 1 to");
  refuses(16, {1, {{2, 17}}, 0, true}, "", "groups[0]: member count must be 1 to 16");

  const nlohmann::json vectors = test::load_vectors("slip39-vectors.json");
  const std::string share = vectors.at(0).at(1).at(0).get<std::string>();
  auto r = combine({as_secret(share)}, as_secret("TREZOR\x01"));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message(), HasSubstr("passphrase:"));
}

// The spec's largest shapes: 16 groups of 16 members.
TEST(Slip39, SixteenGroupsOfSixteen) {
  const SecretBytes secret = secret_from(test::random_bytes(16, 21));
  const SplitOptions o{16, std::vector<GroupSpec>(16, {16, 16}), 0, true};
  auto shares = split(secret, as_secret(""), o, fixed_random(22));
  ASSERT_TRUE(shares.ok()) << shares.error().to_string();
  std::vector<std::string_view> all;
  for (const auto& g : *shares)
    for (const auto& m : g) all.push_back(text_of(m));
  ASSERT_EQ(all.size(), 256U);
  std::shuffle(all.begin(), all.end(), std::mt19937(23));
  auto back = combine(as_secret(all), as_secret(""));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(to_hex(back->bytes()), to_hex(secret.bytes()));
}

}  // namespace
}  // namespace airlock::offline::slip39
