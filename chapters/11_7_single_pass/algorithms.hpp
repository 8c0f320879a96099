/// \file algorithms.hpp
/// \brief Section 11.7's algorithm tables (one per backend), exported by its kernel libraries, and
/// the entry points only the tests use.
#pragma once

#include "scanlab/section.hpp"

SCANLAB_DECLARE_SECTION(s11_7)

namespace scanlab::s11_7 {

/// Algorithms only the tests use (not offered by the program): the single-pass scan over sections
/// of 256 elements (32 threads, 8 elements each), so that a short array already makes a long domino
/// chain, at a small cost on the cpu backend.
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
