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
///   An array declared in a kernel or device function (`__shared__ T a[N];`, alone on its line) is
///   rewritten by the build (common/cmake/cpu_sources.py) into a reference to a per-block array
///   between guard pages (static_shared below): a read or write past either end, however far, is a
///   "memory error" naming the array, the element, the block, the thread and the line.
///   Write qualifiers after it (`__shared__ volatile int flag`), and use scanlab::dynamic_shared<T>()
///   for dynamic shared memory (`extern __shared__` does not compile on this backend: its error names
///   it, see SCANLAB_EMU_SHARED_N_).
/// - `__syncthreads()` is a counted barrier of the block's threads that have not exited.
/// - Warp operations are a rendezvous of the lanes named in the mask, independent of block barriers.
/// - Atomics are real atomics (detail::AtomicRef, on the compiler's `__atomic` builtins), and each one is a point where the emulator may run
///   another thread, so a spin loop on an atomic lets the others progress (or trips the watchdog).
///   They are the overloads CUDA declares, so their arguments convert as with nvcc.
/// - The integer intrinsics (`__ffs`, `__popc`, `__clz`, `__brev` and their 64-bit forms) and `__ldg`.
/// - `<cooperative_groups.h>` and `<cuda/atomic>` have versions for this backend in
///   common/emu/cuda_headers/ (on a cpu kernel library's include path), built on the functions here.
/// What is supported and what is not: common/emu/README.md, "What the cpu backend takes of CUDA's
/// device API"; tested by common/emu/tests/compat/.
#pragma once

#if defined(__CUDACC__)
#error "emu/cuda_shim.hpp is for the host compiler (the cpu backend); nvcc uses the real CUDA"
#endif

#include <atomic>
#include <bit>
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
/// start, between guard pages and guard zones. `element_size` and `name`: of the array the kernel
/// sees (for memory error reports; 0 and null if not known).
void* dynamic_shared_memory(std::size_t element_size = 0, const char* name = nullptr);

/// A static `__shared__` array as the build rewrites it (common/cmake/cpu_sources.py): its name and
/// the place of its declaration, one constant per declaration (and per template instantiation).
struct StaticSharedSite {
  const char* name;
  const char* file;
  unsigned line;
};
/// The calling thread's block's instance of the array declared at `site`: between guard pages where
/// it can be (Worker::static_array), poisoned at the start of each block, the same address for every
/// thread of the block.
void* static_shared_array(const StaticSharedSite& site, std::size_t bytes, std::size_t align,
                          std::size_t element_size);
/// `__shared__ T a[N];` in a kernel or device function, as the build rewrites it:
/// `T (&a)[N] = static_shared<T[N], 0>(site);` (Align: an `__align__(n)` of the declaration, or 0).
template <class A, std::size_t Align>
A& static_shared(const StaticSharedSite& site) {
  constexpr std::size_t align = Align > alignof(A) ? Align : alignof(A);
  return *static_cast<A*>(static_shared_array(site, sizeof(A), align, sizeof(std::remove_all_extents_t<A>)));
}

/// Registers a shared array to be recorded after every barrier while tracing is on.
using FormatFn = void (*)(const void* element, char* buffer, std::size_t buffer_size);
void trace_shared(const char* name, const void* data, std::size_t count, std::size_t element_size,
                  FormatFn format);

/// A failed `assert` in a kernel thread: throws, and the launch reports it with the thread's
/// coordinates.
[[noreturn]] void assert_fail(const char* expression, const char* file, unsigned line);

}  // namespace scanlab::emu::detail

// `__shared__` (see the file comment): a guard, its registration, then the variable itself. First, a
// constant that only says no: written `extern __shared__ T a[];` in a function, the `extern` lands on
// it, and the compiler's first error names it (an `extern` with an initializer), so the message says
// what to write instead. (The macro cannot make `extern __shared__` work: its `T a[]` comes after it.)
#define SCANLAB_EMU_SHARED_(n) SCANLAB_EMU_SHARED_N_(n)
#define SCANLAB_EMU_SHARED_N_(n)                                                                      \
  constexpr int extern_shared_is_not_supported_on_the_cpu_backend_use_scanlab_dynamic_shared_##n     \
      [[maybe_unused]] = 0;                                                                          \
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
// (All of a launch runs in this one process: a fence for the whole system orders no more than one
// for the device.)
inline void __threadfence_system(::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()) {
  ::scanlab::emu::detail::threadfence(w);
}

