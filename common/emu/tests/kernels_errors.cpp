// Test kernels that are wrong on purpose: barrier divergence, deadlocks, bad warp operations.
#include <vector>

#include "kernel_launch.hpp"

namespace emu_test {

namespace {

int g_lines[16] = {};
/// Records the line of the call that follows on the same line: `HERE(k) __syncwarp();`.
#define HERE(k) g_lines[k] = __LINE__;

__global__ void divergence_kernel() {
  if (threadIdx.x < 16) {
    HERE(0) __syncthreads();
  } else {
    HERE(1) __syncthreads();
  }
}

/// A 4x2x2 block: in block (1,0,1) only, the threads of z = 1 go to other barriers than those of
/// z = 0, and thread (1,1,1) to a third one. The other blocks are right, and finish.
__global__ void divergence_3d_kernel() {
  const bool odd_block = blockIdx.x == 1 && blockIdx.y == 0 && blockIdx.z == 1;
  if (!odd_block || threadIdx.z == 0) {
    HERE(10) __syncthreads();
  } else if (threadIdx.x == 1 && threadIdx.y == 1) {
    HERE(12) __syncthreads();
  } else {
    HERE(11) __syncthreads();
  }
}

__global__ void warp_error_kernel(WarpError which) {
  const unsigned lane = threadIdx.x % warpSize;
  const int slot = 2 + static_cast<int>(which);
  if (threadIdx.x < 32) return;  // warp 0 is not involved (except in the deadlock)
  int v = static_cast<int>(threadIdx.x);
  switch (which) {
    case WarpError::mask_leaves_out_caller:
      HERE(slot) __syncwarp(lane == 5 ? 0x1u : kFull);
      break;
    case WarpError::mask_names_exited_lane:
      if (lane == 0) return;
      HERE(slot) __syncwarp();
      break;
    case WarpError::lane_exits_while_waited_for:
      if (lane == 7) return;
      HERE(slot) __syncwarp();
      break;
    case WarpError::reads_lane_outside_mask:
      if (lane >= 16) return;
      HERE(slot) v = __shfl_sync(0x0000ffffu, v, 20);
      break;
    case WarpError::different_masks:
      HERE(slot) v = __shfl_sync(lane == 0 ? 0x3u : kFull, v, 0);
      break;
    case WarpError::different_ops:
      if (lane % 2 == 0) {
        __syncwarp();
      } else {
        HERE(slot) v = static_cast<int>(__ballot_sync(kFull, 1));
      }
      break;
    case WarpError::never_arrives_barrier:
      break;
    case WarpError::bad_width:
      HERE(slot) v = __shfl_sync(kFull, v, 0, 3);
      break;
  }
  (void)v;
}

__global__ void deadlock_kernel() {
  const unsigned lane = threadIdx.x % warpSize;
  int v = static_cast<int>(threadIdx.x);
  if (threadIdx.x >= 32 && lane < 16) {
    HERE(2 + static_cast<int>(WarpError::never_arrives_barrier)) v = __shfl_sync(kFull, v, 0);
  }
  HERE(15) __syncthreads();
  (void)v;
}

__global__ void exit_then_barrier_kernel(int* out) {
  if (threadIdx.x >= 16) return;
  out[threadIdx.x] = static_cast<int>(threadIdx.x);
  __syncthreads();
  const int mirrored = out[15 - threadIdx.x];
  __syncthreads();
  out[threadIdx.x] += mirrored;
}

/// Recursion that needs far more than a fiber stack: every level keeps a 512-byte array alive and
/// hands it to the next, so the compiler can neither drop the arrays nor turn the recursion into a
/// loop. Each level's frame is smaller than a page, so the overflow lands in the guard page.
[[gnu::noinline]] __device__ int deep(int depth, volatile char* caller) {
  volatile char frame[512];
  frame[0] = static_cast<char>(caller[0] + 1);
  frame[511] = frame[0];
  if (depth == 0) return frame[511];
  return deep(depth - 1, frame) + frame[511];
}

__global__ void deep_recursion_kernel(unsigned bad_block, unsigned bad_thread, int* out) {
  const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  volatile char start = 0;
  __syncthreads();
  if (b == bad_block && t == bad_thread) *out = deep(1 << 20, &start);
  __syncthreads();
}

// Null, but the compiler must not know it: with a local null pointer, g++ -O2 drops the store.
int* volatile g_nowhere = nullptr;

__global__ void null_write_kernel() {
  __syncthreads();
  if (threadIdx.x == 1) *g_nowhere = 1;
}

}  // namespace

void deep_recursion(Extent3 grid, Extent3 block, unsigned bad_block, unsigned bad_thread) {
  int out = 0;
  run("deep_recursion", grid, block, 0, [&] { deep_recursion_kernel(bad_block, bad_thread, &out); });
}

void null_write() { run("null_write", {1, 1, 1}, {32, 1, 1}, 0, [] { null_write_kernel(); }); }

void warp_error(WarpError which) {
  if (which == WarpError::never_arrives_barrier) {
    run("deadlock", {1, 1, 1}, {64, 1, 1}, 0, [] { deadlock_kernel(); });
    return;
  }
  run("warp_error", {1, 1, 1}, {64, 1, 1}, 0, [=] { warp_error_kernel(which); });
}

void barrier_divergence() { run("divergence", {2, 1, 1}, {64, 1, 1}, 0, [] { divergence_kernel(); }); }

void barrier_divergence_3d() { run("divergence_3d", {2, 1, 2}, {4, 2, 2}, 0, [] { divergence_3d_kernel(); }); }

int divergence_line(int which) { return g_lines[which]; }
int divergence_3d_line(int which) { return g_lines[10 + which]; }

int warp_error_line(WarpError which) { return g_lines[2 + static_cast<int>(which)]; }
int deadlock_barrier_line() { return g_lines[15]; }

void barrier_after_some_exit(std::vector<int>& out) {
  out.assign(64, -1);
  run("exit_then_barrier", {1, 1, 1}, {64, 1, 1}, 0, [&] { exit_then_barrier_kernel(out.data()); });
}

}  // namespace emu_test
