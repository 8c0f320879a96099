// Fiber stacks: allocated once per worker, each with a guard page, reused by every block; and the
// report of a stack overflow, when a kernel thread runs into that guard page.
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>

#include "internal.hpp"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define SCANLAB_EMU_VALGRIND 1
#endif

namespace scanlab::emu::impl {

namespace {
constexpr std::size_t kCacheLine = 64;

std::size_t page_size() {
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}
}  // namespace

StackPool::~StackPool() { release(); }

void StackPool::release() {
  const std::size_t page = page_size();
  for (std::size_t i = 0; i < regions_.size(); ++i) {
#if defined(SCANLAB_EMU_VALGRIND)
    VALGRIND_STACK_DEREGISTER(valgrind_ids_[i]);
#endif
    ::munmap(regions_[i], bytes_ + page);
  }
  regions_.clear();
  valgrind_ids_.clear();
}

namespace {
std::size_t round_to_pages(std::size_t bytes) {
  const std::size_t page = page_size();
  return (bytes + page - 1) / page * page;
}
}  // namespace

bool StackPool::holds(std::size_t bytes) const { return regions_.empty() || round_to_pages(bytes) == bytes_; }

void StackPool::reserve(std::size_t count, std::size_t bytes) {
  const std::size_t page = page_size();
  bytes = round_to_pages(bytes);
  if (bytes != bytes_) {
    release();
    bytes_ = bytes;
  }
  while (regions_.size() < count) {
    // Stacks grow down: the guard page is the lowest page of the region.
    void* region = ::mmap(nullptr, bytes_ + page, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (region == MAP_FAILED) throw std::bad_alloc();
    if (::mprotect(region, page, PROT_NONE) != 0) {
      ::munmap(region, bytes_ + page);
      throw std::bad_alloc();
    }
    regions_.push_back(region);
#if defined(SCANLAB_EMU_VALGRIND)
    char* low = static_cast<char*>(region) + page;
    valgrind_ids_.push_back(VALGRIND_STACK_REGISTER(low, low + bytes_));
#else
    valgrind_ids_.push_back(0);
#endif
  }
}

bool StackPool::in_guard_page(const void* address) const noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  const std::size_t page = page_size();
  for (void* region : regions_) {
    const auto guard = reinterpret_cast<std::uintptr_t>(region);
    if (a >= guard && a - guard < page) return true;
  }
  return false;
}

ctx::stack_context StackPool::context(std::size_t i) const {
  // Cache colouring: every region starts on a page boundary, so without an offset the hot top of
  // every stack (the fiber's record, its saved registers, the innermost frames) would fall into the
  // same few sets of the CPU caches, and a block of 1024 fibers would evict itself at every barrier.
  // Stack i starts (i mod 64) cache lines below its top, which spreads them over every set.
  const std::size_t colour = (i % (page_size() / kCacheLine)) * kCacheLine;
  ctx::stack_context sc;
  sc.size = bytes_ - colour;
  sc.sp = static_cast<char*>(regions_[i]) + page_size() + bytes_ - colour;
  return sc;
}

// ---- the stack-overflow report -------------------------------------------------------------------
// A kernel thread that overflows its fiber stack touches the guard page below it: SIGSEGV. Bare, that
// is a crash with no word of which thread, or why. The handler below runs on the worker's alternate
// signal stack (the fiber's own stack has no room left), checks that the faulting address is in a
// guard page of this worker's stacks while a kernel thread runs, and then says so in one line and
// ends the process: a fiber cannot be unwound from a signal handler, so no LaunchError is possible.
// Any other SIGSEGV is none of its business: it puts back what SIGSEGV did before and returns, the
// faulting instruction runs again and faults again, into the previous handler or the default action
// (so a crash stays a crash, core dump included). That restoring is for good: after a foreign
// SIGSEGV that a previous handler survives, an overflow is a bare SIGSEGV again.
// Not built under ASan and TSan: they handle SIGSEGV themselves (SCANLAB_EMU_OVERFLOW_REPORT).

#if defined(SCANLAB_EMU_OVERFLOW_REPORT)

namespace {

struct sigaction previous_segv_action;  // what SIGSEGV did before the emulator's handler

/// Only async-signal-safe calls here: sigaction, raise, _exit, and the report's write.
void on_segv(int signal, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const CudaThread* t = tls_thread;
  // si_code > 0: raised by the kernel for a fault (not sent with kill), so si_addr is meaningful.
  if (t != nullptr && info != nullptr && info->si_code > 0 && t->block->worker().stacks.in_guard_page(info->si_addr)) {
    t->block->write_overflow_report(*t);
    ::_exit(kStackOverflowExitCode);
  }
  // A kernel thread's read or write past a device array: reported as a memory error of its launch.
  if (t != nullptr && info != nullptr && info->si_code > 0 && redirect_memory_fault(*tls_thread, *info, context)) {
    errno = saved_errno;
    return;
  }
  ::sigaction(SIGSEGV, &previous_segv_action, nullptr);
  if (info == nullptr || info->si_code <= 0) ::raise(signal);  // sent, not a fault: nothing runs again
  errno = saved_errno;
}

void install_segv_handler() {
  struct sigaction action {};
  action.sa_sigaction = on_segv;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGSEGV, &action, &previous_segv_action);
}

}  // namespace

SignalStack::SignalStack() {
  static std::once_flag installed;
  std::call_once(installed, install_segv_handler);
  stack_t current{};
  if (::sigaltstack(nullptr, &current) != 0 || !(current.ss_flags & SS_DISABLE)) return;  // has one
  // SIGSTKSZ is the least a handler needs; the report's frames are small, and 64 KiB per worker
  // thread costs nothing worth counting.
  const std::size_t size = std::max<std::size_t>(SIGSTKSZ, 64 * 1024);
  void* memory = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return;  // no report on this thread: an overflow stays a bare SIGSEGV
  stack_t ours{};
  ours.ss_sp = memory;
  ours.ss_size = size;
  if (::sigaltstack(&ours, nullptr) != 0) {
    ::munmap(memory, size);
    return;
  }
  memory_ = memory;
  size_ = size;
}

SignalStack::~SignalStack() {
  if (memory_ == nullptr) return;
  stack_t current{};
  if (::sigaltstack(nullptr, &current) == 0 && current.ss_sp == memory_) {
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    ::sigaltstack(&off, nullptr);
  }
  ::munmap(memory_, size_);
}

#else

SignalStack::SignalStack() {}
SignalStack::~SignalStack() {}

#endif

}  // namespace scanlab::emu::impl
