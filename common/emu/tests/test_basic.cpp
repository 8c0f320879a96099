// Built-in variables, shared memory, barriers, atomics, orders, workers, printf, errors in threads.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <set>

#include "test_support.hpp"

namespace emu_test {
namespace {

using namespace scanlab::emu;
using ::testing::HasSubstr;

TEST_F(Emu, BuiltinsIn3D) {
  const Extent3 grid{2, 3, 2}, block{4, 2, 5};
  const auto out = builtins(grid, block);
  std::size_t k = 0;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx)
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx) {
              const unsigned linear = tx + block.x * (ty + block.y * tz);
              const unsigned expected[14] = {tx, ty, tz, bx, by, bz, block.x, block.y, block.z,
                                             grid.x, grid.y, grid.z, 32, linear / 32};
              for (unsigned i = 0; i < 14; ++i) ASSERT_EQ(out[k * 14 + i], expected[i]) << "thread " << k << " field " << i;
              ++k;
            }
}

TEST_F(Emu, SharedMemoryIsPoisonedAtEveryBlockStart) {
  const auto out = shared_before_write(3, 64);
  for (std::uint32_t v : out) EXPECT_EQ(v, 0xCDCDCDCDu);  // never the previous block's 7, 8, 9
}

TEST_F(Emu, SharedMemoryIsPoisonedOnEveryWorker) {
  settings().workers = 2;
  const auto out = shared_before_write(8, 64);
  for (std::uint32_t v : out) EXPECT_EQ(v, 0xCDCDCDCDu);
}

TEST_F(Emu, StaticSharedInADeviceFunctionIsOneArrayPerBlock) {
  const unsigned blocks = 4, threads = 96;
  for (unsigned workers : {1u, 2u}) {
    for (Order order : {Order::forward, Order::reverse}) {  // reverse: thread 0 writes last
      settings().workers = workers;
      settings().thread_order = order;
      SCOPED_TRACE(std::to_string(workers) + " workers, " + order_name(order));
      std::vector<int> seen;
      std::vector<std::uintptr_t> addresses;
      static_shared_in_device_function(blocks, threads, seen, addresses);
      for (unsigned g = 0; g < blocks * threads; ++g) {
        const unsigned b = g / threads;
        ASSERT_EQ(seen[g], int(1000 + b)) << "thread " << g % threads << " of block " << b;
        ASSERT_NE(addresses[g], 0u);
        ASSERT_EQ(addresses[g], addresses[b * threads]) << "thread " << g % threads << " of block " << b;
      }
    }
  }
}

TEST_F(Emu, BarrierOrdersSharedMemory) {
  std::vector<int> in(4 * 256);
  std::iota(in.begin(), in.end(), 0);
  const auto out = reverse_blocks(in, 256);
  for (unsigned i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], int(i / 256 * 256 + 255 - i % 256));
}

TEST_F(Emu, BarrierVotesCountOnlyThreadsThatHaveNotExited) {
  // 100 of 128 threads take part: predicate tid % 3 == 0 holds for 34 of them.
  EXPECT_EQ(barrier_votes(128, 100), (std::vector<int>{34, 0, 1, 1, 0}));
  EXPECT_EQ(barrier_votes(128, 1), (std::vector<int>{1, 1, 1, 1, 0}));
}

TEST_F(Emu, ExitedThreadsAreNotWaitedFor) {
  std::vector<int> out;
  barrier_after_some_exit(out);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], 15);
  for (int i = 16; i < 64; ++i) EXPECT_EQ(out[i], -1);
}

// The scheduler only ever resumes a thread where it stopped: a thread that exits early, or waits
// at a barrier while others exit, is never started again from the top.
TEST_F(Emu, NoThreadRunsTwiceWhenOthersReturnBeforeBarriers) {
  const unsigned blocks = 5, threads = 100;
  for (unsigned workers : {1u, 2u}) {
    for (Order order : {Order::forward, Order::reverse, Order::random}) {
      settings().workers = workers;
      settings().thread_order = order;
      settings().block_order = order;
      SCOPED_TRACE(std::to_string(workers) + " workers, " + order_name(order));
      std::vector<unsigned> entered, finished;
      count_entries(blocks, threads, entered, finished);
      for (unsigned g = 0; g < blocks * threads; ++g) {
        const unsigned t = g % threads;
        ASSERT_EQ(entered[g], 1u) << "thread " << t << " of block " << g / threads;
        ASSERT_EQ(finished[g], (t % 3 != 1 && t % 5 != 2) ? 1u : 0u) << "thread " << t << " of block " << g / threads;
      }
    }
  }
}