/// `__ldg`: a load through the GPU's read-only data cache; here a plain load. CUDA declares it for
/// the arithmetic types and its vector types; the shim has no vector types but uint3 and dim3.
template <class T>
inline T __ldg(const T* p) {
  static_assert(std::is_arithmetic_v<T>, "__ldg takes a pointer to an arithmetic type");
  return *p;
}

// ---- integer intrinsics -------------------------------------------------------------------------
// The bit intrinsics of CUDA's crt/device_functions.h, with its parameter types (so a call converts
// its argument as nvcc does: `__clz(mask)` with an unsigned mask takes the same bits) and its results
// for 0: __ffs(0) = 0, __clz(0) = 32, __clzll(0) = 64.
/// The position (1 = least significant) of the lowest set bit; 0 if none.
inline int __ffs(int x) {
  const auto u = static_cast<unsigned>(x);
  return u == 0 ? 0 : std::countr_zero(u) + 1;
}
inline int __ffsll(long long int x) {
  const auto u = static_cast<unsigned long long>(x);
  return u == 0 ? 0 : std::countr_zero(u) + 1;
}
/// The number of set bits.
inline int __popc(unsigned int x) { return std::popcount(x); }
inline int __popcll(unsigned long long int x) { return std::popcount(x); }
/// The number of zero bits above the highest set bit (32 or 64 for 0).
inline int __clz(int x) { return std::countl_zero(static_cast<unsigned>(x)); }
inline int __clzll(long long int x) { return std::countl_zero(static_cast<unsigned long long>(x)); }
/// The bits in reverse order: bit 0 becomes bit 31 (63).
inline unsigned int __brev(unsigned int x) {
  unsigned int r = 0;
  for (int i = 0; i < 32; ++i, x >>= 1) r = (r << 1) | (x & 1u);
  return r;
}
inline unsigned long long int __brevll(unsigned long long int x) {
  unsigned long long int r = 0;
  for (int i = 0; i < 64; ++i, x >>= 1) r = (r << 1) | (x & 1ull);
  return r;
}

namespace scanlab::emu::detail {
/// The memory order a failed compare-exchange (a load) may have for a read-modify-write of order
/// `order`, as C++ derives it: a load cannot release.
constexpr int load_part(int order) {
  return order == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE : order == __ATOMIC_RELEASE ? __ATOMIC_RELAXED : order;
}

/// std::atomic_ref's operations that the CUDA atomics need, on the __atomic builtins of GCC and
/// Clang. Ours because not every standard library has std::atomic_ref yet (libc++ 14 does not); the
/// builtins are what libstdc++'s std::atomic_ref uses too. The memory order (an __ATOMIC_ constant)
/// is a template argument, so that the builtin always gets a constant: given a variable, GCC makes
/// every access sequentially consistent, and ThreadSanitizer would see a relaxed load as an acquire.
/// CUDA's atomicAdd & co. are relaxed on a GPU; here they keep the default, sequentially consistent
/// (stronger, never weaker); cuda::atomic_ref (<cuda/atomic>) passes the order the kernel asks for.
template <class T>
class AtomicRef {
  static_assert(std::is_trivially_copyable_v<T>, "atomics need a trivially copyable type");

