/// \file applications.cuh
/// \brief Section 11.9: the kernels of what scan is for. Each application turns a loop whose
/// iterations seem to depend on each other ("where does my element go? after all the kept ones
/// before it") into independent work plus one scan:
///   - stream compaction (select_if): flags, an exclusive scan of the flags, a scatter;
///   - stable partition: the same, with the rejected elements placed after the kept ones;
///   - the radix sort's split: a partition on one bit of the key;
///   - allocation: an exclusive scan of requested sizes gives every request its start;
///   - segmented scan: one scan over (head flag, value) pairs with the segmented operator;
///   - a single-pass compaction/partition that fuses flags, scan and scatter into the decoupled
///     look-back of section 11.8 (one read of the input, one write of each element).
/// The scans themselves are the lab's solutions: section 11.8's decoupled look-back scan for the
/// counts, section 11.6's hierarchical scan (over this file's block scan) for the pairs. The host
/// side is applications_host.hpp.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "decoupled_lookback.cuh"
#include "scanlab/kernel.hpp"

namespace scanlab::s11_9 {

/// Flags, offsets and counts: 32 bits (the lab's arrays have fewer than 2^32 elements).
using Count = std::uint32_t;

/// The predicate of the compaction and the partition: keep x when x < pivot (the "smaller" side of
/// a quicksort partition).
template <class T>
struct Below {
  T pivot;
  SCANLAB_HD bool operator()(T x) const { return x < pivot; }
};

/// The radix sort's predicate: keep keys whose bit `bit` is 0 (they go first).
struct BitClear {
  unsigned bit;
  SCANLAB_HD bool operator()(std::uint32_t key) const { return ((key >> bit) & 1u) == 0; }
};

/// Bits set in a 32-bit mask.
__device__ __forceinline__ unsigned count_bits(unsigned mask) {
#if defined(SCANLAB_BACKEND_CUDA)
  return static_cast<unsigned>(__popc(mask));
#else
  return static_cast<unsigned>(std::popcount(mask));
#endif
}

/// y[i] = x[i]. One thread per element.
template <class T>
__global__ void copy_kernel(const T* x, T* y, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

// ---- Compaction and partition in three steps ------------------------------------------------------

/// Step 1: flags[i] = 1 if x[i] is kept, else 0. One thread per element.
template <class T, class Pred>
__global__ void flag_kernel(const T* x, Count* flags, std::size_t n, Pred pred) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // TODO(student) begin: 1 if pred keeps x[i], else 0.
  flags[i] = pred(x[i]) ? 1u : 0u;
  // TODO(student) end
}

/// The number of kept elements, from the EXCLUSIVE scan of the flags: the kept elements before the
/// last one, plus the last one if it is kept. n > 0.
__device__ __forceinline__ Count kept_count(const Count* flags, const Count* offsets, std::size_t n) {
  // TODO(student) begin: the count of kept elements (n > 0).
  return offsets[n - 1] + flags[n - 1];
  // TODO(student) end
}

/// Step 3 (step 2 is the exclusive scan of the flags into `offsets`): every element moves to where
/// the scan says. A kept x[i] goes to out[offsets[i]] (offsets[i] kept elements come before it). With
/// `partition`, a rejected x[i] goes after all kept elements, in its order among the rejected:
/// out[count + (i - offsets[i])] (i - offsets[i] rejected elements come before it); without, it is
/// dropped. Thread 0 writes the count to *d_count. One thread per element; n > 0.
template <class T>
__global__ void scatter_kernel(const T* x, const Count* flags, const Count* offsets, std::size_t n, T* out,
                               bool partition, Count* d_count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Count count = kept_count(flags, offsets, n);
  if (i == 0) *d_count = count;
  // TODO(student) begin: write x[i] where the offsets say (see above).
  if (flags[i] != 0) {
    out[offsets[i]] = x[i];
  } else if (partition) {
    out[count + (i - offsets[i])] = x[i];
  }
  // TODO(student) end
}

// ---- Allocation ----------------------------------------------------------------------------------

/// Every request i asked for sizes[i] slots; `starts` is the exclusive scan of `sizes`, so request i
/// owns out[starts[i]] ... out[starts[i] + sizes[i] - 1]. Each thread fills its own slots with its
/// number i (in the book's sausage example, a person cuts their piece starting at their start).
/// Thread 0 writes the total to *d_total. One thread per request; n > 0.
__global__ void fill_allocations_kernel(const Count* sizes, const Count* starts, std::size_t n, Count* out,
                                        Count* d_total) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i == 0) *d_total = starts[n - 1] + sizes[n - 1];
  // TODO(student) begin: write i into this request's sizes[i] slots.
  for (Count k = 0; k < sizes[i]; ++k) out[starts[i] + k] = static_cast<Count>(i);
  // TODO(student) end
}

