/// \file contender.hpp
/// \brief scanlab_bench: one scan (or copy) the benchmark times. Each lives behind this small interface
/// so that the heavy template instantiations (CUB, Thrust, tile shapes of 11.8) compile in separate
/// translation units, in parallel.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scanlab/types.hpp"

namespace scanlab::bench {

class Contender {
 public:
  virtual ~Contender() = default;
  /// For the CSV, e.g. "cub_inclusive_sum", "decoupled_lookback_256x16".
  virtual std::string name() const = 0;
  /// The operator it scans with (ScanKind is always inclusive); copies say add and are checked as copies.
  virtual OpKind op() const { return OpKind::add; }
  virtual bool is_copy() const { return false; }
  /// Allocates what n elements need (temporary storage, workspace). Not timed.
  virtual void prepare(std::size_t n) = 0;
  /// Enqueues one run on the default stream: nothing else (no allocation, no synchronization).
  virtual void run(const void* d_in, void* d_out, std::size_t n) = 0;
  /// For contenders whose output is not a scan of the input (section 11.9's compaction, partition,
  /// segmented scan): checks the run's output (d_out and whatever else it wrote) against the host
  /// `input`; "" if right, else what is wrong. nullopt (the default): checked as a scan or a copy.
  virtual std::optional<std::string> check(const void* input, const void* d_out, std::size_t n) {
    (void)input, (void)d_out, (void)n;
    return std::nullopt;
  }
  /// The bytes one run must move at the least, for GB/s; 0 (the default): a scan's 2 n sizeof(T).
  /// Called after check().
  virtual double bytes_moved(std::size_t n) const {
    (void)n;
    return 0;
  }
};

using Contenders = std::vector<std::unique_ptr<Contender>>;

/// cudaMemcpy device to device, CUB's InclusiveSum and InclusiveScan (max), Thrust's inclusive_scan.
Contenders library_contenders(DType type);
/// Section 11.8 launched directly (its default tile shape; with `sweep`, every shape compiled in).
Contenders lookback_contenders(DType type, bool sweep, unsigned spin_ns);
/// Section 11.9 against CUB: compaction (DeviceSelect::If), partition (DevicePartition::If), segmented
/// scan (DeviceScan::InclusiveSumByKey), single pass and three steps (int32 and float; none otherwise).
Contenders application_contenders(DType type, bool sweep);

}  // namespace scanlab::bench
