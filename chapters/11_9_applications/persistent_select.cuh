/// \file persistent_select.cuh
/// \brief Section 11.9 (beyond the book): the single-pass compaction and stable partition on section
/// 11.8's persistent pipeline (persistent_scan.cuh).
///
/// select_single_pass_kernel (applications.cuh) gives each block one tile, as the book's kernels do:
/// once a block's loads have landed, nothing of its SM's share of the memory traffic is in flight while
/// it waits for its look-back and writes. Here a block stays for the whole launch, and its warps have
/// the roles of 11.8's persistent scan:
///   - the PRODUCER copies tiles into a ring of shared-memory stages (bulk copies on sm_90), up to
///     Stages tiles ahead of the select warps;
///   - the REDUCER counts each landed tile's kept elements and publishes the count;
///   - the LOOK-BACK warp finds each tile's prefix: the kept elements of all earlier tiles;
///   - the SELECT warps (warps 0 .. Warps-1) read a tile out of its stage, rank its elements, stage it
///     in shared memory in output order (the kept ones, then with `rejected` the others, each side in
///     order), take its prefix and copy it out, consecutive threads to consecutive addresses.
/// The producer, the reducer's loop and the look-back warp are 11.8's (lookback::pipeline); the count
/// of a tile and the select warps are this file's.
///
/// The select warps keep the tile as it left the stage, "striped": lane l of warp w holds 16-byte
/// chunks w * 32 * C + l + 32 v (v < C), so there is no transpose. A tile's elements are ordered by
/// chunk, so inside a warp the kept elements before one of lane l's are those of its rows before v,
/// of the lanes below l in row v, and its own earlier ones in the chunk: one ballot per element
/// position of a row tells every lane its row's counts.
#pragma once

#include <cstddef>
#include <cstdint>

#include "persistent_scan.cuh"
#include "scanlab/ops.hpp"

/// Warps of a block of persistent_select_kernel: the select warps, the reducer, the look-back warp,
/// the producer.
template <int Warps>
constexpr int persistent_select_block_warps() {
  return Warps + 3;
}

/// Dynamic shared memory of persistent_select_kernel: Stages tiles of T, and one tile of staged output.
template <int Warps, int Items, int Stages, class T>
constexpr std::size_t persistent_select_shared_bytes() {
  return static_cast<std::size_t>(Stages + 1) * Warps * 32 * Items * sizeof(T);
}

