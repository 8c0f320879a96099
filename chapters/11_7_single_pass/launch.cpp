// Section 11.7: the algorithm tables of the single-pass scan, and the repeated-launch entry point the
// tests use. Compiled once per backend (nvcc for cuda, the host compiler for cpu) from this one
// source. You do not need to change this file.
#include "algorithms.hpp"
#include "scanlab/launcher.hpp"
#include "single_pass_host.hpp"
#include "single_pass_scan.cuh"

namespace scanlab::s11_7 {
namespace {

/// The program's single-pass scan: 512 threads x 8 elements = sections of 4096 (as 11.6's default).
using Default = SinglePass<512, 8>;
template <class T, class Op>
using SinglePassScan = Default::Scan<T, Op>;
/// The same kernel with blockIdx.x as the section number: correct only while blocks start in order.
template <class T, class Op>
using StaticIndexScan = SinglePass<512, 8, BlockIndex::block_idx_x>::Scan<T, Op>;
/// Test only: sections of 256 (32 threads x 8), long chains for little work.
template <class T, class Op>
using SmallSectionsScan = SinglePass<32, 8>::Scan<T, Op>;
/// Test only: sections of 32 (one warp, one element each), the smallest whole warps make.
template <class T, class Op>
using WarpSectionsScan = SinglePass<32, 1>::Scan<T, Op>;

const Algorithm kAlgorithms[] = {
    with_run(kAlgorithmInfo[0], &run_scan<SinglePassScan>),
#if defined(SCANLAB_BACKEND_CPU)
    // Not on a GPU, where it can hang: it is here to watch it fail with --block-order reverse.
    with_run(kAlgorithmInfo[1], &run_scan<StaticIndexScan>),
#endif
};

const Algorithm kTestAlgorithms[] = {
    with_run(kTestAlgorithmInfo[0], &run_scan<SmallSectionsScan>),
#if defined(SCANLAB_BACKEND_CPU)
    with_run(kTestAlgorithmInfo[1], &run_scan<WarpSectionsScan>),
#endif
};

// The flags the blocks wait on, named by the kernel parameter they are passed as (argument 6,
// `flags`), so that the emulator's report of a launch that never finishes says which flag a block
// spins on and which were set; the host file that allocates them needs nothing.
[[maybe_unused]] const bool kFlagsNamed = (name_kernel_argument("single_pass_scan_kernel", 6, "flags"), true);

}  // namespace

AlgorithmTable SCANLAB_FOR_BACKEND(algorithms)() { return make_table(kAlgorithms); }
AlgorithmTable SCANLAB_FOR_BACKEND(test_algorithms)() { return make_table(kTestAlgorithms); }

// One scan object, so one counter and one set of flags, for every launch.
RunResult SCANLAB_FOR_BACKEND(repeated_launches)(const RunRequest& request) {
  require_backend();
  const ScanProblem& p = request.problem;
  const std::size_t n = p.n;
  return visit_type_op(p.type, p.op, [&](auto type, auto op) {
    using T = typename decltype(type)::type;
    SinglePassScan<T, decltype(op)> scan(n);
    DeviceBuffer<T> input(n), output(n);
    for (int k = 0; k < request.reps; ++k) {
      input.upload(static_cast<const T*>(request.input) + k * n);
      output.poison();
      scan(input.data(), output.data(), n, op, p.kind);
      synchronize();
      output.download(static_cast<T*>(request.output) + k * n);
    }
    return RunResult{};
  });
}

}  // namespace scanlab::s11_7
