/// \file persistent_select.hpp
/// \brief Section 11.9 (beyond the book): the host side of the persistent single-pass compaction and
/// partition (persistent_select.cuh): its tile shape, its grid (as many blocks as fit on the GPU at
/// once, never more than there are tiles) and the one launch. The workspace is the single-pass
/// kernel's (FusedWorkspace). You do not need to change this file.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>

#include "applications_host.hpp"  // FusedWorkspace, next_launch
#include "persistent_scan.hpp"    // s11_8::resident_blocks
#include "persistent_select.cuh"

namespace scanlab::s11_9 {

/// Select warps, elements per thread and ring stages of the persistent select, from three sweeps at
/// 2^28 on an H100, int32 and float (plots/data/h100_persistent_select_sweep_2026-11-26.csv, the
/// first shapes of both jobs; ..._partition_sweep_... and ..._compact_sweep_..., each job over more
/// shapes). 8 select warps of 16 4-byte (8 8-byte) elements, a 16 KiB tile, in 3 stages: 64 KiB of
/// shared memory, so three blocks of 11 warps fit on an SM. In the last sweeps, int32: compaction 581
/// us (627 at 32 elements in 4 stages, one block per SM; 647 at 16 in 4 stages, two blocks), partition
/// 795 us (1166 at 32 in 4 stages). On the cpu backend a smaller block (2 select warps, 2 stages), so
/// that the tests' sizes span many tiles.
template <class T>
struct PersistentSelectTuning {
#if defined(SCANLAB_BACKEND_CPU)
  static constexpr int kWarps = 2;
  static constexpr int kStages = 2;
#else
  static constexpr int kWarps = 8;
  static constexpr int kStages = 3;
#endif
  static constexpr int kItems = sizeof(T) == 4 ? 16 : 8;
};

/// The tuned shape's tile, in elements.
template <class T>
constexpr std::size_t persistent_select_tile() {
  return std::size_t{PersistentSelectTuning<T>::kWarps} * 32 * PersistentSelectTuning<T>::kItems;
}

/// Compaction (d_rejected null) or stable partition into two arrays (kept into d_selected, rejected
/// into d_rejected, each in order) in ONE launch of the persistent select. The count is left in
/// ws.count[0]. 0 < n < 2^32 (counts are 32-bit). ws must have statuses for this shape's tiles:
/// FusedWorkspace(n, persistent_select_tile<T>()) for the tuned shape. The shape is the tuned one
/// unless given (the benchmark's sweep); max_blocks limits the grid (0: as many blocks as fit at
/// once; tests use 1 .. a few).
template <int Warps = 0, int Items = 0, int Stages = 0, class T, class Pred>
void select_persistent(const T* d_in, T* d_selected, T* d_rejected, std::size_t n, Pred pred, FusedWorkspace& ws,
                       std::size_t max_blocks = 0) {
  using Tuning = PersistentSelectTuning<T>;
  if constexpr (Warps == 0 && Items == 0 && Stages == 0) {
    select_persistent<Tuning::kWarps, Tuning::kItems, Tuning::kStages>(d_in, d_selected, d_rejected, n, pred, ws,
                                                                       max_blocks);
  } else {
    static_assert(Warps != 0 && Items != 0 && Stages != 0, "a shape is all three numbers, or none");
    constexpr auto kernel = persistent_select_kernel<Warps, Items, Stages, T, Pred>;
    constexpr unsigned kThreads = persistent_select_block_warps<Warps>() * 32;
    constexpr std::size_t kShared = persistent_select_shared_bytes<Warps, Items, Stages, T>();
    if (n > 0xffffffffu) throw Error("persistent select: n is too large (counts are 32-bit: fewer than 2^32)");
    // Blocks that fit at once, found once per device (which also lets the kernel have its shared memory).
    static std::map<int, std::size_t> resident_on;
    int device = 0;
#if defined(SCANLAB_BACKEND_CUDA)
    SCANLAB_CUDA_CHECK(cudaGetDevice(&device));
#endif
    auto found = resident_on.find(device);
    if (found == resident_on.end()) {
      found = resident_on.emplace(device, s11_8::resident_blocks(kernel, kThreads, kShared, "persistent select")).first;
    }
    const std::size_t resident = found->second;
    const std::size_t tiles = ceil_div(n, std::size_t{Warps} * 32 * Items);
    std::size_t blocks = std::min(tiles, resident);
    if (max_blocks != 0) blocks = std::min(blocks, max_blocks);
    const lookback::TileStatusArray status = next_launch(ws.lookback, tiles, "persistent select");
    launch(kernel, {"persistent_select_kernel", dim3(static_cast<unsigned>(blocks)), dim3(kThreads), kShared}, d_in,
           d_selected, d_rejected, n, pred, status, static_cast<unsigned>(tiles), ws.count.data());
  }
}

}  // namespace scanlab::s11_9
