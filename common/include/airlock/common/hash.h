// SHA-256 of public data: message fingerprints people compare across screens, and the
// program-derived addresses the review computes many times per request. Nettle computes it (with
// the CPU's SHA instructions where it has them, several times libsodium's portable code); secret
// material is hashed by libsodium, which wipes its state (offline/src/derivation.cpp).
#pragma once

#include <airlock/common/bytes.h>

namespace airlock {

[[nodiscard]] Hash sha256(ByteView data);

}  // namespace airlock
