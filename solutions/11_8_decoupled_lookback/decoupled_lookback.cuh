/// \file decoupled_lookback.cuh
/// \brief Section 11.8 (beyond the book): the single-pass scan with decoupled look-back (Merrill and
/// Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", NVIDIA, 2016).
///
/// Sec. 11.7's single-pass scan (stream-based, "adjacent synchronization") makes tile i wait for tile
/// i-1's full prefix, which waited for tile i-2's: one long chain of global-memory round trips. The
/// decoupled look-back breaks the chain. Every tile publishes two things, as soon as it knows them:
///
///   1. its AGGREGATE (the combination of its own elements), right after its block scan;
///   2. its inclusive PREFIX (everything up to its last element), once it knows its exclusive prefix.
///
/// To find its exclusive prefix, a tile's first warp reads the statuses of its 32 nearest
/// predecessors at once (one lane each), finds the nearest one that has published its PREFIX, and
/// combines that prefix with the aggregates of the tiles after it, in order. If none of the 32 has,
/// it combines all 32 aggregates and looks at the next 32. A tile rarely waits: its predecessors
/// publish their aggregates without waiting for anyone.
///
/// The whole scan is ONE kernel launch, reading n and writing n elements: the least traffic any scan
/// can have (the same bytes as a copy). Three details make that possible:
/// - tiles are numbered by an atomic ticket counter, in the order blocks start, so a tile waits only
///   for tiles that started before it (and therefore run or ran: no deadlock, whatever order the
///   hardware starts blocks in); the block that takes the last ticket rewinds the counter to 0;
/// - statuses carry the launch's epoch, so statuses left by an earlier launch read as "not yet
///   published" and no kernel has to clear them first (see tile_status.cuh);
/// - flag and value share one 64-bit word, so one load reads both and no fence separates them.
///
/// Contract (the kernel and its host side, chapters/11_8_decoupled_lookback/decoupled_lookback_scan.hpp):
/// - inclusive y[i] = x[0] (+) ... (+) x[i]; exclusive y[0] = identity, y[i] = x[0] (+) ... (+) x[i-1];
/// - any n (64-bit indices); n == 0 launches nothing;
/// - in place (y == x) allowed; x and y need no particular alignment (misaligned arrays take the
///   element-by-element path instead of 16-byte vectors);
/// - one workspace (ticket counter + statuses) per stream at a time: two concurrent scans must not
///   share one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "block_tile.cuh"
#include "scanlab/kernel.hpp"
#include "tile_status.cuh"

/// Threads per block and elements per thread, tuned for sm_90 (H100): 128 threads of 32 ints (128
/// bytes, a 16 KiB tile) or of 24 eight-byte values (192 bytes, a 24 KiB tile). kItems must fill whole
/// 16-byte chunks (a multiple of 4 for 4-byte types, of 2 for 8-byte types). The benchmark
/// (chapters/11_8_decoupled_lookback/bench) sweeps other choices; its README gives the measured
/// reasons for these.
template <class T>
struct DecoupledLookbackTuning {
  static constexpr int kThreads = 128;
  static constexpr int kItems = sizeof(T) == 4 ? 32 : 24;
};

/// The epoch of each launch that uses one workspace (see tile_status.cuh). Host code.
struct LaunchEpochs {
  unsigned current = 0;  ///< 0 before the first launch (the workspace starts zeroed)

  /// Moves to the next launch's epoch. Returns true when the caller must zero the workspace first:
  /// after kMaxEpoch launches the numbers start again at 1, and statuses from 2^30 launches ago must
  /// not pass for current ones.
  bool advance() {
    if (current == lookback::kMaxEpoch) {
      current = 1;
      return true;
    }
    ++current;  // a new epoch: every status written by an earlier launch is now stale
    return false;
  }
};

/// Waits a little between two reads of a status that is not published yet. On a GPU: sleeps
/// `spin_ns` (0: not at all), and after 2^25 tries stops the kernel with `__trap()` (CUDA then reports
/// "an illegal instruction was encountered"): a tile that never publishes would otherwise hang the
/// GPU. (No printf: it would cost the kernel a dozen registers, and occupancy, on its fast path.) On
/// the cpu backend: nothing; the atomic reads are where the emulator runs other threads, and its
/// watchdog reports a tile that never publishes, with the line it waits at.
__device__ __forceinline__ void wait_for_status(unsigned spin_ns, unsigned tries) {
#if defined(SCANLAB_BACKEND_CUDA)
  if (spin_ns != 0) __nanosleep(spin_ns);
  if (tries == (1u << 25)) __trap();
#else
  (void)spin_ns, (void)tries;
#endif
}

