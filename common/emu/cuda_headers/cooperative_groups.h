/// \file cooperative_groups.h (cpu backend)
/// \brief CUDA's cooperative groups, the part that block and warp scans use, for kernels that
/// scanlab's SIMT emulator runs: `this_thread_block()`, `tiled_partition<N>()` (N = 1 to 32) and
/// their collectives. With nvcc, `#include <cooperative_groups.h>` finds the CUDA toolkit's header; a
/// cpu kernel library has this folder (common/emu/cuda_headers/) on its include path instead
/// (scanlab_kernel_library, common/cmake/scanlab.cmake).
///
/// Nothing here is a second implementation: a group's operations are the emulator's own
/// `__syncthreads()`, `__syncwarp(mask)`, `__shfl_*_sync(mask, ..., width)` and `__ballot_sync(mask)`
/// with the mask and width of the group, as CUDA's header builds them. So the emulator's checks
/// apply as to the built-ins (a block.sync() that not every thread reaches is barrier divergence, a
/// tile operation that a lane of the tile skips is reported), and its messages name the kernel's
/// line: every operation takes the place of its call (`Where`, filled in by the compiler).
/// What CUDA has and this does not (grid and cluster groups, coalesced_threads(), tiles of more than
/// 32 threads, tiled_partition(group, n) with a run-time size) stops the build with a message that
/// names it; see common/emu/README.md.
#pragma once

#if defined(__CUDACC__)
#error "common/emu/cuda_headers/ is for the host compiler (the cpu backend); nvcc uses the CUDA toolkit's headers"
#endif

#include <type_traits>

#include "scanlab/emu/cuda_shim.hpp"

namespace cooperative_groups {

namespace details {
using ::scanlab::emu::detail::Where;

/// For static_assert in a template that must not be used: false, but only once instantiated.
template <class T>
inline constexpr bool unsupported = false;

/// The calling thread's rank in its block: x fastest, as CUDA numbers a block's threads.
inline unsigned block_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
}  // namespace details

/// The calling thread's block. Its members are static, as in CUDA: a thread_block holds nothing.
class thread_block {
 public:
  /// The block's barrier: __syncthreads().
  static void sync(details::Where w = details::Where::current()) { __syncthreads(w); }
  static unsigned thread_rank() { return details::block_rank(); }
  static unsigned size() { return details::block_size(); }
  static unsigned num_threads() { return details::block_size(); }
  static dim3 group_index() { return dim3(blockIdx); }
  static dim3 thread_index() { return dim3(threadIdx); }
  static dim3 group_dim() { return blockDim; }
  static dim3 dim_threads() { return blockDim; }

 private:
  thread_block() = default;
  friend thread_block this_thread_block();
};

/// The calling thread's block.
inline thread_block this_thread_block() { return thread_block(); }

template <unsigned Size, class Parent = void>
class thread_block_tile;

/// A tile of Size consecutive threads of a block (by thread_rank), Size a power of two up to 32: a
/// warp, or an aligned part of one. Its collectives are the warp built-ins with the tile's lanes as
/// the mask and Size as the shuffle width. The parent-less type, `thread_block_tile<Size>`, is what
/// every tile converts to.
template <unsigned Size>
class thread_block_tile<Size, void> {
  // CUDA also has tiles of 64 to 1024 threads (several warps, synchronised through shared memory).
  static_assert(Size <= 32 || Size > 1024 || (Size & (Size - 1)) != 0,
                "scanlab cpu backend: tiles of more than 32 threads (tiled_partition<64> and larger) are not supported; "
                "use tiles of at most 32 threads (a warp)");
  static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                "thread_block_tile: Size must be one of 1, 2, 4, 8, 16, 32");

 public:
  static unsigned thread_rank() { return details::block_rank() & (Size - 1); }
  static constexpr unsigned num_threads() { return Size; }
  static constexpr unsigned size() { return Size; }
  /// Which tile of its parent this is, and how many tiles the parent has.
  unsigned meta_group_rank() const { return meta_group_rank_; }
  unsigned meta_group_size() const { return meta_group_size_; }

  /// __syncwarp over the tile's lanes.
  void sync(details::Where w = details::Where::current()) const { __syncwarp(mask(), w); }

