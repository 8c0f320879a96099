/// \file multi_gpu.cuh
/// \brief Section 11.10 (beyond the book): the kernels of a scan across G GPUs, besides 11.8's scan.
///
/// The array is cut into G pieces, piece g in GPU g's memory. The chapter's hierarchical scan (Sec.
/// 11.6) one level up: scan the pieces, scan their totals, add to each piece the totals before it.
/// Every GPU scans its piece with section 11.8's persistent scan; what is new here is small:
///   - a piece's TOTAL, for the other GPUs (piece_total_kernel, or reduce_kernel before the scan);
///   - a piece's CARRY, the totals of the pieces before it combined in order (carry_before): the
///     totals of all GPUs are gathered on every GPU first (the host's exchange_totals);
///   - the carry added to every element of a scanned piece (add_carry_kernel), or handed to the scan
///     as the prefix before its first tile (carry_kernel, then 11.8's scan with a carry in).
/// The operator need not be commutative (`last`): the carry is always the LEFT operand.
#pragma once

#include <cstddef>

#include "block_tile.cuh"  // section 11.8: 16-byte loads, the transpose, in-order warp reduction
#include "scanlab/kernel.hpp"

/// Piece `piece`'s carry: totals[0] (+) totals[1] (+) ... (+) totals[piece - 1], in that order; the
/// identity for piece 0. `totals` holds the G pieces' totals, gathered on this GPU.
template <class T, class Op>
__device__ __forceinline__ T carry_before(const T* totals, int piece, Op op) {
  // TODO(student) begin: combine the totals of the pieces BEFORE this one, from piece 0 up, starting
  // from the identity (piece 0 has nothing before it).
  // (your code here)
  (void)totals, (void)piece, (void)op;  // (silences "unused" warnings)
  return Op::identity();  // (right for piece 0 only: replace it)
  // TODO(student) end
}

/// The total of a piece of n elements that 11.8's scan wrote into y (one thread): the inclusive
/// scan's last element is the total; an exclusive scan's last element lacks the piece's last input,
/// `*last_input` (copied aside before the scan: an in-place scan overwrites it). An empty piece's
/// total is the identity.
template <class T, class Op>
__global__ void piece_total_kernel(const T* y, const T* last_input, std::size_t n, Op op, bool exclusive, T* total) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  // TODO(student) begin: write the piece's total into *total (see above: three cases).
  // (your code here)
  (void)y, (void)last_input, (void)n, (void)op, (void)exclusive, (void)total;  // (silences "unused" warnings)
  // TODO(student) end
}

/// The carry way's second pass over a scanned piece: y[i] = carry (+) y[i], carry = carry_before
/// (every thread computes it: G values, read once into registers). A grid-stride loop.
template <class T, class Op>
__global__ void add_carry_kernel(T* y, std::size_t n, const T* totals, int piece, Op op) {
  // TODO(student) begin: this piece's carry, then add it on the LEFT of every element of y, each
  // element once, whatever the grid.
  // (your code here)
  (void)y, (void)n, (void)totals, (void)piece, (void)op;  // (silences "unused" warnings)
  // TODO(student) end
}

/// Reduce-then-scan: writes piece `piece`'s carry into *carry (one thread), for 11.8's scan to
/// start from.
template <class T, class Op>
__global__ void carry_kernel(const T* totals, int piece, Op op, T* carry) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *carry = carry_before(totals, piece, op);
}

/// Reduce-then-scan's first pass: block b combines, in order, the tiles b * tiles_per_block .. of
/// x[0..n) (a tile: Threads * Items elements) into partials[b]. A tile is loaded and transposed as in
/// 11.8's scan (each thread then holds Items consecutive elements), reduced per thread, per warp in
/// lane order, then the warps in order: the order of the elements, so `last` and floats come out as
/// a scan's last element would. Launched once more, with one block, over the partials.
template <int Threads, int Items, class T, class Op>
__global__ void __launch_bounds__(Threads)
    reduce_kernel(const T* x, std::size_t n, Op op, std::size_t tiles_per_block, T* partials) {
  constexpr int kWarps = Threads / 32;
  constexpr std::size_t kTile = static_cast<std::size_t>(Threads) * Items;
  constexpr int kSliceChunks = 32 * Items / lookback::Chunk<T>::kElements;
  constexpr int kChunks = Items / lookback::Chunk<T>::kElements;
  __shared__ lookback::Chunk<T> exchange[kWarps * kSliceChunks];
  __shared__ T warp_totals[kWarps];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const bool aligned = reinterpret_cast<std::uintptr_t>(x) % 16 == 0;
  const std::size_t tiles = (n + kTile - 1) / kTile;
  const std::size_t first_tile = blockIdx.x * tiles_per_block;
  const std::size_t end_tile = first_tile + tiles_per_block < tiles ? first_tile + tiles_per_block : tiles;
  T block_total = Op::identity();  // (thread 0's)
  for (std::size_t tile = first_tile; tile < end_tile; ++tile) {
    const std::size_t first = tile * kTile + warp * 32 * Items;
    lookback::Chunk<T> chunks[kChunks];
    lookback::load_warp_striped<Items>(x, first, n, aligned && first + 32 * Items <= n, Op::identity(), lane, chunks);
    T items[Items];
    lookback::striped_to_blocked<Items>(chunks, exchange + warp * kSliceChunks, lane, items);
    T thread_total = items[0];
    SCANLAB_UNROLL for (int i = 1; i < Items; ++i) thread_total = op(thread_total, items[i]);
    const T warp_total = lookback::warp_reduce_in_order(thread_total, op, lane);  // (lane 0's)
    if (lane == 0) warp_totals[warp] = warp_total;
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 0; w < kWarps; ++w) block_total = op(block_total, warp_totals[w]);
    }
    __syncthreads();  // warp_totals and the slices are reused by the next tile
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = block_total;
}
