/// \file reference.hpp
/// \brief The CPU reference ("gold") that every kernel is checked against. It is deliberately the
/// plainest possible scan and is not any section's solution, so no solution is graded against itself.
#pragma once

#include <cstddef>

#include "scanlab/types.hpp"

namespace scanlab {

/// Sequential scan of in[0..n) into out[0..n) with `op`, inclusive or exclusive. `out` may equal `in`.
template <class T, class Op>
void reference_scan(const T* in, T* out, std::size_t n, Op op, ScanKind kind) {
  T running = Op::identity();
  for (std::size_t i = 0; i < n; ++i) {
    const T x = in[i];  // read before the write, so out == in works
    if (kind == ScanKind::exclusive) {
      out[i] = running;
      running = op(running, x);
    } else {
      running = op(running, x);
      out[i] = running;
    }
  }
}

}  // namespace scanlab