  template <class T>
  T shfl(T var, int src_rank, details::Where w = details::Where::current()) const {
    return __shfl_sync(mask(), var, src_rank, static_cast<int>(Size), w);
  }
  template <class T>
  T shfl_up(T var, unsigned delta, details::Where w = details::Where::current()) const {
    return __shfl_up_sync(mask(), var, delta, static_cast<int>(Size), w);
  }
  template <class T>
  T shfl_down(T var, unsigned delta, details::Where w = details::Where::current()) const {
    return __shfl_down_sync(mask(), var, delta, static_cast<int>(Size), w);
  }
  template <class T>
  T shfl_xor(T var, unsigned lane_mask, details::Where w = details::Where::current()) const {
    return __shfl_xor_sync(mask(), var, lane_mask, static_cast<int>(Size), w);
  }
  /// The votes, as CUDA's header computes them from one ballot of the tile's lanes: bit i of
  /// ballot() is the tile's rank i.
  unsigned ballot(int predicate, details::Where w = details::Where::current()) const {
    return __ballot_sync(mask(), predicate, w) >> first_lane();
  }
  int any(int predicate, details::Where w = details::Where::current()) const {
    return __ballot_sync(mask(), predicate, w) != 0;
  }
  int all(int predicate, details::Where w = details::Where::current()) const {
    return __ballot_sync(mask(), predicate, w) == mask();
  }

 protected:
  thread_block_tile(unsigned meta_group_rank, unsigned meta_group_size)
      : meta_group_rank_(meta_group_rank), meta_group_size_(meta_group_size) {}

 private:
  /// The tile's first lane in its warp, and its lanes as a warp mask.
  static unsigned first_lane() { return (details::block_rank() % 32) & ~(Size - 1); }
  static unsigned mask() { return Size == 32 ? 0xffffffffu : ((1u << (Size % 32)) - 1) << first_lane(); }

  unsigned meta_group_rank_, meta_group_size_;
};

/// A tile that knows its parent's type (what tiled_partition returns); converts to
/// thread_block_tile<Size>.
template <unsigned Size, class Parent>
class thread_block_tile : public thread_block_tile<Size, void> {
  template <unsigned S, class P>
  friend thread_block_tile<S, P> tiled_partition(const P& parent);

  thread_block_tile(unsigned meta_group_rank, unsigned meta_group_size)
      : thread_block_tile<Size, void>(meta_group_rank, meta_group_size) {}
};

/// Splits a block, or a tile, into tiles of Size threads (consecutive ranks); returns the caller's.
/// As in CUDA, every thread of the parent calls it; Size must be a power of two of at most 32 (and
/// at most the parent tile's size).
template <unsigned Size, class Parent>
thread_block_tile<Size, Parent> tiled_partition(const Parent& parent) {
  static_assert(std::is_same_v<Parent, thread_block> || Size <= Parent::num_threads(),
                "tiled_partition<Size>(tile): Size must not exceed the parent tile's size");
  return thread_block_tile<Size, Parent>(parent.thread_rank() / Size,
                                         (parent.num_threads() + Size - 1) / Size);
}

/// `cg::sync(g)`, `cg::thread_rank(g)`, `cg::group_size(g)`: the group's own members.
template <class Group>
void sync(const Group& g, details::Where w = details::Where::current()) {
  g.sync(w);
}
template <class Group>
auto thread_rank(const Group& g) -> decltype(g.thread_rank()) {
  return g.thread_rank();
}
template <class Group>
auto group_size(const Group& g) -> decltype(g.num_threads()) {
  return g.num_threads();
}

// What CUDA has and the cpu backend does not: each stops the build with a message that names it.
template <class T = void>
void this_grid() {
  static_assert(details::unsupported<T>,
                "scanlab cpu backend: cg::this_grid() (grid groups, grid.sync()) is not supported; blocks wait for "
                "each other through flags in global memory in this chapter");
}
template <class T = void>
void this_cluster() {
  static_assert(details::unsupported<T>,
                "scanlab cpu backend: cg::this_cluster() (thread block clusters) is not supported");
}
template <class T = void>
void coalesced_threads() {
  static_assert(details::unsupported<T>,
                "scanlab cpu backend: cg::coalesced_threads() (coalesced_group) is not supported; use "
                "tiled_partition<32>(this_thread_block()) or __activemask()");
}
template <class Group>
void tiled_partition(const Group&, unsigned) {
  static_assert(details::unsupported<Group>,
                "scanlab cpu backend: tiled_partition(group, n) with a run-time size (thread_group) is not "
                "supported; use tiled_partition<N>(group)");
}

}  // namespace cooperative_groups
