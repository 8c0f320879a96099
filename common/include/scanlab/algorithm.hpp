/// \file algorithm.hpp
/// \brief How a section's kernels are offered to programs and tests: a table of named algorithms per
/// backend, each run through one type-erased function. Backend-agnostic: host code includes this,
/// never a kernel file.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scanlab/stats.hpp"
#include "scanlab/types.hpp"

/// Marks the functions a kernel library exports (everything else in it is hidden, so the cuda and cpu
/// builds of the same kernels can live in one program).
#define SCANLAB_EXPORT __attribute__((visibility("default")))

namespace scanlab {

/// What to scan.
struct ScanProblem {
  DType type = DType::int32;
  OpKind op = OpKind::add;
  ScanKind kind = ScanKind::inclusive;
  std::size_t n = 0;
  bool in_place = false;  ///< output aliases input
};

/// One call of an algorithm: scan `input` (n elements of problem.type) into `output` (host memory).
struct RunRequest {
  RunRequest() = default;
  RunRequest(ScanProblem problem_, const void* input_, void* output_, int reps_ = 0, bool trace_ = false)
      : problem(problem_), input(input_), output(output_), reps(reps_), trace(trace_) {}

  ScanProblem problem{};
  const void* input = nullptr;
  void* output = nullptr;
  int reps = 0;        ///< 0: one verified run; > 0: also time this many runs after one warm-up
  bool trace = false;  ///< cpu backend: record traced shared arrays after each barrier
  /// If set, called before each timed run (and the warm-up), outside the timed interval: the
  /// benchmark empties L2 there, so a section is timed like the libraries it is compared with.
  std::function<void()> before_each_run;
};

/// What came back besides the output.
struct RunResult {
  std::vector<double> times_ms;          ///< one per timed repetition (device time on a GPU)
  std::vector<LaunchStats> launches;     ///< cpu backend: counts of the verified run's launches
};

using RunFn = RunResult (*)(const RunRequest&);

/// What a section says about one of its scans, without its kernels: the section's algorithms.hpp
/// lists them (kAlgorithmInfo), launch.cpp gives each its run function (with_run), and the grader's
/// checker registers its tests from the same list without linking any kernel (scanlab/remote.hpp).
struct AlgorithmInfo {
  std::string_view name;
  std::string_view summary;
  std::string_view figure;
  std::size_t max_n = 0;
  bool given = false;
};

/// One scan a section offers.
struct Algorithm {
  std::string_view name;     ///< command-line name, e.g. "kogge_stone"
  std::string_view summary;  ///< one line: what it is
  std::string_view figure;   ///< where the book shows it, e.g. "Fig. 11.3"
  std::size_t max_n;         ///< largest n it scans (one section), or 0 for any n
  RunFn run;
  /// A kernel the section gives, not one the student writes (11.8's persistent scan): the grading
  /// tests of an exercise build leave it out, so it never earns points for a student's folder.
  bool given = false;
};

/// The algorithm `info` describes, run by `run`.
constexpr Algorithm with_run(const AlgorithmInfo& info, RunFn run) {
  return {info.name, info.summary, info.figure, info.max_n, run, info.given};
}

/// A section's algorithms on one backend.
struct AlgorithmTable {
  Backend backend;
  std::span<const Algorithm> algorithms;
  std::string (*device)();  ///< the device, for reports: GPU name and CUDA version, or the emulator
};

/// The algorithm of `table` called `name`, or nullptr. (A pointer, not a reference: callers pass
/// names as temporaries, and a reference into the table would look dangling to the compiler.)
inline const Algorithm* find_algorithm(const AlgorithmTable& table, std::string_view name) {
  for (const Algorithm& a : table.algorithms) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

}  // namespace scanlab
