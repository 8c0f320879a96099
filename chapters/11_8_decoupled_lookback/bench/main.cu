// scanlab_bench: every scan of the lab that handles any n, against CUB, Thrust and a plain copy, in ONE
// run on one GPU, for n = 2^10 .. 2^29. Run with --help for the options.
//
// For each element type and size: make a seeded input, then for each contender run it once on a
// poisoned output, verify the result against the CPU reference (scanlab::verify_scan; a copy is compared
// byte for byte), and only then time it: warm-up runs, then `reps` runs each between two CUDA events,
// with L2 emptied before each (a read of twice the L2 size, outside the events), and report the median.
// A contender that fails verification gets a row with verified = 0 and no time.
//
// The lab's own sections (11.6, 11.7, 11.8) are also run through their algorithm tables, i.e. through
// run_scan, which times only the scan launches with CUDA events and empties L2 before each run through
// RunRequest::before_each_run, as here ("run_scan_l2_flushed" in the `timing` column; with --no-flush,
// "run_scan_l2_warm"). Section 11.8 also appears launched directly ("decoupled_lookback").
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "contender.hpp"
#include "scanlab/algorithm.hpp"
#include "scanlab/cli.hpp"
#include "scanlab/error.hpp"
#include "scanlab/inputs.hpp"
#include "scanlab/memory.hpp"
#include "scanlab/report.hpp"
#include "scanlab/verify.hpp"

// The section tables CMake linked in (it passes each section's namespace, as its scanlab_add_section declared it).
#if defined(SCANLAB_BENCH_NS_11_6)
namespace scanlab::SCANLAB_BENCH_NS_11_6 {
SCANLAB_EXPORT AlgorithmTable algorithms_cuda();
}
#endif
#if defined(SCANLAB_BENCH_NS_11_7)
namespace scanlab::SCANLAB_BENCH_NS_11_7 {
SCANLAB_EXPORT AlgorithmTable algorithms_cuda();
}
#endif
#if defined(SCANLAB_BENCH_NS_11_8)
namespace scanlab::SCANLAB_BENCH_NS_11_8 {
SCANLAB_EXPORT AlgorithmTable algorithms_cuda();
}
#endif

