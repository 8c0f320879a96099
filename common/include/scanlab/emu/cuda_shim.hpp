/// \file emu/cuda_shim.hpp
/// \brief The CUDA names a kernel uses, for the host compiler: `__global__`, `__shared__`,
/// `threadIdx`, `__syncthreads()`, warp shuffles and votes, atomics and fences. Each forwards to
/// scanlab's SIMT emulator, which runs every CUDA thread on its own fiber.
///
/// Included by `scanlab/kernel.hpp` when the compiler is not nvcc; a kernel file never includes it
/// directly. How the CUDA constructs map:
/// - `__shared__` becomes `thread_local`: a block's threads are fibers of one OS thread, so they all
///   see one instance, and blocks on that thread run one after another (each resident block has an
///   OS thread of its own). Each such variable comes with a guard zone (SharedGuard), a thread_local
///   of its own declared just before it, which the compiler lays out next to it; the kernel library
///   registers every guard when it is loaded. At each block start the emulator poisons the memory
///   between the guards (the variables) and checks the guards at every barrier and at the block's
///   end, so stale or unwritten shared memory shows up as it would on a GPU, and a write past the end
///   of a static shared array is a "memory error: ..." report. The library's static shared memory
///   lies between two anchor objects linked first and last into it (common/emu/module/); see the
///   emulator's README, "Static shared memory". (A kernel library holds no other thread_local data.)
///   Write qualifiers after it (`__shared__ volatile int flag`), and use scanlab::dynamic_shared<T>()
///   for dynamic shared memory (`extern __shared__` does not compile on this backend).
/// - `__syncthreads()` is a counted barrier of the block's threads that have not exited.
/// - Warp operations are a rendezvous of the lanes named in the mask, independent of block barriers.
/// - Atomics are real atomics (detail::AtomicRef, on the compiler's `__atomic` builtins), and each one is a point where the emulator may run
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
#include <type_traits>
#include <version>
#if defined(__cpp_lib_source_location)
#include <source_location>
#endif

// ---- qualifiers -------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __shared__ SCANLAB_EMU_SHARED_(__COUNTER__)
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

#if defined(__cpp_lib_source_location)
/// Where a sync point is in the kernel's source.
using Where = std::source_location;
#else
/// Where a sync point is in the kernel's source, for standard libraries without std::source_location
/// (libc++ before 16): its members, filled in at the call site by builtins that GCC and Clang have.
/// (Three words against std::source_location's one, so sync points cost a little more there.)
class Where {
 public:
  static constexpr Where current(const char* file = __builtin_FILE(), const char* function = __builtin_FUNCTION(),
                                 unsigned line = __builtin_LINE(), unsigned column = __builtin_COLUMN()) noexcept {
    Where w;
    w.file_ = file;
    w.function_ = function;
    w.line_ = line;
    w.column_ = column;
    return w;
  }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return function_; }
  constexpr unsigned line() const noexcept { return line_; }
  constexpr unsigned column() const noexcept { return column_; }

 private:
  const char* file_ = "";
  const char* function_ = "";
  unsigned line_ = 0, column_ = 0;
};
#endif

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

// ---- static shared memory ----------------------------------------------------------------------

/// The guard zone declared before each `__shared__` variable: the compiler places it next to the
/// variable (before or after it, the same way for every variable of a library; the emulator finds
/// out which), with no padding between the end of a variable and the guard that follows it (the
/// guard's alignment is 1), so that the first byte written past the end of an array changes a guard.
/// The declaration says so too (`aligned(1)` in the macro below): GCC for arm64 otherwise aligns an
/// object of 8 bytes or more to 8, which left padding between a 1-byte array and its guard.
struct SharedGuard {
  unsigned char bytes[256];
};
/// A guard and the place of the `__shared__` declaration it belongs to, for messages.
struct SharedGuardSite {
  const SharedGuard* guard;
  const char* file;
  unsigned line;
};
using SharedGuardSiteFn = SharedGuardSite (*)();

