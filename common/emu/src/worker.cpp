// Workers (the OS threads that run blocks), the pool of extra workers, and the monitor thread that
// stops the process when a kernel thread spins where no cooperative scheduler can interrupt it.
#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <thread>

#include <sys/mman.h>
#include <unistd.h>

#include "internal.hpp"
#include "scanlab/emu/guarded_memory.hpp"

#if defined(SCANLAB_EMU_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace scanlab::emu::detail {

// Host code (no CUDA thread running) reads the built-ins as thread 0 of one block of one thread.
constinit thread_local const uint3* tls_thread_idx = &impl::kHostThreadIdx;
constinit thread_local const BlockBuiltins* tls_block = &impl::kHostBlock;

}  // namespace scanlab::emu::detail

namespace scanlab::emu::impl {

thread_local CudaThread* tls_thread __attribute__((tls_model("initial-exec"))) = nullptr;

// ---- registry of workers, and the monitor ------------------------------------------------------

namespace {

/// Every live Worker, so the monitor can look at them. One process-wide object, created on first use.
class Registry {
 public:
  static Registry& get() {
    static Registry registry;
    return registry;
  }
  void add(Worker* w) {
    std::lock_guard lock(mutex_);
    workers_.push_back(w);
  }
  void remove(Worker* w) {
    std::lock_guard lock(mutex_);
    std::erase(workers_, w);
  }
  void start_monitor() {
    std::lock_guard lock(mutex_);
    if (!monitor_.joinable()) monitor_ = std::thread([this] { monitor(); });
  }
  ~Registry() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (monitor_.joinable()) monitor_.join();
  }

 private:
  void monitor();
  void check(Worker& w, std::chrono::steady_clock::time_point now);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Worker*> workers_;
  std::thread monitor_;
  bool stop_ = false;
};

/// Wakes a few times a second. A busy worker whose heartbeat (bumped at every switch and every counted
/// operator) has not moved for the watchdog time is running one CUDA thread that reaches no sync point
/// at all: a spin on a plain or volatile variable. Cooperative scheduling cannot take the CPU back
/// from it, so the only way to not hang is to say what happened and end the process.
void Registry::monitor() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(50));
    const auto now = std::chrono::steady_clock::now();
    for (Worker* w : workers_) check(*w, now);
  }
}

void Registry::check(Worker& w, std::chrono::steady_clock::time_point now) {
  const std::uint64_t beat = w.heartbeat.load(std::memory_order_acquire);  // see bump_heartbeat()
  const bool busy = w.busy.load(std::memory_order_relaxed);
  if (!busy || beat != w.monitor_seen) {
    w.monitor_seen = beat;
    w.monitor_time = now;
    return;
  }
  const double limit = w.watchdog_seconds.load(std::memory_order_relaxed);
  const double idle = std::chrono::duration<double>(now - w.monitor_time).count();
  if (limit <= 0 || idle < limit) return;
  // The worker is stuck inside kernel code, so its block and launch stay as they are while we read.
  const std::string who = w.block.running_report(w.current_thread.load(std::memory_order_relaxed));
  std::fprintf(stderr,
               "scanlab emu: watchdog: %s has run for %.3g s without reaching a barrier, warp operation, "
               "atomic or fence; a spin on a plain or volatile variable cannot be interrupted, so the "
               "emulator stops the process (exit status %d). Read a flag that another thread or block "
               "sets with an atomic (atomicAdd(&flag, 0)) or put __threadfence() in the loop.\n",
               who.c_str(), idle, kWatchdogExitCode);
  std::fflush(stderr);
  std::_Exit(kWatchdogExitCode);
}

}  // namespace

void ensure_monitor() { Registry::get().start_monitor(); }

// ---- a worker -----------------------------------------------------------------------------------