namespace scanlab::bench {

Contenders lookback_contenders_int32(bool sweep, unsigned spin_ns);
Contenders lookback_contenders_float(bool sweep, unsigned spin_ns);
Contenders lookback_contenders_int64(bool sweep, unsigned spin_ns);
Contenders lookback_contenders_double(bool sweep, unsigned spin_ns);

Contenders lookback_contenders(DType type, bool sweep, unsigned spin_ns) {
  switch (type) {
    case DType::int32: return lookback_contenders_int32(sweep, spin_ns);
    case DType::float32: return lookback_contenders_float(sweep, spin_ns);
    case DType::int64: return lookback_contenders_int64(sweep, spin_ns);
    case DType::float64: return lookback_contenders_double(sweep, spin_ns);
    case DType::uint32: break;
  }
  throw Error("scanlab_bench: uint32 is not benchmarked (use int32, float, int64 or double)");
}

namespace {

struct Options {
  std::vector<int> log2s;
  std::vector<DType> types{DType::int32, DType::float32};
  int reps = 20;
  int warmup = 3;
  std::string csv = "scanlab_bench.csv";
  std::vector<std::string> only;
  bool sweep = false;
  unsigned spin_ns = 0;
  bool flush = true;
  bool sections = true;
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

/// `text` as a whole number from lo to hi, or a UsageError saying what `flag` needs.
int whole_number(const std::string& flag, const std::string& text, int lo, int hi) {
  const std::string what = "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  return static_cast<int>(cli::whole_number(flag, text, static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi), what));
}

/// The command line, with the common parser (scanlab/cli.hpp): one line and exit status 2 on bad input.
Options parse(int argc, char** argv) {
  Options o;
  int min_log2 = 10, max_log2 = 29;
  bool help = false;
  cli::Parser p("scanlab_bench", "scanlab_bench: the lab's any-n scans vs CUB, Thrust and cudaMemcpy, one run.");
  p.option("--min-log2", "K", "smallest n = 2^K (default 10)",
           [&](const std::string& v) { min_log2 = whole_number("--min-log2", v, 0, 33); });
  p.option("--max-log2", "K", "largest n = 2^K (default 29)",
           [&](const std::string& v) { max_log2 = whole_number("--max-log2", v, 0, 33); });
  p.option("--log2", "K,K,...", "exactly these sizes (instead of the range)", [&](const std::string& v) {
    for (const auto& k : split(v)) o.log2s.push_back(whole_number("--log2", k, 0, 33));
  });
  p.option("--types", "LIST", "element types, comma-separated: int32,float,int64,double (default int32,float)",
           [&](const std::string& v) {
             o.types.clear();
             for (const auto& t : split(v)) {
               const auto type = parse_dtype(t);
               if (!type || *type == DType::uint32) throw UsageError("--types: use int32, float, int64 or double, not " + t);
               o.types.push_back(*type);
             }
           });
  p.option("--reps", "N", "timed repetitions per size (default 20; the median is reported)",
           [&](const std::string& v) { o.reps = whole_number("--reps", v, 1, 1000000); });
  p.option("--warmup", "N", "untimed runs before them (default 3)",
           [&](const std::string& v) { o.warmup = whole_number("--warmup", v, 0, 1000000); });
  p.option("--csv", "FILE", "write the rows as CSV (default scanlab_bench.csv)", o.csv);
  p.option("--only", "WORDS",
           "run only contenders whose name contains one of these comma-separated words (=WORD: is exactly WORD)",
           [&](const std::string& v) { o.only = split(v); });
  p.flag("--sweep", "also run every compiled tile shape of 11.8 (decoupled_lookback_<threads>x<items>) and 11.9",
         o.sweep);
  p.option("--spin-ns", "N", "11.8: sleep N ns between two reads of an unpublished tile status (default 0)",
           [&](const std::string& v) { o.spin_ns = static_cast<unsigned>(whole_number("--spin-ns", v, 0, 1000000)); });
  p.flag("--no-flush", "do not empty L2 between timed runs", [&] { o.flush = false; });
  p.flag("--no-sections", "skip the section tables (11.6, 11.7, 11.8 through run_scan)", [&] { o.sections = false; });
  p.flag("--help,-h", "this text", help);
  p.parse(argc, argv);
  if (help) {
    std::cout << p.help();
    std::exit(0);
  }
  if (o.log2s.empty()) {
    for (int k = min_log2; k <= max_log2; ++k) o.log2s.push_back(k);
  }
  if (o.log2s.empty()) throw UsageError("--min-log2 is above --max-log2: no size to run");
  return o;
}

bool wanted(const Options& o, const std::string& name) {
  if (o.only.empty()) return true;
  return std::any_of(o.only.begin(), o.only.end(), [&](const std::string& w) {
    return w[0] == '=' ? name == w.substr(1) : name.find(w) != std::string::npos;
  });
}

struct DeviceInfo {
  std::string name, cuda_version, driver;
  int sm_clock_mhz = 0, mem_clock_mhz = 0;
  std::size_t l2_bytes = 0;
};

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

DeviceInfo device_info() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) throw NoDeviceError("no CUDA GPU is available here");
  DeviceInfo d;
  int device = 0, runtime = 0, driver = 0, khz = 0, l2 = 0;
  cudaDeviceProp prop{};
  SCANLAB_CUDA_CHECK(cudaGetDevice(&device));
  SCANLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  SCANLAB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  SCANLAB_CUDA_CHECK(cudaDriverGetVersion(&driver));
  d.name = prop.name;
  d.cuda_version = version_text(runtime);
  d.driver = version_text(driver);
  SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  d.sm_clock_mhz = khz / 1000;
  SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
  d.mem_clock_mhz = khz / 1000;
  SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  d.l2_bytes = static_cast<std::size_t>(l2);
  return d;
}

/// Raw device memory, freed on scope exit.
class DeviceBytes {
 public:
  explicit DeviceBytes(std::size_t bytes) : bytes_(bytes) {
    SCANLAB_CUDA_CHECK(cudaMalloc(&data_, std::max<std::size_t>(bytes, 16)));
  }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  ~DeviceBytes() { cudaFree(data_); }
  void* data() const { return data_; }
  std::size_t size() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_;
};

/// Reads every byte of `words` (so that L2 holds only clean lines of this buffer afterwards: unlike a
/// memset, it leaves nothing dirty to write back during the next timed run).
__global__ void read_through(const int4* words, std::size_t count, int* sink) {
  int acc = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const int4 w = words[i];
    acc ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (acc == 0x7f3a5c11) *sink = acc;  // (almost never: only keeps the loads alive)
}

class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes) : buffer_(std::max<std::size_t>(2 * l2_bytes, 1 << 20) / 16 * 16), sink_(16) {
    SCANLAB_CUDA_CHECK(cudaMemset(buffer_.data(), 1, buffer_.size()));
  }
  void flush() {
    read_through<<<1024, 256>>>(static_cast<const int4*>(buffer_.data()), buffer_.size() / 16,
                                static_cast<int*>(sink_.data()));
    SCANLAB_CUDA_CHECK(cudaGetLastError());
  }

 private:
  DeviceBytes buffer_;
  DeviceBytes sink_;
};

