// The CUDA compatibility suite: kernels written as nvcc takes them (compat_kernels.cuh), built for
// both backends from one source (launch.cpp, as a section's kernel library is), run by
// test_compat.cpp and checked against the values CUDA gives. Shared by the host code of both builds.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "scanlab/algorithm.hpp"  // SCANLAB_EXPORT
#include "scanlab/section.hpp"    // SCANLAB_IF_LINKED_CUDA / _CPU

namespace scanlab::emu_compat {

/// Launch shape of the atomics kernel.
constexpr unsigned kAtomicBlocks = 2, kAtomicThreads = 64;

/// What atomics_kernel leaves in device memory (its starting values: see atomics_start()).
struct AtomicTotals {
  unsigned flags[kAtomicBlocks];  ///< atomicAdd(&flags[blockIdx.x], 1) on an unsigned*: an int literal
  int add_int;
  unsigned add_unsigned;
  unsigned long long add_ull;
  float add_float;
  double add_double;
  int sub_int;
  unsigned sub_unsigned;
  int min_int, max_int;
  unsigned min_unsigned, max_unsigned;
  long long min_ll, max_ll;
  unsigned long long min_ull, max_ull;
  int and_int, or_int, xor_int;
  unsigned and_unsigned, or_unsigned, xor_unsigned;
  long long and_ll, or_ll, xor_ll;
  unsigned long long and_ull, or_ull, xor_ull;
  int cas_int;  ///< each CAS counter: incremented once per thread by a CAS loop
  unsigned cas_unsigned;
  unsigned long long cas_ull;
  unsigned short cas_ushort;
  unsigned inc, dec;  ///< atomicInc / atomicDec(9) by every thread
  // Thread 0 alone: exchanges, and a CAS that fails. The old values they returned, then the values.
  int exch_int, exch_int_old;
  unsigned exch_unsigned, exch_unsigned_old;
  unsigned long long exch_ull, exch_ull_old;
  float exch_float, exch_float_old;
  int cas_fail, cas_fail_old;
};

/// The starting values of atomics_kernel's variables.
inline AtomicTotals atomics_start() {
  AtomicTotals a{};
  a.sub_unsigned = 1000;
  a.min_unsigned = 0xFFFFFFFFu;
  a.max_ll = -(1ll << 40);
  a.min_ull = ~0ull;
  a.and_int = -1;
  a.and_unsigned = ~0u;
  a.and_ll = -1;
  a.and_ull = ~0ull;
  a.exch_int = -5;
  a.exch_unsigned = 3;
  a.exch_ull = 1ull << 40;
  a.exch_float = 1.5f;
  a.cas_fail = 5;
  return a;
}

/// Launch shape of groups_kernel: 2 blocks of 32 x 3 threads (three warps, numbered x fastest).
constexpr unsigned kGroupBlocks = 2, kGroupBlockX = 32, kGroupBlockY = 3, kGroupThreads = kGroupBlockX * kGroupBlockY;
/// Values each thread of groups_kernel writes (see the kernel for which is which).
constexpr unsigned kGroupValues = 36;

/// collectives_kernel: one block of 64 threads; each thread writes kCollectiveValues results of
/// cg::reduce and the cg scans over tiles of 32, 16 and 8 threads, all as doubles (every value is an
/// integer small enough to be exact).
constexpr unsigned kReachThreads = 64;
constexpr unsigned kCollectiveThreads = 64, kCollectiveValues = 16;

/// block_scan_kernel's blocks (each scans its own section of kBlockScanThreads elements).
constexpr unsigned kBlockScanThreads = 256;
/// lookback_scan_kernel's tiles: one block of kLookbackThreads threads per kLookbackThreads elements.
constexpr unsigned kLookbackThreads = 128;

/// What cuda_atomics_kernel leaves in device memory: cuda::atomic_ref, cuda::std::atomic_ref and
/// cuda::atomic in shared memory, each operation with the memory orders a kernel gives them.
struct CudaAtomicTotals {
  int add_int;
  unsigned sub_unsigned;
  float add_float;
  double add_double;
  unsigned long long add_ull;
  int max_int, min_int;
  unsigned long long max_ull;
  unsigned min_unsigned;
  float max_float;
  double min_double;
  unsigned and_unsigned, or_unsigned, xor_unsigned;
  unsigned long long and_ull, or_ull, xor_ull;
  int cas_strong_int;             ///< a compare_exchange_strong loop per thread (acq_rel, acquire)
  unsigned long long cas_weak_ull;  ///< a compare_exchange_weak loop per thread (seq_cst)
  unsigned cas_relaxed_acquire;   ///< a loop with success relaxed, failure acquire
  // Thread 0 alone: an exchange, a failing compare-exchange, a release store and an acquire load.
  int exch_int, exch_int_old;
  int cas_fail, cas_fail_expected, cas_fail_result;
  int stored, loaded;
  int system_int;        ///< cuda::atomic_ref<int, cuda::thread_scope_system>::fetch_add
  unsigned std_unsigned; ///< cuda::std::atomic_ref<unsigned>::fetch_add
  int ops_int;           ///< the operators of cuda::std::atomic_ref: ++r, r += 3, r -= 1, r++, r--
  int block_ref[2];      ///< per block: cuda::atomic_ref<int, cuda::thread_scope_block> on a __shared__ int
  int block_atomic[2];   ///< per block: a __shared__ cuda::atomic<int, cuda::thread_scope_block>
  int block_std_atomic[2];  ///< per block: a __shared__ cuda::std::atomic<int>, then its fetch_max
};

inline CudaAtomicTotals cuda_atomics_start() {
  CudaAtomicTotals a{};
  a.sub_unsigned = 1000;
  a.max_int = -1000;
  a.min_unsigned = 0xFFFFFFFFu;
  a.max_float = -1.0f;
  a.and_unsigned = ~0u;
  a.and_ull = ~0ull;
  a.exch_int = -5;
  a.cas_fail = 5;
  return a;
}

/// One backend's runs of the suite's kernels.
struct CompatBackend {
  const char* name;
  /// Throws scanlab::NoDeviceError where this backend cannot run (the cuda backend without a GPU).
  void (*require)();
  AtomicTotals (*atomics)();
  /// For each input x: __ffs, __ffsll, __popc, __popcll, __clz, __clzll, __brev, __brevll of x (the
  /// 32-bit ones of its low 32 bits), read through __ldg.
  std::vector<unsigned long long> (*intrinsics)(const std::vector<unsigned long long>& inputs);
  /// A block of `threads` writes its ids as ints through one view of its dynamic shared memory
  /// (unsigned char plus casts), and every thread reads them back reversed through a second view.
  std::vector<int> (*dynamic_shared_views)(unsigned threads);
  /// The same, through two `extern __shared__` arrays (int, then float), as the book declares them.
  std::vector<int> (*extern_shared_views)(unsigned threads);
  /// static_shared_reach_kernel (one block of kReachThreads): the value read, then the array.
  std::vector<int> (*static_shared_reach)(int read_at, int write_at);
  /// printf from 4 threads of one block ("compat printf: block B thread T value V").
  void (*print)();
  /// Warp and block operations that worked before this suite: per thread of a 64-thread block,
  /// {__ballot_sync of even lanes, __any_sync, __all_sync, __shfl_up_sync(t, 1), __shfl_xor_sync(t, 1),
  ///  __activemask(), __syncthreads_count(even), __syncthreads_and(t < 64), __syncthreads_or(t == 5)}.
  std::vector<unsigned> (*warp_and_block)();
  /// cooperative_groups: this_thread_block() and tiles of 32, 16, 4 and 2 threads; per thread of
  /// groups_kernel, kGroupValues values (block-major).
  std::vector<unsigned> (*groups)();
  /// cg::reduce, cg::inclusive_scan, cg::exclusive_scan on `inputs` (kCollectiveThreads of them).
  std::vector<double> (*collectives)(const std::vector<int>& inputs);
  /// A block scan built of cg::inclusive_scan over warps: each block of kBlockScanThreads scans its
  /// own section of `inputs`.
  std::vector<int> (*block_scan)(const std::vector<int>& inputs);
  /// A single-pass scan of `inputs` with a decoupled look-back over tiles, through cuda::atomic_ref
  /// (release stores, acquire loads). Returns the scan, then each tile's final status word.
  std::pair<std::vector<int>, std::vector<unsigned long long>> (*lookback_scan)(const std::vector<int>& inputs);
  CudaAtomicTotals (*cuda_atomics)();
  /// Devices. The cpu backend's model: `set_devices(g)` makes it g devices, none with peer access
  /// (null on the cuda backend, whose devices are the machine's).
  void (*set_devices)(int devices);
  int (*device_count)();
  /// With at least 2 devices: 0 .. n-1 uploaded to device 0, copied to device 1 (copy_peer), and a
  /// kernel on device 0 reads device 1's copy through peer memory (after enable_peer_access(1) when
  /// `enable`) and writes 2 * each into device 0's memory; returns what it wrote. Throws what the
  /// launch throws (the cpu backend: a peer read without peer access).
  std::vector<int> (*peer_read)(unsigned n, bool enable);
  /// A kernel launched on device 0 into a stream of device 1 (the cpu backend refuses it).
  void (*launch_into_other_devices_stream)();
};

constexpr unsigned kWarpValues = 9, kWarpThreads = 64;

SCANLAB_EXPORT CompatBackend backend_cuda();
SCANLAB_EXPORT CompatBackend backend_cpu();

/// The backends this program was linked with.
inline std::vector<CompatBackend> linked_backends() {
  std::vector<CompatBackend> backends;
  SCANLAB_IF_LINKED_CUDA(backends.push_back(backend_cuda());)
  SCANLAB_IF_LINKED_CPU(backends.push_back(backend_cpu());)
  return backends;
}

}  // namespace scanlab::emu_compat