Worker::Worker() {
  // Before the monitor can see it: a fresh worker's heartbeat is 0, so a monitor_time of 0 (the
  // clock's epoch) made a new pool worker that had just become busy look stuck since the machine booted.
  monitor_time = std::chrono::steady_clock::now();
  Registry::get().add(this);
#if defined(SCANLAB_EMU_TSAN)
  tsan_scheduler = __tsan_get_current_fiber();
#endif
}

Worker::~Worker() {
  block.retire_threads();  // on this OS thread, before its stacks go
  Registry::get().remove(this);
  unmap_dynamic();
  if (static_map_ != nullptr) {
    unguard_array(static_map_);
    ::munmap(static_map_, kStaticSlots * 2 * static_far_);
  }
}

Worker& current_worker() {
  thread_local Worker worker;
  return worker;
}

void Worker::prepare(const Launch& launch) {
  // The blocks' fibers live on the pooled stacks from block to block and launch to launch: stacks
  // of another size end them first.
  if (!stacks.holds(launch.settings.stack_bytes)) block.retire_threads();
#if defined(SCANLAB_EMU_TSAN)
  // A fiber waiting for its next block keeps the TSan ignore state of the launch it last ran in
  // (RaceModeIgnore); one made in the other mode would have the emulator's switching reported as a
  // race. Make them again when race mode changes (the pool's workers serve every launch).
  if (launch.settings.tsan_races != last_race_mode_) block.retire_threads();
  last_race_mode_ = launch.settings.tsan_races;
#endif
  stacks.reserve(launch.block.count(), launch.settings.stack_bytes);
  watchdog_seconds.store(launch.settings.watchdog_seconds, std::memory_order_relaxed);
  // The kernel library's static shared memory: this OS thread's instance of it.
  static_ = nullptr;
  if (launch.static_layout != nullptr) {
    for (StaticMemory& m : static_memory_) {
      if (m.module == launch.static_shared) static_ = &m;
    }
    if (static_ == nullptr) {
      static_memory_.push_back(StaticMemory{launch.static_shared, launch.static_layout, launch.static_shared().first, false});
      static_ = &static_memory_.back();
    }
  }
  // Rewritten static arrays: placed again as this launch's threads reach them (see static_array()).
  static_arrays_.clear();
  static_at_start_ = launch.settings.thread_order == Order::reverse;
  // Dynamic shared memory, between guard pages where it can be: a read or write past the end faults
  // at once, however far (memory_fault.cpp names the array, element, block, thread and line). One
  // end of the array touches a guard page, the other has guard bytes up to the page boundary, which
  // catch writes at the next barrier (see damaged_guard()) but let reads through. So the end that
  // touches the page follows the thread order: the grading runs each problem in forward and in
  // reverse order, and between them both ends fault (forward and random: the end, reverse: the start).
  const std::size_t bytes = launch.dynamic_shared_bytes;
#if defined(SCANLAB_EMU_SHARED_GUARD_PAGES)
  if (map_dynamic(bytes, launch.settings.thread_order == Order::reverse)) {
    block.dynamic_shared = dynamic_data_;
    return;
  }
#endif
  // On the heap, with a guard zone on either side.
  const std::size_t needed = std::max<std::size_t>(bytes, 64);
  if (!dynamic_ || needed > dynamic_capacity_) {
    const std::size_t total = kSharedGuardBytes + needed + kSharedGuardBytes;
    dynamic_.reset(static_cast<unsigned char*>(::operator new[](total, std::align_val_t{64})));
    dynamic_capacity_ = needed;
  }
  dynamic_data_ = dynamic_.get() + kSharedGuardBytes;
  dynamic_before_ = dynamic_after_ = kSharedGuardBytes;
  block.dynamic_shared = dynamic_data_;
}

