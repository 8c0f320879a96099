// Section 11.8: host code that launches the decoupled look-back scan. Compiled once per backend
// (nvcc for cuda, the host compiler for cpu) from this one source. You do not need to change this file.
#include <cstring>
#include <string>
#include <vector>

#include "algorithms.hpp"
#include "decoupled_lookback_scan.hpp"
#include "persistent_scan.hpp"
#include "scanlab/inputs.hpp"

namespace scanlab::s11_8 {
namespace {

template <class T, class Op>
using TunedScan = DecoupledLookbackScan<T, Op>;
template <class T, class Op>
using TunedPersistentScan = PersistentScan<T, Op>;

const Algorithm kAlgorithms[] = {
    with_run(kAlgorithmInfo[0], &run_scan<TunedScan>),
    with_run(kAlgorithmInfo[1], &run_scan<TunedPersistentScan>),
};

/// Test only: tiles of 128 elements (32 threads x 4, whole 16-byte chunks for every type).
template <class T, class Op>
using SmallTilesScan = DecoupledLookbackScan<T, Op, 32, 4>;

const Algorithm kTestAlgorithms[] = {
    with_run(kTestAlgorithmInfo[0], &run_scan<SmallTilesScan>),
};

}  // namespace

AlgorithmTable SCANLAB_FOR_BACKEND(algorithms)() { return make_table(kAlgorithms); }
AlgorithmTable SCANLAB_FOR_BACKEND(test_algorithms)() { return make_table(kTestAlgorithms); }

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

RepeatedOutputs SCANLAB_FOR_BACKEND(repeated_launches)(const RepeatedLaunches& r) {
  require_backend();
  return visit_type_op(r.type, r.op, [&](auto type, auto op) {
    using T = typename decltype(type)::type;
    const HostArray inputs[2] = {make_input(r.type, r.op, r.n, r.seed), make_input(r.type, r.op, r.n, r.seed + 1)};
    DeviceBuffer<T> d_in(r.n + r.offset), d_out(r.n + r.offset);  // offset: misaligned arrays
    std::vector<T> staging(r.n + r.offset, T{});
    TunedScan<T, decltype(op)> scan(r.n);
    scan.set_prefix_period_log2(r.prefix_period_log2);
    TunedPersistentScan<T, decltype(op)> persistent(r.n);
    persistent.set_prefix_period_log2(r.prefix_period_log2);
    persistent.set_max_blocks(r.max_blocks);
    RepeatedOutputs out;
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
        out.error = "launch " + std::to_string(i) + ": " + e.what();
        break;
      }
      d_out.download(staging.data());
      const std::string_view bytes(reinterpret_cast<const char*>(staging.data() + r.offset), input.bytes());
      if (i < 2 || is_floating(r.type)) out.outputs.emplace_back(bytes);
      out.digests.push_back(digest(bytes));
    }
    return out;
  });
}

}  // namespace scanlab::s11_8
