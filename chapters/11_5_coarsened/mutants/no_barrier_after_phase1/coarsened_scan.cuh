/// MUTANT (known wrong, to prove the grader): no barrier between phase 1 and phase 2: Kogge-Stone can read a neighbour's total before that thread wrote it (a race).
/// \file coarsened_scan.cuh
/// \brief Section 11.5: the coarsened (three-phase) scan, for more work efficiency.
///
/// A block of T threads scans a section of N = T * f elements (f, the coarsening factor, is a launch
/// parameter) held in shared memory, so the section size is bounded by shared memory, not by the
/// thread count (Sec. 11.5):
/// - Phase 1: thread t scans its own contiguous subsection XY[t f .. t f + f) sequentially.
/// - Phase 2: the block scans the T subsection totals in parallel (here Kogge-Stone, Sec. 11.2, one
///   total per thread).
/// - Phase 3: thread t combines its predecessor's scanned total into its subsection.
/// Data moves between global and shared memory in a coalesced pattern (in each pass, thread t takes
/// element t of the pass), and the sequential phases then work in shared memory.
///
/// Work, for one block (exactly, as counted by the cpu backend):
///   phase 1   N - T                     (f - 1 per thread)
///   phase 2   T log2 T - (T - 1)        (Kogge-Stone over T elements)
///   phase 3   (T - 1)(f - 1)            (thread 0 has no predecessor; last elements come from phase 2)
/// The book rounds these to N - T, T log2 T and N - T. Steps with enough hardware: 2(f - 1) + log2 T.
///
/// Section 11.6 launches this kernel over many sections and scans the `block_sums` it writes.
#pragma once

#include <cstddef>

#include "scanlab/kernel.hpp"

/// Dynamic shared memory one block needs: the section (threads * factor elements) and the
/// subsection totals (one per thread). Pass it as the launch's shared-memory size.
template <class T>
SCANLAB_HD constexpr std::size_t coarsened_shared_bytes(unsigned threads, unsigned factor) {
  return (static_cast<std::size_t>(threads) * factor + threads) * sizeof(T);
}

/// Phase 2: inclusive Kogge-Stone scan (Sec. 11.2) of totals[0 .. blockDim.x), one element per
/// thread, in shared memory. Call it from every thread of the block after a barrier that made all
/// the totals visible; it returns after a barrier, so any thread may then read any total.
/// - Work: T log2 T - (T - 1) applications for T = blockDim.x a power of two, in log2 T steps.
template <class T, class Op>
__device__ void coarsened_scan_totals(T* totals, Op op) {
  // TODO(student) begin: the Kogge-Stone loop of Sec. 11.2 over totals[], with op(left, right):
  // read into a temporary, barrier, write, barrier.
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    T sum{};
    if (threadIdx.x >= stride) sum = op(totals[threadIdx.x - stride], totals[threadIdx.x]);
    __syncthreads();  // every read of this step before any write: the write-after-read race
    if (threadIdx.x >= stride) totals[threadIdx.x] = sum;
    __syncthreads();  // this step's writes before the next step's reads
  }
  // TODO(student) end
}

/// Coarsened three-phase scan of each section of N = blockDim.x * factor elements of x,
/// independently: block b scans x[b N .. (b + 1) N) into y[b N .. (b + 1) N).
/// - Launch: grid = ceil(n / N) blocks of T = blockDim.x threads (a power of two, at most 1024), with
///   coarsened_shared_bytes<T>(T, factor) bytes of dynamic shared memory; factor >= 1.
/// - Inclusive, or exclusive (`exclusive`: each section's first output is Op::identity()).
/// - `op` is applied as op(left, right), keeping the order (the `last` operator is not commutative).
/// - `y` may be the same array as `x` (in place): a block reads its section before its first barrier
///   and writes it after its last.
/// - Elements past n are taken as Op::identity(); n == 0 needs no launch.
/// - `block_sums`: if not null, block b writes the total of its section, op over all its elements
///   (for either kind), to block_sums[b]. Section 11.6 scans these.
/// - Work per block: see the file comment; it does not depend on n.
template <class T, class Op>
__global__ void coarsened_scan_kernel(const T* x, T* y, std::size_t n, unsigned factor, Op op, bool exclusive,
                                      T* block_sums) {
  T* const XY = scanlab::dynamic_shared<T>();
  const unsigned section = blockDim.x * factor;
  T* const totals = XY + section;
  scanlab::trace_shared("XY", XY, section);
  scanlab::trace_shared("totals", totals, blockDim.x);
  const std::size_t start = static_cast<std::size_t>(blockIdx.x) * section;

  // Coalesced load: pass k reads elements k T .. k T + T - 1, one per thread.
  for (unsigned j = threadIdx.x; j < section; j += blockDim.x) {
    XY[j] = start + j < n ? x[start + j] : Op::identity();
  }
  __syncthreads();  // thread t scans elements that other threads loaded

  // Phase 1: thread t owns XY[first .. last].
  const unsigned first = threadIdx.x * factor;
  const unsigned last = first + factor - 1;
  // TODO(student) begin: phase 1, the sequential scan of XY[first .. last] (Sec. 11.1's loop).
  for (unsigned j = first + 1; j <= last; ++j) {
    XY[j] = op(XY[j - 1], XY[j]);
  }
  // TODO(student) end
  totals[threadIdx.x] = XY[last];

  // Phase 2: totals[t] becomes the total of subsections 0 .. t.
  coarsened_scan_totals(totals, op);

  // Phase 3: everything before subsection t is totals[t - 1]; it is the left operand.
  // TODO(student) begin: phase 3. Threads t > 0 combine totals[t - 1] into XY[first .. last - 1];
  // (XY[last] is set from totals[t] below).
  if (threadIdx.x > 0) {
    const T before = totals[threadIdx.x - 1];
    for (unsigned j = first; j < last; ++j) {
      XY[j] = op(before, XY[j]);
    }
  }
  // TODO(student) end
  XY[last] = totals[threadIdx.x];
  __syncthreads();  // the store reads elements of other threads' subsections

  // Coalesced store. Exclusive: element j takes the inclusive result of j - 1.
  for (unsigned j = threadIdx.x; j < section; j += blockDim.x) {
    if (start + j < n) {
      y[start + j] = !exclusive ? XY[j] : j == 0 ? Op::identity() : XY[j - 1];
    }
  }
  if (block_sums != nullptr && threadIdx.x == blockDim.x - 1) {
    block_sums[blockIdx.x] = totals[threadIdx.x];
  }
}
