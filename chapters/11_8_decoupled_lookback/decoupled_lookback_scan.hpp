/// \file decoupled_lookback_scan.hpp
/// \brief Section 11.8: the host side of the decoupled look-back scan: its workspace (ticket counter
/// and tile statuses), the launch epoch, and the one launch. Used by launch.cpp (both backends) and
/// by the benchmark (cuda), which instantiates it with other tile shapes. You do not need to change
/// this file.
#pragma once

#include <cstddef>
#include <string>

#include "decoupled_lookback.cuh"
#include "scanlab/launcher.hpp"
#if defined(SCANLAB_BACKEND_CPU)
#include "scanlab/emu/wait_arrays.hpp"
#endif

namespace scanlab::s11_8 {

/// The workspace of one look-back kernel (tile_status.cuh): the ticket counter and the statuses of up
/// to `tiles` tiles (values of type V), zeroed once, and the launch epochs that spare every later
/// launch a reset kernel. Section 11.9's single-pass kernels use it too.
template <class V>
class LookbackWorkspace {
 public:
  explicit LookbackWorkspace(std::size_t tiles) : tiles_(tiles), words_(lookback::workspace_words<V>(tiles)) {
    words_.fill(0);
  }
  static std::size_t bytes(std::size_t tiles) {
    return lookback::workspace_words<V>(tiles) * sizeof(unsigned long long);
  }
  std::size_t tiles() const { return tiles_; }
  /// The status words (after the counter and its padding), in the memory of the device that made them.
  unsigned long long* words() { return words_.data() + 2; }

  /// The statuses of the next launch, of at most tiles() tiles: a new epoch (and, once every 2^30 - 1
  /// launches, a memset).
  lookback::TileStatusArray next_launch() {
    if (epochs_.advance()) words_.fill(0);
    return {words_.data(), words_.data() + 2, epochs_.current};
  }

 private:
  std::size_t tiles_;
  DeviceBuffer<unsigned long long> words_;
  LaunchEpochs epochs_;
};

/// A tile's status in words, from its first status word, for the emulator's reports.
inline std::string status_word(const void* words, unsigned epoch) {
  // An atomic read: on the emulator's several workers, other blocks still publish while it reports.
  const unsigned long long first = __atomic_load_n(static_cast<const unsigned long long*>(words), __ATOMIC_RELAXED);
  const auto tag = static_cast<unsigned>(first >> 32);
  if (tag >> 2 != epoch || (tag & 3) == lookback::kNotPublished) return "nothing published";
  return (tag & 3) == lookback::kPrefix ? "prefix" : "aggregate only";
}

/// `Scan<T, Op>` for run_scan, with the tile shape as template parameters (default: the sm_90 tuning).
template <class T, class Op, int Threads = DecoupledLookbackTuning<T>::kThreads,
          int Items = DecoupledLookbackTuning<T>::kItems>
class DecoupledLookbackScan {
 public:
  static constexpr std::size_t kTile = static_cast<std::size_t>(Threads) * Items;

  /// Allocates (and zeroes, once) the workspace for scans of up to n elements.
  explicit DecoupledLookbackScan(std::size_t n) : workspace_(ceil_div(n, kTile)) {}
  static std::size_t workspace_bytes(std::size_t n) { return LookbackWorkspace<T>::bytes(ceil_div(n, kTile)); }

  /// Test knob: only tiles whose number is a multiple of 2^k publish their inclusive prefix (see the
  /// kernel's `prefix_mask`). 0: every tile does.
  void set_prefix_period_log2(unsigned k) { prefix_mask_ = k >= 32 ? ~0u : (1u << k) - 1u; }
  /// Nanoseconds to sleep between two reads of an unpublished status (GPU only; 0: spin).
  void set_spin_ns(unsigned ns) { spin_ns_ = ns; }
  /// Whether blocks start loading tile blockIdx.x before their ticket arrives (the kernel's step 1).
  void set_speculative_load(bool on) { speculate_ = on; }

  /// One scan: exactly one kernel launch (plus, once every 2^30 - 1 launches, a memset).
  void operator()(const T* d_in, T* d_out, std::size_t n, Op op, ScanKind kind) {
    if (n == 0) return;
    const std::size_t tiles = ceil_div(n, kTile);
    if (tiles > workspace_.tiles()) {
      throw Error("decoupled look-back: a workspace for " + std::to_string(workspace_.tiles() * kTile) +
                  " elements cannot scan " + std::to_string(n));
    }
    if (tiles > 0x7fffffffu) throw Error("decoupled look-back: n is too large for one grid");
    const lookback::TileStatusArray status = workspace_.next_launch();
#if defined(SCANLAB_BACKEND_CPU)
    // A launch that never finishes: the emulator's report names the status each spinning thread waits
    // on, and what every tile had published (emu/wait_arrays.hpp).
    const emu::NamedWaitArray named("tile statuses", status.words, lookback::kStatusWords<T> * 8, tiles,
                                    [epoch = status.epoch](const void* words) { return status_word(words, epoch); });
#endif
    launch(decoupled_lookback_scan_kernel<Threads, Items, T, Op>,
           {"decoupled_lookback_scan_kernel", dim3(static_cast<unsigned>(tiles)), dim3(Threads)}, d_in, d_out,
           n, op, kind == ScanKind::exclusive, status, prefix_mask_, spin_ns_, speculate_);
  }

 private:
  LookbackWorkspace<T> workspace_;
  unsigned prefix_mask_ = 0;
  unsigned spin_ns_ = 0;
  bool speculate_ = true;
};

}  // namespace scanlab::s11_8
