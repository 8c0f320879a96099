// Test kernels: blocks that wait for each other (Sec. 11.7's chain, Sec. 11.8's look-back), right and
// with the ordering bugs students write, for the resident-block schedules; and memory errors.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "kernel_launch.hpp"
#include "scanlab/emu/guarded_memory.hpp"
#include "scanlab/emu/wait_arrays.hpp"

namespace emu_test {

namespace {

std::atomic<int> g_chain_read_line{0}, g_chain_wait_line{0};  // (atomic: see g_traced_barrier_line)

/// The buggy chain's early read of its predecessor's total (its line is known without a launch).
constexpr int kChainReadLine = __LINE__ + 2;
__device__ int read_total_early(const int* running, unsigned bid) {
  return *const_cast<const volatile int*>(&running[bid]);
}

/// Sec. 11.7's adjacent synchronisation with a dynamic block index: block `bid` (from the counter)
/// takes the running total of blocks 0..bid-1 from running[bid] once flags[bid] is set, and publishes
/// running[bid + 1] = total + its own value (bid + 1), behind a fence, then sets flags[bid + 1].
/// carries[bid] = what it took.
__global__ void chain_kernel(ChainBug bug, unsigned* counter, unsigned* flags, int* running, int* carries) {
  __shared__ unsigned bid_s;
  __shared__ int carry_s;
  if (threadIdx.x == 0) bid_s = bug == ChainBug::static_index_read_before_flag ? blockIdx.x : atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned bid = bid_s;
  if (threadIdx.x == 0) {
    int carry = 0;
    if (bid > 0) {
      if (bug == ChainBug::none) {
        g_chain_wait_line.store(__LINE__ + 1, std::memory_order_relaxed);
        while (atomicAdd(&flags[bid], 0u) == 0u) {
        }
        __threadfence();
        carry = *const_cast<volatile int*>(&running[bid]);
      } else {
        // The student's bug: the predecessor's total is read before its flag is waited for.
        g_chain_read_line.store(kChainReadLine, std::memory_order_relaxed);
        carry = read_total_early(running, bid);
        g_chain_wait_line.store(__LINE__ + 1, std::memory_order_relaxed);
        while (atomicAdd(&flags[bid], 0u) == 0u) {
        }
      }
    }
    *const_cast<volatile int*>(&running[bid + 1]) = carry + static_cast<int>(bid + 1);
    __threadfence();
    atomicAdd(&flags[bid + 1], 1u);
    carry_s = carry;
  }
  __syncthreads();
  if (threadIdx.x == 0) carries[bid] = carry_s;
}

/// Sec. 11.8's decoupled look-back, one 64-bit status word per tile (flag << 32 | value): tile t
/// publishes its AGGREGATE (its value, t + 1), looks back over its predecessors, nearest first, adding
/// aggregates until it finds a PREFIX, then publishes its PREFIX. prefixes[t] = its exclusive prefix.
/// Only tiles with even numbers publish a prefix, so look-backs walk over several tiles.
__global__ void lookback_kernel(LookbackBug bug, unsigned* counter, unsigned long long* status, int* prefixes) {
  constexpr unsigned long long kAggregate = 1ull << 32, kPrefix = 2ull << 32;
  __shared__ unsigned tile_s;
  if (threadIdx.x == 0) tile_s = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned tile = tile_s;
  if (threadIdx.x != 0) return;
  const int aggregate = static_cast<int>(tile + 1);
  if (bug != LookbackBug::chained) atomicExch(&status[tile], kAggregate | static_cast<unsigned>(aggregate));
  int exclusive = 0;
  for (long long p = static_cast<long long>(tile) - 1; p >= 0; --p) {
    unsigned long long s = atomicAdd(&status[p], 0ull);
    if (bug != LookbackBug::no_wait) {
      while ((s >> 32) == 0) s = atomicAdd(&status[p], 0ull);  // wait until tile p has published
    }
    // The student's bug (LookbackBug::no_wait): a status not yet published counts as nothing.
    exclusive += static_cast<int>(s & 0xffffffffu);
    if ((s >> 32) == 2) break;
  }
  if (bug == LookbackBug::chained) atomicExch(&status[tile], kAggregate | static_cast<unsigned>(aggregate));
  if (tile % 2 == 0) atomicExch(&status[tile], kPrefix | static_cast<unsigned>(exclusive + aggregate));
  prefixes[tile] = exclusive;
}

std::atomic<int> g_overflow_barrier_line{0};

/// Each thread copies its element into dynamic shared memory of `elements` ints at index
/// threadIdx.x + offset (the student's off-by-one: offset 1 writes one past the end, -1 one before
/// the start); a barrier; then writes it back out.
__global__ void dynamic_overflow_kernel(int offset, int* out) {
  int* s = scanlab::dynamic_shared<int>();
  s[static_cast<int>(threadIdx.x) + offset] = static_cast<int>(threadIdx.x);
  g_overflow_barrier_line.store(__LINE__ + 1, std::memory_order_relaxed);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}

/// Reads shared memory no thread wrote: the sum of a __shared__ array of which only half is written.
__global__ void unwritten_shared_kernel(int* out) {
  __shared__ int part[64];
  if (threadIdx.x < 32) part[threadIdx.x] = 1;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned sum = 0;  // poison values overflow an int: add them as unsigned (wraps, defined)
    for (int i = 0; i < 64; ++i) sum += static_cast<unsigned>(part[i]);
    out[blockIdx.x] = static_cast<int>(sum);
  }
}

std::atomic<int> g_static_barrier_line{0};

// The overflow kernels write past their arrays on purpose: UBSan (asan preset) must leave them to the
// emulator's guards.
#define SCANLAB_OVERFLOWS_ON_PURPOSE __attribute__((no_sanitize("undefined")))

/// One static array per instantiation: the library holds several of them, next to each other.
constexpr int kStaticTemplateLine = __LINE__ + 3;
template <class T, unsigned N>
__global__ SCANLAB_OVERFLOWS_ON_PURPOSE void static_overflow_kernel(int offset, int* out) {
  __shared__ T XY[N];
  XY[static_cast<int>(threadIdx.x) + offset] = static_cast<T>(threadIdx.x);
  g_static_barrier_line.store(__LINE__ + 1, std::memory_order_relaxed);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<int>(XY[threadIdx.x]);
}

/// Two arrays in one kernel: a write past the end of the first one is caught too.
constexpr int kStaticFirstLine = __LINE__ + 3;
template <unsigned N>
__global__ SCANLAB_OVERFLOWS_ON_PURPOSE void static_overflow_two_kernel(int offset, int* out) {
  __shared__ int first[N];
  __shared__ int second[N];
  second[threadIdx.x] = 1;
  first[static_cast<int>(threadIdx.x) + offset] = static_cast<int>(threadIdx.x);
  g_static_barrier_line.store(__LINE__ + 1, std::memory_order_relaxed);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = first[threadIdx.x] + second[threadIdx.x];
}

template <unsigned N>
void static_overflow_launch(unsigned blocks, int offset, StaticArray array, int* out) {
  const auto body = [&] {
    switch (array) {
      case StaticArray::of_int: static_overflow_kernel<int, N>(offset, out); break;
      case StaticArray::of_double: static_overflow_kernel<double, N>(offset, out); break;
      case StaticArray::of_char: static_overflow_kernel<char, N>(offset, out); break;
      case StaticArray::first_of_two: static_overflow_two_kernel<N>(offset, out); break;
    }
  };
  run("static_overflow", {blocks, 1, 1}, {N, 1, 1}, 0, body);
}

__global__ void resident_static_shared_kernel(unsigned* live, unsigned* most, int* seen) {
  __shared__ int mine[64];
  if (threadIdx.x == 0) atomicMax(most, atomicAdd(live, 1u) + 1u);
  mine[threadIdx.x] = static_cast<int>(100 * blockIdx.x + threadIdx.x);
  atomicAdd(live, 0u);   // no change: a memory point
  atomicAdd(most, 0u);
  __syncthreads();
  seen[blockIdx.x * blockDim.x + threadIdx.x] = mine[(threadIdx.x + 1) % blockDim.x];
  __syncthreads();
  if (threadIdx.x == 0) atomicSub(live, 1u);  // a change: another resident block may run
}

}  // namespace

