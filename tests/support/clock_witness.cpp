// A small program for the tests that run ours under libfaketime: threads allocating blocks of
// many sizes while reading the wall clock, the pattern in which a sanitized process and the
// clock library can lock each other up (AddressSanitizer's allocator reads the clock when it
// maps fresh memory; libfaketime allocates while it sets itself up or rereads its settings).
// Prints the wall clock it saw, in unix seconds, so a test also sees the offset applied.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <thread>
#include <vector>

int main() {
  constexpr int kThreads = 4;
  constexpr int kRounds = 20000;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      std::minstd_rand next(static_cast<unsigned>(t) + 1);
      std::uniform_int_distribution<std::size_t> size(1, 70000);
      for (int i = 0; i < kRounds; ++i) {
        void* block = std::malloc(size(next));
        timespec now{};
        clock_gettime(CLOCK_REALTIME, &now);
        std::free(block);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::printf("%lld\n", static_cast<long long>(std::time(nullptr)));
  return 0;
}