/// The look-back (called by all 32 lanes of a tile's first warp, for tile > 0). Returns, in every
/// lane, the tile's exclusive prefix
///     P(p) (+) A(p+1) (+) ... (+) A(tile-1),
/// where p is the nearest predecessor that has published its inclusive prefix P, and A(i) is tile
/// i's aggregate. One window = the 32 tiles before `window_end`, lane l reading tile
/// window_end - 32 + l (so the nearest predecessor is lane 31). Tiles before 0 count as the prefix
/// "identity", so the look-back always ends.
template <class T, class Op>
__device__ T look_back(const lookback::TileStatusArray& status, unsigned tile, Op op, unsigned lane,
                       unsigned spin_ns) {
  T exclusive = Op::identity();  // the tiles from window_end to tile - 1, combined in order
  long long window_end = tile;
  for (;;) {
    const long long predecessor = window_end - 32 + static_cast<long long>(lane);
    lookback::TileStatus<T> s{lookback::kPrefix, Op::identity()};
    // TODO(student) begin: wait until all 32 predecessors have published (__all_sync), find the
    // nearest PREFIX (__ballot_sync, lookback::highest_lane), combine its value and the aggregates
    // after it in index order (lookback::warp_reduce_in_order), put that window to the LEFT of
    // `exclusive`, and return, or move the window 32 tiles back.
    for (unsigned tries = 0;; ++tries) {
      if (predecessor >= 0) s = lookback::read_status<T>(status, static_cast<unsigned>(predecessor));
      if (__all_sync(lookback::kFullWarp, s.flag != lookback::kNotPublished)) break;
      wait_for_status(spin_ns, tries);
    }
    const unsigned prefixes = __ballot_sync(lookback::kFullWarp, s.flag == lookback::kPrefix);
    // Lanes below the nearest prefix are already included in it.
    const int nearest = prefixes != 0 ? lookback::highest_lane(prefixes) : 0;
    const T mine = static_cast<int>(lane) >= nearest ? s.value : Op::identity();
    const T window = __shfl_sync(lookback::kFullWarp, lookback::warp_reduce_in_order(mine, op, lane), 0);
    exclusive = op(window, exclusive);  // the window holds earlier tiles: it goes on the left
    if (prefixes != 0) return exclusive;
    window_end -= 32;
    // TODO(student) end
  }
}