void static_shared_overflow(unsigned blocks, unsigned threads, int offset, StaticArray array) {
  std::vector<int> out(blocks * threads);
  if (threads == 32) {
    static_overflow_launch<32>(blocks, offset, array, out.data());
  } else {
    static_overflow_launch<64>(blocks, offset, array, out.data());
  }
}

int static_overflow_declaration_line(StaticArray array) {
  return array == StaticArray::first_of_two ? kStaticFirstLine : kStaticTemplateLine;
}

int static_overflow_barrier_line() { return g_static_barrier_line.load(std::memory_order_relaxed); }

std::vector<int> resident_static_shared(unsigned blocks, unsigned threads, unsigned& most_resident) {
  std::vector<int> seen(blocks * threads, kPoisonInt);
  unsigned live = 0;
  most_resident = 0;
  run("resident_static_shared", {blocks, 1, 1}, {threads, 1, 1}, 0,
      [&] { resident_static_shared_kernel(&live, &most_resident, seen.data()); });
  return seen;
}

namespace {

/// Thread t reads XY[t + offset] of dynamic shared memory, as an `extern __shared__ int XY[];` becomes
/// in the cpu build (common/cmake/cpu_sources.py).
__global__ SCANLAB_OVERFLOWS_ON_PURPOSE void dynamic_shared_read_kernel(long offset, int* out) {
  int* XY = scanlab::dynamic_shared<int>("XY");
  out[threadIdx.x] = XY[static_cast<long>(threadIdx.x) + offset];
}

}  // namespace

