// The compatibility suite's kernels: CUDA as the CUDA C++ Programming Guide and the book write it,
// one small kernel per part of the device API, compiled by nvcc (cuda backend) and by the host
// compiler (cpu backend) from this one source. test_compat.cpp checks what they compute against the
// values CUDA gives.
#pragma once

#include "compat.hpp"
#include "scanlab/kernel.hpp"

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
  extern __shared__ int written[];
  const unsigned t = threadIdx.x;
  written[t] = 100 + static_cast<int>(t);
  __syncthreads();
  extern __shared__ float same_bytes[];
  const int* read = reinterpret_cast<const int*>(same_bytes);
  out[t] = read[blockDim.x - 1 - t];
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

/// out[i] = 2 * in[i]: `in` may be another device's memory (peer access).
__global__ void peer_double_kernel(const int* in, int* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

}  // namespace scanlab::emu_compat
