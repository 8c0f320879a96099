// Section 11.8: host code that launches the decoupled look-back scan. Compiled once per backend
// (nvcc for cuda, the host compiler for cpu) from this one source. You do not need to change this file.
#include <cstring>
#include <string>
#include <vector>

#include "algorithms.hpp"
#include "decoupled_lookback_scan.hpp"
#include "persistent_scan.hpp"
#include "scanlab/inputs.hpp"
#include "scanlab/verify.hpp"

namespace scanlab::s11_8 {
namespace {

template <class T, class Op>
using TunedScan = DecoupledLookbackScan<T, Op>;
template <class T, class Op>
using TunedPersistentScan = PersistentScan<T, Op>;

const Algorithm kAlgorithms[] = {
    {"decoupled_lookback",
     "single pass, one launch: tiles publish aggregates at once and look back over 32 predecessors "
     "per step; 16-byte loads, n reads + n writes",
     "Merrill & Garland 2016 (beyond the book)", 0, &run_scan<TunedScan>},
    {"persistent_pipelined",
     "the same look-back in persistent blocks: a producer warp streams tiles into a ring of shared-memory "
     "stages (TMA bulk copies and mbarriers on sm_90) while the scan warps scan and look back",
     "beyond the book (persistent_scan.cuh)", 0, &run_scan<TunedPersistentScan>, /*given=*/true},
};

}  // namespace

AlgorithmTable SCANLAB_FOR_BACKEND(algorithms)() { return make_table(kAlgorithms); }

std::size_t SCANLAB_FOR_BACKEND(tile_items)(DType type) {
  return visit_type(type, [](auto t) {
    using T = typename decltype(t)::type;
    return TunedScan<T, Add<T>>::kTile;
  });
}

std::size_t SCANLAB_FOR_BACKEND(persistent_tile_items)(DType type) {
  return visit_type(type, [](auto t) {
    using T = typename decltype(t)::type;
    return TunedPersistentScan<T, Add<T>>::kTile;
  });
}

std::string SCANLAB_FOR_BACKEND(repeated_launches)(const RepeatedLaunches& r) {
  require_backend();
  return visit_type_op(r.type, r.op, [&](auto type, auto op) -> std::string {
    using T = typename decltype(type)::type;
    const ScanProblem problem{r.type, r.op, r.kind, r.n, false};
    const HostArray inputs[2] = {make_input(r.type, r.op, r.n, r.seed), make_input(r.type, r.op, r.n, r.seed + 1)};
    HostArray output(r.type, r.n);
    DeviceBuffer<T> d_in(r.n + r.offset), d_out(r.n + r.offset);  // offset: misaligned arrays
    std::vector<T> staging(r.n + r.offset, T{});
    TunedScan<T, decltype(op)> scan(r.n);
    scan.set_prefix_period_log2(r.prefix_period_log2);
    TunedPersistentScan<T, decltype(op)> persistent(r.n);
    persistent.set_prefix_period_log2(r.prefix_period_log2);
    persistent.set_max_blocks(r.max_blocks);
    for (int i = 0; i < r.launches; ++i) {
      const HostArray& input = inputs[i % 2];
      std::memcpy(staging.data() + r.offset, input.data(), input.bytes());
      d_in.upload(staging.data());
      d_out.poison();
      try {
        if (r.persistent) {
          persistent(d_in.data() + r.offset, d_out.data() + r.offset, r.n, op, r.kind);
        } else {
          scan(d_in.data() + r.offset, d_out.data() + r.offset, r.n, op, r.kind);
        }
        synchronize();
      } catch (const Error& e) {
        return "launch " + std::to_string(i) + ": " + e.what();
      }
      d_out.download(staging.data());
      std::memcpy(output.data(), staging.data() + r.offset, output.bytes());
      const VerifyResult v = verify_scan(problem, input.data(), output.data());
      if (!v.passed) {
        return "launch " + std::to_string(i) + " of " + std::to_string(r.launches) +
               " on one workspace: " + v.message;
      }
    }
    return "";
  });
}

}  // namespace scanlab::s11_8
