// Small valid messages for tests to mutate.
#pragma once

#include <airlock/common/message.h>

namespace airlock::test {

inline PublicKey numbered_key(std::uint8_t n) {
  PublicKey key;
  for (std::size_t i = 0; i < key.bytes.size(); ++i)
    key.bytes[i] = static_cast<std::uint8_t>(n + i);
  return key;
}

// payer (writable signer), destination (writable), program (readonly); one instruction.
inline Message simple_message() {
  Message m;
  m.version = MessageVersion::kV0;
  m.header = {1, 0, 1};
  m.static_keys = {numbered_key(10), numbered_key(20), numbered_key(30)};
  m.recent_blockhash = numbered_key(99);
  m.instructions.push_back(CompiledInstruction{2, {0, 1}, {1, 2, 3}});
  return m;
}

}  // namespace airlock::test
