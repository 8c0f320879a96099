/// \file applications.cuh
/// \brief Section 11.9: the kernels of what scan is for. Each application turns a loop whose
/// iterations seem to depend on each other ("where does my element go? after all the kept ones
/// before it") into independent work plus one scan:
///   - stream compaction (select_if): flags, an exclusive scan of the flags, a scatter;
///   - stable partition: the same, with the rejected elements placed after the kept ones;
///   - the radix sort's split: a partition on one bit of the key;
///   - allocation: an exclusive scan of requested sizes gives every request its start;
///   - segmented scan: one scan over (head flag, value) pairs with the segmented operator;
///   - single-pass forms of compaction, partition and segmented scan that fuse everything into the
///     decoupled look-back of section 11.8 (one read of the input, one write of each output).
/// The scans under the three-step forms are the lab's solutions: section 11.8's decoupled look-back
/// scan for the counts. The host side is applications_host.hpp.
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


// ---- Single pass: the applications fused into the decoupled look-back ----------------------------
//
// Section 11.8's scan, with a tile's elements turned into what the application needs before the block
// scan and after the look-back. The pieces a tile's life shares with 11.8 come from there: the 16-byte
// loads and the transpose (block_tile.cuh), the statuses (tile_status.cuh), the look-back
// (decoupled_lookback.cuh). Each thread holds Items CONSECUTIVE elements of its tile ("blocked"), so
// its part of the scan is a sequential loop, as in 11.8.

/// Section 11.8's step 5 for a tile whose elements combine to `aggregate`, in two halves, so that a
/// block can do other work while its first warp looks back. `self_contained`: the tile's inclusive
/// prefix does not depend on its predecessors (a segmented tile that holds a head: nothing before its
/// last head counts), so the aggregate goes out as its PREFIX at once and look-backs of later tiles
/// stop here.
/// First half, thread 0: publish the aggregate (as the PREFIX for tile 0 or a self-contained tile), so
/// later tiles can look past this one before it knows its own prefix.
template <class T>
__device__ __forceinline__ void publish_aggregate(const lookback::TileStatusArray& status, unsigned tile,
                                                  T aggregate, bool self_contained) {
  if (threadIdx.x == 0) {
    const bool prefix_now = tile == 0 || self_contained;
    lookback::publish_status(status, tile, prefix_now ? lookback::kPrefix : lookback::kAggregate, aggregate);
  }
}

/// Second half, called by the 32 lanes of warp 0 only: look back (section 11.8), publish the inclusive
/// PREFIX (unless the first half did), and leave the tile's exclusive prefix in `*shared_prefix` (a
/// __shared__ variable) for the block, which reads it after its next barrier.
template <class T, class Op>
__device__ void look_back_for_block(const lookback::TileStatusArray& status, unsigned tile, T aggregate, Op op,
                                    bool self_contained, T* shared_prefix) {
  const unsigned lane = threadIdx.x;
  if (tile == 0) {
    if (lane == 0) *shared_prefix = Op::identity();
    return;
  }
  const T prefix = look_back<T>(status, tile, op, lane, 0);
  if (lane == 0) {
    if (!self_contained) lookback::publish_status(status, tile, lookback::kPrefix, op(prefix, aggregate));
    *shared_prefix = prefix;
  }
}

/// Both halves, for a block with nothing to do in between: the tile's exclusive prefix, in every
/// thread.
template <class T, class Op>
__device__ T tile_exclusive_prefix(const lookback::TileStatusArray& status, unsigned tile, T aggregate, Op op,
                                   bool self_contained, T* shared_prefix) {
  publish_aggregate(status, tile, aggregate, self_contained);
  if (threadIdx.x < 32) look_back_for_block(status, tile, aggregate, op, self_contained, shared_prefix);
  __syncthreads();
  return *shared_prefix;
}

/// Whether a thread's Items elements from `first` can move as 16-byte vectors: all inside x[0..n)
/// and every array 16-byte aligned (else element by element, with bounds checks: the last tile).
template <class... P>
__device__ __forceinline__ bool whole_and_aligned(std::size_t tile_end, std::size_t n, const P*... arrays) {
  return tile_end <= n && ((reinterpret_cast<std::uintptr_t>(arrays) % 16 == 0) && ...);
}