void dynamic_shared_read(unsigned threads, long offset) {
  std::vector<int> out(threads);
  run("dynamic_read", {1, 1, 1}, {threads, 1, 1}, threads * sizeof(int),
      [&] { dynamic_shared_read_kernel(offset, out.data()); });
}

void dynamic_shared_overflow(unsigned blocks, unsigned threads, int offset) {
  std::vector<int> out(blocks * threads);
  run("dynamic_overflow", {blocks, 1, 1}, {threads, 1, 1}, threads * sizeof(int),
      [&] { dynamic_overflow_kernel(offset, out.data()); });
}

namespace {

/// Reads x[threadIdx.x + read_offset] into y[threadIdx.x + write_offset]: an index off by a little or
/// by a lot, before the start or past the end.
__global__ SCANLAB_OVERFLOWS_ON_PURPOSE void guarded_copy_kernel(const int* x, int* y, long read_offset,
                                                                  long write_offset) {
  const long i = static_cast<long>(threadIdx.x);
  y[i + write_offset] = x[i + read_offset];
}

/// `count` ints between guard pages of 1 MiB, registered with the emulator as the cpu backend's
/// device buffers are (common/src/memory.cpp): the array ends where the guard page after it starts.
class GuardedInts {
 public:
  explicit GuardedInts(std::size_t count) {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    usable_ = (count * sizeof(int) + page - 1) / page * page;
    total_ = kFar + usable_ + kFar;
    base_ = static_cast<char*>(::mmap(nullptr, total_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    ::mprotect(base_ + kFar, usable_, PROT_READ | PROT_WRITE);
    data_ = reinterpret_cast<int*>(base_ + kFar + usable_) - count;
    for (std::size_t i = 0; i < count; ++i) data_[i] = static_cast<int>(i);
    scanlab::emu::guard_array(data_, count, sizeof(int), base_, base_ + total_);
  }
  ~GuardedInts() {
    scanlab::emu::unguard_array(data_);
    ::munmap(base_, total_);
  }
  int* data() const { return data_; }

 private:
  static constexpr std::size_t kFar = std::size_t{1} << 20;
  std::size_t usable_ = 0, total_ = 0;
  char* base_ = nullptr;
  int* data_ = nullptr;
};

}  // namespace

void guarded_copy(unsigned threads, unsigned x_count, long read_offset, unsigned y_count, long write_offset) {
  GuardedInts x(x_count), y(y_count);
  run("guarded_copy", {1, 1, 1}, {threads, 1, 1}, 0,
      [&] { guarded_copy_kernel(x.data(), y.data(), read_offset, write_offset); });
}

int dynamic_overflow_barrier_line() { return g_overflow_barrier_line.load(std::memory_order_relaxed); }

std::vector<int> unwritten_shared(unsigned blocks) {
  std::vector<int> out(blocks, kPoisonInt);
  run("unwritten_shared", {blocks, 1, 1}, {64, 1, 1}, 0, [&] { unwritten_shared_kernel(out.data()); });
  return out;
}

std::vector<int> chain(unsigned blocks, unsigned threads, ChainBug bug) {
  unsigned counter = 0;
  std::vector<unsigned> flags(blocks + 1, 0);
  std::vector<int> running(blocks + 1, 0), carries(blocks, kPoisonInt);
  run("chain", {blocks, 1, 1}, {threads, 1, 1}, 0,
      [&] { chain_kernel(bug, &counter, flags.data(), running.data(), carries.data()); });
  return carries;
}

int chain_read_line() { return g_chain_read_line.load(std::memory_order_relaxed); }
int chain_read_line_in_source() { return kChainReadLine; }
int chain_wait_line() { return g_chain_wait_line.load(std::memory_order_relaxed); }

std::vector<int> lookback(unsigned blocks, unsigned threads, LookbackBug bug) {
  unsigned counter = 0;
  std::vector<unsigned long long> status(blocks, 0);
  std::vector<int> prefixes(blocks, kPoisonInt);
  const scanlab::emu::NamedWaitArray named("statuses", status.data(), sizeof status[0], blocks, [](const void* s) {
    const auto flag = *static_cast<const unsigned long long*>(s) >> 32;
    return std::string(flag == 0 ? "nothing published" : flag == 1 ? "aggregate only" : "prefix");
  });
  run("lookback", {blocks, 1, 1}, {threads, 1, 1}, 0,
      [&] { lookback_kernel(bug, &counter, status.data(), prefixes.data()); });
  return prefixes;
}

}  // namespace emu_test
