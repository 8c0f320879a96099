/// \file kogge_stone.cuh
/// \brief Section 11.2: the Kogge-Stone scan of one section, one element per thread.
///
/// After the step with stride s, XY[t] holds the combination of the (up to) 2s input elements that
/// end at position t; after log2(section) steps it holds the whole prefix. Three kernels:
/// - `kogge_stone_scan_kernel`: the book's Fig. 11.3. Each thread keeps its new partial sum in a
///   temporary between two barriers, because of the write-after-read race on XY.
/// - `kogge_stone_double_buffer_scan_kernel`: two shared arrays whose roles alternate, so each step
///   reads one and writes the other: one barrier per step instead of two.
/// - `kogge_stone_warp_shuffle_scan_kernel`: Kogge-Stone inside each warp with `__shfl_up_sync`, then
///   across the warp totals (warp_scan.cuh), the form modern GPUs use.
///
/// Shared contract of the three kernels (section 11.6 launches them as its first phase):
/// - A launch scans ceil(n / blockDim.x) sections of blockDim.x elements, one block per section, each
///   independently of the others: block b scans x[b*S .. b*S+S-1] with S = blockDim.x (at most
///   1024; a multiple of 32 for the warp-shuffle kernel; one-dimensional grid and blocks).
/// - Dynamic shared memory: S elements of T (2 S for the double-buffered kernel, none for the
///   warp-shuffle kernel).
/// - `exclusive`: y[first] = identity and y[i] = x[first] (+) ... (+) x[i-1] within the section
///   (the book's shifted load, Sec. 11.2); otherwise inclusive.
/// - Elements past n are the identity, so they change nothing; y past n is never written.
/// - y may be x (in place): every read of x comes before the block's first barrier, every write of y
///   after its last.
/// - `block_sums`, when not null: block b writes its section's total, the combination of all its
///   elements (inclusive and exclusive alike), to block_sums[b].
/// - Work, per full section of S = 2^k elements: S log2 S - (S - 1) applications of `op` (9217 for
///   S = 1024) for Fig. 11.3 and its double-buffered form (the warp-shuffle kernel: see there), plus
///   one for the total of an exclusive section when `block_sums` is set.
#pragma once

#include <cstddef>

#include "scanlab/kernel.hpp"
#include "warp_scan.cuh"

namespace scanlab::s11_2 {

/// The element thread `t` of the section loads: x[i] (inclusive), or x[i-1] with the identity at the
/// section's start (exclusive: the shifted load turns the inclusive algorithm into an exclusive scan
/// at no extra work). Where that element is past the end of x: the identity, never left unwritten.
/// (Exclusive: the thread with i == n still loads x[n-1]; it writes no y, but a partial section's
/// total needs that element.)
template <class T, class Op>
__device__ __forceinline__ T load_section_element(const T* x, std::size_t n, std::size_t i, unsigned t,
                                                  bool exclusive) {
  // TODO(student) begin: inclusive: x[i], or the identity (Op::identity()) if i >= n. Exclusive:
  // the identity at the section's first thread (t == 0), else x[i - 1] (the identity if i - 1 >= n).
  // (your code here)
  (void)x, (void)n, (void)i, (void)t, (void)exclusive;  // (silences "unused" warnings until you use them)
  return Op::identity();
  // TODO(student) end
}

/// The element an exclusive section's scan leaves out of its total: the section's last input (read
/// by the last thread, before the first barrier, since y may be x). The identity otherwise.
template <class T, class Op>
__device__ __forceinline__ T left_out_of_exclusive(const T* x, std::size_t n, std::size_t i, unsigned t,
                                                   bool exclusive, const T* block_sums) {
  const bool needed = exclusive && block_sums != nullptr && t == blockDim.x - 1 && i < n;
  return needed ? x[i] : Op::identity();
}

/// Writes the section's total to block_sums[blockIdx.x] (when block_sums is set), from the last
/// thread, which holds the scan's last element.
template <class T, class Op>
__device__ __forceinline__ void write_section_total(T* block_sums, T last, T left_out, bool exclusive, Op op) {
  if (block_sums == nullptr || threadIdx.x != blockDim.x - 1) return;
  block_sums[blockIdx.x] = exclusive ? op(last, left_out) : last;
}

/// Fig. 11.3: Kogge-Stone scan of each block's section in shared memory XY, in place.
/// See the file comment for the contract. Barriers: 2 log2 S per block.
template <class T, class Op>
__global__ void kogge_stone_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive, T* block_sums) {
  T* XY = dynamic_shared<T>();  // blockDim.x elements
  trace_shared("XY", XY, blockDim.x);
  const unsigned t = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + t;

  XY[t] = load_section_element<T, Op>(x, n, i, t, exclusive);
  const T left_out = left_out_of_exclusive<T, Op>(x, n, i, t, exclusive, block_sums);

  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    // TODO(student) begin: a barrier; threads t >= stride combine XY[t - stride] (left) with XY[t]
    // into a temporary; a barrier; then they store the temporary into XY[t].
    // (your code here)
    (void)op;  // (silences "unused" warnings until you use them)
    // TODO(student) end
  }
  // No barrier needed here: each thread reads back only the XY[t] it wrote itself.

  if (i < n) y[i] = XY[t];
  write_section_total(block_sums, XY[t], left_out, exclusive, op);
}