TEST_F(Emu, Atomics) {
  const unsigned blocks = 3, threads = 100, n = blocks * threads;
  const auto r = atomics(blocks, threads);
  EXPECT_EQ(r[0], n);
  EXPECT_EQ(r[1], n * 0.5);
  EXPECT_EQ(r[2], n * 0.25);
  EXPECT_EQ(r[3], -double(n));
  EXPECT_EQ(r[4], n - 1);
  EXPECT_EQ(r[5], 1000.0 - (n - 1));
  EXPECT_GE(r[6], 1);
  EXPECT_LE(r[6], n);
  EXPECT_EQ(r[7], n);           // a CAS loop
  EXPECT_EQ(r[8], n % 10);      // atomicInc wraps at 9
  EXPECT_EQ(r[9], double((5 - n % 6 + 6) % 6));  // atomicDec wraps from 0 to 5
  EXPECT_EQ(r[10], 0xffff);
  EXPECT_EQ(r[11], double(0xffffff00u));
  EXPECT_EQ(r[12], n % 2);
}

// watch_atomics: every atomic on watched memory, in the order the emulator ran them, with its block,
// thread, offset and the values before and after; nothing outside the ranges, nothing once unwatched.
TEST_F(Emu, WatchedAtomicsAreRecordedInOrder) {
  const unsigned blocks = 4, threads = 64;
  settings().resident_blocks = 1;  // one block after another: the order is known
  const std::vector<AtomicEvent> events = watched_atomics(blocks, threads, true);
  ASSERT_EQ(events.size(), 3u * blocks);
  for (unsigned b = 0; b < blocks; ++b) {
    const AtomicEvent& ticket = events[3 * b];
    const AtomicEvent& read = events[3 * b + 1];
    const AtomicEvent& write = events[3 * b + 2];
    EXPECT_EQ(ticket.array, "counter");
    EXPECT_EQ(ticket.block, b);
    EXPECT_EQ(ticket.thread, 0u);
    EXPECT_EQ(ticket.before, b);
    EXPECT_EQ(ticket.after, b + 1);
    EXPECT_EQ(read.array, "flags");
    EXPECT_EQ(read.offset, b * sizeof(unsigned));
    EXPECT_EQ(read.size, sizeof(unsigned));
    EXPECT_EQ(read.before, 0u);
    EXPECT_EQ(read.after, 0u);
    EXPECT_EQ(write.offset, b * sizeof(unsigned));
    EXPECT_EQ(write.before, 0u);
    EXPECT_EQ(write.after, 7u);
    EXPECT_EQ(write.block, b);
  }
  EXPECT_TRUE(watched_atomics(blocks, threads, false).empty());
}

