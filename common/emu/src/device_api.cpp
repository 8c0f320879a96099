// The functions cuda_shim.hpp forwards to: what kernel code calls for __syncthreads(), shuffles,
// atomics... They live here, in libscanlab_emu.so, not inline in a header: the kernel's library must
// hold no thread-local state of the emulator (its TLS is poisoned at every block start). The
// built-in variables are the exception: kernels read them inline through thread-local pointers
// defined in this library (worker.cpp; see cuda_shim.hpp).
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "internal.hpp"
#include "scanlab/emu/wait_arrays.hpp"
#include "scanlab/emu/runtime.hpp"

namespace scanlab::emu::detail {

using impl::BarrierKind;
using impl::tls_thread;
using impl::WarpCall;
using impl::WarpOp;

namespace {

[[noreturn, gnu::noinline, gnu::cold]] void outside_kernel(const char* what) {
  throw std::logic_error(std::string(what) + " called outside a kernel");
}

/// The calling CUDA thread; barriers and warp operations make no sense outside a kernel.
inline impl::CudaThread& current(const char* what) {
  if (tls_thread == nullptr) [[unlikely]] outside_kernel(what);
  return *tls_thread;
}

WarpOp shuffle_op(Shfl kind) {
  switch (kind) {
    case Shfl::idx: return WarpOp::shfl_idx;
    case Shfl::up: return WarpOp::shfl_up;
    case Shfl::down: return WarpOp::shfl_down;
    case Shfl::bfly: return WarpOp::shfl_xor;
  }
  return WarpOp::shfl_idx;
}

WarpOp vote_op(Vote kind) {
  switch (kind) {
    case Vote::ballot: return WarpOp::ballot;
    case Vote::any: return WarpOp::any;
    case Vote::all: return WarpOp::all;
  }
  return WarpOp::ballot;
}

int barrier(BarrierKind kind, int predicate, Where where) {
  impl::CudaThread& t = current("__syncthreads");
  t.block->barrier(t, kind, predicate, where);
  return t.barrier_result;
}

}  // namespace


void syncthreads(Where where) { barrier(BarrierKind::plain, 0, where); }
int syncthreads_count(int predicate, Where where) { return barrier(BarrierKind::count, predicate, where); }
int syncthreads_and(int predicate, Where where) { return barrier(BarrierKind::all, predicate, where); }
int syncthreads_or(int predicate, Where where) { return barrier(BarrierKind::any, predicate, where); }

void syncwarp(unsigned mask, Where where) {
  impl::CudaThread& t = current("__syncwarp");
  WarpCall call;
  call.op = WarpOp::syncwarp;
  call.mask = mask;
  t.block->warp_op(t, call, where);
}

void shuffle(Shfl kind, unsigned mask, const void* value, std::size_t size, int lane_or_delta, int width,
             void* out, Where where) {
  impl::CudaThread& t = current("__shfl_*_sync");
  WarpCall call;
  call.op = shuffle_op(kind);
  call.mask = mask;
  call.arg = lane_or_delta;
  call.width = width;
  call.size = size;
  call.value = value;
  call.out = out;
  t.block->warp_op(t, call, where);
}

unsigned vote(Vote kind, unsigned mask, int predicate, Where where) {
  impl::CudaThread& t = current("__ballot_sync/__any_sync/__all_sync");
  WarpCall call;
  call.op = vote_op(kind);
  call.mask = mask;
  call.predicate = predicate != 0;
  t.block->warp_op(t, call, where);
  return t.warp.result;
}

/// The lanes of the caller's warp that have not exited (the emulator has no finer notion of which
/// lanes are "converged" at this instant).
unsigned active_mask() {
  impl::CudaThread& t = current("__activemask");
  return t.block->active_mask(t);
}

void memory_point(Where where) {
  if (impl::CudaThread* t = tls_thread) t->block->memory_point(*t, where);
}

void threadfence(Where where) {
  memory_point(where);
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer does not model a stand-alone fence (GCC refuses one under -fsanitize=thread): a
  // sequentially consistent read-modify-write of one shared word orders this thread's accesses
  // against every other thread's fence in a way it does see.
  // In race mode it does nothing: every atomic is a sequentially consistent read-modify-write that
  // TSan sees, which orders what a fence and a flag order on a GPU; a fence that synchronised by
  // itself would hide a block that reads another block's data before it waits for the flag.
  static std::atomic<unsigned> fence_word{0};
  const impl::CudaThread* t = tls_thread;
  if (t == nullptr || !t->block->race_mode()) fence_word.fetch_add(1, std::memory_order_seq_cst);
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

void memory_changed() {
  if (impl::CudaThread* t = tls_thread) t->block->memory_changed(*t);
}

void count_op() {
  if (impl::CudaThread* t = tls_thread) {
    ++t->ops;
    t->block->worker().bump_heartbeat();  // a thread that computes is not stuck (see the monitor)
  }
}

void* dynamic_shared_memory(std::size_t element_size, const char* name) {
  impl::CudaThread* t = tls_thread;
  if (t == nullptr) return nullptr;
  if (element_size != 0) t->block->note_dynamic_element_size(element_size, name);
  return t->block->dynamic_shared;
}

void* static_shared_array(const StaticSharedSite& site, std::size_t bytes, std::size_t align, std::size_t element_size) {
  if (impl::CudaThread* t = tls_thread) return t->block->worker().static_array(site, bytes, align, element_size);
  // Host code (a __device__ function called outside a launch): one instance per OS thread, as a
  // thread_local __shared__ variable would be.
  thread_local std::vector<std::pair<const StaticSharedSite*, std::unique_ptr<unsigned char[]>>> host;
  for (auto& [s, data] : host) {
    if (s == &site) return reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(data.get()) + align - 1) & ~(align - 1));
  }
  host.emplace_back(&site, std::make_unique<unsigned char[]>(bytes + align));
  return static_shared_array(site, bytes, align, element_size);
}