bool Worker::map_dynamic(std::size_t bytes, bool at_start) {
#if defined(SCANLAB_EMU_SHARED_GUARD_PAGES)
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const auto rounded = [](std::size_t n, std::size_t to) { return (n + to - 1) / to * to; };
  const std::size_t used = rounded(bytes, 16);  // the array's start stays 16-byte aligned
  const std::size_t usable = rounded(used + kSharedGuardBytes, page);
  if (dynamic_map_ == nullptr || usable > dynamic_capacity_) {
    unmap_dynamic();
    // Reservations (address space, no memory) on either side: an index of a few million elements,
    // as a wrong tree index reaches, still lands in them; smaller under a limit on address space.
    for (const std::size_t far : {std::size_t{1} << 30, std::size_t{64} << 20, std::size_t{1} << 20, page}) {
      const std::size_t total = far + usable + far;
      void* base = ::mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED) continue;
      dynamic_map_ = static_cast<unsigned char*>(base);
      dynamic_mapped_ = total;
      dynamic_far_ = far;
      dynamic_capacity_ = usable;
      guard_dynamic_shared(dynamic_map_, dynamic_map_ + total);
      break;
    }
    if (dynamic_map_ == nullptr) return false;
  }
  unsigned char* const region = dynamic_map_ + dynamic_far_;
  unsigned char* const lo = at_start ? region : region + dynamic_capacity_ - usable;
  if (lo != dynamic_lo_ || lo + usable != dynamic_hi_) {
    // Two system calls, only when the launch's size or thread order differs from the last one's.
    if (::mprotect(region, dynamic_capacity_, PROT_NONE) != 0 || ::mprotect(lo, usable, PROT_READ | PROT_WRITE) != 0) {
      unmap_dynamic();
      return false;
    }
    dynamic_lo_ = lo;
    dynamic_hi_ = lo + usable;
  }
  dynamic_data_ = at_start ? lo : dynamic_hi_ - used;
  dynamic_before_ = std::min<std::size_t>(static_cast<std::size_t>(dynamic_data_ - lo), kSharedGuardBytes);
  dynamic_after_ = std::min<std::size_t>(static_cast<std::size_t>(dynamic_hi_ - dynamic_data_) - bytes, kSharedGuardBytes);
  return true;
#else
  (void)bytes;
  (void)at_start;
  return false;
#endif
}

void Worker::unmap_dynamic() {
  if (dynamic_map_ == nullptr) return;
  unguard_array(dynamic_map_);
  ::munmap(dynamic_map_, dynamic_mapped_);
  dynamic_map_ = dynamic_lo_ = dynamic_hi_ = nullptr;
  dynamic_mapped_ = dynamic_far_ = dynamic_capacity_ = 0;
}

void* Worker::add_static_array(const detail::StaticSharedSite& site, std::size_t bytes, std::size_t align,
                               std::size_t element_size) {
  StaticArray a{&site, nullptr, bytes, element_size != 0 ? element_size : 1, 0};
  const std::size_t slot = static_arrays_.size();
#if defined(SCANLAB_EMU_SHARED_GUARD_PAGES)
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  if (static_map_ == nullptr && !static_map_failed_) {
    // A reservation per slot, address space only: an index far past one array lands in guard pages,
    // not in the next array (smaller under a limit on address space).
    for (const std::size_t far : {std::size_t{64} << 20, std::size_t{1} << 20, std::size_t{64} << 10}) {
      void* base = ::mmap(nullptr, kStaticSlots * 2 * far, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED) continue;
      static_map_ = static_cast<unsigned char*>(base);
      static_far_ = far;
      guard_static_shared(static_map_, static_map_ + kStaticSlots * 2 * far);
      break;
    }
    static_map_failed_ = static_map_ == nullptr;
  }
  const std::size_t usable = (bytes + align + page - 1) / page * page;
  if (static_map_ != nullptr && slot < kStaticSlots && usable < static_far_) {
    unsigned char* const middle = static_map_ + (2 * slot + 1) * static_far_;
    unsigned char* const lo = static_at_start_ ? middle : middle - usable;
    StaticSlot& s = static_slots_[slot];
    if (s.lo != lo || s.hi != lo + usable) {
      // Two system calls, only when the array's size or the thread order differs from the slot's last.
      if ((s.lo != nullptr && ::mprotect(s.lo, static_cast<std::size_t>(s.hi - s.lo), PROT_NONE) != 0) ||
          ::mprotect(lo, usable, PROT_READ | PROT_WRITE) != 0) {
        throw std::runtime_error("the emulator cannot map static shared memory (mprotect failed)");
      }
      s.lo = lo;
      s.hi = lo + usable;
    }
    // The end of the array touches the guard page after it, or its start the one before it.
    a.data = static_at_start_ ? middle : reinterpret_cast<unsigned char*>(reinterpret_cast<std::uintptr_t>(middle - bytes) & ~(align - 1));
  }
#endif
  if (a.data == nullptr) {
    if (static_heap_.size() <= slot) static_heap_.resize(slot + 1);
    static_heap_[slot] = std::make_unique<unsigned char[]>(bytes + align);
    const auto p = reinterpret_cast<std::uintptr_t>(static_heap_[slot].get());
    a.data = reinterpret_cast<unsigned char*>((p + align - 1) & ~(align - 1));
  }
  static_arrays_.push_back(a);
  poison_static_array(static_arrays_.back());
  return a.data;
}

