// Internal types of scanlab's SIMT emulator. Not installed, not included by kernels.
//
// The picture: a launch is split into blocks; a Worker (one OS thread) runs one block at a time;
// a Block runs each of its CUDA threads on its own fiber (Boost.Context), one at a time, each until
// it reaches a sync point; there it decides who runs next and switches straight to that thread. The
// block's scheduler (on the worker's own stack) starts the block and takes over when nobody can run.
#pragma once

// Boost and the standard library first: cuda_shim.hpp redefines `assert`.
#include <boost/context/fiber.hpp>

#include <signal.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "scanlab/emu/runtime.hpp"
#include "scanlab/emu/cuda_shim.hpp"
#include "scanlab/emu/wait_arrays.hpp"
// The emulator's own code spells the built-ins out; drop the kernel-side macros.
#undef threadIdx
#undef blockIdx
#undef blockDim
#undef gridDim

// GCC says __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; Clang says it through __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define SCANLAB_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SCANLAB_EMU_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define SCANLAB_EMU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SCANLAB_EMU_TSAN 1
#endif
#endif
// The stack-overflow report is a SIGSEGV handler. ASan and TSan install their own and report the
// fault themselves (with a stack trace), so the emulator stays out of their way.
#if !defined(SCANLAB_EMU_ASAN) && !defined(SCANLAB_EMU_TSAN)
#define SCANLAB_EMU_OVERFLOW_REPORT 1
#endif
// Dynamic shared memory between PROT_NONE pages, whose faults become memory errors (memory_fault.cpp
// turns faults into reports on x86-64 only).
#if defined(SCANLAB_EMU_OVERFLOW_REPORT) && defined(__x86_64__)
#define SCANLAB_EMU_SHARED_GUARD_PAGES 1
#endif

#if defined(SCANLAB_EMU_TSAN)
// Exported by the ThreadSanitizer runtime, not declared in <sanitizer/tsan_interface.h>.
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
extern "C" void AnnotateIgnoreSyncBegin(const char* file, int line);
extern "C" void AnnotateIgnoreSyncEnd(const char* file, int line);
#endif

namespace scanlab::emu::impl {

namespace ctx = boost::context;
using detail::Where;

constexpr unsigned kWarpSize = 32;
constexpr unsigned kMaxWarps = kMaxBlockThreads / kWarpSize;

// ---- stacks --------------------------------------------------------------------------------------

/// Fiber stacks of one worker: mmap'ed once, each with a PROT_NONE guard page below it (a stack
/// overflow faults instead of silently corrupting the neighbour), reused by every block.
class StackPool {
 public:
  StackPool() = default;
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;
  ~StackPool();
  /// Makes at least `count` stacks of `bytes` usable bytes available (drops them all if the size
  /// changed).
  void reserve(std::size_t count, std::size_t bytes);
  /// Whether reserve(n, bytes) would keep the stacks there are (none, or the same size).
  bool holds(std::size_t bytes) const;
  /// Boost's description of stack `i`: sp is its top (stacks grow down), size its usable bytes.
  ctx::stack_context context(std::size_t i) const;
  /// Usable bytes per stack (settings().stack_bytes rounded up to whole pages).
  std::size_t stack_bytes() const { return bytes_; }
  /// Whether `address` lies in the guard page of one of these stacks. Async-signal-safe (it reads,
  /// allocates nothing): the SIGSEGV handler asks it.
  bool in_guard_page(const void* address) const noexcept;

 private:
  void release();
  std::vector<void*> regions_;  // each: guard page, then the stack
  std::size_t bytes_ = 0;       // usable bytes per stack (a multiple of the page size)
  std::vector<unsigned> valgrind_ids_;
};

/// The alternate signal stack of one worker's OS thread, on which the stack-overflow report runs: a
/// fiber stack that overflowed has no room left for a signal handler. The first one also installs
/// the SIGSEGV handler (stack_pool.cpp). Does nothing in ASan and TSan builds, and leaves alone a
/// thread that already has an alternate stack.
class SignalStack {
 public:
  SignalStack();
  ~SignalStack();
  SignalStack(const SignalStack&) = delete;
  SignalStack& operator=(const SignalStack&) = delete;

