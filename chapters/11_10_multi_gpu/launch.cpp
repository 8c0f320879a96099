// Section 11.10: host code that runs a scan across the GPUs of one host, from one process or (run_rank)
// from one process per GPU. Compiled once per backend
// (nvcc for cuda, the host compiler for cpu) from this one source. You do not need to change this file.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "multi_gpu_algorithms.hpp"
#include "multi_gpu_scan.hpp"
#include "out_of_core_scan.hpp"

#if defined(SCANLAB_BACKEND_CPU)
#include "scanlab/emu/runtime.hpp"
#endif

namespace scanlab::s11_10 {
namespace {

/// The look_back way's run (11.8's tiles dealt to a GPU one after another): kLookBackRun, or
/// SCANLAB_LOOKBACK_RUN (1 to 4096) for a benchmark's sweep (bench_gpu.sh's RUNS).
unsigned look_back_run() {
  const char* text = std::getenv("SCANLAB_LOOKBACK_RUN");
  if (text == nullptr || *text == '\0') return kLookBackRun;
  char* end = nullptr;
  const unsigned long run = std::strtoul(text, &end, 10);
  if (*end != '\0' || run < 1 || run > 4096) {
    throw Error("SCANLAB_LOOKBACK_RUN=" + std::string(text) + ": give the tiles per run, a number from 1 to 4096");
  }
  return static_cast<unsigned>(run);
}

/// One process per GPU: this process's rank, and the communicator of the ranks.
struct RankOf {
  NcclExchange* ranks;
  int rank, count;
};

/// Runs `request` across `devices` devices (0: every GPU there is), as run_scan runs one GPU's scan:
/// the verified run with poisoned outputs, then the timed runs. The cpu backend models exactly
/// `devices` devices for the call; a GPU machine uses as many as it has, at most `devices`. With
/// `rank` (one process per GPU): this process's piece alone, on the current GPU, through NCCL.
RunResult run_multi(const RunRequest& request, Way way, int devices, Exchange exchange, const RankOf* rank = nullptr) {
  require_backend();
#if defined(SCANLAB_BACKEND_CPU)
  const int saved = emu::settings().devices;
  if (devices > 0) emu::settings().devices = devices;
  struct Restore {
    int devices, device;
    ~Restore() {
      emu::settings().devices = devices;
      emu::set_device(device);
    }
  } restore{saved, emu::current_device()};
#endif
  const int used = rank != nullptr ? 1 : devices > 0 ? std::min(devices, device_count()) : device_count();
  const int first_device = rank != nullptr ? current_device() : 0;
  const unsigned run = way == Way::look_back ? look_back_run() : 0;
  const ScanProblem& p = request.problem;
  return visit_type_op(p.type, p.op, [&](auto type, auto op) {
    using T = typename decltype(type)::type;
    using Op = decltype(op);
    using Scan = MultiGpuScan<T, Op>;
    {
      DeviceScope on(first_device);  // (GPU 0's piece is the largest)
      require_memory(Scan::bytes_per_device(p.n, rank != nullptr ? rank->count : used, p.in_place, way, run));
    }
    const std::unique_ptr<Scan> made =
        rank != nullptr ? std::make_unique<Scan>(p.n, rank->rank, rank->count, way, p.in_place, *rank->ranks)
                        : std::make_unique<Scan>(p.n, used, way, p.in_place, exchange, run);
    Scan& scan = *made;
    const T* input = static_cast<const T*>(request.input);
    RunResult result;
    scan.upload(input);
    result.launches = run_counted(request.trace, [&] {
      scan(op, p.kind);
      for (int g = 0; g < used; ++g) {
        DeviceScope on(first_device + g);
        synchronize();
      }
    });
    scan.download(static_cast<T*>(request.output));
    if (p.n > 0) {
      time_runs(request, result.times_ms, [&] { scan(op, p.kind); }, [&] {
        if (p.in_place) scan.upload(input);
      });
    }
    return result;
  });
}

template <Way way, int devices, Exchange exchange = Exchange::peer>
RunResult run(const RunRequest& request) {
  return run_multi(request, way, devices, exchange);
}

/// The out-of-core scan's pieces by default: 256 MiB each, or the whole array when it is smaller.
constexpr std::size_t kPieceBytes = std::size_t{1} << 28;

/// Runs `request` with the out-of-core scan on GPU 0: the request's host arrays go through the GPU in
/// pieces of `piece` elements (0: kPieceBytes). In place: the output array is scanned in place, after
/// a copy of the input into it (outside the timed runs).
template <std::size_t piece>
RunResult run_out_of_core(const RunRequest& request) {
  require_backend();
  const ScanProblem& p = request.problem;
  return visit_type_op(p.type, p.op, [&](auto type, auto op) {
    using T = typename decltype(type)::type;
    using Op = decltype(op);
    using Scan = OutOfCoreScan<T, Op>;
    DeviceScope on(0);
    const std::size_t size = piece > 0 ? piece : std::max<std::size_t>(std::min(p.n, kPieceBytes / sizeof(T)), 1);
    require_memory(Scan::bytes_on_device(size));
    Scan scan(size);
    const T* input = static_cast<const T*>(request.input);
    T* output = static_cast<T*>(request.output);
    const T* from = p.in_place ? output : input;
    const auto prepare = [&] {
      if (p.in_place && p.n > 0) std::memcpy(output, input, p.n * sizeof(T));
    };
    RunResult result;
    prepare();
    result.launches = run_counted(request.trace, [&] { scan(from, output, p.n, op, p.kind); });
    if (p.n > 0) time_runs(request, result.times_ms, [&] { scan(from, output, p.n, op, p.kind); }, prepare);
    return result;
  });
}

const Algorithm kAlgorithms[] = {
    with_run(kAlgorithmInfo[0], &run<Way::carry, 0>),
    with_run(kAlgorithmInfo[1], &run<Way::reduce_then_scan, 0>),
    with_run(kAlgorithmInfo[2], &run<Way::look_back, 0>),
    with_run(kAlgorithmInfo[3], &run_out_of_core<0>),
};

const Algorithm kTestAlgorithms[] = {
    with_run(kTestAlgorithmInfo[0], &run<Way::carry, 3>),
    with_run(kTestAlgorithmInfo[1], &run<Way::reduce_then_scan, 3>),
    with_run(kTestAlgorithmInfo[2], &run<Way::carry, 1>),
    with_run(kTestAlgorithmInfo[3], &run<Way::carry, 2>),
    with_run(kTestAlgorithmInfo[4], &run<Way::carry, 4>),
    with_run(kTestAlgorithmInfo[5], &run<Way::reduce_then_scan, 1>),
    with_run(kTestAlgorithmInfo[6], &run<Way::reduce_then_scan, 2>),
    with_run(kTestAlgorithmInfo[7], &run<Way::reduce_then_scan, 4>),
    with_run(kTestAlgorithmInfo[8], &run_out_of_core<1000>),
    with_run(kTestAlgorithmInfo[9], &run<Way::carry, 3, Exchange::nccl>),
    with_run(kTestAlgorithmInfo[10], &run<Way::reduce_then_scan, 2, Exchange::nccl>),
    with_run(kTestAlgorithmInfo[11], &run<Way::look_back, 1>),
    with_run(kTestAlgorithmInfo[12], &run<Way::look_back, 2>),
    with_run(kTestAlgorithmInfo[13], &run<Way::look_back, 3>),
    with_run(kTestAlgorithmInfo[14], &run<Way::look_back, 4>),
};

/// One rank's scan s of `job`, over the communicator of the ranks: run_multi on this rank's piece (the
/// verified run, then the timed runs: every rank makes the same calls, whatever its check finds), then
/// its check, and every rank's verdict and times gathered on every rank.
void run_rank_scan(const RankJob& job, std::size_t s, NcclExchange& ranks) {
  const RankScan task = job.make_scan(s);
  if (task.way != "carry" && task.way != "reduce_then_scan") {
    throw Error("one process per GPU runs carry or reduce_then_scan, not '" + task.way + "'");
  }
  const RunRequest request(task.problem, task.input, task.output, job.reps);
  const RankOf rank{&ranks, job.rank, job.ranks};
  const RunResult result =
      run_multi(request, task.way == "carry" ? Way::carry : Way::reduce_then_scan, 0, Exchange::nccl, &rank);
  const std::string failure = job.check(s, piece_start(task.problem.n, job.rank, job.ranks));
  std::vector<int> failed;
  const std::vector<double> passed = ranks.gather_values({failure.empty() ? 1.0 : 0.0}, job.ranks);
  for (int r = 0; r < job.ranks; ++r) {
    if (passed[static_cast<std::size_t>(r)] == 0.0) failed.push_back(r);
  }
  const std::vector<double>& times = result.times_ms;
  const std::vector<double> all = ranks.gather_values(times, job.ranks);  // rank after rank
  std::vector<double> slowest(failed.empty() ? times.size() : 0, 0.0);
  for (std::size_t i = 0; i < all.size() && !slowest.empty(); ++i) {
    slowest[i % times.size()] = std::max(slowest[i % times.size()], all[i]);
  }
  job.done(s, failed, slowest);
}

}  // namespace

AlgorithmTable SCANLAB_FOR_BACKEND(algorithms)() { return make_table(kAlgorithms); }
AlgorithmTable SCANLAB_FOR_BACKEND(test_algorithms)() { return make_table(kTestAlgorithms); }

RankId SCANLAB_FOR_BACKEND(new_rank_id)() {
  require_backend();
  return new_rank_id();
}

void SCANLAB_FOR_BACKEND(run_rank)(const RankJob& job) {
  require_backend();
#if defined(SCANLAB_BACKEND_CPU)
  // The emulator models the GPUs up to this rank's (each process its own model of the host's GPUs).
  if (job.device >= emu::kMaxDevices) {
    throw Error("device " + std::to_string(job.device) + ": the emulator models at most " +
                std::to_string(emu::kMaxDevices) + " devices (give --device)");
  }
  emu::settings().devices = std::max(emu::settings().devices, job.device + 1);
#endif
  set_device(job.device);
  NcclExchange ranks(job.id, job.rank, job.ranks);  // (returns once every rank has joined)
  for (std::size_t s = 0; s < job.scans; ++s) run_rank_scan(job, s, ranks);
}

}  // namespace scanlab::s11_10