void Worker::poison_static_array(StaticArray& a) {
  std::memset(a.data, static_poison_, a.bytes);
  a.poisoned_in = block_serial_;
}

const Worker::StaticArray* Worker::static_array_near(std::uintptr_t address) const {
  const StaticArray* nearest = nullptr;
  std::uintptr_t best = ~std::uintptr_t{0};
  for (const StaticArray& a : static_arrays_) {
    const auto begin = reinterpret_cast<std::uintptr_t>(a.data), end = begin + a.bytes;
    const std::uintptr_t distance = address < begin ? begin - address : address >= end ? address - end + 1 : 0;
    if (distance < best) {
      best = distance;
      nearest = &a;
    }
  }
  return nearest;
}

void Worker::poison_shared_memory(std::size_t dynamic_bytes, unsigned char poison) {
  ++block_serial_;
  static_poison_ = poison;
  if (static_ != nullptr) {
    for (const auto& [offset, size] : static_->layout->variables) std::memset(static_->base + offset, poison, size);
    // The guard zones keep their bytes from block to block, unless a block ended without a full check.
    if (!static_->verified) {
      for (const StaticZone& z : static_->layout->zones) std::memset(static_->base + z.offset, kGuardByte, z.size);
    }
    static_->verified = false;
  }
  unsigned char* data = dynamic_data_;
  std::memset(data - dynamic_before_, kGuardByte, dynamic_before_);
  std::memset(data, poison, dynamic_bytes);
  std::memset(data + dynamic_bytes, kGuardByte, dynamic_after_);
}

bool Worker::damaged_guard(std::size_t dynamic_bytes, std::ptrdiff_t& offset) const {
  const unsigned char* data = dynamic_data_;
  // Before: the byte nearest the start first; after: the byte nearest the end first.
  for (std::size_t k = 1; k <= dynamic_before_; ++k) {
    if (data[-static_cast<std::ptrdiff_t>(k)] != kGuardByte) {
      offset = -static_cast<std::ptrdiff_t>(k);
      return true;
    }
  }
  for (std::size_t k = 0; k < dynamic_after_; ++k) {
    if (data[dynamic_bytes + k] != kGuardByte) {
      offset = static_cast<std::ptrdiff_t>(dynamic_bytes + k);
      return true;
    }
  }
  return false;
}

namespace {

/// The offset of the first byte of [data, data + size) that is not kGuardByte, or size. By memcmp
/// over whole chunks first: a barrier of a large block checks every guard zone.
std::size_t first_changed(const unsigned char* data, std::size_t size) {
  static const auto guard = [] {
    std::array<unsigned char, 1024> bytes;
    bytes.fill(kGuardByte);
    return bytes;
  }();
  std::size_t done = 0;
  while (done < size) {
    const std::size_t n = std::min(guard.size(), size - done);
    if (std::memcmp(data + done, guard.data(), n) != 0) {
      while (data[done] == kGuardByte) ++done;
      return done;
    }
    done += n;
  }
  return size;
}

/// The offset of the last byte that is not kGuardByte (there is one).
std::size_t last_changed(const unsigned char* data, std::size_t size) {
  std::size_t i = size - 1;
  while (data[i] == kGuardByte) --i;
  return i;
}

}  // namespace

