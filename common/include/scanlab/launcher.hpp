/// \file launcher.hpp
/// \brief The host side of a kernel library: device buffers, the one kernel-launch wrapper, timers,
/// and `run_scan`, which turns an algorithm class into a type-erased RunFn (upload, poison, run,
/// download, time). Compiled once per backend from the same source, like the kernels: a section's
/// `launch.cpp` includes this and its kernel headers, and never `<<< >>>` or cudaMalloc directly.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "scanlab/algorithm.hpp"
#include "scanlab/dispatch.hpp"
#include "scanlab/error.hpp"
#include "scanlab/kernel.hpp"
#include "scanlab/memory.hpp"

#if defined(SCANLAB_BACKEND_CPU)
#include "scanlab/emu/runtime.hpp"
#endif

namespace scanlab {

/// Grid, block and dynamic shared memory of one launch, and a name for messages and counters.
struct LaunchConfig {
  const char* name = "kernel";
  dim3 grid{1};
  dim3 block{1};
  std::size_t shared_bytes = 0;
};

/// Launches `kernel` with `config` and `args`, on a GPU or on the emulator. Throws scanlab::Error if
/// the launch fails (on the emulator: with the block, threads and source line that went wrong).
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), const LaunchConfig& config, Args&&... args) {
#if defined(SCANLAB_BACKEND_CUDA)
  kernel<<<config.grid, config.block, config.shared_bytes>>>(std::forward<Args>(args)...);
  SCANLAB_CUDA_CHECK(cudaGetLastError());
#else
  // Convert the arguments once, as a CUDA launch copies them into the kernel's parameters.
  std::tuple<std::decay_t<Params>...> params(std::forward<Args>(args)...);
  const auto to_extent = [](dim3 d) { return emu::Extent3{d.x, d.y, d.z}; };
  try {
    emu::launch(config.name, to_extent(config.grid), to_extent(config.block), config.shared_bytes,
                &emu::detail::module_static_shared, [&] { std::apply(kernel, params); });
  } catch (const emu::LaunchError& e) {
    throw Error(e.what());
  }
  check_device_guards(config.name);  // a write past the end of a DeviceBuffer: "memory error: ..."
#endif
}

/// Waits until all launched work is done (and reports an asynchronous kernel error on a GPU).
inline void synchronize() {
#if defined(SCANLAB_BACKEND_CUDA)
  SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
#endif
}

/// Throws NoDeviceError when this backend cannot run here (the cuda backend without a GPU).
inline void require_backend() {
#if defined(SCANLAB_BACKEND_CUDA)
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();  // clear the sticky error of the failed query
    throw NoDeviceError("no CUDA GPU is available here: use --backend cpu (the emulator)");
  }
#endif
}

/// Device memory for n elements of T (host memory on the cpu backend). Move-only.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : size_(n) {
    const std::size_t bytes = std::max<std::size_t>(n, 1) * sizeof(T);
#if defined(SCANLAB_BACKEND_CUDA)
    SCANLAB_CUDA_CHECK(cudaMalloc(&data_, bytes));
#else
    // 256-byte alignment, as cudaMalloc gives, between guard zones that every launch checks.
    data_ = static_cast<T*>(guarded_alloc(std::max<std::size_t>(n, 1), sizeof(T)));
    if (data_ == nullptr) throw Error("out of host memory allocating " + std::to_string(bytes) + " bytes");
