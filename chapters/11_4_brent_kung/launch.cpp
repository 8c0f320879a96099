// Section 11.4: host code that launches the Brent-Kung scans. Compiled once per backend (nvcc for
// cuda, the host compiler for cpu) from this one source. You do not need to change this file.
#include <algorithm>
#include <bit>

#include "algorithms.hpp"
#include "brent_kung.cuh"
#include "scanlab/launcher.hpp"

namespace scanlab::s11_4 {
namespace {

/// Threads per block: the smallest power of two whose section (two elements per thread) holds n, up
/// to 1024 (the book launches SECTION_SIZE / 2 threads). So n = 8 runs the chapter's exercise on 4
/// threads, and n = 2048 one full section; longer arrays are scanned section by section.
unsigned brent_kung_threads(std::size_t n) {
  const std::size_t half = std::max<std::size_t>(ceil_div(n, 2), 1);
  return static_cast<unsigned>(std::min<std::size_t>(std::bit_ceil(half), kBrentKungMaxSection / 2));
}

/// One launch over ceil(n / S) sections. For n <= 2048 that is one block, the whole scan; beyond,
/// each section is scanned on its own (section 11.6 combines them).
template <class T, class Op, bool kPadded>
struct BrentKungScan : NoWorkspace {
  using NoWorkspace::NoWorkspace;
  void operator()(const T* d_in, T* d_out, std::size_t n, Op op, ScanKind kind) {
    const unsigned threads = brent_kung_threads(n);
    const auto blocks = static_cast<unsigned>(ceil_div(n, 2 * threads));
    T* const no_block_sums = nullptr;
    if constexpr (kPadded) {
      launch(brent_kung_padded_scan_kernel<T, Op>, {"brent_kung_padded_scan_kernel", blocks, threads}, d_in,
             d_out, n, op, kind == ScanKind::exclusive, no_block_sums);
    } else {
      launch(brent_kung_scan_kernel<T, Op>, {"brent_kung_scan_kernel", blocks, threads}, d_in, d_out, n, op,
             kind == ScanKind::exclusive, no_block_sums);
    }
  }
};
template <class T, class Op>
using BrentKung = BrentKungScan<T, Op, false>;
template <class T, class Op>
using BrentKungPadded = BrentKungScan<T, Op, true>;

const Algorithm kAlgorithms[] = {
    with_run(kAlgorithmInfo[0], &run_scan<BrentKung>),
    with_run(kAlgorithmInfo[1], &run_scan<BrentKungPadded>),
};
static_assert(kAlgorithmInfo[0].max_n == kBrentKungMaxSection && kAlgorithmInfo[1].max_n == kBrentKungMaxSection,
              "brent_kung.cuh: kBrentKungMaxSection is the section the tests grade (2048): keep it");

}  // namespace

AlgorithmTable SCANLAB_FOR_BACKEND(algorithms)() { return make_table(kAlgorithms); }

}  // namespace scanlab::s11_4