void trace_shared(const char* name, const void* data, std::size_t count, std::size_t element_size,
                  FormatFn format) {
  if (impl::CudaThread* t = tls_thread) t->block->register_trace(name, data, count, element_size, format);
}

namespace {
class AssertionFailed : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};
}  // namespace

void assert_fail(const char* expression, const char* file, unsigned line) {
  std::string place = file ? file : "?";
  if (auto slash = place.rfind('/'); slash != std::string::npos) place = place.substr(slash + 1);
  throw AssertionFailed("assertion `" + std::string(expression) + "` failed at " + place + ":" +
                        std::to_string(line));
}


// Watched atomics (runtime.hpp, watch_atomics). The ranges and the events are guarded by one mutex:
// with resident blocks each block runs on its own OS thread (one at a time), with workers > 1 at once.
bool atomic_watch_on = false;

namespace {
struct WatchedRange {
  std::string name;
  const char* base;
  std::size_t bytes;
};
std::mutex watch_mutex;
std::vector<WatchedRange> watched;
std::vector<AtomicEvent> atomic_events;

unsigned long long as_integer(const void* bytes, std::size_t size) {
  unsigned long long value = 0;
  std::memcpy(&value, bytes, size < sizeof value ? size : sizeof value);
  return value;
}
}  // namespace

/// Arrays blocks wait on, named for the reports (wait_arrays.hpp).
struct WaitArray {
  std::string name;
  const char* base;
  std::size_t element_bytes, count;
  DescribeElement describe;
};
std::vector<WaitArray> wait_arrays;

void update_watch_on() { atomic_watch_on = !watched.empty() || !wait_arrays.empty(); }

void record_atomic(const void* address, std::size_t size, const void* before) {
  const char* p = static_cast<const char*>(address);
  std::lock_guard lock(watch_mutex);
  if (impl::CudaThread* t = tls_thread) {
    for (const WaitArray& a : wait_arrays) {
      if (p < a.base || p >= a.base + a.element_bytes * a.count) continue;
      t->waits_on = address;  // where this thread's last atomic on a named array went, and its place
      t->wait_where = t->where;
    }
  }
  for (const WatchedRange& range : watched) {
    if (p < range.base || p + size > range.base + range.bytes) continue;
    AtomicEvent e;
    e.array = range.name;
    e.offset = static_cast<std::size_t>(p - range.base);
    e.size = size;
    const BlockBuiltins& b = *tls_block;
    e.block = b.idx.x + b.grid_dim.x * (b.idx.y + b.grid_dim.y * b.idx.z);
    if (const impl::CudaThread* t = tls_thread) e.thread = t->linear;
    e.before = as_integer(before, size);
    e.after = as_integer(address, size);  // one thread runs at a time: what the atomic left
    atomic_events.push_back(std::move(e));
    return;
  }
}

}  // namespace scanlab::emu::detail

