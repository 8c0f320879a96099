/// \file algorithms.hpp
/// \brief Section 11.1's algorithm tables (one per backend), exported by its kernel libraries.
#pragma once
#include "scanlab/section.hpp"
SCANLAB_DECLARE_SECTION(s11_1)

namespace scanlab::s11_1 {

/// The section's algorithms, in table order: the one list of them (launch.cpp gives each its kernels
/// with with_run; the grader's checker registers its tests from this list, scanlab/remote.hpp).
inline constexpr AlgorithmInfo kAlgorithmInfo[] = {
    {"sequential", "one thread scans the whole array, n - 1 operator applications", "Sec. 11.1", 0},
};

}  // namespace scanlab::s11_1
