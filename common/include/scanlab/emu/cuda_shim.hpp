/// \file emu/cuda_shim.hpp
/// \brief The CUDA names a kernel uses, for the host compiler: `__global__`, `__shared__`,
/// `threadIdx`, `__syncthreads()`, warp shuffles and votes, atomics and fences. Each forwards to
/// scanlab's SIMT emulator, which runs every CUDA thread on its own fiber.
///
/// Included by `scanlab/kernel.hpp` when the compiler is not nvcc; a kernel file never includes it
/// directly. How the CUDA constructs map:
/// - `__shared__` becomes `thread_local`: a block's threads are fibers of one OS thread, so they all
///   see one instance, and blocks on that thread run one after another. The emulator poisons the
///   kernel library's thread-local storage at each block start, so stale or unwritten shared memory
///   shows up as it would on a GPU. (The kernel library therefore holds no other thread_local data.)
/// - `__syncthreads()` is a counted barrier of the block's threads that have not exited.
/// - Warp operations are a rendezvous of the lanes named in the mask, independent of block barriers.
/// - Atomics are real atomics (`std::atomic_ref`), and each one is a point where the emulator may run
///   another thread, so a spin loop on an atomic lets the others progress (or trips the watchdog).
#pragma once

#if defined(__CUDACC__)
#error "emu/cuda_shim.hpp is for the host compiler (the cpu backend); nvcc uses the real CUDA"
#endif

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <source_location>
#include <type_traits>

// ---- qualifiers -------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __shared__ thread_local
#define __align__(n) alignas(n)

// ---- built-in vector types ----------------------------------------------------------------------
struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

namespace scanlab::emu::detail {

using Where = std::source_location;

/// What `blockIdx`, `blockDim` and `gridDim` read: one per block (the emulator's Block is one).
struct BlockBuiltins {
  uint3 idx{0, 0, 0};
  dim3 dim{1, 1, 1};
  dim3 grid_dim{1, 1, 1};
};

// The built-in variables of the running CUDA thread. The emulator points these at the thread's
// coordinates and its block at every switch; outside kernel code (host code) they read as thread 0
// of a single block of one thread. They are read inline, with no call: kernels read `threadIdx` in
// every loop, and a call per read cost about a tenth of the emulator's time. `constinit` tells the
// compiler that they need no dynamic initialization, so it reads them directly (no TLS wrapper).
// They are defined in libscanlab_emu.so, whose thread-local storage is not poisoned, unlike the
// kernel library's (see the file comment): the kernel library holds only a reference to them.
extern constinit thread_local const uint3* tls_thread_idx;
extern constinit thread_local const BlockBuiltins* tls_block;

// Sync points. Each may switch to another fiber.
void syncthreads(Where where);
int syncthreads_count(int predicate, Where where);   // count of threads whose predicate != 0
int syncthreads_and(int predicate, Where where);     // 1 if every waiting thread's predicate != 0
int syncthreads_or(int predicate, Where where);      // 1 if any waiting thread's predicate != 0
void syncwarp(unsigned mask, Where where);

enum class Shfl { idx, up, down, bfly };
enum class Vote { ballot, any, all };
/// Warp rendezvous for a shuffle of `size` bytes: every lane in `mask` arrives with its `value`;
/// `out` receives the value of the lane it reads (or its own value when that lane is out of range).
void shuffle(Shfl kind, unsigned mask, const void* value, std::size_t size, int lane_or_delta, int width,
             void* out, Where where);
unsigned vote(Vote kind, unsigned mask, int predicate, Where where);
unsigned active_mask();

/// Called by every atomic and fence: lets the scheduler run other threads (see the file comment).
void memory_point(Where where);
void threadfence(Where where);
/// Called by an atomic that changed memory: that is progress, as far as the watchdog is concerned
/// (a spin loop's `atomicAdd(&flag, 0)` changes nothing, so it is not).
void memory_changed();

/// Counted by the scan operators (scanlab/ops.hpp) on every application.
void count_op();

/// Dynamic shared memory of the calling thread's block (size set by the launch), poisoned at block
/// start, between guard zones. `element_size`: of the array the kernel sees (for memory error
/// reports; 0 if not known).
void* dynamic_shared_memory(std::size_t element_size = 0);

/// Registers a shared array to be recorded after every barrier while tracing is on.
using FormatFn = void (*)(const void* element, char* buffer, std::size_t buffer_size);
void trace_shared(const char* name, const void* data, std::size_t count, std::size_t element_size,
                  FormatFn format);

/// A failed `assert` in a kernel thread: throws, and the launch reports it with the thread's
/// coordinates.
[[noreturn]] void assert_fail(const char* expression, const char* file, unsigned line);

}  // namespace scanlab::emu::detail

