// Test kernels: built-in variables, shared memory, barriers, atomics, orders, errors in threads.
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kernel_launch.hpp"

namespace emu_test {

namespace {

__global__ void builtins_kernel(unsigned* out) {
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned* o = out + (b * blockDim.x * blockDim.y * blockDim.z + t) * 14;
  const unsigned values[14] = {threadIdx.x, threadIdx.y, threadIdx.z, blockIdx.x, blockIdx.y,
                               blockIdx.z,  blockDim.x,  blockDim.y,  blockDim.z, gridDim.x,
                               gridDim.y,   gridDim.z,   unsigned(warpSize), t / warpSize};
  for (int i = 0; i < 14; ++i) o[i] = values[i];
}

__device__ std::uint32_t* helper_array() {
  static __shared__ std::uint32_t helper[64];
  return helper;
}

__global__ void shared_kernel(std::uint32_t* out) {
  __shared__ std::uint32_t array[64];
  std::uint32_t* dynamic = scanlab::dynamic_shared<std::uint32_t>();
  const std::uint32_t a = array[threadIdx.x], h = helper_array()[threadIdx.x], d = dynamic[threadIdx.x];
  __syncthreads();
  array[threadIdx.x] = 7 + blockIdx.x;  // stale data for the next block, if it were not poisoned
  helper_array()[threadIdx.x] = 8 + blockIdx.x;
  dynamic[threadIdx.x] = 9 + blockIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) {
    out[blockIdx.x * 3 + 0] = a;
    out[blockIdx.x * 3 + 1] = h;
    out[blockIdx.x * 3 + 2] = d;
  }
}

/// A static __shared__ array in a device function: one array per block, not one per calling thread.
__device__ int* block_slots() {
  static __shared__ int slots[4];
  return slots;
}

__global__ void static_shared_kernel(int* seen, std::uintptr_t* addresses) {
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) block_slots()[1] = 1000 + static_cast<int>(blockIdx.x);
  __syncthreads();
  seen[g] = block_slots()[1];
  addresses[g] = reinterpret_cast<std::uintptr_t>(block_slots());
}

__global__ void reverse_kernel(const int* in, int* out) {
  __shared__ int tile[1024];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[blockDim.x - 1 - threadIdx.x];
}

__global__ void barrier_votes_kernel(int* out, unsigned live) {
  if (threadIdx.x >= live) return;  // exited threads take no part in the barriers
  const int p = threadIdx.x % 3 == 0;
  const int count = __syncthreads_count(p);
  const int all = __syncthreads_and(p);
  const int any = __syncthreads_or(p);
  const int all_true = __syncthreads_and(1);
  const int any_false = __syncthreads_or(0);
  if (threadIdx.x == 0) {
    out[0] = count;
    out[1] = all;
    out[2] = any;
    out[3] = all_true;
    out[4] = any_false;
  }
}

struct AtomicData {
  int sum = 0;
  float fsum = 0;
  double dsum = 0;
  int sub = 0;
  int max = -1;
  int min = 1 << 30;
  unsigned exch = 0;
  int cas = 0;
  unsigned inc = 0;
  unsigned dec = 5;
  unsigned bits_or = 0;
  unsigned bits_and = 0xffffffffu;
  unsigned bits_xor = 0;
};

__global__ void atomics_kernel(AtomicData* d) {
  const int g = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  atomicAdd(&d->sum, 1);
  atomicAdd(&d->fsum, 0.5f);
  atomicAdd(&d->dsum, 0.25);
  atomicSub(&d->sub, 1);
  atomicMax(&d->max, g);
  atomicMin(&d->min, 1000 - g);
  atomicExch(&d->exch, unsigned(g + 1));
  int old = atomicCAS(&d->cas, 0, 0);
  while (atomicCAS(&d->cas, old, old + 1) != old) old = atomicCAS(&d->cas, 0, 0);
  atomicInc(&d->inc, 9u);
  atomicDec(&d->dec, 5u);
  atomicOr(&d->bits_or, 1u << (g % 16));
  atomicAnd(&d->bits_and, ~(1u << (g % 8)));
  atomicXor(&d->bits_xor, 1u);
  __threadfence();
  __threadfence_block();
}