 public:
  explicit AtomicRef(T& object) : p_(&object) {}
  template <int Order = __ATOMIC_SEQ_CST>
  T load() const {
    T value;
    __atomic_load(p_, &value, Order);
    return value;
  }
  template <int Order = __ATOMIC_SEQ_CST>
  void store(T value) {
    __atomic_store(p_, &value, Order);
  }
  template <int Order = __ATOMIC_SEQ_CST>
  T exchange(T value) {
    T old;
    __atomic_exchange(p_, &value, &old, Order);
    return old;
  }
  template <int Success = __ATOMIC_SEQ_CST, int Failure = load_part(Success)>
  bool compare_exchange_strong(T& expected, T desired) {
    return __atomic_compare_exchange(p_, &expected, &desired, false, Success, Failure);
  }
  template <int Success = __ATOMIC_SEQ_CST, int Failure = load_part(Success)>
  bool compare_exchange_weak(T& expected, T desired) {
    return __atomic_compare_exchange(p_, &expected, &desired, true, Success, Failure);
  }
  template <int Order = __ATOMIC_SEQ_CST>
  T fetch_add(T v) {
    if constexpr (std::is_integral_v<T>) {
      return __atomic_fetch_add(p_, v, Order);
    } else {
      return update<Order>([v](T old) { return static_cast<T>(old + v); });
    }
  }
  template <int Order = __ATOMIC_SEQ_CST>
  T fetch_sub(T v) {
    if constexpr (std::is_integral_v<T>) {
      return __atomic_fetch_sub(p_, v, Order);
    } else {
      return update<Order>([v](T old) { return static_cast<T>(old - v); });
    }
  }
  template <int Order = __ATOMIC_SEQ_CST>
  T fetch_and(T v) { return __atomic_fetch_and(p_, v, Order); }
  template <int Order = __ATOMIC_SEQ_CST>
  T fetch_or(T v) { return __atomic_fetch_or(p_, v, Order); }
  template <int Order = __ATOMIC_SEQ_CST>
  T fetch_xor(T v) { return __atomic_fetch_xor(p_, v, Order); }
  /// Stores `next(old)` unless `keep(old)`: a compare-exchange loop, as std::atomic_ref's
  /// floating-point add is. Returns the old value.
  template <int Order = __ATOMIC_SEQ_CST, class Keep, class Next>
  T update_unless(Keep keep, Next next) {
    T old = load<load_part(Order)>();
    while (!keep(old) && !compare_exchange_weak<Order>(old, next(old))) {
    }
    return old;
  }

