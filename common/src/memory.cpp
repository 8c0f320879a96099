#include "scanlab/memory.hpp"

#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

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

}  // namespace scanlab
