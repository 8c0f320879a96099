// Test kernels: the book's scans (for the operation counts and the race check), tracing, and the
// domino scan that must trip the watchdog when blocks run in reverse.
#include <atomic>
#include <vector>

#include "kernel_launch.hpp"
#include "scanlab/emu/wait_arrays.hpp"

namespace emu_test {

namespace {

constexpr unsigned kSection = 2048;

/// PMPP fig. 11.3, with the operator as an object. `second_barrier` false: the race the book warns of.
template <class Op>
__global__ void kogge_stone_kernel(const int* X, int* Y, unsigned n, bool second_barrier, Op op) {
  __shared__ int XY[1024];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  XY[threadIdx.x] = i < n ? X[i] : Op::identity();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    __syncthreads();
    int temp = 0;
    if (threadIdx.x >= stride) temp = op(XY[threadIdx.x - stride], XY[threadIdx.x]);
    if (second_barrier) __syncthreads();
    if (threadIdx.x >= stride) XY[threadIdx.x] = temp;
  }
  if (i < n) Y[i] = XY[threadIdx.x];
}

/// PMPP fig. 11.3 over a section of 2 * blockDim.x elements: thread t owns elements t and
/// t + blockDim.x. Two per thread because a CUDA block has at most 1024 threads, and the book's
/// count for N = 2048 needs one block over 2048 elements. Each element still receives one
/// application per stride below its index, so the work is the book's N log2 N - (N - 1): how the
/// elements are dealt out to threads does not change it. Same two barriers per step as above.
template <class Op>
__global__ void kogge_stone_two_per_thread_kernel(const int* X, int* Y, unsigned n, Op op) {
  __shared__ int XY[kSection];
  const unsigned section = 2 * blockDim.x;
  const unsigned lo = threadIdx.x, hi = threadIdx.x + blockDim.x;
  XY[lo] = lo < n ? X[lo] : Op::identity();
  XY[hi] = hi < n ? X[hi] : Op::identity();
  for (unsigned stride = 1; stride < section; stride *= 2) {
    __syncthreads();
    int temp_lo = 0, temp_hi = 0;
    if (lo >= stride) temp_lo = op(XY[lo - stride], XY[lo]);
    if (hi >= stride) temp_hi = op(XY[hi - stride], XY[hi]);
    __syncthreads();  // every read of this step before any write (the write-after-read race)
    if (lo >= stride) XY[lo] = temp_lo;
    if (hi >= stride) XY[hi] = temp_hi;
  }
  if (lo < n) Y[lo] = XY[lo];
  if (hi < n) Y[hi] = XY[hi];
}

/// PMPP fig. 11.4: a section of 2 * blockDim.x elements.
template <class Op>
__global__ void brent_kung_kernel(const int* X, int* Y, unsigned n, Op op) {
  __shared__ int XY[kSection];
  const unsigned section = 2 * blockDim.x;
  const unsigned i = 2 * blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) XY[threadIdx.x] = X[i];
  if (i + blockDim.x < n) XY[threadIdx.x + blockDim.x] = X[i + blockDim.x];
  for (unsigned stride = 1; stride <= blockDim.x; stride *= 2) {
    __syncthreads();
    const unsigned index = (threadIdx.x + 1) * 2 * stride - 1;
    if (index < section) XY[index] = op(XY[index - stride], XY[index]);
  }
  for (unsigned stride = section / 4; stride > 0; stride /= 2) {
    __syncthreads();
    const unsigned index = (threadIdx.x + 1) * stride * 2 - 1;
    if (index + stride < section) XY[index + stride] = op(XY[index], XY[index + stride]);
  }
  __syncthreads();
  if (i < n) Y[i] = XY[threadIdx.x];
  if (i + blockDim.x < n) Y[i + blockDim.x] = XY[threadIdx.x + blockDim.x];
}

// Where the kernel waits, for the tests to compare with the reports. Atomic: threads of two
// emulator workers write it at once (the same value; ThreadSanitizer still calls it a race).
std::atomic<int> g_traced_barrier_line{0};