 private:
  void* memory_ = nullptr;  ///< ours, if we installed one
  std::size_t size_ = 0;
};

/// Boost calls this when a fiber ends; the pool owns the memory, so there is nothing to do.
struct PooledStack {
  ctx::stack_context allocate() { return {}; }  // never used: fibers are built on preallocated stacks
  void deallocate(ctx::stack_context&) noexcept {}
};

// ---- static shared memory of a kernel library (static_shared.cpp) --------------------------------

/// A guard zone of a kernel library's static shared memory: an anchor, or the guard of a variable.
struct StaticZone {
  std::size_t offset = 0;  ///< from the leading anchor
  std::size_t size = 0;
  const char* file = nullptr;  ///< of the `__shared__` declaration it belongs to; null: an anchor
  unsigned line = 0;
};

/// Where a kernel library's static shared memory holds variables and guard zones: the same offsets
/// in every OS thread's instance.
struct StaticLayout {
  std::vector<StaticZone> zones;  ///< by offset: the leading anchor, the guards, the trailing anchor
  std::vector<std::pair<std::size_t, std::size_t>> variables;  ///< (offset, size): between the zones
  bool guards_before_variables = false;  ///< a guard precedes its own variable (else follows it)
  std::string error;  ///< why the layout cannot be trusted: no kernel of the library is launched
  /// "brent_kung.cuh:133": the declaration of the variable right before / after zone `zone`, if any.
  std::string variable_before(std::size_t zone) const;
  std::string variable_after(std::size_t zone) const;
};
/// The layout of the kernel library whose module_static_shared is `module` (made and checked on
/// first use, from the guards the library registered when it was loaded).
const StaticLayout& static_layout(StaticSharedFn module);
/// Bytes at either end of a large zone (an anchor) that every barrier checks; the block's end checks
/// all of it.
inline constexpr std::size_t kBarrierCheckBytes = 512;
/// A damaged guard zone of the static shared memory: its index in StaticLayout::zones, the first and
/// the last changed byte in it; `deep`: the damage lies where only a full check looks.
struct StaticDamage {
  std::size_t zone = 0, first = 0, last = 0;
  bool deep = false;
};

// ---- one CUDA thread ----------------------------------------------------------------------------

enum class State : std::uint8_t {
  runnable,  ///< in the run queue (or running), or parked after a memory point
  barrier,   ///< waiting at __syncthreads*
  warp,      ///< waiting in a warp rendezvous
  exited,
};

enum class BarrierKind : std::uint8_t { plain, count, all, any };

enum class WarpOp : std::uint8_t { syncwarp, shfl_idx, shfl_up, shfl_down, shfl_xor, ballot, any, all };
const char* warp_op_name(WarpOp op);

/// What a lane brings to a warp rendezvous. `value` and `out` point into the lane's own (suspended)
/// stack, which stays valid until the lane resumes.
struct WarpCall {
  WarpOp op = WarpOp::syncwarp;
  unsigned mask = 0;      ///< as given by the kernel
  int arg = 0;            ///< source lane, delta or xor mask
  int width = 32;
  std::size_t size = 0;   ///< bytes of the shuffled value
  const void* value = nullptr;
  void* out = nullptr;
  int predicate = 0;
  unsigned result = 0;    ///< of a vote
};

class Block;

/// TSan race mode (settings().tsan_races): TSan sees a block's fibers as unordered, yet every
/// fiber touches the emulator's own bookkeeping at its sync points (the run queue, the thread
/// records, the values a shuffle moves between lanes). Those are the emulator's accesses, not the
/// kernel's, and they are ordered by the one-at-a-time scheduling: TSan ignores them, on the fiber
/// that makes them, while this guard lives. Does nothing outside race mode, and without TSan.
class [[nodiscard]] RaceModeIgnore {
 public:
#if defined(SCANLAB_EMU_TSAN)
  explicit RaceModeIgnore(bool race_mode) : on_(race_mode) {
    if (on_) __tsan_ignore_thread_begin();
  }
  ~RaceModeIgnore() {
    if (on_) __tsan_ignore_thread_end();
  }
#else
  explicit RaceModeIgnore(bool) {}
  ~RaceModeIgnore() {}  // not trivial, so a guard that does nothing is not an unused variable
#endif
  RaceModeIgnore(const RaceModeIgnore&) = delete;
  RaceModeIgnore& operator=(const RaceModeIgnore&) = delete;