bool Worker::damaged_static_guard(bool full, StaticDamage& damage) const {
  if (static_ == nullptr) return false;
  const std::vector<StaticZone>& zones = static_->layout->zones;
  for (std::size_t z = 0; z < zones.size(); ++z) {
    const unsigned char* data = static_->base + zones[z].offset;
    const std::size_t size = zones[z].size;
    std::size_t first = size;
    bool deep = false;
    if (full || size <= 2 * kBarrierCheckBytes) {
      first = first_changed(data, size);
      // Damage that a barrier would not have seen: the block's end is the first check to find it.
      deep = first < size && size > 2 * kBarrierCheckBytes && first >= kBarrierCheckBytes &&
             last_changed(data, size) < size - kBarrierCheckBytes;
    } else {
      first = first_changed(data, kBarrierCheckBytes);
      if (first == kBarrierCheckBytes) {
        first = first_changed(data + size - kBarrierCheckBytes, kBarrierCheckBytes);
        first = first == kBarrierCheckBytes ? size : first + size - kBarrierCheckBytes;
      }
    }
    if (first < size) {
      damage = StaticDamage{z, first, last_changed(data, size), deep};
      return true;
    }
  }
  return false;
}

void Worker::run_blocks(Launch& launch) {
  {
    std::lock_guard lock(launch.mutex);
    launch.workers.push_back(this);
  }
  prepare(launch);
  for (;;) {
    if (launch.failed.load(std::memory_order_relaxed)) break;
    const std::size_t position = launch.next.fetch_add(1);
    if (position >= launch.sequence.size()) break;
    try {
      block.run(launch, launch.sequence[position], launch.records[position]);
    } catch (const std::exception& e) {
      launch.fail(e.what());
    }
  }
}

void Worker::AlignedDelete::operator()(unsigned char* p) const {
  ::operator delete[](p, std::align_val_t{64});
}

// ---- the pool of extra workers (settings().workers > 1) ------------------------------------------

namespace {

/// OS threads that stay alive between launches, so their fiber stacks are allocated once. One pool per
/// host thread: launches made at the same time from several host threads (section 11.10's look-back
/// across modelled devices, one host thread per device) each run on their own.
class Pool {
 public:
  static Pool& get() {
    Registry::get();  // constructed first, so destroyed after the pool's threads have ended
    static thread_local Pool pool;
    return pool;
  }
  /// Runs `launch` on `n` pool threads; returns when all of them are done.
  void run(Launch& launch, unsigned n) {
    std::unique_lock lock(mutex_);
    while (threads_.size() < n) {
      const unsigned index = static_cast<unsigned>(threads_.size());
      threads_.emplace_back([this, index] { loop(index); });
    }
    job_ = &launch;
    job_workers_ = n;
    running_ = n;
    ++generation_;
    work_.notify_all();
    done_.wait(lock, [this] { return running_ == 0; });
    job_ = nullptr;
  }
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    work_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

 private:
  void loop(unsigned index) {
    std::uint64_t seen = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
      work_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= job_workers_) continue;
      Launch* launch = job_;
      lock.unlock();
      if (launch->interleave != nullptr) {
        current_worker().run_blocks_interleaved(*launch, index);
      } else {
        current_worker().run_blocks(*launch);
      }
      lock.lock();
      if (--running_ == 0) done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_, done_;
  std::vector<std::thread> threads_;
  Launch* job_ = nullptr;
  unsigned job_workers_ = 0, running_ = 0;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace

void run_on_pool(Launch& launch, unsigned workers) { Pool::get().run(launch, workers); }

}  // namespace scanlab::emu::impl
