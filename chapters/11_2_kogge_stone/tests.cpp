// Section 11.2 grading tests: the three Kogge-Stone scans over every type, operator, inclusive and
// exclusive, in place, at the edge sizes up to one section (1024 elements), and (cpu backend) under
// several thread orders; then the section's own checks: the chapter's exercise array step by step,
// the operator counts, many sections in one launch, and the section totals that section 11.6 uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "algorithms.hpp"
#include "scanlab/dispatch.hpp"
#include "scanlab/error.hpp"
#include "scanlab/inputs.hpp"
#include "scanlab/ops.hpp"
#include "scanlab/reference.hpp"
#include "scanlab/testing.hpp"

namespace {

using namespace scanlab;

const AlgorithmTable& table() { return grading::linked_table<s11_2::linked_tables>(); }

const bool registered = grading::register_grading_tests(table(), SCANLAB_GRADING_OPTIONS(1024));

Algorithm algorithm(std::string_view name) { return grading::algorithm_named(table(), name); }

constexpr std::string_view kAll[] = {"kogge_stone", "kogge_stone_double_buffer", "kogge_stone_warp_shuffle"};

RunResult scan_sections(std::string_view algo, const RunRequest& request, unsigned section, void* totals) {
  return SCANLAB_LINKED_ENTRY(s11_2::scan_sections)(algo, request, section, totals);
}

bool on_cpu() { return table().backend == Backend::cpu; }

// The chapter's exercise array (Sec. 11.2): [4 6 7 1 2 8 5 2].
using grading::kExercise;

TEST(Section11_2, ExerciseArray) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  for (const auto algo : kAll) {
    for (const auto kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      std::vector<std::int32_t> y;
      grading::run_add_int32(algorithm(algo), kExercise, y, kind);
      EXPECT_EQ(y, kind == ScanKind::inclusive ? grading::kExerciseInclusive : grading::kExerciseExclusive)
          << algo << ", " << name(kind) << " scan; see " << SCANLAB_SOURCE_HINT;
    }
  }
}

// The trace (--trace) of Fig. 11.3's kernel on the exercise array: one block of 8 threads, strides
// 1, 2, 4. After each write-after-read barrier nothing has changed yet (the new sums wait in `temp`);
// after each step's second barrier XY holds that step's sums.
TEST(Section11_2, TraceOfBookExerciseArray) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  if (!on_cpu()) GTEST_SKIP() << "traces come from the cpu backend";
  std::vector<std::int32_t> y(kExercise.size());
  RunRequest request{{DType::int32, OpKind::add, ScanKind::inclusive, y.size(), false}, kExercise.data(), y.data(),
                     0, true};
  const RunResult result = algorithm("kogge_stone").run(request);
  ASSERT_EQ(result.launches.size(), 1u);
  EXPECT_EQ(result.launches[0].block_threads, 8u) << "a section of 8 elements is scanned by 8 threads";
  std::size_t frames = 0;  // XY after each barrier (and at the block's end)
  for (const TraceFrame& frame : result.launches[0].trace) frames += frame.name == "XY" && frame.block == 0;
  const std::vector<std::vector<std::string>> states = grading::traced_steps(result.launches[0], "XY");
  if (states.empty()) GTEST_FAIL() << grading::no_trace_message("XY");
  const auto as_strings = [](std::vector<int> v) {
    std::vector<std::string> s;
    for (int e : v) s.push_back(std::to_string(e));
    return s;
  };
  EXPECT_GE(frames, 7u) << "a barrier after the load, and two per step (log2 8 = 3 steps)";
  ASSERT_EQ(states.size(), 4u) << "the loaded array, then one new state per stride";
  EXPECT_EQ(states[0], as_strings({4, 6, 7, 1, 2, 8, 5, 2})) << "after the load";
  EXPECT_EQ(states[1], as_strings({4, 10, 13, 8, 3, 10, 13, 7})) << "after stride 1";
  EXPECT_EQ(states[2], as_strings({4, 10, 17, 18, 16, 18, 16, 17})) << "after stride 2";
  EXPECT_EQ(states[3], as_strings({4, 10, 17, 18, 20, 28, 33, 35})) << "after stride 4";
  EXPECT_EQ(result.launches[0].ops, 8u * 3 - 7) << "N log2 N - (N - 1) with N = 8";
}

