// Section 11.5 grading tests: the coarsened three-phase scan in each of its shapes, over every type,
// operator, inclusive and exclusive, in place, at the edge sizes up to one section, with the race
// check on the cpu backend; then the operator count of each phase against the book's formula, the
// chapter's exercise traced phase by phase, and the section-by-section scan that section 11.6 uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "algorithms.hpp"
#include "scanlab/ops.hpp"
#include "scanlab/reference.hpp"
#include "scanlab/testing.hpp"

namespace {

using namespace scanlab;

const AlgorithmTable& table() { return grading::linked_table<s11_5::linked_tables>(); }

const bool registered = grading::register_grading_tests(table(), SCANLAB_GRADING_OPTIONS(5000));

/// The algorithm named `name` in this section's table.
Algorithm algorithm(std::string_view name) { return grading::algorithm_named(table(), name); }

// Work (Sec. 11.5), one block of T threads scanning N = T f elements (n = N, so the block has its
// full shape). The book estimates
// N - T + T log2 T + N - T. Exactly, this kernel applies the operator
//   phase 1: N - T                   (each thread f - 1 times)
//   phase 2: T log2 T - (T - 1)      (Kogge-Stone: T - stride applications at each stride)
//   phase 3: (T - 1)(f - 1)          (thread 0 has no predecessor; each last element is phase 2's)
// Its barrier intervals: load | phase 1 | 2 per Kogge-Stone step | phase 3 | store.
TEST(Section11_5, CountsTheOperatorPerPhase) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  if (table().backend != Backend::cpu) GTEST_SKIP() << "operator counts come from the cpu backend";
  struct Case {
    const char* name;
    std::uint64_t threads, factor, log2t;
    std::uint64_t phase1, phase2, phase3, book;
  };
  const Case cases[] = {
      {"coarsened", 256, 8, 8, 1792, 1793, 1785, 5632},        // 5370 applications
      {"coarsened_64x16", 64, 16, 6, 960, 321, 945, 2304},     // 2226: the book's worked example
      {"coarsened_256x4", 256, 4, 8, 768, 1793, 765, 3584},    // 3326
      {"coarsened_256x4", 2, 4, 1, 6, 1, 3, 14},               // 10: the exercise's 2 threads x 4
  };
  for (const Case& c : cases) {
    const std::uint64_t N = c.threads * c.factor, T = c.threads;
    ASSERT_EQ(c.phase1, N - T);
    ASSERT_EQ(c.phase2, T * c.log2t - (T - 1));
    ASSERT_EQ(c.phase3, (T - 1) * (c.factor - 1));
    ASSERT_EQ(c.book, (N - T) + T * c.log2t + (N - T));
    for (const auto kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      std::vector<std::int32_t> x(N, 1), y;
      const RunResult result = grading::run_add_int32(algorithm(c.name), x, y, kind);
      ASSERT_EQ(result.launches.size(), 1u);
      const LaunchStats& launch = result.launches[0];
      const std::string what = std::string(c.name) + " " + scanlab::name(kind) + " scan; see " + SCANLAB_SOURCE_HINT;
      EXPECT_EQ(launch.grid_blocks, 1u) << what;
      EXPECT_EQ(launch.block_threads, T) << what;
      const auto& iv = launch.intervals;
      // The total first, with where it comes from: the phases' counts and this kernel's applications
      // between its barriers (load | phase 1 | 2 per Kogge-Stone step | phase 3 | store).
      std::string intervals;
      for (const auto& interval : iv) intervals += (intervals.empty() ? "" : " | ") + std::to_string(interval.ops);
      EXPECT_EQ(launch.ops, c.phase1 + c.phase2 + c.phase3)
          << what << ": phase 1 applies the operator " << c.phase1 << " times, phase 2 " << c.phase2 << ", phase 3 "
          << c.phase3 << "; this kernel's applications between its barriers: " << intervals;
      ASSERT_EQ(iv.size(), 2 * c.log2t + 4) << what << ": load, phase 1, 2 per Kogge-Stone step, phase 3, store";
      EXPECT_EQ(iv.front().ops, 0u) << what << ": the load applies no operator";
      EXPECT_EQ(iv[1].ops, c.phase1) << what << ": phase 1";
      EXPECT_EQ(iv[1].max_ops_per_thread, c.factor - 1) << what << ": phase 1, per thread";
      std::uint64_t phase2 = 0, phase2_steps = 0;
      for (std::size_t k = 2; k + 2 < iv.size(); ++k) {
        phase2 += iv[k].ops;
        phase2_steps += iv[k].max_ops_per_thread;
      }
      EXPECT_EQ(phase2, c.phase2) << what << ": phase 2";
      EXPECT_EQ(phase2_steps, c.log2t) << what << ": phase 2 takes log2 T steps";
      EXPECT_EQ(iv[iv.size() - 2].ops, c.phase3) << what << ": phase 3";
      EXPECT_EQ(iv.back().ops, 0u) << what << ": the store applies no operator";
    }
  }
}

