// Guarded device memory: a kernel thread that reads or writes past either end of a device array,
// however far, fails its launch with a "memory error:" naming the array, the element, the block,
// the thread and the kernel's line, instead of reading garbage or corrupting the heap.
//
// How: the cpu backend's device buffers (common/src/memory.cpp) lie between large PROT_NONE
// reservations and register them here (guard_array). A kernel access there faults (SIGSEGV). The
// handler (stack_pool.cpp, on the worker's alternate signal stack) asks redirect_memory_fault(),
// which records the address, the instruction and read or write in the CUDA thread, and makes the
// faulting thread continue, when the handler returns, in memory_fault_landing() on its own fiber
// stack instead of at the faulting instruction. There, in ordinary code, the block fails with the
// report and the thread switches to the block's scheduler for good: its fiber is never resumed (its
// kernel frames cannot be unwound from a fault) and is dropped before the next block makes a new one
// on the same stack (Block::start_threads). x86-64 only; elsewhere a fault stays a crash.
//
// Dynamic shared memory is guarded the same way: each worker's lies between PROT_NONE reservations
// (Worker::map_dynamic) registered here with guard_dynamic_shared; its reports name the block's
// dynamic shared memory (and the extern __shared__ array's name where the build knows it).
#include <dlfcn.h>
#include <signal.h>
#include <ucontext.h>

#include <cstdio>
#include <map>

#include "internal.hpp"
#include "scanlab/emu/guarded_memory.hpp"

namespace scanlab::emu {

namespace {

/// One registered array: its bytes and the reservation around it. `begin` is written last (release)
/// and read first (acquire), so the signal handler sees a whole entry or none.
struct Guarded {
  std::atomic<std::uintptr_t> begin{0}, end{0};
  const void* data = nullptr;
  std::size_t count = 0, element_size = 0;
  enum Kind : unsigned char { device, dynamic_shared, static_shared };
  Kind kind = device;  ///< shared: a worker's reservation, reported against the faulting block's array
};

// Fixed size: the signal handler reads it without a lock or an allocation.
constexpr std::size_t kMaxGuarded = 4096;
Guarded registry[kMaxGuarded];
std::mutex registry_mutex;

}  // namespace

void guard_array(const void* data, std::size_t count, std::size_t element_size, const void* begin, const void* end) {
  std::lock_guard lock(registry_mutex);
  for (Guarded& g : registry) {
    if (g.begin.load(std::memory_order_relaxed) != 0) continue;
    g.data = data;
    g.count = count;
    g.element_size = element_size;
    g.kind = element_size == 0 ? Guarded::dynamic_shared : Guarded::device;
    g.end.store(reinterpret_cast<std::uintptr_t>(end), std::memory_order_relaxed);
    g.begin.store(reinterpret_cast<std::uintptr_t>(begin), std::memory_order_release);
    return;
  }
  // Full: this array is not named in reports; a fault in its guard stays a crash.
}

void unguard_array(const void* data) {
  std::lock_guard lock(registry_mutex);
  for (Guarded& g : registry) {
    if (g.begin.load(std::memory_order_relaxed) != 0 && g.data == data) {
      g.begin.store(0, std::memory_order_release);
      g.end.store(0, std::memory_order_relaxed);
      g.data = nullptr;
      return;
    }
  }
}

namespace impl {

void guard_dynamic_shared(const void* begin, const void* end) { guard_array(begin, 0, 0, begin, end); }

void guard_static_shared(const void* begin, const void* end) {
  guard_array(begin, 0, 0, begin, end);
  std::lock_guard lock(registry_mutex);
  for (Guarded& g : registry) {
    if (g.begin.load(std::memory_order_relaxed) == reinterpret_cast<std::uintptr_t>(begin)) g.kind = Guarded::static_shared;
  }
}

namespace {

/// Async-signal-safe: whether `address` lies in the reservation of a registered array.
bool in_guarded_reservation(std::uintptr_t address) noexcept {
  for (const Guarded& g : registry) {
    const std::uintptr_t begin = g.begin.load(std::memory_order_acquire);
    if (begin != 0 && address >= begin && address < g.end.load(std::memory_order_relaxed)) return true;
  }
  return false;
}

/// Where the faulting thread goes on when the signal handler returns: on its own fiber stack, in
/// ordinary code, where the report may allocate.
[[noreturn]] void memory_fault_landing() {
  CudaThread* t = tls_thread;
  t->block->memory_fault(*t);
}

/// "add.cuh:23": the source line of the instruction at `pc` (the innermost function inlined there),
/// from the debug information of the library that holds it, through binutils' addr2line; "" if there
/// is none (a build without -g) or addr2line is missing. Each place is looked up once.
std::string source_line(std::uintptr_t pc) {
  static std::mutex mutex;
  static std::map<std::uintptr_t, std::string> known;
  std::lock_guard lock(mutex);
  if (auto it = known.find(pc); it != known.end()) return it->second;
  std::string line;
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(pc), &info) != 0 && info.dli_fname != nullptr && info.dli_fname[0] == '/' &&
      std::string(info.dli_fname).find('\'') == std::string::npos) {
    char command[4200];
    std::snprintf(command, sizeof command, "addr2line -i -e '%s' 0x%llx 2>/dev/null", info.dli_fname,
                  static_cast<unsigned long long>(pc - reinterpret_cast<std::uintptr_t>(info.dli_fbase)));
    if (FILE* out = ::popen(command, "r")) {
      char text[1024];
      if (std::fgets(text, sizeof text, out) != nullptr) line = text;
      ::pclose(out);
    }
    line = line.substr(0, line.find_first_of(" \n"));  // drops " (discriminator 2)"
    if (line.empty() || line[0] == '?' || line.find(":?") != std::string::npos || line.ends_with(":0")) {
      line.clear();
    } else {
      line = line.substr(line.find_last_of('/') + 1);
    }
  }
  known.emplace(pc, line);
  return line;
}

}  // namespace