 private:
#if defined(SCANLAB_EMU_TSAN)
  bool on_;
#endif
};

/// TSan race mode, between blocks: the emulator's own synchronisation of the OS threads that run a
/// launch's resident blocks (handing over the turn, taking the next block, reading the watchdog's
/// progress counters) must not order the blocks for TSan, or it would hide a block that reads another
/// block's data without waiting for the kernel's own flag. While this guard lives, TSan neither
/// records the calling thread's accesses nor lets its mutexes and atomics order anything.
class [[nodiscard]] SyncIgnore {
 public:
#if defined(SCANLAB_EMU_TSAN)
  explicit SyncIgnore(bool race_mode) : on_(race_mode) {
    if (on_) {
      AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
      __tsan_ignore_thread_begin();
    }
  }
  ~SyncIgnore() {
    if (on_) {
      __tsan_ignore_thread_end();
      AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
    }
  }
#else
  explicit SyncIgnore(bool) {}
  ~SyncIgnore() {}
#endif
  SyncIgnore(const SyncIgnore&) = delete;
  SyncIgnore& operator=(const SyncIgnore&) = delete;

 private:
#if defined(SCANLAB_EMU_TSAN)
  bool on_;
#endif
};

/// Thrown on a thread's fiber when its block is abandoned after an error (see
/// Block::abandon_threads). Not a std::exception, so kernel code that catches those lets it pass.
struct Abandoned {};

/// One CUDA thread. What every sync point reads and writes comes first, in one cache line (a block
/// of 1024 threads touches 1024 of these at every barrier); the warp call and the sanitizers'
/// fields follow.
struct alignas(64) CudaThread {
  uint3 idx{};
  unsigned linear = 0;
  State state = State::exited;
  bool spinning = false;   ///< the last sync point it reached was a memory point (atomic, fence)
  bool parked = false;     ///< a spinner set aside because the block is already known to be stuck
  bool abandoned = false;  ///< the block failed: on its next resume the thread unwinds and ends
  bool retiring = false;   ///< on its next resume the fiber ends (Block::retire_threads)
  bool spun = false;       ///< its memory point is at the same place as its previous one
  BarrierKind barrier_kind = BarrierKind::plain;
  int predicate = 0;       ///< of __syncthreads_count/and/or
  int barrier_result = 0;
  Where where{};           ///< where it waits, or its last memory point
  std::uint64_t ops = 0;   ///< operator applications in the current barrier interval
  /// The suspended fiber of this slot: waiting at a sync point, or, once the thread has exited,
  /// for the next block (empty while it runs, and before it is made or after it is retired).
  ctx::fiber fiber;
  Block* block = nullptr;
  WarpCall warp{};
  Where last_memory_point{};  ///< of resident blocks' stuck check (Block::check_stuck)
  /// A read or write of guarded device memory faulted (memory_fault.cpp): where, at which
  /// instruction, and whether it wrote. `faulted`: its fiber is dead (never resumed) and is dropped
  /// before the slot runs a thread again.
  std::uintptr_t fault_address = 0, fault_pc = 0;
  bool fault_write = false;
  bool faulted = false;
  /// Its last atomic on a named wait array (wait_arrays.hpp), and the place of that atomic.
  const void* waits_on = nullptr;
  Where wait_where{};
#if defined(SCANLAB_EMU_ASAN)
  void* asan_fake_stack = nullptr;
  const void* stack_bottom = nullptr;
  std::size_t stack_size = 0;
#endif
#if defined(SCANLAB_EMU_TSAN)
  void* tsan_fiber = nullptr;
  std::uint64_t sync_generation = 0;
#endif
};
static_assert(offsetof(CudaThread, warp) <= 64 || sizeof(Where) > sizeof(void*),
              "the fields of every sync point fit one cache line (with a one-word std::source_location)");

/// The counts of one barrier interval, gathered thread by thread (by Block::close_interval, and by
/// Block::complete_barrier in the same pass over the threads as the barrier's own work).
struct IntervalTally {
  IntervalStats stats;
  std::uint32_t warps = 0;  ///< a bit per warp with an applying thread; 1024 threads = 32 warps
  /// Adds thread `t`'s applications of the interval and resets them for the next one.
  void add(CudaThread& t) {
    if (t.ops == 0) return;
    ++stats.threads_applying;
    warps |= 1u << (t.linear / kWarpSize);
    stats.ops += t.ops;
    if (t.ops > stats.max_ops_per_thread) stats.max_ops_per_thread = t.ops;
    t.ops = 0;
  }
};

/// The CUDA thread running on this OS thread now; null outside kernel code.
extern thread_local CudaThread* tls_thread __attribute__((tls_model("initial-exec")));
/// The SIGSEGV handler's question (memory_fault.cpp): if `info`'s address lies in the guard of a
/// registered device array, records the fault in `t` and makes `t` go on in the report instead of
/// the faulting instruction when the handler returns (true). Async-signal-safe.
bool redirect_memory_fault(CudaThread& t, const siginfo_t& info, void* context) noexcept;
/// Registers a worker's dynamic shared memory reservation [begin, end) (memory_fault.cpp): a fault
/// there is reported against the faulting block's dynamic shared memory. unguard_array(begin) forgets it.
void guard_dynamic_shared(const void* begin, const void* end);
/// Registers a worker's reservation for rewritten static `__shared__` arrays [begin, end): a fault
/// there is reported against the faulting block's nearest such array (Worker::static_array_near).
void guard_static_shared(const void* begin, const void* end);
/// What the built-in variables read outside kernel code (see detail::tls_thread_idx).
inline constexpr uint3 kHostThreadIdx{0, 0, 0};
inline constexpr detail::BlockBuiltins kHostBlock{};

// ---- a launch, shared by the workers that run its blocks ----------------------------------------

struct BlockRecord {
  std::vector<IntervalStats> intervals;
  std::vector<TraceFrame> trace;
  std::uint64_t ops = 0;
};

class Worker;
struct Launch;

/// The resident blocks of a launch with one worker (settings().resident_blocks > 1): one per slot,
/// run one at a time. Each slot is an OS thread of the pool, so each block has its own __shared__
/// variables (they are thread-local; see README); only the slot that holds the turn runs, the others
/// wait. At the points where blocks can interleave (an atomic changed memory, every thread of a block
/// spins without progress, a block starts or ends) the running slot asks the schedule which block
/// runs next, and hands over the turn if it is another. Deterministic: only the holder of the turn
/// decides, with the launch's seed.
class Interleave {
 public:
  Interleave(const Launch& launch, unsigned slots);
  unsigned slots() const { return static_cast<unsigned>(slots_.size()); }
  /// The turn holder's slot `s` starts its next block / ended its block / has no block left.
  void block_started(unsigned s);
  void block_ended(unsigned s);
  void slot_done(unsigned s, Worker& w);
  /// An atomic of slot `s`'s block changed memory.
  void changed(unsigned s);
  /// Every thread of slot `s`'s block spun once without progress; `where`: the last spin's place.
  void stuck(unsigned s, Where where);
  /// Hands the turn to the block the schedule picks (unless it is slot `s`'s) and waits until slot
  /// `s` has it again. Returns false if the launch failed meanwhile: then every slot runs, each to
  /// abandon its own block, and none runs kernel code any more.
  bool reschedule(unsigned s, Worker& w);
  /// Waits for slot `s`'s first turn.
  bool wait_turn(unsigned s, Worker& w);
  /// The launch failed: lets every waiting slot go.
  void release_all();
  /// TSan race mode: the hand-over does not order the blocks (SyncIgnore).
  bool race_mode() const { return race_mode_; }

