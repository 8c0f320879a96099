// scanlab_emu_bench: what a fiber switch costs on this machine, and how long a 1,048,576-element
// block-by-block Kogge-Stone scan (1024 threads per block, or THREADS) takes on the emulator, for orientation.
#include <cstdio>
#include <iostream>
#include <string>

#include "scanlab/cli.hpp"
#include "scanlab/emu/runtime.hpp"
#include "scanlab/stats.hpp"

extern "C" double scanlab_emu_bench_kogge_stone(unsigned n, unsigned threads);

int main(int argc, char** argv) {
  using namespace scanlab::emu;
  unsigned n = 1u << 20;
  unsigned threads = 1024;
  bool help = false;
  scanlab::cli::Parser parser("scanlab_emu_bench",
                              "scanlab_emu_bench: the cost of a fiber switch, and of a block-by-block Kogge-Stone "
                              "scan on the emulator");
  parser.positional("N", "elements to scan (default 1048576)", [&](const std::string& v) {
    n = static_cast<unsigned>(scanlab::cli::whole_number("N", v, 1, 0x7fffffff, "a whole number from 1 to 2^31 - 1"));
  });
  parser.positional("THREADS", "threads per block, a power of two up to 1024 (default 1024)", [&](const std::string& v) {
    threads = static_cast<unsigned>(scanlab::cli::whole_number("THREADS", v, 1, 1024, "a power of two up to 1024"));
    if ((threads & (threads - 1)) != 0) throw scanlab::UsageError("THREADS needs a power of two up to 1024, not '" + v + "'");
  });
  parser.flag("--help,-h", "this text", help);
  try {
    parser.parse(argc, argv);
  } catch (const scanlab::UsageError& e) {
    std::fprintf(stderr, "usage: scanlab_emu_bench [N [THREADS]]: N > 0 elements, THREADS a power of two up to 1024: %s\n",
                 e.what());
    return 2;
  }
  if (help) {
    std::cout << parser.help();
    return 0;
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
