/// \file algorithms.hpp
/// \brief Section 11.6's algorithm tables (one per backend), exported by its kernel libraries, and a
/// table of test-only algorithms.
#pragma once

#include "scanlab/section.hpp"

SCANLAB_DECLARE_SECTION(s11_6)

namespace scanlab::s11_6 {

/// Algorithms only the tests use (not offered by the program): the hierarchical scan over sections
/// of 32 elements (the warp-shuffle Kogge-Stone kernel of 11.2 with one warp per block), so that a
/// few thousand elements already take three levels (n > 32^2 = 1024 needs two levels of block
/// sums), at a small cost on the cpu backend.
SCANLAB_EXPORT AlgorithmTable test_algorithms_cuda();
SCANLAB_EXPORT AlgorithmTable test_algorithms_cpu();

}  // namespace scanlab::s11_6
