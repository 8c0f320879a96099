/// \file given_scan.cuh
/// \brief The one scan behind every given stand-in of this folder (README.md): thread 0 of a block
/// scans shared memory alone, one element after another. Simple and correct for every type, operator
/// and kind; deliberately not one of the book's parallel scans.
#pragma once

#include <cstddef>

#include "scanlab/kernel.hpp"

namespace scanlab::given {

/// Every thread of the block calls it once its elements of XY[0 .. count) are stored: thread 0 alone
/// scans them in place, inclusively, with `carry` (its own copy) on the left of the first element,
/// and leaves the total in its `carry`. Barriers before and after: then any thread reads any element.
template <class T, class Op>
__device__ void serial_scan(T* XY, unsigned count, Op op, T& carry) {
  __syncthreads();  // every thread's elements are stored
  if (threadIdx.x == 0) {
    for (unsigned j = 0; j < count; ++j) {
      carry = op(carry, XY[j]);  // the earlier elements on the left: the `last` operator keeps order
      XY[j] = carry;
    }
  }
  __syncthreads();  // the scanned section, before anyone reads it
}

/// One block's section of `section` elements, as the in-block kernels of sections 11.2 to 11.5 do it
/// (their shared contract): block b scans x[b S .. b S + S) into y (which may be x: every read comes
/// before the first barrier, every write after the last), the identity past n, exclusive by shifting
/// on the way out, and the section's total into block_sums[b] when block_sums is set. XY: `section`
/// elements of shared memory.
template <class T, class Op>
__device__ void section_scan(T* XY, unsigned section, const T* x, T* y, std::size_t n, Op op, bool exclusive,
                             T* block_sums) {
  const std::size_t start = static_cast<std::size_t>(blockIdx.x) * section;
  for (unsigned j = threadIdx.x; j < section; j += blockDim.x) {
    XY[j] = start + j < n ? x[start + j] : Op::identity();
  }
  T total = Op::identity();
  serial_scan(XY, section, op, total);
  for (unsigned j = threadIdx.x; j < section; j += blockDim.x) {
    if (start + j < n) y[start + j] = !exclusive ? XY[j] : j == 0 ? Op::identity() : XY[j - 1];
  }
  if (block_sums != nullptr && threadIdx.x == 0) block_sums[blockIdx.x] = XY[section - 1];
}

}  // namespace scanlab::given
