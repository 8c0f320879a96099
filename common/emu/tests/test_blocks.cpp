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
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  // The end of the array touches a guard page (forward thread order): the write faults, and the
  // report names the thread (see ReadOrWritePastDynamicSharedMemoryFaults).
  EXPECT_THAT(e, HasSubstr(", thread 63 wrote past the end of its dynamic shared memory, a 64-element array "
                           "of 4-byte elements (element 64 = N+0)"));
#else
  EXPECT_THAT(e, HasSubstr("wrote past the end of its dynamic shared memory, a 64-element array of 4-byte "
                           "elements (element 64, which starts 0 bytes after its end), between the start of the block and "
                           "__syncthreads() at " + at("kernels_blocks.cpp", dynamic_overflow_barrier_line())));
  EXPECT_THAT(e, HasSubstr("threads 0-63"));
#endif
  const std::string before = error_of([] { dynamic_shared_overflow(1, 32, -1); });
  EXPECT_THAT(before, HasSubstr("memory error: kernel 'dynamic_overflow', block 0 wrote before the start of its "
                                "dynamic shared memory, a 32-element array of 4-byte elements (element -1, which starts 4 "
                                "bytes before it)"));
  // Right indices: no report, and the emulator is usable again.
  EXPECT_NO_THROW(dynamic_shared_overflow(3, 64, 0));
}

// Dynamic shared memory between guard pages: a read or write past the end, however far, or before the
// start (the start touches the guard page in reverse thread order), fails the launch with the block,
// the thread, the array's name and the element; the next launches run as before.
TEST_F(Emu, ReadOrWritePastDynamicSharedMemoryFaults) {
#if !defined(__x86_64__) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the fault is reported on x86-64 without ASan and TSan only";
#endif
  EXPECT_THAT(error_of([] { dynamic_shared_read(32, 1); }),
              ::testing::StartsWith("memory error: kernel 'dynamic_read', block 0, thread 31 read past the end of its "
                                    "dynamic shared memory (extern __shared__ XY[]), a 32-element array of 4-byte "
                                    "elements (element 32 = N+0)"));
  EXPECT_THAT(error_of([] { dynamic_shared_read(32, 100000); }),
              HasSubstr("thread 0 read past the end of its dynamic shared memory (extern __shared__ XY[]), a "
                        "32-element array of 4-byte elements (element 100000 = N+99968)"));
  settings().thread_order = Order::reverse;
  const std::string before = error_of([] { dynamic_shared_read(32, -1); });
  EXPECT_THAT(before, ::testing::StartsWith("memory error: kernel 'dynamic_read', block 0, thread 0 read before the "
                                            "start of its dynamic shared memory (extern __shared__ XY[]), a 32-element "
                                            "array of 4-byte elements (element -1)"));
  EXPECT_THAT(before, HasSubstr("a negative index"));
  // Right indices in both orders (the guard page moves from one end to the other): no report.
  EXPECT_NO_THROW(dynamic_shared_read(32, 0));
  settings().thread_order = Order::forward;
  EXPECT_NO_THROW(dynamic_shared_read(32, 0));
  EXPECT_NO_THROW(dynamic_shared_read(48, 0));
}

