/// \file applications_host.hpp
/// \brief Section 11.9: the host side of the applications: workspaces, and the launches of each one
/// (applications.cuh has the kernels). Compiled once per backend, included by launch.cpp.
///
/// The scan is the lab's SOLUTION, whichever build this is: section 11.8's decoupled look-back scan
/// for the counts (s11_8::DecoupledLookbackScan), and 11.8's look-back in the single-pass kernels. So
/// a grade for 11.9 depends on the 11.9 files only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "applications.cuh"
#include "decoupled_lookback_scan.hpp"
#include "scanlab/launcher.hpp"

namespace scanlab::s11_9 {

/// The any-n scan of counts (flags, sizes): section 11.8's, one launch.
using CountScan = s11_8::DecoupledLookbackScan<Count, Add<Count>>;

/// Threads per block of the one-element-per-thread kernels.
inline constexpr unsigned kThreads = 256;

inline dim3 grid_for(std::size_t n) { return dim3(static_cast<unsigned>(ceil_div(n, kThreads))); }

/// Workspace of the three-step compaction, partition and radix sort of up to n elements.
struct SelectWorkspace {
  explicit SelectWorkspace(std::size_t n) : flags(n), offsets(n), count(1), scan(n) {}
  static std::size_t bytes(std::size_t n) { return 2 * n * sizeof(Count) + CountScan::workspace_bytes(n); }
  DeviceBuffer<Count> flags, offsets, count;
  CountScan scan;
};

/// Compaction (partition false: the kept elements of x, in order, into out) or stable partition
/// (partition true: the kept ones, then the rejected ones, each in order: all n into out) in three
/// steps: flags, the exclusive scan of the flags, the scatter. The count of kept elements is left in
/// ws.count[0]. n > 0.
template <class T, class Pred>
void select_three_step(const T* d_in, T* d_out, std::size_t n, Pred pred, bool partition, SelectWorkspace& ws) {
  // TODO(student) begin: launch flag_kernel, scan the flags into ws.offsets with ws.scan (which kind
  //   of scan gives each kept element the number of kept elements BEFORE it?), launch scatter_kernel.
  launch(flag_kernel<T, Pred>, {"flag_kernel", grid_for(n), dim3(kThreads)}, d_in, ws.flags.data(), n, pred);
  ws.scan(ws.flags.data(), ws.offsets.data(), n, Add<Count>{}, ScanKind::exclusive);
  launch(scatter_kernel<T>, {"scatter_kernel", grid_for(n), dim3(kThreads)}, d_in,
         static_cast<const Count*>(ws.flags.data()), static_cast<const Count*>(ws.offsets.data()), n, d_out,
         partition, ws.count.data());
  // TODO(student) end
}

/// LSD radix sort of 32-bit keys: 32 stable splits, one per bit from the lowest (keys with the bit 0
/// first, then those with 1, each side in its order). Stability is what makes it sort: after the
/// split on bit b the keys are sorted by their bits 0..b. d_keys holds the sorted keys at the end;
/// d_other is n elements of scratch. n > 0.
inline void radix_sort(std::uint32_t* d_keys, std::uint32_t* d_other, std::size_t n, SelectWorkspace& ws) {
  std::uint32_t* keys = d_keys;
  std::uint32_t* other = d_other;
  for (unsigned bit = 0; bit < 32; ++bit) {
    select_three_step(static_cast<const std::uint32_t*>(keys), other, n, BitClear{bit}, true, ws);
    std::swap(keys, other);
  }
  if (keys != d_keys) {  // after an odd number of splits the keys are in d_other
    launch(copy_kernel<std::uint32_t>, {"copy_kernel", grid_for(n), dim3(kThreads)},
           static_cast<const std::uint32_t*>(keys), d_keys, n);
  }
}

/// Allocation: d_starts = exclusive scan of d_sizes, then every request fills its slots of d_out
/// (which has room for the total, from count_allocation). The total is left in d_total[0]. n > 0.
inline void allocate(const Count* d_sizes, Count* d_starts, std::size_t n, Count* d_out, Count* d_total,
                     CountScan& scan) {
  scan(d_sizes, d_starts, n, Add<Count>{}, ScanKind::exclusive);
  launch(fill_allocations_kernel, {"fill_allocations_kernel", grid_for(n), dim3(kThreads)}, d_sizes,
         static_cast<const Count*>(d_starts), n, d_out, d_total);
}

/// The single-pass kernels' tile shapes, for sm_90 (H100): compaction and partition 128 threads of
/// 32 elements of 4 bytes (a 16 KiB tile), 16 of 8 bytes; the segmented scan 128 threads of 16
/// values and 16 heads. The benchmark's sweep (plots/data/h100_applications_sweep_2026-11-25.csv,
/// README.md) found no shape faster for the partition; 64 x 32 for the compaction and 256 x 16 for
/// the segmented scan were 2% faster there, in a run of an earlier form of the kernels.
inline constexpr int kFusedThreads = 128;
template <class T>
inline constexpr int kFusedItems = sizeof(T) == 4 ? 32 : 16;
inline constexpr int kSegmentedThreads = 128;
inline constexpr int kSegmentedItems = 16;

/// A single-pass workspace: section 11.8's ticket counter, tile statuses (values of type V) and
/// launch epochs (no clearing between launches).
template <class V>
using LookbackWorkspace = s11_8::LookbackWorkspace<V>;

/// The statuses of the next launch of `tiles` tiles on `ws`; `what` names the job in the error.
template <class V>
lookback::TileStatusArray next_launch(LookbackWorkspace<V>& ws, std::size_t tiles, const char* what) {
  if (tiles > ws.tiles()) {
    throw Error(std::string(what) + ": the workspace is too small for " + std::to_string(tiles) + " tiles");
  }
  return ws.next_launch();
}

/// Workspace of the single-pass compaction / partition of up to n elements of any type, in tiles of
/// at least `smallest_tile` elements (the default: the tuned tiles of 8-byte types), and the count of
/// kept elements.
struct FusedWorkspace {
  static constexpr std::size_t kSmallestTile = std::size_t{kFusedThreads} * kFusedItems<std::uint64_t>;
  explicit FusedWorkspace(std::size_t n, std::size_t smallest_tile = kSmallestTile)
      : lookback(ceil_div(n, smallest_tile)), count(1) {}
  static std::size_t bytes(std::size_t n) { return LookbackWorkspace<Count>::bytes(ceil_div(n, kSmallestTile)); }
  LookbackWorkspace<Count> lookback;
  DeviceBuffer<Count> count;
};

/// Compaction (d_rejected null) or stable partition into two arrays (kept into d_selected, rejected
/// into d_rejected, each in order) in ONE launch. The count is left in ws.count[0]. 0 < n. The tile
/// shape is the tuned one unless given (the benchmark's sweep).
template <int Threads = kFusedThreads, int Items = 0, class T, class Pred>
void select_single_pass(const T* d_in, T* d_selected, T* d_rejected, std::size_t n, Pred pred, FusedWorkspace& ws) {
  constexpr int kItems = Items != 0 ? Items : kFusedItems<T>;
  const std::size_t tiles = ceil_div(n, std::size_t{Threads} * kItems);
  const lookback::TileStatusArray status = next_launch(ws.lookback, tiles, "single-pass select");
  launch(select_single_pass_kernel<Threads, kItems, T, Pred>,
         {"select_single_pass_kernel", dim3(static_cast<unsigned>(tiles)), dim3(Threads)}, d_in, d_selected,
         d_rejected, n, pred, status, ws.count.data());
}

/// Workspace of a segmented scan of up to n elements of T, in tiles of at least `smallest_tile`
/// elements (the default: the tuned tile).
template <class T>
struct SegmentedWorkspace : LookbackWorkspace<T> {
  static constexpr std::size_t kTile = std::size_t{kSegmentedThreads} * kSegmentedItems;
  explicit SegmentedWorkspace(std::size_t n, std::size_t smallest_tile = kTile)
      : LookbackWorkspace<T>(ceil_div(n, smallest_tile)) {}
  static std::size_t bytes(std::size_t n) { return LookbackWorkspace<T>::bytes(ceil_div(n, kTile)); }
};

/// Segmented scan of x (segments start where heads[i] = 1; element 0 always starts one) into y, in
/// ONE launch: section 11.8's look-back scan of (head, value) pairs with SegmentedOp, so segment
/// boundaries fall inside tiles and between them. n > 0. The tile shape is the tuned one unless
/// given (the benchmark's sweep).
template <int Threads = kSegmentedThreads, int Items = kSegmentedItems, class T, class Op>
void segmented_scan(const T* d_x, const Count* d_heads, T* d_y, std::size_t n, Op op, bool exclusive,
                    SegmentedWorkspace<T>& ws) {
  const std::size_t tiles = ceil_div(n, std::size_t{Threads} * Items);
  const lookback::TileStatusArray status = next_launch(ws, tiles, "segmented scan");
  launch(segmented_scan_single_pass_kernel<Threads, Items, T, Op>,
         {"segmented_scan_single_pass_kernel", dim3(static_cast<unsigned>(tiles)), dim3(Threads)}, d_x, d_heads,
         d_y, n, op, exclusive, status);
}

}  // namespace scanlab::s11_9
