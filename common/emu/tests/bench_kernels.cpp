// The workload of scanlab_emu_bench: a block-by-block Kogge-Stone scan, 1024 threads per block.
// Built into its own shared library with hidden visibility, like a section's kernels.
#include <chrono>
#include <vector>

#include "scanlab/kernel.hpp"
#include "scanlab/emu/runtime.hpp"

namespace {

template <class Op>
__global__ void kogge_stone_blocks(const float* in, float* out, unsigned n, Op op) {
  __shared__ float xy[1024];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  xy[threadIdx.x] = i < n ? in[i] : Op::identity();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    __syncthreads();
    float temp = xy[threadIdx.x];
    if (threadIdx.x >= stride) temp = op(xy[threadIdx.x - stride], temp);
    __syncthreads();
    xy[threadIdx.x] = temp;
  }
  if (i < n) out[i] = xy[threadIdx.x];
}

}  // namespace

/// Scans `n` ones block by block; returns the seconds taken, or -1 if a result is wrong.
extern "C" __attribute__((visibility("default"))) double scanlab_emu_bench_kogge_stone(unsigned n,
                                                                                         unsigned threads) {
  std::vector<float> in(n, 1.0f), out(n, 0.0f);
  const unsigned blocks = (n + threads - 1) / threads;
  const auto start = std::chrono::steady_clock::now();
  scanlab::emu::launch("kogge_stone_blocks", {blocks, 1, 1}, {threads, 1, 1}, 0, &scanlab::emu::detail::module_static_shared,
                       [&] { kogge_stone_blocks(in.data(), out.data(), n, scanlab::Add<float>{}); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (unsigned i = 0; i < n; ++i) {
    if (out[i] != static_cast<float>(i % threads + 1)) return -1;
  }
  return seconds;
}
