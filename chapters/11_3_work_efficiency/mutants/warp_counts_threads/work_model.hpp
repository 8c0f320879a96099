/// MUTANT (known wrong, to prove the grader): warp granularity charging only the applying threads (no divergence cost)
/// \file work_model.hpp
/// \brief Section 11.3: the analytical model of work and steps, to set next to what the emulator
/// counts when it runs the kernels of sections 11.1, 11.2, 11.4 and 11.5.
///
/// **Work** is the number of applications of the scan operator (the book's "additions"), counted
/// over all threads. **Steps** are the time units a machine with P execution units needs, when one
/// unit applies the operator once per step. The emulator reports, for every barrier interval (the
/// code a block runs between two `__syncthreads()`), how many threads applied the operator
/// (`threads_applying`), in how many warps (`warps_applying`), and the most applications by one
/// thread (`max_ops_per_thread`). The step model built on them is:
///
///     steps_P = sum over intervals of  ceil(active / P) * max_ops_per_thread
///
///     active = threads_applying         (thread granularity: a unit can run any thread)
///     active = 32 * warps_applying      (warp granularity: the units run whole warps, SIMD; a
///                                         warp with one applying thread occupies 32 lanes; this
///                                         is the cost of control divergence)
///
/// The active threads are dealt out P at a time (rounds), and a round lasts as long as the busiest
/// thread of the interval (an upper bound when threads do unequal work). Barriers separate intervals,
/// so their steps add up. Blocks of one launch share the P units and take turns (their intervals are
/// summed), and launches add up. With P >= active in every interval, steps_P is the longest chain of
/// applications through the block's barriers: the book's "steps with unlimited execution units".
///
/// Host code only (constexpr, no kernel), so tests and the program can call it directly.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "scanlab/stats.hpp"

