// One block of a launch: its CUDA threads on fibers, and the scheduling that runs them.
//
// One thread runs at a time. It runs kernel code until it reaches a sync point (a barrier, a warp
// operation, an atomic or fence) or exits. There, still on its own fiber, the scheduling step
// (after_sync(), then next_thread()) decides what that means, takes the next thread from the run
// queue and switches straight to it: one switch per sync point. Only when nobody can run (the block
// is done, failed or stuck) does it switch to the block's scheduler on the worker's own stack. What
// a sync point means:
//   - exited: one thread fewer to wait for at barriers;
//   - barrier: counted; when every thread that has not exited waits at the same barrier, the barrier
//     completes and they all go back to the run queue (in the thread order of the settings);
//   - warp operation: when every lane named in the mask has arrived, the operation is computed and
//     those lanes go back to the run queue;
//   - memory point: straight back to the end of the run queue, so a spinning thread lets the others
//     run (and the watchdog looks at the clock now and then).
// If the run queue is empty while threads still wait, nothing can ever wake them: the launch fails
// with a report of who waits where, instead of hanging.
//
// Why not switch back to the scheduler at every sync point? It doubles the switches, and a switch
// is the emulator's main cost: Boost's switch saves and restores the floating-point control words
// (slow instructions) and touches a stack that is cold in the cache when a block has 1024 fibers.
#include <algorithm>
#include <bit>
#include <cstring>

#include "internal.hpp"

#if defined(SCANLAB_EMU_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(SCANLAB_EMU_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

// The steps of every sync point: inlined into yield() (and thread_main()), so that a sync point is
// a few calls deep rather than ten. Each call pushes registers and a return address onto a fiber
// stack that has gone cold in the cache while 1023 other fibers ran.
#define SCANLAB_EMU_HOT inline __attribute__((always_inline))