// The same atomics on __shared__ variables: each block has its own, and every thread's atomic is
// one indivisible step (the old values each thread got form an unbroken sequence), in every order.
TEST_F(Emu, AtomicsOnSharedMemory) {
  const unsigned blocks = 3, threads = 200, limit = 6;  // 200 threads: the last warp is partial
  for (Order order : {Order::forward, Order::reverse, Order::random}) {
    settings().thread_order = order;
    SCOPED_TRACE(order_name(order));
    const SharedAtomics r = shared_atomics(blocks, threads, limit);
    for (unsigned b = 0; b < blocks; ++b) {
      SCOPED_TRACE("block " + std::to_string(b));
      const SharedAtomicTotals& s = r.blocks[b];
      EXPECT_EQ(s.add_int, int(threads));
      EXPECT_EQ(s.add_unsigned, threads * (b + 1));
      EXPECT_EQ(s.add_float, 100.0f);   // 200 x 0.5f, exact in float
      EXPECT_EQ(s.add_double, 50.0);    // 200 x 0.25
      EXPECT_EQ(s.sub, -int(threads * (b + 1)));
      EXPECT_EQ(s.max, 3 * int(threads - 1) - 100);
      EXPECT_EQ(s.min, 500 - 2 * int(threads - 1));
      EXPECT_EQ(s.cas, int(threads));
      EXPECT_EQ(s.inc, threads % (limit + 1));  // wraps to 0 after the limit: 0, 1, ..., 6, 0, ...
      // The first atomicInc finds old > limit, stores 0; the other 199 count from there.
      EXPECT_EQ(s.inc_from_above, (threads - 1) % (limit + 1));
      std::vector<int> add_old, cas_old;
      std::vector<unsigned> exch_chain{s.exch}, inc_old;
      for (unsigned t = b * threads; t < (b + 1) * threads; ++t) {
        add_old.push_back(r.add_old[t]);
        cas_old.push_back(r.cas_old[t]);
        exch_chain.push_back(r.exch_old[t]);
        inc_old.push_back(r.inc_old[t]);
      }
      std::vector<int> counted(threads);
      std::iota(counted.begin(), counted.end(), 0);
      EXPECT_TRUE(std::is_permutation(add_old.begin(), add_old.end(), counted.begin()));
      EXPECT_TRUE(std::is_permutation(cas_old.begin(), cas_old.end(), counted.begin()));
      // Each exchange returned the value the previous one stored: 0 (the start) and every thread's
      // tid + 1, each exactly once, counting the value left at the end.
      std::vector<unsigned> chain(threads + 1);
      std::iota(chain.begin(), chain.end(), 0u);
      EXPECT_TRUE(std::is_permutation(exch_chain.begin(), exch_chain.end(), chain.begin()));
      for (unsigned v = 0; v <= limit + 1; ++v) {  // 0..6 each 28 or 29 times; never 7
        const auto expected = v > limit ? 0 : threads / (limit + 1) + (v < threads % (limit + 1) ? 1 : 0);
        EXPECT_EQ(std::count(inc_old.begin(), inc_old.end(), v), expected) << "old value " << v;
      }
    }
  }
}

TEST_F(Emu, SpinOnAnAtomicLetsOtherThreadsRun) { EXPECT_EQ(spin_in_block(64), 42); }

TEST_F(Emu, BlockOrders) {
  // The order blocks start in; one resident block at a time, so also the order they run in.
  settings().resident_blocks = 1;
  std::vector<unsigned> forward(10), reverse(10);
  std::iota(forward.begin(), forward.end(), 0u);
  std::iota(reverse.rbegin(), reverse.rend(), 0u);
  EXPECT_EQ(block_start_order(10), forward);
  settings().block_order = Order::reverse;
  EXPECT_EQ(block_start_order(10), reverse);
  settings().block_order = Order::random;
  settings().seed = 7;
  ::testing::internal::CaptureStderr();
  const auto a = block_start_order(10);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(err, HasSubstr("scanlab emu: random block/thread order, seed 7"));
  EXPECT_EQ(block_start_order(10), a);  // the same seed gives the same order
  EXPECT_TRUE(std::is_permutation(a.begin(), a.end(), forward.begin()));
  EXPECT_NE(a, forward);
  settings().seed = 8;
  EXPECT_NE(block_start_order(10), a);
}

TEST_F(Emu, ThreadOrders) {
  std::vector<unsigned> forward(64), reverse(64);
  std::iota(forward.begin(), forward.end(), 0u);
  std::iota(reverse.rbegin(), reverse.rend(), 0u);
  EXPECT_EQ(thread_start_order(64), forward);
  settings().thread_order = Order::reverse;
  EXPECT_EQ(thread_start_order(64), reverse);
  settings().thread_order = Order::random;
  settings().seed = 3;
  const auto a = thread_start_order(64);
  EXPECT_TRUE(std::is_permutation(a.begin(), a.end(), forward.begin()));
  EXPECT_NE(a, forward);
  EXPECT_EQ(thread_start_order(64), a);
}

TEST_F(Emu, SeveralWorkersRunEachBlockOnOneThread) {
  settings().workers = 2;
  const auto same = blocks_on_one_worker(16, 128);
  for (int s : same) EXPECT_EQ(s, 1);
  std::vector<int> in(16 * 128);
  std::iota(in.begin(), in.end(), 0);
  const auto out = reverse_blocks(in, 128);
  for (unsigned i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], int(i / 128 * 128 + 127 - i % 128));
}

TEST_F(Emu, PrintfWorks) {
  ::testing::internal::CaptureStdout();
  print_hello();
  std::fflush(stdout);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_THAT(out, HasSubstr("hello from block 0 thread 1"));
  EXPECT_THAT(out, HasSubstr("hello from block 1 thread 1"));
}

