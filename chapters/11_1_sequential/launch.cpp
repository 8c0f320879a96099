// Section 11.1: host code that launches the sequential scan. Compiled once per backend (nvcc for
// cuda, the host compiler for cpu) from this one source. You do not need to change this file.
#include "algorithms.hpp"
#include "scanlab/launcher.hpp"
#include "sequential_scan.cuh"

namespace scanlab::s11_1 {
namespace {

template <class T, class Op>
struct SequentialScan : NoWorkspace {
  using NoWorkspace::NoWorkspace;
  void operator()(const T* d_in, T* d_out, std::size_t n, Op op, ScanKind kind) {
    launch(sequential_scan_kernel<T, Op>, {"sequential_scan_kernel", 1, 1}, d_in, d_out, n, op,
           kind == ScanKind::exclusive);
  }
};

const Algorithm kAlgorithms[] = {
    with_run(kAlgorithmInfo[0], &run_scan<SequentialScan>),
};

}  // namespace

AlgorithmTable SCANLAB_FOR_BACKEND(algorithms)() { return make_table(kAlgorithms); }

}  // namespace scanlab::s11_1
