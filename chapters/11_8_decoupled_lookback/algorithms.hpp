/// \file algorithms.hpp
/// \brief Section 11.8's algorithm tables (one per backend), exported by its kernel libraries, and two
/// more entry points for the tests: repeated launches on one workspace, and the tile size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "scanlab/section.hpp"

SCANLAB_DECLARE_SECTION(s11_8)

namespace scanlab::s11_8 {

/// `launches` scans, one after another, with ONE workspace (ticket counter and statuses) and the
/// same device buffers, the input alternating between two seeded arrays, each output verified.
struct RepeatedLaunches {
  DType type = DType::int32;
  OpKind op = OpKind::add;
  ScanKind kind = ScanKind::inclusive;
  std::size_t n = 0;
  int launches = 100;
  unsigned prefix_period_log2 = 0;  ///< only tiles numbered k * 2^this publish their prefix
  std::size_t offset = 0;           ///< input and output start this many elements into their buffers
  std::uint64_t seed = 11;
  bool persistent = false;     ///< the persistent pipelined kernel (persistent_scan.cuh) instead
  std::size_t max_blocks = 0;  ///< persistent: blocks per launch at most (0: as many as fit)
};

/// "" if every launch verified, else the first failure (which launch, and the verifier's message).
SCANLAB_EXPORT std::string repeated_launches_cuda(const RepeatedLaunches& request);
SCANLAB_EXPORT std::string repeated_launches_cpu(const RepeatedLaunches& request);

/// Elements per tile (one block's share) for elements of `type`.
SCANLAB_EXPORT std::size_t tile_items_cuda(DType type);
SCANLAB_EXPORT std::size_t tile_items_cpu(DType type);
/// Elements per tile of the persistent pipelined kernel.
SCANLAB_EXPORT std::size_t persistent_tile_items_cuda(DType type);
SCANLAB_EXPORT std::size_t persistent_tile_items_cpu(DType type);

}  // namespace scanlab::s11_8