bool redirect_memory_fault(CudaThread& t, const siginfo_t& info, void* context) noexcept {
#if defined(__x86_64__)
  const auto address = reinterpret_cast<std::uintptr_t>(info.si_addr);
  if (!in_guarded_reservation(address)) return false;
  auto* uc = static_cast<ucontext_t*>(context);
  greg_t* r = uc->uc_mcontext.gregs;
  t.fault_address = address;
  t.fault_pc = static_cast<std::uintptr_t>(r[REG_RIP]);
  t.fault_write = (r[REG_ERR] & 2) != 0;  // the page-fault error code's W/R bit
  // A call of memory_fault_landing() made at the faulting instruction: below the kernel's red zone,
  // 16-byte aligned before the (never used) return address, as at any function's entry.
  std::uintptr_t sp = (static_cast<std::uintptr_t>(r[REG_RSP]) - 512) & ~std::uintptr_t{15};
  sp -= sizeof(std::uintptr_t);
  *reinterpret_cast<std::uintptr_t*>(sp) = 0;
  r[REG_RSP] = static_cast<greg_t>(sp);
  r[REG_RIP] = reinterpret_cast<greg_t>(&memory_fault_landing);
  return true;
#else
  (void)t;
  (void)info;
  (void)context;
  return false;
#endif
}

std::string Block::memory_fault_report(const CudaThread& t) const {
  const void* data = nullptr;
  std::size_t count = 0, size = 1;
  Guarded::Kind kind = Guarded::device;
  {
    std::lock_guard lock(registry_mutex);
    for (const Guarded& g : registry) {
      const std::uintptr_t begin = g.begin.load(std::memory_order_relaxed);
      if (begin != 0 && t.fault_address >= begin && t.fault_address < g.end.load(std::memory_order_relaxed)) {
        data = g.data;
        count = g.count;
        size = g.element_size;
        kind = g.kind;
      }
    }
  }
  const bool shared = kind != Guarded::device;
  std::string array;  // the shared array's name and declaration, for the message
  if (kind == Guarded::dynamic_shared) {  // this block's dynamic shared memory, as dynamic_shared<T>() sees it
    data = dynamic_shared;
    size = dynamic_element_size != 0 ? dynamic_element_size : 1;
    count = launch_->dynamic_shared_bytes / size;
    array = "its dynamic shared memory" +
            (dynamic_name != nullptr ? " (extern __shared__ " + std::string(dynamic_name) + "[])" : std::string());
  } else if (kind == Guarded::static_shared) {  // the block's rewritten static array nearest the address
    if (const Worker::StaticArray* a = worker_.static_array_near(t.fault_address)) {
      data = a->data;
      size = a->element_size;
      count = a->bytes / size;
      std::string file = a->site->file;
      file = file.substr(file.find_last_of('/') + 1);
      array = "the static __shared__ array " + std::string(a->site->name) + " (declared at " + file + ":" +
              std::to_string(a->site->line) + ")";
    } else {
      array = "a static __shared__ array";
    }
  }
  const auto offset = static_cast<std::ptrdiff_t>(t.fault_address - reinterpret_cast<std::uintptr_t>(data));
  const auto s = static_cast<std::ptrdiff_t>(size), n = static_cast<std::ptrdiff_t>(count);
  const std::ptrdiff_t element = offset >= 0 ? offset / s : -((-offset + s - 1) / s);
  const bool after = element >= n;
  // The words of the harness's check of the guard bytes (scanlab::check_device_guards).
  std::string text = "memory error: kernel '" + std::string(launch_->kernel) + "', " + block_name() + ", " +
                     thread_name(t.linear) + (t.fault_write ? " wrote " : " read ") +
                     (after ? "past the end" : "before the start") + " of a " + std::to_string(count) +
                     "-element array of " + std::to_string(size) + "-byte elements (element " +
                     std::to_string(element) + (after ? " = N+" + std::to_string(element - n) : std::string()) +
                     ") in device memory";
  if (shared) {
    text = "memory error: kernel '" + std::string(launch_->kernel) + "', " + block_name() + ", " + thread_name(t.linear) +
           (t.fault_write ? " wrote " : " read ") + (after ? "past the end" : "before the start") +
           " of " + array + ", a " + std::to_string(count) + "-element array of " + std::to_string(size) + "-byte elements (element " +
           std::to_string(element) + (after ? " = N+" + std::to_string(element - n) : std::string()) + ")";
  }
  const std::string line = source_line(t.fault_pc);
  if (!line.empty()) {
    text += " at " + line;
  } else if (t.where.line() != 0) {
    text += " after its last sync point at " + where_text(t.where);
  }
  if (kind == Guarded::static_shared) {
    return text + (after ? "; an index past the size the array is declared with?"
                         : "; a negative index (t - stride read by a thread t < stride?)");
  }
  if (shared) {
    return text + (after ? "; an index past the size the launch gives (its dynamic shared memory bytes), or a launch "
                           "with too little shared memory?"
                         : "; a negative index (t - stride read by a thread t < stride?)");
  }
  return text + (after ? "; look for an index that can reach n (a load or store without i < n), or a grid larger "
                         "than the data"
                       : "; a negative index (i - 1 at i = 0)?");
}

}  // namespace impl
}  // namespace scanlab::emu
