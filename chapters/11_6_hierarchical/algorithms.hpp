/// \file algorithms.hpp
/// \brief Section 11.6's algorithm tables (one per backend), exported by its kernel libraries, and a
/// table of test-only algorithms.
#pragma once

#include "scanlab/section.hpp"

SCANLAB_DECLARE_SECTION(s11_6)

namespace scanlab::s11_6 {

/// The section's algorithms, in table order: the one list of them (launch.cpp gives each its kernels
/// with with_run; the grader's checker registers its tests from this list, scanlab/remote.hpp).
inline constexpr AlgorithmInfo kAlgorithmInfo[] = {
    {"hierarchical_coarsened",
     "scan 4096-element sections (coarsened, 512 threads x 8), scan the block sums, add them back", "Sec. 11.6", 0},
    {"hierarchical_kogge_stone", "the same three steps over 1024-element Kogge-Stone sections (Fig. 11.3)",
     "Sec. 11.6", 0},
    {"hierarchical_brent_kung", "the same three steps over 2048-element Brent-Kung sections", "Sec. 11.6", 0},
};

/// test_algorithms' list (below).
inline constexpr AlgorithmInfo kTestAlgorithmInfo[] = {
    {"hierarchical_small_sections", "test only: 32-element warp-shuffle sections, so small n recurses deeply",
     "Sec. 11.6", 0},
};

/// Algorithms only the tests use (not offered by the program): the hierarchical scan over sections
/// of 32 elements (the warp-shuffle Kogge-Stone kernel of 11.2 with one warp per block), so that a
/// few thousand elements already take three levels (n > 32^2 = 1024 needs two levels of block
/// sums), at a small cost on the cpu backend.
SCANLAB_EXPORT AlgorithmTable test_algorithms_cuda();
SCANLAB_EXPORT AlgorithmTable test_algorithms_cpu();

}  // namespace scanlab::s11_6