__global__ void shared_atomics_kernel(SharedAtomicTotals* totals, int* add_old, unsigned* exch_old,
                                      int* cas_old, unsigned* inc_old, unsigned inc_limit) {
  // Shared memory starts as poison: thread 0 sets the starting values, the others wait for it.
  __shared__ int add_int, sub, max, min, cas;
  __shared__ unsigned add_unsigned, exch, inc, inc_from_above;
  __shared__ float add_float;
  __shared__ double add_double;
  const unsigned t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  if (t == 0) {
    add_int = sub = cas = 0;
    add_unsigned = exch = inc = 0;
    add_float = 0;
    add_double = 0;
    max = -1000;
    min = 1000;
    inc_from_above = inc_limit + 5;
  }
  __syncthreads();
  add_old[g] = atomicAdd(&add_int, 1);
  atomicAdd(&add_unsigned, blockIdx.x + 1);
  atomicAdd(&add_float, 0.5f);
  atomicAdd(&add_double, 0.25);
  atomicSub(&sub, static_cast<int>(blockIdx.x) + 1);
  atomicMax(&max, 3 * static_cast<int>(t) - 100);
  atomicMin(&min, 500 - 2 * static_cast<int>(t));
  exch_old[g] = atomicExch(&exch, t + 1);
  int old = atomicCAS(&cas, 0, 0);  // a read (swaps 0 for 0 at most)
  for (int seen; (seen = atomicCAS(&cas, old, old + 1)) != old;) old = seen;
  cas_old[g] = old;
  inc_old[g] = atomicInc(&inc, inc_limit);
  atomicInc(&inc_from_above, inc_limit);
  __syncthreads();  // every thread's atomics done before thread 0 reads the totals
  if (t == 0) {
    totals[blockIdx.x] = SharedAtomicTotals{add_int, add_unsigned, add_float, add_double, sub, max, min,
                                            exch, cas, inc, inc_from_above};
  }
}

/// Counts every thread's entry; a third of the threads return before the first barrier, a fifth
/// of the others between the first and the second.
__global__ void entry_count_kernel(unsigned* entered, unsigned* finished) {
  const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&entered[g], 1u);  // a memory point: the thread stops here once before it counts
  if (threadIdx.x % 3 == 1) return;
  __syncthreads();
  if (threadIdx.x % 5 == 2) return;
  __syncthreads();
  __syncwarp(__activemask());
  __syncthreads();
  atomicAdd(&finished[g], 1u);
}

__global__ void spin_kernel(int* flag, int* data, int* seen) {
  if (threadIdx.x == 0) {
    while (atomicAdd(flag, 0) == 0) {
    }
    *seen = *data;
  }
  if (threadIdx.x == blockDim.x - 1) {
    *data = 42;
    __threadfence();
    atomicExch(flag, 1);
  }
}

__global__ void block_order_kernel(unsigned* order, unsigned* counter) {
  if (threadIdx.x == 0) order[atomicAdd(counter, 1u)] = blockIdx.x;
}

__global__ void thread_order_kernel(unsigned* order, unsigned* counter) {
  order[atomicAdd(counter, 1u)] = threadIdx.x;
}

__global__ void worker_kernel(std::size_t* ids) {
  ids[blockIdx.x * blockDim.x + threadIdx.x] = std::hash<std::thread::id>{}(std::this_thread::get_id());
  __syncthreads();
}

__global__ void hello_kernel() {
  if (threadIdx.x == 1) printf("hello from block %u thread %u\n", blockIdx.x, threadIdx.x);
}

__global__ void empty_kernel() {}

__global__ void throwing_kernel(unsigned bad_block, unsigned bad_thread) {
  __syncthreads();
  if (blockIdx.x == bad_block && threadIdx.x == bad_thread) throw std::runtime_error("boom from a kernel");
  __syncthreads();
}

__global__ void watched_kernel(unsigned* counter, unsigned* flags, unsigned* unwatched) {
  if (threadIdx.x != 0) return;
  atomicAdd(counter, 1u);
  atomicAdd(&flags[blockIdx.x], 0u);
  atomicExch(&flags[blockIdx.x], 7u);
  atomicAdd(unwatched, 1u);
}

int g_assert_line = 0;

__global__ void asserting_kernel(unsigned bad_block, unsigned bad_thread) {
  const bool bad = blockIdx.x == bad_block && threadIdx.x == bad_thread;
  g_assert_line = __LINE__ + 1;
  assert(!bad);
  __syncthreads();
}

}  // namespace

std::vector<unsigned> builtins(Extent3 grid, Extent3 block) {
  std::vector<unsigned> out(grid.count() * block.count() * 14, 0xdeadu);
  run("builtins", grid, block, 0, [&] { builtins_kernel(out.data()); });
  return out;
}

std::vector<std::uint32_t> shared_before_write(unsigned blocks, unsigned threads) {
  std::vector<std::uint32_t> out(blocks * 3, 0);
  run("shared_before_write", {blocks, 1, 1}, {threads, 1, 1}, 64 * sizeof(std::uint32_t),
      [&] { shared_kernel(out.data()); });
  return out;
}

void static_shared_in_device_function(unsigned blocks, unsigned threads, std::vector<int>& seen,
                                      std::vector<std::uintptr_t>& addresses) {
  seen.assign(blocks * threads, kPoisonInt);
  addresses.assign(blocks * threads, 0);
  run("static_shared", {blocks, 1, 1}, {threads, 1, 1}, 0,
      [&] { static_shared_kernel(seen.data(), addresses.data()); });
}

std::vector<int> reverse_blocks(const std::vector<int>& in, unsigned threads) {
  std::vector<int> out(in.size(), 0);
  run("reverse", {unsigned(in.size()) / threads, 1, 1}, {threads, 1, 1}, 0,
      [&] { reverse_kernel(in.data(), out.data()); });
  return out;
}

std::vector<int> barrier_votes(unsigned threads, unsigned live) {
  std::vector<int> out(5, -1);
  run("barrier_votes", {1, 1, 1}, {threads, 1, 1}, 0, [&] { barrier_votes_kernel(out.data(), live); });
  return out;
}

