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
#include "scanlab/section.hpp"  // SCANLAB_LINKED_ENTRY

namespace scanlab::grading {

/// The sizes a section is graded at, up to `max_n` (0 = no limit; then up to `large`): the edge
/// cases around warps and blocks, then seeded random sizes.
std::vector<std::size_t> grading_sizes(std::size_t max_n, std::size_t large = 5000, std::uint64_t seed = 7);

/// The algorithm of `table` called `name`; throws std::runtime_error when the table has none.
/// Returned by value (a few words), so `const Algorithm& a = algorithm_named(t, "x");` is safe.
Algorithm algorithm_named(const AlgorithmTable& table, std::string_view name);

/// Runs `algorithm` as an int32 add scan of `x` into `y` (resized to x and filled with -1 first, so an
/// element nothing writes shows), with the cpu backend's trace if `trace`.
RunResult run_add_int32(const Algorithm& algorithm, const std::vector<std::int32_t>& x, std::vector<std::int32_t>& y,
                        ScanKind kind, bool trace = false);

/// Why this backend cannot run here (no GPU), or nothing.
std::optional<std::string> unavailable(const AlgorithmTable& table);

/// What `explain` says (a failure's smallest case and where it went wrong, issue 37), and with
/// SCANLAB_EXPLAIN_TIMES set (expect_caught.cmake, for a mutant whose patch has a SHRINKS line) how long
/// it and the explanations before it that found nothing took, in a line of its own.
std::string timed_explanation(const std::function<std::string()>& explain);

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

/// Where this test program's messages point the student, e.g. "the TODO(student) blocks in
/// exercises/11_2_kogge_stone/": defined in a one-line source that CMake writes for each test program
/// (scanlab_source_hint in common/cmake/scanlab.cmake), so that a section's test objects are compiled
/// once for the solution, the exercise and every mutant and valid variant.
extern const char source_hint[];

struct GradingOptions {
  std::string source_hint;   ///< where a student should look, e.g. "exercises/11_2_kogge_stone/"
  std::size_t large = 5000;  ///< largest size for algorithms without a section limit
  bool race_check = true;    ///< cpu backend only
  bool exercise = false;     ///< grades a student's kernels: leaves out the kernels the section gives
  /// A table with a test-only variant of the same kernels over small sections ("<name>_small_sections",
  /// 11.6, 11.7): a wrong output that needs several large sections is explained with it (issue 37).
  const AlgorithmTable* small_sections = nullptr;
};

/// The hint in a section's tests.cpp: `<< "see " << SCANLAB_SOURCE_HINT`.
#define SCANLAB_SOURCE_HINT ::scanlab::grading::source_hint

/// `exercise` for GradingOptions: true in a test program that grades a student's kernels (CMake
/// defines SCANLAB_GRADES_EXERCISE there).
#if defined(SCANLAB_GRADES_EXERCISE)
#define SCANLAB_EXERCISE_BUILD true
#else
#define SCANLAB_EXERCISE_BUILD false
#endif

/// The GradingOptions of this test program as CMake built it (its SCANLAB_SOURCE_HINT, whether it
/// grades an exercise), graded up to `large` elements, with the race check.
#define SCANLAB_GRADING_OPTIONS(large) \
  ::scanlab::grading::GradingOptions { SCANLAB_SOURCE_HINT, (large), true, SCANLAB_EXERCISE_BUILD }

/// Registers one test per (algorithm, type, operator, inclusive/exclusive) of `table`, named
/// `Grading.<algorithm>/<type>_<op>_<kind>`; with `options.exercise`, not for a given algorithm.
/// Returns true, so that a tests.cpp registers them as the program starts:
///   const bool registered = grading::register_grading_tests(table(), {...});
bool register_grading_tests(const AlgorithmTable& table, const GradingOptions& options);

/// The chapter's exercise array (Sec. 11.2, also traced in 11.4 and 11.5), and its inclusive and
/// exclusive add scans.
inline const std::vector<std::int32_t> kExercise{4, 6, 7, 1, 2, 8, 5, 2};
inline const std::vector<std::int32_t> kExerciseInclusive{4, 10, 17, 18, 20, 28, 33, 35};
inline const std::vector<std::int32_t> kExerciseExclusive{0, 4, 10, 17, 18, 20, 28, 33};

/// The steps of a traced launch (--trace) as the book draws them: the values of the shared array
/// `array` of block `block` after each barrier and at the block's end, each state once. A frame equal
/// to the one before it is left out: a barrier with no write since the last one is slow, not wrong,
/// so an extra barrier never changes the steps.
std::vector<std::vector<std::string>> traced_steps(const LaunchStats& launch, std::string_view array,
                                                   std::uint32_t block = 0);

/// What a trace test says of a kernel that traces no shared array named `array` (a kernel of the open
/// level, written without scanlab::trace_shared).
std::string no_trace_message(std::string_view array);

/// `table` with its first algorithm only (the one a section grades over every type and operator).
inline AlgorithmTable first_algorithm_only(const AlgorithmTable& table) {
  return {table.backend, table.algorithms.first(1), table.device};
}

/// The table a test program grades: the first of a section's linked tables (a test program is
/// linked with one backend), made once. In a section's tests.cpp:
///   const AlgorithmTable& table() { return grading::linked_table<s11_2::linked_tables>(); }
template <auto linked_tables>
const AlgorithmTable& linked_table() {
  static const AlgorithmTable table = linked_tables().at(0);
  return table;
}

/// The table that `make` returns, made once (say, a section's test-only algorithms).
template <auto make>
const AlgorithmTable& kept_table() {
  static const AlgorithmTable table = make();
  return table;
}

}  // namespace scanlab::grading

/// Skips the current test (visibly) when the table's backend cannot run here.
#define SCANLAB_SKIP_IF_UNAVAILABLE(table)                                        \
  do {                                                                            \
    if (const auto scanlab_why_ = ::scanlab::grading::unavailable(table)) {       \
      GTEST_SKIP() << *scanlab_why_;                                              \
    }                                                                             \
  } while (0)
