// Every error the emulator reports instead of hanging or computing garbage: barrier divergence,
// deadlock, bad warp operations, the watchdog (cooperative, and the monitor's process exit), a
// kernel thread that overflows its fiber stack.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>

#include "scanlab/emu/wait_arrays.hpp"
#include "test_support.hpp"

// ASan and TSan handle SIGSEGV themselves, so the emulator does not install its overflow report
// there (SCANLAB_EMU_OVERFLOW_REPORT in src/internal.hpp decides the same way).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SCANLAB_SANITIZER_OWNS_SIGSEGV 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SCANLAB_SANITIZER_OWNS_SIGSEGV 1
#endif
#endif
#if defined(SCANLAB_SANITIZER_OWNS_SIGSEGV)
#define SCANLAB_SKIP_WITH_SANITIZER_SIGSEGV() \
  GTEST_SKIP() << "ASan and TSan handle SIGSEGV themselves; the emulator's overflow report is not built"
#else
#define SCANLAB_SKIP_WITH_SANITIZER_SIGSEGV() (void)0
#endif

namespace emu_test {
namespace {

using namespace scanlab::emu;
using ::testing::HasSubstr;

TEST_F(Emu, BarrierDivergenceNamesBothGroups) {
  const std::string e = error_of([] { barrier_divergence(); });
  // Both blocks diverge; of the two resident blocks the younger runs first (adversarial schedule).
  EXPECT_THAT(e, HasSubstr("kernel 'divergence', block 1: barrier divergence"));
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

// A launch past its time limit (emu::set_launch_time_limit; here one that every launch exceeds at
// its first look at the clock) says how long it ran, where its threads spin, on which tile's status,
// and what every tile had published: a chained scan (each tile publishes only after its look-back)
// leaves every tile after the running one with nothing published; the decoupled look-back has
// published aggregates ahead of it.
TEST_F(Emu, LaunchPastItsTimeLimitSaysWhatTheTilesPublished) {
  settings().resident_blocks = 4;
  scanlab::emu::set_launch_time_limit(1e-9);
  const std::string chained = error_of([] { lookback(64, 32, LookbackBug::chained); });
  const std::string decoupled = error_of([] { lookback(64, 32, LookbackBug::none); });
  scanlab::emu::set_launch_time_limit(0);
  EXPECT_THAT(chained, ::testing::ContainsRegex("kernel 'lookback', block [0-9]+: time limit: the launch ran [0-9.e+-]+ s, "
                                                "past its limit of 1e-09 s, while thread 0 spins at an atomic or fence at "
                                                "[^ ]+ on statuses\\[[0-9]+\\]; statuses when the launch stopped: "));
  EXPECT_THAT(chained, ::testing::ContainsRegex("statuses when the launch stopped: (0-[0-9]+ prefix, )?[0-9]+-63 nothing published$"));
  EXPECT_THAT(decoupled, HasSubstr("aggregate only"));
  EXPECT_EQ(lookback(64, 32, LookbackBug::none)[63], 63 * 64 / 2);  // no limit: right again
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
  // Blocks 7 to 4 are resident and all wait for a block that cannot start.
  EXPECT_THAT(e, ::testing::ContainsRegex("kernel 'domino', block [4-7]: watchdog: no progress for"));
  EXPECT_THAT(e, HasSubstr("thread 0 spins at an atomic or fence at " + at("kernels_scan.cpp", domino_spin_line())));
  // With the flags named (emu::NamedWaitArray): the flag it spins on, how long the launch ran, and
  // every flag's state: no block has set its flag (block 0, which sets the first, cannot start).
  EXPECT_THAT(e, ::testing::ContainsRegex("the launch ran [0-9.e+-]+ s\\) while thread 0 spins at an atomic or fence at "
                                          "[^ ]+ on flags\\[[3-6]\\]; flags when the launch stopped: 0-7 not set\\."));
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
  const unsigned resident = settings().resident_blocks;
  settings().resident_blocks = 1;  // one block at a time: block 0 spins
  EXPECT_EXIT(volatile_spin(), ::testing::ExitedWithCode(kWatchdogExitCode),
              "scanlab emu: watchdog: kernel 'volatile_spin', block 0, thread 0 has run for .* s without "
              "reaching a barrier");
  settings().resident_blocks = resident;
}

// A kernel thread that overflows its fiber stack runs into the guard page below it. The emulator's
// SIGSEGV handler (on the worker's alternate signal stack) names the thread and the stack size, says
// what to do, and ends the process. Each child takes its stack size from the place a student would
// set it: the environment (read at the child's first settings()), or settings().
TEST(EmuDeathTest, StackOverflowNamesTheThreadAndTheStackSize) {
  SCANLAB_SKIP_WITH_SANITIZER_SIGSEGV();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto from_environment = [] {
    ::setenv("SCANLAB_EMU_STACK_KB", "32", 1);
    deep_recursion({3, 1, 1}, {64, 1, 1}, 1, 5);
    std::_Exit(0);  // no overflow: the test fails on the exit status
  };
  EXPECT_EXIT(from_environment(), ::testing::ExitedWithCode(kStackOverflowExitCode),
              "scanlab emu: stack overflow: kernel 'deep_recursion', block 1, thread 5 ran past the end of "
              "its fiber stack of 32 KiB \\(deep recursion or large local arrays\\); set SCANLAB_EMU_STACK_KB "
              "to more than 32 \\(or settings\\(\\).stack_bytes\\), or make local arrays smaller");
  // Two workers (the block runs on a pool thread, with its own signal stack), a 2-D grid and block:
  // block (1,1,0) is linear 3 of 2x2; thread (3,2,0) is linear 3 + 8 * 2 = 19 of 8x4.
  const auto on_a_pool_thread = [] {
    ::unsetenv("SCANLAB_EMU_STACK_KB");
    settings().stack_bytes = 48 * 1024;
    settings().workers = 2;
    deep_recursion({2, 2, 1}, {8, 4, 1}, 3, 19);
    std::_Exit(0);
  };
  EXPECT_EXIT(on_a_pool_thread(), ::testing::ExitedWithCode(kStackOverflowExitCode),
              "scanlab emu: stack overflow: kernel 'deep_recursion', block \\(1,1,0\\), thread 19 \\(3,2,0\\) "
              "ran past the end of its fiber stack of 48 KiB");
}

// The overflow report takes only faults in a guard page. Any other SIGSEGV does what it did before
// the emulator started: the default action (the process dies by the signal, silently), or a handler
// the program installed earlier.
TEST(EmuDeathTest, OtherCrashesReachThePreviousSigsegvDisposition) {
  SCANLAB_SKIP_WITH_SANITIZER_SIGSEGV();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto by_default = [] {
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    null_write();
    std::_Exit(0);
  };
  // Silently, but for the line qemu-user (the arm64 build's tests) prints for a guest killed by a
  // signal, a core file or not: that line is qemu's, never the program's.
  EXPECT_EXIT(by_default(), ::testing::KilledBySignal(SIGSEGV),
              "^(qemu: uncaught target signal 11 \\(Segmentation fault\\) - core dumped\n)?$");
  const auto with_a_handler = [] {
    struct sigaction earlier {};
    earlier.sa_handler = [](int) {
      const char text[] = "the program's own SIGSEGV handler\n";
      (void)!::write(STDERR_FILENO, text, sizeof text - 1);
      ::_exit(3);
    };
    ::sigaction(SIGSEGV, &earlier, nullptr);
    null_write();  // the first launch installs the emulator's handler, after this one
    std::_Exit(0);
  };
  EXPECT_EXIT(with_a_handler(), ::testing::ExitedWithCode(3), "^the program's own SIGSEGV handler\n$");
}

}  // namespace
}  // namespace emu_test