namespace scanlab::emu::impl {

// ---- setup and teardown -------------------------------------------------------------------------

void Block::run(Launch& launch, unsigned linear, BlockRecord& record) {
  launch_ = &launch;
  record_ = &record;
  linear_ = linear;
  count_ = launch.block.count();
  idx = launch.block_coordinates(linear);
  dim = dim3(launch.block.x, launch.block.y, launch.block.z);
  grid_dim = dim3(launch.grid.x, launch.grid.y, launch.grid.z);
  error_.clear();
  diverged_ = false;
  barriers_done_ = 0;
  at_barrier_ = 0;
  traced_.clear();
  trace_on_ = launch.settings.trace && linear < launch.settings.trace_max_blocks;
  rng_.seed(launch.settings.seed ^ (0x9E3779B97F4A7C15ull * (linear + 1ull)));
  spins_since_check_ = 0;
  interleave_ = launch.interleave;
  slot_ = worker_.slot;
  stuck_mark_ = stuck_progress_ = 0;
  stuck_spins_ = 0;
  last_progress_ = launch.progress();
  last_progress_time_ = std::chrono::steady_clock::now();

  worker_.poison_shared_memory(launch.dynamic_shared_bytes, launch.settings.shared_poison);
  dynamic_element_size = 0;
  dynamic_name = nullptr;
  last_check_where_ = "the start of the block";
#if defined(SCANLAB_EMU_TSAN)
  tsan_races_ = launch.settings.tsan_races;
  __tsan_release(&block_start_sync_);  // the poisoning above happens before the threads' accesses
#endif
  {
    const RaceModeIgnore ignore = own_bookkeeping();
    start_threads();
    worker_.busy.store(true, std::memory_order_relaxed);
    schedule();
    worker_.busy.store(false, std::memory_order_relaxed);
  }
#if defined(SCANLAB_EMU_TSAN)
  __tsan_acquire(&block_end_sync_);  // and every access of the threads before what follows
#endif

  if (error_.empty() && live_ == 0 && check_shared_guards("the end of the block", true)) {
    worker_.static_guards_verified();
  }
  if (!error_.empty() || live_ > 0) {  // failed here, or abandoned because another block failed
    {
      const RaceModeIgnore ignore = own_bookkeeping();
      abandon_threads();
    }
    if (!error_.empty()) throw LaunchError(error_);
    return;
  }
  close_interval();
  if (trace_on_) record_trace("end of block");
  worker_.bump_progress();
}

void Block::start_threads() {
  const unsigned dx = dim.x, dxy = dim.x * dim.y;
  for (unsigned i = 0; i < count_; ++i) {
    CudaThread& t = threads_[i];
    t.idx = uint3{i % dx, (i / dx) % dim.y, i / dxy};
    t.linear = i;
    t.state = State::runnable;
    t.spinning = t.parked = t.abandoned = false;
    t.last_memory_point = Where{};
    t.waits_on = nullptr;
    t.ops = 0;
    t.where = Where{};
    t.block = this;
#if defined(SCANLAB_EMU_TSAN)
    t.sync_generation = 0;
#endif
    if (t.faulted) drop_faulted_fiber(t);
    if (!t.fiber) create_fiber(t);
  }
  for (unsigned w = 0; w * kWarpSize < count_; ++w) {
    const unsigned lanes = std::min(kWarpSize, count_ - w * kWarpSize);
    warps_[w] = WarpState{};
    warps_[w].exists = lanes == kWarpSize ? ~0u : (1u << lanes) - 1u;
  }
  live_ = count_;
  head_ = size_ = 0;
  order_scratch_.clear();
  for (unsigned i = 0; i < count_; ++i) order_scratch_.push_back(i);
  enqueue(order_scratch_);
}

/// Makes the fiber of thread slot `t` on its pooled stack and runs it up to its first wait in
/// thread_main(), so that every later switch to it, like every switch, lands in switch_to(). Done
/// once per slot: the fiber then runs that slot's CUDA thread in every block the worker runs.
void Block::create_fiber(CudaThread& t) {
#if defined(SCANLAB_EMU_TSAN)
  t.tsan_fiber = __tsan_create_fiber(0);
  // Creating a Boost fiber enters its entry function on the new stack for a moment, and that
  // function never returns (it ends with a jump): TSan must count that entry on the new fiber,
  // not on the scheduler's, which would otherwise grow by one frame per fiber.
  __tsan_switch_to_fiber(t.tsan_fiber, 0);
#endif
  // The fiber's record and stack live in pooled memory: creating one allocates nothing.
  const ctx::stack_context sc = worker_.stacks.context(&t - threads_.data());
#if defined(SCANLAB_EMU_ASAN)
  // A fiber's last frames never return (it ends with a jump), so their redzones stay poisoned in
  // ASan's shadow of the stack; a new fiber on the same stack (one of another kind, as
  // measure_switch_ns makes on stack 0, lays out its frames differently) would be reported for
  // writing there. Start from a clean shadow.
  __asan_unpoison_memory_region(static_cast<char*>(sc.sp) - sc.size, sc.size);
#endif
  t.fiber = ctx::fiber(std::allocator_arg, ctx::preallocated(sc.sp, sc.size, sc), PooledStack{},
                       [this, &t](ctx::fiber&& scheduler) { return thread_main(t, std::move(scheduler)); });
#if defined(SCANLAB_EMU_TSAN)
  __tsan_switch_to_fiber(worker_.tsan_scheduler, 0);
#endif
#if defined(SCANLAB_EMU_ASAN)
  t.stack_bottom = static_cast<char*>(sc.sp) - sc.size;
  t.stack_size = sc.size;
  t.asan_fake_stack = nullptr;
#endif
  switch_to(nullptr, &t);
}

/// Forgets the fiber of a thread whose memory access faulted (memory_fault.cpp) without resuming it:
/// its kernel frames were cut off at the fault and cannot be unwound, and destroying a suspended
/// Boost fiber resumes it to unwind. Its record lies on the pooled stack, which the slot's next fiber
/// reuses; nothing else is held.
void Block::drop_faulted_fiber(CudaThread& t) {
  union Forgotten {
    ctx::fiber fiber;
    Forgotten() {}
    ~Forgotten() {}  // does not destroy `fiber`
  } forgotten;
  new (&forgotten.fiber) ctx::fiber(std::move(t.fiber));
  t.faulted = false;
}

/// After an error: ends every thread that has not finished, so that its fiber is ready for the next
/// block. Each is resumed once more, through switch_to() like any switch (so ASan and TSan know
/// which stack runs), and finds itself abandoned: one that has not started skips the kernel, one
/// that waits at a sync point throws Abandoned from yield(), which unwinds the kernel's frames
/// (destructors run) to thread_main(); either way it switches back here.
void Block::abandon_threads() {
  for (unsigned i = 0; i < count_; ++i) {
    CudaThread& t = threads_[i];
    if (t.state != State::exited) {
      t.abandoned = true;
      switch_to(nullptr, &t);
    }
    t.state = State::exited;
  }
  live_ = 0;
  size_ = 0;
}

/// Ends every fiber (they are made again when needed): before the stacks change size, and when the
/// worker ends. Each is resumed through switch_to(), leaves its loop in thread_main() and returns,
/// which ends it. (Destroying a suspended Boost fiber would unwind it too, but on a stack switch the
/// sanitizers are not told about: ASan then reports false stack overflows.)
void Block::retire_threads() {
  const RaceModeIgnore ignore = own_bookkeeping();
  for (CudaThread& t : threads_) {
    if (t.faulted) drop_faulted_fiber(t);
    if (!t.fiber) continue;
    t.retiring = true;
    switch_to(nullptr, &t);
    t.retiring = false;
#if defined(SCANLAB_EMU_TSAN)
    __tsan_acquire(&block_end_sync_);
    __tsan_destroy_fiber(t.tsan_fiber);
    t.tsan_fiber = nullptr;
#endif
  }
}

/// The life of one fiber: the thread of its slot (threads_[i]) in every block the worker runs.
ctx::fiber Block::thread_main(CudaThread& t, ctx::fiber&& previous) {
  {
    const RaceModeIgnore ignore = own_bookkeeping();
    arrived(&t, std::move(previous));
    switch_to(&t, nullptr);  // made by create_fiber(): wait for the first block
  }
  while (!t.retiring) {
#if defined(SCANLAB_EMU_TSAN)
    __tsan_acquire(&block_start_sync_);  // race mode: what the scheduler did before the block
#endif
    try {
      if (!t.abandoned) (*launch_->body)();
    } catch (const Abandoned&) {
      // the block failed elsewhere: the kernel's frames are unwound, and the thread ends here
    } catch (const ctx::detail::forced_unwind&) {
      throw;  // a fiber destroyed while suspended: Boost unwinds this stack
    } catch (const std::exception& e) {
      fail(thread_name(t.linear) + ": " + e.what());
    } catch (...) {
      fail(thread_name(t.linear) + ": threw an exception that is not a std::exception");
    }
    // The thread's last switch in this block: to the next thread, or (abandoned, or nobody left)
    // the scheduler. The fiber waits here until the next block starts its slot again.
    const RaceModeIgnore ignore = own_bookkeeping();
#if defined(SCANLAB_EMU_TSAN)
    __tsan_release(&block_end_sync_);  // after the last read of the block's state outside `ignore`
#endif
    t.state = State::exited;
    CudaThread* next = nullptr;
    if (!t.abandoned) {
      after_sync(t);
      next = next_thread();
    }
    switch_to(&t, next);
  }
  // Retired (see retire_threads()): the fiber ends, back to the scheduler.
#if defined(SCANLAB_EMU_TSAN)
  // Race mode: this fiber's last accesses, and the scheduler's first ones in arrived() (counted on
  // this fiber until it tells TSan of the switch), are the emulator's: ignored until arrived() ends
  // the ignoring (not a RaceModeIgnore, which would end it as this function returns). The acquire:
  // the scheduler set tsan_races_ for its last block after this fiber last acquired it (a retired
  // fiber leaves its loop without starting a block).
  __tsan_acquire(&block_start_sync_);
  if (tsan_races_) __tsan_ignore_thread_begin();
  __tsan_release(&block_end_sync_);  // what it did, before the scheduler frees or reuses its record
  // TSan counts function entries and exits per fiber. This fiber's last frames (this function and
  // Boost's entry function) return after the switch is decided, so TSan must still see this fiber
  // then; the scheduler tells TSan of the switch when it arrives (arrived()).
  worker_.tsan_switch_on_arrival = true;
#endif
  entering(nullptr);
  worker_.park = &t.fiber;  // receives nothing: this fiber has ended
  worker_.from_scheduler = false;
#if defined(SCANLAB_EMU_ASAN)
  __sanitizer_start_switch_fiber(nullptr, worker_.scheduler_stack_bottom, worker_.scheduler_stack_size);
#endif
  return std::move(worker_.scheduler);
}

// ---- switching ----------------------------------------------------------------------------------
// A switch goes from one context to another: a CUDA thread's fiber or the scheduler (null). Boost
// hands the suspended context to the one it resumes, which stores it where the switching side asked
// (Worker::park). The sanitizer calls tell ASan and TSan that the stack changed; they compile to
// nothing otherwise.

#if defined(SCANLAB_EMU_TSAN)
int Block::tsan_switch_flags() const {
  // Race mode: fibers are unordered; only barriers and warp operations order them (see barrier()).
  return tsan_races_ ? __tsan_switch_to_fiber_no_sync : 0;
}
#endif

SCANLAB_EMU_HOT void Block::switch_to(CudaThread* from, CudaThread* to) {
  entering(to);
  worker_.park = from ? &from->fiber : &worker_.scheduler;
  worker_.from_scheduler = from == nullptr;
#if defined(SCANLAB_EMU_ASAN)
  __sanitizer_start_switch_fiber(from ? &from->asan_fake_stack : &worker_.asan_fake_stack,
                                 to ? to->stack_bottom : worker_.scheduler_stack_bottom,
                                 to ? to->stack_size : worker_.scheduler_stack_size);
#endif
#if defined(SCANLAB_EMU_TSAN)
  __tsan_switch_to_fiber(to ? to->tsan_fiber : worker_.tsan_scheduler, tsan_switch_flags());
#endif
  ctx::fiber& target = to ? to->fiber : worker_.scheduler;
  ctx::fiber previous = std::move(target).resume();
  arrived(from, std::move(previous));
}

/// Bookkeeping of a switch to `to`, done before it: what the watchdogs watch.
SCANLAB_EMU_HOT void Block::entering(CudaThread* to) {
  if (to) worker_.current_thread.store(to->linear, std::memory_order_relaxed);
  worker_.bump_heartbeat();
}

/// First thing on a context after a switch to it: park the one that switched here.
SCANLAB_EMU_HOT void Block::arrived(CudaThread* self, ctx::fiber&& previous) {
#if defined(SCANLAB_EMU_TSAN)
  if (worker_.tsan_switch_on_arrival) {  // from a fiber that ended (see thread_main)
    worker_.tsan_switch_on_arrival = false;
    void* const here = self ? self->tsan_fiber : worker_.tsan_scheduler;
    const int flags = tsan_switch_flags();
    if (tsan_races_) __tsan_ignore_thread_end();  // the ending fiber's, begun in thread_main
    __tsan_switch_to_fiber(here, flags);
  }
#endif
  *worker_.park = std::move(previous);
#if defined(SCANLAB_EMU_ASAN)
  // Coming from the scheduler, ASan tells where its stack is (needed to switch back to it).
  const bool learn = worker_.from_scheduler;
  __sanitizer_finish_switch_fiber(self ? self->asan_fake_stack : worker_.asan_fake_stack,
                                  learn ? &worker_.scheduler_stack_bottom : nullptr,
                                  learn ? &worker_.scheduler_stack_size : nullptr);
#endif
  tls_thread = self;
  detail::tls_thread_idx = self ? &self->idx : &kHostThreadIdx;
  detail::tls_block = self ? static_cast<const detail::BlockBuiltins*>(this) : &kHostBlock;
}

/// A thread at a sync point: take the scheduling step here, then run the next thread (if that is
/// this one, as for a lone spinner, no switch at all).
void Block::yield(CudaThread& t) {
  after_sync(t);
  CudaThread* next = next_thread();
  if (next != &t) {
    switch_to(&t, next);
  } else {
    entering(&t);
  }
  if (t.abandoned) throw Abandoned{};
}

// ---- what kernel code calls (on the thread's fiber) ---------------------------------------------

/// On the faulting thread's fiber (memory_fault.cpp): the report, then the scheduler, never to come back.
void Block::memory_fault(CudaThread& t) {
  {
    const RaceModeIgnore ignore = own_bookkeeping();
    if (error_.empty()) error_ = memory_fault_report(t);
    t.state = State::exited;
    t.faulted = true;
    switch_to(&t, nullptr);
  }
  std::abort();  // never resumed: start_threads() and retire_threads() drop this fiber
}

void Block::barrier(CudaThread& t, BarrierKind kind, int predicate, Where where) {
  const RaceModeIgnore ignore = own_bookkeeping();
  t.state = State::barrier;
  t.barrier_kind = kind;
  t.predicate = predicate != 0;
  t.where = where;
#if defined(SCANLAB_EMU_TSAN)
  const std::uint64_t generation = barrier_generation_;
  __tsan_release(&barrier_sync_[generation & 1]);
  yield(t);
  __tsan_acquire(&barrier_sync_[generation & 1]);
#else
  yield(t);
#endif
}

void Block::warp_op(CudaThread& t, const WarpCall& call, Where where) {
  const RaceModeIgnore ignore = own_bookkeeping();
  t.warp = call;
  t.where = where;
  t.state = State::warp;
#if defined(SCANLAB_EMU_TSAN)
  WarpState& w = warps_[t.linear / kWarpSize];
  const std::uint64_t generation = w.generation;
  __tsan_release(&w.sync[generation & 1]);
  yield(t);
  __tsan_acquire(&w.sync[generation & 1]);
#else
  yield(t);
#endif
}

void Block::memory_point(CudaThread& t, Where where) {
  const RaceModeIgnore ignore = own_bookkeeping();
  // The same place as its last memory point: a spin (see check_stuck; warp operations in between,
  // as in a look-back that waits with __all_sync, do not matter).
  t.spun = same_place(t.last_memory_point, where);
  t.last_memory_point = where;
  t.where = where;
  t.spinning = true;
  yield(t);  // state stays runnable: the scheduler puts it at the end of the run queue
}

void Block::memory_changed(CudaThread& t) {
  bool go_on = true;
  {
    // The emulator's counters, which every thread that changes memory touches: in race mode TSan
    // would report them as a race between two such threads of a block (cuda::atomic_ref, atomicCAS).
    const RaceModeIgnore ignore = own_bookkeeping();
    worker_.bump_progress();
    ++stuck_progress_;
    if (interleave_ == nullptr) return;
    interleave_->changed(slot_);
    go_on = interleave_->reschedule(slot_, worker_);  // another block may run now
  }
  if (!go_on) {
    t.abandoned = true;  // the launch failed while this block waited: run no more kernel code
    throw Abandoned{};
  }
}

void Block::note_dynamic_element_size(std::size_t size, const char* name) {
  const RaceModeIgnore ignore = own_bookkeeping();  // every thread that views the buffer writes it
  dynamic_element_size = size;
  if (name != nullptr) dynamic_name = name;
}

unsigned Block::active_mask(const CudaThread& t) const {
  const WarpState& w = warps_[t.linear / kWarpSize];
  return w.exists & ~w.exited;
}

void Block::register_trace(const char* name, const void* data, std::size_t count, std::size_t size,
                           detail::FormatFn format) {
  const RaceModeIgnore ignore = own_bookkeeping();
  if (!trace_on_) return;
  for (TraceArray& a : traced_) {
    if (a.name == name) return;  // every thread registers; the first one counts
  }
  traced_.push_back(TraceArray{name, data, count, size, format});
}

// ---- the scheduler ------------------------------------------------------------------------------

/// Starts the block's threads, and returns when none can run any more: the block is done, failed,
/// or stuck (failed too). The threads switch among themselves; each comes back here only when it
/// finds nobody to run next.
void Block::schedule() {
  while (CudaThread* next = next_thread()) switch_to(nullptr, next);
}

/// The thread to run next, or null if none can run. Completes a barrier that every live thread
/// waits at; fails the block if threads wait and nothing can wake them.
SCANLAB_EMU_HOT CudaThread* Block::next_thread() {
  for (;;) {
    if (!error_.empty() || launch_->failed.load(std::memory_order_relaxed)) return nullptr;
    if (size_ == 0) {
      if (live_ == 0) return nullptr;  // the block is done
      if (at_barrier_ == live_ && !diverged_) {
        complete_barrier();
        continue;
      }
      fail(stuck_report());  // nobody can run, and nothing can wake anybody
      return nullptr;
    }
    return &threads_[pop()];
  }
}

/// What thread `t` reaching a sync point (or its end) means for the others.
SCANLAB_EMU_HOT void Block::after_sync(CudaThread& t) {
  switch (t.state) {
    case State::exited: on_exit(t); break;
    case State::barrier: on_barrier(t); break;
    case State::warp: on_warp(t); break;
    case State::runnable: on_memory_point(t); break;
  }
}

void Block::on_exit(CudaThread& t) {
  --live_;
  ++stuck_progress_;
  t.spinning = false;
  worker_.bump_progress();
  const unsigned warp = t.linear / kWarpSize, bit = 1u << (t.linear % kWarpSize);
  WarpState& w = warps_[warp];
  w.exited |= bit;
  // Lanes waiting in a rendezvous that names this one can never complete.
  for (unsigned waiting = w.waiting; waiting != 0; waiting &= waiting - 1) {
    const CudaThread& other = threads_[warp * kWarpSize + std::countr_zero(waiting)];
    if (other.warp.mask & bit) {
      fail(thread_name(t.linear) + " exited, but " + waiting_group(other) + " for it (a lane named in the mask must call the same warp operation)");
      return;
    }
  }
}

SCANLAB_EMU_HOT void Block::on_barrier(CudaThread& t) {
  t.spinning = false;
  if (at_barrier_++ == 0) {
    barrier_where_ = t.where;
  } else if (!same_place(t.where, barrier_where_)) {
    diverged_ = true;  // reported once nobody can run any more, with every group
  }
}

SCANLAB_EMU_HOT void Block::on_memory_point(CudaThread& t) {
  if (diverged_) {
    t.parked = true;  // the block cannot finish anyway; don't let a spinner keep it busy
    return;
  }
  push(t.linear);
  if (interleave_ != nullptr) check_stuck(t);
  // Reading the clock costs about as much as a switch: look only now and then.
  if (++spins_since_check_ >= 256) {
    spins_since_check_ = 0;
    check_watchdog();
  }
}

/// Resident blocks: once every thread in the run queue has passed a memory point without any progress
/// of this block (a barrier, an exit, an atomic change), the block waits for another one: let the
/// others run first.
void Block::check_stuck(CudaThread& t) {
  if (stuck_progress_ != stuck_mark_) {
    stuck_mark_ = stuck_progress_;
    stuck_spins_ = 0;
    return;
  }
  if (!t.spun || ++stuck_spins_ <= size_) return;  // a fence before an atomic is not a spin
  stuck_spins_ = 0;
  check_watchdog();  // blocks that all wait hand the turn round: look at the clock at every round
  if (!error_.empty()) return;  // the watchdog failed the launch: next_thread() ends the block
  interleave_->stuck(slot_, t.where);
  interleave_->reschedule(slot_, worker_);  // if the launch failed meanwhile, next_thread() says so
}

/// Every thread that has not exited waits at the barrier (that is when it completes): close the
/// barrier interval and put them all back in the run queue, in one pass over the threads.
void Block::complete_barrier() {
  check_shared_guards("__syncthreads() at " + where_text(barrier_where_));
  if (trace_on_) record_trace(where_text(barrier_where_));
  IntervalTally tally;
  int count = 0;               // of __syncthreads_count/and/or: threads whose predicate holds
  bool predicates = false;     // a barrier with a predicate (all threads wait at the same one)
  const bool forward = launch_->settings.thread_order == Order::forward;
  order_scratch_.clear();
  for (unsigned i = 0; i < count_; ++i) {
    CudaThread& t = threads_[i];
    tally.add(t);  // exited threads' applications of this interval count too
    if (t.state != State::barrier) continue;
    count += t.predicate;
    predicates |= t.barrier_kind != BarrierKind::plain;
    t.barrier_result = 0;
    t.state = State::runnable;
    if (forward) {
      push(i);
    } else {
      order_scratch_.push_back(i);
    }
  }
  record_interval(tally);
  if (!forward) enqueue(order_scratch_);
  if (predicates) {
    for (unsigned i = 0; i < count_; ++i) {
      CudaThread& t = threads_[i];
      if (t.state == State::exited) continue;
      switch (t.barrier_kind) {
        case BarrierKind::plain: break;
        case BarrierKind::count: t.barrier_result = count; break;
        case BarrierKind::all: t.barrier_result = count == static_cast<int>(at_barrier_); break;
        case BarrierKind::any: t.barrier_result = count > 0; break;
      }
    }
  }
  at_barrier_ = 0;
  ++barriers_done_;
  ++stuck_progress_;
#if defined(SCANLAB_EMU_TSAN)
  ++barrier_generation_;
#endif
  worker_.bump_progress();
}

/// Puts `ids` (ascending) into the run queue in the thread order of the settings.
void Block::enqueue(std::vector<unsigned>& ids) {
  switch (launch_->settings.thread_order) {
    case Order::forward: break;
    case Order::reverse: std::reverse(ids.begin(), ids.end()); break;
    case Order::random: std::shuffle(ids.begin(), ids.end(), rng_); break;
  }
  for (unsigned id : ids) push(id);
}

void Block::check_watchdog() {
  const double limit = launch_->settings.watchdog_seconds;
  if (limit <= 0 && launch_->time_limit <= 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (launch_->time_limit > 0) {
    const double ran = std::chrono::duration<double>(now - launch_->started).count();
    if (ran > launch_->time_limit) {
      char text[64];
      std::snprintf(text, sizeof text, "%.3g s, past its limit of %.3g s", ran, launch_->time_limit);
      fail(std::string("time limit: the launch ran ") + text + ", while " + spinner_report() + wait_arrays_report());
      return;
    }
  }
  if (limit <= 0) return;
  const std::uint64_t progress = launch_->progress();
  if (progress != last_progress_) {
    last_progress_ = progress;
    last_progress_time_ = now;
    return;
  }
  const double idle = std::chrono::duration<double>(now - last_progress_time_).count();
  if (idle < limit) return;
  char seconds[32], ran[32];
  std::snprintf(seconds, sizeof seconds, "%.3g", idle);
  std::snprintf(ran, sizeof ran, "%.3g", std::chrono::duration<double>(now - launch_->started).count());
  fail(std::string("watchdog: no progress for ") + seconds +
       " s (no barrier completed, no thread finished, no atomic changed memory; the launch ran " + ran +
       " s) while " + spinner_report() + wait_arrays_report() +
       ". If it waits for another block: CUDA does not promise any order or concurrency of blocks");
}

}  // namespace scanlab::emu::impl
