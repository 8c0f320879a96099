// scanlab_bench: section 11.8's decoupled look-back scan, launched directly (not through run_scan), so
// that it is timed exactly like CUB and Thrust, and so that other tile shapes can be swept. Included
// by one small .cu file per element type (they compile in parallel).
#pragma once

#include <memory>
#include <string>

#include "contender.hpp"
#include "decoupled_lookback_scan.hpp"
#include "persistent_scan.hpp"

namespace scanlab::bench {

template <class T, int Threads, int Items>
class Lookback final : public Contender {
 public:
  Lookback(bool tuned, unsigned spin_ns, bool speculate = true)
      : tuned_(tuned), spin_ns_(spin_ns), speculate_(speculate) {}
  std::string name() const override {
    const std::string suffix = speculate_ ? "" : "_no_speculation";
    if (tuned_) return "decoupled_lookback" + suffix;
    return "decoupled_lookback_" + std::to_string(Threads) + "x" + std::to_string(Items) + suffix;
  }
  void prepare(std::size_t n) override {
    scan_.reset();
    scan_ = std::make_unique<Scan>(n);
    scan_->set_spin_ns(spin_ns_);
    scan_->set_speculative_load(speculate_);
  }
  void run(const void* d_in, void* d_out, std::size_t n) override {
    (*scan_)(static_cast<const T*>(d_in), static_cast<T*>(d_out), n, Add<T>{}, ScanKind::inclusive);
  }

 private:
  using Scan = s11_8::DecoupledLookbackScan<T, Add<T>, Threads, Items>;
  bool tuned_;
  unsigned spin_ns_;
  bool speculate_;
  std::unique_ptr<Scan> scan_;
};

/// Adds the (Threads, Items) pairs a --sweep tries, besides the tuned default.
template <class T, int Threads, int Items, int... Rest>
void add_shapes(Contenders& list, unsigned spin_ns) {
  using Tuned = DecoupledLookbackTuning<T>;
  if (!(Threads == Tuned::kThreads && Items == Tuned::kItems)) {
    list.push_back(std::make_unique<Lookback<T, Threads, Items>>(false, spin_ns));
  }
  if constexpr (sizeof...(Rest) > 0) add_shapes<T, Rest...>(list, spin_ns);
}

/// The persistent pipelined kernel (persistent_scan.cuh): "persistent", or with --sweep
/// "persistent_<warps>w<items>i<stages>s" for the other shapes (scan warp 0 looks back), with "_lbw"
/// for a shape with the look-back warp (LookBack 1).
template <class T, int Warps, int Items, int Stages, int LookBack = 0>
class Persistent final : public Contender {
 public:
  explicit Persistent(bool tuned) : tuned_(tuned) {}
  std::string name() const override {
    if (tuned_) return "persistent";
    return "persistent_" + std::to_string(Warps) + "w" + std::to_string(Items) + "i" + std::to_string(Stages) + "s" +
           (LookBack == 1 ? "_lbw" : "");
  }
  void prepare(std::size_t n) override {
    scan_.reset();
    scan_ = std::make_unique<Scan>(n);
  }
  void run(const void* d_in, void* d_out, std::size_t n) override {
    (*scan_)(static_cast<const T*>(d_in), static_cast<T*>(d_out), n, Add<T>{}, ScanKind::inclusive);
  }

 private:
  using Scan = s11_8::PersistentScan<T, Add<T>, Warps, Items, Stages, LookBack>;
  bool tuned_;
  std::unique_ptr<Scan> scan_;
};

/// Adds the (Warps, Items, Stages) shapes a --sweep tries, besides the tuned default. (A
/// shape whose tile holds all of n runs as one block without a pipeline: the sweep's small sizes
/// time the one-tile path of the shapes with big tiles.)
template <class T, int Warps, int Items, int Stages, int... Rest>
void add_persistent_shapes(Contenders& list) {
  using Tuned = lookback::pipeline::PersistentTuning<T>;
  if (!(Warps == Tuned::kWarps && Items == Tuned::kItems && Stages == Tuned::kStages)) {
    list.push_back(std::make_unique<Persistent<T, Warps, Items, Stages>>(false));
  }
  if constexpr (sizeof...(Rest) > 0) add_persistent_shapes<T, Rest...>(list);
}

template <class T>
Contenders make_lookback(bool sweep, unsigned spin_ns) {
  using Tuned = DecoupledLookbackTuning<T>;
  using PTuned = lookback::pipeline::PersistentTuning<T>;
  Contenders list;
  list.push_back(std::make_unique<Lookback<T, Tuned::kThreads, Tuned::kItems>>(true, spin_ns));
  list.push_back(std::make_unique<Persistent<T, PTuned::kWarps, PTuned::kItems, PTuned::kStages, -1>>(true));
  if (sweep) {
    // Persistent shapes: warps x items x stages (a tile is 32 * warps * items elements). Big tiles
    // scan the small sizes in one block (16 x 16, 8 x 32: up to 2^13 4-byte values; 16 x 32: 2^14).
    if constexpr (sizeof(T) == 4) {
      add_persistent_shapes<T, 4, 16, 4, 4, 16, 2, 4, 8, 8, 8, 16, 4, 8, 16, 2, 16, 16, 2, 16, 32, 1, 8, 32, 2, 4, 32, 2,
                            4, 32, 3, 4, 64, 2>(list);
    } else {
      add_persistent_shapes<T, 4, 8, 8, 4, 8, 4, 8, 8, 4, 8, 8, 2, 16, 8, 2, 16, 16, 1, 8, 16, 2, 4, 16, 4, 4, 16, 2, 4,
                            32, 2>(list);
    }
    // The tuned large shape and its neighbours at every n, without and with the look-back warp.
    if constexpr (sizeof(T) == 4) {
      list.push_back(std::make_unique<Persistent<T, 8, 32, 3, 0>>(false));
      list.push_back(std::make_unique<Persistent<T, 8, 32, 3, 1>>(false));
      list.push_back(std::make_unique<Persistent<T, 8, 32, 4, 1>>(false));
      list.push_back(std::make_unique<Persistent<T, 8, 16, 4, 1>>(false));
      list.push_back(std::make_unique<Persistent<T, 4, 16, 4, 1>>(false));
    } else {
      list.push_back(std::make_unique<Persistent<T, 4, 16, 4, 0>>(false));
      list.push_back(std::make_unique<Persistent<T, 4, 16, 4, 1>>(false));
      list.push_back(std::make_unique<Persistent<T, 4, 16, 6, 1>>(false));
      list.push_back(std::make_unique<Persistent<T, 4, 8, 8, 1>>(false));
    }
    // The tuned shape without the speculative load of its likely tile (the kernel's step 1).
    list.push_back(std::make_unique<Lookback<T, Tuned::kThreads, Tuned::kItems>>(true, spin_ns, false));
    if constexpr (sizeof(T) == 4) {
      // Items: multiples of 4 (whole 16-byte chunks); 16, 32 and 64 items give conflict-free transposes.
      add_shapes<T, 64, 32, 96, 32, 128, 16, 128, 24, 128, 32, 128, 40, 128, 48, 128, 64, 192, 32, 256, 8,
                 256, 16, 256, 24, 256, 32, 384, 16, 512, 8, 512, 16>(list, spin_ns);
    } else {
      add_shapes<T, 64, 16, 128, 8, 128, 12, 128, 16, 128, 24, 128, 32, 256, 4, 256, 8, 256, 12, 256, 16,
                 512, 4, 512, 8>(list, spin_ns);
    }
  }
  return list;
}

}  // namespace scanlab::bench
