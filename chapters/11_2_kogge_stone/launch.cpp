// Section 11.2: host code that launches the Kogge-Stone kernels. Compiled once per backend (nvcc for
// cuda, the host compiler for cpu) from this one source. You do not need to change this file.
#include <string>

#include "algorithms.hpp"
#include "kogge_stone.cuh"
#include "scanlab/launcher.hpp"

namespace scanlab::s11_2 {
namespace {

enum class Variant { fig_11_3, double_buffer, warp_shuffle };

constexpr unsigned kSection = 1024;  // one block of at most 1024 threads, one element each

/// Threads (= elements) per section for a single-section scan of n elements: the smallest power of
/// two >= n (so the book's N log2 N - (N - 1) applies), at least a warp for the warp-shuffle kernel,
/// at most 1024.
unsigned section_for(std::size_t n, Variant variant) {
  unsigned section = variant == Variant::warp_shuffle ? 32 : 1;
  while (section < n && section < kSection) section *= 2;
  return section;
}

template <class T, class Op>
void launch_sections(Variant variant, const T* d_in, T* d_out, std::size_t n, Op op, bool exclusive,
                     T* d_block_sums, unsigned section) {
  const auto blocks = static_cast<unsigned>(ceil_div(n, section));
  switch (variant) {
    case Variant::fig_11_3:
      launch(kogge_stone_scan_kernel<T, Op>, {"kogge_stone_scan_kernel", blocks, section, section * sizeof(T)},
             d_in, d_out, n, op, exclusive, d_block_sums);
      return;
    case Variant::double_buffer:
      launch(kogge_stone_double_buffer_scan_kernel<T, Op>,
             {"kogge_stone_double_buffer_scan_kernel", blocks, section, 2 * section * sizeof(T)}, d_in, d_out, n,
             op, exclusive, d_block_sums);
      return;
    case Variant::warp_shuffle:
      launch(kogge_stone_warp_shuffle_scan_kernel<T, Op>,
             {"kogge_stone_warp_shuffle_scan_kernel", blocks, section, 0}, d_in, d_out, n, op, exclusive,
             d_block_sums);
      return;
  }
}

/// One section (n <= 1024), as the algorithm table offers it.
template <Variant V>
struct SingleSection {
  template <class T, class Op>
  struct Scan : NoWorkspace {
    using NoWorkspace::NoWorkspace;
    void operator()(const T* d_in, T* d_out, std::size_t n, Op op, ScanKind kind) {
      launch_sections(V, d_in, d_out, n, op, kind == ScanKind::exclusive, static_cast<T*>(nullptr),
                      section_for(n, V));
    }
  };
};

const Algorithm kAlgorithms[] = {
    with_run(kAlgorithmInfo[0], &run_scan<SingleSection<Variant::fig_11_3>::Scan>),
    with_run(kAlgorithmInfo[1], &run_scan<SingleSection<Variant::double_buffer>::Scan>),
    with_run(kAlgorithmInfo[2], &run_scan<SingleSection<Variant::warp_shuffle>::Scan>),
};
static_assert(kAlgorithmInfo[0].max_n == kSection && kAlgorithmInfo[2].max_n == kSection);

Variant variant_named(std::string_view name) {
  if (name == "kogge_stone") return Variant::fig_11_3;
  if (name == "kogge_stone_double_buffer") return Variant::double_buffer;
  if (name == "kogge_stone_warp_shuffle") return Variant::warp_shuffle;
  throw Error("scan_sections: section 11.2 has no algorithm '" + std::string(name) + "'");
}

}  // namespace

AlgorithmTable SCANLAB_FOR_BACKEND(algorithms)() { return make_table(kAlgorithms); }

RunResult SCANLAB_FOR_BACKEND(scan_sections)(std::string_view algorithm, const RunRequest& request,
                                             unsigned section, void* totals) {
  const Variant variant = variant_named(algorithm);
  const unsigned smallest = variant == Variant::warp_shuffle ? 32 : 1;
  if (section < smallest || section > kSection || (section & (section - 1)) != 0) {
    throw Error("scan_sections: section " + std::to_string(section) + " is not a power of two from " +
                std::to_string(smallest) + " to " + std::to_string(kSection));
  }
  require_backend();
  const ScanProblem& p = request.problem;
  return visit_type_op(p.type, p.op, [&](auto type, auto op) {
    using T = typename decltype(type)::type;
    const std::size_t n = p.n;
    const std::size_t blocks = ceil_div(n, section);
    DeviceBuffer<T> input(n), output(n), sums(blocks);
    input.upload(static_cast<const T*>(request.input));
    output.poison();
    sums.poison();
    RunResult result;
    result.launches = run_counted(request.trace, [&] {
      if (n > 0) {
        launch_sections(variant, input.data(), output.data(), n, op, p.kind == ScanKind::exclusive, sums.data(),
                        section);
      }
    });
    if (n > 0) {
      output.download(static_cast<T*>(request.output));
      sums.download(static_cast<T*>(totals));
    }
    return result;
  });
}

}  // namespace scanlab::s11_2