// Work (Sec. 11.3): over one full section of N = 1024 elements, Fig. 11.3 and its double-buffered
// form apply the operator N log2 N - (N - 1) = 9217 times (the sequential scan: 1023). The
// warp-shuffle block scan does 32 warp scans of 129, one more over the warp totals, and adds a total
// to the 992 elements after the first warp: 33 * 129 + 992 = 5249. Exclusive scans (the shifted
// load) do the same work. The double buffer saves one barrier per step.
TEST(Section11_2, OperatorCountOfOneFullSection) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  if (!on_cpu()) GTEST_SKIP() << "operator counts come from the cpu backend";
  const std::size_t n = 1024;
  const struct {
    std::string_view algo;
    std::uint64_t ops;
  } expected[] = {{"kogge_stone", 9217}, {"kogge_stone_double_buffer", 9217}, {"kogge_stone_warp_shuffle", 5249}};
  std::uint64_t intervals[2] = {0, 0};
  for (const auto& [algo, ops] : expected) {
    for (const auto kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      std::vector<float> x(n, 1.0f), y(n);
      RunRequest request{{DType::float32, OpKind::add, kind, n, false}, x.data(), y.data(), 0, false};
      const RunResult result = algorithm(algo).run(request);
      ASSERT_EQ(result.launches.size(), 1u) << algo;
      EXPECT_EQ(result.launches[0].grid_blocks, 1u) << algo << ": one section, one block";
      EXPECT_EQ(result.launches[0].block_threads, 1024u) << algo << ": one thread per element";
      EXPECT_EQ(result.launches[0].ops, ops) << algo << ", " << name(kind) << " scan of n = 1024";
      if (algo == "kogge_stone") intervals[0] = result.launches[0].barrier_intervals;
      if (algo == "kogge_stone_double_buffer") intervals[1] = result.launches[0].barrier_intervals;
    }
  }
  // Two sections in one launch: twice one section's work.
  std::vector<std::int32_t> x(2 * n, 1), y(2 * n), totals(2);
  RunRequest request{{DType::int32, OpKind::add, ScanKind::inclusive, 2 * n, false}, x.data(), y.data(), 0, false};
  const RunResult two = scan_sections("kogge_stone", request, 1024, totals.data());
  ASSERT_EQ(two.launches.size(), 1u);
  EXPECT_EQ(two.launches[0].ops, 2u * 9217) << "two sections of N log2 N - (N - 1)";
  // One barrier per step is what double buffering is for: log2 1024 + 1 barrier intervals at most.
  // (Fig. 11.3 has two per step, 21 intervals; extra barriers there are slow, not wrong, so they
  // cost no points.)
  // The messages say what the student's kernels did (their barrier intervals), not a rule.
  EXPECT_LE(intervals[1], 11u) << "the double-buffered kernel ran " << intervals[1] << " barrier intervals for "
                               << "log2 1024 = 10 steps; the book's form needs one barrier per step (and one "
                               << "after the load): 11 intervals. Extra barriers are slow, not wrong";
  EXPECT_GE(intervals[0], 21u) << "Fig. 11.3's kernel ran " << intervals[0] << " barrier intervals for 10 steps; "
                               << "with a temporary it needs two barriers per step (the second keeps a "
                               << "thread from overwriting XY[t] before thread t + stride read it): 21";
}

