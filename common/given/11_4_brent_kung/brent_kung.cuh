/// \file brent_kung.cuh
/// \brief Given stand-in (common/given/README.md) for section 11.4's brent_kung.cuh in the student
/// release: its two kernels and constants with the solution's launch contract (sections of
/// 2 blockDim.x elements, no dynamic shared memory), each section scanned by given::section_scan
/// (thread 0 alone, serially). Not the book's Brent-Kung trees.
#pragma once

#include <cstddef>

#include "given_scan.cuh"
#include "scanlab/kernel.hpp"

/// The largest section: two elements per thread of a 1024-thread block.
inline constexpr unsigned kBrentKungMaxSection = 2048;

/// Shared-memory banks on every CUDA GPU since Fermi: 32 banks of 4 bytes.
inline constexpr unsigned kBrentKungLogBanks = 5;

/// Where element i of the section lives in shared memory: at i, or padded, one word more per 32.
template <bool kPadded>
SCANLAB_HD constexpr unsigned brent_kung_slot(unsigned i) {
  return kPadded ? i + (i >> kBrentKungLogBanks) : i;
}

/// Shared-memory elements a section of `section` elements occupies in a layout.
template <bool kPadded>
SCANLAB_HD constexpr unsigned brent_kung_shared_size(unsigned section) {
  return kPadded ? section + (section >> kBrentKungLogBanks) : section;
}

/// Sections of S = 2 blockDim.x elements (blockDim.x a power of two, at most 1024).
template <class T, class Op>
__global__ void brent_kung_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive,
                                       T* block_sums) {
  __shared__ T XY[kBrentKungMaxSection];
  scanlab::given::section_scan(XY, 2 * blockDim.x, x, y, n, op, exclusive, block_sums);
}

/// The same contract (the padded layout is the solution's detail: not modelled here).
template <class T, class Op>
__global__ void brent_kung_padded_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive,
                                              T* block_sums) {
  __shared__ T XY[kBrentKungMaxSection];
  scanlab::given::section_scan(XY, 2 * blockDim.x, x, y, n, op, exclusive, block_sums);
}
