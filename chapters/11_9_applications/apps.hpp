/// \file apps.hpp
/// \brief Section 11.9's applications as the program and the tests see them: one request, one result,
/// run by the kernel library of a backend (run_app_cuda / run_app_cpu). Host code only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scanlab/algorithm.hpp"

namespace scanlab::s11_9 {

enum class App {
  compact,
  partition,
  compact_single_pass,
  partition_single_pass,
  compact_persistent,
  partition_persistent,
  radix_sort,
  allocate,
  segmented_scan
};

struct AppInfo {
  App app;
  std::string_view name;     ///< command-line name (--algorithm)
  std::string_view summary;  ///< one line
};

inline constexpr AppInfo kApps[] = {
    {App::compact, "compact", "keep x < pivot: flags, exclusive scan of the flags, scatter (3 launches)"},
    {App::partition, "partition", "stable partition around the pivot: kept in order, then the rest in order"},
    {App::compact_single_pass, "compact_single_pass",
     "compaction fused into the decoupled look-back: one launch, n reads, count writes"},
    {App::partition_single_pass, "partition_single_pass",
     "stable partition in one launch: kept and rejected into two arrays, each in order"},
    {App::compact_persistent, "compact_persistent",
     "compaction in one launch of resident blocks on 11.8's pipeline (given: persistent_select.cuh)"},
    {App::partition_persistent, "partition_persistent",
     "stable partition in one launch of resident blocks on 11.8's pipeline (given)"},
    {App::radix_sort, "radix_sort", "LSD radix sort of 32-bit keys: 32 one-bit splits (stable partitions)"},
    {App::allocate, "allocate", "each request asks for k_i slots: exclusive scan of k gives the starts, then fill"},
    {App::segmented_scan, "segmented_scan", "scan restarting at head flags: one scan of (flag, value) pairs"},
};

struct Request {
  App app = App::compact;
  DType type = DType::int32;  ///< radix_sort and allocate: uint32 only (keys, sizes)
  OpKind op = OpKind::add;    ///< segmented_scan
  ScanKind kind = ScanKind::inclusive;  ///< segmented_scan
  std::size_t n = 0;
  const void* input = nullptr;          ///< n elements of `type`
  double pivot = 0;                     ///< compact, partition: keep x < pivot (converted to `type`)
  const std::uint32_t* heads = nullptr; ///< segmented_scan: n head flags (0 or 1)
  std::size_t max_blocks = 0;           ///< the persistent forms: blocks per launch at most (0: all that fit)
  bool misaligned = false;              ///< compact, partition: input and outputs one element past 16-byte alignment
  int reps = 0;                         ///< timed runs after the verified one (and a warm-up)
  bool trace = false;                   ///< keep the intermediate arrays (flags, offsets, ...)
  std::function<void()> before_each_run;  ///< outside the timed interval (the benchmark empties L2)
};

struct Result {
  /// compact: the kept elements; partition (both forms): kept then rejected, n elements; radix_sort:
  /// the sorted keys; allocate: the owner of every slot (count slots); segmented_scan: n values.
  std::vector<unsigned char> output;
  std::size_t count = 0;  ///< kept elements (compact, partition) or slots (allocate), as the device counted
  std::vector<std::pair<std::string, std::vector<std::string>>> steps;  ///< with trace: named arrays
  std::vector<double> times_ms;
  std::vector<LaunchStats> launches;  ///< cpu backend: counts of the verified run's launches
};

SCANLAB_EXPORT Result run_app_cuda(const Request& request);
SCANLAB_EXPORT Result run_app_cpu(const Request& request);
SCANLAB_EXPORT std::string device_cuda();
SCANLAB_EXPORT std::string device_cpu();

}  // namespace scanlab::s11_9
