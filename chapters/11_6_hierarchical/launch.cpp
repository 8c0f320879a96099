// Section 11.6: the in-block kernels of sections 11.2-11.5 as "section scans" (step 1 of the
// hierarchical scan), and the algorithm tables. Compiled once per backend (nvcc for cuda, the host
// compiler for cpu) from this one source. You do not need to change this file: the hierarchical
// scan itself is in hierarchical_host.hpp and hierarchical_scan.cuh.
#include "algorithms.hpp"
#include "brent_kung.cuh"
#include "coarsened_scan.cuh"
#include "hierarchical_host.hpp"
#include "hierarchical_scan.cuh"
#include "kogge_stone.cuh"
#include "scanlab/launcher.hpp"

namespace scanlab::s11_6 {
namespace {

/// Fig. 11.3's Kogge-Stone kernel (section 11.2): one element per thread, kSection threads.
template <unsigned kSection>
struct KoggeStoneSections {
  static constexpr std::size_t section_size = kSection;
  template <class T, class Op>
  static void scan_sections(const T* d_in, T* d_out, std::size_t n, Op op, T* d_block_sums) {
    const LaunchConfig config{"kogge_stone_scan_kernel", dim3(static_cast<unsigned>(ceil_div(n, kSection))),
                              dim3(kSection), kSection * sizeof(T)};
    launch(s11_2::kogge_stone_scan_kernel<T, Op>, config, d_in, d_out, n, op, false, d_block_sums);
  }
};

/// The warp-shuffle Kogge-Stone kernel (section 11.2), one element per thread.
template <unsigned kSection>
struct WarpShuffleSections {
  static constexpr std::size_t section_size = kSection;
  template <class T, class Op>
  static void scan_sections(const T* d_in, T* d_out, std::size_t n, Op op, T* d_block_sums) {
    const LaunchConfig config{"kogge_stone_warp_shuffle_scan_kernel",
                              dim3(static_cast<unsigned>(ceil_div(n, kSection))), dim3(kSection), 0};
    launch(s11_2::kogge_stone_warp_shuffle_scan_kernel<T, Op>, config, d_in, d_out, n, op, false, d_block_sums);
  }
};

/// The Brent-Kung kernel (section 11.4): two elements per thread, 1024 threads, sections of 2048.
struct BrentKungSections {
  static constexpr std::size_t section_size = kBrentKungMaxSection;
  template <class T, class Op>
  static void scan_sections(const T* d_in, T* d_out, std::size_t n, Op op, T* d_block_sums) {
    const LaunchConfig config{"brent_kung_scan_kernel", dim3(static_cast<unsigned>(ceil_div(n, section_size))),
                              dim3(kBrentKungMaxSection / 2), 0};
    launch(brent_kung_scan_kernel<T, Op>, config, d_in, d_out, n, op, false, d_block_sums);
  }
};

/// The coarsened three-phase kernel (section 11.5), the book's choice for step 1: kThreads threads of
/// kFactor elements each.
template <unsigned kThreads, unsigned kFactor>
struct CoarsenedSections {
  static constexpr std::size_t section_size = std::size_t{kThreads} * kFactor;
  template <class T, class Op>
  static void scan_sections(const T* d_in, T* d_out, std::size_t n, Op op, T* d_block_sums) {
    const LaunchConfig config{"coarsened_scan_kernel", dim3(static_cast<unsigned>(ceil_div(n, section_size))),
                              dim3(kThreads), coarsened_shared_bytes<T>(kThreads, kFactor)};
    launch(coarsened_scan_kernel<T, Op>, config, d_in, d_out, n, kFactor, op, false, d_block_sums);
  }
};

template <class T, class Op>
using HierarchicalCoarsened = Hierarchical<CoarsenedSections<512, 8>>::Scan<T, Op>;
template <class T, class Op>
using HierarchicalKoggeStone = Hierarchical<KoggeStoneSections<1024>>::Scan<T, Op>;
template <class T, class Op>
using HierarchicalBrentKung = Hierarchical<BrentKungSections>::Scan<T, Op>;
template <class T, class Op>
using HierarchicalSmallSections = Hierarchical<WarpShuffleSections<32>>::Scan<T, Op>;

const Algorithm kAlgorithms[] = {
    with_run(kAlgorithmInfo[0], &run_scan<HierarchicalCoarsened>),
    with_run(kAlgorithmInfo[1], &run_scan<HierarchicalKoggeStone>),
    with_run(kAlgorithmInfo[2], &run_scan<HierarchicalBrentKung>),
};

const Algorithm kTestAlgorithms[] = {
    with_run(kTestAlgorithmInfo[0], &run_scan<HierarchicalSmallSections>),
};

}  // namespace

AlgorithmTable SCANLAB_FOR_BACKEND(algorithms)() { return make_table(kAlgorithms); }
AlgorithmTable SCANLAB_FOR_BACKEND(test_algorithms)() { return make_table(kTestAlgorithms); }

}  // namespace scanlab::s11_6