/// Kogge-Stone with XY traced; two more elements are traced than written (they stay poison).
template <class Op>
__global__ void traced_kernel(const int* X, int* Y, Op op) {
  __shared__ int XY[1024];
  scanlab::trace_shared("XY", XY, blockDim.x + 2);
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  XY[threadIdx.x] = X[i];
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    g_traced_barrier_line.store(__LINE__ + 1, std::memory_order_relaxed);
    __syncthreads();
    int temp = 0;
    if (threadIdx.x >= stride) temp = op(XY[threadIdx.x - stride], XY[threadIdx.x]);
    __syncthreads();
    if (threadIdx.x >= stride) XY[threadIdx.x] = temp;
  }
  Y[i] = XY[threadIdx.x];
}

std::atomic<int> g_domino_spin_line{0};  // (atomic: see g_traced_barrier_line)

/// Block b adds its size to the running total of block b-1, which it waits for: correct only if
/// blocks run in order (the static blockIdx.x is the problem; the book's fix is a dynamic index).
__global__ void domino_kernel(int* sums, int* flags) {
  __shared__ int previous;
  if (threadIdx.x == 0) {
    int p = 0;
    if (blockIdx.x > 0) {
      g_domino_spin_line.store(__LINE__ + 1, std::memory_order_relaxed);
      while (atomicAdd(&flags[blockIdx.x - 1], 0) == 0) {
      }
      p = sums[blockIdx.x - 1];
    }
    previous = p;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    sums[blockIdx.x] = previous + static_cast<int>(blockDim.x);
    __threadfence();
    atomicExch(&flags[blockIdx.x], 1);
  }
}

__global__ void volatile_kernel(volatile int* flag) {
  if (threadIdx.x == 0) {
    while (*flag == 0) {
    }
  }
}

}  // namespace

std::vector<int> kogge_stone(const std::vector<int>& in, bool second_barrier) {
  std::vector<int> out(in.size(), 0);
  const unsigned n = unsigned(in.size());
  run("kogge_stone", {1, 1, 1}, {n, 1, 1}, 0,
      [&] { kogge_stone_kernel(in.data(), out.data(), n, second_barrier, scanlab::Add<int>{}); });
  return out;
}

std::vector<int> kogge_stone_two_per_thread(const std::vector<int>& in) {
  std::vector<int> out(in.size(), kPoisonInt);
  const unsigned n = unsigned(in.size());
  run("kogge_stone_two_per_thread", {1, 1, 1}, {(n + 1) / 2, 1, 1}, 0,
      [&] { kogge_stone_two_per_thread_kernel(in.data(), out.data(), n, scanlab::Add<int>{}); });
  return out;
}

std::vector<int> brent_kung(const std::vector<int>& in) {
  std::vector<int> out(in.size(), 0);
  const unsigned n = unsigned(in.size());
  run("brent_kung", {1, 1, 1}, {n / 2, 1, 1}, 0,
      [&] { brent_kung_kernel(in.data(), out.data(), n, scanlab::Add<int>{}); });
  return out;
}

std::vector<int> traced_kogge_stone(const std::vector<int>& in, unsigned blocks) {
  std::vector<int> out(in.size(), 0);
  const unsigned threads = unsigned(in.size()) / blocks;
  run("traced", {blocks, 1, 1}, {threads, 1, 1}, 0,
      [&] { traced_kernel(in.data(), out.data(), scanlab::Add<int>{}); });
  return out;
}

int traced_barrier_line() { return g_traced_barrier_line.load(); }

int add_outside_launch(int a, int b) { return scanlab::Add<int>{}(a, b); }

std::vector<int> domino(unsigned blocks, unsigned threads) {
  std::vector<int> sums(blocks, 0), flags(blocks, 0);
  // Named for the reports of a launch that never finishes (wait_arrays.hpp).
  const scanlab::emu::NamedWaitArray named("flags", flags.data(), sizeof(int), blocks, [](const void* flag) {
    // (an atomic read: with several workers the other blocks still run while the report is written)
    return __atomic_load_n(static_cast<const int*>(flag), __ATOMIC_RELAXED) != 0 ? std::string("set")
                                                                               : std::string("not set");
  });
  run("domino", {blocks, 1, 1}, {threads, 1, 1}, 0, [&] { domino_kernel(sums.data(), flags.data()); });
  return sums;
}

int domino_spin_line() { return g_domino_spin_line.load(); }

void volatile_spin() {
  int flag = 0;
  run("volatile_spin", {2, 1, 1}, {32, 1, 1}, 0, [&] { volatile_kernel(&flag); });
}

}  // namespace emu_test
