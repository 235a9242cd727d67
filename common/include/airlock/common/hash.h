// SHA-256 through libsodium: message fingerprints people compare across screens.
#pragma once

#include <airlock/common/bytes.h>

namespace airlock {

[[nodiscard]] Hash sha256(ByteView data);

}  // namespace airlock
