#include <sodium.h>

#include <airlock/common/hash.h>

namespace airlock {

static_assert(crypto_hash_sha256_BYTES == Hash::kSize);

Hash sha256(ByteView data) {
  Hash out;
  crypto_hash_sha256(out.bytes.data(), data.data(), data.size());
  return out;
}

}  // namespace airlock