// Many sections in one launch, each scanned on its own (the first phase of section 11.6): 2048
// elements as two sections of 1024 cost twice one section's work, and each section's scan starts
// afresh.
TEST(Section11_2, TwoSectionsInOneLaunch) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  const std::size_t n = 2048;
  std::vector<std::int32_t> x(n, 1), y(n), totals(2);
  RunRequest request{{DType::int32, OpKind::add, ScanKind::inclusive, n, false}, x.data(), y.data(), 0, false};
  const RunResult result = scan_sections("kogge_stone", request, 1024, totals.data());
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(y[i], static_cast<std::int32_t>(i % 1024 + 1)) << "at i = " << i << "; see " << SCANLAB_SOURCE_HINT;
  }
  EXPECT_EQ(totals, (std::vector<std::int32_t>{1024, 1024}));
  if (on_cpu()) {
    ASSERT_EQ(result.launches.size(), 1u);
    EXPECT_EQ(result.launches[0].grid_blocks, 2u);
  }
}

// Checks every section's scan and total against the reference, for one type and operator.
std::string check_sections(std::string_view algo, DType type, OpKind op_kind, ScanKind kind, std::size_t n,
                           unsigned section) {
  return visit_type_op(type, op_kind, [&](auto type_tag, auto op) -> std::string {
    using T = typename decltype(type_tag)::type;
    using Op = decltype(op);
    const HostArray input = make_input(type, op_kind, n, 11 + n);
    const T* x = input.as<T>();
    const std::size_t blocks = (n + section - 1) / section;
    std::vector<T> y(n), totals(blocks);
    RunRequest request{{type, op_kind, kind, n, false}, x, y.data(), 0, false};
    scan_sections(algo, request, section, totals.data());
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t first = b * section, count = std::min<std::size_t>(section, n - first);
      std::vector<T> expected(count);
      reference_scan(x + first, expected.data(), count, op, kind);
      T total = Op::identity();
      for (std::size_t k = 0; k < count; ++k) total = op(total, x[first + k]);
      const std::string where = std::string(algo) + ", " + name(type) + " " + name(op_kind) + " " + name(kind) +
                                " sections of " + std::to_string(section) + ", n = " + std::to_string(n) +
                                ", section " + std::to_string(b) + ": ";
      for (std::size_t k = 0; k < count; ++k) {
        if (!(y[first + k] == expected[k])) return where + "wrong scan at element " + std::to_string(k);
      }
      if (!(totals[b] == total)) {
        return where + "wrong total " + std::to_string(totals[b]) + " (expected " + std::to_string(total) +
               "): do the threads past n hold the identity?";
      }
    }
    return "";
  });
}

// Section totals (block_sums), which section 11.6 scans: the combination of a section's elements, for
// a full section and for a last section that is only partly filled (its threads past n must hold the
// identity, or their garbage reaches the total).
TEST(Section11_2, SectionTotals) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  for (const auto algo : kAll) {
    for (const auto kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      for (const auto& [n, section] : {std::pair<std::size_t, unsigned>{100, 64}, {1000, 1024}, {33, 32}}) {
        for (const auto& [type, op] : {std::pair{DType::int32, OpKind::add}, {DType::int32, OpKind::last},
                                       {DType::uint32, OpKind::max}, {DType::int64, OpKind::min}}) {
          EXPECT_EQ(check_sections(algo, type, op, kind, n, section), "") << "see " << SCANLAB_SOURCE_HINT;
        }
      }
    }
  }
}

#if !defined(SCANLAB_GRADES_EXERCISE)
// The section's host code refuses bad arguments: the lab's launch.cpp, not a student's kernel, so not
// graded (a kernels' process that only throws would pass it).
TEST(Section11_2, ScanSectionsRejectsBadSections) {
  std::vector<std::int32_t> x(4), y(4), totals(4);
  RunRequest request{{DType::int32, OpKind::add, ScanKind::inclusive, 4, false}, x.data(), y.data(), 0, false};
  EXPECT_THROW(scan_sections("kogge_stone", request, 48, totals.data()), Error) << "not a power of two";
  EXPECT_THROW(scan_sections("kogge_stone", request, 2048, totals.data()), Error) << "more than 1024 threads";
  EXPECT_THROW(scan_sections("kogge_stone_warp_shuffle", request, 16, totals.data()), Error) << "less than a warp";
  EXPECT_THROW(scan_sections("brent_kung", request, 64, totals.data()), Error) << "not in this section";
}
#endif

}  // namespace
