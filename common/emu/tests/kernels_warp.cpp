// Test kernels: warp shuffles, votes, __syncwarp, __activemask.
#include <vector>

#include "kernel_launch.hpp"

namespace emu_test {

namespace {

__global__ void shuffle_kernel(int* out, int width, int delta, int xor_mask) {
  const int v = static_cast<int>(threadIdx.x) * 10;
  const int lane = static_cast<int>(threadIdx.x % warpSize);
  int* o = out + threadIdx.x * 4;
  o[0] = __shfl_sync(kFull, v, 31 - lane, width);
  o[1] = __shfl_up_sync(kFull, v, delta, width);
  o[2] = __shfl_down_sync(kFull, v, delta, width);
  o[3] = __shfl_xor_sync(kFull, v, xor_mask, width);
}

__global__ void shuffle_double_kernel(double* out) {
  out[threadIdx.x] = __shfl_xor_sync(kFull, threadIdx.x + 0.5, 1);
}

struct Pair {
  long long a, b;
};

__global__ void shuffle_struct_kernel(long long* out) {
  const Pair p{static_cast<long long>(threadIdx.x), -static_cast<long long>(threadIdx.x)};
  const Pair q = __shfl_xor_sync(kFull, p, 16);
  out[2 * threadIdx.x] = q.a;
  out[2 * threadIdx.x + 1] = q.b;
}

/// Even and odd lanes form two rendezvous at once in each warp.
__global__ void votes_kernel(unsigned* out) {
  const unsigned lane = threadIdx.x % warpSize;
  const unsigned mask = lane % 2 == 0 ? 0x55555555u : 0xaaaaaaaau;
  out[threadIdx.x * 3 + 0] = __ballot_sync(mask, lane % 3 == 0);
  out[threadIdx.x * 3 + 1] = static_cast<unsigned>(__any_sync(mask, lane == 21));
  out[threadIdx.x * 3 + 2] = static_cast<unsigned>(__all_sync(mask, lane < 31));
}

__global__ void one_warp_kernel(int* out) {
  int v = static_cast<int>(threadIdx.x);
  if (threadIdx.x >= 32) {  // warp 1 only; warp 0 is at the barrier meanwhile
    v = __shfl_down_sync(kFull, v, 1);
    __syncwarp();
    v += __shfl_sync(kFull, v, 0);
  }
  __syncthreads();
  out[threadIdx.x] = v;
}

__global__ void active_mask_kernel(unsigned* out, unsigned live) {
  if (threadIdx.x % warpSize >= live) return;
  __syncthreads();  // by now the other lanes have exited
  const unsigned mask = __activemask();
  __syncthreads();  // (and no live lane has exited yet when the others ask)
  out[threadIdx.x] = mask;
}

template <class Op>
__global__ void warp_scan_kernel(const int* in, int* out, Op op) {
  __shared__ int warp_totals[32];
  const unsigned lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  int v = in[threadIdx.x];
  for (unsigned d = 1; d < 32; d *= 2) {
    const int n = __shfl_up_sync(kFull, v, d);
    if (lane >= d) v = op(n, v);
  }
  if (lane == 31) warp_totals[warp] = v;
  __syncthreads();
  if (warp > 0) {
    int before = warp_totals[0];
    for (unsigned k = 1; k < warp; ++k) before = op(before, warp_totals[k]);
    v = op(before, v);
  }
  out[threadIdx.x] = v;
}

}  // namespace

std::vector<int> shuffles(unsigned threads, int width, int delta, int xor_mask) {
  std::vector<int> out(threads * 4, -1);
  run("shuffles", {1, 1, 1}, {threads, 1, 1}, 0, [&] { shuffle_kernel(out.data(), width, delta, xor_mask); });
  return out;
}

std::vector<double> shuffle_double(unsigned threads) {
  std::vector<double> out(threads, -1);
  run("shuffle_double", {1, 1, 1}, {threads, 1, 1}, 0, [&] { shuffle_double_kernel(out.data()); });
  return out;
}

std::vector<long long> shuffle_struct(unsigned threads) {
  std::vector<long long> out(threads * 2, -1);
  run("shuffle_struct", {1, 1, 1}, {threads, 1, 1}, 0, [&] { shuffle_struct_kernel(out.data()); });
  return out;
}

std::vector<unsigned> votes(unsigned threads) {
  std::vector<unsigned> out(threads * 3, 7);
  run("votes", {1, 1, 1}, {threads, 1, 1}, 0, [&] { votes_kernel(out.data()); });
  return out;
}

std::vector<int> only_one_warp_shuffles(unsigned threads) {
  std::vector<int> out(threads, -1);
  run("one_warp", {1, 1, 1}, {threads, 1, 1}, 0, [&] { one_warp_kernel(out.data()); });
  return out;
}

std::vector<unsigned> active_masks(unsigned threads, unsigned live) {
  std::vector<unsigned> out(threads, 0);
  run("active_masks", {1, 1, 1}, {threads, 1, 1}, 0, [&] { active_mask_kernel(out.data(), live); });
  return out;
}

std::vector<int> warp_scan(const std::vector<int>& in) {
  std::vector<int> out(in.size(), 0);
  run("warp_scan", {1, 1, 1}, {unsigned(in.size()), 1, 1}, 0,
      [&] { warp_scan_kernel(in.data(), out.data(), scanlab::Add<int>{}); });
  return out;
}

}  // namespace emu_test
