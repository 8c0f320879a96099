// ThreadSanitizer's race mode (settings().tsan_races): fibers switch without synchronising, so only
// barriers and warp operations order a block's threads, and TSan reports the races a kernel has.
// These tests need a ThreadSanitizer build (the tsan preset); elsewhere they are skipped.
#include <numeric>

#include "test_support.hpp"

#if defined(__SANITIZE_THREAD__)
namespace {
int tsan_reports = 0;
}  // namespace
// TSan calls this (a weak hook of its runtime) for every report, before it prints it.
extern "C" void __tsan_on_report(const void*) { ++tsan_reports; }
#define SCANLAB_SKIP_WITHOUT_TSAN() (void)0
#else
#define SCANLAB_SKIP_WITHOUT_TSAN() GTEST_SKIP() << "needs a ThreadSanitizer build (LAB_PRESET=tsan)"
#endif

namespace emu_test {
namespace {

using namespace scanlab::emu;

// Correct kernels over several blocks on one worker, and on two: barriers order the threads of a
// block, and the block's start and end order the scheduler's poisoning of shared memory and the
// host's reads of the results. No report.
TEST_F(Emu, RaceModeReportsNothingForCorrectKernels) {
  SCANLAB_SKIP_WITHOUT_TSAN();
#if defined(__SANITIZE_THREAD__)
  settings().tsan_races = true;
  const int before = tsan_reports;
  std::vector<int> in(6 * 128);
  std::iota(in.begin(), in.end(), 0);
  for (unsigned workers : {1u, 2u}) {
    settings().workers = workers;
    const auto out = reverse_blocks(in, 128);
    for (unsigned i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], int(i / 128 * 128 + 127 - i % 128));
    std::vector<int> one(1024, 1);
    EXPECT_EQ(kogge_stone(one, true).back(), 1024);
    EXPECT_EQ(brent_kung(std::vector<int>(2048, 1)).back(), 2048);
  }
  // Blocks that wait for each other, resident at once and ordered only by the kernel's own atomics.
  settings().workers = 1;
  for (unsigned resident : {1u, 4u}) {
    settings().resident_blocks = resident;
    const auto carries = chain(9, 64, ChainBug::none);
    EXPECT_EQ(carries.back(), 8 * 9 / 2);
    EXPECT_EQ(lookback(9, 32, LookbackBug::none).back(), 8 * 9 / 2);
  }
  // A flag published with a release store of cuda::atomic_ref and read with acquire loads.
  settings().resident_blocks = 4;
  EXPECT_EQ(flag_handoff(false), 42);
  EXPECT_EQ(tsan_reports, before) << "ThreadSanitizer reported a race in a correct kernel";
#endif
}

// The book's Kogge-Stone without its second barrier: a thread writes XY[i] while another may still
// read it. TSan names the race with both threads' stacks (each fiber is a TSan thread).
TEST(EmuDeathTest, RaceModeReportsTheMissingBarrier) {
  SCANLAB_SKIP_WITHOUT_TSAN();
#if defined(__SANITIZE_THREAD__)
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto racy = [] {
    settings().tsan_races = true;
    kogge_stone(std::vector<int>(256, 1), false);
    std::_Exit(0);  // no report, no halt: the test fails on the missing text below
  };
  // halt_on_error (the tsan test preset's setting) ends the process at the report (exit status 66).
  EXPECT_EXIT(racy(), [](int) { return true; },
              "WARNING: ThreadSanitizer: data race(.|\n)*kogge_stone_kernel(.|\n)*kogge_stone_kernel");
#endif
}

// The same flag with relaxed stores and loads (cuda::atomic_ref): it orders nothing, so the read of
// the data after it is a race. TSan sees it because the emulator hands the memory order to the
// compiler's atomics as a constant (a variable would make every access sequentially consistent).
TEST(EmuDeathTest, RaceModeReportsARelaxedFlag) {
  SCANLAB_SKIP_WITHOUT_TSAN();
#if defined(__SANITIZE_THREAD__)
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto racy = [] {
    settings().tsan_races = true;
    flag_handoff(true);
    std::_Exit(0);  // no report, no halt: the test fails on the missing text below
  };
  // (The stack names the kernel and its file; the parent process never ran the kernel, so it does not
  // know the line that group_line(5) records.)
  EXPECT_EXIT(racy(), [](int) { return true; },
              "WARNING: ThreadSanitizer: data race(.|\n)*flag_handoff_kernel[^\n]*kernels_groups.cpp:");
#endif
}

// Sec. 11.7's bug: a block reads its predecessor's total before it waits for the predecessor's flag.
// With resident blocks in race mode nothing but the kernel's atomics orders two blocks (the
// emulator's hand-over between them is hidden from TSan), so TSan reports the read, with its line.
TEST(EmuDeathTest, RaceModeReportsAReadBeforeTheFlag) {
  SCANLAB_SKIP_WITHOUT_TSAN();
#if defined(__SANITIZE_THREAD__)
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The read's line: the one after the line the kernel records (kernels_blocks.cpp, chain_kernel).
  const std::string read = "kernels_blocks.cpp:" + std::to_string(chain_read_line_in_source());
  const auto racy = [] {
    settings().tsan_races = true;
    settings().resident_blocks = 4;
    chain(9, 64, ChainBug::read_before_flag);
    std::_Exit(0);
  };
  EXPECT_EXIT(racy(), [](int) { return true; }, "WARNING: ThreadSanitizer: data race(.|\n)*" + read);
#endif
}

}  // namespace
}  // namespace emu_test
