// The compatibility suite's kernels: CUDA as the CUDA C++ Programming Guide and the book write it,
// one small kernel per part of the device API, compiled by nvcc (cuda backend) and by the host
// compiler (cpu backend) from this one source. test_compat.cpp checks what they compute against the
// values CUDA gives.
#pragma once

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda/atomic>
#include <cuda/std/atomic>

#include "compat.hpp"
#include "scanlab/kernel.hpp"

namespace cg = cooperative_groups;

namespace scanlab::emu_compat {

/// 32-bit and 64-bit And/Or/Xor on one set of variables: And clears the even bits of all ones, Or
/// sets the odd bits of zero, Xor combines g + 1 over all threads (and bit 40 of the 64-bit ones).
template <class T>
__device__ void bit_atomics(T* and_v, T* or_v, T* xor_v, int g) {
  constexpr int kBits = 8 * sizeof(T);
  atomicAnd(and_v, ~(T(1) << (2 * (g % (kBits / 2)))));
  atomicOr(or_v, T(1) << (2 * (g % (kBits / 2)) + 1));
  atomicXor(xor_v, g + 1);  // an int, converted as nvcc converts it
  if constexpr (kBits == 64) {
    if (g == 0) atomicXor(xor_v, T(1) << 40);
  }
}

/// Every atomic with the arguments students write: int literals and ints on unsigned, 64-bit and
/// floating-point variables (which a template atomicAdd(T*, T) cannot take).
__global__ void atomics_kernel(AtomicTotals* a) {
  const int g = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  atomicAdd(&a->flags[blockIdx.x], 1);  // the domino scan's flag, an unsigned*
  atomicAdd(&a->add_int, 1);
  atomicAdd(&a->add_unsigned, 2);
  atomicAdd(&a->add_ull, g);
  if (g == 0) atomicAdd(&a->add_ull, 1ull << 32);
  atomicAdd(&a->add_float, 1);
  atomicAdd(&a->add_double, 0.5f);
  atomicSub(&a->sub_int, 1);
  atomicSub(&a->sub_unsigned, 3);
  atomicMin(&a->min_int, 5 - g);
  atomicMax(&a->max_int, g - 100);
  atomicMin(&a->min_unsigned, g + 7);
  atomicMax(&a->max_unsigned, g * 3);
  atomicMin(&a->min_ll, -g);
  if (g == 0) atomicMin(&a->min_ll, -(1ll << 40));
  atomicMax(&a->max_ll, g);
  atomicMin(&a->min_ull, (1ull << 33) + g);
  atomicMax(&a->max_ull, (1ull << 33) + g);
  bit_atomics(&a->and_int, &a->or_int, &a->xor_int, g);
  bit_atomics(&a->and_unsigned, &a->or_unsigned, &a->xor_unsigned, g);
  bit_atomics(&a->and_ll, &a->or_ll, &a->xor_ll, g);
  bit_atomics(&a->and_ull, &a->or_ull, &a->xor_ull, g);

  // Counters incremented by compare-and-swap loops, as the Programming Guide builds other atomics.
  int old_i = a->cas_int, seen_i;
  while ((seen_i = atomicCAS(&a->cas_int, old_i, old_i + 1)) != old_i) old_i = seen_i;
  unsigned old_u = a->cas_unsigned, seen_u;
  while ((seen_u = atomicCAS(&a->cas_unsigned, old_u, old_u + 1)) != old_u) old_u = seen_u;
  unsigned long long old_l = a->cas_ull, seen_l;
  while ((seen_l = atomicCAS(&a->cas_ull, old_l, old_l + 1)) != old_l) old_l = seen_l;
  unsigned short old_s = a->cas_ushort, seen_s;
  while ((seen_s = atomicCAS(&a->cas_ushort, old_s, static_cast<unsigned short>(old_s + 1))) != old_s) {
    old_s = seen_s;
  }

  atomicInc(&a->inc, 9);
  atomicDec(&a->dec, 9);
  if (g == 0) {
    a->exch_int_old = atomicExch(&a->exch_int, 7);
    a->exch_unsigned_old = atomicExch(&a->exch_unsigned, 9);
    a->exch_ull_old = atomicExch(&a->exch_ull, 2);
    a->exch_float_old = atomicExch(&a->exch_float, 2);
    a->cas_fail_old = atomicCAS(&a->cas_fail, 1, 2);  // 5 is not 1: no swap
  }
  __threadfence_system();
}

/// The integer intrinsics, on inputs read through the read-only data cache.
__global__ void intrinsics_kernel(const unsigned long long* in, unsigned long long* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long x = __ldg(&in[i]);
  const unsigned low = static_cast<unsigned>(x);
  unsigned long long* o = out + 8 * i;
  o[0] = __ffs(static_cast<int>(low));
  o[1] = __ffsll(static_cast<long long>(x));
  o[2] = __popc(low);
  o[3] = __popcll(x);
  o[4] = __clz(low);  // an unsigned mask, converted to the int that __clz takes
  o[5] = __clzll(static_cast<long long>(x));
  o[6] = __brev(low);
  o[7] = __brevll(x);
}

/// Two views of one block's dynamic shared memory: ints written through the first, read back
/// (reversed) through a second pointer to the same bytes.
__global__ void dynamic_shared_views_kernel(int* out) {
  unsigned char* bytes = scanlab::dynamic_shared<unsigned char>();
  int* written = reinterpret_cast<int*>(bytes);
  const unsigned t = threadIdx.x;
  written[t] = 100 + static_cast<int>(t);
  __syncthreads();
  const int* read = reinterpret_cast<const int*>(scanlab::dynamic_shared<float>());
  out[t] = read[blockDim.x - 1 - t];
}

/// The same as the book declares dynamic shared memory: `extern __shared__` arrays of two types, which
/// (in CUDA) all start at the block's dynamic shared memory. The cpu backend builds it through
/// common/cmake/cpu_sources.py.
__global__ void extern_shared_views_kernel(int* out) {
  // extern __shared__ named in a comment just above: the declaration below is still rewritten.
  extern __shared__ int written[];
  const unsigned t = threadIdx.x;
  written[t] = 100 + static_cast<int>(t);
  __syncthreads();
  extern __shared__ float same_bytes[];
  const int* read = reinterpret_cast<const int*>(same_bytes);
  out[t] = read[blockDim.x - 1 - t];
}

/// A static `__shared__` array reached at indices the host gives: thread 7 reads element `read_at`
/// and writes -1 to element `write_at`, then every thread copies the array out (after out[0], the
/// value read). In bounds, a GPU gives the same; out of bounds, the cpu backend names the array.
__global__ void static_shared_reach_kernel(int* out, int read_at, int write_at) {
  __shared__ int values[kReachThreads];
  values[threadIdx.x] = 3 * static_cast<int>(threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 7) {
    out[0] = values[read_at];
    values[write_at] = -1;
  }
  __syncthreads();
  out[1 + threadIdx.x] = values[threadIdx.x];
}

__global__ void printf_kernel(int value) {
  printf("compat printf: block %u thread %u value %d\n", blockIdx.x, threadIdx.x, value + static_cast<int>(threadIdx.x));
}

/// Warp votes and shuffles, __activemask and the counting barriers.
__global__ void warp_and_block_kernel(unsigned* out) {
  const unsigned t = threadIdx.x, lane = t % warpSize;
  const unsigned full = 0xffffffffu;
  unsigned* o = out + kWarpValues * t;
  o[0] = __ballot_sync(full, lane % 2 == 0);
  o[1] = static_cast<unsigned>(__any_sync(full, lane == 31));
  o[2] = static_cast<unsigned>(__all_sync(full, lane < 31));
  o[3] = __shfl_up_sync(full, t, 1);
  o[4] = __shfl_xor_sync(full, t, 1);
  o[5] = __activemask();
  o[6] = static_cast<unsigned>(__syncthreads_count(t % 2 == 0));
  o[7] = static_cast<unsigned>(__syncthreads_and(t < 64));
  o[8] = static_cast<unsigned>(__syncthreads_or(t == 5));
}

// ---- cooperative groups ---------------------------------------------------------------------------

/// this_thread_block() and tiles of 32, 16, 4 (a tile of a tile) and 2 threads: their ranks and
/// sizes, shuffles and votes, and the block's barrier. A 2-D block, so that ranks are linear ids.
__global__ void groups_kernel(unsigned* out) {
  __shared__ unsigned reversed[kGroupThreads];
  cg::thread_block block = cg::this_thread_block();
  const unsigned r = block.thread_rank();
  unsigned* o = out + kGroupValues * (blockIdx.x * kGroupThreads + r);
  o[0] = r;
  o[1] = block.size();
  o[2] = block.num_threads();
  o[3] = block.group_index().x;
  o[4] = block.thread_index().y;
  o[5] = block.dim_threads().x;
  o[6] = block.group_dim().y;
  reversed[r] = 3 * r;
  block.sync();
  o[7] = reversed[block.size() - 1 - r];
  cg::sync(block);

  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  o[8] = warp.thread_rank();
  o[9] = warp.meta_group_rank();
  o[10] = warp.meta_group_size();
  o[11] = warp.size();
  o[12] = warp.shfl(r, 3);
  o[13] = warp.shfl_up(r, 1);
  o[14] = warp.shfl_down(r, 2);
  o[15] = warp.shfl_xor(r, 5);
  o[16] = warp.ballot(warp.thread_rank() % 3 == 0);
  o[17] = static_cast<unsigned>(warp.any(warp.thread_rank() == 7));
  o[18] = static_cast<unsigned>(warp.all(warp.thread_rank() < 31));
  o[19] = static_cast<unsigned>(warp.all(1));
  warp.sync();

  auto half = cg::tiled_partition<16>(block);
  o[20] = half.thread_rank();
  o[21] = half.meta_group_rank();
  o[22] = half.meta_group_size();
  o[23] = half.shfl_down(r, 1);
  o[24] = half.ballot(half.thread_rank() % 2 == 0);
  o[25] = half.shfl(r, 15);

  cg::thread_block_tile<4> quad = cg::tiled_partition<4>(warp);  // a tile of a tile
  o[26] = quad.thread_rank();
  o[27] = quad.meta_group_rank();
  o[28] = quad.meta_group_size();
  o[29] = quad.shfl_xor(r, 1);
  o[30] = quad.ballot(quad.thread_rank() == 2);
  o[31] = static_cast<unsigned>(quad.any(quad.thread_rank() == 3));
  cg::sync(quad);

  auto pair = cg::tiled_partition<2>(block);
  o[32] = pair.shfl_up(r, 1);
  o[33] = static_cast<unsigned>(pair.all(pair.thread_rank() < 2));
  o[34] = cg::thread_rank(half);
  o[35] = cg::group_size(half);
}

/// An operator that keeps its right operand: associative, not commutative. CUDA's tile scans combine
/// op(this thread's partial, the partial of lower ranks), so its result shows that order.
struct KeepRight {
  __device__ int operator()(int, int b) const { return b; }
};

/// cg::reduce with each of cg's operators, the scans with and without an operator, a lambda, over
/// tiles of 32, 16 and 8 threads.
__global__ void collectives_kernel(const int* in, double* out) {
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  auto half = cg::tiled_partition<16>(block);
  auto eighth = cg::tiled_partition<8>(block);
  const unsigned r = block.thread_rank();
  const int v = in[r];
  const unsigned bits = (1u << (r % 32)) | (static_cast<unsigned>(v) << 20);
  double* o = out + kCollectiveValues * r;
  o[0] = cg::reduce(warp, v, cg::plus<int>());
  o[1] = cg::reduce(warp, static_cast<unsigned>(v + 100), cg::less<unsigned>());
  o[2] = cg::reduce(warp, v, cg::greater<int>());
  o[3] = cg::reduce(warp, ~bits, cg::bit_and<unsigned>());
  o[4] = cg::reduce(warp, bits, cg::bit_or<unsigned>());
  o[5] = cg::reduce(warp, bits, cg::bit_xor<unsigned>());
  o[6] = cg::reduce(warp, 0.5f * static_cast<float>(v), cg::plus<float>());
  o[7] = cg::reduce(eighth, v, cg::plus<int>());
  o[8] = cg::reduce(eighth, static_cast<double>(v), cg::plus<double>());
  o[9] = cg::inclusive_scan(warp, v);
  o[10] = cg::inclusive_scan(warp, v, cg::greater<int>());
  o[11] = cg::exclusive_scan(warp, v);
  o[12] = cg::exclusive_scan(warp, v, cg::less<int>());
  o[13] = cg::inclusive_scan(eighth, v, [](int a, int b) { return a > b ? a : b; });
  o[14] = cg::exclusive_scan(half, 0.25 * v, cg::plus<double>());
  o[15] = cg::inclusive_scan(warp, v, KeepRight());
}

/// A block's inclusive scan of one value per thread, built of warp scans (a realistic use of
/// cg::inclusive_scan): each warp scans its values; the warps' totals go to shared memory, the
/// first warp scans them (exclusive), and every thread adds the total of the warps before its own.
/// `warp_totals` holds one int per warp. Returns the thread's inclusive prefix; `block_total` gets
/// the sum of the block's values.
__device__ int block_inclusive_scan(cg::thread_block block, int value, int* warp_totals, int& block_total) {
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int in_warp = cg::inclusive_scan(warp, value);
  if (warp.thread_rank() == warp.size() - 1) warp_totals[warp.meta_group_rank()] = in_warp;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    const bool is_warp = warp.thread_rank() < warp.meta_group_size();
    const int total = is_warp ? warp_totals[warp.thread_rank()] : 0;
    const int before = cg::exclusive_scan(warp, total);
    const int all = cg::reduce(warp, total, cg::plus<int>());
    warp.sync();  // every lane has read warp_totals before any overwrites it
    if (is_warp) warp_totals[warp.thread_rank()] = before;
    if (warp.thread_rank() == 0) warp_totals[warp.meta_group_size()] = all;
  }
  block.sync();
  const int inclusive = warp_totals[warp.meta_group_rank()] + in_warp;
  block_total = warp_totals[warp.meta_group_size()];
  block.sync();  // warp_totals may be reused after this
  return inclusive;
}