// ---- Segmented scan ------------------------------------------------------------------------------

/// One element of a segmented scan: a head flag (1: a new segment starts here) and a value.
template <class T>
struct Flagged {
  Count head;
  T value;
};

/// The segmented operator over (flag, value) pairs: a (+) b restarts at b when b's piece of the array
/// holds a segment start, else it combines the values. The flag of the result says whether the
/// combined piece holds a start. Associative (so any scan algorithm may group the pairs as it likes)
/// but not commutative: a is the piece on the left.
template <class Op>
struct SegmentedOp {
  using T = typename Op::value_type;
  using value_type = Flagged<T>;
  Op op;
  static SCANLAB_HD Flagged<T> identity() { return {0u, Op::identity()}; }
  SCANLAB_HD Flagged<T> operator()(Flagged<T> a, Flagged<T> b) const {
    // TODO(student) begin: the combined flag, and b's value alone if b holds a head, else a (+) b.
    return {a.head | b.head, b.head != 0 ? b.value : op(a.value, b.value)};
    // TODO(student) end
  }
};

/// pairs[i] = (heads[i], x[i]). One thread per element.
template <class T>
__global__ void pack_kernel(const T* x, const Count* heads, std::size_t n, Flagged<T>* pairs) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) pairs[i] = {heads[i], x[i]};
}

/// From the inclusive segmented scan of the pairs to the output values. Inclusive: y[i] is the
/// value of pair i. Exclusive: y[i] combines the elements of i's segment BEFORE i, so it is the
/// identity where a segment starts (i = 0 or heads[i] = 1), else the inclusive value of i - 1.
template <class T, class Op>
__global__ void unpack_kernel(const Flagged<T>* scanned, const Count* heads, std::size_t n, T* y,
                              bool exclusive) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // TODO(student) begin: y[i] for an inclusive and for an exclusive segmented scan.
  if (!exclusive) {
    y[i] = scanned[i].value;
  } else {
    y[i] = (i == 0 || heads[i] != 0) ? Op::identity() : scanned[i - 1].value;
  }
  // TODO(student) end
}

/// The block scan under the segmented scan (step 1 of section 11.6's hierarchical scan, for any T
/// and Op, pairs included): Kogge-Stone in shared memory, one element per thread, one section per
/// block, the section's total into block_sums[blockIdx.x] unless block_sums is null. Given code.
template <class T, class Op>
__global__ void block_scan_kernel(const T* x, T* y, std::size_t n, Op op, T* block_sums) {
  T* XY = scanlab::dynamic_shared<T>();
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  XY[threadIdx.x] = i < n ? x[i] : Op::identity();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    __syncthreads();
    const T left = threadIdx.x >= stride ? XY[threadIdx.x - stride] : Op::identity();
    __syncthreads();
    if (threadIdx.x >= stride) XY[threadIdx.x] = op(left, XY[threadIdx.x]);
  }
  __syncthreads();
  if (i < n) y[i] = XY[threadIdx.x];
  if (block_sums != nullptr && threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = XY[threadIdx.x];
}

// ---- Single pass: compaction and partition fused into the decoupled look-back ---------------------