std::vector<double> atomics(unsigned blocks, unsigned threads) {
  AtomicData d;
  run("atomics", {blocks, 1, 1}, {threads, 1, 1}, 0, [&] { atomics_kernel(&d); });
  return {double(d.sum),  double(d.fsum), d.dsum,         double(d.sub),     double(d.max),
          double(d.min),  double(d.exch), double(d.cas),  double(d.inc),     double(d.dec),
          double(d.bits_or), double(d.bits_and), double(d.bits_xor)};
}

std::vector<scanlab::emu::AtomicEvent> watched_atomics(unsigned blocks, unsigned threads, bool watch) {
  unsigned counter = 0, unwatched = 0;
  std::vector<unsigned> flags(blocks, 0);
  scanlab::emu::take_atomic_events();
  if (watch) {
    scanlab::emu::watch_atomics("counter", &counter, sizeof counter);
    scanlab::emu::watch_atomics("flags", flags.data(), flags.size() * sizeof(unsigned));
  }
  run("watched", {blocks, 1, 1}, {threads, 1, 1}, 0, [&] { watched_kernel(&counter, flags.data(), &unwatched); });
  scanlab::emu::unwatch_atomics();
  return scanlab::emu::take_atomic_events();
}

SharedAtomics shared_atomics(unsigned blocks, unsigned threads, unsigned inc_limit) {
  SharedAtomics r;
  const unsigned n = blocks * threads;
  r.blocks.resize(blocks);
  std::memset(r.blocks.data(), scanlab::kPoisonByte, blocks * sizeof(SharedAtomicTotals));
  r.add_old.assign(n, kPoisonInt);
  r.exch_old.assign(n, 0xdeadbeefu);
  r.cas_old.assign(n, kPoisonInt);
  r.inc_old.assign(n, 0xdeadbeefu);
  run("shared_atomics", {blocks, 1, 1}, {threads, 1, 1}, 0, [&] {
    shared_atomics_kernel(r.blocks.data(), r.add_old.data(), r.exch_old.data(), r.cas_old.data(),
                          r.inc_old.data(), inc_limit);
  });
  return r;
}

void count_entries(unsigned blocks, unsigned threads, std::vector<unsigned>& entered,
                   std::vector<unsigned>& finished) {
  entered.assign(blocks * threads, 0);
  finished.assign(blocks * threads, 0);
  run("entry_count", {blocks, 1, 1}, {threads, 1, 1}, 0, [&] { entry_count_kernel(entered.data(), finished.data()); });
}

int spin_in_block(unsigned threads) {
  int flag = 0, data = 0, seen = -1;
  run("spin_in_block", {1, 1, 1}, {threads, 1, 1}, 0, [&] { spin_kernel(&flag, &data, &seen); });
  return seen;
}

std::vector<unsigned> block_start_order(unsigned blocks) {
  std::vector<unsigned> order(blocks, ~0u);
  unsigned counter = 0;
  run("block_order", {blocks, 1, 1}, {4, 1, 1}, 0, [&] { block_order_kernel(order.data(), &counter); });
  return order;
}

std::vector<unsigned> thread_start_order(unsigned threads) {
  std::vector<unsigned> order(threads, ~0u);
  unsigned counter = 0;
  run("thread_order", {1, 1, 1}, {threads, 1, 1}, 0, [&] { thread_order_kernel(order.data(), &counter); });
  return order;
}

std::vector<int> blocks_on_one_worker(unsigned blocks, unsigned threads) {
  std::vector<std::size_t> ids(blocks * threads, 0);
  run("worker_ids", {blocks, 1, 1}, {threads, 1, 1}, 0, [&] { worker_kernel(ids.data()); });
  std::vector<int> same(blocks, 1);
  for (unsigned b = 0; b < blocks; ++b) {
    for (unsigned t = 0; t < threads; ++t) same[b] &= ids[b * threads + t] == ids[b * threads];
  }
  return same;
}

void print_hello() { run("hello", {2, 1, 1}, {2, 1, 1}, 0, [] { hello_kernel(); }); }

void launch_empty(Extent3 grid, Extent3 block) { run("empty", grid, block, 0, [] { empty_kernel(); }); }

void throwing(unsigned blocks, unsigned threads, unsigned bad_block, unsigned bad_thread) {
  run("throwing", {blocks, 1, 1}, {threads, 1, 1}, 0, [&] { throwing_kernel(bad_block, bad_thread); });
}

void asserting(unsigned blocks, unsigned threads, unsigned bad_block, unsigned bad_thread) {
  run("asserting", {blocks, 1, 1}, {threads, 1, 1}, 0, [&] { asserting_kernel(bad_block, bad_thread); });
}

int assert_line() { return g_assert_line; }

std::string launch_error_caught_in_kernel_library() {
  try {
    throwing(1, 32, 0, 5);
  } catch (const scanlab::emu::LaunchError&) {
    return "caught";
  } catch (const std::exception& e) {
    return std::string("went past the catch of LaunchError: ") + e.what();
  }
  return "no error";
}

}  // namespace emu_test
