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
#include <vector>

#include "decoupled_lookback_scan.hpp"  // LookbackWorkspace
#include "persistent_scan.cuh"
#include "scanlab/launcher.hpp"

namespace scanlab::s11_8 {

/// How many blocks of `kernel` (`threads` threads, `shared_bytes` of dynamic shared memory, which this
/// allows it) fit on the GPU at once: SMs x blocks per SM; on the emulator, a few. `what` names the
/// kernel in the error when not even one fits.
template <class Kernel>
std::size_t resident_blocks(Kernel kernel, unsigned threads, std::size_t shared_bytes, const char* what) {
#if defined(SCANLAB_BACKEND_CUDA)
  SCANLAB_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  int device = 0, sms = 0, per_sm = 0;
  SCANLAB_CUDA_CHECK(cudaGetDevice(&device));
  SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  SCANLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(threads),
                                                                   shared_bytes));
  if (per_sm == 0) throw Error(std::string(what) + ": one block does not fit on an SM of this GPU");
  return static_cast<std::size_t>(sms) * static_cast<std::size_t>(per_sm);
#else
  (void)kernel, (void)threads, (void)shared_bytes, (void)what;
  return 4;  // the emulator: a few blocks, run by its workers
#endif
}

/// One shape of the kernel (scan warps, items per thread, stages; 0 stages: the one-tile shape; with or
/// without the look-back warp): its tile, block, shared memory and how many of its blocks fit on the GPU at once.
template <class T, class Op, int Warps, int Items, int Stages, bool LookBackWarp = false>
struct PersistentShape {
  static constexpr std::size_t kTile = static_cast<std::size_t>(Warps) * 32 * Items;
  static constexpr unsigned kThreads = persistent_scan_block_warps<Warps, LookBackWarp>() * 32;
  static constexpr auto kernel() { return persistent_scan_kernel<Warps, Items, Stages, LookBackWarp, T, Op>; }
  static constexpr std::size_t kSharedBytes = persistent_scan_shared_bytes<Warps, Items, Stages, T>();

  /// Blocks that fit at once (s11_8::resident_blocks).
  static std::size_t resident_blocks() {
    return s11_8::resident_blocks(kernel(), kThreads, kSharedBytes, "persistent scan");
  }
};

/// `Scan<T, Op>` for run_scan: scan warps per block, items per thread, ring stages and the look-back
/// warp (LookBack 1: with, 0: without, -1: as tuned) as template parameters (default: the sm_90
/// tuning). The tuned shape picks one of four shapes by n: one tile of the small shape's warps and
/// items, without a pipeline (the smallest scans: a small block is the quickest to start); one tile
/// of the kSingle* warps and items; the small shape (up to PersistentTuning::kSmallMaxBytes); the
/// shape itself. Any other shape (the benchmark's sweep) runs as one tile of its own warps and items
/// when n fits one, else as itself.
template <class T, class Op, int Warps = lookback::pipeline::PersistentTuning<T>::kWarps,
          int Items = lookback::pipeline::PersistentTuning<T>::kItems,
          int Stages = lookback::pipeline::PersistentTuning<T>::kStages, int LookBack = -1>
class PersistentScan {
  using Tuning = lookback::pipeline::PersistentTuning<T>;
  static constexpr bool kTuned =
      Warps == Tuning::kWarps && Items == Tuning::kItems && Stages == Tuning::kStages && LookBack == -1;
  using Large = PersistentShape<T, Op, Warps, Items, Stages, LookBack == -1 ? Tuning::kLookBackWarp : LookBack == 1>;
  using Small = PersistentShape<T, Op, Tuning::kSmallWarps, Tuning::kSmallItems, Tuning::kSmallStages,
                                Tuning::kSmallLookBackWarp>;
  using Single =
      PersistentShape<T, Op, kTuned ? Tuning::kSingleWarps : Warps, kTuned ? Tuning::kSingleItems : Items, 0>;
  using SmallSingle = PersistentShape<T, Op, Tuning::kSmallWarps, Tuning::kSmallItems, 0>;

 public:
  static constexpr std::size_t kTile = Large::kTile;  // the tile of scans above the small sizes
  /// Largest n that the one-tile shapes and the small shape scan (0: never).
  static constexpr std::size_t kSmallSingleMaxN = kTuned ? SmallSingle::kTile : 0;
  static constexpr std::size_t kSingleMaxN = Single::kTile;
  static constexpr std::size_t kSmallMaxN = kTuned ? Tuning::kSmallMaxBytes / sizeof(T) : 0;

  /// The tile of the shape that scans n elements.
  static constexpr std::size_t tile_for(std::size_t n) {
    return n <= kSmallSingleMaxN ? SmallSingle::kTile
           : n <= kSingleMaxN    ? Single::kTile
           : n <= kSmallMaxN     ? Small::kTile
                                 : Large::kTile;
  }

  /// Allocates (and zeroes, once) the workspace for scans of up to n elements; on a GPU, finds how many
  /// blocks fit at once.
  explicit PersistentScan(std::size_t n) : n_(n), workspace_(workspace_tiles(n)) {
    large_blocks_ = Large::resident_blocks();
    if (kSmallMaxN != 0) small_blocks_ = Small::resident_blocks();
    Single::resident_blocks();  // (sets its shared-memory limit)
    if (kSmallSingleMaxN != 0) SmallSingle::resident_blocks();
  }
  static std::size_t workspace_bytes(std::size_t n) { return LookbackWorkspace<T>::bytes(workspace_tiles(n)); }

