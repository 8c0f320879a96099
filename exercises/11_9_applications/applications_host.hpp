/// \file applications_host.hpp
/// \brief Section 11.9: the host side of the applications: workspaces, and the launches of each one
/// (applications.cuh has the kernels). Compiled once per backend, included by launch.cpp.
///
/// The scans are the lab's SOLUTIONS, whichever build this is: section 11.8's decoupled look-back
/// scan for the counts (s11_8::DecoupledLookbackScan) and section 11.6's hierarchical scan for the
/// pairs of the segmented scan. So a grade for 11.9 depends on the 11.9 files only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "applications.cuh"
#include "decoupled_lookback_scan.hpp"
#include "hierarchical_host.hpp"
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
  // (your code here)
  (void)d_in, (void)d_out, (void)n, (void)pred, (void)partition, (void)ws;  // (silences "unused" warnings)
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

/// Section 11.6's section scan for the segmented scan: this file's Kogge-Stone block scan, kThreads
/// elements per section.
struct BlockScanSections {
  static constexpr std::size_t section_size = kThreads;
  template <class T, class Op>
  static void scan_sections(const T* d_in, T* d_out, std::size_t n, Op op, T* d_block_sums) {
    launch(block_scan_kernel<T, Op>, {"block_scan_kernel", grid_for(n), dim3(kThreads), kThreads * sizeof(T)},
           d_in, d_out, n, op, d_block_sums);
  }
};

/// Workspace of a segmented scan of up to n elements of T.
template <class T>
struct SegmentedWorkspace {
  explicit SegmentedWorkspace(std::size_t n)
      : pairs(n), sums(s11_6::block_sums_elements(n, BlockScanSections::section_size)) {}
  static std::size_t bytes(std::size_t n) {
    return (n + s11_6::block_sums_elements(n, BlockScanSections::section_size)) * sizeof(Flagged<T>);
  }
  DeviceBuffer<Flagged<T>> pairs, sums;
};

/// Segmented scan of x (segments start where heads[i] = 1; element 0 always starts one) into y: pack
/// the pairs, one inclusive scan of the pairs with SegmentedOp (section 11.6's hierarchical scan, so
/// segment boundaries fall inside blocks and between them), unpack. n > 0.
template <class T, class Op>
void segmented_scan(const T* d_x, const Count* d_heads, T* d_y, std::size_t n, Op op, bool exclusive,
                    SegmentedWorkspace<T>& ws) {
  launch(pack_kernel<T>, {"pack_kernel", grid_for(n), dim3(kThreads)}, d_x, d_heads, n, ws.pairs.data());
  s11_6::hierarchical_scan<BlockScanSections>(static_cast<const Flagged<T>*>(ws.pairs.data()), ws.pairs.data(), n,
                                              SegmentedOp<Op>{op}, false, ws.sums.data());
  launch(unpack_kernel<T, Op>, {"unpack_kernel", grid_for(n), dim3(kThreads)},
         static_cast<const Flagged<T>*>(ws.pairs.data()), d_heads, n, d_y, exclusive);
}

/// The single-pass compaction / partition's tile shape: 128 threads of 16 elements.
inline constexpr int kFusedThreads = 128;
inline constexpr int kFusedItems = 16;
inline constexpr std::size_t kFusedTile = std::size_t{kFusedThreads} * kFusedItems;

/// Workspace of the single-pass kernel: ticket counter and tile statuses (of counts), with 11.8's
/// launch epochs (no clearing between launches).
struct FusedWorkspace {
  explicit FusedWorkspace(std::size_t n)
      : tiles(ceil_div(n, kFusedTile)), words(lookback::workspace_words<Count>(ceil_div(n, kFusedTile))), count(1) {
    words.fill(0);
  }
  static std::size_t bytes(std::size_t n) {
    return lookback::workspace_words<Count>(ceil_div(n, kFusedTile)) * sizeof(unsigned long long);
  }
  std::size_t tiles;
  DeviceBuffer<unsigned long long> words;
  DeviceBuffer<Count> count;
  ::LaunchEpochs epochs;
};

/// Compaction (d_rejected null) or stable partition into two arrays (kept into d_selected, rejected
/// into d_rejected, each in order) in ONE launch. The count is left in ws.count[0]. 0 < n.
template <class T, class Pred>
void select_single_pass(const T* d_in, T* d_selected, T* d_rejected, std::size_t n, Pred pred, FusedWorkspace& ws) {
  const std::size_t tiles = ceil_div(n, kFusedTile);
  if (tiles > ws.tiles) throw Error("single-pass select: the workspace is too small for n = " + std::to_string(n));
  if (ws.epochs.advance()) ws.words.fill(0);
  const lookback::TileStatusArray status{ws.words.data(), ws.words.data() + 2, ws.epochs.current};
  launch(select_single_pass_kernel<kFusedThreads, kFusedItems, T, Pred>,
         {"select_single_pass_kernel", dim3(static_cast<unsigned>(tiles)), dim3(kFusedThreads)}, d_in, d_selected,
         d_rejected, n, pred, status, ws.count.data());
}

}  // namespace scanlab::s11_9
