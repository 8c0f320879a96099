/// \file algorithms.hpp
/// \brief Section 11.2's algorithm tables (one per backend), exported by its kernel libraries, and
/// the section-scan entry point the tests use to see many sections and their totals.
#pragma once

#include <string_view>

#include "scanlab/section.hpp"

SCANLAB_DECLARE_SECTION(s11_2)

namespace scanlab::s11_2 {

/// The section's algorithms, in table order: the one list of them (launch.cpp gives each its kernels
/// with with_run; the grader's checker registers its tests from this list, scanlab/remote.hpp).
inline constexpr AlgorithmInfo kAlgorithmInfo[] = {
    {"kogge_stone", "partial sums in a temporary between two barriers, one element per thread", "Fig. 11.3", 1024},
    {"kogge_stone_double_buffer", "two shared arrays with alternating roles: one barrier per step", "Sec. 11.2",
     1024},
    {"kogge_stone_warp_shuffle", "__shfl_up_sync Kogge-Stone per warp, then over the warp totals", "Sec. 11.2",
     1024},
};

/// Runs the kernel of `algorithm` (a name in the table) once over request.problem.n elements as
/// ceil(n / section) independent sections of `section` elements, one block each: the first phase of
/// section 11.6's hierarchical scan. request.output receives each section's own scan (not the scan
/// of the whole array), and `totals` (host memory for ceil(n / section) elements of the problem's
/// type) each section's total. `section` is a power of two up to 1024 (at least 32 for
/// kogge_stone_warp_shuffle). Throws scanlab::Error for a bad name or section.
SCANLAB_EXPORT RunResult scan_sections_cuda(std::string_view algorithm, const RunRequest& request,
                                            unsigned section, void* totals);
SCANLAB_EXPORT RunResult scan_sections_cpu(std::string_view algorithm, const RunRequest& request,
                                           unsigned section, void* totals);

}  // namespace scanlab::s11_2
