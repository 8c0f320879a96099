// The work/step instrumentation (operator counts per barrier interval), the trace, and the race
// check the harness builds on.
#include <cmath>
#include <numeric>

#include "test_support.hpp"

namespace emu_test {
namespace {

using namespace scanlab::emu;
using scanlab::IntervalStats;
using scanlab::LaunchStats;
using ::testing::HasSubstr;

std::vector<int> inclusive(const std::vector<int>& in) {
  std::vector<int> out(in.size());
  std::partial_sum(in.begin(), in.end(), out.begin());
  return out;
}

std::vector<int> pattern(unsigned n) {
  std::vector<int> in(n);
  for (unsigned i = 0; i < n; ++i) in[i] = int(i % 7) - 2;
  return in;
}

TEST_F(Emu, KoggeStoneWorkMatchesTheBook) {
  const unsigned n = 1024;  // one block: N log2 N - (N - 1)
  const auto in = pattern(n);
  EXPECT_EQ(kogge_stone(in, true), inclusive(in));
  const auto stats = take_stats();
  ASSERT_EQ(stats.size(), 1u);
  const LaunchStats& s = stats[0];
  EXPECT_EQ(s.kernel, "kogge_stone");
  EXPECT_EQ(s.grid_blocks, 1u);
  EXPECT_EQ(s.block_threads, n);
  EXPECT_EQ(s.ops, 9217u);
  EXPECT_EQ(s.barrier_intervals, 21u);  // 2 barriers per step, 10 steps, + the end of the block
  ASSERT_EQ(s.intervals.size(), 21u);
  // Interval 0: loading. Then, for each stride, the read-and-apply interval, then the write.
  EXPECT_EQ(s.intervals[0].ops, 0u);
  for (unsigned step = 0; step < 10; ++step) {
    const unsigned stride = 1u << step;
    const IntervalStats& apply = s.intervals[1 + 2 * step];
    EXPECT_EQ(apply.ops, n - stride) << "stride " << stride;
    EXPECT_EQ(apply.threads_applying, n - stride);
    EXPECT_EQ(apply.warps_applying, 32 - stride / 32);  // warps holding a thread >= stride
    EXPECT_EQ(apply.max_ops_per_thread, 1u);
    EXPECT_EQ(s.intervals[2 + 2 * step].ops, 0u);
  }
  EXPECT_TRUE(take_stats().empty());  // take_stats clears
}

// The book's count for N = 2048: more elements than a block has threads, so each thread owns two.
TEST_F(Emu, KoggeStoneOver2048ElementsWorkMatchesTheBook) {
  const unsigned n = 2048;  // 1024 threads: N log2 N - (N - 1)
  const auto in = pattern(n);
  EXPECT_EQ(kogge_stone_two_per_thread(in), inclusive(in));
  const auto stats = take_stats();
  ASSERT_EQ(stats.size(), 1u);
  const LaunchStats& s = stats[0];
  EXPECT_EQ(s.kernel, "kogge_stone_two_per_thread");
  EXPECT_EQ(s.block_threads, 1024u);
  EXPECT_EQ(s.ops, 20481u);
  EXPECT_EQ(s.barrier_intervals, 23u);  // 2 barriers per step, 11 steps, + the end of the block
  ASSERT_EQ(s.intervals.size(), 23u);
  EXPECT_EQ(s.intervals[0].ops, 0u);
  for (unsigned step = 0; step < 11; ++step) {
    const unsigned stride = 1u << step;
    const IntervalStats& apply = s.intervals[1 + 2 * step];
    EXPECT_EQ(apply.ops, n - stride) << "stride " << stride;
    // Thread t applies for element t + 1024 at every stride, and for element t once t >= stride.
    EXPECT_EQ(apply.threads_applying, 1024u) << "stride " << stride;
    EXPECT_EQ(apply.max_ops_per_thread, stride < 1024 ? 2u : 1u) << "stride " << stride;
    EXPECT_EQ(s.intervals[2 + 2 * step].ops, 0u);
  }
  // Both barriers of each step are there: the result does not depend on the thread order.
  settings().thread_order = Order::reverse;
  EXPECT_EQ(kogge_stone_two_per_thread(in), inclusive(in));
}

TEST_F(Emu, BrentKungWorkMatchesTheBook) {
  const unsigned n = 2048;  // 1024 threads: 2N - 2 - log2 N
  const auto in = pattern(n);
  EXPECT_EQ(brent_kung(in), inclusive(in));
  const auto stats = take_stats();
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].ops, 4083u);
  EXPECT_EQ(stats[0].block_threads, 1024u);
  // 11 reduction steps + 10 distribution steps + the final barrier: 22 barriers, 23 intervals.
  EXPECT_EQ(stats[0].barrier_intervals, 23u);
  EXPECT_EQ(stats[0].intervals[1].ops, 1024u);  // stride 1: every thread
  EXPECT_EQ(stats[0].intervals[1].warps_applying, 32u);
  EXPECT_EQ(stats[0].intervals[11].ops, 1u);    // stride 1024: one thread
  EXPECT_EQ(stats[0].intervals[11].warps_applying, 1u);
}