TEST_F(Emu, TooManyThreadsPerBlockIsRefused) {
  const std::string e = error_of([] { launch_empty({1, 1, 1}, {2048, 1, 1}); });
  EXPECT_THAT(e, HasSubstr("'empty'"));
  EXPECT_THAT(e, HasSubstr("2048 threads per block; at most 1024"));
  EXPECT_THAT(error_of([] { launch_empty({1, 1, 1}, {32, 32, 2}); }), HasSubstr("at most 1024"));
  EXPECT_THAT(error_of([] { launch_empty({0, 1, 1}, {32, 1, 1}); }), HasSubstr("is 0"));
  EXPECT_NO_THROW(launch_empty({1, 1, 1}, {32, 32, 1}));
}

TEST_F(Emu, ExceptionInAThreadNamesBlockAndThread) {
  const std::string e = error_of([] { throwing(4, 64, 2, 17); });
  EXPECT_THAT(e, HasSubstr("kernel 'throwing', block 2: thread 17: boom from a kernel"));
}

// A kernel library hides its symbols, so its copy of LaunchError's type_info is its own unless the
// type has default visibility; libc++ matches a catch by the type_info's address, and then every
// failed launch went past scanlab::launch's catch (a watchdog report came out as an unknown
// exception instead of a failed check).
TEST_F(Emu, LaunchErrorIsCaughtInAKernelLibrary) {
  EXPECT_EQ(launch_error_caught_in_kernel_library(), "caught");
}

TEST_F(Emu, FailedAssertNamesBlockThreadAndLine) {
  const std::string e = error_of([] { asserting(3, 40, 1, 33); });
  EXPECT_THAT(e, HasSubstr("kernel 'asserting', block 1: thread 33: assertion `!bad` failed at " +
                           at("kernels_basic.cpp", assert_line())));
}

TEST_F(Emu, ReusableAfterAnError) {
  for (int i = 0; i < 3; ++i) {
    EXPECT_THROW(throwing(2, 1024, 1, 1000), LaunchError);
    EXPECT_EQ(spin_in_block(1024), 42);
  }
  std::vector<int> in(1024, 1);
  const auto out = kogge_stone(in, true);
  EXPECT_EQ(out.back(), 1024);
}

// A worker's fibers run their slot's thread in block after block, and launch after launch; they
// are ended and made again when the stacks change size (and by measure_switch_ns, which borrows a
// stack). Each step below leans on one of those paths.
TEST_F(Emu, FibersLiveFromBlockToBlockAndLaunchToLaunch) {
  std::vector<int> in(1024);
  std::iota(in.begin(), in.end(), 1);
  const auto expect_scan = [&](const std::vector<int>& out) {
    ASSERT_EQ(out.size(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], int((i + 1) * (i + 2) / 2)) << i;
  };
  const auto expect_reversed = [&](unsigned threads) {
    std::vector<int> v(3 * threads);
    std::iota(v.begin(), v.end(), 0);
    const auto out = reverse_blocks(v, threads);
    for (unsigned i = 0; i < v.size(); ++i) ASSERT_EQ(out[i], int(i / threads * threads + threads - 1 - i % threads));
  };
  expect_scan(kogge_stone(in, true));  // 1024 fibers
  expect_reversed(96);                 // fewer threads per block: the other fibers wait
  expect_scan(kogge_stone(in, true));
  settings().stack_bytes *= 2;         // new stacks: the fibers are ended and made again
  expect_scan(kogge_stone(in, true));
  expect_reversed(1000);
  EXPECT_GT(measure_switch_ns(1000), 0.0);
  expect_scan(kogge_stone(in, true));
  EXPECT_THROW(throwing(3, 512, 1, 300), LaunchError);  // abandoned mid-block, then reused
  expect_reversed(512);
}

// The environment gives the settings' defaults, read once per process at the first settings(). A
// death test in the threadsafe style runs the test binary again for this test alone: a fresh
// process, which sets the variables before anything has asked for the settings.
TEST(EmuDeathTest, EnvironmentSetsWorkersAndStackSize) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto child = [] {
    ::setenv("SCANLAB_EMU_WORKERS", "3", 1);
    ::setenv("SCANLAB_EMU_STACK_KB", "128", 1);
    std::fprintf(stderr, "workers %u, stack_bytes %zu\n", settings().workers, settings().stack_bytes);
    std::_Exit(0);
  };
  EXPECT_EXIT(child(), ::testing::ExitedWithCode(0), "^workers 3, stack_bytes 131072\n$");
}

