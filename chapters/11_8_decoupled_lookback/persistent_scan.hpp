/// \file persistent_scan.hpp
/// \brief Section 11.8 (beyond the book): the host side of the persistent, warp-specialized scan
/// (persistent_scan.cuh): its workspace (ticket counter and tile statuses, as the book-style kernel's),
/// the grid (as many blocks as fit on the GPU at once, never more than there are tiles) and the one
/// launch. Used by launch.inc (both backends) and by the benchmark, which sweeps the template
/// parameters. You do not need to change this file.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "decoupled_lookback.cuh"  // LaunchEpochs
#include "persistent_scan.cuh"
#include "scanlab/launcher.hpp"

namespace scanlab::s11_8 {

/// `Scan<T, Op>` for run_scan: scan warps per block, items per thread and ring stages as template
/// parameters (default: the sm_90 tuning).
template <class T, class Op, int Warps = lookback::pipeline::PersistentTuning<T>::kWarps,
          int Items = lookback::pipeline::PersistentTuning<T>::kItems,
          int Stages = lookback::pipeline::PersistentTuning<T>::kStages>
class PersistentScan {
 public:
  static constexpr std::size_t kTile = static_cast<std::size_t>(Warps) * 32 * Items;
  static constexpr std::size_t kSharedBytes = persistent_scan_shared_bytes<Warps, Items, Stages, T>();
  static constexpr unsigned kThreads = (Warps + 2) * 32;  // scan warps, the reducer, the producer

  /// Allocates (and zeroes, once) the workspace for scans of up to n elements; on a GPU, finds how many
  /// blocks fit at once.
  explicit PersistentScan(std::size_t n)
      : tiles_(ceil_div(n, kTile)), workspace_(lookback::workspace_words<T>(ceil_div(n, kTile))) {
    workspace_.fill(0);
#if defined(SCANLAB_BACKEND_CUDA)
    const auto kernel = persistent_scan_kernel<Warps, Items, Stages, T, Op>;
    SCANLAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(kSharedBytes)));
    int device = 0, sms = 0, per_sm = 0;
    SCANLAB_CUDA_CHECK(cudaGetDevice(&device));
    SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SCANLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, kSharedBytes));
    if (per_sm == 0) throw Error("persistent scan: one block does not fit on an SM of this GPU");
    resident_blocks_ = static_cast<std::size_t>(sms) * static_cast<std::size_t>(per_sm);
#else
    resident_blocks_ = 4;  // the emulator: a few blocks, run by its workers
#endif
  }
  static std::size_t workspace_bytes(std::size_t n) {
    return lookback::workspace_words<T>(ceil_div(n, kTile)) * sizeof(unsigned long long);
  }

  /// Test knob, as DecoupledLookbackScan's: only tiles numbered k * 2^log2 publish their prefix.
  void set_prefix_period_log2(unsigned k) { prefix_mask_ = k >= 32 ? ~0u : (1u << k) - 1u; }
  /// Blocks per launch at most (0: as many as fit at once). Tests use 1 .. a few.
  void set_max_blocks(std::size_t blocks) { max_blocks_ = blocks; }

  /// One scan: exactly one kernel launch (plus, once every 2^30 - 1 launches, a memset).
  void operator()(const T* d_in, T* d_out, std::size_t n, Op op, ScanKind kind) {
    if (n == 0) return;
    const std::size_t tiles = ceil_div(n, kTile);
    if (tiles > tiles_) {
      throw Error("persistent scan: a workspace for " + std::to_string(tiles_ * kTile) + " elements cannot scan " +
                  std::to_string(n));
    }
    if (tiles > 0x7fffffffu) throw Error("persistent scan: n is too large (2^31 tiles at most)");
    if (epochs_.advance()) workspace_.fill(0);
    std::size_t blocks = std::min(tiles, resident_blocks_);
    if (max_blocks_ != 0) blocks = std::min(blocks, max_blocks_);
    const lookback::TileStatusArray status{workspace_.data(), workspace_.data() + 2, epochs_.current};
    launch(persistent_scan_kernel<Warps, Items, Stages, T, Op>,
           {"persistent_scan_kernel", dim3(static_cast<unsigned>(blocks)), dim3(kThreads), kSharedBytes}, d_in,
           d_out, n, op, kind == ScanKind::exclusive, status, static_cast<unsigned>(tiles), prefix_mask_);
  }

 private:
  std::size_t tiles_;
  DeviceBuffer<unsigned long long> workspace_;
  LaunchEpochs epochs_;
  std::size_t resident_blocks_ = 1;
  std::size_t max_blocks_ = 0;
  unsigned prefix_mask_ = 0;
};

}  // namespace scanlab::s11_8
