/// \file warp_scan.cuh
/// \brief Section 11.2: Kogge-Stone inside a warp with `__shfl_up_sync`, and a block scan built from
/// warp scans, the family of CUB's `WarpScanShfl` and `BLOCK_SCAN_WARP_SCANS` (which CUB's
/// `DeviceScan` uses on sm_90): the lanes of a warp exchange registers, so a warp's Kogge-Stone steps
/// need no shared memory and no `__syncthreads()`; only the warps' totals go through shared memory.
///
/// Later sections include this file for `warp_inclusive_scan` and `block_inclusive_scan_by_warps`.
#pragma once

#include "scanlab/kernel.hpp"

namespace scanlab::s11_2 {

/// Inclusive scan of `value` across the 32 lanes of the calling warp: lane k returns
/// value(lane 0) (+) ... (+) value(lane k). Kogge-Stone with stride 1, 2, 4, 8, 16 (Fig. 11.3's loop),
/// where each step reads the neighbour `offset` lanes down with a shuffle instead of from XY[].
/// - Every lane of the warp must call it (full mask): the block's size is a multiple of 32 and no
///   lane has returned early. Lanes are numbered by threadIdx.x (one-dimensional blocks).
/// - Why no barrier: a shuffle is a rendezvous of the 32 lanes; every lane has sent its old value
///   before any lane receives, so there is no write-after-read race to guard against.
/// - Work: 32 * 5 - (32 - 1) = 129 applications of `op` per warp (N log2 N - (N - 1) with N = 32).
template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T value, Op op) {
  const unsigned lane = threadIdx.x % warpSize;
  // TODO(student) begin: for offset = 1, 2, 4, ... < warpSize: get the value `offset` lanes down with
  // __shfl_up_sync(0xffffffffu, value, offset) (every lane calls it, active or not), then lanes that
  // have such a neighbour combine: value = op(neighbour, value) (the neighbour is the left operand).
  // (your code here)
  (void)lane, (void)op;  // (silences "unused" warnings until you use them)
  // TODO(student) end
  return value;
}

/// Inclusive scan of one value per thread across the block (thread t returns the values of threads
/// 0..t combined), from warp scans: (1) each warp scans its 32 values; (2) warp 0 scans the warps'
/// totals; (3) every thread of warp w > 0 adds the total of warps 0..w-1.
/// - blockDim.x is a multiple of 32 and at most 1024 (so the <= 32 warp totals fit one warp);
///   one-dimensional blocks; every thread of the block calls it (it has barriers).
/// - `warp_totals` is __shared__ storage for 32 elements that the caller declares (so the caller can
///   trace it). To use it again after this returns, put a `__syncthreads()` in between: the next
///   use's writes must not overtake this call's last reads.
/// - Work: (blockDim.x / 32 + 1) * 129 + (blockDim.x - 32) applications of `op` (5249 for 1024).
template <class T, class Op>
__device__ __forceinline__ T block_inclusive_scan_by_warps(T value, Op op, T* warp_totals) {
  const unsigned lane = threadIdx.x % warpSize;
  const unsigned warp = threadIdx.x / warpSize;
  const unsigned warps = blockDim.x / warpSize;

  value = warp_inclusive_scan(value, op);
  if (lane == static_cast<unsigned>(warpSize) - 1) warp_totals[warp] = value;
  __syncthreads();  // every warp's total is written before warp 0 reads them

  if (warp == 0) {
    const T total = lane < warps ? warp_totals[lane] : Op::identity();
    warp_totals[lane] = warp_inclusive_scan(total, op);
  }
  __syncthreads();  // the scanned totals are written before the other warps read them

  // TODO(student) begin: warps after the first add the scanned total of all earlier warps, which is
  // warp_totals[warp - 1]; it comes first, so it is the left operand.
  // (your code here)
  (void)warp_totals;  // (silences "unused" warnings until you use them)
  // TODO(student) end
  return value;
}

}  // namespace scanlab::s11_2
