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

#include "scanlab/error.hpp"

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

struct Guarded {
  std::size_t count, element_size, bytes;  // bytes: of the elements, rounded up to 256
  int device;                              // the modelled device whose memory this is
};

std::mutex guarded_mutex;
std::map<unsigned char*, Guarded>& guarded() {
  static std::map<unsigned char*, Guarded> live;
  return live;
}

std::size_t rounded(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

/// The first byte of `data`'s guard zones that is not kDeviceGuardByte, as an offset from `data`
/// (negative: before it); false when intact. After the end, the padding up to the 256-byte boundary
/// is guarded too.
bool damaged(const unsigned char* data, const Guarded& g, std::ptrdiff_t& offset) {
  const std::size_t used = g.count * g.element_size;
  for (std::size_t k = 1; k <= kDeviceGuardBytes; ++k) {
    if (data[-static_cast<std::ptrdiff_t>(k)] != kDeviceGuardByte) {
      offset = -static_cast<std::ptrdiff_t>(k);
      return true;
    }
  }
  for (std::size_t k = used; k < g.bytes + kDeviceGuardBytes; ++k) {
    if (data[k] != kDeviceGuardByte) {
      offset = static_cast<std::ptrdiff_t>(k);
      return true;
    }
  }
  return false;
}

void fill_guards(unsigned char* data, const Guarded& g) {
  const std::size_t used = g.count * g.element_size;
  std::memset(data - kDeviceGuardBytes, kDeviceGuardByte, kDeviceGuardBytes);
  std::memset(data + used, kDeviceGuardByte, g.bytes + kDeviceGuardBytes - used);
}

}  // namespace

void* guarded_alloc(std::size_t count, std::size_t element_size, int device) {
  const Guarded g{count, element_size, rounded(std::max<std::size_t>(count, 1) * element_size), device};
  auto* base = static_cast<unsigned char*>(std::aligned_alloc(256, kDeviceGuardBytes + g.bytes + kDeviceGuardBytes));
  if (base == nullptr) return nullptr;
  unsigned char* data = base + kDeviceGuardBytes;
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

void guarded_free(void* data) {
  if (data == nullptr) return;
  auto* p = static_cast<unsigned char*>(data);
  {
    std::lock_guard lock(guarded_mutex);
    guarded().erase(p);
  }
  std::free(p - kDeviceGuardBytes);
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