#endif
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~DeviceBuffer() {
#if defined(SCANLAB_BACKEND_CUDA)
    if (data_ != nullptr) cudaFree(data_);
#else
    guarded_free(data_);
#endif
  }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }

  void upload(const T* host) { copy(data_, host, size_ * sizeof(T), true); }
  void download(T* host) const { copy(host, data_, size_ * sizeof(T), false); }
  /// Fills every byte with the poison pattern, so an element nothing wrote is recognisable.
  void poison() { fill(kPoisonByte); }
  void fill(unsigned char byte) {
#if defined(SCANLAB_BACKEND_CUDA)
    SCANLAB_CUDA_CHECK(cudaMemset(data_, byte, size_ * sizeof(T)));
#else
    std::memset(data_, byte, size_ * sizeof(T));
#endif
  }

 private:
  static void copy(void* dst, const void* src, std::size_t bytes, bool to_device) {
    if (bytes == 0) return;
#if defined(SCANLAB_BACKEND_CUDA)
    SCANLAB_CUDA_CHECK(
        cudaMemcpy(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost));
#else
    (void)to_device;
    std::memcpy(dst, src, bytes);
#endif
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Times device work: CUDA events on a GPU, a steady clock on the emulator (which is synchronous).
class Timer {
 public:
  Timer() {
#if defined(SCANLAB_BACKEND_CUDA)
    SCANLAB_CUDA_CHECK(cudaEventCreate(&start_));
    SCANLAB_CUDA_CHECK(cudaEventCreate(&stop_));
#endif
  }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  ~Timer() {
#if defined(SCANLAB_BACKEND_CUDA)
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
#endif
  }
  void start() {
#if defined(SCANLAB_BACKEND_CUDA)
    SCANLAB_CUDA_CHECK(cudaEventRecord(start_));
#else
    t0_ = std::chrono::steady_clock::now();
#endif
  }
  /// Milliseconds since start().
  double stop() {
#if defined(SCANLAB_BACKEND_CUDA)
    SCANLAB_CUDA_CHECK(cudaEventRecord(stop_));
    SCANLAB_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    SCANLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
#else
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
#endif
  }

 private:
#if defined(SCANLAB_BACKEND_CUDA)
  cudaEvent_t start_{}, stop_{};
#else
  std::chrono::steady_clock::time_point t0_{};
#endif
};

/// The device this backend runs on, for reports: the GPU's name and the CUDA runtime version, or the
/// emulator and the host CPU.
inline std::string device_description() {
#if defined(SCANLAB_BACKEND_CUDA)
  require_backend();
  int device = 0, runtime = 0;
  cudaDeviceProp prop{};
  SCANLAB_CUDA_CHECK(cudaGetDevice(&device));
  SCANLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  SCANLAB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  return std::string(prop.name) + ", CUDA " + std::to_string(runtime / 1000) + "." +
         std::to_string(runtime % 1000 / 10);
#else
  return "scanlab SIMT emulator on " + host_cpu_name();
#endif
}

/// Refuses, before allocating, a problem whose buffers do not fit in the memory this backend has.
inline void require_memory(std::size_t bytes_needed) {
#if defined(SCANLAB_BACKEND_CUDA)
  std::size_t free_bytes = 0, total_bytes = 0;
  SCANLAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  check_fits(bytes_needed, free_bytes, "GPU memory");
#else
  check_fits(bytes_needed, available_host_memory(), "host memory");
#endif
}

/// Runs `launch` once and waits for it, with the emulator's trace on if `trace` (put back afterwards,
/// also on an error); returns the emulator's counts of its launches (none on a GPU).
template <class F>
std::vector<LaunchStats> run_counted(bool trace, F&& launch) {
#if defined(SCANLAB_BACKEND_CPU)
  emu::take_stats();  // drop counts of anything launched before
  const bool traced = emu::settings().trace;
  emu::settings().trace = trace;
  try {
    launch();
    synchronize();
  } catch (...) {
    emu::settings().trace = traced;
    throw;
  }
  emu::settings().trace = traced;
  return emu::take_stats();
#else
  (void)trace;
  launch();
  synchronize();
  return {};
#endif
}

/// With request.reps > 0: one warm-up run, then request.reps timed runs of `run_once`, appended to
/// `times_ms`. Before each, outside the timed interval: `prepare()`, then request.before_each_run.
template <class Request, class Run, class Prepare>
void time_runs(const Request& request, std::vector<double>& times_ms, Run&& run_once, Prepare&& prepare) {
  if (request.reps <= 0) return;
  Timer timer;
  for (int rep = -1; rep < request.reps; ++rep) {  // rep -1 is the warm-up
    prepare();
    if (request.before_each_run) request.before_each_run();
    timer.start();
    run_once();
    const double ms = timer.stop();
    if (rep >= 0) times_ms.push_back(ms);
  }
  synchronize();
#if defined(SCANLAB_BACKEND_CPU)
  emu::take_stats();  // the timed runs' counts are not reported
#endif
}

template <class Request, class Run>
void time_runs(const Request& request, std::vector<double>& times_ms, Run&& run_once) {
  time_runs(request, times_ms, run_once, [] {});
}

/// Makes a RunFn from an algorithm class template `Scan<T, Op>`, which must have
///   explicit Scan(std::size_t n);   // allocates its device workspace, if any
///   void operator()(const T* d_in, T* d_out, std::size_t n, Op op, ScanKind kind);  // launches
///   static std::size_t workspace_bytes(std::size_t n);  // for the memory check
/// The verified run poisons the output first; timed runs re-upload the input when scanning in place,
/// and are timed only after one warm-up run. n == 0 is not passed on (a launch of 0 blocks is an
/// error), unless the class says that its own host code handles it, as its contract promises:
///   static constexpr bool kTakesEmpty = true;   // (11.6: the student's launch sequence)
/// so that host code which launches 0 blocks for n == 0 fails as it would on a GPU.
template <class S>
inline constexpr bool takes_empty = requires { requires S::kTakesEmpty; };

template <template <class, class> class Scan>
RunResult run_scan(const RunRequest& request) {
  require_backend();
  const ScanProblem& p = request.problem;
  return visit_type_op(p.type, p.op, [&](auto type, auto op) {
    using T = typename decltype(type)::type;
    using Op = decltype(op);
    const std::size_t n = p.n;
    require_memory((p.in_place ? 1 : 2) * n * sizeof(T) + Scan<T, Op>::workspace_bytes(n));

    DeviceBuffer<T> input(n);
    DeviceBuffer<T> output(p.in_place ? 0 : n);
    T* d_out = p.in_place ? input.data() : output.data();
    Scan<T, Op> scan(n);
    RunResult result;

    input.upload(static_cast<const T*>(request.input));
    if (!p.in_place) output.poison();
    result.launches = run_counted(request.trace, [&] {
      if (n > 0 || takes_empty<Scan<T, Op>>) scan(input.data(), d_out, n, op, p.kind);
    });
    if (n > 0) {
      if (p.in_place) {
        input.download(static_cast<T*>(request.output));
      } else {
        output.download(static_cast<T*>(request.output));
      }
      time_runs(request, result.times_ms, [&] { scan(input.data(), d_out, n, op, p.kind); },
                [&] { if (p.in_place) input.upload(static_cast<const T*>(request.input)); });
    }
    return result;
  });
}

/// Shorthand for an algorithm class with no workspace.
struct NoWorkspace {
  explicit NoWorkspace(std::size_t) {}
  static std::size_t workspace_bytes(std::size_t) { return 0; }
};

/// Rounds up a / b.
constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

/// The table of one section's algorithms on this backend (see AlgorithmTable).
inline AlgorithmTable make_table(std::span<const Algorithm> algorithms) {
#if defined(SCANLAB_BACKEND_CUDA)
  return {Backend::cuda, algorithms, &device_description};
#else
  return {Backend::cpu, algorithms, &device_description};
#endif
}

}  // namespace scanlab

#define SCANLAB_CAT_(a, b) a##_##b
#define SCANLAB_CAT(a, b) SCANLAB_CAT_(a, b)
/// `SCANLAB_FOR_BACKEND(algorithms)` is `algorithms_cuda` or `algorithms_cpu`: the name a kernel
/// library exports its table under, so both backends' libraries can be linked into one program.
#define SCANLAB_FOR_BACKEND(name) SCANLAB_CAT(name, SCANLAB_BACKEND_NAME)
