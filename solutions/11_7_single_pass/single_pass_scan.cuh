/// \file single_pass_scan.cuh
/// \brief Section 11.7: the single-pass ("domino") scan. One kernel does all three steps of the
/// hierarchical scan (Sec. 11.6): each block scans its section, waits for the running total of all
/// earlier sections from its predecessor, passes the total including its own section on to its
/// successor, and only then writes its section, combined with what it received. Nothing
/// partially scanned goes through global memory, so the array is read once and written once:
/// about 2n elements moved, against about 4n for the three-kernel hierarchical scan.
///
/// Two pieces of the book's Sec. 11.7:
/// - Adjacent synchronization: block `bid` spins on flags[bid] (set by block bid - 1) with atomics,
///   reads running[bid] (the total of sections 0 .. bid-1), writes running[bid + 1], and sets
///   flags[bid + 1] behind a `__threadfence()`, so the flag can never be seen before the total.
/// - Dynamic block index: blocks take their section number from an atomic counter in the order
///   they start, not from blockIdx.x. A GPU may start block i before block i - 1 (and with a grid
///   larger than what fits on the GPU at once, block i - 1 may then never start while block i spins:
///   a deadlock). With the counter, whoever gets index i knows that index i - 1 went to a block that
///   is already running, so the chain always moves.
///
/// The section scan inside the block is the coarsened scan of Sec. 11.5 with 11.2's warp-shuffle
/// block scan as its middle phase: each thread scans kItems consecutive elements in registers, the
/// block scans the threads' totals (s11_2::block_inclusive_scan_by_warps), and each thread combines.
#pragma once

#include <cstddef>

#include "scanlab/kernel.hpp"
#include "warp_scan.cuh"

namespace scanlab::s11_7 {

/// Where a block's section number comes from.
enum class BlockIndex {
  counter,      ///< an atomic counter, in the order blocks start (Sec. 11.7): the correct kernel
  block_idx_x,  ///< blockIdx.x: shown only to see it deadlock when blocks start out of order (cpu)
};

/// Reads a value another block wrote, from memory every block sees (L2), not from this SM's L1
/// cache, which is not kept coherent with other SMs' writes.
template <class T>
__device__ __forceinline__ T load_shared_by_blocks(const T* address) {
  return *const_cast<const volatile T*>(address);
}

/// Writes a value other blocks will read (see load_shared_by_blocks).
template <class T>
__device__ __forceinline__ void store_shared_by_blocks(T* address, T value) {
  *const_cast<volatile T*>(address) = value;
}

/// The single-pass scan of x into y, sections of blockDim.x * kItems elements, one per block.
/// - Launch: ceil(n / (blockDim.x * kItems)) blocks; blockDim.x a multiple of 32, at most 1024.
/// - `block_counter` (one element), `flags` and `running` (gridDim.x + 1 elements each) are zero
///   before the launch: the host resets them before every launch (single_pass_host.hpp). After it,
///   running[b] is the total of sections 0 .. b-1 (running[0] is not used).
/// - Inclusive, or exclusive (y[0] = identity, y[i] = x[0] (+) ... (+) x[i-1]).
/// - y may be x (in place): each thread reads only its own elements, before it writes them.
/// - Elements past n are the identity; y past n is never written. n == 0: launch nothing.
/// - Work: per full section of S = T * kItems elements (T threads), (kItems - 1) T for the threads'
///   own scans, (T / 32 + 1) * 129 + (T - 32) for the block scan, and at most S + 1 to combine.
template <class T, class Op, unsigned kItems, BlockIndex kIndex = BlockIndex::counter>
__global__ void single_pass_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive,
                                        unsigned* block_counter, unsigned* flags, T* running) {
  __shared__ unsigned bid_s;  // this block's section number
  __shared__ T carry_s;       // the total of all earlier sections, from the predecessor
  __shared__ T warp_totals[32];
  scanlab::trace_shared("warp_totals", warp_totals, blockDim.x / warpSize);

  if (threadIdx.x == 0) {
    if constexpr (kIndex == BlockIndex::counter) {
      // TODO(student) begin: the dynamic block index: the counter's value before this block's
      // atomic increment (atomicAdd returns the old value).
      bid_s = atomicAdd(block_counter, 1u);
      // TODO(student) end
    } else {
      (void)block_counter;
      bid_s = blockIdx.x;
    }
  }
  __syncthreads();  // every thread reads the index thread 0 took
  const unsigned bid = bid_s;
  // An index past the grid only comes from a counter that was not reset before this launch: touch
  // nothing (the output stays unwritten, which the check reports) rather than memory past the end.
  if (bid >= gridDim.x) return;

  // Step 1 of Sec. 11.6, in registers: each thread scans its kItems consecutive elements ...
  const unsigned t = threadIdx.x, lane = t % warpSize, warp = t / warpSize;
  const std::size_t first = (static_cast<std::size_t>(bid) * blockDim.x + t) * kItems;
  T items[kItems];
  for (unsigned j = 0; j < kItems; ++j) items[j] = first + j < n ? x[first + j] : Op::identity();
  for (unsigned j = 1; j < kItems; ++j) items[j] = op(items[j - 1], items[j]);
  // ... the block scans the threads' totals (Kogge-Stone in warps, section 11.2) ...
  const T inclusive = s11_2::block_inclusive_scan_by_warps(items[kItems - 1], op, warp_totals);
  // ... and each thread takes the total of the threads before it: its left neighbour's inclusive
  // value, or, for the first lane of a warp, the scanned total of the warps before.
  const T from_left = __shfl_up_sync(0xffffffffu, inclusive, 1);
  const T before = lane > 0 ? from_left : warp > 0 ? warp_totals[warp - 1] : Op::identity();

  // Step 2, the domino: the leader waits for its predecessor's running total, publishes its own.
  if (t == 0) {
    const T section_total = warp_totals[blockDim.x / warpSize - 1];
    T carry = Op::identity();  // block 0 has no predecessor
    // TODO(student) begin: if bid > 0: spin until flags[bid] is set (atomicAdd(&flags[bid], 0u) reads
    //   it atomically), then read running[bid] (load_shared_by_blocks) into carry. Publish
    //   running[bid + 1] = carry (+) section_total (store_shared_by_blocks), then __threadfence(),
    //   then set flags[bid + 1] with an atomicAdd. (The fence: no block may see the flag first.)
    if (bid > 0) {
      while (atomicAdd(&flags[bid], 0u) == 0u) {
      }
      __threadfence();  // order the read of the total after the flag's
      carry = load_shared_by_blocks(&running[bid]);
    }
    store_shared_by_blocks(&running[bid + 1], op(carry, section_total));
    __threadfence();  // the total reaches memory every block sees before the flag does
    atomicAdd(&flags[bid + 1], 1u);
    // TODO(student) end
    carry_s = carry;
  }
  __syncthreads();  // every thread waits for the carry

  // Step 3: combine and write. The carry covers the earliest elements, so it is the left operand.
  const T prefix = bid > 0 ? op(carry_s, before) : before;
  for (unsigned j = 0; j < kItems; ++j) {
    if (first + j >= n) break;
    if (!exclusive) {
      y[first + j] = op(prefix, items[j]);
    } else {
      y[first + j] = j == 0 ? prefix : op(prefix, items[j - 1]);
    }
  }
}

}  // namespace scanlab::s11_7
