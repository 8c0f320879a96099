// The CUDA compatibility suite: each kernel of compat_kernels.cuh on every backend this program is
// linked with (cpu always; cuda where the build has nvcc, skipped without a GPU), checked against the
// values CUDA gives (the CUDA C++ Programming Guide's definitions, and the CUDA Math API's for the
// integer intrinsics). A construct nvcc takes that the cpu backend cannot compile is checked by the
// test `EmuCompat.extern_shared_build_error` (CMakeLists.txt) instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <ostream>
#include <cstdio>
#include <string>
#include <vector>

#include "compat.hpp"
#include "scanlab/error.hpp"

namespace scanlab::emu_compat {

/// How GoogleTest (and so ctest's test names) shows a backend.
void PrintTo(const CompatBackend& backend, std::ostream* os) { *os << backend.name; }

namespace {

class EmuCompat : public ::testing::TestWithParam<CompatBackend> {
 protected:
  void SetUp() override {
    try {
      GetParam().require();
    } catch (const NoDeviceError& e) {
      GTEST_SKIP() << e.what();
    }
  }
};

TEST_P(EmuCompat, AtomicsTakeCudasOverloadsAndConversions) {
  const AtomicTotals a = GetParam().atomics();
  constexpr int kThreads = kAtomicBlocks * kAtomicThreads;  // g = 0 .. 127
  for (unsigned b = 0; b < kAtomicBlocks; ++b) EXPECT_EQ(a.flags[b], kAtomicThreads) << "block " << b;
  EXPECT_EQ(a.add_int, kThreads);
  EXPECT_EQ(a.add_unsigned, 2u * kThreads);
  EXPECT_EQ(a.add_ull, 8128ull + (1ull << 32));  // 0 + 1 + ... + 127, and 2^32 once
  EXPECT_EQ(a.add_float, 128.0f);
  EXPECT_EQ(a.add_double, 64.0);
  EXPECT_EQ(a.sub_int, -kThreads);
  EXPECT_EQ(a.sub_unsigned, 1000u - 3u * kThreads);
  EXPECT_EQ(a.min_int, 5 - 127);
  EXPECT_EQ(a.max_int, 127 - 100);
  EXPECT_EQ(a.min_unsigned, 7u);
  EXPECT_EQ(a.max_unsigned, 3u * 127);
  EXPECT_EQ(a.min_ll, -(1ll << 40));
  EXPECT_EQ(a.max_ll, 127);
  EXPECT_EQ(a.min_ull, 1ull << 33);
  EXPECT_EQ(a.max_ull, (1ull << 33) + 127);
  // And cleared every even bit of all ones, Or set every odd bit of 0; Xor of 1 .. 128 is 128.
  EXPECT_EQ(static_cast<unsigned>(a.and_int), 0xAAAAAAAAu);
  EXPECT_EQ(static_cast<unsigned>(a.or_int), 0xAAAAAAAAu);
  EXPECT_EQ(a.xor_int, 128);
  EXPECT_EQ(a.and_unsigned, 0xAAAAAAAAu);
  EXPECT_EQ(a.or_unsigned, 0xAAAAAAAAu);
  EXPECT_EQ(a.xor_unsigned, 128u);
  EXPECT_EQ(static_cast<unsigned long long>(a.and_ll), 0xAAAAAAAAAAAAAAAAull);
  EXPECT_EQ(static_cast<unsigned long long>(a.or_ll), 0xAAAAAAAAAAAAAAAAull);
  EXPECT_EQ(a.xor_ll, 128 + (1ll << 40));
  EXPECT_EQ(a.and_ull, 0xAAAAAAAAAAAAAAAAull);
  EXPECT_EQ(a.or_ull, 0xAAAAAAAAAAAAAAAAull);
  EXPECT_EQ(a.xor_ull, 128 + (1ull << 40));
  EXPECT_EQ(a.cas_int, kThreads);
  EXPECT_EQ(a.cas_unsigned, 128u);
  EXPECT_EQ(a.cas_ull, 128u);
  EXPECT_EQ(a.cas_ushort, 128u);
  // atomicInc(9) counts 0, 1, ..., 9, 0, ...; atomicDec(9) counts 0, 9, 8, ..., 1, 0, 9, ...
  EXPECT_EQ(a.inc, 128u % 10);
  EXPECT_EQ(a.dec, (10u - 128u % 10) % 10);
  EXPECT_EQ(a.exch_int_old, -5);
  EXPECT_EQ(a.exch_int, 7);
  EXPECT_EQ(a.exch_unsigned_old, 3u);
  EXPECT_EQ(a.exch_unsigned, 9u);
  EXPECT_EQ(a.exch_ull_old, 1ull << 40);
  EXPECT_EQ(a.exch_ull, 2u);
  EXPECT_EQ(a.exch_float_old, 1.5f);
  EXPECT_EQ(a.exch_float, 2.0f);
  EXPECT_EQ(a.cas_fail_old, 5);  // atomicCAS returns the old value, swapped or not
  EXPECT_EQ(a.cas_fail, 5);
}

// References for the intrinsics, bit by bit, as the CUDA Math API defines them.
int ffs_reference(unsigned long long x, int bits) {
  for (int i = 0; i < bits; ++i)
    if ((x >> i) & 1) return i + 1;
  return 0;
}
int popc_reference(unsigned long long x, int bits) {
  int count = 0;
  for (int i = 0; i < bits; ++i) count += static_cast<int>((x >> i) & 1);
  return count;
}
int clz_reference(unsigned long long x, int bits) {
  int count = 0;
  for (int i = bits - 1; i >= 0 && ((x >> i) & 1) == 0; --i) ++count;
  return count;
}
unsigned long long brev_reference(unsigned long long x, int bits) {
  unsigned long long r = 0;
  for (int i = 0; i < bits; ++i)
    if ((x >> i) & 1) r |= 1ull << (bits - 1 - i);
  return r;
}

TEST_P(EmuCompat, IntegerIntrinsicsMatchCudaForEveryInputIncludingZero) {
  const std::vector<unsigned long long> inputs = {
      0, 1, 2, 3, 0x80, 0x80000000ull, 0xFFFFFFFFull, 0x12345678ull, 0x100000000ull, 1ull << 63,
      ~0ull, 0xF0F0F0F000000000ull, 0x0123456789ABCDEFull, 0xFFFFFFFF00000000ull, 0x7FFFFFFFull};
  const std::vector<unsigned long long> out = GetParam().intrinsics(inputs);
  ASSERT_EQ(out.size(), 8 * inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const unsigned long long x = inputs[i], low = x & 0xFFFFFFFFull;
    const unsigned long long* o = &out[8 * i];
    SCOPED_TRACE("input 0x" + [&] {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%llx", x);
      return std::string(buffer);
    }());
    EXPECT_EQ(o[0], static_cast<unsigned long long>(ffs_reference(low, 32))) << "__ffs";
    EXPECT_EQ(o[1], static_cast<unsigned long long>(ffs_reference(x, 64))) << "__ffsll";
    EXPECT_EQ(o[2], static_cast<unsigned long long>(popc_reference(low, 32))) << "__popc";
    EXPECT_EQ(o[3], static_cast<unsigned long long>(popc_reference(x, 64))) << "__popcll";
    EXPECT_EQ(o[4], static_cast<unsigned long long>(clz_reference(low, 32))) << "__clz";
    EXPECT_EQ(o[5], static_cast<unsigned long long>(clz_reference(x, 64))) << "__clzll";
    EXPECT_EQ(o[6], brev_reference(low, 32)) << "__brev";
    EXPECT_EQ(o[7], brev_reference(x, 64)) << "__brevll";
  }
  // The values the CUDA Math API states for 0, and a few by hand.
  EXPECT_EQ(out[0], 0u);                      // __ffs(0)
  EXPECT_EQ(out[1], 0u);                      // __ffsll(0)
  EXPECT_EQ(out[4], 32u);                     // __clz(0)
  EXPECT_EQ(out[5], 64u);                     // __clzll(0)
  EXPECT_EQ(out[8 * 1 + 6], 0x80000000u);     // __brev(1)
  EXPECT_EQ(out[8 * 1 + 7], 1ull << 63);      // __brevll(1)
  EXPECT_EQ(out[8 * 5 + 0], 32u);             // __ffs(INT_MIN)
  EXPECT_EQ(out[8 * 5 + 4], 0u);              // __clz(INT_MIN)
  EXPECT_EQ(out[8 * 9 + 1], 64u);             // __ffsll(LLONG_MIN)
  EXPECT_EQ(out[8 * 10 + 3], 64u);            // __popcll(~0)
}

TEST_P(EmuCompat, DynamicSharedMemoryViewedThroughTwoTypesIsOneBuffer) {
  constexpr unsigned kThreads = 64;
  const std::vector<int> out = GetParam().dynamic_shared_views(kThreads);
  ASSERT_EQ(out.size(), kThreads);
  for (unsigned t = 0; t < kThreads; ++t) EXPECT_EQ(out[t], 100 + static_cast<int>(kThreads - 1 - t)) << t;
}

TEST_P(EmuCompat, ExternSharedArraysOfTwoTypesAreOneBuffer) {
  constexpr unsigned kThreads = 64;
  const std::vector<int> out = GetParam().extern_shared_views(kThreads);
  ASSERT_EQ(out.size(), kThreads);
  for (unsigned t = 0; t < kThreads; ++t) EXPECT_EQ(out[t], 100 + static_cast<int>(kThreads - 1 - t)) << t;
}

// A static __shared__ array in bounds (both backends), then, on the emulator only (a GPU reads or
// writes whatever lies there), just past its end and far from either end: each a memory error that
// names the array, the element, the block and the thread.
TEST_P(EmuCompat, StaticSharedArrayOutOfBoundsIsAMemoryErrorNamingIt) {
  const std::vector<int> in_bounds = GetParam().static_shared_reach(63, 2);
  ASSERT_EQ(in_bounds.size(), 1 + kReachThreads);
  EXPECT_EQ(in_bounds[0], 3 * 63);
  for (unsigned t = 0; t < kReachThreads; ++t) EXPECT_EQ(in_bounds[1 + t], t == 2 ? -1 : 3 * static_cast<int>(t)) << t;
  if (GetParam().set_devices == nullptr) GTEST_SKIP() << "on a GPU these accesses are undefined";
  const auto error_of = [&](int read_at, int write_at) -> std::string {
    try {
      GetParam().static_shared_reach(read_at, write_at);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string array = "of the static __shared__ array values (declared at compat_kernels.cuh:";
  const std::string past = error_of(64, 0);
  EXPECT_NE(past.find("memory error: kernel 'static_shared_reach_kernel', block 0, thread 7 read past the end " + array),
            std::string::npos) << past;
  EXPECT_NE(past.find("a 64-element array of 4-byte elements (element 64 = N+0)"), std::string::npos) << past;
  const std::string before = error_of(-100000, 0);
  EXPECT_NE(before.find("thread 7 read before the start " + array), std::string::npos) << before;
  EXPECT_NE(before.find("(element -100000)"), std::string::npos) << before;
  const std::string far = error_of(0, 1 << 20);
  EXPECT_NE(far.find("thread 7 wrote past the end " + array), std::string::npos) << far;
  EXPECT_NE(far.find("(element 1048576 = N+1048512)"), std::string::npos) << far;
  EXPECT_EQ(GetParam().static_shared_reach(1, 3)[0], 3);  // a launch after the faults runs as before
}

TEST_P(EmuCompat, PrintfInAKernelPrintsEveryThreadsLine) {
  ::testing::internal::CaptureStdout();
  GetParam().print();
  std::fflush(stdout);
  const std::string printed = ::testing::internal::GetCapturedStdout();
  std::string expected;
  for (int t = 0; t < 4; ++t)
    expected += "compat printf: block 0 thread " + std::to_string(t) + " value " + std::to_string(40 + t) + "\n";
  if (std::string(GetParam().name) == "cpu") {
    EXPECT_EQ(printed, expected);  // whole lines, in thread order (the emulator's default order)
  } else {
    // A GPU keeps each printf's line whole but promises no order between threads.
    std::string sorted = printed;
    std::sort(sorted.begin(), sorted.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(sorted, expected) << printed;
  }
}

TEST_P(EmuCompat, WarpVotesShufflesAndCountingBarriersStillWork) {
  const std::vector<unsigned> out = GetParam().warp_and_block();
  ASSERT_EQ(out.size(), kWarpValues * kWarpThreads);
  for (unsigned t = 0; t < kWarpThreads; ++t) {
    const unsigned* o = &out[kWarpValues * t];
    const unsigned lane = t % 32;
    SCOPED_TRACE("thread " + std::to_string(t));
    EXPECT_EQ(o[0], 0x55555555u) << "__ballot_sync of the even lanes";
    EXPECT_NE(o[1], 0u) << "__any_sync(lane == 31)";
    EXPECT_EQ(o[2], 0u) << "__all_sync(lane < 31)";
    EXPECT_EQ(o[3], lane == 0 ? t : t - 1) << "__shfl_up_sync(t, 1): lane 0 keeps its own";
    EXPECT_EQ(o[4], t ^ 1u) << "__shfl_xor_sync(t, 1)";
    EXPECT_EQ(o[5], 0xFFFFFFFFu) << "__activemask()";
    EXPECT_EQ(o[6], 32u) << "__syncthreads_count(even)";
    EXPECT_NE(o[7], 0u) << "__syncthreads_and(true)";
    EXPECT_NE(o[8], 0u) << "__syncthreads_or(t == 5)";
  }
}

// ---- cooperative groups ---------------------------------------------------------------------------

TEST_P(EmuCompat, CooperativeGroupsBlockAndTilesRankShuffleAndVote) {
  const std::vector<unsigned> out = GetParam().groups();
  ASSERT_EQ(out.size(), kGroupValues * kGroupThreads * kGroupBlocks);
  for (unsigned b = 0; b < kGroupBlocks; ++b) {
    for (unsigned r = 0; r < kGroupThreads; ++r) {
      const unsigned* o = &out[kGroupValues * (b * kGroupThreads + r)];
      SCOPED_TRACE("block " + std::to_string(b) + ", thread_rank " + std::to_string(r));
      const unsigned lane = r % 32, warp_base = r - lane;
      EXPECT_EQ(o[0], r) << "block.thread_rank(): threadIdx.x + blockDim.x * threadIdx.y";
      EXPECT_EQ(o[1], kGroupThreads) << "block.size()";
      EXPECT_EQ(o[2], kGroupThreads) << "block.num_threads()";
      EXPECT_EQ(o[3], b) << "block.group_index().x";
      EXPECT_EQ(o[4], r / kGroupBlockX) << "block.thread_index().y";
      EXPECT_EQ(o[5], kGroupBlockX) << "block.dim_threads().x";
      EXPECT_EQ(o[6], kGroupBlockY) << "block.group_dim().y";
      EXPECT_EQ(o[7], 3 * (kGroupThreads - 1 - r)) << "written before block.sync(), read after";
      // tiled_partition<32>(block): a warp.
      EXPECT_EQ(o[8], lane) << "warp.thread_rank()";
      EXPECT_EQ(o[9], r / 32) << "warp.meta_group_rank()";
      EXPECT_EQ(o[10], kGroupThreads / 32) << "warp.meta_group_size()";
      EXPECT_EQ(o[11], 32u) << "warp.size()";
      EXPECT_EQ(o[12], warp_base + 3) << "warp.shfl(r, 3)";
      EXPECT_EQ(o[13], lane >= 1 ? r - 1 : r) << "warp.shfl_up(r, 1): rank 0 keeps its own";
      EXPECT_EQ(o[14], lane + 2 < 32 ? r + 2 : r) << "warp.shfl_down(r, 2): ranks 30, 31 keep their own";
      EXPECT_EQ(o[15], warp_base + (lane ^ 5u)) << "warp.shfl_xor(r, 5)";
      EXPECT_EQ(o[16], 0x49249249u) << "warp.ballot(rank % 3 == 0)";
      EXPECT_EQ(o[17], 1u) << "warp.any(rank == 7)";
      EXPECT_EQ(o[18], 0u) << "warp.all(rank < 31)";
      EXPECT_EQ(o[19], 1u) << "warp.all(1)";
      // tiled_partition<16>(block).
      const unsigned half_rank = r % 16, half_base = r - half_rank;
      EXPECT_EQ(o[20], half_rank) << "half.thread_rank()";
      EXPECT_EQ(o[21], r / 16) << "half.meta_group_rank()";
      EXPECT_EQ(o[22], kGroupThreads / 16) << "half.meta_group_size()";
      EXPECT_EQ(o[23], half_rank + 1 < 16 ? r + 1 : r) << "half.shfl_down(r, 1): the width is the tile's";
      EXPECT_EQ(o[24], 0x5555u) << "half.ballot(rank even): bit i is the tile's rank i";
      EXPECT_EQ(o[25], half_base + 15) << "half.shfl(r, 15)";
      // tiled_partition<4>(warp): a tile of a tile.
      EXPECT_EQ(o[26], r % 4) << "quad.thread_rank()";
      EXPECT_EQ(o[27], lane / 4) << "quad.meta_group_rank(): in its parent, the warp";
      EXPECT_EQ(o[28], 8u) << "quad.meta_group_size()";
      EXPECT_EQ(o[29], r ^ 1u) << "quad.shfl_xor(r, 1)";
      EXPECT_EQ(o[30], 4u) << "quad.ballot(rank == 2)";
      EXPECT_EQ(o[31], 1u) << "quad.any(rank == 3)";
      // tiled_partition<2>(block), and the free functions.
      EXPECT_EQ(o[32], r % 2 == 1 ? r - 1 : r) << "pair.shfl_up(r, 1)";
      EXPECT_EQ(o[33], 1u) << "pair.all(rank < 2)";
      EXPECT_EQ(o[34], half_rank) << "cg::thread_rank(half)";
      EXPECT_EQ(o[35], 16u) << "cg::group_size(half)";
    }
  }
}

/// The inputs of the collectives: small integers of both signs (every sum is exact in float).
std::vector<int> collective_inputs() {
  std::vector<int> in(kCollectiveThreads);
  for (unsigned i = 0; i < kCollectiveThreads; ++i) in[i] = static_cast<int>((i * 37 + 11) % 29) - 9;
  return in;
}

TEST_P(EmuCompat, CooperativeGroupsReduceAndScansGiveCudasValues) {
  const std::vector<int> in = collective_inputs();
  const std::vector<double> out = GetParam().collectives(in);
  ASSERT_EQ(out.size(), kCollectiveValues * kCollectiveThreads);
  auto bits_of = [&](unsigned r) { return (1u << (r % 32)) | (static_cast<unsigned>(in[r]) << 20); };
  for (unsigned r = 0; r < kCollectiveThreads; ++r) {
    const double* o = &out[kCollectiveValues * r];
    SCOPED_TRACE("thread " + std::to_string(r));
    // The tile's values, in rank order, for tiles of `size` threads.
    auto tile = [&](unsigned size) {
      const unsigned first = r - r % size;
      return std::vector<int>(in.begin() + first, in.begin() + first + size);
    };
    const std::vector<int> warp = tile(32), eighth = tile(8), half = tile(16);
    const unsigned rank = r % 32, first = r - rank;
    long long sum = 0;
    int low = INT_MAX, high = INT_MIN;
    unsigned all = ~0u, any = 0, parity = 0;
    for (unsigned k = 0; k < 32; ++k) {
      sum += warp[k];
      low = std::min(low, warp[k]);
      high = std::max(high, warp[k]);
      all &= ~bits_of(first + k);
      any |= bits_of(first + k);
      parity ^= bits_of(first + k);
    }
    EXPECT_EQ(o[0], static_cast<double>(sum)) << "cg::reduce(warp, v, cg::plus<int>())";
    EXPECT_EQ(o[1], static_cast<double>(low + 100)) << "cg::reduce with cg::less: the minimum";
    EXPECT_EQ(o[2], static_cast<double>(high)) << "cg::reduce with cg::greater: the maximum";
    EXPECT_EQ(o[3], static_cast<double>(all)) << "cg::reduce with cg::bit_and";
    EXPECT_EQ(o[4], static_cast<double>(any)) << "cg::reduce with cg::bit_or";
    EXPECT_EQ(o[5], static_cast<double>(parity)) << "cg::reduce with cg::bit_xor";
    EXPECT_EQ(o[6], 0.5 * static_cast<double>(sum)) << "cg::reduce(warp, float, cg::plus<float>())";
    long long sum8 = 0;
    for (int x : eighth) sum8 += x;
    EXPECT_EQ(o[7], static_cast<double>(sum8)) << "cg::reduce over a tile of 8";
    EXPECT_EQ(o[8], static_cast<double>(sum8)) << "cg::reduce over a tile of 8, doubles";
    long long prefix = 0;
    int running_max = INT_MIN, running_min = INT_MAX;
    for (unsigned k = 0; k < rank; ++k) {
      prefix += warp[k];
      running_min = std::min(running_min, warp[k]);
    }
    for (unsigned k = 0; k <= rank; ++k) running_max = std::max(running_max, warp[k]);
    EXPECT_EQ(o[9], static_cast<double>(prefix + warp[rank])) << "cg::inclusive_scan(warp, v)";
    EXPECT_EQ(o[10], static_cast<double>(running_max)) << "cg::inclusive_scan with cg::greater";
    EXPECT_EQ(o[11], static_cast<double>(prefix)) << "cg::exclusive_scan(warp, v): rank 0 gets 0";
    // Rank 0 of an exclusive scan gets a value-initialized T (CUDA 13's header returns `{}`).
    EXPECT_EQ(o[12], rank == 0 ? 0.0 : static_cast<double>(running_min)) << "cg::exclusive_scan with cg::less";
    int max8 = INT_MIN;
    for (unsigned k = 0; k <= r % 8; ++k) max8 = std::max(max8, eighth[k]);
    EXPECT_EQ(o[13], static_cast<double>(max8)) << "cg::inclusive_scan over a tile of 8 with a lambda";
    double prefix16 = 0;
    for (unsigned k = 0; k < r % 16; ++k) prefix16 += 0.25 * half[k];
    EXPECT_EQ(o[14], prefix16) << "cg::exclusive_scan over a tile of 16, doubles";
    // op(a, b) = b, not commutative: a left-to-right scan would give the thread's own value; CUDA
    // combines op(own partial, lower ranks' partial), which gives the tile's first value everywhere.
    EXPECT_EQ(o[15], static_cast<double>(warp[0])) << "cg::inclusive_scan's operand order: op(own, lower ranks)";
  }
}

TEST_P(EmuCompat, BlockScanOfWarpInclusiveScans) {
  const unsigned n = 3 * kBlockScanThreads + 77;  // a partial last block
  std::vector<int> in(n);
  for (unsigned i = 0; i < n; ++i) in[i] = static_cast<int>((i * 7919u) % 101) - 50;
  const std::vector<int> out = GetParam().block_scan(in);
  ASSERT_EQ(out.size(), n);
  int running = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (i % kBlockScanThreads == 0) running = 0;  // each block scans its own section
    running += in[i];
    ASSERT_EQ(out[i], running) << "element " << i;
  }
}

TEST_P(EmuCompat, LookBackScanWithCudaAtomicRefAcquireAndRelease) {
  const unsigned n = 16 * kLookbackThreads - 37;
  std::vector<int> in(n);
  for (unsigned i = 0; i < n; ++i) in[i] = static_cast<int>((i * 31u) % 17) - 5;
  const auto [out, status] = GetParam().lookback_scan(in);
  ASSERT_EQ(out.size(), n);
  int running = 0;
  for (unsigned i = 0; i < n; ++i) {
    running += in[i];
    ASSERT_EQ(out[i], running) << "element " << i;
  }
  ASSERT_EQ(status.size(), 16u);
  for (unsigned t = 0; t < status.size(); ++t) {
    const unsigned end = std::min(n, (t + 1) * kLookbackThreads);
    int prefix = 0;
    for (unsigned i = 0; i < end; ++i) prefix += in[i];
    EXPECT_EQ(status[t] >> 32, 2u) << "tile " << t << " published its inclusive prefix";
    EXPECT_EQ(static_cast<int>(static_cast<unsigned>(status[t])), prefix) << "tile " << t;
  }
}

// ---- cuda::atomic_ref, cuda::std::atomic_ref, cuda::atomic ---------------------------------------

TEST_P(EmuCompat, CudaAtomicRefAndAtomicWithMemoryOrders) {
  const CudaAtomicTotals a = GetParam().cuda_atomics();
  constexpr int kThreads = 128;  // g = 0 .. 127, 2 blocks of 64
  EXPECT_EQ(a.add_int, kThreads);
  EXPECT_EQ(a.sub_unsigned, 1000u - 3u * kThreads);
  EXPECT_EQ(a.add_float, 64.0f);
  EXPECT_EQ(a.add_double, 32.0);
  EXPECT_EQ(a.add_ull, 8128ull + (1ull << 40));
  EXPECT_EQ(a.max_int, 127 - 100) << "fetch_max";
  EXPECT_EQ(a.min_int, 5 - 127) << "fetch_min";
  EXPECT_EQ(a.max_ull, (1ull << 33) + 127);
  EXPECT_EQ(a.min_unsigned, 7u);
  EXPECT_EQ(a.max_float, 63.5f);
  EXPECT_EQ(a.min_double, -127.0);
  EXPECT_EQ(a.and_unsigned, 0xAAAAAAAAu);
  EXPECT_EQ(a.or_unsigned, 0xAAAAAAAAu);
  EXPECT_EQ(a.xor_unsigned, 128u);  // 1 ^ 2 ^ ... ^ 128
  EXPECT_EQ(a.and_ull, 0xAAAAAAAAAAAAAAAAull);
  EXPECT_EQ(a.or_ull, 0xAAAAAAAAAAAAAAAAull);
  EXPECT_EQ(a.xor_ull, 128ull << 32);
  EXPECT_EQ(a.cas_strong_int, kThreads) << "compare_exchange_strong loops (acq_rel, acquire)";
  EXPECT_EQ(a.cas_weak_ull, 128u) << "compare_exchange_weak loops";
  EXPECT_EQ(a.cas_relaxed_acquire, 2u * kThreads) << "compare_exchange_weak loops (relaxed, acquire)";
  EXPECT_EQ(a.exch_int_old, -5);
  EXPECT_EQ(a.exch_int, 7);
  EXPECT_EQ(a.cas_fail_result, 0) << "compare_exchange_strong(1, 2) on 5 fails";
  EXPECT_EQ(a.cas_fail_expected, 5) << "and loads the value into `expected`";
  EXPECT_EQ(a.cas_fail, 5);
  EXPECT_EQ(a.stored, 42);
  EXPECT_EQ(a.loaded, 42) << "a release store, then an acquire load";
  EXPECT_EQ(a.system_int, kThreads);
  EXPECT_EQ(a.std_unsigned, 2u * kThreads);
  EXPECT_EQ(a.ops_int, 3 * kThreads) << "++r, r += 3, r -= 1, r++, r--";
  for (int b = 0; b < 2; ++b) {
    EXPECT_EQ(a.block_ref[b], 128) << "block " << b << ": atomic_ref of block scope on a __shared__ int";
    EXPECT_EQ(a.block_atomic[b], 128) << "block " << b << ": a __shared__ cuda::atomic";
    EXPECT_EQ(a.block_std_atomic[b], 74) << "block " << b << ": a __shared__ cuda::std::atomic";
  }
}

// Several GPUs of one host: a kernel reads another device's memory once peer access is enabled, and
// copy_peer moves data between devices. The cpu backend models 2 devices here; a GPU machine needs two.
TEST_P(EmuCompat, PeerAccessLetsAKernelReadAnotherDevicesMemory) {
  if (GetParam().set_devices != nullptr) GetParam().set_devices(2);
  if (GetParam().device_count() < 2) GTEST_SKIP() << "this machine has one GPU: peer access needs two";
  const std::vector<int> out = GetParam().peer_read(1000, true);
  ASSERT_EQ(out.size(), 1000u);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(out[i], 2 * i) << "element " << i;
  if (GetParam().set_devices != nullptr) GetParam().set_devices(1);
}

// Only the emulator: on a GPU a read of another device's memory without peer access is an illegal
// address that ruins the context. The emulator says what is missing, in one line.
TEST_P(EmuCompat, ThePeerReadWithoutPeerAccessIsAClearError) {
  if (GetParam().set_devices == nullptr) GTEST_SKIP() << "on a GPU this read would fault";
  GetParam().set_devices(2);
  try {
    GetParam().peer_read(10, false);
    ADD_FAILURE() << "the launch read device 1's memory from device 0 without peer access";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "kernel 'peer_double_kernel' on device 0 is given memory of device 1 (argument 1) but peer access is "
                 "not enabled: call enable_peer_access(1) on device 0 first (cudaDeviceEnablePeerAccess)");
  }
  try {
    GetParam().launch_into_other_devices_stream();
    ADD_FAILURE() << "a launch on device 0 went into a stream of device 1";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("into a stream of device 1"), std::string::npos) << e.what();
  }
  GetParam().set_devices(1);
  EXPECT_EQ(GetParam().device_count(), 1);
  try {
    GetParam().peer_read(10, true);
    ADD_FAILURE() << "device 1 of a one-device model was used";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "device 1 does not exist: there are 1");
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, EmuCompat, ::testing::ValuesIn(linked_backends()),
                         [](const ::testing::TestParamInfo<CompatBackend>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace scanlab::emu_compat
