/// \file verify.hpp
/// \brief Checks a kernel's output against the CPU reference.
///
/// Integers, and every operator but add, are compared exactly. Floating-point add is compared with a
/// reference computed in double precision, element by element, with the tolerance
///
///     |y[i] - ref[i]|  <=  (k + 1) * eps(T) * (|x_0| + ... + |x_(k-1)|)
///
/// where k is the number of inputs summed into y[i] (i + 1 inclusive, i exclusive), eps(T) the
/// machine epsilon of the kernel's type (2^-23 for float, 2^-52 for double) and the sum is of the
/// absolute values of those k inputs (so exclusive y[0] must be exactly 0). The reference, the sum
/// and the tolerance are computed in double. k * eps * sum|x| bounds the rounding error of summing k
/// terms in any order and association (Higham, Accuracy and Stability of Numerical Algorithms,
/// Sec. 4.2), which is exactly the freedom a parallel scan takes; the + 1 covers rounding the exact
/// result to T. NaN never passes. Tested at its edge (the last T inside passes, the next fails) for
/// float and double, inclusive and exclusive: Verify.FloatToleranceEdgeForEveryKindAndType.
#pragma once

#include <cstddef>
#include <string>

#include "scanlab/algorithm.hpp"

namespace scanlab {

struct VerifyResult {
  bool passed = false;
  std::size_t wrong = 0;     ///< elements that failed
  std::size_t unwritten = 0; ///< of those, elements that still hold the poison pattern
  std::string message;       ///< empty when passed; else the first wrong element, and the counts
};

/// Compares `output` (n elements of problem.type) with the reference scan of `input`; from `from` on
/// only (one process's piece of a scan across processes: elements before it are not read).
VerifyResult verify_scan(const ScanProblem& problem, const void* input, const void* output, std::size_t from = 0);

/// Compares `output` with the scans of `input`'s consecutive sections of `section` elements, each
/// scanned on its own (what an in-block kernel computes when it is launched with many blocks; the
/// last section may be shorter). The message names the first wrong section.
VerifyResult verify_sections(const ScanProblem& problem, const void* input, const void* output,
                             std::size_t section);

}  // namespace scanlab
