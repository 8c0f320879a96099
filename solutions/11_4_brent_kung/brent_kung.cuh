/// \file brent_kung.cuh
/// \brief Section 11.4: the Brent-Kung scan, a reduction tree followed by a reverse tree.
///
/// Each block scans one section of 2 * blockDim.x elements in shared memory, two elements per
/// thread, so a 1024-thread block scans 2048 elements (the book's Brent-Kung kernel, Sec. 11.4).
/// - The reduction tree (the upper half of the book's Brent-Kung figure) combines pairs at strides 1, 2, 4, ..., S/2: S - 1
///   applications of the operator, and positions 0, 1, 3, 7, ..., S-1 then hold their final values.
/// - The reverse tree (bottom half) hands those partial results down at strides S/4, ..., 2, 1:
///   S - 1 - log2(S) more applications.
/// Together 2S - 2 - log2(S) applications (O(S), against Kogge-Stone's S log2(S) - (S - 1)), in
/// 2 log2(S) - 1 steps.
///
/// The thread-to-index mapping `index = (threadIdx.x + 1) * 2 * stride - 1` keeps the active threads
/// contiguous (threads 0 .. S/(2 stride) - 1), so whole warps drop out as the tree narrows instead of
/// every warp keeping a few active lanes.
///
/// Two shared-memory layouts share the same tree code:
/// - `brent_kung_scan_kernel`: the book's layout, element i at XY[i];
/// - `brent_kung_padded_scan_kernel`: element i at XY[i + i / 32] (GPU Gems 3, ch. 39). The tree's
///   accesses at stride s fall into 32 / 2s banks; one pad word per 32 elements spreads them out
///   (2-way conflicts remain where 2s > 32: the bank diagram of chapters/11_4_brent_kung/README.md).
///
/// Section 11.6 launches these kernels over many sections and scans the `block_sums` they write.
#pragma once

#include <cstddef>

#include "scanlab/kernel.hpp"

/// The largest section: two elements per thread of a 1024-thread block.
inline constexpr unsigned kBrentKungMaxSection = 2048;

/// Shared-memory banks on every CUDA GPU since Fermi: 32 banks of 4 bytes.
inline constexpr unsigned kBrentKungLogBanks = 5;

/// Where element i of the section lives in shared memory: at i (the book's layout), or, padded, one
/// extra word after every 32 elements, so that i and i + 32 * k land in different banks.
template <bool kPadded>
SCANLAB_HD constexpr unsigned brent_kung_slot(unsigned i) {
  return kPadded ? i + (i >> kBrentKungLogBanks) : i;
}

/// Shared-memory elements a section of `section` elements occupies in a layout.
template <bool kPadded>
SCANLAB_HD constexpr unsigned brent_kung_shared_size(unsigned section) {
  return kPadded ? section + (section >> kBrentKungLogBanks) : section;
}

/// The two trees of Sec. 11.4 over the section XY[0 .. 2 * blockDim.x) in shared memory, leaving its
/// inclusive scan there. Called by every thread of the block right after each thread stored its two
/// elements; returns after a barrier, so every thread may read any element.
/// - blockDim.x must be a power of two.
/// - `op` is applied as op(left, right), keeping the order (the `last` operator is not commutative):
///   the left operand is always the element at the lower index.
/// - Work: 2S - 2 - log2(S) applications for S = 2 * blockDim.x, in 2 log2(S) - 1 barrier intervals
///   of at most one application per thread.
template <bool kPadded, class T, class Op>
__device__ void brent_kung_trees(T* XY, Op op) {
  const unsigned section = 2 * blockDim.x;
  const auto at = [](unsigned i) { return brent_kung_slot<kPadded>(i); };

  // Reduction tree: after the step at `stride`, XY[k * 2 stride - 1] holds the sum of its 2 stride
  // elements. Each step begins with a barrier: it reads what the previous step wrote.
  // TODO(student) begin: the reduction tree (strides 1, 2, ..., blockDim.x). Thread t combines the
  // element `stride` below its index into XY[index], index = (t + 1) * 2 * stride - 1, while index is
  // inside the section. Use at(i) for every shared-memory position.
  for (unsigned stride = 1; stride <= blockDim.x; stride *= 2) {
    __syncthreads();
    const unsigned index = (threadIdx.x + 1) * 2 * stride - 1;
    if (index < section) {
      XY[at(index)] = op(XY[at(index - stride)], XY[at(index)]);
    }
  }
  // TODO(student) end

  // Reverse tree: the element at index holds a complete prefix; hand it to the partial sum `stride`
  // above. The largest stride needed is S/4: position S/2 - 1 gives to 3S/4 - 1.
  // TODO(student) begin: the reverse tree (strides section / 4, ..., 2, 1), same index mapping,
  // updating XY[index + stride] while index + stride is inside the section.
  for (unsigned stride = section / 4; stride > 0; stride /= 2) {
    __syncthreads();
    const unsigned index = (threadIdx.x + 1) * 2 * stride - 1;
    if (index + stride < section) {
      XY[at(index + stride)] = op(XY[at(index)], XY[at(index + stride)]);
    }
  }
  // TODO(student) end
  __syncthreads();  // the last step's writes, before any thread reads the section
}

