/// \file hierarchical_scan.cuh
/// \brief Section 11.6: the kernel of the hierarchical scan's third step, which turns per-section
/// scans into one scan of the whole array.
///
/// The hierarchical scan (Sec. 11.6) scans an array of any length in three steps:
///   1. scan each section of `section_size` elements with an in-block kernel (sections 11.2-11.5),
///      and write each section's total (the last element of its inclusive scan) to S[b];
///   2. scan S, itself with the hierarchical scan when S is longer than one section;
///   3. combine: every element of section b gets S[b-1], the total of all earlier sections,
///      applied on its left: y[i] = S[b-1] (+) y[i]. That is `add_block_sums_kernel` below.
/// The host side (allocating S, launching the three steps, recursing) is hierarchical_host.hpp.
///
/// Exclusive scans: step 1 always scans inclusively, because the inclusive scan's last element is
/// the section's total, which step 2 needs. Step 3 then shifts by one while it combines: the
/// exclusive y[i] is S[b-1] (+) (inclusive y[i-1]), and the first element of section b is S[b-1]
/// (the identity for b = 0). Step 3 reads and writes every element anyway, so the shift costs no
/// extra global memory traffic; it only stages the section in shared memory, so that no thread
/// overwrites y[i-1] before the thread that needs it has read it.
#pragma once

#include <cstddef>

#include "scanlab/kernel.hpp"

/// Step 3 of the hierarchical scan: one block per section, `blockDim.x` threads striding over the
/// section's `section_size` elements (a multiple of blockDim.x is not required).
/// - On entry, y[b * section_size ...] holds section b's own inclusive scan, and S[b] the inclusive
///   scan of the section totals: S[b] = x[0] (+) ... (+) (last element of section b).
/// - inclusive (`exclusive` false): y[i] = S[b-1] (+) y[i] for every i of section b > 0; block 0
///   has nothing to do (as in the book, where only blocks with blockIdx.x > 0 add).
/// - exclusive: y[first of b] = S[b-1] (identity for b = 0), y[i] = S[b-1] (+) y[i-1] otherwise.
///   Needs `section_size * sizeof(T)` bytes of dynamic shared memory for the staged section.
/// - The order of the operands matters: S[b-1] covers earlier elements, so it is the left operand
///   (`last` is not commutative).
/// - S is not read when there is one section (it may then be null). n == 0: launch nothing.
template <class T, class Op>
__global__ void add_block_sums_kernel(T* y, const T* S, std::size_t n, std::size_t section_size, Op op,
                                      bool exclusive) {
  const std::size_t b = blockIdx.x;
  const std::size_t begin = b * section_size;
  const std::size_t end = begin + section_size < n ? begin + section_size : n;
  // TODO(student) begin: inclusive: apply S[b-1] on the left of every element of sections b > 0.
  //   exclusive: stage the section in shared memory (scanlab::dynamic_shared<T>()), __syncthreads(),
  //   then write the shifted values: S[b-1] (identity for b = 0) first, then S[b-1] (+) y[i-1].
  // (your code here)
  (void)y, (void)S, (void)op, (void)exclusive, (void)begin, (void)end;  // (silences "unused" warnings until you use them)
  // TODO(student) end
}
