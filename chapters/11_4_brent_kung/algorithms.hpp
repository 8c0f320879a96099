/// \file algorithms.hpp
/// \brief Section 11.4's algorithm tables (one per backend), exported by its kernel libraries.
#pragma once
#include "scanlab/section.hpp"
SCANLAB_DECLARE_SECTION(s11_4)

namespace scanlab::s11_4 {

/// The section's algorithms, in table order: the one list of them (launch.cpp gives each its kernels
/// with with_run; the grader's checker registers its tests from this list, scanlab/remote.hpp).
inline constexpr AlgorithmInfo kAlgorithmInfo[] = {
    {"brent_kung", "reduction tree + reverse tree, 2 elements per thread, 2N - 2 - log2 N operator applications",
     "Sec. 11.4", 2048},
    {"brent_kung_padded", "Brent-Kung with shared memory padded by 1 word per 32 (no bank conflicts)",
     "GPU Gems 3 39.2.3", 2048},
};

}  // namespace scanlab::s11_4