/// The static shared memory of one kernel library on the calling OS thread: the anchor objects linked
/// first and last into the library (common/emu/module/), between which the linker keeps the
/// thread-local storage of every object file in command-line order.
struct StaticShared {
  unsigned char* first;  ///< the leading anchor, kStaticLeadingGuardBytes
  unsigned char* last;   ///< the trailing anchor, kStaticTrailingGuardBytes
  unsigned char* probe;  ///< a 1-byte `__shared__` variable of shared_first.cpp (see there)
};
/// Bytes of the anchors: guard zones before the first and after the last static shared variable.
/// The trailing one is large enough to hold a write up to 48 KiB (a GPU block's static shared
/// memory) past the last array, which would otherwise land in another library's thread-local data.
inline constexpr std::size_t kStaticLeadingGuardBytes = 4096;
inline constexpr std::size_t kStaticTrailingGuardBytes = 48 * 1024 + 256;

/// This kernel library's static shared memory. Defined in common/emu/module/shared_first.cpp, which
/// scanlab_kernel_library (common/cmake/scanlab.cmake) links first into every kernel library; hidden,
/// so that each library has its own. (A program that declares `__shared__` variables outside a kernel
/// library fails to link here: build kernels with scanlab_kernel_library.)
__attribute__((visibility("hidden"))) StaticShared module_static_shared();
/// Called when a kernel library is loaded, once per `__shared__` variable it holds.
bool register_shared_guard(StaticShared (*module)(), SharedGuardSiteFn site);

template <class Site>
SharedGuardSite shared_guard_site() {
  return Site{}();
}
/// Registers the guard whose site the lambda type `Site` returns, when the library is loaded
/// (dynamic initialization of a static member). By a function pointer, called then: a direct call in
/// the initializer would make Clang emit the guard before the kernel's body, away from its variable.
template <class Site>
struct SharedGuardRegistration {
  static inline const bool done = register_shared_guard(&module_static_shared, &shared_guard_site<Site>);
};

/// The address of a guard; refuses a `volatile` one, which means the kernel wrote `volatile
/// __shared__ T x`: the qualifier would apply to the guard, not to x.
template <class G>
constexpr const SharedGuard* shared_guard_address(G* guard) {
  static_assert(!std::is_volatile_v<G>,
                "scanlab cpu backend: write `__shared__ volatile T x`, not `volatile __shared__ T x`");
  return guard;
}

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

