// Section 11.5: host code that launches the coarsened three-phase scan. Compiled once per backend
// (nvcc for cuda, the host compiler for cpu) from this one source. You do not need to change this file.
#include <algorithm>
#include <bit>

#include "algorithms.hpp"
#include "coarsened_scan.cuh"
#include "scanlab/launcher.hpp"

namespace scanlab::s11_5 {
namespace {

/// The coarsened scan with factor kFactor on blocks of up to kMaxThreads threads: a section holds up to
/// kMaxThreads * kFactor elements. One block scans n up to that, with the fewest threads (a power of
/// two) whose subsections hold n, so n = 8 with factor 4 is the chapter's exercise on 2 threads; longer
/// arrays are scanned section by section (section 11.6 combines them). The factor is a kernel
/// argument and the shared memory is sized per launch, so every shape runs the same kernel.
template <unsigned kMaxThreads, unsigned kFactor>
struct Coarsened {
  static constexpr std::size_t max_section = std::size_t(kMaxThreads) * kFactor;

  static unsigned threads_for(std::size_t n) {
    const std::size_t needed = std::max<std::size_t>(ceil_div(n, kFactor), 1);
    return static_cast<unsigned>(std::min<std::size_t>(std::bit_ceil(needed), kMaxThreads));
  }

  template <class T, class Op>
  struct Scan : NoWorkspace {
    using NoWorkspace::NoWorkspace;
    void operator()(const T* d_in, T* d_out, std::size_t n, Op op, ScanKind kind) {
      const unsigned threads = threads_for(n);
      T* const no_block_sums = nullptr;
      launch(coarsened_scan_kernel<T, Op>,
             {"coarsened_scan_kernel", static_cast<unsigned>(ceil_div(n, std::size_t(threads) * kFactor)), threads,
              coarsened_shared_bytes<T>(threads, kFactor)},
             d_in, d_out, n, kFactor, op, kind == ScanKind::exclusive, no_block_sums);
    }
  };
};

const Algorithm kAlgorithms[] = {
    with_run(kAlgorithmInfo[0], &run_scan<Coarsened<256, 8>::Scan>),
    with_run(kAlgorithmInfo[1], &run_scan<Coarsened<64, 16>::Scan>),
    with_run(kAlgorithmInfo[2], &run_scan<Coarsened<256, 4>::Scan>),
};
static_assert(kAlgorithmInfo[0].max_n == Coarsened<256, 8>::max_section &&
              kAlgorithmInfo[1].max_n == Coarsened<64, 16>::max_section &&
              kAlgorithmInfo[2].max_n == Coarsened<256, 4>::max_section);

}  // namespace

AlgorithmTable SCANLAB_FOR_BACKEND(algorithms)() { return make_table(kAlgorithms); }

}  // namespace scanlab::s11_5
