// Section 11.3 grading tests: the analytical model of work_model.hpp against the book's formulas
// (exact), against hand-made barrier intervals, and against what the emulator counts when it runs
// the solution kernels of sections 11.1, 11.2 and 11.4 (exact where the model is exact).
//
// These tests never include the student's work_model.hpp: they call model.hpp, whose functions run
// the student's model in a process of its own and bring back its numbers (model.cpp), so that the
// expected values and the verdict stay here. The emulator's counts of the solution kernels come from
// measured_counts.txt, committed, so that the student release (which has no solution kernels) grades
// the same tests; the full lab's solution tests measure the kernels again and fail when it is stale
// (MeasuredCounts.AreTheSolutionKernels').
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include "model.hpp"
#include "scanlab/testing.hpp"

#if SCANLAB_11_3_WITH_11_1 || SCANLAB_11_3_WITH_11_2 || SCANLAB_11_3_WITH_11_4
#include "measured.hpp"
#include "scanlab/inputs.hpp"
#include "scanlab/verify.hpp"
#endif

namespace {

using namespace scanlab;
using namespace scanlab::s11_3::model;

const std::string kHint = std::string("; see ") + SCANLAB_SOURCE_HINT;

/// N log2 N - (N - 1), the book's Kogge-Stone count, for N = 2^k.
std::uint64_t book_kogge_stone(std::uint64_t k) { return (k << k) - ((std::uint64_t{1} << k) - 1); }
/// 2N - 2 - log2 N, the book's Brent-Kung count, for N = 2^k.
std::uint64_t book_brent_kung(std::uint64_t k) { return (std::uint64_t{2} << k) - 2 - k; }

// ---- work: the book's formulas --------------------------------------------------------------------

TEST(WorkModel, SequentialIsNMinusOne) {
  for (const std::uint64_t n : {0u, 1u, 2u, 8u, 1000u, 1024u, 2048u}) {
    EXPECT_EQ(work_sequential(n), n == 0 ? 0 : n - 1) << "work_sequential(" << n << ")" << kHint;
  }
}

// Sec. 11.3's exercise: Kogge-Stone on 2048 elements applies the operator 20,481 times.
TEST(WorkModel, KoggeStoneOn2048ElementsIs20481) {
  EXPECT_EQ(work_kogge_stone(2048), 20481u) << "work_kogge_stone(2048): 2048 * 11 - 2047" << kHint;
}

TEST(WorkModel, KoggeStoneIsNLog2NMinusNMinusOne) {
  EXPECT_EQ(work_kogge_stone(0), 0u) << "work_kogge_stone(0)" << kHint;
  EXPECT_EQ(work_kogge_stone(1), 0u) << "work_kogge_stone(1): one element needs no operator" << kHint;
  for (std::uint64_t k = 1; k <= 20; ++k) {
    const std::uint64_t n = std::uint64_t{1} << k;
    EXPECT_EQ(work_kogge_stone(n), book_kogge_stone(k)) << "work_kogge_stone(" << n << ")" << kHint;
  }
}

TEST(WorkModel, BrentKungIs2NMinus2MinusLog2N) {
  EXPECT_EQ(work_brent_kung(16), 26u) << "work_brent_kung(16): 15 in the reduction tree + 11 in the reverse tree"
                                      << kHint;
  EXPECT_EQ(work_brent_kung(2048), 4083u) << "work_brent_kung(2048)" << kHint;
  EXPECT_EQ(work_brent_kung(1), 0u) << "work_brent_kung(1)" << kHint;
  for (std::uint64_t k = 1; k <= 20; ++k) {
    const std::uint64_t n = std::uint64_t{1} << k;
    EXPECT_EQ(work_brent_kung(n), book_brent_kung(k)) << "work_brent_kung(" << n << ")" << kHint;
  }
}

// Sec. 11.5: phase 1 (N - T) + phase 2 (a scan of T elements) + phase 3 ((T - 1)(N/T - 1): thread 0
// has no predecessor to add).
TEST(WorkModel, CoarsenedCountsItsThreePhases) {
  EXPECT_EQ(work_coarsened(1024, 64, Phase2::kogge_stone), 960u + 321u + 945u)
      << "work_coarsened(1024, 64, kogge_stone): 960 + 321 + 945" << kHint;
  EXPECT_EQ(work_coarsened(1024, 64, Phase2::brent_kung), 960u + 120u + 945u)
      << "work_coarsened(1024, 64, brent_kung): 960 + 120 + 945" << kHint;
  for (std::uint64_t t = 1; t <= 1024; t *= 2) {
    for (std::uint64_t per_thread = 1; per_thread <= 16; per_thread *= 2) {
      const std::uint64_t n = t * per_thread;
      EXPECT_EQ(work_coarsened(n, t, Phase2::kogge_stone),
                (n - t) + work_kogge_stone(t) + (t - 1) * (per_thread - 1))
          << "work_coarsened(" << n << ", " << t << ", kogge_stone)" << kHint;
    }
  }
  EXPECT_EQ(work_coarsened(64, 64, Phase2::kogge_stone), work_kogge_stone(64))
      << "work_coarsened(N, N): one element per thread is phase 2 alone" << kHint;
}

// ---- steps: hand-made intervals -------------------------------------------------------------------

IntervalStats interval(std::uint32_t threads, std::uint32_t warps, std::uint64_t max_per_thread) {
  IntervalStats s;
  s.threads_applying = threads;
  s.warps_applying = warps;
  s.max_ops_per_thread = max_per_thread;
  s.ops = threads * max_per_thread;
  return s;
}

TEST(StepModel, OneIntervalIsRoundsTimesTheLongestThread) {
  const auto g = Granularity::thread;
  EXPECT_EQ(interval_steps(interval(0, 0, 0), 32, g), 0u) << "an interval without operators" << kHint;
  EXPECT_EQ(interval_steps(interval(1023, 32, 1), 32, g), 32u) << "1023 threads on 32 units" << kHint;
  EXPECT_EQ(interval_steps(interval(1024, 32, 1), 32, g), 32u) << "1024 threads on 32 units" << kHint;
  EXPECT_EQ(interval_steps(interval(1025, 33, 1), 32, g), 33u) << "1025 threads on 32 units: ceil" << kHint;
  EXPECT_EQ(interval_steps(interval(64, 2, 15), 32, g), 30u)
      << "64 threads each scanning 16 elements (15 operators) on 32 units: 2 rounds of 15" << kHint;
  EXPECT_EQ(interval_steps(interval(64, 2, 15), 1024, g), 15u) << "unlimited units: the longest thread" << kHint;
}

TEST(StepModel, WarpGranularityChargesWholeWarps) {
  // One thread applying in one warp: a SIMD warp still takes all 32 lanes.
  EXPECT_EQ(interval_steps(interval(1, 1, 1), 8, Granularity::thread), 1u) << "1 thread on 8 units" << kHint;
  EXPECT_EQ(interval_steps(interval(1, 1, 1), 8, Granularity::warp), 4u) << "1 thread = 1 warp = 32 lanes on 8 units"
                                                                         << kHint;
  // 16 threads spread over 16 warps (one lane each) against 16 threads packed in one warp.
  EXPECT_EQ(interval_steps(interval(16, 16, 1), 32, Granularity::warp), 16u) << "16 half-idle warps" << kHint;
  EXPECT_EQ(interval_steps(interval(16, 1, 1), 32, Granularity::warp), 1u) << "16 threads in 1 warp" << kHint;
  EXPECT_EQ(interval_steps(interval(16, 16, 1), 32, Granularity::thread), 1u) << "16 threads" << kHint;
}

TEST(StepModel, IdleLanesAreTheDivergence) {
  EXPECT_EQ(idle_lanes(interval(1023, 32, 1)), 1u) << "1023 threads in 32 warps" << kHint;
  EXPECT_EQ(idle_lanes(interval(992, 31, 1)), 0u) << "992 threads in 31 full warps" << kHint;
  EXPECT_EQ(idle_lanes(interval(16, 16, 1)), 496u) << "16 threads, one per warp" << kHint;
  EXPECT_EQ(idle_lanes(interval(0, 0, 0)), 0u) << "nobody applies" << kHint;
}

/// The book's Kogge-Stone kernel on 1024 threads: per stride s, an interval where threads s..1023
/// apply the operator once (1024 - s threads, in the warps from s / 32 on), then one where they write.
LaunchStats kogge_stone_1024_intervals() {
  LaunchStats launch;
  launch.block_threads = 1024;
  launch.grid_blocks = 1;
  for (std::uint32_t s = 1; s < 1024; s *= 2) {
    launch.intervals.push_back(interval(1024 - s, 32 - s / 32, 1));
    launch.intervals.push_back(interval(0, 0, 0));
    launch.ops += 1024 - s;
  }
  return launch;
}

TEST(StepModel, SumsOverIntervalsAndLaunches) {
  const std::vector<LaunchStats> one{kogge_stone_1024_intervals()};
  // ceil((1024 - s) / 32) = 32 for s < 32, then 31, 30, 28, 24, 16.
  EXPECT_EQ(steps_with_units(one, 32, Granularity::thread), 289u) << "Kogge-Stone, 1024 threads, P = 32" << kHint;
  EXPECT_EQ(steps_with_units(one, 32, Granularity::warp), 289u) << "Kogge-Stone, 1024 threads, P = 32, warps"
                                                                << kHint;
  EXPECT_EQ(steps_with_units(one, 1024, Granularity::thread), 10u) << "unlimited units: log2 1024" << kHint;
  const std::vector<LaunchStats> two{one[0], one[0]};
  EXPECT_EQ(steps_with_units(two, 1024, Granularity::thread), 20u) << "two launches take turns" << kHint;
  EXPECT_EQ(steps_with_units(std::vector<LaunchStats>{}, 32, Granularity::thread), 0u) << "no launch" << kHint;
}

// ---- against the emulator -------------------------------------------------------------------------

/// The emulator's counts of the solution kernels, as measured_counts.txt holds them: one line per
/// launch, "launch <section> <algorithm> <n> <kernel> <grid blocks> <block threads> <ops>
/// <barrier intervals>", each followed by its intervals, "interval <block> <threads applying>
/// <warps applying> <ops> <max ops per thread>". Lines starting with # are comments.
using Runs = std::map<std::string, std::vector<LaunchStats>>;  // "<section> <algorithm> <n>"

std::string run_key(const std::string& section, const std::string& name, std::size_t n) {
  return section + " " + name + " " + std::to_string(n);
}

/// measured_counts.txt, read once; a file that is missing or malformed fails the test that asks.
const Runs& committed_runs() {
  static const Runs runs = [] {
    Runs r;
    std::ifstream file(SCANLAB_11_3_MEASURED_FILE);
    if (!file) throw std::runtime_error("cannot read " SCANLAB_11_3_MEASURED_FILE);
    std::string line;
    std::vector<LaunchStats>* last = nullptr;
    while (std::getline(file, line)) {
      std::istringstream in(line);
      std::string what;
      if (!(in >> what) || what[0] == '#') continue;
      if (what == "launch") {
        std::string section, name, n;
        LaunchStats l;
        if (!(in >> section >> name >> n >> l.kernel >> l.grid_blocks >> l.block_threads >> l.ops >> l.barrier_intervals)) {
          throw std::runtime_error("malformed line in " SCANLAB_11_3_MEASURED_FILE ": " + line);
        }
        last = &r[section + " " + name + " " + n];
        last->push_back(l);
      } else if (what == "interval" && last) {
        IntervalStats i;
        if (!(in >> i.block >> i.threads_applying >> i.warps_applying >> i.ops >> i.max_ops_per_thread)) {
          throw std::runtime_error("malformed line in " SCANLAB_11_3_MEASURED_FILE ": " + line);
        }
        last->back().intervals.push_back(i);
      } else {
        throw std::runtime_error("malformed line in " SCANLAB_11_3_MEASURED_FILE ": " + line);
      }
    }
    return r;
  }();
  return runs;
}

/// The committed counts of `name` of section `section` on n elements.
std::vector<LaunchStats> measure(const std::string& section, const std::string& name, std::size_t n) {
  const Runs& runs = committed_runs();
  const auto it = runs.find(run_key(section, name, n));
  if (it == runs.end()) {
    ADD_FAILURE() << SCANLAB_11_3_MEASURED_FILE << " has no run '" << run_key(section, name, n)
                  << "': run the full lab's test 11.3.solution.cpu.MeasuredCounts.AreTheSolutionKernels";
    return {};
  }
  return it->second;
}

/// measure() of a kernel that runs as one launch of one block of `threads` threads (checked).
std::vector<LaunchStats> measure_one_block(const std::string& section, const std::string& name, std::size_t n,
                                           unsigned threads) {
  std::vector<LaunchStats> launches = measure(section, name, n);
  EXPECT_EQ(launches.size(), 1u) << name << " on " << n << " elements: launches";
  if (launches.size() == 1) {
    EXPECT_EQ(launches[0].block_threads, threads) << name << " on " << n << " elements";
  }
  return launches;
}

std::uint64_t ops(const std::vector<LaunchStats>& launches) {
  std::uint64_t total = 0;
  for (const auto& l : launches) total += l.ops;
  return total;
}

TEST(Measured, SequentialMatchesTheModel) {
  const auto launches = measure("11.1", "sequential", 2048);
  EXPECT_EQ(ops(launches), 2047u) << "the emulator's count for the sequential scan of 2048 elements";
  EXPECT_EQ(work_sequential(2048), ops(launches)) << "work_sequential(2048) against the emulator" << kHint;
}

// Kogge-Stone needs one thread per element and a block has at most 1024 threads: 1024 in one block.
TEST(Measured, KoggeStoneOn1024ElementsMatchesTheModel) {
  const auto launches = measure_one_block("11.2", "kogge_stone", 1024, 1024);
  EXPECT_EQ(ops(launches), 9217u) << "the emulator's count for Kogge-Stone on 1024 elements";
  EXPECT_EQ(work_kogge_stone(1024), ops(launches)) << "work_kogge_stone(1024) against the emulator" << kHint;
  EXPECT_EQ(steps_with_units(launches, 32, Granularity::thread), 289u)
      << "steps_with_units(Kogge-Stone 1024, P = 32)" << kHint;
  EXPECT_EQ(steps_with_units(launches, 1024, Granularity::thread), 10u)
      << "steps_with_units(Kogge-Stone 1024, P = 1024): log2 1024" << kHint;
}

// Sec. 11.3's exercise: in which iterations is there control divergence in warp 0? Threads t < s are
// idle at stride s, so warp 0 is split while s < 32: strides 1, 2, 4, 8, 16 (iterations 1-5); from
// s = 32 on whole warps are idle or busy.
TEST(Measured, KoggeStoneDivergesWhileTheStrideIsBelow32) {
  const auto launches = measure("11.2", "kogge_stone", 1024);
  ASSERT_EQ(launches.size(), 1u);
  std::vector<std::uint64_t> diverging, applying;
  for (const IntervalStats& iv : launches[0].intervals) {
    if (iv.threads_applying == 0) continue;
    applying.push_back(applying.size() + 1);
    if (idle_lanes(iv) != 0) diverging.push_back(applying.size());
  }
  EXPECT_EQ(applying.size(), 10u) << "Kogge-Stone on 1024 elements: 10 iterations apply the operator";
  EXPECT_EQ(diverging, (std::vector<std::uint64_t>{1, 2, 3, 4, 5}))
      << "the iterations (1 = stride 1) whose applying warps have idle lanes, by idle_lanes()" << kHint;
}

// Brent-Kung: 2048 elements on 1024 threads, two per thread.
TEST(Measured, BrentKungOn2048ElementsMatchesTheModel) {
  const auto launches = measure_one_block("11.4", "brent_kung", 2048, 1024);
  EXPECT_EQ(ops(launches), 4083u) << "the emulator's count for Brent-Kung on 2048 elements";
  EXPECT_EQ(work_brent_kung(2048), ops(launches)) << "work_brent_kung(2048) against the emulator" << kHint;
}

// The book's Brent-Kung example: 1024 elements (512 threads) on 32 units. Reduction tree
// 16+8+4+2+1+1+1+1+1+1 = 36, reverse tree 1+1+1+1+1+2+4+8+16 = 35: 71 steps (the book: ~73.6).
TEST(Measured, BrentKungOn1024ElementsTakes71StepsOn32Units) {
  const auto launches = measure_one_block("11.4", "brent_kung", 1024, 512);
  EXPECT_EQ(steps_with_units(launches, 32, Granularity::thread), 71u)
      << "steps_with_units(Brent-Kung 1024, P = 32)" << kHint;
  EXPECT_EQ(steps_with_units(launches, 32, Granularity::warp), 71u)
      << "steps_with_units(Brent-Kung 1024, P = 32, warps): its active threads are packed" << kHint;
  EXPECT_EQ(steps_with_units(launches, 1024, Granularity::thread), 19u)
      << "steps_with_units(Brent-Kung 1024, P = 1024): 2 log2 1024 - 1" << kHint;
}

#if SCANLAB_11_3_WITH_11_1 && SCANLAB_11_3_WITH_11_2 && SCANLAB_11_3_WITH_11_4
/// `runs` as measured_counts.txt holds them.
std::string counts_text(const Runs& runs) {
  std::ostringstream out;
  out << "# The emulator's counts of the solution kernels that section 11.3's Measured tests use (int32, add,\n"
         "# inclusive, seeded input). Written by the test 11.3.solution.cpu.MeasuredCounts.AreTheSolutionKernels\n"
         "# when they no longer match the solutions: do not edit by hand.\n";
  for (const auto& [key, launches] : runs) {
    for (const LaunchStats& l : launches) {
      out << "launch " << key << " " << l.kernel << " " << l.grid_blocks << " " << l.block_threads << " " << l.ops
          << " " << l.barrier_intervals << "\n";
      for (const IntervalStats& i : l.intervals) {
        out << "interval " << i.block << " " << i.threads_applying << " " << i.warps_applying << " " << i.ops << " "
            << i.max_ops_per_thread << "\n";
      }
    }
  }
  return out.str();
}

/// Runs `name` of section `section` (the solution kernels linked here) on n seeded elements (int32,
/// add, inclusive), checks the output, returns the emulator's counts.
std::vector<LaunchStats> measure_now(const std::string& section, const std::string& name, std::size_t n) {
  for (const s11_3::Section& s : s11_3::linked_sections()) {
    if (s.id != section) continue;
    for (const Algorithm& a : s.table.algorithms) {
      if (a.name != name) continue;
      const ScanProblem problem{DType::int32, OpKind::add, ScanKind::inclusive, n, false};
      const HostArray input = make_input(DType::int32, OpKind::add, n, 11);
      HostArray output(DType::int32, n);
      RunResult result = a.run({problem, input.data(), output.data(), 0, false});
      const VerifyResult v = verify_scan(problem, input.data(), output.data());
      EXPECT_TRUE(v.passed) << name << " on " << n << " elements: " << v.message;
      return std::move(result.launches);
    }
  }
  ADD_FAILURE() << "no algorithm '" << name << "' of section " << section << " is linked";
  return {};
}

// The committed counts are the solution kernels' (the full lab's solution tests only): every run of
// measured_counts.txt measured again. When they differ, the fresh file is written beside the test
// program and the test says where, to copy over the committed one.
TEST(MeasuredCounts, AreTheSolutionKernels) {
  Runs now;
  for (const auto& [key, launches] : committed_runs()) {
    std::istringstream in(key);
    std::string section, name;
    std::size_t n = 0;
    in >> section >> name >> n;
    now[key] = measure_now(section, name, n);
  }
  const std::string fresh = counts_text(now);
  if (fresh != counts_text(committed_runs())) {
    const std::string path = "measured_counts.txt.fresh";
    std::ofstream(path) << fresh;
    ADD_FAILURE() << SCANLAB_11_3_MEASURED_FILE << " is stale: the solution kernels count differently now. The "
                  << "fresh counts are in " << path << " (in the test's working folder): copy it over the committed file";
  }
}
#endif

}  // namespace