// ---- built-in variables -------------------------------------------------------------------------
#define threadIdx (*::scanlab::emu::detail::tls_thread_idx)
#define blockIdx (::scanlab::emu::detail::tls_block->idx)
#define blockDim (::scanlab::emu::detail::tls_block->dim)
#define gridDim (::scanlab::emu::detail::tls_block->grid_dim)
inline constexpr int warpSize = 32;

// ---- barriers and warp operations ---------------------------------------------------------------
inline void __syncthreads(std::source_location w = std::source_location::current()) {
  ::scanlab::emu::detail::syncthreads(w);
}
inline int __syncthreads_count(int p, std::source_location w = std::source_location::current()) {
  return ::scanlab::emu::detail::syncthreads_count(p, w);
}
// (Threads that exited do not take part, as on a GPU, so these are not derived from blockDim.)
inline int __syncthreads_and(int p, std::source_location w = std::source_location::current()) {
  return ::scanlab::emu::detail::syncthreads_and(p, w);
}
inline int __syncthreads_or(int p, std::source_location w = std::source_location::current()) {
  return ::scanlab::emu::detail::syncthreads_or(p, w);
}
inline void __syncwarp(unsigned mask = 0xffffffffu,
                       std::source_location w = std::source_location::current()) {
  ::scanlab::emu::detail::syncwarp(mask, w);
}