/// Each block scans its own section of kBlockScanThreads elements (inclusive); past n, 0.
__global__ void block_scan_kernel(const int* in, int* out, unsigned n) {
  __shared__ int warp_totals[kBlockScanThreads / 32 + 1];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int total;
  const int scanned = block_inclusive_scan(cg::this_thread_block(), i < n ? in[i] : 0, warp_totals, total);
  if (i < n) out[i] = scanned;
}

/// A tile's status word in the look-back: the flag in the high half, the value in the low half.
constexpr unsigned long long kStatusAggregate = 1ull << 32, kStatusPrefix = 2ull << 32;
__device__ inline unsigned long long status_word(unsigned long long flag, int value) {
  return flag | static_cast<unsigned>(value);
}

/// A single-pass inclusive scan with a decoupled look-back (Merrill and Garland; the book's Sec. 11.8):
/// each block takes the next tile (a ticket, so that tiles start in order), scans it, publishes its
/// total with a release store, then walks back over its predecessors' status words with acquire
/// loads (waiting while one has published nothing) until it finds an inclusive prefix, and publishes
/// its own. All through cuda::atomic_ref on plain words of device memory.
__global__ void lookback_scan_kernel(const int* in, int* out, unsigned long long* status, unsigned* ticket,
                                     unsigned n) {
  __shared__ int warp_totals[kLookbackThreads / 32 + 1];
  __shared__ unsigned tile_shared;
  __shared__ int exclusive_shared;
  cg::thread_block block = cg::this_thread_block();
  if (block.thread_rank() == 0) {
    tile_shared = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*ticket).fetch_add(1, cuda::memory_order_relaxed);
  }
  block.sync();
  const unsigned tile = tile_shared;
  const unsigned i = tile * kLookbackThreads + block.thread_rank();
  int total;
  const int inclusive = block_inclusive_scan(block, i < n ? in[i] : 0, warp_totals, total);
  if (block.thread_rank() == 0) {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> mine(status[tile]);
    int exclusive = 0;
    if (tile == 0) {
      mine.store(status_word(kStatusPrefix, total), cuda::memory_order_release);
    } else {
      mine.store(status_word(kStatusAggregate, total), cuda::memory_order_release);
      for (unsigned j = tile; j-- > 0;) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> before(status[j]);
        unsigned long long seen;
        while (((seen = before.load(cuda::memory_order_acquire)) >> 32) == 0) {
        }
        exclusive += static_cast<int>(static_cast<unsigned>(seen));
        if ((seen & ~0xFFFFFFFFull) == kStatusPrefix) break;
      }
      mine.store(status_word(kStatusPrefix, exclusive + total), cuda::memory_order_release);
    }
    exclusive_shared = exclusive;
  }
  block.sync();
  if (i < n) out[i] = exclusive_shared + inclusive;
}

