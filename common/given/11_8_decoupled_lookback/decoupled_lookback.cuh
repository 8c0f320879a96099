/// \file decoupled_lookback.cuh
/// \brief Given stand-in (common/given/README.md) for section 11.8's decoupled_lookback.cuh in the
/// student release, where section 11.9 builds on it: the solution's interface (look_back, the scan
/// kernel, LaunchEpochs, DecoupledLookbackTuning) with the plainest code that keeps its contract.
/// - look_back: lane 0 alone walks back one predecessor at a time, waiting for each, until it meets a
///   PREFIX; the same result as the book's window of 32 lanes, not its algorithm.
/// - the scan kernel: thread 0 scans the block's tile serially (given::serial_scan) and looks back.
/// - LaunchEpochs: the statuses are zeroed before every launch (epoch 1 always), not numbered.
/// So section 11.9 is graded on its own code, whatever the student's 11.8 holds.
#pragma once

#include <cstddef>

#include "block_tile.cuh"
#include "given_scan.cuh"
#include "scanlab/kernel.hpp"
#include "tile_status.cuh"

/// The solution's tile (section 11.9's tests pick their sizes around it): 128 threads of 32 4-byte
/// or 24 8-byte elements.
template <class T>
struct DecoupledLookbackTuning {
  static constexpr int kThreads = 128;
  static constexpr int kItems = sizeof(T) == 4 ? 32 : 24;
};

/// The epoch of each launch. The stand-in zeroes the workspace before every launch and uses epoch 1.
struct LaunchEpochs {
  unsigned current = 0;
  bool advance() {  // true: the caller zeroes the workspace first
    current = 1;
    return true;
  }
};

/// One wait for an unpublished status: on a GPU, a pause, and after 2^25 tries a trap (a tile that
/// never publishes must not hang the GPU); on the cpu backend nothing (the emulator's watchdog
/// reports it).
__device__ __forceinline__ void wait_for_status(unsigned spin_ns, unsigned tries) {
#if defined(SCANLAB_BACKEND_CUDA)
  if (spin_ns != 0) __nanosleep(spin_ns);
  if (tries == (1u << 25)) __trap();
#else
  (void)spin_ns, (void)tries;
#endif
}

/// Tile `tile`'s exclusive prefix (tile > 0), in every lane of the calling warp (all 32 lanes call):
/// the nearest predecessor's PREFIX combined with the AGGREGATEs of the tiles after it, in order.
template <class T, class Op>
__device__ T look_back(const lookback::TileStatusArray& status, unsigned tile, Op op, unsigned lane,
                       unsigned spin_ns) {
  T exclusive = Op::identity();
  if (lane == 0) {
    for (long long p = static_cast<long long>(tile) - 1; p >= 0; --p) {
      lookback::TileStatus<T> s = lookback::read_status<T>(status, static_cast<unsigned>(p));
      for (unsigned tries = 0; s.flag == lookback::kNotPublished; ++tries) {
        wait_for_status(spin_ns, tries);
        s = lookback::read_status<T>(status, static_cast<unsigned>(p));
      }
      exclusive = op(s.value, exclusive);  // tile p comes earlier: on the left
      if (s.flag == lookback::kPrefix) break;
    }
  }
  return __shfl_sync(lookback::kFullWarp, exclusive, 0);
}

/// The solution's launch contract: ceil(n / (Threads * Items)) blocks of Threads threads, one tile
/// each, numbered by ticket; inclusive or exclusive; in place allowed. Tiles with
/// (tile & prefix_mask) != 0 publish only their aggregate. `speculate` changes nothing here.
template <int Threads, int Items, class T, class Op>
__global__ void __launch_bounds__(Threads)
    decoupled_lookback_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive,
                                   lookback::TileStatusArray status, unsigned prefix_mask, unsigned spin_ns,
                                   bool speculate) {
  (void)speculate;
  constexpr unsigned kTile = static_cast<unsigned>(Threads) * Items;
  __shared__ T XY[kTile];
  __shared__ T tile_exclusive;
  __shared__ unsigned tile_number;
  const unsigned tile = lookback::take_block_tile(status, &tile_number);
  const std::size_t first = static_cast<std::size_t>(tile) * kTile;
  for (unsigned j = threadIdx.x; j < kTile; j += Threads) XY[j] = first + j < n ? x[first + j] : Op::identity();
  T aggregate = Op::identity();  // thread 0's: the tile's total
  scanlab::given::serial_scan(XY, kTile, op, aggregate);
  if (threadIdx.x < 32) {
    if (tile == 0) {
      if (threadIdx.x == 0) {
        lookback::publish_status(status, tile, lookback::kPrefix, aggregate);
        tile_exclusive = Op::identity();
      }
    } else {
      if (threadIdx.x == 0) lookback::publish_status(status, tile, lookback::kAggregate, aggregate);
      const T prefix = look_back<T>(status, tile, op, threadIdx.x, spin_ns);
      if (threadIdx.x == 0) {
        if ((tile & prefix_mask) == 0) lookback::publish_status(status, tile, lookback::kPrefix, op(prefix, aggregate));
        tile_exclusive = prefix;
      }
    }
  }
  __syncthreads();
  for (unsigned j = threadIdx.x; j < kTile && first + j < n; j += Threads) {
    y[first + j] = !exclusive ? op(tile_exclusive, XY[j]) : j == 0 ? tile_exclusive : op(tile_exclusive, XY[j - 1]);
  }
}
