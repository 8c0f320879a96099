/// \file algorithms.hpp
/// \brief Section 11.5's algorithm tables (one per backend), exported by its kernel libraries.
#pragma once
#include "scanlab/section.hpp"
SCANLAB_DECLARE_SECTION(s11_5)

namespace scanlab::s11_5 {

/// The section's algorithms, in table order: the one list of them (launch.cpp gives each its kernels
/// with with_run; the grader's checker registers its tests from this list, scanlab/remote.hpp).
inline constexpr AlgorithmInfo kAlgorithmInfo[] = {
    {"coarsened", "3 phases on 256 threads x 8 elements: sequential, Kogge-Stone over the totals, update",
     "Sec. 11.5", 256 * 8},
    {"coarsened_64x16", "the book's worked example: 1024 elements on 64 threads x 16 elements", "Sec. 11.5", 64 * 16},
    {"coarsened_256x4", "factor 4 (n = 8 runs the chapter's exercise on 2 threads: try --trace)", "Sec. 11.5",
     256 * 4},
};

}  // namespace scanlab::s11_5