/// Compaction and partition in ONE launch of ceil(n / (Threads * Items)) blocks, one tile each:
///   1. load the tile (Items consecutive elements per thread) and take a ticket;
///   2. flag each element, count the kept ones per thread, and scan the counts across the block (as
///      11.8 scans its elements): every thread learns the kept elements of the tile before its own;
///   3. publish the tile's count and look back (section 11.8): the kept elements of all earlier tiles;
///   4. meanwhile (the staging needs only the tile's own counts), stage the tile in shared memory,
///      its kept elements first and (partition) its rejected ones after them, each side in order;
///   5. copy the staged tile out: the kept ones to selected[prefix ...], the rejected ones to
///      rejected[(first - prefix) ...] (first - prefix elements before the tile were rejected).
///      Consecutive threads write consecutive addresses: the writes coalesce, which per-element
///      scattering (half the lanes of a warp active, every warp's run starting anywhere) does not.
/// `rejected` null: compaction. The last tile writes the total count to *d_count. Reads the n
/// elements once and writes each kept (or every) element once: the least traffic there is.
template <int Threads, int Items, class T, class Pred>
__global__ void __launch_bounds__(Threads)
    select_single_pass_kernel(const T* x, T* selected, T* rejected, std::size_t n, Pred pred,
                              lookback::TileStatusArray status, Count* d_count) {
  static_assert(Threads % 32 == 0 && Items <= 32, "whole warps; a thread's flags fit one 32-bit mask");
  constexpr int kWarps = Threads / 32;
  constexpr unsigned kTile = static_cast<unsigned>(Threads) * Items;
  constexpr int kSliceChunks = 32 * Items / lookback::Chunk<T>::kElements;  // per warp
  // The whole tile: first each warp's slice of it for the transpose, then the staged output.
  __shared__ lookback::Chunk<T> tile_chunks[kWarps * kSliceChunks];
  __shared__ Count warp_kept[kWarps];
  __shared__ Count tile_prefix;
  __shared__ unsigned tile_number;
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = threadIdx.x / 32;
  const Add<Count> add{};

  // 1. Load and take a ticket. As in 11.8, the loads of tile blockIdx.x (the likely ticket) are in
  //    flight while thread 0 takes the ticket; a block whose ticket is another tile loads that one.
  lookback::Chunk<T> chunks[Items / lookback::Chunk<T>::kElements];
  const auto load_tile = [&](unsigned t) {
    const std::size_t tile_first = static_cast<std::size_t>(t) * kTile;
    const bool vectors = whole_and_aligned(tile_first + kTile, n, x);
    lookback::load_warp_striped<Items>(x, tile_first + warp * 32 * Items, n, vectors, T{}, lane, chunks);
  };
  load_tile(blockIdx.x);
  const unsigned tile = lookback::take_block_tile(status, &tile_number);
  if (tile != blockIdx.x) load_tile(tile);
  const std::size_t first = static_cast<std::size_t>(tile) * kTile;
  const unsigned valid = static_cast<unsigned>(n - first < kTile ? n - first : kTile);  // elements in this tile
  T items[Items];
  lookback::striped_to_blocked<Items>(chunks, tile_chunks + warp * kSliceChunks, lane, items);

  // 2. Flags (bit i: element threadIdx.x * Items + i of the tile is kept), counts, block scan.
  const unsigned mine = threadIdx.x * Items;  // this thread's first element in the tile
  unsigned kept_bits = 0;
  SCANLAB_UNROLL for (int i = 0; i < Items; ++i) {
    if (mine + i < valid && pred(items[i])) kept_bits |= 1u << i;
  }
  const Count thread_kept = count_bits(kept_bits);
  const Count warp_inclusive = lookback::warp_inclusive_scan(thread_kept, add, lane);
  if (lane == 31) warp_kept[warp] = warp_inclusive;
  __syncthreads();  // (also: every warp is done with its transpose slice)
  Count tile_kept = 0;
  Count kept_before = warp_inclusive - thread_kept;  // kept elements of the tile before this thread's
  SCANLAB_UNROLL for (int w = 0; w < kWarps; ++w) {
    if (w < static_cast<int>(warp)) kept_before += warp_kept[w];
    tile_kept += warp_kept[w];
  }

  // 3. Publish the tile's count; warp 0 looks back for the kept elements of all earlier tiles while
  //    the other warps go on to stage (step 4 needs only the tile's own counts).
  publish_aggregate(status, tile, tile_kept, false);
  if (warp == 0) look_back_for_block(status, tile, tile_kept, add, false, &tile_prefix);

  // 4. Stage (the barrier in step 2 freed the slices).
  T* staged = reinterpret_cast<T*>(tile_chunks);
  // TODO(student) begin: put each of this thread's elements (mine + i < valid) at its place in
  //   `staged`: a kept one at kept_before (then one more is kept before the next), a rejected one, when
  //   rejected is not null, after the tile's tile_kept kept elements, at its rank among the rejected
  //   (the elements before it in the tile that were not kept).
  SCANLAB_UNROLL for (int i = 0; i < Items; ++i) {
    if (mine + i >= valid) break;
    if ((kept_bits >> i) & 1u) {
      staged[kept_before++] = items[i];
    } else if (rejected != nullptr) {
      staged[tile_kept + (mine + i - kept_before)] = items[i];
    }
  }
  // TODO(student) end
  __syncthreads();  // the staged tile and the look-back's prefix, for every thread
  const Count prefix = tile_prefix;
  if (tile == gridDim.x - 1 && threadIdx.x == 0) *d_count = prefix + tile_kept;

  // 5. Copy out, consecutive threads to consecutive addresses.
  SCANLAB_UNROLL for (int k = 0; k < Items; ++k) {
    const unsigned j = k * Threads + threadIdx.x;  // staged[j]
    // TODO(student) begin: staged[j] for j < tile_kept goes to selected, after the prefix kept elements
    //   of the earlier tiles; for tile_kept <= j < valid, when rejected is not null, to rejected, after
    //   the elements of the earlier tiles that were rejected.
    if (j < tile_kept) {
      selected[prefix + j] = staged[j];
    } else if (rejected != nullptr && j < valid) {
      rejected[first - prefix + (j - tile_kept)] = staged[j];
    }
    // TODO(student) end
  }
}