namespace scanlab::emu {

void watch_atomics(const char* name, const void* base, std::size_t bytes) {
  std::lock_guard lock(detail::watch_mutex);
  detail::watched.push_back({name, static_cast<const char*>(base), bytes});
  detail::update_watch_on();
}

void unwatch_atomics() {
  std::lock_guard lock(detail::watch_mutex);
  detail::watched.clear();
  detail::update_watch_on();
}

void name_wait_array(const char* name, const void* base, std::size_t element_bytes, std::size_t count,
                     DescribeElement describe) {
  std::lock_guard lock(detail::watch_mutex);
  detail::wait_arrays.push_back({name, static_cast<const char*>(base), element_bytes, count, std::move(describe)});
  detail::update_watch_on();
}

void unname_wait_array(const void* base) {
  std::lock_guard lock(detail::watch_mutex);
  std::erase_if(detail::wait_arrays, [&](const detail::WaitArray& a) { return a.base == base; });
  detail::update_watch_on();
}

namespace {
std::atomic<double> time_limit{-1};  // -1: not yet read from the environment
}  // namespace

void set_launch_time_limit(double seconds) { time_limit.store(seconds > 0 ? seconds : 0); }

double launch_time_limit() {
  double limit = time_limit.load();
  if (limit < 0) {
    limit = 0;
    if (const char* v = std::getenv("SCANLAB_EMU_LAUNCH_LIMIT_S")) {
      char* end = nullptr;
      const double seconds = std::strtod(v, &end);
      if (end != v && *end == '\0' && seconds >= 0) limit = seconds;
    }
    double unset = -1;
    time_limit.compare_exchange_strong(unset, limit);
    limit = time_limit.load();
  }
  return limit;
}

namespace impl {

std::string wait_array_element(const void* address) {
  std::lock_guard lock(detail::watch_mutex);
  const char* p = static_cast<const char*>(address);
  for (const detail::WaitArray& a : detail::wait_arrays) {
    if (p < a.base || p >= a.base + a.element_bytes * a.count) continue;
    return a.name + "[" + std::to_string(static_cast<std::size_t>(p - a.base) / a.element_bytes) + "]";
  }
  return "";
}

std::string wait_arrays_report() {
  std::lock_guard lock(detail::watch_mutex);
  std::string text;
  for (const detail::WaitArray& a : detail::wait_arrays) {
    // Runs of equal states: "0-4 P, 5 A, 6-12 not published" (at most 16 runs, then how many more).
    std::string runs;
    std::size_t shown = 0, first = 0;
    std::string state;
    const auto close = [&](std::size_t end) {
      if (++shown <= 16) {
        runs += (runs.empty() ? "" : ", ") + std::to_string(first) +
                (end - 1 > first ? "-" + std::to_string(end - 1) : std::string()) + " " + state;
      }
    };
    for (std::size_t i = 0; i < a.count; ++i) {
      std::string s = a.describe(a.base + i * a.element_bytes);
      if (i > 0 && s == state) continue;
      if (i > 0) close(i);
      first = i;
      state = std::move(s);
    }
    if (a.count > 0) close(a.count);
    if (shown > 16) runs += " and " + std::to_string(shown - 16) + " more runs";
    text += "; " + a.name + " when the launch stopped: " + runs;
  }
  return text;
}

}  // namespace impl

std::vector<AtomicEvent> take_atomic_events() {
  std::lock_guard lock(detail::watch_mutex);
  std::vector<AtomicEvent> out;
  out.swap(detail::atomic_events);
  return out;
}

}  // namespace scanlab::emu
