#include <nettle/sha2.h>

#include <airlock/common/hash.h>

namespace airlock {

static_assert(SHA256_DIGEST_SIZE == Hash::kSize);

Hash sha256(ByteView data) {
  sha256_ctx context{};
  sha256_init(&context);
  sha256_update(&context, data.size(), data.data());
  Hash out;
  sha256_digest(&context, out.bytes.size(), out.bytes.data());
  return out;
}

}  // namespace airlock
