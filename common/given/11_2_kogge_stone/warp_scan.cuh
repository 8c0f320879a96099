/// \file warp_scan.cuh
/// \brief Given stand-in (common/given/README.md) for section 11.2's warp_scan.cuh in the student
/// release: the same two functions and contracts, without the book's Kogge-Stone steps.
#pragma once

#include "given_scan.cuh"
#include "scanlab/kernel.hpp"

namespace scanlab::s11_2 {

/// Inclusive scan of `value` across the 32 lanes of the calling warp (every lane calls it): each lane
/// fetches every lane's value in turn and combines those of the lanes up to its own, in order.
template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T value, Op op) {
  const unsigned lane = threadIdx.x % warpSize;
  T result = __shfl_sync(0xffffffffu, value, 0);
  for (unsigned from = 1; from < static_cast<unsigned>(warpSize); ++from) {
    const T v = __shfl_sync(0xffffffffu, value, static_cast<int>(from));
    if (from <= lane) result = op(result, v);
  }
  return result;
}

/// Inclusive scan of one value per thread across the block (every thread calls it; blockDim.x a
/// multiple of 32, at most 1024). On return warp_totals[w] holds the total of warps 0 .. w, as the
/// solution's does; to use it again, put a __syncthreads() in between.
template <class T, class Op>
__device__ __forceinline__ T block_inclusive_scan_by_warps(T value, Op op, T* warp_totals) {
  __shared__ T values[1024];
  values[threadIdx.x] = value;
  T total = Op::identity();
  given::serial_scan(values, blockDim.x, op, total);
  const T inclusive = values[threadIdx.x];
  if (threadIdx.x % warpSize == static_cast<unsigned>(warpSize) - 1) warp_totals[threadIdx.x / warpSize] = inclusive;
  __syncthreads();  // the warps' totals, before any thread reads them
  return inclusive;
}

}  // namespace scanlab::s11_2