#define SCANLAB_EMU_SHUFFLE(fn, kind)                                                            \
  template <class T>                                                                             \
  inline T fn(unsigned mask, T var, int arg, int width = warpSize,                               \
              std::source_location w = std::source_location::current()) {                        \
    static_assert(std::is_trivially_copyable_v<T>, #fn " needs a trivially copyable type");      \
    T out;                                                                                       \
    ::scanlab::emu::detail::shuffle(::scanlab::emu::detail::Shfl::kind, mask, &var, sizeof(T),   \
                                    arg, width, &out, w);                                        \
    return out;                                                                                  \
  }
SCANLAB_EMU_SHUFFLE(__shfl_sync, idx)
SCANLAB_EMU_SHUFFLE(__shfl_up_sync, up)
SCANLAB_EMU_SHUFFLE(__shfl_down_sync, down)
SCANLAB_EMU_SHUFFLE(__shfl_xor_sync, bfly)
#undef SCANLAB_EMU_SHUFFLE

inline unsigned __ballot_sync(unsigned mask, int p,
                              std::source_location w = std::source_location::current()) {
  return ::scanlab::emu::detail::vote(::scanlab::emu::detail::Vote::ballot, mask, p, w);
}
inline int __any_sync(unsigned mask, int p, std::source_location w = std::source_location::current()) {
  return static_cast<int>(::scanlab::emu::detail::vote(::scanlab::emu::detail::Vote::any, mask, p, w));
}
inline int __all_sync(unsigned mask, int p, std::source_location w = std::source_location::current()) {
  return static_cast<int>(::scanlab::emu::detail::vote(::scanlab::emu::detail::Vote::all, mask, p, w));
}
inline unsigned __activemask() { return ::scanlab::emu::detail::active_mask(); }

// ---- fences and atomics -------------------------------------------------------------------------
inline void __threadfence(std::source_location w = std::source_location::current()) {
  ::scanlab::emu::detail::threadfence(w);
}
inline void __threadfence_block(std::source_location w = std::source_location::current()) {
  ::scanlab::emu::detail::threadfence(w);
}

namespace scanlab::emu::detail {
template <class T>
inline std::atomic_ref<T> atomic_at(T* address, Where where) {
  memory_point(where);
  return std::atomic_ref<T>(*address);
}
}  // namespace scanlab::emu::detail

namespace scanlab::emu::detail {
/// Tells the watchdog when an atomic changed memory (progress); see memory_changed().
inline void note_change(bool changed) {
  if (changed) memory_changed();
}
}  // namespace scanlab::emu::detail

template <class T>
inline T atomicAdd(T* a, T v, std::source_location w = std::source_location::current()) {
  T old = ::scanlab::emu::detail::atomic_at(a, w).fetch_add(v);
  ::scanlab::emu::detail::note_change(v != T(0));
  return old;
}
template <class T>
inline T atomicSub(T* a, T v, std::source_location w = std::source_location::current()) {
  T old = ::scanlab::emu::detail::atomic_at(a, w).fetch_sub(v);
  ::scanlab::emu::detail::note_change(v != T(0));
  return old;
}
template <class T>
inline T atomicExch(T* a, T v, std::source_location w = std::source_location::current()) {
  T old = ::scanlab::emu::detail::atomic_at(a, w).exchange(v);
  ::scanlab::emu::detail::note_change(!(old == v));
  return old;
}
template <class T>
inline T atomicCAS(T* a, T compare, T v, std::source_location w = std::source_location::current()) {
  const T expected = compare;
  const bool swapped = ::scanlab::emu::detail::atomic_at(a, w).compare_exchange_strong(compare, v);
  ::scanlab::emu::detail::note_change(swapped && !(expected == v));
  return compare;  // the old value, whether or not the swap happened
}
template <class T>
inline T atomicMax(T* a, T v, std::source_location w = std::source_location::current()) {
  auto ref = ::scanlab::emu::detail::atomic_at(a, w);
  T old = ref.load();
  while (old < v && !ref.compare_exchange_weak(old, v)) {
  }
  ::scanlab::emu::detail::note_change(old < v);
  return old;
}
template <class T>
inline T atomicMin(T* a, T v, std::source_location w = std::source_location::current()) {
  auto ref = ::scanlab::emu::detail::atomic_at(a, w);
  T old = ref.load();
  while (v < old && !ref.compare_exchange_weak(old, v)) {
  }
  ::scanlab::emu::detail::note_change(v < old);
  return old;
}
template <class T>
inline T atomicAnd(T* a, T v, std::source_location w = std::source_location::current()) {
  static_assert(std::is_integral_v<T>, "atomicAnd needs an integer type");
  T old = ::scanlab::emu::detail::atomic_at(a, w).fetch_and(v);
  ::scanlab::emu::detail::note_change((old & v) != old);
  return old;
}
template <class T>
inline T atomicOr(T* a, T v, std::source_location w = std::source_location::current()) {
  static_assert(std::is_integral_v<T>, "atomicOr needs an integer type");
  T old = ::scanlab::emu::detail::atomic_at(a, w).fetch_or(v);
  ::scanlab::emu::detail::note_change((old | v) != old);
  return old;
}
template <class T>
inline T atomicXor(T* a, T v, std::source_location w = std::source_location::current()) {
  static_assert(std::is_integral_v<T>, "atomicXor needs an integer type");
  T old = ::scanlab::emu::detail::atomic_at(a, w).fetch_xor(v);
  ::scanlab::emu::detail::note_change(v != T(0));
  return old;
}
/// CUDA's atomicInc: old >= limit ? 0 : old + 1, stored; returns old.
inline unsigned atomicInc(unsigned* a, unsigned limit,
                          std::source_location w = std::source_location::current()) {
  auto ref = ::scanlab::emu::detail::atomic_at(a, w);
  unsigned old = ref.load();
  while (!ref.compare_exchange_weak(old, old >= limit ? 0u : old + 1u)) {
  }
  ::scanlab::emu::detail::note_change(old != (old >= limit ? 0u : old + 1u));
  return old;
}
/// CUDA's atomicDec: (old == 0 || old > limit) ? limit : old - 1, stored; returns old.
inline unsigned atomicDec(unsigned* a, unsigned limit,
                          std::source_location w = std::source_location::current()) {
  auto ref = ::scanlab::emu::detail::atomic_at(a, w);
  unsigned old = ref.load();
  while (!ref.compare_exchange_weak(old, (old == 0u || old > limit) ? limit : old - 1u)) {
  }
  ::scanlab::emu::detail::note_change(old != ((old == 0u || old > limit) ? limit : old - 1u));
  return old;
}

// ---- assert -------------------------------------------------------------------------------------
// A failed assert in a kernel thread throws instead of aborting, so the launch can say which thread.
// (Kernel files get <cassert> through this header; including it again afterwards would undo this.)
#undef assert
#define assert(expression)                                                                       \
  ((expression) ? static_cast<void>(0)                                                           \
                : ::scanlab::emu::detail::assert_fail(#expression, __FILE__, __LINE__))