/// Inclusive scan of (flag, value) pairs across the 32 lanes of a warp: block_tile.cuh's
/// warp_inclusive_scan, with each half of a pair shuffled on its own (a shuffle moves one 4- or
/// 8-byte value).
template <class T, class SegOp>
__device__ __forceinline__ Flagged<T> warp_inclusive_scan_pairs(Flagged<T> v, SegOp seg, unsigned lane) {
  SCANLAB_UNROLL for (int d = 1; d < 32; d *= 2) {
    const Flagged<T> lower{__shfl_up_sync(lookback::kFullWarp, v.head, d),
                           __shfl_up_sync(lookback::kFullWarp, v.value, d)};
    if (lane >= static_cast<unsigned>(d)) v = seg(lower, v);
  }
  return v;
}

/// Segmented scan in ONE launch: section 11.8's scan of (head, value) pairs with the segmented
/// operator. Each tile loads its values and heads (Items consecutive per thread), scans the pairs
/// across the block, looks back, and writes the values. The look-back carries values only, with
/// the pair's flag in the status: a tile that holds a head publishes its aggregate as its PREFIX at
/// once (the value since its last head does not depend on any earlier tile), a tile without one
/// publishes an AGGREGATE, which combines with the plain operator. So a look-back stops at the
/// nearest tile that holds a head, and the tile's exclusive prefix counts only up to there. Reads x
/// and heads once, writes y once.
template <int Threads, int Items, class T, class Op>
__global__ void __launch_bounds__(Threads)
    segmented_scan_single_pass_kernel(const T* x, const Count* heads, T* y, std::size_t n, Op op, bool exclusive,
                                      lookback::TileStatusArray status) {
  static_assert(Threads % 32 == 0, "whole warps");
  using Pair = Flagged<T>;
  using SegOp = SegmentedOp<Op>;
  constexpr int kWarps = Threads / 32;
  constexpr std::size_t kTile = static_cast<std::size_t>(Threads) * Items;
  constexpr int kValueChunks = 32 * Items / lookback::Chunk<T>::kElements;   // per warp
  constexpr int kHeadChunks = 32 * Items / lookback::Chunk<Count>::kElements;  // per warp
  __shared__ lookback::Chunk<T> value_slices[kWarps * kValueChunks];
  __shared__ lookback::Chunk<Count> head_slices[kWarps * kHeadChunks];
  __shared__ Pair warp_totals[kWarps];
  __shared__ T tile_prefix;
  __shared__ unsigned tile_number;
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = threadIdx.x / 32;
  const SegOp seg{op};

  // 1. Load values (missing ones: the identity) and heads (missing ones: 0) of tile blockIdx.x while
  //    thread 0 takes the ticket, as the compaction above; again if the ticket is another tile.
  lookback::Chunk<T> chunks[Items / lookback::Chunk<T>::kElements];
  lookback::Chunk<Count> head_chunks[Items / lookback::Chunk<Count>::kElements];
  const auto warp_first = [&](unsigned t) { return static_cast<std::size_t>(t) * kTile + warp * 32 * Items; };
  const auto vectors = [&](unsigned t) {
    return whole_and_aligned((static_cast<std::size_t>(t) + 1) * kTile, n, x, heads, y);
  };
  const auto load_tile = [&](unsigned t) {
    lookback::load_warp_striped<Items>(x, warp_first(t), n, vectors(t), Op::identity(), lane, chunks);
    lookback::load_warp_striped<Items>(heads, warp_first(t), n, vectors(t), Count{0}, lane, head_chunks);
  };
  load_tile(blockIdx.x);
  const unsigned tile = lookback::take_block_tile(status, &tile_number);
  if (tile != blockIdx.x) load_tile(tile);
  lookback::Chunk<T>* value_slice = value_slices + warp * kValueChunks;
  T values[Items];
  Count flags[Items];
  lookback::striped_to_blocked<Items>(chunks, value_slice, lane, values);
  lookback::striped_to_blocked<Items>(head_chunks, head_slices + warp * kHeadChunks, lane, flags);

  // 2. Block scan of the pairs: thread totals, warp scan, warp totals (section 11.8's step 4).
  Pair thread_total{flags[0], values[0]};
  SCANLAB_UNROLL for (int i = 1; i < Items; ++i) thread_total = seg(thread_total, Pair{flags[i], values[i]});
  const Pair warp_inclusive = warp_inclusive_scan_pairs(thread_total, seg, lane);
  const Pair lower_lane{__shfl_up_sync(lookback::kFullWarp, warp_inclusive.head, 1),
                        __shfl_up_sync(lookback::kFullWarp, warp_inclusive.value, 1)};
  if (lane == 31) warp_totals[warp] = warp_inclusive;
  __syncthreads();
  Pair tile_aggregate = warp_totals[0];
  Pair warp_prefix = SegOp::identity();
  SCANLAB_UNROLL for (int w = 1; w < kWarps; ++w) {
    if (w == static_cast<int>(warp)) warp_prefix = tile_aggregate;
    tile_aggregate = seg(tile_aggregate, warp_totals[w]);
  }

  // 3. Look back over values: a tile with a head is self-contained (see above).
  const T prefix = tile_exclusive_prefix<T>(status, tile, tile_aggregate.value, op, tile_aggregate.head != 0,
                                            &tile_prefix);

  // 4. The pair before this thread's first element, then the outputs.
  Pair running = seg(Pair{0u, prefix}, seg(warp_prefix, lane == 0 ? SegOp::identity() : lower_lane));
  // TODO(student) begin: turn values[i] into the output: inclusive, the value of `running` once
  //   element i's pair (flags[i], values[i]) is combined in; exclusive, the value before it, or the
  //   identity where a segment starts.
  SCANLAB_UNROLL for (int i = 0; i < Items; ++i) {
    const T before = flags[i] != 0 ? Op::identity() : running.value;
    running = seg(running, Pair{flags[i], values[i]});
    values[i] = exclusive ? before : running.value;
  }
  // TODO(student) end

  // 5. Store through this warp's slice (its last readers passed two barriers since).
  lookback::store_warp_blocked<Items>(y, warp_first(tile), n, vectors(tile), value_slice, lane, values);
}

}  // namespace scanlab::s11_9
