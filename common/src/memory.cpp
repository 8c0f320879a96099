#include "scanlab/memory.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <string>

#include <algorithm>
#include <atomic>
#include <vector>
#include <iterator>

#include <sys/mman.h>
#include <unistd.h>

#include "scanlab/error.hpp"

#if defined(SCANLAB_WITH_EMULATOR)
#include "scanlab/emu/guarded_memory.hpp"
#include "scanlab/emu/wait_arrays.hpp"
#endif

namespace scanlab {

std::size_t available_host_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return std::numeric_limits<std::size_t>::max();
}

std::string host_cpu_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

namespace {
std::string gib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1u << 30));
  return text;
}
}  // namespace

void check_fits(std::size_t needed, std::size_t available, const char* what) {
  if (needed > available) {
    throw Error("this problem needs " + gib(needed) + " of " + what + " but only " + gib(available) +
                " is available: choose a smaller --n");
  }
}

namespace {

// Guard pages (PROT_NONE) around every array, where the emulator can turn a fault into a report
// (emu/src/memory_fault.cpp): not under ASan and TSan, whose own SIGSEGV handlers would report it as
// a crash; they keep guard bytes only, and report far accesses themselves.
#if defined(SCANLAB_WITH_EMULATOR) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#if defined(__has_feature)
#if !__has_feature(address_sanitizer) && !__has_feature(thread_sanitizer)
#define SCANLAB_GUARD_PAGES 1
#endif
#else
#define SCANLAB_GUARD_PAGES 1
#endif
#endif

struct Guarded {
  std::size_t count, element_size;
  int device;                    // the modelled device whose memory this is
  unsigned char *lo, *hi;        // the guard bytes: [lo, data) and [data + count * element_size, hi)
  unsigned char* base;           // what to free (or unmap)
  std::size_t mapped;            // bytes mapped at base (0: allocated with aligned_alloc)
};

std::mutex guarded_mutex;
std::map<unsigned char*, Guarded>& guarded() {
  static std::map<unsigned char*, Guarded> live;
  return live;
}

std::size_t rounded(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }

/// The first byte of `data`'s guard zones that is not kDeviceGuardByte, as an offset from `data`
/// (negative: before it); false when intact.
bool damaged(const unsigned char* data, const Guarded& g, std::ptrdiff_t& offset) {
  for (const unsigned char* p = data - 1; p >= g.lo; --p) {  // nearest the start first
    if (*p != kDeviceGuardByte) {
      offset = p - data;
      return true;
    }
  }
  for (const unsigned char* p = data + g.count * g.element_size; p < g.hi; ++p) {
    if (*p != kDeviceGuardByte) {
      offset = p - data;
      return true;
    }
  }
  return false;
}

void fill_guards(unsigned char* data, const Guarded& g) {
  std::memset(g.lo, kDeviceGuardByte, static_cast<std::size_t>(data - g.lo));
  unsigned char* end = data + g.count * g.element_size;
  std::memset(end, kDeviceGuardByte, static_cast<std::size_t>(g.hi - end));
}

#if defined(SCANLAB_GUARD_PAGES)
// Bytes of PROT_NONE reservation on either side of an array: an index of 32 bits (an int, or an
// unsigned that wrapped) times 8 bytes reaches at most 32 GiB away. Address space only (no memory):
// 128 TiB hold 2000 such arrays. Under a limit on the address space (the class grader's sandbox,
// RLIMIT_AS) a smaller reservation is taken, down to one page.
constexpr std::size_t kFarGuardBytes[] = {std::size_t{32} << 30, std::size_t{1} << 30, std::size_t{64} << 20,
                                          std::size_t{1} << 20};
std::atomic<std::size_t> far_guard_choice{0};  // the first size worth trying (the last that fit)

/// Maps `count` elements between guard pages: the array ends 16-byte aligned as near the page after
/// it as 16-byte alignment allows (so a read or write past the end faults at once, or within 15
/// bytes, which the guard bytes catch for writes), and has kDeviceGuardBytes or more guard bytes before it.
unsigned char* map_guarded(Guarded& g) {
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t used = rounded(g.count * g.element_size, 16);
  const std::size_t usable = rounded(used + kDeviceGuardBytes, page);
  for (std::size_t i = far_guard_choice.load(std::memory_order_relaxed); i <= std::size(kFarGuardBytes); ++i) {
    const std::size_t far = i < std::size(kFarGuardBytes) ? kFarGuardBytes[i] : page;
    const std::size_t total = far + usable + far;
    void* base = ::mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) continue;
    auto* b = static_cast<unsigned char*>(base);
    if (::mprotect(b + far, usable, PROT_READ | PROT_WRITE) != 0) {
      ::munmap(base, total);
      continue;
    }
    far_guard_choice.store(std::min(i, std::size(kFarGuardBytes) - 1), std::memory_order_relaxed);
    g.base = b;
    g.mapped = total;
    g.lo = b + far;
    g.hi = b + far + usable;
    unsigned char* data = g.hi - used;
    emu::guard_array(data, g.count, g.element_size, b, b + total);
    return data;
  }
  return nullptr;
}
#endif

}  // namespace