TEST_F(Emu, WarpOperationsDoNotEndAnInterval) {
  std::vector<int> in(128);
  std::iota(in.begin(), in.end(), 1);
  EXPECT_EQ(warp_scan(in), inclusive(in));
  const auto stats = take_stats();
  ASSERT_EQ(stats.size(), 1u);
  ASSERT_EQ(stats[0].intervals.size(), 2u);  // one __syncthreads: two intervals
  EXPECT_EQ(stats[0].intervals[0].ops, 4u * (32 * 5 - 31));  // 5 shuffle steps in every warp
  EXPECT_EQ(stats[0].intervals[0].max_ops_per_thread, 5u);
  EXPECT_EQ(stats[0].intervals[1].ops, 32u * (1 + 2 + 3));
  EXPECT_EQ(stats[0].intervals[1].threads_applying, 96u);
  EXPECT_EQ(stats[0].intervals[1].warps_applying, 3u);
  EXPECT_EQ(stats[0].intervals[1].max_ops_per_thread, 3u);
}

TEST_F(Emu, StatsOfSeveralBlocksAndLaunches) {
  settings().workers = 2;
  std::vector<int> in(4 * 64);
  std::iota(in.begin(), in.end(), 0);
  traced_kogge_stone(in, 4);
  traced_kogge_stone(in, 4);
  const auto stats = take_stats();
  ASSERT_EQ(stats.size(), 2u);
  for (const LaunchStats& s : stats) {
    EXPECT_EQ(s.grid_blocks, 4u);
    EXPECT_EQ(s.ops, 4u * (64 * 6 - 63));
    EXPECT_EQ(s.barrier_intervals, 4u * 13);
    for (unsigned i = 0; i < s.intervals.size(); ++i) EXPECT_EQ(s.intervals[i].block, i / 13);  // block-major
  }
}

TEST_F(Emu, CountOpOutsideALaunchDoesNothing) {
  EXPECT_EQ(add_outside_launch(2, 3), 5);
  EXPECT_TRUE(take_stats().empty());
}

TEST_F(Emu, TraceRecordsSharedArraysAfterEveryBarrier) {
  settings().trace = true;
  settings().trace_max_blocks = 1;
  std::vector<int> in(2 * 8, 1);
  traced_kogge_stone(in, 2);
  const auto stats = take_stats();
  ASSERT_EQ(stats.size(), 1u);
  const auto& frames = stats[0].trace;
  ASSERT_EQ(frames.size(), 7u);  // 3 steps x 2 barriers + end of block; block 0 only
  const std::string first_barrier = at("kernels_scan.cpp", traced_barrier_line());
  EXPECT_EQ(frames[0].where, first_barrier);
  EXPECT_EQ(frames[0].name, "XY");
  EXPECT_EQ(frames[0].step, 0u);
  EXPECT_EQ(frames[0].values, (std::vector<std::string>{"1", "1", "1", "1", "1", "1", "1", "1", "?", "?"}));
  EXPECT_EQ(frames[2].values[1], "2");   // after stride 1
  EXPECT_EQ(frames[6].where, "end of block");
  EXPECT_EQ(frames[6].step, 6u);
  EXPECT_EQ(frames[6].values, (std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8", "?", "?"}));
  for (const auto& f : frames) EXPECT_EQ(f.block, 0u);
}

TEST_F(Emu, TraceIsOffByDefault) {
  std::vector<int> in(8, 1);
  traced_kogge_stone(in, 1);
  EXPECT_TRUE(take_stats().at(0).trace.empty());
}

// The race check: the book's Kogge-Stone without the barrier between reading XY and writing it.
// In forward order a thread overwrites XY[i] before thread i + stride has read it (wrong sums); in
// reverse order the reader runs first (right sums). With both barriers both orders are right.
TEST_F(Emu, MissingSecondBarrierShowsUpAsOrderDependentResults) {
  const auto in = pattern(256);
  const auto expected = inclusive(in);
  settings().thread_order = Order::forward;
  EXPECT_NE(kogge_stone(in, false), expected);
  EXPECT_EQ(kogge_stone(in, true), expected);
  settings().thread_order = Order::reverse;
  EXPECT_EQ(kogge_stone(in, false), expected);
  EXPECT_EQ(kogge_stone(in, true), expected);
  settings().thread_order = Order::random;
  EXPECT_EQ(kogge_stone(in, true), expected);
}

}  // namespace
}  // namespace emu_test
