// Decoders for the native and SPL programs, written from their instruction layouts.
#pragma once

#include <optional>

#include <airlock/offline/decode.h>

namespace airlock::offline::builtin {

// std::nullopt when `program` is not a built-in one; otherwise the decoding or its error.
std::optional<Result<Decoded>> decode(const PublicKey& program, ByteView data,
                                      std::size_t account_count);

}  // namespace airlock::offline::builtin