/// The decoupled look-back scan: one launch of ceil(n / (Threads * Items)) blocks, one tile each.
/// - `exclusive`: exclusive scan, else inclusive.
/// - `status`: the ticket counter (0 before the launch; 0 again after it) and the statuses of this
///   launch's epoch.
/// - `prefix_mask`: tiles with (tile & prefix_mask) != 0 publish only their aggregate, never their
///   prefix. 0 for real use; tests set it so that look-backs must walk through many windows of
///   aggregates, which a sequential emulator (blocks one after another) would otherwise never do.
/// - `spin_ns`: sleep between two reads of an unpublished status (0: spin).
/// - `speculate`: start loading tile blockIdx.x before the ticket says which tile this block scans
///   (see step 1). false: load after the ticket, as the plain algorithm does.
template <int Threads, int Items, class T, class Op>
__global__ void __launch_bounds__(Threads)
    decoupled_lookback_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive,
                                   lookback::TileStatusArray status, unsigned prefix_mask, unsigned spin_ns,
                                   bool speculate) {
  static_assert(Threads % 32 == 0, "whole warps");
  constexpr int kWarps = Threads / 32;
  constexpr std::size_t kTile = static_cast<std::size_t>(Threads) * Items;
  constexpr int kSliceChunks = 32 * Items / lookback::Chunk<T>::kElements;  // per warp
  __shared__ lookback::Chunk<T> exchange[kWarps * kSliceChunks];
  __shared__ T warp_totals[kWarps];
  __shared__ T tile_exclusive;  // the look-back's result, for the whole block
  __shared__ unsigned tile_number;
  scanlab::trace_shared("warp_totals", warp_totals, kWarps);

  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = threadIdx.x / 32;

  // 1. Guess the tile and start loading it: blocks mostly start in index order, so this block's
  //    tile is probably blockIdx.x. Its loads are in flight while thread 0 takes the ticket (a round
  //    trip to L2 that would otherwise come first). A block whose ticket is another tile loads again
  //    (rare on a GPU; the emulator's reverse and random block orders make it the rule in tests).
  //    Loads go straight to registers as 16-byte vectors, coalesced; missing elements of the last
  //    tile (and of misaligned arrays, loaded element by element) read as the identity.
  constexpr int kChunks = Items / lookback::Chunk<T>::kElements;  // per thread
  const bool aligned = reinterpret_cast<std::uintptr_t>(x) % 16 == 0 && reinterpret_cast<std::uintptr_t>(y) % 16 == 0;
  const auto warp_first = [&](unsigned t) { return static_cast<std::size_t>(t) * kTile + warp * 32 * Items; };
  const auto vector_ok = [&](unsigned t) { return aligned && (static_cast<std::size_t>(t) + 1) * kTile <= n; };
  const unsigned guess = blockIdx.x;
  lookback::Chunk<T> chunks[kChunks];
  if (speculate) {
    lookback::load_warp_striped<Items>(x, warp_first(guess), n, vector_ok(guess), Op::identity(), lane, chunks);
  }

  // 2. Take a ticket: tiles are numbered in the order blocks start, so every predecessor of this
  //    tile has started and will publish. The last ticket of the launch rewinds the counter (every
  //    block has taken its ticket by then), ready for the next launch: no reset kernel.
  if (threadIdx.x == 0) tile_number = static_cast<unsigned>(lookback::take_ticket(status, gridDim.x));
  __syncthreads();
  const unsigned tile = tile_number;
  if (!speculate || tile != guess) {  // the same for the whole block
    lookback::load_warp_striped<Items>(x, warp_first(tile), n, vector_ok(tile), Op::identity(), lane, chunks);
  }

  // 3. Transpose in this warp's slice of shared memory: Items consecutive elements per thread.
  lookback::Chunk<T>* slice = exchange + warp * kSliceChunks;
  T items[Items];
  lookback::striped_to_blocked<Items>(chunks, slice, lane, items);

  // 4. Block scan (Sec. 11.5's three phases): each thread reduces its items, the warp scans the
  //    thread totals on shuffles, and every thread combines the warp totals before its own warp.
  T thread_total = items[0];
  SCANLAB_UNROLL for (int i = 1; i < Items; ++i) thread_total = op(thread_total, items[i]);
  const T warp_inclusive = lookback::warp_inclusive_scan(thread_total, op, lane);
  const T lower_lane = __shfl_up_sync(lookback::kFullWarp, warp_inclusive, 1);
  if (lane == 31) warp_totals[warp] = warp_inclusive;
  __syncthreads();
  T tile_aggregate = warp_totals[0];
  T warp_prefix = Op::identity();
  SCANLAB_UNROLL for (int w = 1; w < kWarps; ++w) {
    if (w == static_cast<int>(warp)) warp_prefix = tile_aggregate;
    tile_aggregate = op(tile_aggregate, warp_totals[w]);
  }

  // 5. Publish, look back, publish again.
  // TODO(student) begin: tile 0 publishes its aggregate as its PREFIX and has the identity before
  // it. Any other tile: thread 0 publishes the AGGREGATE at once (lookback::publish_status), then
  // warp 0 calls look_back; lane 0 publishes the inclusive PREFIX (only if (tile & prefix_mask) == 0)
  // and leaves the exclusive prefix in tile_exclusive for the block.
  if (tile == 0) {
    if (threadIdx.x == 0) {
      lookback::publish_status(status, tile, lookback::kPrefix, tile_aggregate);
      tile_exclusive = Op::identity();
    }
  } else {
    if (threadIdx.x == 0) lookback::publish_status(status, tile, lookback::kAggregate, tile_aggregate);
    if (warp == 0) {
      const T prefix = look_back<T>(status, tile, op, lane, spin_ns);
      if (lane == 0) {
        if ((tile & prefix_mask) == 0) {
          lookback::publish_status(status, tile, lookback::kPrefix, op(prefix, tile_aggregate));
        }
        tile_exclusive = prefix;
      }
    }
  }
  // TODO(student) end
  __syncthreads();

  // 6. Each thread's exclusive prefix: tile (+) warps before (+) lanes before; then scan its items.
  lookback::scan_thread_items(items, tile_exclusive, warp_prefix, lower_lane, lane, op, exclusive);

  // 7. Store through the same warp slice (its last readers passed two barriers since).
  lookback::store_warp_blocked<Items>(y, warp_first(tile), n, vector_ok(tile), slice, lane, items);
}
