// One libFuzzer executable per target; AIRLOCK_FUZZ_TARGET names the entry point.
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return airlock::fuzz::AIRLOCK_FUZZ_TARGET(data, size);
}
