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
