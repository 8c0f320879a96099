/// \file single_pass_host.hpp
/// \brief Section 11.7: the host side of the single-pass scan: the counter, flags and running totals
/// the blocks synchronize through, reset before every launch, and the one launch. Compiled once per
/// backend (included by launch.cpp). You do not need to change this file.
#pragma once

#include <cstddef>

#include "scanlab/launcher.hpp"
#include "single_pass_scan.cuh"

namespace scanlab::s11_7 {

/// The algorithm class run_scan expects (scanlab/launcher.hpp): sections of kThreads * kItems
/// elements, one block each, section numbers from the counter (or, to watch it deadlock on the cpu
/// backend, from blockIdx.x).
template <unsigned kThreads, unsigned kItems, BlockIndex kIndex = BlockIndex::counter>
struct SinglePass {
  static constexpr std::size_t section_size = std::size_t{kThreads} * kItems;

  template <class T, class Op>
  class Scan {
   public:
    explicit Scan(std::size_t n)
        : sync_(sync_elements(ceil_div(n, section_size))), running_(ceil_div(n, section_size) + 1) {}
    static std::size_t workspace_bytes(std::size_t n) {
      const std::size_t blocks = ceil_div(n, section_size);
      return sync_elements(blocks) * sizeof(unsigned) + (blocks + 1) * sizeof(T);
    }
    void operator()(const T* d_in, T* d_out, std::size_t n, Op op, ScanKind kind) {
      const std::size_t blocks = ceil_div(n, section_size);
      // Every launch starts from a zero counter and no flags set (a cudaMemset, ordered before the
      // kernel in the stream): the previous launch left them counted up and set.
      sync_.fill(0);
      unsigned* const counter = sync_.data();
      unsigned* const flags = sync_.data() + 1;
      launch(single_pass_scan_kernel<T, Op, kItems, kIndex>,
             {"single_pass_scan_kernel", dim3(static_cast<unsigned>(blocks)), dim3(kThreads)}, d_in, d_out, n, op,
             kind == ScanKind::exclusive, counter, flags, running_.data());
    }

   private:
    /// The counter, then one flag per block and one more (the last block sets flags[blocks]).
    static std::size_t sync_elements(std::size_t blocks) { return 1 + blocks + 1; }

    DeviceBuffer<unsigned> sync_;
    DeviceBuffer<T> running_;
  };
};

}  // namespace scanlab::s11_7