// `__shared__` (see the file comment): a guard, its registration, then the variable itself.
#define SCANLAB_EMU_SHARED_(n) SCANLAB_EMU_SHARED_N_(n)
#define SCANLAB_EMU_SHARED_N_(n)                                                                      \
  thread_local ::scanlab::emu::detail::SharedGuard scanlab_shared_guard_##n [[gnu::aligned(1)]];    \
  [[maybe_unused]] static constexpr auto scanlab_shared_site_##n = [] {                              \
    return ::scanlab::emu::detail::SharedGuardSite{                                                  \
        ::scanlab::emu::detail::shared_guard_address(&scanlab_shared_guard_##n), __FILE__, __LINE__}; \
  };                                                                                                 \
  [[maybe_unused]] static constexpr const bool* scanlab_shared_registered_##n =                      \
      &::scanlab::emu::detail::SharedGuardRegistration<decltype(scanlab_shared_site_##n)>::done;     \
  thread_local

// ---- built-in variables -------------------------------------------------------------------------
#define threadIdx (*::scanlab::emu::detail::tls_thread_idx)
#define blockIdx (::scanlab::emu::detail::tls_block->idx)
#define blockDim (::scanlab::emu::detail::tls_block->dim)
#define gridDim (::scanlab::emu::detail::tls_block->grid_dim)
inline constexpr int warpSize = 32;

// ---- barriers and warp operations ---------------------------------------------------------------
inline void __syncthreads(::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  ::scanlab::emu::detail::syncthreads(w);
}
inline int __syncthreads_count(int p, ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  return ::scanlab::emu::detail::syncthreads_count(p, w);
}
// (Threads that exited do not take part, as on a GPU, so these are not derived from blockDim.)
inline int __syncthreads_and(int p, ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  return ::scanlab::emu::detail::syncthreads_and(p, w);
}
inline int __syncthreads_or(int p, ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  return ::scanlab::emu::detail::syncthreads_or(p, w);
}
inline void __syncwarp(unsigned mask = 0xffffffffu,
                       ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  ::scanlab::emu::detail::syncwarp(mask, w);
}

#define SCANLAB_EMU_SHUFFLE(fn, kind)                                                            \
  template <class T>                                                                             \
  inline T fn(unsigned mask, T var, int arg, int width = warpSize,                               \
              ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {                        \
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
                              ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  return ::scanlab::emu::detail::vote(::scanlab::emu::detail::Vote::ballot, mask, p, w);
}
inline int __any_sync(unsigned mask, int p, ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  return static_cast<int>(::scanlab::emu::detail::vote(::scanlab::emu::detail::Vote::any, mask, p, w));
}
inline int __all_sync(unsigned mask, int p, ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  return static_cast<int>(::scanlab::emu::detail::vote(::scanlab::emu::detail::Vote::all, mask, p, w));
}
inline unsigned __activemask() { return ::scanlab::emu::detail::active_mask(); }

// ---- fences and atomics -------------------------------------------------------------------------
inline void __threadfence(::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  ::scanlab::emu::detail::threadfence(w);
}
inline void __threadfence_block(::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  ::scanlab::emu::detail::threadfence(w);
}

namespace scanlab::emu::detail {
/// std::atomic_ref's operations that the CUDA atomics need, on the __atomic builtins of GCC and
/// Clang (sequentially consistent). Ours because not every standard library has std::atomic_ref
/// yet (libc++ 14 does not); the builtins are what libstdc++'s std::atomic_ref uses too.
template <class T>
class AtomicRef {
  static_assert(std::is_trivially_copyable_v<T>, "atomics need a trivially copyable type");

 public:
  explicit AtomicRef(T& object) : p_(&object) {}
  T load() const {
    T value;
    __atomic_load(p_, &value, __ATOMIC_SEQ_CST);
    return value;
  }
  T exchange(T value) {
    T old;
    __atomic_exchange(p_, &value, &old, __ATOMIC_SEQ_CST);
    return old;
  }
  bool compare_exchange_strong(T& expected, T desired) {
    return __atomic_compare_exchange(p_, &expected, &desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  }
  bool compare_exchange_weak(T& expected, T desired) {
    return __atomic_compare_exchange(p_, &expected, &desired, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  }
  T fetch_add(T v) {
    if constexpr (std::is_integral_v<T>) {
      return __atomic_fetch_add(p_, v, __ATOMIC_SEQ_CST);
    } else {
      return update([v](T old) { return static_cast<T>(old + v); });
    }
  }
  T fetch_sub(T v) {
    if constexpr (std::is_integral_v<T>) {
      return __atomic_fetch_sub(p_, v, __ATOMIC_SEQ_CST);
    } else {
      return update([v](T old) { return static_cast<T>(old - v); });
    }
  }
  T fetch_and(T v) { return __atomic_fetch_and(p_, v, __ATOMIC_SEQ_CST); }
  T fetch_or(T v) { return __atomic_fetch_or(p_, v, __ATOMIC_SEQ_CST); }
  T fetch_xor(T v) { return __atomic_fetch_xor(p_, v, __ATOMIC_SEQ_CST); }

 private:
  /// A floating-point add: a compare-exchange loop, as std::atomic_ref's is.
  template <class F>
  T update(F next) {
    T old = load();
    while (!compare_exchange_weak(old, next(old))) {
    }
    return old;
  }
  T* p_;
};

template <class T>
inline AtomicRef<T> atomic_at(T* address, Where where) {
  memory_point(where);
  return AtomicRef<T>(*address);
}
}  // namespace scanlab::emu::detail

namespace scanlab::emu::detail {
/// Tells the watchdog when an atomic changed memory (progress); see memory_changed().
inline void note_change(bool changed) {
  if (changed) memory_changed();
}
}  // namespace scanlab::emu::detail

template <class T>
inline T atomicAdd(T* a, T v, ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  T old = ::scanlab::emu::detail::atomic_at(a, w).fetch_add(v);
  ::scanlab::emu::detail::note_change(v != T(0));
  return old;
}
template <class T>
inline T atomicSub(T* a, T v, ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  T old = ::scanlab::emu::detail::atomic_at(a, w).fetch_sub(v);
  ::scanlab::emu::detail::note_change(v != T(0));
  return old;
}
template <class T>
inline T atomicExch(T* a, T v, ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  T old = ::scanlab::emu::detail::atomic_at(a, w).exchange(v);
  ::scanlab::emu::detail::note_change(!(old == v));
  return old;
}
template <class T>
inline T atomicCAS(T* a, T compare, T v, ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  const T expected = compare;
  const bool swapped = ::scanlab::emu::detail::atomic_at(a, w).compare_exchange_strong(compare, v);
  ::scanlab::emu::detail::note_change(swapped && !(expected == v));
  return compare;  // the old value, whether or not the swap happened
}
template <class T>
inline T atomicMax(T* a, T v, ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  auto ref = ::scanlab::emu::detail::atomic_at(a, w);
  T old = ref.load();
  while (old < v && !ref.compare_exchange_weak(old, v)) {
  }
  ::scanlab::emu::detail::note_change(old < v);
  return old;
}
template <class T>
inline T atomicMin(T* a, T v, ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  auto ref = ::scanlab::emu::detail::atomic_at(a, w);
  T old = ref.load();
  while (v < old && !ref.compare_exchange_weak(old, v)) {
  }
  ::scanlab::emu::detail::note_change(v < old);
  return old;
}
template <class T>
inline T atomicAnd(T* a, T v, ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  static_assert(std::is_integral_v<T>, "atomicAnd needs an integer type");
  T old = ::scanlab::emu::detail::atomic_at(a, w).fetch_and(v);
  ::scanlab::emu::detail::note_change((old & v) != old);
  return old;
}
template <class T>
inline T atomicOr(T* a, T v, ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  static_assert(std::is_integral_v<T>, "atomicOr needs an integer type");
  T old = ::scanlab::emu::detail::atomic_at(a, w).fetch_or(v);
  ::scanlab::emu::detail::note_change((old | v) != old);
  return old;
}
template <class T>
inline T atomicXor(T* a, T v, ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  static_assert(std::is_integral_v<T>, "atomicXor needs an integer type");
  T old = ::scanlab::emu::detail::atomic_at(a, w).fetch_xor(v);
  ::scanlab::emu::detail::note_change(v != T(0));
  return old;
}
/// CUDA's atomicInc: old >= limit ? 0 : old + 1, stored; returns old.
inline unsigned atomicInc(unsigned* a, unsigned limit,
                          ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  auto ref = ::scanlab::emu::detail::atomic_at(a, w);
  unsigned old = ref.load();
  while (!ref.compare_exchange_weak(old, old >= limit ? 0u : old + 1u)) {
  }
  ::scanlab::emu::detail::note_change(old != (old >= limit ? 0u : old + 1u));
  return old;
}
/// CUDA's atomicDec: (old == 0 || old > limit) ? limit : old - 1, stored; returns old.
inline unsigned atomicDec(unsigned* a, unsigned limit,
                          ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
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