// The chapter's exercise: [4 6 7 1 2 8 5 2] on 2 threads x 4 elements (coarsened_256x4 sizes its block
// to n), the shared arrays after each barrier:
//   step 0, loaded          XY  4  6  7  1 |  2  8  5  2     totals  ?  ?
//   step 1, phase 1         XY  4 10 17 18 |  2 10 15 17     totals 18 17
//   step 2, phase 2 reads   (unchanged: thread 1 holds 18 + 17 in a register)
//   step 3, phase 2 writes                                   totals 18 35
//   step 4, phase 3         XY  4 10 17 18 | 20 28 33 35     (thread 1 combined 18 into 2 10 15)
TEST(Section11_5, TracesTheChaptersExercise) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  const bool cpu = table().backend == Backend::cpu;
  using Row = std::vector<std::string>;
  const Row loaded{"4", "6", "7", "1", "2", "8", "5", "2"}, phase1{"4", "10", "17", "18", "2", "10", "15", "17"},
      phase3{"4", "10", "17", "18", "20", "28", "33", "35"};
  // Each state once (grading::traced_steps): phase 2 leaves XY as phase 1 did, and an extra barrier
  // changes nothing.
  const std::vector<Row> xy_steps{loaded, phase1, phase3};
  const std::vector<Row> totals_steps{{"?", "?"}, {"18", "17"}, {"18", "35"}};
  for (const auto kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    std::vector<std::int32_t> y;
    const RunResult result = grading::run_add_int32(algorithm("coarsened_256x4"), grading::kExercise, y, kind, cpu);
    EXPECT_EQ(y, kind == ScanKind::inclusive ? grading::kExerciseInclusive : grading::kExerciseExclusive)
        << scanlab::name(kind) << " scan; see " << SCANLAB_SOURCE_HINT;
    if (!cpu) continue;
    ASSERT_EQ(result.launches.size(), 1u);
    EXPECT_EQ(result.launches[0].block_threads, 2u) << "8 elements, factor 4: 2 threads";
    const auto xy = grading::traced_steps(result.launches[0], "XY");
    if (xy.empty()) GTEST_FAIL() << grading::no_trace_message("XY");
    EXPECT_EQ(xy, xy_steps) << scanlab::name(kind) << ": XY after each barrier (load, phase 1, phase 2 "
                            << "read and write, phase 3); see " << SCANLAB_SOURCE_HINT;
    EXPECT_EQ(grading::traced_steps(result.launches[0], "totals"), totals_steps) << scanlab::name(kind) << ": totals after each barrier; see "
                                    << SCANLAB_SOURCE_HINT;
  }
}

// Longer arrays: one launch scans each section on its own, the first kernel of the hierarchical
// scan (Sec. 11.6). The output is the reference scan of each section separately.
TEST(Section11_5, ScansEachSectionIndependently) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  for (const auto& [name, section] : {std::pair<const char*, std::size_t>{"coarsened", 2048},
                                      {"coarsened_64x16", 1024}}) {
    const std::size_t n = 3 * section + 101;
    std::vector<std::int32_t> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<std::int32_t>(i % 7) - 3;
    for (const auto kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      std::vector<std::int32_t> expected(n), y;
      for (std::size_t start = 0; start < n; start += section) {
        reference_scan(x.data() + start, expected.data() + start, std::min(section, n - start),
                       Add<std::int32_t>{}, kind);
      }
      const RunResult result = grading::run_add_int32(algorithm(name), x, y, kind);
      EXPECT_EQ(y, expected) << name << " " << scanlab::name(kind) << " scan of 4 sections; see "
                             << SCANLAB_SOURCE_HINT;
      if (table().backend == Backend::cpu) {
        ASSERT_EQ(result.launches.size(), 1u);
        EXPECT_EQ(result.launches[0].grid_blocks, 4u) << name;
      }
    }
  }
}

}  // namespace
