/// \file testing.hpp
/// \brief The grading tests every section shares: each algorithm of the section, on the backend this
/// test program was built for, over every type, operator and inclusive/exclusive, at the edge sizes,
/// with poisoned outputs, checked against the CPU reference. On the cpu backend, the race check runs
/// too. A cuda test on a machine without a GPU is skipped, visibly.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scanlab/algorithm.hpp"

namespace scanlab::grading {

/// The sizes a section is graded at, up to `max_n` (0 = no limit; then up to `large`): the edge
/// cases around warps and blocks, then seeded random sizes.
std::vector<std::size_t> grading_sizes(std::size_t max_n, std::size_t large = 5000, std::uint64_t seed = 7);

/// The algorithm of `table` called `name`; throws std::runtime_error when the table has none.
/// Returned by value (a few words), so `const Algorithm& a = algorithm_named(t, "x");` is safe.
Algorithm algorithm_named(const AlgorithmTable& table, std::string_view name);

/// Why this backend cannot run here (no GPU), or nothing.
std::optional<std::string> unavailable(const AlgorithmTable& table);

/// Runs `algorithm` on a fresh seeded input of each size and returns "" if every output verifies,
/// else the first failure's message (with the size and what to look at). When `ran` is given, it
/// says whether the run behind that failure ended (a wrong output) or did not (an error: an
/// exception, a deadlock, the watchdog); with no failure it is true. `failed_n`, when given, gets
/// the size that failed.
std::string check_sizes(const Algorithm& algorithm, DType type, OpKind op, ScanKind kind,
                        const std::vector<std::size_t>& sizes, bool in_place = false, std::uint64_t seed = 1,
                        bool* ran = nullptr, std::size_t* failed_n = nullptr);

/// cpu backend: runs one problem under forward, reverse and random thread orders; "" if the outputs
/// agree, else which order differed (and where). A wrong output that changes with the order of the
/// threads is a race, such as the book's Kogge-Stone kernel without its second barrier.
std::string race_check(const Algorithm& algorithm, DType type, OpKind op, ScanKind kind, std::size_t n,
                       std::uint64_t seed = 3);

/// cpu backend: runs one problem with the resident blocks on the random block schedule (two seeds;
/// the default, adversarial schedule is what check_sizes ran), and once with unwritten shared memory
/// filled with other bytes; "" if every output verifies, else what went wrong and under what.
std::string schedule_check(const Algorithm& algorithm, DType type, OpKind op, ScanKind kind, std::size_t n);

/// cpu backend: after a wrong output, runs `in_index_order` with one block at a time in index order,
/// so every block's predecessors have finished. A pass there means the result depends on the order
/// of the blocks: a race between blocks (a read of another block's data before, or without, a wait on
/// its flag), said with the places where blocks waited. Else, where blocks waited, a hint naming
/// those places. Empty if no failure.
std::string blocks_hint(const std::string& failure, const std::function<std::string()>& in_index_order);

struct GradingOptions {
  std::string source_hint;   ///< where a student should look, e.g. "exercises/11_2_kogge_stone/"
  std::size_t large = 5000;  ///< largest size for algorithms without a section limit
  bool race_check = true;    ///< cpu backend only
  bool exercise = false;     ///< grades a student's kernels: leaves out the kernels the section gives
};

/// `exercise` for GradingOptions: true in a test program that grades a student's kernels (CMake
/// defines SCANLAB_GRADES_EXERCISE there).
#if defined(SCANLAB_GRADES_EXERCISE)
#define SCANLAB_EXERCISE_BUILD true
#else
#define SCANLAB_EXERCISE_BUILD false
#endif

/// Registers one test per (algorithm, type, operator, inclusive/exclusive) of `table`, named
/// `Grading.<algorithm>/<type>_<op>_<kind>`; with `options.exercise`, not for a given algorithm.
void register_grading_tests(const AlgorithmTable& table, const GradingOptions& options);

}  // namespace scanlab::grading

/// Skips the current test (visibly) when the table's backend cannot run here.
#define SCANLAB_SKIP_IF_UNAVAILABLE(table)                                        \
  do {                                                                            \
    if (const auto scanlab_why_ = ::scanlab::grading::unavailable(table)) {       \
      GTEST_SKIP() << *scanlab_why_;                                              \
    }                                                                             \
  } while (0)