/// Kogge-Stone with double buffering: step k reads one shared array and writes the other, and the
/// next step swaps their roles. No thread ever writes the array that others are reading in the same
/// step, so the write-after-read barrier of Fig. 11.3 is not needed: one barrier per step (the one
/// that makes a step's results visible to the next). The price: twice the shared memory.
/// See the file comment for the contract. Barriers: log2 S per block.
template <class T, class Op>
__global__ void kogge_stone_double_buffer_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive,
                                                      T* block_sums) {
  T* buffers = dynamic_shared<T>();  // 2 * blockDim.x elements
  trace_shared("XY_a", buffers, blockDim.x);
  trace_shared("XY_b", buffers + blockDim.x, blockDim.x);
  const unsigned t = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + t;

  T* in = buffers;                // read by this step
  T* out = buffers + blockDim.x;  // written by this step
  in[t] = load_section_element<T, Op>(x, n, i, t, exclusive);
  const T left_out = left_out_of_exclusive<T, Op>(x, n, i, t, exclusive, block_sums);

  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    // TODO(student) begin: a barrier; every thread writes out[t]: in[t - stride] (left) combined
    // with in[t] if t >= stride, else a copy of in[t] (out must hold the whole section); then swap
    // the roles of `in` and `out` (swap the pointers, every thread alike).
    // (your code here)
    (void)op, (void)out;  // (silences "unused" warnings until you use them)
    // TODO(student) end
  }

  if (i < n) y[i] = in[t];
  write_section_total(block_sums, in[t], left_out, exclusive, op);
}

/// Kogge-Stone with warp shuffles: each warp scans its 32 elements in registers, warp 0 scans the
/// warp totals, and every warp adds the total of the warps before it (warp_scan.cuh).
/// See the file comment for the contract; blockDim.x is a multiple of 32. Barriers: 2 per block.
/// Work per full section of S elements: (S / 32 + 1) * 129 + (S - 32) (5249 for S = 1024): fewer
/// applications than Fig. 11.3, because only the warp totals take part in the steps beyond 16.
template <class T, class Op>
__global__ void kogge_stone_warp_shuffle_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive,
                                                     T* block_sums) {
  __shared__ T warp_totals[32];
  trace_shared("warp_totals", warp_totals, blockDim.x / warpSize);
  const unsigned t = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + t;

  T value = load_section_element<T, Op>(x, n, i, t, exclusive);
  const T left_out = left_out_of_exclusive<T, Op>(x, n, i, t, exclusive, block_sums);
  value = block_inclusive_scan_by_warps(value, op, warp_totals);

  if (i < n) y[i] = value;
  write_section_total(block_sums, value, left_out, exclusive, op);
}

}  // namespace scanlab::s11_2