  /// Test knob, as DecoupledLookbackScan's: only tiles numbered k * 2^log2 publish their prefix.
  void set_prefix_period_log2(unsigned k) { prefix_mask_ = k >= 32 ? ~0u : (1u << k) - 1u; }
  /// Blocks per launch at most (0: as many as fit at once). Tests use 1 .. a few.
  void set_max_blocks(std::size_t blocks) { max_blocks_ = blocks; }
  /// The value in device memory (of the device that scans) that later scans start from, as the prefix
  /// before their first element (section 11.10's carry in); null: none, the operator's identity.
  void set_carry_in(const T* d_carry) { carry_ = d_carry; }

  /// This scan's tile statuses, in the memory of the device that made it (for the other GPUs' look-backs).
  unsigned long long* status_words() { return workspace_.words(); }
  /// Section 11.10's look-back across GPUs: later scans scan GPU `device`'s part of an array whose tiles of
  /// kTile elements are dealt out in turn to `peers.size()` GPUs in runs of `run` tiles (run r on GPU
  /// r % G), every tile looking back over the whole array's tiles through `peers` (each GPU's
  /// status_words(), in GPU order). Every scan then uses the large shape, whatever n. The GPUs' scans must
  /// be launched together (one scan each, the same number of times: they share the epoch through their
  /// launch counts).
  void deal(int device, const std::vector<unsigned long long*>& peers, unsigned run) {
    if (peers.empty() || peers.size() > static_cast<std::size_t>(lookback::kMaxDealtDevices) || device < 0 ||
        device >= static_cast<int>(peers.size())) {
      throw Error("persistent scan: tiles dealt out to " + std::to_string(peers.size()) + " GPUs (1 to " +
                  std::to_string(lookback::kMaxDealtDevices) + "), this one " + std::to_string(device));
    }
    device_ = static_cast<unsigned>(device);
    run_ = std::max(run, 1u);
    peers_ = peers;
  }

  /// One scan: exactly one kernel launch (plus, once every 2^30 - 1 launches, a memset).
  void operator()(const T* d_in, T* d_out, std::size_t n, Op op, ScanKind kind) {
    if (n == 0) return;
    if (n > n_) {
      throw Error("persistent scan: a workspace for " + std::to_string(n_) + " elements cannot scan " +
                  std::to_string(n));
    }
    if (!peers_.empty()) {
      launch_shape<Large>(d_in, d_out, n, op, kind, large_blocks_);
    } else if (n <= kSmallSingleMaxN) {
      launch_shape<SmallSingle>(d_in, d_out, n, op, kind, 1);
    } else if (n <= kSingleMaxN) {
      launch_shape<Single>(d_in, d_out, n, op, kind, 1);
    } else if (n <= kSmallMaxN) {
      launch_shape<Small>(d_in, d_out, n, op, kind, small_blocks_);
    } else {
      launch_shape<Large>(d_in, d_out, n, op, kind, large_blocks_);
    }
  }

 private:
  // Status words for the tiles of the largest scan; the shapes share them (and the ticket counter):
  // a launch uses one shape, and every launch has an epoch of its own.
  static std::size_t workspace_tiles(std::size_t n) {
    return std::max(ceil_div(n, Large::kTile), ceil_div(std::min(n, kSmallMaxN), Small::kTile));
  }

  template <class Shape>
  void launch_shape(const T* d_in, T* d_out, std::size_t n, Op op, ScanKind kind, std::size_t resident) {
    const std::size_t tiles = ceil_div(n, Shape::kTile);
    if (tiles > 0x7fffffffu) throw Error("persistent scan: n is too large (2^31 tiles at most)");
    std::size_t blocks = std::min(tiles, resident);
    if (max_blocks_ != 0) blocks = std::min(blocks, max_blocks_);
    lookback::TileStatusArray status = workspace_.next_launch();
    status.carry = carry_;
    if (!peers_.empty()) {
      status.devices = static_cast<unsigned>(peers_.size());
      status.device = device_;
      status.run = run_;
      std::copy(peers_.begin(), peers_.end(), status.peers);
    }
    launch(Shape::kernel(), {"persistent_scan_kernel", dim3(static_cast<unsigned>(blocks)), dim3(Shape::kThreads),
                             Shape::kSharedBytes},
           d_in, d_out, n, op, kind == ScanKind::exclusive, status, static_cast<unsigned>(tiles), prefix_mask_);
  }

  std::size_t n_;
  LookbackWorkspace<T> workspace_;
  std::size_t large_blocks_ = 1;
  std::size_t small_blocks_ = 1;
  std::size_t max_blocks_ = 0;
  unsigned prefix_mask_ = 0;
  const T* carry_ = nullptr;
  unsigned device_ = 0, run_ = 1;
  std::vector<unsigned long long*> peers_;  // (deal: every GPU's statuses; empty: one GPU)
};

}  // namespace scanlab::s11_8