 private:
  template <int Order, class F>
  T update(F next) {
    return update_unless<Order>([](const T&) { return false; }, next);
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

/// Watched atomics (scanlab::emu::watch_atomics, runtime.hpp): true while a range of memory is
/// watched; then every atomic calls record_atomic, which records it if its address is in a watched
/// range. Off, an atomic pays one load of this flag.
extern bool atomic_watch_on;
void record_atomic(const void* address, std::size_t size, const void* before);
template <class T>
inline void watch_atomic(const T* address, const T& before) {
  if (atomic_watch_on) [[unlikely]] record_atomic(address, sizeof(T), &before);
}
}  // namespace scanlab::emu::detail

namespace scanlab::emu::detail {
// What each atomic does, once per operation for every type: a memory point (the scheduler may run
// another thread), the atomic itself, and a note to the watchdog when memory changed. The CUDA
// names below are plain overloads of these, one per type CUDA declares, as in CUDA's headers: so an
// argument converts as nvcc converts it (`atomicAdd(&flags[b], 1)` on an `unsigned*`), which a
// template taking `(T*, T)` could not do (it cannot deduce T from `unsigned*` and `int`).
// cuda::atomic_ref and cuda::atomic (<cuda/atomic>, common/emu/cuda_headers/) call the same
// functions with the memory order the kernel gives (`Order`, an __ATOMIC_ constant).
template <int Order = __ATOMIC_SEQ_CST, class T>
T atomic_load(T* a, Where w) {
  const T value = atomic_at(a, w).template load<Order>();
  watch_atomic(a, value);
  return value;
}
template <int Order = __ATOMIC_SEQ_CST, class T>
void atomic_store(T* a, T v, Where w) {
  auto ref = atomic_at(a, w);
  // Whether it changes memory (for the watchdog and the block schedule): a release store of a
  // flag is how a look-back publishes, so it must count as an atomic change.
  const T old = ref.template load<__ATOMIC_RELAXED>();
  ref.template store<Order>(v);
  watch_atomic(a, old);
  note_change(std::memcmp(&old, &v, sizeof(T)) != 0);
}
template <int Order = __ATOMIC_SEQ_CST, class T>
T atomic_add(T* a, T v, Where w) {
  T old = atomic_at(a, w).template fetch_add<Order>(v);
  watch_atomic(a, old);
  note_change(v != T(0));
  return old;
}
template <int Order = __ATOMIC_SEQ_CST, class T>
T atomic_sub(T* a, T v, Where w) {
  T old = atomic_at(a, w).template fetch_sub<Order>(v);
  watch_atomic(a, old);
  note_change(v != T(0));
  return old;
}
template <int Order = __ATOMIC_SEQ_CST, class T>
T atomic_exch(T* a, T v, Where w) {
  T old = atomic_at(a, w).template exchange<Order>(v);
  watch_atomic(a, old);
  note_change(!(old == v));
  return old;
}
/// compare_exchange: stores `desired` if `*a` holds `expected`; otherwise loads `*a` into `expected`.
template <int Success = __ATOMIC_SEQ_CST, int Failure = load_part(Success), class T>
bool atomic_compare_exchange(T* a, T& expected, T desired, bool weak, Where w) {
  const T compare = expected;
  auto ref = atomic_at(a, w);
  const bool swapped = weak ? ref.template compare_exchange_weak<Success, Failure>(expected, desired)
                            : ref.template compare_exchange_strong<Success, Failure>(expected, desired);
  watch_atomic(a, swapped ? compare : expected);  // the value it found
  note_change(swapped && !(compare == desired));
  return swapped;
}
template <class T>
T atomic_cas(T* a, T compare, T v, Where w) {
  atomic_compare_exchange(a, compare, v, false, w);
  return compare;  // the old value, whether or not the swap happened
}
template <int Order = __ATOMIC_SEQ_CST, class T>
T atomic_max(T* a, T v, Where w) {
  const T old = atomic_at(a, w).template update_unless<Order>([v](T x) { return !(x < v); }, [v](T) { return v; });
  watch_atomic(a, old);
  note_change(old < v);
  return old;
}
template <int Order = __ATOMIC_SEQ_CST, class T>
T atomic_min(T* a, T v, Where w) {
  const T old = atomic_at(a, w).template update_unless<Order>([v](T x) { return !(v < x); }, [v](T) { return v; });
  watch_atomic(a, old);
  note_change(v < old);
  return old;
}
template <int Order = __ATOMIC_SEQ_CST, class T>
T atomic_and(T* a, T v, Where w) {
  T old = atomic_at(a, w).template fetch_and<Order>(v);
  watch_atomic(a, old);
  note_change((old & v) != old);
  return old;
}
template <int Order = __ATOMIC_SEQ_CST, class T>
T atomic_or(T* a, T v, Where w) {
  T old = atomic_at(a, w).template fetch_or<Order>(v);
  watch_atomic(a, old);
  note_change((old | v) != old);
  return old;
}
template <int Order = __ATOMIC_SEQ_CST, class T>
T atomic_xor(T* a, T v, Where w) {
  T old = atomic_at(a, w).template fetch_xor<Order>(v);
  watch_atomic(a, old);
  note_change(v != T(0));
  return old;
}
/// CUDA's atomicInc: old >= limit ? 0 : old + 1, stored; returns old.
inline unsigned atomic_inc(unsigned* a, unsigned limit, Where w) {
  auto ref = atomic_at(a, w);
  unsigned old = ref.load();
  while (!ref.compare_exchange_weak(old, old >= limit ? 0u : old + 1u)) {
  }
  watch_atomic(a, old);
  note_change(old != (old >= limit ? 0u : old + 1u));
  return old;
}
/// CUDA's atomicDec: (old == 0 || old > limit) ? limit : old - 1, stored; returns old.
inline unsigned atomic_dec(unsigned* a, unsigned limit, Where w) {
  auto ref = atomic_at(a, w);
  unsigned old = ref.load();
  while (!ref.compare_exchange_weak(old, (old == 0u || old > limit) ? limit : old - 1u)) {
  }
  watch_atomic(a, old);
  note_change(old != ((old == 0u || old > limit) ? limit : old - 1u));
  return old;
}
}  // namespace scanlab::emu::detail

// The atomics, with the overloads CUDA 13 declares (device_atomic_functions.h, sm_*_atomic_functions.h,
// crt/sm_70_rt.h). Not here: the half, bfloat16 and vector (float2, float4) ones, the 128-bit
// atomicExch/atomicCAS templates of sm_90, and the _block and _system scoped variants.
// The last parameter (the call's place, for the scheduler's messages) is filled in by the compiler.
#define SCANLAB_EMU_HERE ::scanlab::emu::detail::Where w = ::scanlab::emu::detail::Where::current()
#define SCANLAB_EMU_ATOMIC(name, impl, T) \
  inline T name(T* a, T v, SCANLAB_EMU_HERE) { return ::scanlab::emu::detail::impl(a, v, w); }

SCANLAB_EMU_ATOMIC(atomicAdd, atomic_add, int)
SCANLAB_EMU_ATOMIC(atomicAdd, atomic_add, unsigned int)
SCANLAB_EMU_ATOMIC(atomicAdd, atomic_add, unsigned long long int)
SCANLAB_EMU_ATOMIC(atomicAdd, atomic_add, float)
SCANLAB_EMU_ATOMIC(atomicAdd, atomic_add, double)

SCANLAB_EMU_ATOMIC(atomicSub, atomic_sub, int)  // (no 64-bit atomicSub in CUDA)
SCANLAB_EMU_ATOMIC(atomicSub, atomic_sub, unsigned int)

SCANLAB_EMU_ATOMIC(atomicExch, atomic_exch, int)
SCANLAB_EMU_ATOMIC(atomicExch, atomic_exch, unsigned int)
SCANLAB_EMU_ATOMIC(atomicExch, atomic_exch, unsigned long long int)
SCANLAB_EMU_ATOMIC(atomicExch, atomic_exch, float)  // (no double atomicExch in CUDA)

SCANLAB_EMU_ATOMIC(atomicMin, atomic_min, int)
SCANLAB_EMU_ATOMIC(atomicMin, atomic_min, unsigned int)
SCANLAB_EMU_ATOMIC(atomicMin, atomic_min, long long int)
SCANLAB_EMU_ATOMIC(atomicMin, atomic_min, unsigned long long int)
SCANLAB_EMU_ATOMIC(atomicMax, atomic_max, int)
SCANLAB_EMU_ATOMIC(atomicMax, atomic_max, unsigned int)
SCANLAB_EMU_ATOMIC(atomicMax, atomic_max, long long int)
SCANLAB_EMU_ATOMIC(atomicMax, atomic_max, unsigned long long int)

SCANLAB_EMU_ATOMIC(atomicAnd, atomic_and, int)
SCANLAB_EMU_ATOMIC(atomicAnd, atomic_and, unsigned int)
SCANLAB_EMU_ATOMIC(atomicAnd, atomic_and, long long int)
SCANLAB_EMU_ATOMIC(atomicAnd, atomic_and, unsigned long long int)
SCANLAB_EMU_ATOMIC(atomicOr, atomic_or, int)
SCANLAB_EMU_ATOMIC(atomicOr, atomic_or, unsigned int)
SCANLAB_EMU_ATOMIC(atomicOr, atomic_or, long long int)
SCANLAB_EMU_ATOMIC(atomicOr, atomic_or, unsigned long long int)
SCANLAB_EMU_ATOMIC(atomicXor, atomic_xor, int)
SCANLAB_EMU_ATOMIC(atomicXor, atomic_xor, unsigned int)
SCANLAB_EMU_ATOMIC(atomicXor, atomic_xor, long long int)
SCANLAB_EMU_ATOMIC(atomicXor, atomic_xor, unsigned long long int)

SCANLAB_EMU_ATOMIC(atomicInc, atomic_inc, unsigned int)  // unsigned only, in CUDA too
SCANLAB_EMU_ATOMIC(atomicDec, atomic_dec, unsigned int)
#undef SCANLAB_EMU_ATOMIC

#define SCANLAB_EMU_ATOMIC_CAS(T)                                  \
  inline T atomicCAS(T* a, T compare, T v, SCANLAB_EMU_HERE) {     \
    return ::scanlab::emu::detail::atomic_cas(a, compare, v, w);   \
  }
SCANLAB_EMU_ATOMIC_CAS(int)
SCANLAB_EMU_ATOMIC_CAS(unsigned int)
SCANLAB_EMU_ATOMIC_CAS(unsigned long long int)
SCANLAB_EMU_ATOMIC_CAS(unsigned short int)
#undef SCANLAB_EMU_ATOMIC_CAS
#undef SCANLAB_EMU_HERE

// ---- assert -------------------------------------------------------------------------------------
// A failed assert in a kernel thread throws instead of aborting, so the launch can say which thread.
// (Kernel files get <cassert> through this header; including it again afterwards would undo this.)
#undef assert
#define assert(expression)                                                                       \
  ((expression) ? static_cast<void>(0)                                                           \
                : ::scanlab::emu::detail::assert_fail(#expression, __FILE__, __LINE__))