 private:
  struct Slot {
    bool active = false;   ///< has a block
    bool joined = false;   ///< its block changed memory with an atomic
    bool stuck = false;    ///< its block's threads all spun without progress since it last ran
    std::uint64_t start = 0, stamp = 0;  ///< when its block started / last changed memory
  };
  unsigned pick(unsigned current);
  void hand_over(unsigned next);

  std::vector<Slot> slots_;
  std::uint64_t clock_ = 0;
  Schedule schedule_;
  std::mt19937_64 rng_;
  bool race_mode_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  unsigned turn_ = 0;
  bool released_ = false;
};

struct Launch {
  const char* kernel = "";
  Extent3 grid, block;
  std::size_t dynamic_shared_bytes = 0;
  StaticSharedFn static_shared = nullptr;     ///< the kernel library's (null: none)
  const StaticLayout* static_layout = nullptr;
  const std::function<void()>* body = nullptr;
  Settings settings;

  std::vector<unsigned> sequence;          ///< linear block ids in the order they are started
  std::atomic<std::size_t> next{0};        ///< next position in `sequence` to start
  std::vector<BlockRecord> records;        ///< per position in `sequence`

  std::atomic<bool> failed{false};
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  double time_limit = 0;  ///< seconds, 0: none (wait_arrays.hpp, set_launch_time_limit)
  std::mutex mutex;                        ///< guards `error` and `workers`
  std::string error;                       ///< the first error
  std::vector<Worker*> workers;
  Interleave* interleave = nullptr;        ///< resident blocks interleaved on one worker, or null

