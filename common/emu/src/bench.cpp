// scanlab_emu_bench: what a fiber switch costs on this machine, and how long a 1,048,576-element
// block-by-block Kogge-Stone scan (1024 threads per block, or THREADS) takes on the emulator, for orientation.
#include <cstdio>
#include <cstdlib>

#include "scanlab/emu/runtime.hpp"
#include "scanlab/stats.hpp"

extern "C" double scanlab_emu_bench_kogge_stone(unsigned n, unsigned threads);

namespace {

/// A whole number from 1 to 2^31 - 1 made of digits only, else 0 ("-5" or "1e6" are not sizes).
unsigned positive(const char* text) {
  char* end = nullptr;
  const unsigned long v = std::strtoul(text, &end, 10);
  const bool digits = text[0] >= '0' && text[0] <= '9' && *end == '\0';
  return digits && v <= 0x7fffffffUL ? static_cast<unsigned>(v) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace scanlab::emu;
  const unsigned n = argc > 1 ? positive(argv[1]) : 1u << 20;
  const unsigned threads = argc > 2 ? positive(argv[2]) : 1024;
  if (argc > 3 || n == 0 || threads == 0 || threads > 1024 || (threads & (threads - 1)) != 0) {
    std::fprintf(stderr, "usage: scanlab_emu_bench [N [THREADS]]: N > 0 elements, THREADS a power of two up to 1024\n");
    return 2;
  }
  measure_switch_ns(100000);  // warm up
  double best = 1e9;
  for (int i = 0; i < 5; ++i) {
    const double ns = measure_switch_ns(2000000);
    best = ns < best ? ns : best;
  }
  std::printf("fiber switch (resume + return, pooled stack): %.1f ns (best of 5 x 2,000,000)\n", best);
  scanlab_emu_bench_kogge_stone(1u << 14, 1024);  // warm up: allocates the stacks
  take_stats();
  for (unsigned workers : {1u, 2u}) {
    settings().workers = workers;
    const double seconds = scanlab_emu_bench_kogge_stone(n, threads);
    if (seconds < 0) {
      std::printf("kogge-stone: WRONG RESULT\n");
      return 1;
    }
    const auto stats = take_stats();
    const double elements = static_cast<double>(n);
    const double syncs = static_cast<double>(stats.empty() ? 0 : stats.back().barrier_intervals - stats.back().grid_blocks) * threads;
    std::printf("kogge-stone scan, %u elements, %u threads per block, %u worker%s: %.3f s "
                "(%.0f ns per thread, %.1f ns per thread-barrier, %llu ops)\n",
                n, threads, workers, workers == 1 ? "" : "s", seconds, seconds * 1e9 / elements,
                syncs > 0 ? seconds * 1e9 / syncs : 0.0,
                static_cast<unsigned long long>(stats.empty() ? 0 : stats.back().ops));
  }
  return 0;
}