namespace scanlab::s11_3 {

/// Lanes of a warp: the SIMD width the warp-granularity model charges for.
inline constexpr std::uint64_t kWarpSize = 32;

/// floor(log2(n)) for n >= 1 (0 for n == 0): the number of halvings of a power of two.
constexpr std::uint64_t log2_floor(std::uint64_t n) {
  std::uint64_t k = 0;
  while (n > 1) {
    n /= 2;
    ++k;
  }
  return k;
}

/// Work of the sequential scan (Sec. 11.1) of N elements: N - 1 applications (0 for N == 0).
/// The least work any scan of N elements can do.
constexpr std::uint64_t work_sequential(std::uint64_t N) {
  // TODO(student) begin: one application per element after the first.
  return N == 0 ? 0 : N - 1;
  // TODO(student) end
}

/// Work of the Kogge-Stone scan (Sec. 11.2, Fig. 11.3) of N elements with one thread per element:
/// in the iteration with stride s (s = 1, 2, 4, ... while s < N) every thread i >= s applies the
/// operator once, i.e. N - s applications. For N a power of two the sum is N log2 N - (N - 1)
/// (20,481 for N = 2,048). Any N >= 0 (0 and 1 give 0).
constexpr std::uint64_t work_kogge_stone(std::uint64_t N) {
  // TODO(student) begin: add up N - s over the strides s = 1, 2, 4, ... below N.
  std::uint64_t work = 0;
  for (std::uint64_t stride = 1; stride < N; stride *= 2) work += N - stride;
  return work;
  // TODO(student) end
}

/// Work of the Brent-Kung scan (Sec. 11.4, Fig. 11.4) of an N-element section:
/// - reduction tree: in the step with stride s (1, 2, 4, ...) the elements at (k + 1) 2s - 1 < N
///   take in the element s before them: floor(N / 2s) applications; N - 1 in all for N = 2^k;
/// - reverse tree: in the step with stride s (..., 4, 2, 1) the elements at (k + 1) 2s - 1 + s < N
///   take in the element s before them: floor((N - s) / 2s) applications; N - 1 - log2 N in all.
/// For N a power of two: 2N - 2 - log2 N (4,083 for N = 2,048). Any N >= 0.
constexpr std::uint64_t work_brent_kung(std::uint64_t N) {
  // TODO(student) begin: count both trees, stride by stride.
  std::uint64_t work = 0;
  for (std::uint64_t stride = 1; 2 * stride <= N; stride *= 2) work += N / (2 * stride);
  for (std::uint64_t stride = 1; stride < N; stride *= 2) work += (N - stride) / (2 * stride);
  return work;
  // TODO(student) end
}

/// Which parallel scan phase 2 of the coarsened scan uses on the T subsection sums.
enum class Phase2 { kogge_stone, brent_kung };

/// Work of the three-phase coarsened scan (Sec. 11.5) of N elements with T threads, each owning a
/// subsection of N / T consecutive elements (T divides N):
/// - phase 1: every thread scans its subsection sequentially: T (N/T - 1) = N - T applications;
/// - phase 2: a parallel scan of the T subsection sums (Kogge-Stone or Brent-Kung on T elements);
/// - phase 3: every thread but the first adds its predecessor's sum to the elements of its
///   subsection except the last, which phase 2 already finished: (T - 1)(N/T - 1) applications.
/// The book counts phase 3 as N - T (thread 0 adding nothing is a detail it leaves out), and phase 2
/// as T log2 T: (N - T) + T log2 T + (N - T). This function counts exactly.
constexpr std::uint64_t work_coarsened(std::uint64_t N, std::uint64_t T, Phase2 phase2 = Phase2::kogge_stone) {
  // TODO(student) begin: the three phases (guard T == 0 and N < T).
  if (T == 0 || N == 0) return 0;
  if (N < T) T = N;
  const std::uint64_t per_thread = N / T;
  const std::uint64_t phase1 = T * (per_thread - 1);
  const std::uint64_t phase2_work = phase2 == Phase2::kogge_stone ? work_kogge_stone(T) : work_brent_kung(T);
  const std::uint64_t phase3 = (T - 1) * (per_thread - 1);
  return phase1 + phase2_work + phase3;
  // TODO(student) end
}

/// How the step model counts the threads of an interval (see the file comment).
enum class Granularity {
  thread,  ///< active = threads_applying
  warp,    ///< active = 32 * warps_applying (SIMD: a warp occupies all its lanes)
};

/// Lanes that sit idle in the warps that apply the operator in an interval: 32 * warps_applying -
/// threads_applying. Not zero means control divergence (Sec. 11.3): some lanes of a warp take the
/// branch that applies the operator and others do not, and a SIMD warp still spends the idle lanes'
/// slots. It is what the warp granularity charges on top of the thread granularity.
constexpr std::uint64_t idle_lanes(const IntervalStats& interval) {
  // TODO(student) begin: the lanes of the applying warps minus the applying threads.
  const std::uint64_t lanes = kWarpSize * interval.warps_applying;
  return lanes - std::min<std::uint64_t>(lanes, interval.threads_applying);
  // TODO(student) end
}

/// The steps of one barrier interval on P execution units: ceil(active / P) * max_ops_per_thread.
/// An interval in which no thread applies the operator takes 0 steps. P >= 1.
constexpr std::uint64_t interval_steps(const IntervalStats& interval, std::uint64_t P, Granularity granularity) {
  // TODO(student) begin: pick `active` by granularity, then rounds of P times the longest thread.
  const std::uint64_t active = granularity == Granularity::thread
                                   ? std::uint64_t{interval.threads_applying}
                                   : std::uint64_t{interval.threads_applying};
  if (P == 0) return 0;
  return (active + P - 1) / P * interval.max_ops_per_thread;
  // TODO(student) end
}

/// Steps of a whole run (every launch, every block, every interval) on P execution units:
/// the sum of interval_steps over all intervals of all launches.
inline std::uint64_t steps_with_units(std::span<const LaunchStats> launches, std::uint64_t P,
                                      Granularity granularity) {
  // TODO(student) begin: add up interval_steps over the launches' intervals.
  std::uint64_t steps = 0;
  for (const LaunchStats& launch : launches) {
    for (const IntervalStats& interval : launch.intervals) steps += interval_steps(interval, P, granularity);
  }
  return steps;
  // TODO(student) end
}

}  // namespace scanlab::s11_3