  void fail(const std::string& message);
  /// Sum of the workers' progress counters: unchanged for the watchdog time means stuck.
  std::uint64_t progress();
  uint3 block_coordinates(unsigned linear) const;
};

// ---- a block and its scheduler ------------------------------------------------------------------

/// Lanes' states of one warp, as bit masks (bit i = lane i).
struct WarpState {
  unsigned exists = 0;   ///< lanes that are threads of the block (the last warp may be partial)
  unsigned exited = 0;
  unsigned waiting = 0;  ///< lanes in a rendezvous that has not completed
#if defined(SCANLAB_EMU_TSAN)
  std::uint64_t generation = 0;
  std::array<char, 2> sync{};
#endif
};

struct TraceArray {
  std::string name;
  const void* data;
  std::size_t count, element_size;
  detail::FormatFn format;
};

/// A block of a launch. Its coordinates and sizes (the BlockBuiltins base: idx, dim, grid_dim) are
/// what the kernel's blockIdx, blockDim and gridDim read.
class Block : public detail::BlockBuiltins {
 public:
  explicit Block(Worker& worker) : worker_(worker) {}

  /// Runs block `linear` of `launch` to its end. Throws LaunchError if it failed; returns quietly
  /// (having abandoned its threads) if another block of the launch failed.
  void run(Launch& launch, unsigned linear, BlockRecord& record);
  /// Ends the fibers that the blocks' threads run on, which otherwise live from block to block.
  void retire_threads();
  void drop_faulted_fiber(CudaThread& t);

  // Called by kernel code, on the calling thread's fiber. Each records what the thread waits for
  // and yields: the scheduling step (see after_sync()) picks the thread to run next.
  void barrier(CudaThread& t, BarrierKind kind, int predicate, Where where);
  void warp_op(CudaThread& t, const WarpCall& call, Where where);
  void memory_point(CudaThread& t, Where where);
  /// An atomic of thread `t` changed memory: progress; with resident blocks, a point where another
  /// block may run.
  void memory_changed(CudaThread& t);
  void register_trace(const char* name, const void* data, std::size_t count, std::size_t size,
                      detail::FormatFn format);
  unsigned active_mask(const CudaThread& t) const;
  Worker& worker() { return worker_; }
#if defined(SCANLAB_EMU_TSAN)
  bool race_mode() const { return tsan_races_; }
#endif
  /// For the monitor: "kernel 'k', block 3, thread 17 (its last sync point: f.cuh:12)".
  std::string running_report(unsigned linear) const;
  /// For the SIGSEGV handler: writes the one-line report that thread `t` overflowed its fiber stack
  /// to stderr. Async-signal-safe: no allocation, no lock, no stdio (block_report.cpp).
  void write_overflow_report(const CudaThread& t) const noexcept;
  /// On thread `t`'s fiber, after its access of guarded device memory faulted (memory_fault.cpp):
  /// fails the block with the report and switches to the scheduler for good.
  [[noreturn]] void memory_fault(CudaThread& t);

  void* dynamic_shared = nullptr;
  std::size_t dynamic_element_size = 0;  ///< sizeof(T) of the kernel's dynamic_shared<T>(), if called
  const char* dynamic_name = nullptr;     ///< the extern __shared__ array's name, if the build knows it
  /// Sets them (in race mode, unseen by TSan); a null name keeps the one known.
  void note_dynamic_element_size(std::size_t size, const char* name);

