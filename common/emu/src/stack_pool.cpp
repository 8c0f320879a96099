// Fiber stacks: allocated once per worker, each with a guard page, reused by every block.
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
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

}  // namespace scanlab::emu::impl