/// One block's whole section: load (identity past n), both trees, store, block total.
/// Thread t loads and stores elements t and t + blockDim.x, so each warp touches consecutive
/// addresses in global memory (coalesced) and in shared memory.
template <bool kPadded, class T, class Op>
__device__ void brent_kung_section(T* XY, const T* x, T* y, std::size_t n, Op op, bool exclusive,
                                   T* block_sums) {
  const unsigned section = 2 * blockDim.x;
  const std::size_t start = static_cast<std::size_t>(blockIdx.x) * section;
  const auto at = [](unsigned i) { return brent_kung_slot<kPadded>(i); };

  for (unsigned j = threadIdx.x; j < section; j += blockDim.x) {
    XY[at(j)] = start + j < n ? x[start + j] : Op::identity();
  }

  brent_kung_trees<kPadded>(XY, op);

  // Exclusive: the book's exercise. Shifting on the way out (element j takes the inclusive result
  // of j - 1) rather than loading X[i - 1] keeps the section total in XY[S - 1] for block_sums.
  for (unsigned j = threadIdx.x; j < section; j += blockDim.x) {
    if (start + j < n) {
      y[start + j] = !exclusive ? XY[at(j)] : j == 0 ? Op::identity() : XY[at(j - 1)];
    }
  }
  if (block_sums != nullptr && threadIdx.x == blockDim.x - 1) {
    block_sums[blockIdx.x] = XY[at(section - 1)];
  }
}

/// Brent-Kung scan of each section of S = 2 * blockDim.x elements of x, independently: block b scans
/// x[b S .. (b + 1) S) into y[b S .. (b + 1) S).
/// - Launch: grid = ceil(n / S) blocks of a power-of-two blockDim.x <= 1024 threads.
/// - Inclusive, or exclusive (`exclusive`: each section's first output is Op::identity()).
/// - `y` may be the same array as `x` (in place): a block reads its section before its first barrier
///   and writes it after its last.
/// - Elements past n are taken as Op::identity(); n == 0 needs no launch (a grid of 0 blocks is an
///   error).
/// - `block_sums`: if not null, block b writes the total of its section, op over all its elements
///   (for either kind), to block_sums[b]. Section 11.6 scans these.
/// - Work: 2S - 2 - log2(S) applications per block, whatever n.
template <class T, class Op>
__global__ void brent_kung_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive,
                                       T* block_sums) {
  __shared__ T XY[kBrentKungMaxSection];
  scanlab::trace_shared("XY", XY, 2 * blockDim.x);
  brent_kung_section<false>(XY, x, y, n, op, exclusive, block_sums);
}

/// The same scan, with XY padded by one element per 32 (brent_kung_slot<true>) so that the trees'
/// strided accesses spread over all shared-memory banks. Same contract as brent_kung_scan_kernel.
template <class T, class Op>
__global__ void brent_kung_padded_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive,
                                              T* block_sums) {
  __shared__ T XY[brent_kung_shared_size<true>(kBrentKungMaxSection)];
  scanlab::trace_shared("XY", XY, brent_kung_shared_size<true>(2 * blockDim.x));
  brent_kung_section<true>(XY, x, y, n, op, exclusive, block_sums);
}