 private:
  friend class Worker;
  // setup and teardown
  void start_threads();
  void create_fiber(CudaThread& t);
  void abandon_threads();
  ctx::fiber thread_main(CudaThread& t, ctx::fiber&& previous);
  // switching (a null CudaThread* is the scheduler)
  void switch_to(CudaThread* from, CudaThread* to);
  void entering(CudaThread* to);
  void arrived(CudaThread* self, ctx::fiber&& previous);
  void yield(CudaThread& t);
#if defined(SCANLAB_EMU_TSAN)
  int tsan_switch_flags() const;
  RaceModeIgnore own_bookkeeping() const { return RaceModeIgnore(tsan_races_); }
#else
  RaceModeIgnore own_bookkeeping() const { return RaceModeIgnore(false); }
#endif
  // the scheduler
  void schedule();
  CudaThread* next_thread();
  void after_sync(CudaThread& t);
  void on_exit(CudaThread& t);
  void on_barrier(CudaThread& t);
  void on_warp(CudaThread& t);
  void on_memory_point(CudaThread& t);
  void complete_barrier();
  void complete_warp(unsigned warp, unsigned mask);
  void enqueue(std::vector<unsigned>& ids);
  void check_watchdog();
  // instrumentation
  void close_interval();
  void record_interval(IntervalTally& tally);
  void record_trace(const std::string& where);
  // messages
  void fail(const std::string& what);
  /// Checks the guard zones around dynamic shared memory (at every barrier and at the block's end);
  /// fails the block with a "memory error: ..." report if a write changed them. `now`: where.
  /// `full`: also the parts of the large static guard zones that barriers skip (at the block's end).
  bool check_shared_guards(const std::string& now, bool full = false);
  std::string static_damage_text(const StaticDamage& damage) const;
  std::string dynamic_damage_text(std::ptrdiff_t offset) const;
  std::string last_check_where_;  ///< where the guards were last seen intact
  std::string block_name() const;
  std::string thread_name(unsigned linear) const;
  /// thread_list(ids), but a lone thread of a multi-dimensional block named as thread_name() does.
  std::string threads_text(const std::vector<unsigned>& ids) const;
  std::string stuck_report() const;
  std::string spinner_report() const;
  std::string memory_fault_report(const CudaThread& t) const;
  std::string waiting_group(const CudaThread& member) const;
  std::string lanes_text(unsigned warp, unsigned lanes) const;

  Worker& worker_;
  Launch* launch_ = nullptr;
  BlockRecord* record_ = nullptr;
  unsigned linear_ = 0;
  unsigned count_ = 0;  ///< threads in the block
  std::vector<CudaThread> threads_ = std::vector<CudaThread>(kMaxBlockThreads);
  std::array<WarpState, kMaxWarps> warps_{};

  // Run queue: a ring of thread ids. A thread is in it at most once, so count_ slots suffice. (It
  // wraps with a compare, not `% count_`: a division at every sync point was measurable.)
  std::vector<std::uint16_t> queue_ = std::vector<std::uint16_t>(kMaxBlockThreads);
  unsigned head_ = 0, size_ = 0;
  void push(unsigned id) {
    unsigned slot = head_ + size_++;
    if (slot >= count_) slot -= count_;
    queue_[slot] = static_cast<std::uint16_t>(id);
  }
  unsigned pop() {
    const unsigned id = queue_[head_];
    if (++head_ == count_) head_ = 0;
    --size_;
    return id;
  }

  unsigned live_ = 0;             ///< threads that have not exited
  unsigned at_barrier_ = 0;       ///< of them, waiting at a barrier
  Where barrier_where_{};         ///< where the first of them waits
  bool diverged_ = false;         ///< threads wait at different barriers
  unsigned barriers_done_ = 0;
  std::string error_;
  std::mt19937_64 rng_;
  std::vector<unsigned> order_scratch_;
  std::vector<TraceArray> traced_;
  bool trace_on_ = false;

  // resident blocks (Launch::interleave)
  Interleave* interleave_ = nullptr;
  unsigned slot_ = 0;
  /// Barriers completed, threads exited, atomic changes of this block (not warp rendezvous: a warp
  /// that spins with __all_sync completes one at every round)
  std::uint64_t stuck_progress_ = 0;
  std::uint64_t stuck_mark_ = 0;  ///< stuck_progress_ when the spins below began
  unsigned stuck_spins_ = 0;      ///< memory points since, without progress
  void check_stuck(CudaThread& t);

