// Resident blocks (settings().resident_blocks): blocks of a launch that run interleaved, one at a
// time, so that blocks waiting for each other behave as on a GPU, and a block that reads another
// block's data before waiting for it reads it too early, in every run of the adversarial schedule.
#include "test_support.hpp"

namespace emu_test {
namespace {

using namespace scanlab::emu;
using ::testing::HasSubstr;

constexpr unsigned kBlocks = 9;

bool chain_right(const std::vector<int>& carries) {
  for (unsigned b = 0; b < carries.size(); ++b) {
    if (carries[b] != static_cast<int>(b * (b + 1) / 2)) return false;
  }
  return true;
}

bool lookback_right(const std::vector<int>& prefixes) { return chain_right(prefixes); }

// The right kernels: every schedule, seed, block order and number of resident blocks.
TEST_F(Emu, BlocksThatWaitForEachOtherAreRightUnderEverySchedule) {
  for (Schedule schedule : {Schedule::adversarial, Schedule::random}) {
    for (unsigned resident : {2u, 4u, 8u}) {
      for (Order order : {Order::forward, Order::reverse, Order::random}) {
        for (std::uint64_t seed = 1; seed <= 20; ++seed) {
          settings().block_schedule = schedule;
          settings().resident_blocks = resident;
          settings().block_order = order;
          settings().seed = seed;
          const std::string what = std::string(schedule_name(schedule)) + ", " + std::to_string(resident) +
                                   " resident, " + order_name(order) + " order, seed " + std::to_string(seed);
          EXPECT_TRUE(chain_right(chain(kBlocks, 64, ChainBug::none))) << what;
          EXPECT_TRUE(lookback_right(lookback(kBlocks, 32, LookbackBug::none))) << what;
        }
      }
    }
  }
}

// A block that reads its predecessor's total before it waits for the predecessor's flag: right
// whenever the predecessor happens to be done (one block after another, as before resident blocks),
// wrong in every run of the adversarial schedule, whatever the seed and the order blocks start in.
TEST_F(Emu, ReadBeforeFlagIsWrongInEveryAdversarialRun) {
  settings().resident_blocks = 1;
  EXPECT_TRUE(chain_right(chain(kBlocks, 64, ChainBug::read_before_flag)))
      << "one block after another, the predecessor is always done: the bug does not show";
  EXPECT_TRUE(chain_right(chain(kBlocks, 64, ChainBug::static_index_read_before_flag)));
  for (unsigned resident : {2u, 4u, 8u}) {
    for (Order order : {Order::forward, Order::reverse, Order::random}) {
      for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        settings().resident_blocks = resident;
        settings().block_order = order;
        settings().seed = seed;
        EXPECT_FALSE(chain_right(chain(kBlocks, 64, ChainBug::read_before_flag)))
            << resident << " resident, " << order_name(order) << " order, seed " << seed;
      }
    }
    // The static index only works while blocks start in order: that order, every seed.
    settings().block_order = Order::forward;
    settings().resident_blocks = resident;
    EXPECT_FALSE(chain_right(chain(kBlocks, 64, ChainBug::static_index_read_before_flag))) << resident;
  }
}

// Sec. 11.8: a look-back that takes a predecessor not yet published as 0 instead of waiting for it.
TEST_F(Emu, LookBackWithoutWaitingIsWrongInEveryAdversarialRun) {
  settings().resident_blocks = 1;
  EXPECT_TRUE(lookback_right(lookback(kBlocks, 32, LookbackBug::no_wait)));
  for (unsigned resident : {2u, 4u, 8u}) {
    for (Order order : {Order::forward, Order::reverse, Order::random}) {
      for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        settings().resident_blocks = resident;
        settings().block_order = order;
        settings().seed = seed;
        EXPECT_FALSE(lookback_right(lookback(kBlocks, 32, LookbackBug::no_wait)))
            << resident << " resident, " << order_name(order) << " order, seed " << seed;
      }
    }
  }
}

// The random schedule is a second opinion, not a guarantee: it catches the bug in some runs.
TEST_F(Emu, RandomScheduleCatchesReadBeforeFlagSometimes) {
  settings().block_schedule = Schedule::random;
  int wrong = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    settings().seed = seed;
    wrong += !chain_right(chain(kBlocks, 64, ChainBug::read_before_flag));
  }
  EXPECT_GT(wrong, 0);
}

// Which block runs first: of the resident blocks that have not changed memory yet, the youngest.
TEST_F(Emu, AdversarialScheduleRunsTheYoungestResidentBlockFirst) {
  settings().resident_blocks = 4;
  EXPECT_EQ(block_start_order(10), (std::vector<unsigned>{3, 2, 1, 0, 4, 5, 6, 7, 8, 9}));
}

// Memory errors: a write one element past the end (or before the start) of dynamic shared memory
// changes its guard zone; the barrier after it reports the block, the array and the element.
TEST_F(Emu, WritePastDynamicSharedMemoryIsAMemoryError) {
  const std::string e = error_of([] { dynamic_shared_overflow(3, 64, 1); });
  EXPECT_THAT(e, ::testing::StartsWith("memory error: kernel 'dynamic_overflow', block "));
  EXPECT_THAT(e, HasSubstr("wrote past the end of its dynamic shared memory, a 64-element array of 4-byte "
                           "elements (element 64, which starts 0 bytes after its end), between the start of the block and "
                           "__syncthreads() at " + at("kernels_blocks.cpp", dynamic_overflow_barrier_line())));
  EXPECT_THAT(e, HasSubstr("threads 0-63"));
  const std::string before = error_of([] { dynamic_shared_overflow(1, 32, -1); });
  EXPECT_THAT(before, HasSubstr("memory error: kernel 'dynamic_overflow', block 0 wrote before the start of its "
                                "dynamic shared memory, a 32-element array of 4-byte elements (element -1, which starts 4 "
                                "bytes before it)"));
  // Right indices: no report, and the emulator is usable again.
  EXPECT_NO_THROW(dynamic_shared_overflow(3, 64, 0));
}

// Shared memory no thread wrote holds the poison bytes (settings().shared_poison): a sum over it
// changes with them, which is how the grading tests see such a read.
TEST_F(Emu, UnwrittenSharedMemoryChangesWithThePoison) {
  const int with_cd = unwritten_shared(2)[0];
  settings().shared_poison = 0x7F;
  const int with_7f = unwritten_shared(2)[0];
  EXPECT_NE(with_cd, 32);
  EXPECT_NE(with_cd, with_7f);
}

}  // namespace
}  // namespace emu_test