/// One launch of ceil(n / (Threads * Items)) blocks. Each tile (numbered by ticket, as in 11.8):
///   1. loads its elements, row by row (row r of the tile: elements r * Threads ... + Threads - 1,
///      coalesced), evaluates the predicate, and each warp counts the kept elements of its 32 in
///      every row with one ballot;
///   2. scans those per-(row, warp) counts in tile order (warp 0), which gives every element its
///      rank among the tile's kept elements: the kept before its (row, warp) plus the kept lanes
///      below it in the ballot;
///   3. publishes its count of kept elements and looks back (section 11.8's look_back, over counts),
///      which gives the kept elements of all earlier tiles;
///   4. writes each kept element to selected[prefix + rank] and, when `rejected` is not null, each
///      rejected element at global index g to rejected[g - (prefix + rank)]: both in input order.
/// The last tile writes the total count to *d_count. Reads n elements, writes n (partition) or the
/// kept ones (compaction): the least traffic there is.
template <int Threads, int Items, class T, class Pred>
__global__ void __launch_bounds__(Threads)
    select_single_pass_kernel(const T* x, T* selected, T* rejected, std::size_t n, Pred pred,
                              lookback::TileStatusArray status, Count* d_count) {
  static_assert(Threads % 32 == 0 && (Items * (Threads / 32)) % 32 == 0, "whole warps, whole warp rows");
  constexpr int kWarps = Threads / 32;
  constexpr int kRows = Items * kWarps;  // (row, warp) pieces of 32 elements, in tile order
  constexpr int kPerLane = kRows / 32;
  constexpr std::size_t kTile = static_cast<std::size_t>(Threads) * Items;
  __shared__ Count piece_offsets[kRows];
  __shared__ Count tile_kept;
  __shared__ Count tile_exclusive;
  __shared__ unsigned tile_number;
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = threadIdx.x / 32;
  const Add<Count> add{};

  if (threadIdx.x == 0) {
    const unsigned long long ticket = atomicAdd(status.counter, 1ull);
    if (ticket == gridDim.x - 1ull) atomicExch(status.counter, 0ull);
    tile_number = static_cast<unsigned>(ticket);
  }
  __syncthreads();
  const unsigned tile = tile_number;
  const std::size_t first = static_cast<std::size_t>(tile) * kTile;

  // 1. Load, flag, count per warp and row.
  T items[Items];
  unsigned kept_mask[Items];
  SCANLAB_UNROLL for (int r = 0; r < Items; ++r) {
    const std::size_t g = first + static_cast<std::size_t>(r) * Threads + threadIdx.x;
    const bool valid = g < n;
    items[r] = valid ? x[g] : T{};
    kept_mask[r] = __ballot_sync(lookback::kFullWarp, valid && pred(items[r]));
    if (lane == 0) piece_offsets[r * kWarps + warp] = count_bits(kept_mask[r]);
  }
  __syncthreads();

  // 2. Exclusive scan of the piece counts, in tile order, by warp 0 (kPerLane pieces per lane).
  if (warp == 0) {
    Count mine[kPerLane];
    Count lane_total = 0;
    SCANLAB_UNROLL for (int k = 0; k < kPerLane; ++k) {
      mine[k] = piece_offsets[lane * kPerLane + k];
      lane_total += mine[k];
    }
    const Count inclusive = lookback::warp_inclusive_scan(lane_total, add, lane);
    Count running = inclusive - lane_total;
    SCANLAB_UNROLL for (int k = 0; k < kPerLane; ++k) {
      piece_offsets[lane * kPerLane + k] = running;
      running += mine[k];
    }
    if (lane == 31) tile_kept = inclusive;
  }
  __syncthreads();

  // 3. Publish, look back, publish again (as section 11.8, over kept counts).
  const Count aggregate = tile_kept;
  if (tile == 0) {
    if (threadIdx.x == 0) {
      lookback::publish_status(status, tile, lookback::kPrefix, aggregate);
      tile_exclusive = 0;
    }
  } else {
    if (threadIdx.x == 0) lookback::publish_status(status, tile, lookback::kAggregate, aggregate);
    if (warp == 0) {
      const Count prefix = look_back<Count>(status, tile, add, lane, 0);
      if (lane == 0) {
        lookback::publish_status(status, tile, lookback::kPrefix, prefix + aggregate);
        tile_exclusive = prefix;
      }
    }
  }
  __syncthreads();
  const Count prefix = tile_exclusive;
  if (tile == gridDim.x - 1 && threadIdx.x == 0) *d_count = prefix + aggregate;

  // 4. Scatter.
  const unsigned lanes_below = (1u << lane) - 1u;
  SCANLAB_UNROLL for (int r = 0; r < Items; ++r) {
    const std::size_t g = first + static_cast<std::size_t>(r) * Threads + threadIdx.x;
    if (g >= n) break;
    // TODO(student) begin: this element's rank among all kept elements before it (the prefix, the
    //   kept of earlier pieces of the tile, the kept lanes below in this piece); write a kept element
    //   to selected[rank], a rejected one (when rejected is not null) to rejected[g - rank].
    const Count rank = prefix + piece_offsets[r * kWarps + warp] + count_bits(kept_mask[r] & lanes_below);
    if ((kept_mask[r] >> lane) & 1u) {
      selected[rank] = items[r];
    } else if (rejected != nullptr) {
      rejected[g - rank] = items[r];
    }
    // TODO(student) end
  }
}

}  // namespace scanlab::s11_9
