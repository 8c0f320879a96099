// Test kernels for cooperative groups and libcu++'s atomics (common/emu/cuda_headers/) under the
// emulator's checks: each is wrong on purpose, and the emulator must say where.
#include "kernel_launch.hpp"

#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cuda/atomic>

namespace emu_test {

namespace {

namespace cg = cooperative_groups;

int g_group_lines[8] = {};
/// Records the line of the call that follows on the same line: `HERE(k) block.sync();`.
#define HERE(k) g_group_lines[k] = __LINE__;

/// block.sync() and cg::sync(block) at two places: barrier divergence, as with __syncthreads().
__global__ void group_divergence_kernel() {
  cg::thread_block block = cg::this_thread_block();
  if (block.thread_rank() < 16) {
    HERE(0) block.sync();
  } else {
    HERE(1) cg::sync(block);
  }
}

/// Rank 3 of each tile of 16 returns before the tile's scan, whose shuffles name it.
__global__ void tile_lane_exits_kernel(int* out) {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  if (tile.thread_rank() == 3) return;
  int v = static_cast<int>(threadIdx.x);
  HERE(2) v = cg::inclusive_scan(tile, v);
  out[threadIdx.x] = v;
}

/// A look-back that waits for a status nobody publishes.
__global__ void never_published_kernel(unsigned long long* status) {
  if (threadIdx.x != 0) return;
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> flag(*status);
  HERE(3) while (flag.load(cuda::memory_order_acquire) == 0) {
  }
}

/// A load cannot release (C++ leaves it undefined).
__global__ void release_load_kernel(int* x) {
  cuda::atomic_ref<int, cuda::thread_scope_device> r(*x);
  HERE(4) x[1] = r.load(cuda::memory_order_release);
}

/// Block 1 writes `data` and publishes it through a flag (a cuda::atomic_ref store); block 0 waits
/// for the flag, then reads the data. Release and acquire order the plain accesses; relaxed orders
/// nothing: a data race, which race mode's TSan reports (the emulator itself runs it either way).
__global__ void flag_handoff_kernel(int* data, unsigned* flag, int* seen, bool relaxed) {
  if (threadIdx.x != 0) return;
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> published(*flag);
  if (blockIdx.x == 1) {
    *data = 42;
    published.store(1, relaxed ? cuda::memory_order_relaxed : cuda::memory_order_release);
  } else {
    while (published.load(relaxed ? cuda::memory_order_relaxed : cuda::memory_order_acquire) == 0) {
    }
    HERE(5) *seen = *data;
  }
}

}  // namespace

int flag_handoff(bool relaxed) {
  int data = 0, seen = -1;
  unsigned flag = 0;
  run("flag_handoff", {2, 1, 1}, {32, 1, 1}, 0, [&] { flag_handoff_kernel(&data, &flag, &seen, relaxed); });
  return seen;
}

void group_divergence() { run("group_divergence", {1, 1, 1}, {32, 1, 1}, 0, [] { group_divergence_kernel(); }); }

void tile_lane_exits() {
  std::vector<int> out(32);
  run("tile_lane_exits", {1, 1, 1}, {32, 1, 1}, 0, [&] { tile_lane_exits_kernel(out.data()); });
}

void never_published() {
  unsigned long long status = 0;
  run("never_published", {1, 1, 1}, {32, 1, 1}, 0, [&] { never_published_kernel(&status); });
}

void release_load() {
  int x[2] = {5, 0};
  run("release_load", {1, 1, 1}, {1, 1, 1}, 0, [&] { release_load_kernel(x); });
}

int group_line(int which) { return g_group_lines[which]; }

}  // namespace emu_test