// ---- cuda::atomic_ref, cuda::std::atomic_ref, cuda::atomic ---------------------------------------

/// libcu++'s atomics with the memory orders kernels give them, on global and shared memory.
__global__ void cuda_atomics_kernel(CudaAtomicTotals* a) {
  using cuda::thread_scope_device;
  const int g = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  cuda::atomic_ref<int, thread_scope_device>(a->add_int).fetch_add(1, cuda::memory_order_relaxed);
  cuda::atomic_ref<unsigned, thread_scope_device>(a->sub_unsigned).fetch_sub(3, cuda::memory_order_release);
  cuda::atomic_ref<float, thread_scope_device>(a->add_float).fetch_add(0.5f, cuda::memory_order_relaxed);
  cuda::atomic_ref<double, thread_scope_device>(a->add_double).fetch_add(0.25, cuda::memory_order_acq_rel);
  cuda::atomic_ref<unsigned long long, thread_scope_device> add_ull(a->add_ull);
  add_ull.fetch_add(static_cast<unsigned long long>(g), cuda::memory_order_seq_cst);
  if (g == 0) add_ull.fetch_add(1ull << 40);
  cuda::atomic_ref<int, thread_scope_device>(a->max_int).fetch_max(g - 100, cuda::memory_order_relaxed);
  cuda::atomic_ref<int, thread_scope_device>(a->min_int).fetch_min(5 - g);
  cuda::atomic_ref<unsigned long long, thread_scope_device>(a->max_ull).fetch_max((1ull << 33) + g);
  cuda::atomic_ref<unsigned, thread_scope_device>(a->min_unsigned).fetch_min(static_cast<unsigned>(g) + 7u);
  cuda::atomic_ref<float, thread_scope_device>(a->max_float).fetch_max(0.5f * static_cast<float>(g));
  cuda::atomic_ref<double, thread_scope_device>(a->min_double).fetch_min(-static_cast<double>(g));
  const unsigned odd = 1u << (2 * (g % 16) + 1);
  cuda::atomic_ref<unsigned, thread_scope_device>(a->and_unsigned).fetch_and(~(odd >> 1), cuda::memory_order_relaxed);
  cuda::atomic_ref<unsigned, thread_scope_device>(a->or_unsigned).fetch_or(odd, cuda::memory_order_relaxed);
  cuda::atomic_ref<unsigned, thread_scope_device>(a->xor_unsigned).fetch_xor(static_cast<unsigned>(g + 1));
  const unsigned long long odd64 = 1ull << (2 * (g % 32) + 1);
  cuda::atomic_ref<unsigned long long, thread_scope_device>(a->and_ull).fetch_and(~(odd64 >> 1));
  cuda::atomic_ref<unsigned long long, thread_scope_device>(a->or_ull).fetch_or(odd64);
  cuda::atomic_ref<unsigned long long, thread_scope_device>(a->xor_ull).fetch_xor(static_cast<unsigned long long>(g + 1) << 32);

  // Counters incremented by compare-exchange loops (a failed one loads the current value).
  cuda::atomic_ref<int, thread_scope_device> strong(a->cas_strong_int);
  int seen_i = strong.load(cuda::memory_order_relaxed);
  while (!strong.compare_exchange_strong(seen_i, seen_i + 1, cuda::memory_order_acq_rel, cuda::memory_order_acquire)) {
  }
  cuda::atomic_ref<unsigned long long, thread_scope_device> weak(a->cas_weak_ull);
  unsigned long long seen_l = weak.load();
  while (!weak.compare_exchange_weak(seen_l, seen_l + 1)) {
  }
  cuda::atomic_ref<unsigned, thread_scope_device> relaxed_acquire(a->cas_relaxed_acquire);
  unsigned seen_u = relaxed_acquire.load(cuda::memory_order_acquire);
  while (!relaxed_acquire.compare_exchange_weak(seen_u, seen_u + 2, cuda::memory_order_relaxed, cuda::memory_order_acquire)) {
  }

  if (g == 0) {
    a->exch_int_old = cuda::atomic_ref<int, thread_scope_device>(a->exch_int).exchange(7, cuda::memory_order_acq_rel);
    int expected = 1;  // the value is 5: no swap, and expected becomes 5
    a->cas_fail_result = cuda::atomic_ref<int, thread_scope_device>(a->cas_fail).compare_exchange_strong(expected, 2) ? 1 : 0;
    a->cas_fail_expected = expected;
    cuda::atomic_ref<int, thread_scope_device> stored(a->stored);
    stored.store(42, cuda::memory_order_release);
    stored.wait(41, cuda::memory_order_acquire);  // 42 is not 41: returns at once
    a->loaded = stored.load(cuda::memory_order_acquire);
  }

  cuda::atomic_ref<int, cuda::thread_scope_system>(a->system_int).fetch_add(1);
  cuda::std::atomic_ref<unsigned>(a->std_unsigned).fetch_add(2u, cuda::std::memory_order_relaxed);
  cuda::std::atomic_ref<int> ops(a->ops_int);
  ++ops;
  ops += 3;
  ops -= 1;
  ops++;
  ops--;  // + 3 in all

  // Shared memory: an atomic_ref of block scope, and atomic objects.
  __shared__ int block_count;
  __shared__ cuda::atomic<int, cuda::thread_scope_block> block_atomic;
  __shared__ cuda::std::atomic<int> block_std_atomic;
  if (threadIdx.x == 0) {
    block_count = 0;
    block_atomic.store(0, cuda::memory_order_relaxed);
    block_std_atomic = 10;
  }
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_block>(block_count).fetch_add(2, cuda::memory_order_relaxed);
  block_atomic.fetch_add(1, cuda::memory_order_relaxed);
  ++block_atomic;
  block_atomic.fetch_max(-1);
  block_std_atomic.fetch_add(1);
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_block);
  cuda::std::atomic_thread_fence(cuda::std::memory_order_acq_rel);
  __syncthreads();
  if (threadIdx.x == 0) {
    a->block_ref[blockIdx.x] = cuda::atomic_ref<int, cuda::thread_scope_block>(block_count).load();
    a->block_atomic[blockIdx.x] = block_atomic.load(cuda::memory_order_acquire);
    a->block_std_atomic[blockIdx.x] = block_std_atomic;
  }
}

/// out[i] = 2 * in[i]: `in` may be another device's memory (peer access).
__global__ void peer_double_kernel(const int* in, int* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

}  // namespace scanlab::emu_compat
