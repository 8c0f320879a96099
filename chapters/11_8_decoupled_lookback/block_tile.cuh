/// \file block_tile.cuh
/// \brief Section 11.8 (beyond the book): the pieces of a tile's life that do not depend on its
/// neighbours. Moving a tile between global memory and registers with 16-byte vector accesses and a
/// conflict-free transpose through shared memory, and scanning it with warp shuffles.
///
/// Layers, bottom up: a `Chunk` is 16 bytes (4 ints, 2 doubles); a warp moves 32 consecutive chunks
/// per instruction (512 bytes, perfectly coalesced: the "striped" arrangement) and transposes them, in
/// its own slice of shared memory, into the "blocked" arrangement a thread-sequential scan needs
/// (thread i holds consecutive elements). Only `__syncwarp()` separates the two halves of a
/// transpose: warps never read each other's slices.
///
/// The warp scan here is the Kogge-Stone scan of Sec. 11.2 on shuffles instead of shared memory.
/// (Written here because section 11.2 offers no shared warp-scan header; if one appears, this file
/// should include it instead.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "scanlab/kernel.hpp"

/// \def SCANLAB_UNROLL
/// Asks nvcc to unroll the loop that follows (on the cpu backend, nothing).
#if defined(SCANLAB_BACKEND_CUDA)
#define SCANLAB_UNROLL _Pragma("unroll")
#else
#define SCANLAB_UNROLL
#endif

namespace lookback {

inline constexpr unsigned kFullWarp = 0xffffffffu;

/// 16 bytes of elements: what one vector load or store moves.
template <class T>
struct alignas(16) Chunk {
  static constexpr int kElements = static_cast<int>(16 / sizeof(T));
  T v[kElements];
};

/// One 16-byte load from global memory (`p` 16-byte aligned). nvcc: one LDG.128.
template <class T>
__device__ __forceinline__ Chunk<T> load_chunk(const T* p) {
  Chunk<T> c;
#if defined(SCANLAB_BACKEND_CUDA)
  const uint4 raw = *reinterpret_cast<const uint4*>(p);
  std::memcpy(&c, &raw, sizeof(c));
#else
  std::memcpy(&c, p, sizeof(c));
#endif
  return c;
}

/// One 16-byte store to global memory (`p` 16-byte aligned): st.global.cs.v4, a streaming
/// store (`__stcs`, "evict first"): the scan never reads its output again, so the output should not
/// push other lines out of L2. Measured on an H100 (int32, 2^28): 831 us against 843 for a plain
/// store; the same hint on the loads (`__ldcs`) cost 29% (bench/README.md, "What did not help").
template <class T>
__device__ __forceinline__ void store_chunk(T* p, const Chunk<T>& c) {
#if defined(SCANLAB_BACKEND_CUDA)
  uint4 raw;
  std::memcpy(&raw, &c, sizeof(c));
  __stcs(reinterpret_cast<uint4*>(p), raw);
#else
  std::memcpy(p, &c, sizeof(c));
#endif
}

/// Where chunk `c` of a warp's slice lives in shared memory. Shared memory serves a 16-byte access
/// 8 lanes at a time (one 128-byte wavefront over all 32 banks), so 8 consecutive lanes must touch 8
/// different 16-byte columns of a 128-byte row. The striped side (lane l: chunk 32v + l) does so by
/// itself, and so does the blocked side (lane l: chunk C*l + j) for an odd C. For C = 2, 4, 8 the
/// blocked side would hit the same columns again and again (up to 8-way conflicts), so the column is
/// XORed with the row number: a swizzle, as in CUTLASS. (Other even C keep some 2-way conflicts.)
template <int C>
__device__ __forceinline__ int swizzle(int c) {
  if constexpr (C % 2 == 1) {
    return c;
  } else {
    return c ^ ((c >> 3) & 7);
  }
}

/// The 16-byte chunks this warp loads for `32 * Items` elements starting at element `first` of
/// x[0..n), striped: lane l gets chunks l, 32 + l, 64 + l, ... (every load instruction of the warp
/// reads 512 consecutive bytes). Elements at n or beyond become `fill`. `vector_ok`: the whole range
/// is inside x[0..n) and x is 16-byte aligned (then 16-byte loads, all issued before any is used;
/// else element loads with bounds checks: the last tile, or a misaligned array).
template <int Items, class T>
__device__ __forceinline__ void load_warp_striped(const T* x, std::size_t first, std::size_t n, bool vector_ok,
                                                  T fill, unsigned lane, Chunk<T> (&c)[Items / Chunk<T>::kElements]) {
  constexpr int E = Chunk<T>::kElements;
  constexpr int C = Items / E;  // chunks per lane
  static_assert(Items % E == 0, "items per thread must fill whole 16-byte chunks");
  if (vector_ok) {
    SCANLAB_UNROLL for (int v = 0; v < C; ++v) {
      c[v] = load_chunk(x + first + static_cast<std::size_t>(v * 32 + lane) * E);
    }
  } else {
    SCANLAB_UNROLL for (int v = 0; v < C; ++v) {
      SCANLAB_UNROLL for (int e = 0; e < E; ++e) {
        const std::size_t i = first + static_cast<std::size_t>(v * 32 + lane) * E + e;
        c[v].v[e] = i < n ? x[i] : fill;
      }
    }
  }
}

/// Transposes striped chunks (from load_warp_striped) into blocked `items` through this warp's
/// `slice` of shared memory (32*Items/kElements chunks): lane l gets elements l*Items ..
/// l*Items + Items - 1 of the warp's range.
template <int Items, class T>
__device__ __forceinline__ void striped_to_blocked(const Chunk<T> (&c)[Items / Chunk<T>::kElements],
                                                   Chunk<T>* slice, unsigned lane, T (&items)[Items]) {
  constexpr int E = Chunk<T>::kElements;
  constexpr int C = Items / E;
  SCANLAB_UNROLL for (int v = 0; v < C; ++v) slice[swizzle<C>(v * 32 + lane)] = c[v];
  __syncwarp();
  SCANLAB_UNROLL for (int j = 0; j < C; ++j) {
    const Chunk<T> b = slice[swizzle<C>(static_cast<int>(lane) * C + j)];
    SCANLAB_UNROLL for (int e = 0; e < E; ++e) items[j * E + e] = b.v[e];
  }
}

/// The reverse of load_warp_striped and striped_to_blocked: stores the blocked `items` to y[first ..), only elements below
/// n. The caller makes sure no lane still reads `slice` (a barrier since the load).
template <int Items, class T>
__device__ __forceinline__ void store_warp_blocked(T* y, std::size_t first, std::size_t n, bool vector_ok,
                                                   Chunk<T>* slice, unsigned lane, const T (&items)[Items]) {
  constexpr int E = Chunk<T>::kElements;
  constexpr int C = Items / E;
  SCANLAB_UNROLL for (int j = 0; j < C; ++j) {
    Chunk<T> c;
    SCANLAB_UNROLL for (int e = 0; e < E; ++e) c.v[e] = items[j * E + e];
    slice[swizzle<C>(static_cast<int>(lane) * C + j)] = c;
  }
  __syncwarp();
  SCANLAB_UNROLL for (int v = 0; v < C; ++v) {
    const Chunk<T> c = slice[swizzle<C>(v * 32 + lane)];
    const std::size_t i0 = first + static_cast<std::size_t>(v * 32 + lane) * E;
    if (vector_ok) {
      store_chunk(y + i0, c);
    } else {
      SCANLAB_UNROLL for (int e = 0; e < E; ++e) {
        if (i0 + e < n) y[i0 + e] = c.v[e];
      }
    }
  }
}

/// Inclusive scan across the 32 lanes of a warp (Kogge-Stone, Sec. 11.2, on shuffles): lane l
/// returns v_0 (+) ... (+) v_l. 5 steps; the lower operand is always on the left.
template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T v, Op op, unsigned lane) {
  SCANLAB_UNROLL for (int d = 1; d < 32; d *= 2) {
    const T lower = __shfl_up_sync(kFullWarp, v, d);
    if (lane >= static_cast<unsigned>(d)) v = op(lower, v);
  }
  return v;
}