struct Row {
  std::string algorithm;
  DType type = DType::int32;
  std::size_t n = 0;
  double median_us = 0, min_us = 0, gbps = 0;
  bool verified = false;
  int reps = 0;
  std::string timing;
  std::string note;  // why it failed, if it did
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

void fill_times(Row& row, const std::vector<double>& times_ms) {
  row.reps = static_cast<int>(times_ms.size());
  if (times_ms.empty()) return;
  row.median_us = 1000.0 * median(times_ms);
  row.min_us = 1000.0 * *std::min_element(times_ms.begin(), times_ms.end());
  const double bytes = 2.0 * static_cast<double>(row.n) * static_cast<double>(size_of(row.type));
  row.gbps = bytes / (row.median_us * 1e3);  // bytes per ns = GB/s
}

/// Runs a contender once on a poisoned output, verifies it, and only then times it.
Row measure(Contender& c, DType type, std::size_t n, const HostArray& input, DeviceBytes& d_in, DeviceBytes& d_out,
            const Options& o, L2Flusher* flusher) {
  Row row;
  row.algorithm = c.name();
  row.type = type;
  row.n = n;
  row.timing = flusher ? "events_l2_flushed" : "events_l2_warm";
  try {
    c.prepare(n);
    SCANLAB_CUDA_CHECK(cudaMemset(d_out.data(), kPoisonByte, n * size_of(type)));
    c.run(d_in.data(), d_out.data(), n);
    SCANLAB_CUDA_CHECK(cudaGetLastError());
    SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
    HostArray output(type, n);
    SCANLAB_CUDA_CHECK(cudaMemcpy(output.data(), d_out.data(), output.bytes(), cudaMemcpyDeviceToHost));
    if (const std::optional<std::string> wrong = c.check(input.data(), d_out.data(), n)) {
      row.verified = wrong->empty();
      row.note = *wrong;
    } else if (c.is_copy()) {
      row.verified = std::memcmp(output.data(), input.data(), input.bytes()) == 0;
      if (!row.verified) row.note = "the copy differs from its source";
    } else {
      const VerifyResult v = verify_scan({type, c.op(), ScanKind::inclusive, n, false}, input.data(), output.data());
      row.verified = v.passed;
      row.note = v.message;
    }
    if (!row.verified) return row;

    for (int i = 0; i < o.warmup; ++i) c.run(d_in.data(), d_out.data(), n);
    std::vector<cudaEvent_t> start(o.reps), stop(o.reps);
    for (int r = 0; r < o.reps; ++r) {
      SCANLAB_CUDA_CHECK(cudaEventCreate(&start[r]));
      SCANLAB_CUDA_CHECK(cudaEventCreate(&stop[r]));
    }
    for (int r = 0; r < o.reps; ++r) {
      if (flusher) flusher->flush();
      SCANLAB_CUDA_CHECK(cudaEventRecord(start[r]));
      c.run(d_in.data(), d_out.data(), n);
      SCANLAB_CUDA_CHECK(cudaEventRecord(stop[r]));
    }
    SCANLAB_CUDA_CHECK(cudaEventSynchronize(stop[o.reps - 1]));
    SCANLAB_CUDA_CHECK(cudaGetLastError());
    std::vector<double> times;
    for (int r = 0; r < o.reps; ++r) {
      float ms = 0;
      SCANLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start[r], stop[r]));
      times.push_back(ms);
      cudaEventDestroy(start[r]);
      cudaEventDestroy(stop[r]);
    }
    fill_times(row, times);
    if (const double bytes = c.bytes_moved(n); bytes > 0 && row.median_us > 0) row.gbps = bytes / (row.median_us * 1e3);
  } catch (const Error& e) {
    row.verified = false;
    row.note = e.what();
  }
  return row;
}