// Device memory between guard pages: a read or a write past either end, however far (within the
// reservation), fails the launch with the block, the thread, the array and the element, as a
// memory error; the faulting thread's fiber is dropped, and the next launches run as before.
TEST_F(Emu, ReadOrWritePastGuardedDeviceMemoryIsAMemoryError) {
#if !defined(__x86_64__) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the fault is reported on x86-64 without ASan and TSan only";
#endif
  // Thread 10 reads x[10], one past the end: the first thread that faults.
  const std::string read = error_of([] { guarded_copy(32, 10, 0, 32, 0); });
  EXPECT_THAT(read, ::testing::StartsWith("memory error: kernel 'guarded_copy', block 0, thread 10 read past the end of "
                                          "a 10-element array of 4-byte elements (element 10 = N+0) in device memory"));
  EXPECT_THAT(read, HasSubstr("look for an index that can reach n"));
  // Far: 100,000 elements before the start of y; and a read far past the end of x.
  EXPECT_THAT(error_of([] { guarded_copy(32, 32, 0, 32, -100000); }),
              ::testing::StartsWith("memory error: kernel 'guarded_copy', block 0, thread 0 wrote before the start of a "
                                    "32-element array of 4-byte elements (element -100000) in device memory"));
  EXPECT_THAT(error_of([] { guarded_copy(64, 32, 200000, 64, 0); }),
              ::testing::StartsWith("memory error: kernel 'guarded_copy', block 0, thread 0 read past the end of a "
                                    "32-element array of 4-byte elements (element 200000 = N+199968) in device memory"));
  // Every fault drops one fiber, which the next block makes again on the same stack: many in a row,
  // then right launches, with the same threads.
  for (int i = 0; i < 300; ++i) EXPECT_THAT(error_of([] { guarded_copy(64, 64, 1, 64, 0); }), HasSubstr("thread 63 read"));
  EXPECT_NO_THROW(guarded_copy(64, 64, 0, 64, 0));
  EXPECT_NO_THROW(dynamic_shared_overflow(3, 64, 0));
}

// The same for static __shared__ arrays: each has a guard zone next to it, whichever instantiation of a
// kernel template it belongs to and whether or not another array of the kernel follows it. The report
// names the declaration.
TEST_F(Emu, WritePastStaticSharedMemoryIsAMemoryError) {
  for (StaticArray array : {StaticArray::of_int, StaticArray::of_double, StaticArray::of_char, StaticArray::first_of_two}) {
    for (unsigned threads : {32u, 64u}) {
      SCOPED_TRACE("array " + std::to_string(static_cast<int>(array)) + ", " + std::to_string(threads) + " threads");
      const std::string e = error_of([&] { static_shared_overflow(3, threads, 1, array); });
      EXPECT_THAT(e, ::testing::StartsWith("memory error: kernel 'static_overflow', block "));
      EXPECT_THAT(e, HasSubstr("wrote past the end of a static __shared__ array (declared at " +
                               at("kernels_blocks.cpp", static_overflow_declaration_line(array)) +
                               "), 0 bytes after its end (the first byte it changed), between the start of the block and "
                               "__syncthreads() at " + at("kernels_blocks.cpp", static_overflow_barrier_line())));
      EXPECT_THAT(e, HasSubstr("an index past the size the array is declared with?"));
      // XY[t + blockDim.x]: every thread writes past the end.
      EXPECT_THAT(error_of([&] { static_shared_overflow(2, threads, static_cast<int>(threads), array); }),
                  HasSubstr("wrote past the end of a static __shared__ array (declared at " +
                            at("kernels_blocks.cpp", static_overflow_declaration_line(array)) + "), 0 bytes after its end"));
      EXPECT_THAT(error_of([&] { static_shared_overflow(1, threads, -1, array); }),
                  HasSubstr("memory error: kernel 'static_overflow', block 0 wrote before the start of a static __shared__ array"));
      // Right indices: no report, the guards are whole again, and shared memory is poisoned as before.
      EXPECT_NO_THROW(static_shared_overflow(3, threads, 0, array));
    }
  }
  for (std::uint32_t v : shared_before_write(3, 64)) EXPECT_EQ(v, 0xCDCDCDCDu);
}

// Resident blocks run interleaved, each on an OS thread of its own: each has its own static shared memory.
TEST_F(Emu, ResidentBlocksEachHaveTheirOwnStaticSharedMemory) {
  settings().resident_blocks = 4;
  const unsigned blocks = 10, threads = 64;
  unsigned most = 0;
  const auto seen = resident_static_shared(blocks, threads, most);
  EXPECT_GE(most, 2u);  // the test means something only if blocks were resident together
  for (unsigned g = 0; g < blocks * threads; ++g) {
    ASSERT_EQ(seen[g], int(100 * (g / threads) + (g % threads + 1) % threads)) << "thread " << g % threads << " of block " << g / threads;
  }
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