  // watchdog
  unsigned spins_since_check_ = 0;
  std::uint64_t last_progress_ = 0;
  std::chrono::steady_clock::time_point last_progress_time_{};
#if defined(SCANLAB_EMU_TSAN)
  bool tsan_races_ = false;  ///< the launch's settings().tsan_races (read when no launch runs, too)
  std::uint64_t barrier_generation_ = 0;
  std::array<char, 2> barrier_sync_{};
  char block_start_sync_ = 0, block_end_sync_ = 0;  ///< the scheduler and the threads of a block
#endif
};

// ---- a worker: one OS thread that runs blocks ---------------------------------------------------

class Worker {
 public:
  Worker();
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// Takes blocks of `launch` until none is left or the launch failed.
  void run_blocks(Launch& launch);
  /// The same as slot `slot` of the launch's resident blocks (Launch::interleave): one turn at a time.
  void run_blocks_interleaved(Launch& launch, unsigned slot);
  unsigned slot = 0;  ///< this worker's slot in the launch's Interleave
  bool wait_turn_or_fail(Interleave& inter, unsigned my_slot);
  /// Prepares the per-block memory of a launch: stacks, dynamic shared memory, the kernel library's
  /// static shared memory.
  void prepare(const Launch& launch);
  /// Fills the static `__shared__` variables and dynamic shared memory with the poison byte, and the
  /// guard zones around dynamic shared memory and between the static variables with kGuardByte.
  void poison_shared_memory(std::size_t dynamic_bytes, unsigned char poison);
  /// The first byte of the guard zones that is not kGuardByte any more, as an offset from the start
  /// of dynamic shared memory (negative: before it); false if they are intact.
  bool damaged_guard(std::size_t dynamic_bytes, std::ptrdiff_t& offset) const;
  /// A damaged guard zone of the static shared memory. Checks all of every zone if `full`, else the
  /// kBarrierCheckBytes at each end of the large ones.
  bool damaged_static_guard(bool full, StaticDamage& damage) const;
  /// The static guard zones were found intact at the end of a block: the next block need not fill them.
  void static_guards_verified() {
    if (static_ != nullptr) static_->verified = true;
  }
  const StaticLayout* static_layout() const { return static_ != nullptr ? static_->layout : nullptr; }

