/// \file coarsened_scan.cuh
/// \brief Given stand-in (common/given/README.md) for section 11.5's coarsened_scan.cuh in the student
/// release: its kernel with the solution's launch contract (sections of blockDim.x * factor
/// elements, coarsened_shared_bytes of dynamic shared memory), each section scanned by
/// given::section_scan (thread 0 alone, serially). Not the book's three phases.
#pragma once

#include <cstddef>

#include "given_scan.cuh"
#include "scanlab/kernel.hpp"

/// Dynamic shared memory one block needs: the section (threads * factor elements) and one element per
/// thread, as the solution's kernel takes it.
template <class T>
SCANLAB_HD constexpr std::size_t coarsened_shared_bytes(unsigned threads, unsigned factor) {
  return (static_cast<std::size_t>(threads) * factor + threads) * sizeof(T);
}

/// Sections of N = blockDim.x * factor elements, one per block.
template <class T, class Op>
__global__ void coarsened_scan_kernel(const T* x, T* y, std::size_t n, unsigned factor, Op op, bool exclusive,
                                      T* block_sums) {
  scanlab::given::section_scan(scanlab::dynamic_shared<T>(), blockDim.x * factor, x, y, n, op, exclusive,
                               block_sums);
}
