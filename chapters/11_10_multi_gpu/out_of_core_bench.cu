// scanlab_11_10_out_of_core (cuda only): section 11.10's out-of-core scan measured. One array of
// int32 in page-locked host memory, up to several times the GPU's memory, scanned in place (inclusive
// add) through GPU 0 by OutOfCoreScan, against the same pieces copied in and back without a scan (the
// bytes the scan must move, over the same links). Per n: one verified scan (checked on the host by
// every core), then --reps timed runs of each (the median goes to the CSV; GB/s count the bytes in and
// back, 2 n sizeof(int32)). Run it with --help.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "out_of_core_scan.hpp"
#include "scanlab/cli.hpp"
#include "scanlab/launcher.hpp"
#include "scanlab/ops.hpp"
#include "scanlab/report.hpp"

namespace scanlab::s11_10 {
namespace {

using T = std::int32_t;
using Op = Add<T>;

/// The input, made again wherever it is needed (no second copy of 128 GiB): small values from a hash
/// of the index.
inline T input_at(std::uint64_t i) {
  std::uint64_t z = i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<T>((z ^ (z >> 31)) % 2001) - 1000;
}

/// Runs body(first, last) over [0, n) in one chunk per core.
template <class F>
void parallel_chunks(std::uint64_t n, F&& body) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] { body(n * t / threads, n * (t + 1) / threads, t); });
  }
  for (auto& th : pool) th.join();
}

/// The first wrong element of the inclusive add scan of input_at (int32 wraps as on the GPU), or n.
std::uint64_t first_wrong(const T* y, std::uint64_t n) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::uint32_t> sums(threads, 0);
  parallel_chunks(n, [&](std::uint64_t a, std::uint64_t b, unsigned t) {
    std::uint32_t s = 0;
    for (std::uint64_t i = a; i < b; ++i) s += static_cast<std::uint32_t>(input_at(i));
    sums[t] = s;
  });
  std::vector<std::uint64_t> wrong(threads, n);
  parallel_chunks(n, [&](std::uint64_t a, std::uint64_t b, unsigned t) {
    std::uint32_t s = 0;
    for (unsigned u = 0; u < t; ++u) s += sums[u];
    for (std::uint64_t i = a; i < b; ++i) {
      s += static_cast<std::uint32_t>(input_at(i));
      if (static_cast<std::uint32_t>(y[i]) != s) {
        wrong[t] = i;
        return;
      }
    }
  });
  return *std::min_element(wrong.begin(), wrong.end());
}

int run(int argc, char** argv) {
  std::vector<std::uint64_t> sizes;
  int reps = 5;
  int piece_mib = 256;
  std::string csv = "scanlab_11_10_out_of_core.csv";
  bool help = false;
  cli::Parser p("scanlab_11_10_out_of_core",
                "scanlab_11_10_out_of_core: an int32 array in host memory scanned through one GPU, against a copy.");
  // Each comma-separated value of `v`, as a whole number from lo to hi, passed to `add`.
  const auto each = [](const std::string& flag, const std::string& v, std::uint64_t lo, std::uint64_t hi,
                       const auto& add) {
    std::size_t start = 0;
    while (start <= v.size()) {
      const std::size_t comma = std::min(v.find(',', start), v.size());
      add(cli::whole_number(flag, v.substr(start, comma - start), lo, hi,
                            "whole numbers from " + std::to_string(lo) + " to " + std::to_string(hi)));
      start = comma + 1;
    }
  };
  p.option("--log2", "K,K,...", "the sizes n = 2^K (default 30,32,34,35)", [&](const std::string& v) {
    each("--log2", v, 0, 36, [&](std::uint64_t k) { sizes.push_back(std::uint64_t{1} << k); });
  });
  p.option("--n", "N,N,...", "these sizes too", [&](const std::string& v) {
    each("--n", v, 1, std::uint64_t{1} << 36, [&](std::uint64_t n) { sizes.push_back(n); });
  });
  p.option("--reps", "N", "timed runs of each (default 5; the median is reported)", [&](const std::string& v) {
    reps = static_cast<int>(cli::whole_number("--reps", v, 1, 1000, "a whole number from 1 to 1000"));
  });
  p.option("--piece-mib", "M", "the size of a piece in MiB (default 256)", [&](const std::string& v) {
    piece_mib = static_cast<int>(cli::whole_number("--piece-mib", v, 1, 4096, "a whole number from 1 to 4096"));
  });
  p.option("--csv", "FILE", "append the rows to FILE (default scanlab_11_10_out_of_core.csv)", csv);
  p.flag("--help,-h", "this text", help);
  p.parse(argc, argv);
  if (help) {
    std::cout << p.help();
    return 0;
  }
  if (sizes.empty()) sizes = {std::uint64_t{1} << 30, std::uint64_t{1} << 32, std::uint64_t{1} << 34, std::uint64_t{1} << 35};
  if (device_count() == 0) throw Error("this program needs a CUDA GPU, and none is available here");
  const std::uint64_t n_max = *std::max_element(sizes.begin(), sizes.end());
  const std::string device = device_description();
  std::printf("%s; %llu int32 in page-locked host memory (%.1f GiB); pieces of %d MiB\n", device.c_str(),
              static_cast<unsigned long long>(n_max), n_max * sizeof(T) / 1073741824.0, piece_mib);
  PinnedBuffer<T> host(n_max);
  OutOfCoreScan<T, Op> scan(static_cast<std::size_t>(piece_mib) * 1048576 / sizeof(T));
  int failures = 0;
  for (const std::uint64_t n : sizes) {
    T* y = host.data();
    parallel_chunks(n, [&](std::uint64_t a, std::uint64_t b, unsigned) {
      for (std::uint64_t i = a; i < b; ++i) y[i] = input_at(i);
    });
    scan(y, y, n, Op{}, ScanKind::inclusive);
    const std::uint64_t wrong = first_wrong(y, n);
    const bool verified = wrong == n;
    if (!verified) {
      ++failures;
      std::printf("n = %llu: FAILED: element %llu is wrong\n", static_cast<unsigned long long>(n),
                  static_cast<unsigned long long>(wrong));
    }
    for (const Pass pass : {Pass::scan, Pass::copy_only}) {
      std::vector<double> times;
      Timer timer;
      for (int r = -1; r < reps; ++r) {  // r = -1: a warm-up
        timer.start();
        scan(y, y, n, Op{}, ScanKind::inclusive, pass);
        const double ms = timer.stop();
        if (r >= 0) times.push_back(ms);
      }
      ResultRow row = run_row("11.10", pass == Pass::scan ? "out_of_core" : "host_copy_in_and_back", Backend::cuda,
                              device, DType::int32, OpKind::add, ScanKind::inclusive, n, 0);
      row.verified = pass == Pass::copy_only || verified;
      set_times(row, times);
      row.gbps = 2.0 * static_cast<double>(n) * sizeof(T) / (row.median_ms * 1e6);
      append_csv(csv, {row});
      std::printf("n = %-12llu %-22s median %10.3f ms  %7.2f GB/s (in and back)%s\n",
                  static_cast<unsigned long long>(n), row.algorithm.c_str(),
                  row.median_ms, row.gbps, pass == Pass::scan ? (verified ? "  verified" : "  WRONG") : "");
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace scanlab::s11_10

int main(int argc, char** argv) {
  try {
    return scanlab::s11_10::run(argc, argv);
  } catch (const scanlab::UsageError& e) {
    std::fprintf(stderr, "scanlab_11_10_out_of_core: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scanlab_11_10_out_of_core: %s\n", e.what());
    return 2;
  }
}