/// Compaction (`rejected` null: the kept elements of x, in order, into `selected`) or stable partition
/// (also the others, in order, into `rejected`) of x[0..n) in ONE launch of resident blocks, each
/// taking tiles of 32 * Warps * Items elements until the ticket counter runs past `tiles` =
/// ceil(n / tile). Keeps x[i] where pred(x[i]). The block of the last tile writes the count of kept
/// elements to *d_count. n > 0; any alignment. Dynamic shared memory:
/// persistent_select_shared_bytes<Warps, Items, Stages, T>().
template <int Warps, int Items, int Stages, class T, class Pred>
__global__ void __launch_bounds__((Warps + 3) * 32)  // persistent_select_block_warps()
    persistent_select_kernel(const T* x, T* selected, T* rejected, std::size_t n, Pred pred,
                             lookback::TileStatusArray status, unsigned tiles, std::uint32_t* d_count) {
  namespace lb = lookback;
  namespace pl = lookback::pipeline;
  using Count = std::uint32_t;
  constexpr int E = lb::Chunk<T>::kElements;
  constexpr int C = Items / E;                // chunks per lane of a select warp
  constexpr int kSliceChunks = 32 * C;        // one warp's part of a tile
  constexpr int kTileChunks = Warps * kSliceChunks;
  constexpr unsigned kTile = static_cast<unsigned>(kTileChunks) * E;
  constexpr unsigned kThreads = Warps * 32;  // select threads
  static_assert(Items % E == 0 && E <= 32, "items per thread must fill whole 16-byte chunks");
  static_assert(Stages >= 1 && Stages <= 16, "1 to 16 stages");
  constexpr int kLookBackWarp = Warps + 1;
  constexpr int kProducerWarp = Warps + 2;
  using Ring = pl::TileRing<T, kTileChunks, Stages>;

  lb::Chunk<T>* stage_data = scanlab::dynamic_shared<lb::Chunk<T>>();      // Stages tiles
  // One tile of staged output. The select warps meet twice a round, after their counts and after
  // staging, so a warp writes the next tile here only once every warp has copied this one out.
  T* const staged = reinterpret_cast<T*>(stage_data + Stages * kTileChunks);
  __shared__ pl::RingWords<Stages> words;
  __shared__ unsigned long long select_barrier;  // emulated named barrier (no TMA)
  __shared__ Count warp_kept[Warps];              // each warp's kept elements

  SCANLAB_TRACE_BLOCK_START;
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = threadIdx.x / 32;
  const Ring ring(&words, stage_data, x, n, tiles, lane, trace);
  const scanlab::Add<Count> add{};

  // As 11.8's persistent scan: the producer's first ticket and the copy of the guessed tile leave
  // before the block's one barrier.
  unsigned long long first_ticket = 0;
  if (warp == kProducerWarp && lane == 0) first_ticket = lb::take_ticket(status, tiles + gridDim.x);
  if (threadIdx.x == 0) {
    ring.init_barriers(Warps + 1, true);
    pl::barrier_init(&select_barrier, kThreads);
    pl::barrier_init_fence();
    if (blockIdx.x < tiles) ring.start_copy(blockIdx.x, 0, 1);  // (stage 0 is free)
  }
  __syncthreads();  // the last block-wide barrier: from here on the roles run apart

  // The elements of tile t: kTile, but for the last tile.
  const auto valid_in = [&](unsigned t) {
    const std::size_t rest = n - static_cast<std::size_t>(t) * kTile;
    return static_cast<unsigned>(rest < kTile ? rest : kTile);
  };

  if (warp == kProducerWarp) {
    pl::run_producer(ring, status, first_ticket);
    return;
  }
  if (warp == Warps) {
    // Reducer: the tile's kept elements. Lane l counts chunks l, 32 + l, ... (conflict-free reads).
    const auto tile_count = [&](const lb::Chunk<T>* src, unsigned tile, unsigned count) {
      const unsigned valid = valid_in(tile);
      Count kept = 0;
      if (count == kTileChunks) {
        SCANLAB_UNROLL for (int row = 0; row < kTileChunks / 32; ++row) {
          const lb::Chunk<T> c = src[row * 32 + lane];
          SCANLAB_UNROLL for (int e = 0; e < E; ++e) kept += pred(c.v[e]) ? 1u : 0u;
        }
      } else {
        for (int row = 0; row < kTileChunks / 32; ++row) {
          const int k = row * 32 + static_cast<int>(lane);
          if (static_cast<unsigned>(k) * E >= valid) break;
          const lb::Chunk<T> c = ring.chunk_at(src, tile, count, k, T{});
          for (int e = 0; e < E; ++e) kept += k * E + e < static_cast<int>(valid) && pred(c.v[e]) ? 1u : 0u;
        }
      }
      return __shfl_sync(lb::kFullWarp, lb::warp_reduce_in_order(kept, add, lane), 0);
    };
    pl::run_reducer<Count, true>(ring, status, tile_count, add);
    return;
  }
  if (warp == kLookBackWarp) {
    pl::run_look_back_warp<Count>(ring, status, add, 0u);
    return;
  }

  // ---- select warps -------------------------------------------------------------------------------
  const unsigned lower_lanes = (1u << lane) - 1u;
  unsigned sync_parity = 0;
  for (unsigned round = 0;; ++round) {
    const unsigned s = round % Ring::kRing;
    pl::barrier_wait(&words.full[s], (round / Ring::kRing) & 1u);
    const unsigned tile = ring.tile_number(s);
    if (tile == pl::kSkipStage) {  // a wrongly guessed tile: hand the stage back
      __syncwarp();
      if (lane == 0) pl::barrier_arrive(&words.empty[s]);
      ring.wait_prefixed(round);
      continue;
    }
    if (tile >= tiles) return;

    // 1. This warp's part of the tile, striped, out of the stage; the stage goes back at once.
    lb::Chunk<T> chunks[C];
    const lb::Chunk<T>* src = ring.stage(s);
    const int k0 = static_cast<int>(warp) * kSliceChunks + static_cast<int>(lane);
    const unsigned count = ring.copied_chunks(tile);
    if (count == kTileChunks) {
      SCANLAB_UNROLL for (int v = 0; v < C; ++v) chunks[v] = src[k0 + v * 32];
    } else {
      SCANLAB_UNROLL for (int v = 0; v < C; ++v) chunks[v] = ring.chunk_at(src, tile, count, k0 + v * 32, T{});
    }
    __syncwarp();
    if (lane == 0) pl::barrier_arrive(&words.empty[s]);

    // 2. Flags and ranks inside the warp: kept[v] bit e (chunk v, element e) is kept;
    //    before[v]: the warp's kept elements before this lane's chunk v.
    const unsigned valid = valid_in(tile);
    unsigned kept[C];
    Count before[C];
    Count in_warp = 0;
    SCANLAB_UNROLL for (int v = 0; v < C; ++v) {
      const unsigned i0 = static_cast<unsigned>(k0 + v * 32) * E;  // the chunk's first element in the tile
      unsigned bits = 0;
      SCANLAB_UNROLL for (int e = 0; e < E; ++e) {
        if (i0 + e < valid && pred(chunks[v].v[e])) bits |= 1u << e;
      }
      kept[v] = bits;
      Count lower = 0, row = 0;
      SCANLAB_UNROLL for (int e = 0; e < E; ++e) {
        const unsigned lanes_keeping = __ballot_sync(lb::kFullWarp, (bits >> e) & 1u);
        lower += lb::bits_set(lanes_keeping & lower_lanes);
        row += lb::bits_set(lanes_keeping);
      }
      before[v] = in_warp + lower;
      in_warp += row;
    }

    // 3. Across the warps: the kept elements of the tile, and of the warps before this one.
    if (lane == 0) warp_kept[warp] = in_warp;
    pl::scan_warps_sync(kThreads, &select_barrier, sync_parity);
    Count tile_kept = 0, warp_before = 0;
    SCANLAB_UNROLL for (int w = 0; w < Warps; ++w) {
      if (w < static_cast<int>(warp)) warp_before += warp_kept[w];
      tile_kept += warp_kept[w];
    }

    // 4. Stage the tile in output order: kept element of rank r at r, rejected element i (of the
    //    tile) after all kept ones, at tile_kept + (i - r) (i - r elements before it were rejected).
    SCANLAB_UNROLL for (int v = 0; v < C; ++v) {
      const unsigned i0 = static_cast<unsigned>(k0 + v * 32) * E;
      SCANLAB_UNROLL for (int e = 0; e < E; ++e) {
        const unsigned rank = warp_before + before[v] + lb::bits_set(kept[v] & ((1u << e) - 1u));
        if ((kept[v] >> e) & 1u) {
          staged[rank] = chunks[v].v[e];
        } else if (rejected != nullptr && i0 + e < valid) {
          staged[tile_kept + (i0 + e - rank)] = chunks[v].v[e];
        }
      }
    }

    // 5. The prefix (from the look-back warp, mostly found while the tile waited in the ring), then
    //    copy out: staged[j < tile_kept] to selected[prefix + j], the rest to rejected after the
    //    (first - prefix) elements of earlier tiles that were rejected.
    const Count prefix = ring.template take_prefix<Count>(round);
    pl::scan_warps_sync(kThreads, &select_barrier, sync_parity);  // the staged tile, for every thread
    if (tile == tiles - 1 && threadIdx.x == 0) *d_count = prefix + tile_kept;
    // (Written as two runs, not as the exercise's loop in select_single_pass_kernel: this file comes
    // with the student's copy of the lab, and must not hand out that answer.)
    T* const kept_run = selected + prefix;
    for (unsigned k = threadIdx.x; k < tile_kept; k += kThreads) kept_run[k] = staged[k];
    if (rejected != nullptr) {
      T* const rejected_run = rejected + (static_cast<std::size_t>(tile) * kTile - prefix);
      const T* const staged_rejected = staged + tile_kept;
      for (unsigned k = threadIdx.x; k < valid - tile_kept; k += kThreads) rejected_run[k] = staged_rejected[k];
    }
  }
}
