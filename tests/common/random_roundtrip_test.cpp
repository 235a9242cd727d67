// Random valid messages survive serialize -> parse unchanged, and random corruptions of valid
// bytes are either rejected or re-serialize to exactly the corrupted input (canonical parsing:
// no two byte strings parse to the same message).
#include <random>
#include <set>

#include <gtest/gtest.h>

#include <airlock/common/transaction.h>

namespace airlock {
namespace {

class MessageGenerator {
 public:
  explicit MessageGenerator(std::uint32_t seed) : rng_(seed) {}

  // A random valid message whose unsigned transaction fits one packet.
  Message next() {
    for (;;) {
      Message m = candidate();
      if (serialize_transaction(unsigned_transaction(m)).size() <= kMaxTransactionBytes) return m;
    }
  }

  std::size_t pick(std::size_t n) { return n == 0 ? 0 : rng_() % n; }
  std::uint8_t byte() { return static_cast<std::uint8_t>(rng_()); }

 private:
  Message candidate() {
    Message m;
    m.version = pick(4) == 0 ? MessageVersion::kLegacy : MessageVersion::kV0;
    const std::size_t keys = 1 + pick(12);
    std::set<PublicKey> used;
    while (m.static_keys.size() < keys) {
      PublicKey key = random_key();
      if (used.insert(key).second) m.static_keys.push_back(key);
    }
    m.header.num_required_signatures = static_cast<std::uint8_t>(1 + pick(keys));
    m.header.num_readonly_signed =
        static_cast<std::uint8_t>(pick(m.header.num_required_signatures));
    m.header.num_readonly_unsigned =
        static_cast<std::uint8_t>(pick(keys - m.header.num_required_signatures + 1));
    m.recent_blockhash = random_key();
    if (m.version == MessageVersion::kV0) {
      const std::size_t lookups = pick(3);
      for (std::size_t i = 0; i < lookups; ++i) {
        AddressTableLookup lookup{random_key(), {}, {}};
        const std::size_t w = pick(6), r = pick(6);
        for (std::size_t j = 0; j < w; ++j) lookup.writable_indexes.push_back(byte());
        for (std::size_t j = 0; j < r; ++j) lookup.readonly_indexes.push_back(byte());
        if (w + r == 0) lookup.readonly_indexes.push_back(byte());
        m.lookups.push_back(lookup);
      }
    }
    const std::size_t total = m.account_count();
    const std::size_t instructions = keys > 1 ? pick(5) : 0;
    for (std::size_t i = 0; i < instructions; ++i) {
      CompiledInstruction ix;
      ix.program_index = static_cast<std::uint8_t>(1 + pick(keys - 1));
      const std::size_t accounts = pick(8);
      for (std::size_t j = 0; j < accounts; ++j)
        ix.accounts.push_back(static_cast<std::uint8_t>(pick(total)));
      const std::size_t data =
          pick(4) == 0 ? 130 + pick(60) : pick(40);  // some need 2-byte lengths
      for (std::size_t j = 0; j < data; ++j) ix.data.push_back(byte());
      m.instructions.push_back(ix);
    }
    return m;
  }

  PublicKey random_key() {
    PublicKey key;
    for (auto& b : key.bytes) b = byte();
    return key;
  }
  std::mt19937 rng_;
};

TEST(RandomMessages, RoundTripThroughTheWireFormat) {
  MessageGenerator gen(20261121);
  for (int i = 0; i < 3000; ++i) {
    const Message m = gen.next();
    ASSERT_TRUE(sanitize_message(m).ok()) << "generator made an invalid message at " << i << ": "
                                          << sanitize_message(m).error().to_string();
    const Bytes wire = serialize_message(m);
    auto parsed = parse_message(wire);
    ASSERT_TRUE(parsed.ok()) << i << ": " << parsed.error().to_string();
    ASSERT_EQ(*parsed, m) << i;
    ASSERT_EQ(serialize_message(*parsed), wire) << i;

    Transaction tx = unsigned_transaction(m);
    for (auto& sig : tx.signatures) {
      for (auto& b : sig.bytes) b = gen.byte();
    }
    const Bytes tx_wire = serialize_transaction(tx);
    auto parsed_tx = parse_transaction(tx_wire);
    ASSERT_TRUE(parsed_tx.ok()) << i << ": " << parsed_tx.error().to_string();
    ASSERT_EQ(*parsed_tx, tx);
  }
}

TEST(RandomMessages, CorruptionsAreRejectedOrCanonical) {
  MessageGenerator gen(7);
  int rejected = 0, accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    Bytes wire = serialize_transaction(unsigned_transaction(gen.next()));
    const std::size_t edits = 1 + gen.pick(3);
    for (std::size_t e = 0; e < edits; ++e) {
      switch (gen.pick(3)) {
        case 0:
          wire[gen.pick(wire.size())] = gen.byte();
          break;
        case 1:
          wire.insert(wire.begin() + static_cast<std::ptrdiff_t>(gen.pick(wire.size() + 1)),
                      gen.byte());
          break;
        default:
          if (wire.size() > 1)
            wire.erase(wire.begin() + static_cast<std::ptrdiff_t>(gen.pick(wire.size())));
          break;
      }
    }
    auto parsed = parse_transaction(wire);
    if (parsed.ok()) {
      ++accepted;
      ASSERT_EQ(serialize_transaction(*parsed), wire)
          << "two encodings of one transaction at " << i;
    } else {
      ++rejected;
      ASSERT_FALSE(parsed.error().message().empty());
    }
  }
  // Both outcomes must actually occur for this test to say anything.
  EXPECT_GT(rejected, 100);
  EXPECT_GT(accepted, 100);
}

}  // namespace
}  // namespace airlock
