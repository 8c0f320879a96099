/// \file stats.hpp
/// \brief What the cpu backend measures about a launch: operator applications, barrier intervals,
/// and traces of shared arrays. Backend-agnostic plain data, so host code (programs, tests, plots)
/// can read it without including the emulator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace scanlab {

/// One barrier interval of one block: the code a block runs between two `__syncthreads()` (or between
/// the block's start or end and the nearest barrier).
struct IntervalStats {
  std::uint32_t block = 0;            ///< linear block index
  std::uint32_t threads_applying = 0; ///< threads that applied the scan operator at least once
  std::uint32_t warps_applying = 0;   ///< warps with at least one such thread
  std::uint64_t ops = 0;              ///< operator applications in the interval, all threads
  std::uint64_t max_ops_per_thread = 0; ///< the most applications by one thread (the interval's span)
};

/// The contents of one traced shared array in one block after one barrier.
struct TraceFrame {
  std::uint32_t block = 0;
  std::uint32_t step = 0;        ///< 0 = first barrier of the block, 1 = the next, ...
  std::string name;              ///< the name the kernel gave in `scanlab::trace_shared`
  std::string where;             ///< source file:line of the barrier
  std::vector<std::string> values; ///< the elements, formatted; "?" for never-written (poison)
};

/// Everything the emulator counted for one kernel launch.
struct LaunchStats {
  std::string kernel;                 ///< the name given in the launch configuration
  std::uint32_t grid_blocks = 0;      ///< gridDim.x * gridDim.y * gridDim.z
  std::uint32_t block_threads = 0;    ///< blockDim.x * blockDim.y * blockDim.z
  std::uint64_t ops = 0;              ///< operator applications, all blocks
  std::uint64_t barrier_intervals = 0; ///< intervals, summed over blocks
  std::vector<IntervalStats> intervals; ///< block-major, in the order each block ran them
  std::vector<TraceFrame> trace;        ///< filled only when tracing is on
};

}  // namespace scanlab
