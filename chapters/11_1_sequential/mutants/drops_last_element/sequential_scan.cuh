/// \file sequential_scan.cuh
/// MUTANT (known wrong, to prove the grader): the inclusive loop stops one short (i < n - 1), so the last element is never written.
/// \brief Section 11.1: the sequential scan, the baseline every parallel scan is measured against.
///
/// The book's `sequential_scan` (Sec. 11.1) adds one input element to the previous output element per
/// iteration: n - 1 applications of the operator, the least work any scan can do. Here it is generic
/// over the element type and the associative operator, and it runs as a kernel with one thread, so
/// the same code runs on a GPU and on the emulator (and you can see how slow one GPU thread is).
#pragma once

#include <cstddef>

#include "scanlab/kernel.hpp"

/// Inclusive scan: y[i] = x[0] (+) x[1] (+) ... (+) x[i], for i = 0 .. n-1.
/// - `op` is associative (see scanlab/ops.hpp); apply it as `op(left, right)`, keeping the order:
///   the `last` operator is not commutative.
/// - `y` may be the same array as `x` (in place).
/// - n == 0: nothing is read or written.
/// - Work: n - 1 applications of `op`.
template <class T, class Op>
SCANLAB_HD void sequential_inclusive_scan(const T* x, T* y, std::size_t n, Op op) {
  // TODO(student) begin: the book's loop, with op(a, b) in place of a + b.
  if (n == 0) return;
  y[0] = x[0];
  for (std::size_t i = 1; i + 1 < n; ++i) {
    y[i] = op(y[i - 1], x[i]);
  }
  // TODO(student) end
}

/// Exclusive scan: y[0] = identity, y[i] = x[0] (+) ... (+) x[i-1].
/// - `y` may be the same array as `x` (in place): read x[i] before writing y[i].
/// - n == 0: nothing is read or written.
/// - Work: n - 1 applications of `op`.
template <class T, class Op>
SCANLAB_HD void sequential_exclusive_scan(const T* x, T* y, std::size_t n, Op op) {
  // TODO(student) begin: keep a running total; write it before adding x[i] (the identity first).
  if (n == 0) return;
  T running = Op::identity();
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const T next = x[i];  // read first: y may alias x
    y[i] = running;
    running = op(running, next);
  }
  y[n - 1] = running;
  // TODO(student) end
}

/// One thread scans the whole array. (Launched with one block of one thread.)
template <class T, class Op>
__global__ void sequential_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  if (exclusive) {
    sequential_exclusive_scan(x, y, n, op);
  } else {
    sequential_inclusive_scan(x, y, n, op);
  }
}
