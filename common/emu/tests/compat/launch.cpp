// The compatibility suite's host side: launches each kernel of compat_kernels.cuh and copies its
// results back. Compiled once per backend (nvcc for cuda, the host compiler for cpu), as a
// section's launch.cpp is.
#include <vector>

#include "compat.hpp"
#include "compat_kernels.cuh"
#include "scanlab/launcher.hpp"

namespace scanlab::emu_compat {
namespace {

AtomicTotals run_atomics() {
  DeviceBuffer<AtomicTotals> d(1);
  const AtomicTotals start = atomics_start();
  d.upload(&start);
  launch(atomics_kernel, {"atomics_kernel", kAtomicBlocks, kAtomicThreads, 0}, d.data());
  synchronize();
  AtomicTotals out{};
  d.download(&out);
  return out;
}

std::vector<unsigned long long> run_intrinsics(const std::vector<unsigned long long>& inputs) {
  const auto n = static_cast<unsigned>(inputs.size());
  DeviceBuffer<unsigned long long> in(n), out(8 * n);
  in.upload(inputs.data());
  launch(intrinsics_kernel, {"intrinsics_kernel", 1, n, 0}, in.data(), out.data(), n);
  synchronize();
  std::vector<unsigned long long> result(8 * n);
  out.download(result.data());
  return result;
}

std::vector<int> run_dynamic_shared_views(unsigned threads) {
  DeviceBuffer<int> out(threads);
  launch(dynamic_shared_views_kernel, {"dynamic_shared_views_kernel", 1, threads, threads * sizeof(int)},
         out.data());
  synchronize();
  std::vector<int> result(threads);
  out.download(result.data());
  return result;
}

std::vector<int> run_extern_shared_views(unsigned threads) {
  DeviceBuffer<int> out(threads);
  launch(extern_shared_views_kernel, {"extern_shared_views_kernel", 1, threads, threads * sizeof(int)}, out.data());
  synchronize();
  std::vector<int> result(threads);
  out.download(result.data());
  return result;
}

std::vector<int> run_static_shared_reach(int read_at, int write_at) {
  DeviceBuffer<int> out(1 + kReachThreads);
  launch(static_shared_reach_kernel, {"static_shared_reach_kernel", 1, kReachThreads, 0}, out.data(), read_at, write_at);
  synchronize();
  std::vector<int> result(1 + kReachThreads);
  out.download(result.data());
  return result;
}

void run_print() {
  launch(printf_kernel, {"printf_kernel", 1, 4, 0}, 40);
  synchronize();  // a GPU prints a kernel's printf output when the host synchronizes
}

std::vector<unsigned> run_warp_and_block() {
  DeviceBuffer<unsigned> out(kWarpValues * kWarpThreads);
  launch(warp_and_block_kernel, {"warp_and_block_kernel", 1, kWarpThreads, 0}, out.data());
  synchronize();
  std::vector<unsigned> result(kWarpValues * kWarpThreads);
  out.download(result.data());
  return result;
}

std::vector<unsigned> run_groups() {
  constexpr unsigned kValues = kGroupValues * kGroupThreads * kGroupBlocks;
  DeviceBuffer<unsigned> out(kValues);
  launch(groups_kernel, {"groups_kernel", dim3(kGroupBlocks), dim3(kGroupBlockX, kGroupBlockY), 0}, out.data());
  synchronize();
  std::vector<unsigned> result(kValues);
  out.download(result.data());
  return result;
}

std::vector<double> run_collectives(const std::vector<int>& inputs) {
  DeviceBuffer<int> in(kCollectiveThreads);
  DeviceBuffer<double> out(kCollectiveValues * kCollectiveThreads);
  in.upload(inputs.data());
  launch(collectives_kernel, {"collectives_kernel", 1, kCollectiveThreads, 0}, in.data(), out.data());
  synchronize();
  std::vector<double> result(kCollectiveValues * kCollectiveThreads);
  out.download(result.data());
  return result;
}

std::vector<int> run_block_scan(const std::vector<int>& inputs) {
  const auto n = static_cast<unsigned>(inputs.size());
  DeviceBuffer<int> in(n), out(n);
  in.upload(inputs.data());
  const unsigned blocks = (n + kBlockScanThreads - 1) / kBlockScanThreads;
  launch(block_scan_kernel, {"block_scan_kernel", blocks, kBlockScanThreads, 0}, in.data(), out.data(), n);
  synchronize();
  std::vector<int> result(n);
  out.download(result.data());
  return result;
}

std::pair<std::vector<int>, std::vector<unsigned long long>> run_lookback_scan(const std::vector<int>& inputs) {
  const auto n = static_cast<unsigned>(inputs.size());
  const unsigned tiles = (n + kLookbackThreads - 1) / kLookbackThreads;
  DeviceBuffer<int> in(n), out(n);
  DeviceBuffer<unsigned long long> status(tiles);
  DeviceBuffer<unsigned> ticket(1);
  in.upload(inputs.data());
  const std::vector<unsigned long long> no_status(tiles, 0);
  status.upload(no_status.data());
  const unsigned zero = 0;
  ticket.upload(&zero);
  launch(lookback_scan_kernel, {"lookback_scan_kernel", tiles, kLookbackThreads, 0}, in.data(), out.data(),
         status.data(), ticket.data(), n);
  synchronize();
  std::pair<std::vector<int>, std::vector<unsigned long long>> result{std::vector<int>(n),
                                                                      std::vector<unsigned long long>(tiles)};
  out.download(result.first.data());
  status.download(result.second.data());
  return result;
}

CudaAtomicTotals run_cuda_atomics() {
  DeviceBuffer<CudaAtomicTotals> d(1);
  const CudaAtomicTotals start = cuda_atomics_start();
  d.upload(&start);
  launch(cuda_atomics_kernel, {"cuda_atomics_kernel", 2, 64, 0}, d.data());
  synchronize();
  CudaAtomicTotals out{};
  d.download(&out);
  return out;
}

#if defined(SCANLAB_BACKEND_CPU)
void set_emulated_devices(int devices) {
  emu::settings().devices = devices;
  emu::reset_devices();
}
#endif

std::vector<int> run_peer_read(unsigned n, bool enable) {
  std::vector<int> values(n);
  for (unsigned i = 0; i < n; ++i) values[i] = static_cast<int>(i);
  set_device(0);
  DeviceBuffer<int> on_0(n), out(n);
  on_0.upload(values.data());
  std::vector<int> result(n);
  {
    DeviceScope scope(1);
    DeviceBuffer<int> on_1(n);
    copy_peer(on_1.data(), 1, on_0.data(), 0, n);
    set_device(0);
    if (enable) enable_peer_access(1);
    launch(peer_double_kernel, {"peer_double_kernel", ceil_div(n, 128), 128, 0}, on_1.data(), out.data(), n);
    synchronize();
  }
  out.download(result.data());
  return result;
}

void run_launch_into_other_devices_stream() {
  set_device(1);
  Stream stream;
  set_device(0);
  DeviceBuffer<int> a(1), b(1);
  LaunchConfig config{"peer_double_kernel", 1, 1, 0};
  config.stream = &stream;
  launch(peer_double_kernel, config, a.data(), b.data(), 1u);
  stream.synchronize();
}

}  // namespace

CompatBackend SCANLAB_FOR_BACKEND(backend)() {
#if defined(SCANLAB_BACKEND_CUDA)
  const char* name = "cuda";
#else
  const char* name = "cpu";
#endif
#if defined(SCANLAB_BACKEND_CPU)
  void (*set_devices)(int) = &set_emulated_devices;
#else
  void (*set_devices)(int) = nullptr;
#endif
  return {name, &require_backend, &run_atomics, &run_intrinsics,
          &run_dynamic_shared_views, &run_extern_shared_views, &run_static_shared_reach, &run_print, &run_warp_and_block,
          &run_groups, &run_collectives, &run_block_scan, &run_lookback_scan, &run_cuda_atomics,
          set_devices, [] { return device_count(); }, &run_peer_read, &run_launch_into_other_devices_stream};
}

}  // namespace scanlab::emu_compat