/// Reduction across the 32 lanes of a warp in lane order: lane 0 returns v_0 (+) v_1 (+) ... (+) v_31
/// (other lanes return partial results). After the step with distance d, lane l holds the lanes
/// [l, l + 2d) combined left to right, so a non-commutative operator is safe.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce_in_order(T v, Op op, unsigned lane) {
  SCANLAB_UNROLL for (int d = 1; d < 32; d *= 2) {
    const T higher = __shfl_down_sync(kFullWarp, v, d);
    if (lane + d < 32) v = op(v, higher);
  }
  return v;
}

/// The last step of a tile's scan, for a thread holding `Items` consecutive elements of it: its
/// exclusive prefix is the tile's (`tile_exclusive`, from the look-back) (+) the warps before its
/// own (`warp_prefix`) (+) the lanes before it in its warp (`lower_lane`, lane l - 1's inclusive
/// warp-scan value; nothing for lane 0). Then a sequential scan of the items after that prefix:
/// inclusive, or exclusive (each item replaced by what came before it).
template <int Items, class T, class Op>
__device__ __forceinline__ void scan_thread_items(T (&items)[Items], T tile_exclusive, T warp_prefix, T lower_lane,
                                                  unsigned lane, Op op, bool exclusive) {
  T running = op(tile_exclusive, op(warp_prefix, lane == 0 ? Op::identity() : lower_lane));
  if (exclusive) {
    SCANLAB_UNROLL for (int i = 0; i < Items; ++i) {
      const T xi = items[i];
      items[i] = running;
      running = op(running, xi);
    }
  } else {
    SCANLAB_UNROLL for (int i = 0; i < Items; ++i) {
      running = op(running, items[i]);
      items[i] = running;
    }
  }
}

/// The highest set bit of a non-zero mask (the nearest predecessor, in a look-back window).
__device__ __forceinline__ int highest_lane(unsigned mask) {
#if defined(SCANLAB_BACKEND_CUDA)
  return 31 - __clz(static_cast<int>(mask));
#else
  return 31 - __builtin_clz(mask);
#endif
}

/// The number of set bits of a mask.
__device__ __forceinline__ unsigned bits_set(unsigned mask) {
#if defined(SCANLAB_BACKEND_CUDA)
  return static_cast<unsigned>(__popc(mask));
#else
  return static_cast<unsigned>(__builtin_popcount(mask));
#endif
}

}  // namespace lookback
