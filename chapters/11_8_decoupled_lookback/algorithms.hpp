/// \file algorithms.hpp
/// \brief Section 11.8's algorithm tables (one per backend), exported by its kernel libraries, and two
/// more entry points for the tests: repeated launches on one workspace, and the tile size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scanlab/section.hpp"

SCANLAB_DECLARE_SECTION(s11_8)

namespace scanlab::s11_8 {

/// The section's algorithms, in table order: the one list of them (launch.cpp gives each its kernels
/// with with_run; the grader's checker registers its tests from this list, scanlab/remote.hpp).
inline constexpr AlgorithmInfo kAlgorithmInfo[] = {
    {"decoupled_lookback",
     "single pass, one launch: tiles publish aggregates at once and look back over 32 predecessors per step; "
     "16-byte loads, n reads + n writes",
     "Merrill & Garland 2016 (beyond the book)", 0},
    {"persistent_pipelined",
     "the same look-back in persistent blocks: a producer warp streams tiles into a ring of shared-memory stages "
     "(TMA bulk copies and mbarriers on sm_90) while the scan warps scan and look back",
     "beyond the book (persistent_scan.cuh)", 0, /*given=*/true},
};

/// test_algorithms' list (below).
inline constexpr AlgorithmInfo kTestAlgorithmInfo[] = {
    {"decoupled_lookback_small_sections",
     "test only: the decoupled look-back over 128-element tiles (32 threads x 4, the smallest tile whose threads "
     "each load a whole 16-byte chunk of 4-byte elements)",
     "Merrill & Garland 2016 (beyond the book)", 0},
};

/// Algorithms only the tests use (not offered by the program): the decoupled look-back scan over tiles
/// of 128 elements, so that the grader can explain a wrong prefix between tiles tile by tile on a
/// short array (its explanation counts at most explain::kMaxInputs inputs; the tuned tiles hold 3072
/// or 4096).
SCANLAB_EXPORT AlgorithmTable test_algorithms_cuda();
SCANLAB_EXPORT AlgorithmTable test_algorithms_cpu();

/// `launches` scans, one after another, with ONE workspace (ticket counter and statuses) and the
/// same device buffers, the input alternating between two seeded arrays, each output verified.
struct RepeatedLaunches {
  DType type = DType::int32;
  OpKind op = OpKind::add;
  ScanKind kind = ScanKind::inclusive;
  std::size_t n = 0;
  int launches = 100;
  unsigned prefix_period_log2 = 0;  ///< only tiles numbered k * 2^this publish their prefix
  std::size_t offset = 0;           ///< input and output start this many elements into their buffers
  std::uint64_t seed = 11;
  bool persistent = false;     ///< the persistent pipelined kernel (persistent_scan.cuh) instead
  std::size_t max_blocks = 0;  ///< persistent: blocks per launch at most (0: as many as fit)
};

/// What the launches produced, for the grading tests to check against the CPU reference (they decide,
/// not the kernels' process: scanlab/remote.hpp). Launch k scanned the seeded input k % 2.
struct RepeatedOutputs {
  /// Each launch's output in full for launches 0 and 1 and, for floating types (whose rounding may
  /// differ from launch to launch), every launch; else its digest (an integer scan has one right
  /// output, so launch k must repeat launch k % 2 bit for bit).
  std::vector<std::string> outputs;
  std::vector<std::uint64_t> digests;
  std::string error;  ///< "launch k: ..." if a launch failed (outputs then end before it)
};

/// The digest of a launch's output bytes in RepeatedOutputs (FNV-1a, 64 bits).
inline std::uint64_t digest(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

SCANLAB_EXPORT RepeatedOutputs repeated_launches_cuda(const RepeatedLaunches& request);
SCANLAB_EXPORT RepeatedOutputs repeated_launches_cpu(const RepeatedLaunches& request);

/// Elements per tile (one block's share) for elements of `type`.
SCANLAB_EXPORT std::size_t tile_items_cuda(DType type);
SCANLAB_EXPORT std::size_t tile_items_cpu(DType type);
/// Elements per tile of the persistent pipelined kernel.
SCANLAB_EXPORT std::size_t persistent_tile_items_cuda(DType type);
SCANLAB_EXPORT std::size_t persistent_tile_items_cpu(DType type);

}  // namespace scanlab::s11_8
