/// \file kogge_stone.cuh
/// \brief Given stand-in (common/given/README.md) for section 11.2's kogge_stone.cuh in the student
/// release: its three kernels with the solution's launch contract (chapters/11_2_kogge_stone's
/// README), each scanning its section with given::section_scan (thread 0 alone, serially). Not the
/// book's Kogge-Stone scan: the sections that build on 11.2 are graded on their own code with it.
#pragma once

#include <cstddef>

#include "given_scan.cuh"
#include "scanlab/kernel.hpp"
#include "warp_scan.cuh"

namespace scanlab::s11_2 {

/// Sections of blockDim.x elements (at most 1024), blockDim.x elements of T of dynamic shared memory.
template <class T, class Op>
__global__ void kogge_stone_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive, T* block_sums) {
  given::section_scan(dynamic_shared<T>(), blockDim.x, x, y, n, op, exclusive, block_sums);
}

/// The same, with 2 blockDim.x elements of dynamic shared memory (the first half is used).
template <class T, class Op>
__global__ void kogge_stone_double_buffer_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive,
                                                      T* block_sums) {
  given::section_scan(dynamic_shared<T>(), blockDim.x, x, y, n, op, exclusive, block_sums);
}

/// The same, without dynamic shared memory (blockDim.x a multiple of 32, at most 1024).
template <class T, class Op>
__global__ void kogge_stone_warp_shuffle_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive,
                                                     T* block_sums) {
  __shared__ T XY[1024];
  given::section_scan(XY, blockDim.x, x, y, n, op, exclusive, block_sums);
}

}  // namespace scanlab::s11_2
