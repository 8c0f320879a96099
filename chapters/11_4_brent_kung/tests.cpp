// Section 11.4 grading tests: both Brent-Kung scans over every type, operator, inclusive and
// exclusive, in place, at the edge sizes up to one section (2048), with the race check on the cpu
// backend; then the book's operator count, the chapter's exercise traced step by step, and the
// section-by-section scan that section 11.6 builds on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms.hpp"
#include "scanlab/ops.hpp"
#include "scanlab/reference.hpp"
#include "scanlab/testing.hpp"

namespace {

using namespace scanlab;

const AlgorithmTable& table() { return grading::linked_table<s11_4::linked_tables>(); }

const bool registered = grading::register_grading_tests(table(), SCANLAB_GRADING_OPTIONS(5000));

/// The algorithm named `name` in this section's table (fails the test if it is missing).
Algorithm algorithm(std::string_view name) { return grading::algorithm_named(table(), name); }

const char* const kBoth[] = {"brent_kung", "brent_kung_padded"};

// Work (Sec. 11.4): the reduction tree applies the operator S - 1 times and the reverse tree
// S - 1 - log2 S times: 2S - 2 - log2 S in all, exactly, for one block. The span: one application
// per thread in each of the 2 log2 S - 1 levels.
TEST(Section11_4, AppliesTheOperator2NMinus2MinusLog2NTimes) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  if (table().backend != Backend::cpu) GTEST_SKIP() << "operator counts come from the cpu backend";
  struct Case {
    std::size_t n;
    unsigned threads;
    unsigned log2n;
    std::uint64_t ops;
  };
  const Case cases[] = {{2048, 1024, 11, 4083}, {1024, 512, 10, 2036}, {8, 4, 3, 11}};
  for (const char* name : kBoth) {
    for (const Case& c : cases) {
      ASSERT_EQ(c.ops, 2 * c.n - 2 - c.log2n);
      for (const auto kind : {ScanKind::inclusive, ScanKind::exclusive}) {
        std::vector<std::int32_t> x(c.n, 1), y;
        const RunResult result = grading::run_add_int32(algorithm(name), x, y, kind);
        ASSERT_EQ(result.launches.size(), 1u) << name;
        const LaunchStats& launch = result.launches[0];
        EXPECT_EQ(launch.grid_blocks, 1u) << name << ", n = " << c.n;
        EXPECT_EQ(launch.block_threads, c.threads) << name << ", n = " << c.n;
        EXPECT_EQ(launch.ops, c.ops) << name << " " << scanlab::name(kind) << " scan, n = " << c.n
                                     << ": the book counts 2N - 2 - log2 N; see " << SCANLAB_SOURCE_HINT;
        std::uint64_t levels = 0, span = 0;
        for (const IntervalStats& interval : launch.intervals) {
          levels += interval.ops > 0;
          span += interval.max_ops_per_thread;
        }
        EXPECT_EQ(levels, 2 * c.log2n - 1) << name << ", n = " << c.n << ": one level per barrier interval";
        EXPECT_EQ(span, 2 * c.log2n - 1) << name << ", n = " << c.n << ": one application per thread per level";
      }
    }
    // Four sections in one launch (the last one partial): every block runs the full trees.
    std::vector<std::int32_t> x(3 * 2048 + 101, 1), y;
    const RunResult result = grading::run_add_int32(algorithm(name), x, y, ScanKind::inclusive);
    ASSERT_EQ(result.launches.size(), 1u) << name;
    EXPECT_EQ(result.launches[0].ops, 4u * 4083u) << name << ": every block runs the full trees";
  }
}

// The chapter's exercise: Brent-Kung on [4 6 7 1 2 8 5 2] with 4 threads, the shared array after
// each barrier (grading::traced_steps: each state once, so an extra barrier changes nothing). The
// kernel has a barrier before each level of each tree and one after the last:
//   step 0, the loaded section         4  6  7  1  2  8  5  2
//   step 1, reduction stride 1         4 10  7  8  2 10  5  7   (XY[1], XY[3], XY[5], XY[7])
//   step 2, reduction stride 2         4 10  7 18  2 10  5 17   (XY[3], XY[7])
//   step 3, reduction stride 4         4 10  7 18  2 10  5 35   (XY[7])
//   step 4, reverse stride 2           4 10  7 18  2 28  5 35   (XY[5] = XY[3] + XY[5])
//   step 5, reverse stride 1           4 10 17 18 20 28 33 35   (XY[2], XY[4], XY[6])
TEST(Section11_4, TracesTheChaptersExercise) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  const bool cpu = table().backend == Backend::cpu;
  const std::vector<std::vector<std::string>> steps{
      {"4", "6", "7", "1", "2", "8", "5", "2"},     {"4", "10", "7", "8", "2", "10", "5", "7"},
      {"4", "10", "7", "18", "2", "10", "5", "17"}, {"4", "10", "7", "18", "2", "10", "5", "35"},
      {"4", "10", "7", "18", "2", "28", "5", "35"}, {"4", "10", "17", "18", "20", "28", "33", "35"},
  };
  for (const char* name : kBoth) {  // 8 elements need no padding: both layouts trace alike
    for (const auto kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      std::vector<std::int32_t> y;
      const RunResult result = grading::run_add_int32(algorithm(name), grading::kExercise, y, kind, cpu);
      EXPECT_EQ(y, kind == ScanKind::inclusive ? grading::kExerciseInclusive : grading::kExerciseExclusive)
          << name << " " << scanlab::name(kind) << " scan; see " << SCANLAB_SOURCE_HINT;
      if (!cpu) continue;
      ASSERT_EQ(result.launches.size(), 1u);
      EXPECT_EQ(result.launches[0].block_threads, 4u);
      const auto traced = grading::traced_steps(result.launches[0], "XY");
      if (traced.empty()) GTEST_FAIL() << name << ": " << grading::no_trace_message("XY");
      EXPECT_EQ(traced, steps) << name << " " << scanlab::name(kind)
                               << ": XY after each barrier (load, 3 reduction levels, 2 reverse levels)";
    }
  }
}

// Longer arrays: one launch scans each 2048-element section on its own, the first kernel of the
// hierarchical scan (Sec. 11.6). The output is the reference scan of each section separately.
TEST(Section11_4, ScansEachSectionIndependently) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  const std::size_t section = 2048, n = 3 * section + 101;
  std::vector<std::int32_t> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<std::int32_t>(i % 7) - 3;
  for (const char* name : kBoth) {
    for (const auto kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      std::vector<std::int32_t> expected(n), y;
      for (std::size_t start = 0; start < n; start += section) {
        const std::size_t count = std::min(section, n - start);
        reference_scan(x.data() + start, expected.data() + start, count, Add<std::int32_t>{}, kind);
      }
      const RunResult result = grading::run_add_int32(algorithm(name), x, y, kind);
      EXPECT_EQ(y, expected) << name << " " << scanlab::name(kind) << " scan of 4 sections; see "
                             << SCANLAB_SOURCE_HINT;
      if (table().backend == Backend::cpu) {
        ASSERT_EQ(result.launches.size(), 1u);
        EXPECT_EQ(result.launches[0].grid_blocks, 4u);
      }
    }
  }
}

}  // namespace
