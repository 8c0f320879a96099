// scanlab_persistent_roles: time per role of section 11.8's persistent kernel (cuda only). Built with
// SCANLAB_PERSISTENT_TRACE, the kernel's warps write clock64() stamps per tile (persistent_scan.cuh,
// "time per role"); this program runs the tuned kernel once per n (int32 sum, L2 emptied first, after
// warm-up launches), checks the result and prints, per n, the median and the largest stamp over the
// tiles, in microseconds since the tile's block started, and the durations between them.
//
//   scanlab_persistent_roles [LOG2 ...]   (default: 10 12 14 16 18 20 22 24)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "persistent_scan.hpp"
#include "scanlab/ops.hpp"

namespace {

using namespace scanlab;

__global__ void read_through(const int4* p, std::size_t n, int* sink) {
  int acc = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    acc ^= p[i].x;
  }
  if (acc == 0x7f3a5c11) *sink = acc;  // (keeps the loads alive)
}

const char* const kEvents[] = {"copy_started", "ticketed", "landed", "aggregate_published",
                               "scan_start", "lookback_start", "prefix_published", "stored"};

double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> log2s;
  for (int i = 1; i < argc; ++i) log2s.push_back(std::atoi(argv[i]));
  if (log2s.empty()) log2s = {10, 12, 14, 16, 18, 20, 22, 24};
  int device = 0, clock_khz = 0, l2 = 0;
  SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
  SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  const double cycles_per_us = clock_khz / 1000.0;
  DeviceBuffer<int4> flush(2 * static_cast<std::size_t>(l2) / 16);
  flush.fill(1);
  DeviceBuffer<int> sink(1);
  using Scan = s11_8::PersistentScan<int, Add<int>>;
  constexpr int E = lookback::pipeline::kTraceEvents;
  std::printf("n,tiles,what,median_us,max_us\n");
  for (const int k : log2s) {
    const std::size_t n = std::size_t{1} << k;
    const std::size_t tiles = ceil_div(n, Scan::tile_for(n));
    std::vector<int> ones(n, 1), out(n);
    DeviceBuffer<int> d_in(n), d_out(n);
    d_in.upload(ones.data());
    DeviceBuffer<unsigned long long> trace(tiles * E);
    unsigned long long* p = trace.data();
    Scan scan(n);
    for (int i = 0; i < 3; ++i) scan(d_in.data(), d_out.data(), n, Add<int>{}, ScanKind::inclusive);
    trace.fill(0xff);  // ~0: not stamped
    SCANLAB_CUDA_CHECK(cudaMemcpyToSymbol(lookback::pipeline::g_trace, &p, sizeof(p)));
    read_through<<<1024, 256>>>(flush.data(), flush.size(), sink.data());
    scan(d_in.data(), d_out.data(), n, Add<int>{}, ScanKind::inclusive);
    SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
    unsigned long long* none = nullptr;
    SCANLAB_CUDA_CHECK(cudaMemcpyToSymbol(lookback::pipeline::g_trace, &none, sizeof(none)));
    d_out.download(out.data());
    if (out[n - 1] != static_cast<int>(n) || out[0] != 1) {
      std::fprintf(stderr, "persistent_roles: wrong scan at n = 2^%d\n", k);
      return 1;
    }
    std::vector<unsigned long long> stamps(tiles * E);
    trace.download(stamps.data());
    const auto column = [&](int e) {
      std::vector<double> v;
      for (std::size_t t = 0; t < tiles; ++t) {
        if (stamps[t * E + e] != ~0ull) v.push_back(static_cast<double>(stamps[t * E + e]) / cycles_per_us);
      }
      return v;
    };
    const auto between = [&](int from, int to) {
      std::vector<double> v;
      for (std::size_t t = 0; t < tiles; ++t) {
        const unsigned long long a = stamps[t * E + from], b = stamps[t * E + to];
        if (a != ~0ull && b != ~0ull) v.push_back((static_cast<double>(b) - static_cast<double>(a)) / cycles_per_us);
      }
      return v;
    };
    const auto row = [&](const std::string& what, const std::vector<double>& v) {
      if (v.empty()) return;
      std::printf("%zu,%zu,%s,%.3f,%.3f\n", n, tiles, what.c_str(), median(v), *std::max_element(v.begin(), v.end()));
    };
    for (int e = 0; e < E; ++e) row(kEvents[e], column(e));
    row("copy_started_to_landed", between(lookback::pipeline::kCopyStarted, lookback::pipeline::kLanded));
    row("landed_to_aggregate", between(lookback::pipeline::kLanded, lookback::pipeline::kAggregatePublished));
    row("landed_to_scan_start", between(lookback::pipeline::kLanded, lookback::pipeline::kScanStart));
    row("scan_start_to_lookback", between(lookback::pipeline::kScanStart, lookback::pipeline::kLookBackStart));
    row("lookback", between(lookback::pipeline::kLookBackStart, lookback::pipeline::kPrefixPublished));
    row("prefix_to_stored", between(lookback::pipeline::kPrefixPublished, lookback::pipeline::kStored));
  }
  return 0;
}