  /// A static `__shared__` array the build rewrote (detail::static_shared): where this worker keeps
  /// it during the launch, and what it is, for reports.
  struct StaticArray {
    const detail::StaticSharedSite* site = nullptr;
    unsigned char* data = nullptr;
    std::size_t bytes = 0, element_size = 1;
    std::uint64_t poisoned_in = 0;  ///< the block_serial_ of the last block that poisoned it
  };
  /// The running block's instance of the array declared at `site` (the first thread of a block that
  /// reaches the declaration poisons it).
  void* static_array(const detail::StaticSharedSite& site, std::size_t bytes, std::size_t align,
                     std::size_t element_size) {
    for (StaticArray& a : static_arrays_) {
      if (a.site == &site) {
        if (a.poisoned_in != block_serial_) poison_static_array(a);
        return a.data;
      }
    }
    return add_static_array(site, bytes, align, element_size);
  }
  /// The array of this launch nearest `address` (a fault in the guard pages around them), or null.
  const StaticArray* static_array_near(std::uintptr_t address) const;
  void bump_progress() { progress.store(progress.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
  /// Release: the monitor, having read the heartbeat with acquire, may read what the worker wrote
  /// before it (the block, the running thread's last sync point) for its report.
  void bump_heartbeat() { heartbeat.store(heartbeat.load(std::memory_order_relaxed) + 1, std::memory_order_release); }

  StackPool stacks;
  SignalStack signal_stack;  ///< where the stack-overflow report runs
  ctx::fiber scheduler;  ///< the suspended scheduler, while its block's CUDA threads run
  /// Where the context that runs next stores the continuation of the one that just switched away
  /// (its CudaThread::fiber, or `scheduler`): Boost hands a suspended context to the one it resumes.
  ctx::fiber* park = nullptr;
  bool from_scheduler = false;  ///< the last switch left the scheduler (ASan then learns its stack)
  Block block{*this};

  // Read by other threads (the watchdog monitor, other workers' watchdogs): atomics, written only
  // by this worker with plain load+store (no locked instructions on the hot path).
  alignas(64) std::atomic<std::uint64_t> progress{0};   ///< barriers, warp ops, exits, stores...
  std::atomic<std::uint64_t> heartbeat{0};              ///< every switch and every counted op
  std::atomic<bool> busy{false};                        ///< running a block
  std::atomic<unsigned> current_thread{0};              ///< linear id of the running CUDA thread
  std::atomic<double> watchdog_seconds{0};

  // Only the monitor thread touches these.
  std::uint64_t monitor_seen = 0;
  std::chrono::steady_clock::time_point monitor_time{};

#if defined(SCANLAB_EMU_ASAN)
  const void* scheduler_stack_bottom = nullptr;
  std::size_t scheduler_stack_size = 0;
  void* asan_fake_stack = nullptr;
#endif
#if defined(SCANLAB_EMU_TSAN)
  void* tsan_scheduler = nullptr;
  /// A thread's fiber ended without telling TSan that the stack changed: the context it switched
  /// to tells it on arrival (see Block::thread_main).
  bool tsan_switch_on_arrival = false;
  bool last_race_mode_ = false;  ///< of the last launch prepared (see prepare())
#endif

 private:
  /// This OS thread's instance of a kernel library's static shared memory.
  struct StaticMemory {
    StaticSharedFn module = nullptr;
    const StaticLayout* layout = nullptr;
    unsigned char* base = nullptr;  ///< the leading anchor
    bool verified = false;          ///< the guard zones hold kGuardByte (checked at a block's end)
  };
  std::vector<StaticMemory> static_memory_;
  // Rewritten static arrays (static_array()): those of the running launch, in the order its threads
  // first reached them; array k lies in slot k, in the middle of a PROT_NONE reservation of its own
  // (static_map_, 2 * static_far_ bytes a slot), touching the guard page after it (forward and random
  // thread order) or before it (reverse), as dynamic shared memory does. Without guard pages (ASan,
  // TSan, other architectures, more arrays than slots) they are on the heap.
  void* add_static_array(const detail::StaticSharedSite& site, std::size_t bytes, std::size_t align,
                         std::size_t element_size);
  void poison_static_array(StaticArray& a);
  static constexpr std::size_t kStaticSlots = 16;
  std::vector<StaticArray> static_arrays_;
  std::uint64_t block_serial_ = 0;  ///< counts the blocks this worker started
  unsigned char static_poison_ = 0;
  bool static_at_start_ = false;  ///< the launch's threads run in reverse order
  unsigned char* static_map_ = nullptr;
  std::size_t static_far_ = 0;
  bool static_map_failed_ = false;
  struct StaticSlot {
    unsigned char *lo = nullptr, *hi = nullptr;  ///< the readable and writable pages
  };
  std::array<StaticSlot, kStaticSlots> static_slots_{};
  std::vector<std::unique_ptr<unsigned char[]>> static_heap_;  ///< without guard pages
  StaticMemory* static_ = nullptr;  ///< of the launch being run
  struct AlignedDelete {
    void operator()(unsigned char* p) const;
  };
  /// Dynamic shared memory between guard pages (x86-64, not under ASan or TSan): false if it cannot
  /// be mapped, and then it is on the heap between guard bytes only.
  bool map_dynamic(std::size_t bytes, bool at_start);
  void unmap_dynamic();
  // The launch's dynamic shared memory: the array at dynamic_data_, with dynamic_before_ and
  // dynamic_after_ guard bytes around it that every barrier checks.
  unsigned char* dynamic_data_ = nullptr;
  std::size_t dynamic_before_ = 0, dynamic_after_ = 0;
  // Mapped: a PROT_NONE reservation of dynamic_mapped_ bytes at dynamic_map_, whose middle part
  // (dynamic_capacity_ bytes after dynamic_far_) holds the array; [dynamic_lo_, dynamic_hi_) of it is
  // readable and writable, ending right after the array or starting right at it (see prepare()).
  unsigned char* dynamic_map_ = nullptr;
  std::size_t dynamic_mapped_ = 0, dynamic_far_ = 0;
  unsigned char *dynamic_lo_ = nullptr, *dynamic_hi_ = nullptr;
  // On the heap (without guard pages).
  std::unique_ptr<unsigned char[], AlignedDelete> dynamic_;
  std::size_t dynamic_capacity_ = 0;
};

/// The Worker of the calling OS thread (created on first use, destroyed at thread exit).
Worker& current_worker();

/// Runs `launch` on `workers` OS threads of the pool (settings().workers > 1).
void run_on_pool(Launch& launch, unsigned workers);

/// Starts the monitor thread that stops the process when a thread spins without any sync point.
void ensure_monitor();

// ---- messages -----------------------------------------------------------------------------------

/// "file.cuh:42" (the file's name without its directories).
std::string where_text(Where where);
/// "tile statuses[5]": the named wait array element at `address` (wait_arrays.hpp), or "".
std::string wait_array_element(const void* address);
/// "; tile statuses when the launch stopped: 0-4 P, 5 A, 6-12 not published", per named array; "" if none.
std::string wait_arrays_report();
/// Same file, line and column. Inline: every thread that reaches a barrier is compared with the
/// first one there.
inline bool same_place(Where a, Where b) {
  if (a.line() != b.line() || a.column() != b.column()) return false;
  return a.file_name() == b.file_name() || std::strcmp(a.file_name(), b.file_name()) == 0;
}
/// "thread 5" or "threads 0-15, 32-47" (linear ids, sorted), shortened if long.
std::string thread_list(const std::vector<unsigned>& ids);
std::string hex_mask(unsigned mask);

}  // namespace scanlab::emu::impl