// A value that is not a number, or out of range (workers 1..256, stack 16..65536 KiB), is ignored
// with a warning: the setting keeps its default (1 worker, 64 KiB).
TEST(EmuDeathTest, InvalidEnvironmentValuesWarnAndKeepTheDefaults) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto child = [](const char* workers, const char* stack_kb) {
    ::setenv("SCANLAB_EMU_WORKERS", workers, 1);
    ::setenv("SCANLAB_EMU_STACK_KB", stack_kb, 1);
    std::fprintf(stderr, "workers %u, stack_bytes %zu\n", settings().workers, settings().stack_bytes);
    std::_Exit(0);
  };
  EXPECT_EXIT(child("0", "64k"), ::testing::ExitedWithCode(0),
              "^scanlab emu: ignoring SCANLAB_EMU_WORKERS=0 \\(not a valid value\\)\n"
              "scanlab emu: ignoring SCANLAB_EMU_STACK_KB=64k \\(not a valid value\\)\n"
              "workers 1, stack_bytes 65536\n$");
  EXPECT_EXIT(child("two", "8"), ::testing::ExitedWithCode(0),
              "^scanlab emu: ignoring SCANLAB_EMU_WORKERS=two \\(not a valid value\\)\n"
              "scanlab emu: ignoring SCANLAB_EMU_STACK_KB=8 \\(not a valid value\\)\n"
              "workers 1, stack_bytes 65536\n$");
}

TEST_F(Emu, SwitchCostIsMeasured) {
  const double ns = measure_switch_ns(100000);
  EXPECT_GT(ns, 0.0);
  EXPECT_LT(ns, 10000.0);
}


// The modelled devices (SCANLAB_EMU_DEVICES): CUDA's answers for a bad ordinal, a device as its own
// peer, and peer access enabled twice; peer access is one direction.
TEST(EmuDeathTest, EnvironmentSetsTheDevices) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto child = [](const char* devices) {
    ::setenv("SCANLAB_EMU_DEVICES", devices, 1);
    std::fprintf(stderr, "devices %d\n", scanlab::emu::device_count());
    std::_Exit(0);
  };
  EXPECT_EXIT(child("3"), ::testing::ExitedWithCode(0), "^devices 3\n$");
  EXPECT_EXIT(child("17"), ::testing::ExitedWithCode(0),
              "^scanlab emu: ignoring SCANLAB_EMU_DEVICES=17 \\(not a valid value\\)\ndevices 1\n$");
}

TEST_F(Emu, DevicesAnswerAsCudaDoes) {
  using scanlab::emu::DeviceStatus;
  namespace e = scanlab::emu;
  e::settings().devices = 3;
  e::reset_devices();
  EXPECT_EQ(e::device_count(), 3);
  EXPECT_EQ(e::current_device(), 0);
  EXPECT_EQ(e::set_device(3), DeviceStatus::invalid_device);
  EXPECT_EQ(e::set_device(-1), DeviceStatus::invalid_device);
  EXPECT_EQ(e::set_device(2), DeviceStatus::ok);
  EXPECT_EQ(e::current_device(), 2);
  EXPECT_FALSE(e::can_access_peer(2, 2));
  EXPECT_TRUE(e::can_access_peer(2, 0));
  EXPECT_FALSE(e::can_access_peer(2, 3));
  EXPECT_EQ(e::enable_peer_access(2), DeviceStatus::invalid_device);
  EXPECT_FALSE(e::peer_access_enabled(2, 0));
  EXPECT_EQ(e::enable_peer_access(0), DeviceStatus::ok);
  EXPECT_EQ(e::enable_peer_access(0), DeviceStatus::peer_access_already_enabled);
  EXPECT_TRUE(e::peer_access_enabled(2, 0));
  EXPECT_FALSE(e::peer_access_enabled(0, 2)) << "peer access is one direction";
  EXPECT_TRUE(e::peer_access_enabled(1, 1)) << "a device's own memory";
  EXPECT_EQ(e::disable_peer_access(0), DeviceStatus::ok);
  EXPECT_EQ(e::disable_peer_access(0), DeviceStatus::peer_access_not_enabled);
  EXPECT_STREQ(e::device_status_text(DeviceStatus::invalid_device), "cudaErrorInvalidDevice: invalid device ordinal");
  e::reset_devices();
  EXPECT_EQ(e::current_device(), 0);
}

}  // namespace
}  // namespace emu_test