/// A section's algorithm through its table (run_scan): verified run, one warm-up, `reps` timed runs.
Row measure_table(const std::string& section, const Algorithm& a, DType type, std::size_t n, const HostArray& input,
                  const Options& o, L2Flusher* flusher) {
  Row row;
  row.algorithm = section + "/" + std::string(a.name);
  row.type = type;
  row.n = n;
  row.timing = flusher ? "run_scan_l2_flushed" : "run_scan_l2_warm";
  try {
    HostArray output(type, n);
    RunRequest request{{type, OpKind::add, ScanKind::inclusive, n, false}, input.data(), output.data(), o.reps, false};
    if (flusher) request.before_each_run = [flusher] { flusher->flush(); };
    const RunResult result = a.run(request);
    const VerifyResult v = verify_scan(request.problem, input.data(), output.data());
    row.verified = v.passed;
    row.note = v.message;
    if (row.verified) fill_times(row, result.times_ms);
  } catch (const Error& e) {
    row.verified = false;
    row.note = e.what();
  }
  return row;
}

struct SectionTable {
  std::string id;
  AlgorithmTable table;
};

std::vector<SectionTable> section_tables() {
  std::vector<SectionTable> tables;
#if defined(SCANLAB_BENCH_NS_11_6)
  tables.push_back({"11.6", SCANLAB_BENCH_NS_11_6::algorithms_cuda()});
#endif
#if defined(SCANLAB_BENCH_NS_11_7)
  tables.push_back({"11.7", SCANLAB_BENCH_NS_11_7::algorithms_cuda()});
#endif
#if defined(SCANLAB_BENCH_NS_11_8)
  tables.push_back({"11.8", SCANLAB_BENCH_NS_11_8::algorithms_cuda()});
#endif
  return tables;
}

/// Writes rows as they come (the common CSV writer flushes each), so a run stopped half way still
/// leaves its results.
class CsvWriter {
 public:
  CsvWriter(const std::string& path, DeviceInfo device, std::string date)
      : csv_(path, {"device", "cuda_version", "driver", "sm_clock_mhz", "mem_clock_mhz", "date", "algorithm", "type",
                    "n", "median_us", "gbps", "verified", "reps", "min_us", "timing", "note"}),
        device_(std::move(device)),
        date_(std::move(date)) {}
  void write(const Row& r) {
    const DeviceInfo& d = device_;
    csv_.row({d.name, d.cuda_version, d.driver, std::to_string(d.sm_clock_mhz), std::to_string(d.mem_clock_mhz), date_,
              r.algorithm, name(r.type), std::to_string(r.n), format_number(r.median_us), format_number(r.gbps),
              r.verified ? "1" : "0", std::to_string(r.reps), format_number(r.min_us), r.timing, r.note});
  }

 private:
  scanlab::CsvWriter csv_;
  DeviceInfo device_;
  std::string date_;
};

const Row* find(const std::vector<Row>& rows, DType type, std::size_t n, const std::string& algorithm) {
  for (const Row& r : rows) {
    if (r.type == type && r.n == n && r.algorithm == algorithm && r.verified && r.reps > 0) return &r;
  }
  return nullptr;
}

