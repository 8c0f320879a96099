/// \file hierarchical_host.hpp
/// \brief Section 11.6: the host side of the hierarchical scan. It allocates the block-sum arrays,
/// launches the three steps, and recurses when the block sums are longer than one section, so it
/// scans any n that fits in device memory. Compiled once per backend (included by launch.cpp).
///
/// The in-block scan of step 1 is a template parameter, a "section scan" (see SectionScan below),
/// so the same host code runs on top of the Kogge-Stone, Brent-Kung and coarsened kernels of
/// sections 11.2-11.5 (the book uses the coarsened three-phase kernel, Sec. 11.5).
#pragma once

#include <algorithm>
#include <cstddef>

#include "hierarchical_scan.cuh"
#include "scanlab/launcher.hpp"

namespace scanlab::s11_6 {

/// What the hierarchical scan needs from an in-block kernel (chapters/11_6_hierarchical/launch.cpp
/// adapts the kernels of sections 11.2-11.5 to it):
///
///     struct SomeSectionScan {
///       static constexpr std::size_t section_size = ...;  // elements one block scans
///       template <class T, class Op>
///       static void scan_sections(const T* d_in, T* d_out, std::size_t n, Op op, T* d_block_sums);
///     };
///
/// `scan_sections` launches ceil(n / section_size) blocks; block b scans elements
/// [b * section_size, min((b + 1) * section_size, n)) inclusively on its own, into d_out (which may
/// be d_in), and writes that section's total (its last inclusive element) to d_block_sums[b] unless
/// d_block_sums is null.
template <class S>
concept SectionScan = requires { S::section_size; };

/// Threads of one block of add_block_sums_kernel.
inline constexpr std::size_t kAddThreads = 256;

/// Elements of block-sum arrays the hierarchical scan of n elements needs, over all levels of the
/// recursion: m1 = ceil(n / s) block sums if m1 > 1, then m2 = ceil(m1 / s) if m2 > 1, and so on
/// until one section holds them all. (n = 2^30, s = 4096: 262,144 + 64 elements.)
inline std::size_t block_sums_elements(std::size_t n, std::size_t section_size) {
  // TODO(student) begin: sum the lengths of S at every level that has more than one section.
  // (your code here)
  (void)n, (void)section_size;  // (silences "unused" warnings until you use them)
  return 0;
  // TODO(student) end
}

/// Scans d_in into d_out (which may be d_in), n elements, inclusive or exclusive, with the three steps
/// of Sec. 11.6; `d_sums` is workspace of block_sums_elements(n, Sections::section_size) elements.
/// - Step 1: Sections::scan_sections, one block per section, section totals into d_sums.
/// - Step 2: the same function on d_sums, in place and inclusive: a recursion that ends when the
///   block sums fit in one section (which step 1 of that level then scans in one block).
/// - Step 3: add_block_sums_kernel, one block per section; for an exclusive scan it also shifts, so
///   it runs even when there is only one section.
/// n == 0: nothing is launched.
template <SectionScan Sections, class T, class Op>
void hierarchical_scan(const T* d_in, T* d_out, std::size_t n, Op op, bool exclusive, T* d_sums) {
  constexpr std::size_t s = Sections::section_size;
  // TODO(student) begin: step 1 (Sections::scan_sections, totals into d_sums when there is more than
  //   one section), step 2 (recurse on d_sums: its own block sums go after it in the workspace),
  //   step 3 (launch add_block_sums_kernel with scanlab::launch, one block per section, kAddThreads
  //   threads, and s * sizeof(T) bytes of dynamic shared memory for an exclusive scan).
  // (your code here)
  (void)d_in, (void)d_out, (void)n, (void)op, (void)exclusive, (void)d_sums, (void)s;  // (silences "unused" warnings)
  // TODO(student) end
}

/// The algorithm class run_scan expects (scanlab/launcher.hpp), for one section scan: the
/// constructor allocates the block sums of every level. You do not need to change this.
template <SectionScan Sections>
struct Hierarchical {
  template <class T, class Op>
  class Scan {
   public:
    static constexpr bool kTakesEmpty = true;  // n == 0 reaches hierarchical_scan (scanlab/launcher.hpp)
    explicit Scan(std::size_t n) : sums_(block_sums_elements(n, Sections::section_size)) {}
    static std::size_t workspace_bytes(std::size_t n) {
      return block_sums_elements(n, Sections::section_size) * sizeof(T);
    }
    void operator()(const T* d_in, T* d_out, std::size_t n, Op op, ScanKind kind) {
      hierarchical_scan<Sections>(d_in, d_out, n, op, kind == ScanKind::exclusive, sums_.data());
    }

   private:
    DeviceBuffer<T> sums_;
  };
};

}  // namespace scanlab::s11_6
