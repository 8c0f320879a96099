/// \file algorithms.hpp
/// \brief Section 11.7's algorithm tables (one per backend), exported by its kernel libraries, and
/// the entry points only the tests use.
#pragma once

#include <span>

#include "scanlab/section.hpp"

SCANLAB_DECLARE_SECTION(s11_7)

namespace scanlab::s11_7 {

/// The section's algorithms, in table order: the one list of them (launch.cpp gives each its kernels
/// with with_run; the grader's checker registers its tests from this list, scanlab/remote.hpp).
inline constexpr AlgorithmInfo kAlgorithmInfo[] = {
    {"single_pass", "one kernel: scan 4096-element sections, pass running totals block to block (domino)",
     "Sec. 11.7", 0},
    // cpu only (the last): a deadlock the emulator shows, which a GPU would hang on.
    {"single_pass_static_index",
     "cpu only: the same with blockIdx.x as section number; deadlocks if blocks start out of order", "Sec. 11.7",
     0},
};

/// The algorithms of the table on `backend`: the cuda table has no single_pass_static_index.
inline constexpr std::span<const AlgorithmInfo> algorithm_info(Backend backend) {
  return std::span(kAlgorithmInfo).first(backend == Backend::cpu ? 2 : 1);
}

/// test_algorithms' list (below).
inline constexpr AlgorithmInfo kTestAlgorithmInfo[] = {
    {"single_pass_small_sections", "test only: 256-element sections, long domino chains", "Sec. 11.7", 0},
    {"single_pass_warp_sections", "test only: 32-element sections (32 threads x 1), the smallest whole warps make",
     "Sec. 11.7", 0},
};

/// The test algorithms on `backend`: the cuda table has no single_pass_warp_sections (the grader shrinks
/// with it on the emulator, where it also traces; nvcc need not compile it).
inline constexpr std::span<const AlgorithmInfo> test_algorithm_info(Backend backend) {
  return std::span(kTestAlgorithmInfo).first(backend == Backend::cpu ? 2 : 1);
}

/// Algorithms only the tests use (not offered by the program): the single-pass scan over sections
/// of 256 elements (32 threads, 8 elements each), so that a short array already makes a long domino
/// chain, at a small cost on the cpu backend; and (cpu only) over sections of 32 (one warp, one
/// element each), the smallest the contract allows, where the grader shrinks a failure that needs
/// several sections (not graded itself: the 256-element one is).
SCANLAB_EXPORT AlgorithmTable test_algorithms_cuda();
SCANLAB_EXPORT AlgorithmTable test_algorithms_cpu();

/// Launches the single-pass scan (the program's "single_pass") request.reps times in a row with one
/// algorithm object, so on the same counter, flags and buffers: launch k scans elements
/// [k n, (k + 1) n) of request.input (n = request.problem.n) into the same slice of request.output,
/// both host arrays of reps * n elements. The device output is poisoned before each launch, so a
/// launch that writes nothing cannot pass with the previous launch's result.
SCANLAB_EXPORT RunResult repeated_launches_cuda(const RunRequest& request);
SCANLAB_EXPORT RunResult repeated_launches_cpu(const RunRequest& request);

}  // namespace scanlab::s11_7