/// The short table: per size, the copy, CUB, Thrust and 11.8, and how 11.8 compares.
void print_summary(const std::vector<Row>& rows, const Options& o) {
  if (std::none_of(rows.begin(), rows.end(), [](const Row& r) { return r.algorithm == "decoupled_lookback"; })) return;
  for (DType type : o.types) {
    std::printf("\n%s, inclusive sum, median us (GB/s = 2 n sizeof(T) / time)\n", name(type));
    std::printf("%6s %10s %10s %10s %10s %9s %9s %9s\n", "log2n", "memcpy", "cub_sum", "thrust", "lookback",
                "lb_GB/s", "lb/cub_t", "lb/copy_bw");
    for (int k : o.log2s) {
      const std::size_t n = std::size_t{1} << k;
      const Row* copy = find(rows, type, n, "memcpy");
      const Row* cub = find(rows, type, n, "cub_inclusive_sum");
      const Row* thr = find(rows, type, n, "thrust_inclusive_scan");
      const Row* lb = find(rows, type, n, "decoupled_lookback");
      auto us = [](const Row* r) { return r ? r->median_us : 0.0; };
      std::printf("%6d %10.2f %10.2f %10.2f %10.2f %9.0f %9.3f %9.3f\n", k, us(copy), us(cub), us(thr), us(lb),
                  lb ? lb->gbps : 0.0, (lb && cub) ? lb->median_us / cub->median_us : 0.0,
                  (lb && copy) ? copy->median_us / lb->median_us : 0.0);
    }
  }
  // The targets (int32): >= 1.10x CUB's throughput and >= 90% of the copy at 2^28; <= 0.65x CUB's
  // time up to 2^20; never slower than CUB.
  const DType t = DType::int32;
  if (std::find(o.types.begin(), o.types.end(), t) == o.types.end()) return;
  std::printf("\ntargets (int32 inclusive sum, decoupled_lookback vs cub_inclusive_sum):\n");
  int missed = 0, checked = 0;
  for (int k : o.log2s) {
    const std::size_t n = std::size_t{1} << k;
    const Row* cub = find(rows, t, n, "cub_inclusive_sum");
    const Row* lb = find(rows, t, n, "decoupled_lookback");
    const Row* copy = find(rows, t, n, "memcpy");
    if (!cub || !lb) continue;
    const double ratio = lb->median_us / cub->median_us;
    auto check = [&](bool ok, const char* what) {
      ++checked;
      if (!ok) {
        ++missed;
        std::printf("  MISS 2^%d: %s (time ratio %.3f)\n", k, what, ratio);
      }
    };
    check(ratio <= 1.0, "slower than CUB");
    if (k <= 20) check(ratio <= 0.65, "not <= 0.65x CUB's time");
    if (k == 28) {
      check(ratio <= 1.0 / 1.10, "not >= 1.10x CUB's throughput");
      if (copy) check(copy->median_us / lb->median_us >= 0.90, "not >= 90% of memcpy bandwidth");
    }
  }
  std::printf("  %d of %d checks met\n", checked - missed, checked);
}

