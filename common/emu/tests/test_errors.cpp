// Every error the emulator reports instead of hanging or computing garbage: barrier divergence,
// deadlock, bad warp operations, the watchdog (cooperative, and the monitor's process exit).
#include "test_support.hpp"

namespace emu_test {
namespace {

using namespace scanlab::emu;
using ::testing::HasSubstr;

TEST_F(Emu, BarrierDivergenceNamesBothGroups) {
  const std::string e = error_of([] { barrier_divergence(); });
  EXPECT_THAT(e, HasSubstr("kernel 'divergence', block 0: barrier divergence"));
  EXPECT_THAT(e, HasSubstr("threads 0-15 wait at __syncthreads() at " + at("kernels_errors.cpp", divergence_line(0))));
  EXPECT_THAT(e, HasSubstr("threads 16-63 wait at __syncthreads() at " + at("kernels_errors.cpp", divergence_line(1))));
}

// In a 3-D grid the block is named by its coordinates; groups of threads by linear ids (x fastest:
// linear = x + 4 * (y + 2 * z) here), a lone thread also by its (x,y,z).
TEST_F(Emu, BarrierDivergenceIn3DBlocksNamesBlockAndThreadCoordinates) {
  const std::string e = error_of([] { barrier_divergence_3d(); });
  const auto line = [](int which) { return at("kernels_errors.cpp", divergence_3d_line(which)); };
  EXPECT_THAT(e, HasSubstr("kernel 'divergence_3d', block (1,0,1): barrier divergence: "
                           "threads 0-7 wait at __syncthreads() at " + line(0) +
                           "; threads 8-12, 14-15 wait at __syncthreads() at " + line(1) +
                           "; thread 13 (1,1,1) waits at __syncthreads() at " + line(2) +
                           ". Every thread that has not exited must wait at the same __syncthreads()"));
}

TEST_F(Emu, DeadlockBetweenABarrierAndAWarpOperation) {
  const std::string e = error_of([] { warp_error(WarpError::never_arrives_barrier); });
  EXPECT_THAT(e, HasSubstr("kernel 'deadlock', block 0: deadlock"));
  EXPECT_THAT(e, HasSubstr("threads 0-31, 48-63 wait at __syncthreads() at " +
                           at("kernels_errors.cpp", deadlock_barrier_line())));
  EXPECT_THAT(e, HasSubstr("threads 32-47 wait in __shfl_sync at " +
                           at("kernels_errors.cpp", warp_error_line(WarpError::never_arrives_barrier)) +
                           " (mask 0xffffffff) for threads 48-63"));
}

TEST_F(Emu, WarpMaskThatLeavesOutTheCaller) {
  const std::string e = error_of([] { warp_error(WarpError::mask_leaves_out_caller); });
  EXPECT_THAT(e, HasSubstr("kernel 'warp_error', block 0: thread 37 (lane 5) calls __syncwarp at " +
                           at("kernels_errors.cpp", warp_error_line(WarpError::mask_leaves_out_caller)) +
                           " with mask 0x00000001, which leaves out the calling lane"));
}

TEST_F(Emu, WarpMaskThatNamesAnExitedLane) {
  const std::string e = error_of([] { warp_error(WarpError::mask_names_exited_lane); });
  EXPECT_THAT(e, HasSubstr("thread 33 calls __syncwarp at " +
                           at("kernels_errors.cpp", warp_error_line(WarpError::mask_names_exited_lane)) +
                           " with mask 0xffffffff, but thread 32 named in it has exited"));
}

TEST_F(Emu, LaneExitsWhileOthersWaitForIt) {
  const std::string e = error_of([] { warp_error(WarpError::lane_exits_while_waited_for); });
  EXPECT_THAT(e, HasSubstr("thread 39 exited, but threads 32-38 wait in __syncwarp at " +
                           at("kernels_errors.cpp", warp_error_line(WarpError::lane_exits_while_waited_for))));
}

TEST_F(Emu, ShuffleReadsALaneOutsideTheMask) {
  const std::string e = error_of([] { warp_error(WarpError::reads_lane_outside_mask); });
  EXPECT_THAT(e, HasSubstr("thread 32 reads lane 20 in __shfl_sync at " +
                           at("kernels_errors.cpp", warp_error_line(WarpError::reads_lane_outside_mask)) +
                           ", but that lane is not in the mask 0x0000ffff"));
}

TEST_F(Emu, LanesWithDifferentMasks) {
  const std::string e = error_of([] { warp_error(WarpError::different_masks); });
  const std::string line = at("kernels_errors.cpp", warp_error_line(WarpError::different_masks));
  EXPECT_THAT(e, HasSubstr("different warp operations: thread 32 waits in __shfl_sync at " + line +
                           " with mask 0x00000003; thread 33 calls __shfl_sync at " + line +
                           " with mask 0xffffffff"));
}

TEST_F(Emu, LanesInDifferentOperations) {
  const std::string e = error_of([] { warp_error(WarpError::different_ops); });
  EXPECT_THAT(e, HasSubstr("thread 32 waits in __syncwarp"));
  EXPECT_THAT(e, HasSubstr("thread 33 calls __ballot_sync at " +
                           at("kernels_errors.cpp", warp_error_line(WarpError::different_ops))));
}

TEST_F(Emu, ShuffleWidthMustBeAPowerOfTwo) {
  EXPECT_THAT(error_of([] { warp_error(WarpError::bad_width); }), HasSubstr("with width 3"));
}

TEST_F(Emu, DominoScanWorksInForwardBlockOrder) {
  const auto sums = domino(8, 64);
  for (int b = 0; b < 8; ++b) EXPECT_EQ(sums[b], 64 * (b + 1));
}

TEST_F(Emu, DominoScanInReverseBlockOrderTripsTheWatchdog) {
  settings().block_order = Order::reverse;
  settings().watchdog_seconds = 0.5;
  const auto start = std::chrono::steady_clock::now();
  const std::string e = error_of([] { domino(8, 64); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_THAT(e, HasSubstr("kernel 'domino', block 7: watchdog: no progress for"));
  EXPECT_THAT(e, HasSubstr("thread 0 spins at an atomic or fence at " + at("kernels_scan.cpp", domino_spin_line())));
  EXPECT_GE(seconds, 0.5);
  EXPECT_LT(seconds, 5.0);
  // And the emulator is usable again.
  settings().block_order = Order::forward;
  EXPECT_EQ(domino(4, 32).back(), 128);
}

TEST_F(Emu, DominoScanWithTwoWorkersInReverseOrderTripsTheWatchdog) {
  settings().block_order = Order::reverse;
  settings().workers = 2;
  settings().watchdog_seconds = 0.5;
  EXPECT_THAT(error_of([] { domino(8, 64); }), HasSubstr("watchdog: no progress"));
}

// A spin on a plain volatile variable reaches no scheduling point: nothing can interrupt it, so the
// monitor thread prints what is stuck and ends the process.
TEST(EmuDeathTest, VolatileSpinStopsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  settings().watchdog_seconds = 0.5;
  EXPECT_EXIT(volatile_spin(), ::testing::ExitedWithCode(kWatchdogExitCode),
              "scanlab emu: watchdog: kernel 'volatile_spin', block 0, thread 0 has run for .* s without "
              "reaching a barrier");
}

}  // namespace
}  // namespace emu_test