void* guarded_alloc(std::size_t count, std::size_t element_size, int device) {
  Guarded g{count, element_size, device, nullptr, nullptr, nullptr, 0};
  unsigned char* data = nullptr;
#if defined(SCANLAB_GUARD_PAGES)
  data = map_guarded(g);
#else
  // 256-byte alignment, as cudaMalloc gives, between guard zones of kDeviceGuardBytes (after: from
  // the last element through the padding to 256 bytes).
  const std::size_t bytes = rounded(std::max<std::size_t>(count, 1) * element_size, 256);
  g.base = static_cast<unsigned char*>(std::aligned_alloc(256, kDeviceGuardBytes + bytes + kDeviceGuardBytes));
  if (g.base != nullptr) {
    data = g.base + kDeviceGuardBytes;
    g.lo = g.base;
    g.hi = data + bytes + kDeviceGuardBytes;
  }
#endif
  if (data == nullptr) return nullptr;
  fill_guards(data, g);
  std::lock_guard lock(guarded_mutex);
  guarded().emplace(data, g);
  return data;
}

int guarded_device(const void* p) {
  const auto* byte = static_cast<const unsigned char*>(p);
  std::lock_guard lock(guarded_mutex);
  auto it = guarded().upper_bound(const_cast<unsigned char*>(byte));  // the first allocation after p
  if (it == guarded().begin()) return -1;
  --it;
  const std::size_t used = std::max<std::size_t>(it->second.count, 1) * it->second.element_size;
  return byte < it->first + used ? it->second.device : -1;
}

namespace {

/// name_kernel_argument's names: (kernel, argument) -> name.
struct ArgumentName {
  std::string kernel;
  unsigned argument;
  const char* name;
};
std::mutex argument_names_mutex;
std::vector<ArgumentName>& argument_names() {
  static std::vector<ArgumentName> names;
  return names;
}
std::atomic<bool> any_argument_named{false};

}  // namespace

void name_kernel_argument(const char* kernel, unsigned argument, const char* name) {
  std::lock_guard lock(argument_names_mutex);
  argument_names().push_back(ArgumentName{kernel, argument, name});
  any_argument_named.store(true, std::memory_order_release);
}

namespace detail {

bool name_wait_argument(const char* kernel, unsigned argument, const void* p, std::size_t element_size) {
#if defined(SCANLAB_WITH_EMULATOR)
  if (!any_argument_named.load(std::memory_order_acquire) || p == nullptr || element_size == 0) return false;
  const char* name = nullptr;
  {
    std::lock_guard lock(argument_names_mutex);
    for (const ArgumentName& a : argument_names()) {
      if (a.argument == argument && a.kernel == kernel) name = a.name;
    }
  }
  if (name == nullptr) return false;
  // The elements from p to the end of its guarded buffer.
  const auto* byte = static_cast<const unsigned char*>(p);
  std::size_t count = 0;
  {
    std::lock_guard lock(guarded_mutex);
    auto it = guarded().upper_bound(const_cast<unsigned char*>(byte));
    if (it == guarded().begin()) return false;
    --it;
    const unsigned char* end = it->first + it->second.count * it->second.element_size;
    if (byte >= end) return false;
    count = static_cast<std::size_t>(end - byte) / element_size;
  }
  emu::name_wait_array(name, p, element_size, count, [element_size](const void* element) {
    // Relaxed atomic loads, byte by byte: other blocks may still write while the report is made.
    bool set = false;
    for (std::size_t k = 0; k < element_size; ++k) {
      set = set || __atomic_load_n(static_cast<const unsigned char*>(element) + k, __ATOMIC_RELAXED) != 0;
    }
    return std::string(set ? "set" : "not set");
  });
  return true;
#else
  (void)kernel, (void)argument, (void)p, (void)element_size;
  return false;
#endif
}

void unname_kernel_argument(const void* p) {
#if defined(SCANLAB_WITH_EMULATOR)
  emu::unname_wait_array(p);
#else
  (void)p;
#endif
}

}  // namespace detail

void guarded_free(void* data) {
  if (data == nullptr) return;
  auto* p = static_cast<unsigned char*>(data);
  Guarded g{};
  {
    std::lock_guard lock(guarded_mutex);
    auto it = guarded().find(p);
    if (it == guarded().end()) return;
    g = it->second;
    guarded().erase(it);
  }
#if defined(SCANLAB_GUARD_PAGES)
  emu::unguard_array(p);
  ::munmap(g.base, g.mapped);
#else
  std::free(g.base);
#endif
}

void check_device_guards(const char* kernel) {
  std::lock_guard lock(guarded_mutex);
  for (auto& [data, g] : guarded()) {
    std::ptrdiff_t offset = 0;
    if (!damaged(data, g, offset)) continue;
    fill_guards(data, g);
    const auto size = static_cast<std::ptrdiff_t>(g.element_size);
    const std::ptrdiff_t element = offset >= 0 ? offset / size : -((-offset + size - 1) / size);
    const bool after = offset >= 0;
    std::string where = std::string(after ? "past the end" : "before the start") + " of a " +
                        std::to_string(g.count) + "-element array of " + std::to_string(g.element_size) +
                        "-byte elements (element " + std::to_string(element);
    if (after) {
      where += " = N+" + std::to_string(element - static_cast<std::ptrdiff_t>(g.count));
    }
    throw Error("memory error: kernel '" + std::string(kernel) + "' wrote " + where +
                ") in device memory; which block or thread is not known (the emulator checks global "
                "arrays after the launch): look for an index that can reach n, or a grid larger than the data");
  }
}

}  // namespace scanlab
