// Cooperative groups and libcu++'s atomics on the emulator (common/emu/cuda_headers/): they are the
// emulator's barriers, warp operations and atomics, so its checks apply to them, and its messages
// name the kernel's lines. (What they compute: the compatibility suite, tests/compat/.)
#include <chrono>

#include "test_support.hpp"

namespace emu_test {
namespace {

using namespace scanlab::emu;
using ::testing::HasSubstr;

TEST_F(Emu, BlockSyncAtTwoPlacesIsBarrierDivergence) {
  const std::string e = error_of([] { group_divergence(); });
  EXPECT_THAT(e, HasSubstr("kernel 'group_divergence', block 0: barrier divergence"));
  EXPECT_THAT(e, HasSubstr("threads 0-15 wait at __syncthreads() at " + at("kernels_groups.cpp", group_line(0))));
  EXPECT_THAT(e, HasSubstr("threads 16-31 wait at __syncthreads() at " + at("kernels_groups.cpp", group_line(1))));
}

TEST_F(Emu, TileScanThatALaneSkipsIsReported) {
  const std::string e = error_of([] { tile_lane_exits(); });
  // The tile's shuffles name all 16 lanes of the tile (mask 0x0000ffff for the first tile).
  EXPECT_THAT(e, HasSubstr("kernel 'tile_lane_exits', block 0: thread 3 exited, but threads 0-2 wait in "
                           "__shfl_up_sync at " + at("kernels_groups.cpp", group_line(2)) + " with mask 0x0000ffff"));
}

TEST_F(Emu, AcquireLoadThatSpinsForeverTripsTheWatchdogAtItsLine) {
  settings().watchdog_seconds = 0.3;
  const auto start = std::chrono::steady_clock::now();
  const std::string e = error_of([] { never_published(); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_THAT(e, HasSubstr("kernel 'never_published', block 0: watchdog: no progress for"));
  EXPECT_THAT(e, HasSubstr("thread 0 spins at an atomic or fence at " + at("kernels_groups.cpp", group_line(3))));
  EXPECT_LT(seconds, 5.0);
}

TEST_F(Emu, CudaAtomicRefFlagHandsDataToAnotherBlock) {
  // Block 0 spins until block 1, resident with it, publishes (a store that changes memory lets the
  // block schedule switch): with either memory order, since the emulator runs one thread at a time.
  EXPECT_EQ(flag_handoff(false), 42);
  EXPECT_EQ(flag_handoff(true), 42);
}

TEST_F(Emu, MemoryOrderThatCppDoesNotAllowIsAnError) {
  const std::string e = error_of([] { release_load(); });
  EXPECT_THAT(e, HasSubstr("kernel 'release_load', block 0: thread 0: cuda atomic: load with memory_order_release at " +
                           at("kernels_groups.cpp", group_line(4)) + ", which C++ does not allow"));
}

}  // namespace
}  // namespace emu_test