/// The persistent kernel against the copy, CUB and 11.8's look-back, per type, and its targets: at
/// every size at most 1.30x the copy's time and 0.98x CUB's; at 2^28 at least 92% of the copy's
/// bandwidth, and (int32, float) at least 1.12x CUB's throughput.
void print_persistent_targets(const std::vector<Row>& rows, const Options& o) {
  if (std::none_of(rows.begin(), rows.end(), [](const Row& r) { return r.algorithm == "persistent"; })) return;
  int missed = 0, checked = 0;
  for (DType type : o.types) {
    std::printf("\n%s, inclusive sum: persistent (median us) against memcpy, CUB, 11.8's look-back\n", name(type));
    std::printf("%6s %10s %10s %10s %10s %9s %9s %9s\n", "log2n", "memcpy", "cub_sum", "lookback", "persist",
                "p_GB/s", "p/cub_t", "p/copy_t");
    for (int k : o.log2s) {
      const std::size_t n = std::size_t{1} << k;
      const Row* copy = find(rows, type, n, "memcpy");
      const Row* cub = find(rows, type, n, "cub_inclusive_sum");
      const Row* lb = find(rows, type, n, "decoupled_lookback");
      const Row* p = find(rows, type, n, "persistent");
      auto us = [](const Row* r) { return r ? r->median_us : 0.0; };
      const double vs_cub = (p && cub) ? p->median_us / cub->median_us : 0.0;
      const double vs_copy = (p && copy) ? p->median_us / copy->median_us : 0.0;
      std::printf("%6d %10.2f %10.2f %10.2f %10.2f %9.0f %9.3f %9.3f\n", k, us(copy), us(cub), us(lb), us(p),
                  p ? p->gbps : 0.0, vs_cub, vs_copy);
      auto check = [&](bool ok, const char* what) {
        ++checked;
        if (!ok) {
          ++missed;
          std::printf("  MISS %s 2^%d: %s\n", name(type), k, what);
        }
      };
      if (!p) continue;
      if (cub) check(vs_cub <= 0.98, "persistent not <= 0.98x CUB's time");
      if (copy) check(vs_copy <= 1.30, "persistent not <= 1.30x memcpy's time");
      if (k == 28 && copy) check(vs_copy <= 1.0 / 0.92, "persistent not >= 92% of memcpy bandwidth");
      if (k == 28 && cub && (type == DType::int32 || type == DType::float32)) {
        check(vs_cub <= 1.0 / 1.12, "persistent not >= 1.12x CUB's throughput");
      }
    }
  }
  std::printf("persistent targets: %d of %d checks met\n", checked - missed, checked);
}

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const DeviceInfo device = device_info();
  const std::string date = utc_now();
  std::printf("scanlab_bench on %s (CUDA %s, driver %s, SM %d MHz, memory %d MHz, L2 %zu MiB)\n", device.name.c_str(),
              device.cuda_version.c_str(), device.driver.c_str(), device.sm_clock_mhz, device.mem_clock_mhz,
              device.l2_bytes >> 20);
  std::unique_ptr<L2Flusher> flusher;
  if (o.flush) flusher = std::make_unique<L2Flusher>(device.l2_bytes);
  const std::vector<SectionTable> tables = o.sections ? section_tables() : std::vector<SectionTable>{};

  std::vector<Row> rows;
  int failures = 0;
  CsvWriter csv(o.csv, device, date);
  auto keep = [&](Row row) {
    std::printf("  %-34s %-6s 2^%-2d %s", row.algorithm.c_str(), name(row.type),
                static_cast<int>(std::log2(static_cast<double>(row.n))), row.verified ? "Passed" : "FAILED");
    if (row.verified && row.reps > 0) std::printf("  %10.2f us  %7.0f GB/s", row.median_us, row.gbps);
    if (!row.verified) {
      ++failures;
      std::printf("  %s", row.note.c_str());
    }
    std::printf("\n");
    std::fflush(stdout);
    csv.write(row);
    rows.push_back(std::move(row));
  };

  for (DType type : o.types) {
    Contenders contenders = library_contenders(type);
    for (auto& c : lookback_contenders(type, o.sweep, o.spin_ns)) contenders.push_back(std::move(c));
    for (auto& c : application_contenders(type, o.sweep)) contenders.push_back(std::move(c));
    const int max_log2 = *std::max_element(o.log2s.begin(), o.log2s.end());
    DeviceBytes d_in((std::size_t{1} << max_log2) * size_of(type));
    DeviceBytes d_out((std::size_t{1} << max_log2) * size_of(type));
    for (int k : o.log2s) {
      const std::size_t n = std::size_t{1} << k;
      for (OpKind op : {OpKind::add, OpKind::max}) {
        const bool any_contender = std::any_of(contenders.begin(), contenders.end(),
                                               [&](const auto& c) { return c->op() == op && wanted(o, c->name()); });
        const bool any_section = op == OpKind::add && std::any_of(tables.begin(), tables.end(), [&](const SectionTable& s) {
          return std::any_of(s.table.algorithms.begin(), s.table.algorithms.end(), [&](const Algorithm& a) {
            return a.max_n == 0 && wanted(o, s.id + "/" + std::string(a.name));
          });
        });
        if (!any_contender && !any_section) continue;
        const HostArray input = make_input(type, op, n, 2024 + k);
        SCANLAB_CUDA_CHECK(cudaMemcpy(d_in.data(), input.data(), input.bytes(), cudaMemcpyHostToDevice));
        for (auto& c : contenders) {
          if (c->op() == op && wanted(o, c->name())) keep(measure(*c, type, n, input, d_in, d_out, o, flusher.get()));
        }
        if (op != OpKind::add) continue;
        for (const SectionTable& s : tables) {
          for (const Algorithm& a : s.table.algorithms) {
            const std::string full = s.id + "/" + std::string(a.name);
            if (a.max_n == 0 && wanted(o, full)) keep(measure_table(s.id, a, type, n, input, o, flusher.get()));
          }
        }
      }
    }
  }
  print_summary(rows, o);
  print_persistent_targets(rows, o);
  std::printf("\n%zu rows written to %s; %d failed verification\n", rows.size(), o.csv.c_str(), failures);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace scanlab::bench

int main(int argc, char** argv) {
  try {
    return scanlab::bench::run(argc, argv);
  } catch (const scanlab::Error& e) {
    std::fprintf(stderr, "scanlab_bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scanlab_bench: %s\n", e.what());
    return 2;
  }
}
