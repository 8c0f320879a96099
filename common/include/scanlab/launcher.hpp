/// \file launcher.hpp
/// \brief The host side of a kernel library: device buffers, the one kernel-launch wrapper, timers,
/// and `run_scan`, which turns an algorithm class into a type-erased RunFn (upload, poison, run,
/// download, time). Compiled once per backend from the same source, like the kernels: a section's
/// `launch.cpp` includes this and its kernel headers, and never `<<< >>>` or cudaMalloc directly.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
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

// ---- devices: several GPUs of one host, or the emulator's model of them -----------------------------
// The calls of CUDA's runtime that a scan across GPUs needs, the same on both backends. On the cpu
// backend the emulator models settings().devices devices (SCANLAB_EMU_DEVICES; emu/runtime.hpp).

#if defined(SCANLAB_BACKEND_CPU)
namespace detail {
inline void check_device_status(emu::DeviceStatus status, const std::string& call) {
  if (status != emu::DeviceStatus::ok) throw Error(call + ": " + emu::device_status_text(status));
}
}  // namespace detail
#endif

/// The GPUs of this host (cudaGetDeviceCount; 0 without a GPU), or the emulator's modelled devices.
inline int device_count() {
#if defined(SCANLAB_BACKEND_CUDA)
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
#else
  return emu::device_count();
#endif
}

/// This host thread's current device (cudaGetDevice).
inline int current_device() {
#if defined(SCANLAB_BACKEND_CUDA)
  int device = 0;
  SCANLAB_CUDA_CHECK(cudaGetDevice(&device));
  return device;
#else
  return emu::current_device();
#endif
}

/// Makes `device` current for this host thread: later buffers, launches and streams belong to it.
inline void set_device(int device) {
  if (device < 0 || device >= device_count()) {
    throw Error("device " + std::to_string(device) + " does not exist: there are " + std::to_string(device_count()));
  }
#if defined(SCANLAB_BACKEND_CUDA)
  SCANLAB_CUDA_CHECK(cudaSetDevice(device));
#else
  detail::check_device_status(emu::set_device(device), "cudaSetDevice(" + std::to_string(device) + ")");
#endif
}

/// Makes `device` current for a scope, and puts the previous one back.
class DeviceScope {
 public:
  explicit DeviceScope(int device) : saved_(current_device()) { set_device(device); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  ~DeviceScope() {
#if defined(SCANLAB_BACKEND_CUDA)
    cudaSetDevice(saved_);
#else
    emu::set_device(saved_);
#endif
  }

 private:
  int saved_;
};

/// Whether kernels of `device` can be allowed to use `peer`'s memory (cudaDeviceCanAccessPeer).
inline bool can_access_peer(int device, int peer) {
#if defined(SCANLAB_BACKEND_CUDA)
  int can = 0;
  SCANLAB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, device, peer));
  return can != 0;
#else
  return emu::can_access_peer(device, peer);
#endif
}

/// Lets kernels of the current device use `peer`'s memory (cudaDeviceEnablePeerAccess, one
/// direction). Enabling it again is not an error here (CUDA's "already enabled" is swallowed).
inline void enable_peer_access(int peer) {
  const std::string call = "cudaDeviceEnablePeerAccess(" + std::to_string(peer) + ") on device " +
                           std::to_string(current_device());
#if defined(SCANLAB_BACKEND_CUDA)
  // Asked once per pair and process: CUDA answers a second time with an error (which
  // compute-sanitizer reports), and has no call that says whether it is enabled.
  static bool enabled[64][64] = {};
  const int device = current_device();
  if (device < 64 && peer >= 0 && peer < 64 && enabled[device][peer]) return;
  const cudaError_t status = cudaDeviceEnablePeerAccess(peer, 0);
  if (status == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();  // (sticky until read)
  } else if (status != cudaSuccess) {
    throw Error(call + ": " + cudaGetErrorString(status));
  }
  if (device < 64 && peer >= 0 && peer < 64) enabled[device][peer] = true;
#else
  const emu::DeviceStatus status = emu::enable_peer_access(peer);
  if (status != emu::DeviceStatus::peer_access_already_enabled) detail::check_device_status(status, call);
#endif
}

/// A stream of the device that is current when it is made (on the cpu backend every launch and copy
/// is synchronous; the stream still belongs to its device). Move-only.
class Stream {
 public:
  Stream() : device_(current_device()) {
#if defined(SCANLAB_BACKEND_CUDA)
    SCANLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
#endif
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
#if defined(SCANLAB_BACKEND_CUDA)
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
#endif
  }
  int device() const { return device_; }
  /// Waits until everything queued on this stream is done.
  void synchronize() const {
#if defined(SCANLAB_BACKEND_CUDA)
    SCANLAB_CUDA_CHECK(cudaStreamSynchronize(stream_));
#endif
  }
#if defined(SCANLAB_BACKEND_CUDA)
  cudaStream_t get() const { return stream_; }
#endif

 private:
  int device_;
#if defined(SCANLAB_BACKEND_CUDA)
  cudaStream_t stream_ = nullptr;
#endif
};

/// Grid, block and dynamic shared memory of one launch, and a name for messages and counters; the
/// stream (of the current device) it goes into, or none: the current device's default stream.
struct LaunchConfig {
  const char* name = "kernel";
  dim3 grid{1};
  dim3 block{1};
  std::size_t shared_bytes = 0;
  const Stream* stream = nullptr;
};

#if defined(SCANLAB_BACKEND_CPU)
namespace detail {
/// One argument of an emulated launch, as the launch checks it: a pointer's address and the size of
/// what it points to (0: void), or nothing (`pointer` false) for a value, a struct or a function.
struct LaunchArgument {
  bool pointer = false;
  const void* address = nullptr;
  std::size_t element_size = 0;
};

/// The argument `a` of a kernel's parameter of type P, as launch_on_emulator checks it.
template <class P, class A>
LaunchArgument launch_argument(const A& a) {
  if constexpr (std::is_pointer_v<P> && !std::is_function_v<std::remove_pointer_t<P>>) {
    const P p = a;
    const void* address = const_cast<const void*>(static_cast<const volatile void*>(p));
    if constexpr (std::is_void_v<std::remove_cv_t<std::remove_pointer_t<P>>>) {
      return {true, address, 0};
    } else {
      return {true, address, sizeof(*p)};
    }
  } else {
    return {};
  }
}

/// The part of launch() that does not depend on the kernel's type, compiled once for the cpu backend
/// (common/src/launcher_cpu.cpp) instead of once per kernel in every kernel library: checks the
/// stream and each pointer argument's device, names the arguments blocks wait on, runs
/// `call(frame)` in every emulated thread, then checks the device buffers' guard zones.
void launch_on_emulator(const LaunchConfig& config, std::span<const LaunchArgument> arguments,
                        void (*call)(const void* frame), const void* frame);
}  // namespace detail
#endif

/// Launches `kernel` with `config` and `args`, on a GPU or on the emulator. Throws scanlab::Error if
/// the launch fails (on the emulator: with the block, threads and source line that went wrong).
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), const LaunchConfig& config, Args&&... args) {
#if defined(SCANLAB_BACKEND_CUDA)
  kernel<<<config.grid, config.block, config.shared_bytes, config.stream ? config.stream->get() : cudaStream_t{}>>>(
      std::forward<Args>(args)...);
  SCANLAB_CUDA_CHECK(cudaGetLastError());
#else
  // The kernel bound to its arguments, converted once, as a CUDA launch copies them into the kernel's
  // parameters; the rest of the launch does not depend on the kernel's type (launch_on_emulator).
  const std::array<detail::LaunchArgument, sizeof...(Params)> arguments{
      detail::launch_argument<std::decay_t<Params>>(args)...};
  const auto bound = [kernel, ... params = std::decay_t<Params>(std::forward<Args>(args))] { kernel(params...); };
  const auto call = [](const void* f) { (*static_cast<const decltype(bound)*>(f))(); };
  detail::launch_on_emulator(config, arguments, call, &bound);
#endif
}

/// Waits until all work launched on the current device is done (and reports an asynchronous kernel
/// error on a GPU).
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

/// A point in a stream's work that other streams can wait for (cudaEvent_t, without timing), on the
/// device current when it is made. The cpu backend runs everything at once: nothing to wait for.
/// Move-only.
class Event {
 public:
  Event() {
#if defined(SCANLAB_BACKEND_CUDA)
    SCANLAB_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
#endif
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept {
#if defined(SCANLAB_BACKEND_CUDA)
    event_ = std::exchange(other.event_, nullptr);
#else
    (void)other;
#endif
  }
  ~Event() {
#if defined(SCANLAB_BACKEND_CUDA)
    if (event_ != nullptr) cudaEventDestroy(event_);  // (released once every wait for it is done)
#endif
  }
  /// Marks the work queued so far on `stream` (none: the current device's default stream).
  void record(const Stream* stream = nullptr) {
#if defined(SCANLAB_BACKEND_CUDA)
    SCANLAB_CUDA_CHECK(cudaEventRecord(event_, stream ? stream->get() : cudaStream_t{}));
#else
    (void)stream;
#endif
  }
  /// Makes later work on `stream` (none: the current device's default stream) wait for the marked
  /// work, without blocking the host.
  void wait(const Stream* stream = nullptr) const {
#if defined(SCANLAB_BACKEND_CUDA)
    SCANLAB_CUDA_CHECK(cudaStreamWaitEvent(stream ? stream->get() : cudaStream_t{}, event_, 0));
#else
    (void)stream;
#endif
  }

 private:
#if defined(SCANLAB_BACKEND_CUDA)
  cudaEvent_t event_ = nullptr;
#endif
};

/// Makes later work on `waiter`'s default stream wait until the work queued so far on `device`'s
/// default stream is done, without blocking the host (an event recorded on one, waited for by the
/// other).
inline void wait_for_device(int waiter, int device) {
  if (waiter == device) return;
  DeviceScope on(device);
  Event done;
  done.record();
  set_device(waiter);
  done.wait();
}

/// Copies n elements of T between any two of: host memory, the current device's memory, asynchronously
/// on `stream` (none: the default stream; cudaMemcpyAsync, the direction read from the addresses). From
/// or to pinned host memory (PinnedBuffer) the copy overlaps kernels and copies of other streams; from
/// pageable memory CUDA stages it. The cpu backend copies at once.
template <class T>
void copy_async(T* dst, const T* src, std::size_t n, const Stream* stream = nullptr) {
  if (n == 0) return;
#if defined(SCANLAB_BACKEND_CUDA)
  SCANLAB_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyDefault, stream ? stream->get() : cudaStream_t{}));
#else
  (void)stream;
  std::memmove(dst, src, n * sizeof(T));
#endif
}

/// Host memory for n elements of T that the GPU copies to and from at full speed and asynchronously
/// (page-locked: cudaHostAlloc; plain host memory on the cpu backend). Move-only.
template <class T>
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t n) : size_(n) {
    const std::size_t bytes = std::max<std::size_t>(n, 1) * sizeof(T);
#if defined(SCANLAB_BACKEND_CUDA)
    if (cudaHostAlloc(reinterpret_cast<void**>(&data_), bytes, cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();
      data_ = nullptr;
    }
#else
    data_ = static_cast<T*>(std::malloc(bytes));
#endif
    if (data_ == nullptr) throw Error("could not allocate " + std::to_string(bytes) + " bytes of page-locked host memory");
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  ~PinnedBuffer() {
#if defined(SCANLAB_BACKEND_CUDA)
    if (data_ != nullptr) cudaFreeHost(data_);
#else
    std::free(data_);
#endif
  }
  T* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Device memory for n elements of T, on the current device (host memory on the cpu backend, which
/// records the device). Move-only.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : size_(n), device_(current_device()) {
    const std::size_t bytes = std::max<std::size_t>(n, 1) * sizeof(T);
#if defined(SCANLAB_BACKEND_CUDA)
    SCANLAB_CUDA_CHECK(cudaMalloc(&data_, bytes));
#else
    // Between guard pages that fault on any kernel access and guard bytes that every launch checks;
    // 16-byte aligned, ending at the guard page (cudaMalloc gives 256: see scanlab/memory.hpp).
    data_ = static_cast<T*>(guarded_alloc(std::max<std::size_t>(n, 1), sizeof(T), device_));
    if (data_ == nullptr) throw Error("out of host memory allocating " + std::to_string(bytes) + " bytes");
#endif
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)), device_(other.device_) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(device_, other.device_);
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
  /// The device whose memory this is (current when it was made).
  int device() const { return device_; }

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
  int device_ = 0;
};

/// Copies n elements from `src` on device `src_device` to `dst` on device `dst_device`
/// (cudaMemcpyPeerAsync on `stream`, or cudaMemcpyPeer without one). Needs no peer access (CUDA goes
/// through the host without it). The cpu backend checks that each side is memory of the device named.
template <class T>
void copy_peer(T* dst, int dst_device, const T* src, int src_device, std::size_t n, const Stream* stream = nullptr) {
  if (n == 0) return;
#if defined(SCANLAB_BACKEND_CUDA)
  if (stream != nullptr) {
    SCANLAB_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, n * sizeof(T), stream->get()));
  } else {
    SCANLAB_CUDA_CHECK(cudaMemcpyPeer(dst, dst_device, src, src_device, n * sizeof(T)));
  }
#else
  (void)stream;
  const auto check = [](const void* p, int device, const char* side) {
    const int owner = guarded_device(p);
    if (owner != device) {
      throw Error(std::string("cudaMemcpyPeer: the ") + side + " is " +
                  (owner < 0 ? std::string("not device memory") : "memory of device " + std::to_string(owner)) +
                  ", not of device " + std::to_string(device) + " (cudaErrorInvalidValue)");
    }
  };
  check(dst, dst_device, "destination");
  check(src, src_device, "source");
  check(dst + n - 1, dst_device, "destination's end");
  check(src + n - 1, src_device, "source's end");
  std::memmove(dst, src, n * sizeof(T));
#endif
}

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

namespace detail {
/// An algorithm object of run_scan with its type erased: what run_erased_scan needs of it. So the
/// buffers, uploads, downloads, checks and timing of a run are compiled once per element type, not
/// once per algorithm and operator in every kernel library.
struct ErasedScan {
  void* frame = nullptr;                                              ///< run_scan's object and arguments
  void (*run)(void* frame, const void* d_in, void* d_out) = nullptr;  ///< one scan, d_in to d_out
  bool takes_empty = false;
};

/// run_scan's run for elements of type T (see run_scan).
template <class T>
RunResult run_erased_scan(const RunRequest& request, const ErasedScan& scan) {
  const ScanProblem& p = request.problem;
  const std::size_t n = p.n;
  DeviceBuffer<T> input(n);
  DeviceBuffer<T> output(p.in_place ? 0 : n);
  T* d_out = p.in_place ? input.data() : output.data();
  RunResult result;

  input.upload(static_cast<const T*>(request.input));
  if (!p.in_place) output.poison();
  result.launches = run_counted(request.trace, [&] {
    if (n > 0 || scan.takes_empty) scan.run(scan.frame, input.data(), d_out);
  });
  if (n > 0) {
    if (p.in_place) {
      input.download(static_cast<T*>(request.output));
    } else {
      output.download(static_cast<T*>(request.output));
    }
    time_runs(request, result.times_ms, [&] { scan.run(scan.frame, input.data(), d_out); },
              [&] { if (p.in_place) input.upload(static_cast<const T*>(request.input)); });
  }
  return result;
}

// On the cpu backend, where every mutant and valid variant is a kernel library of its own, the five
// element types' runs are compiled once (common/src/launcher_cpu.cpp), not in every library.
#if defined(SCANLAB_BACKEND_CPU)
#if defined(SCANLAB_LAUNCHER_CPU_SOURCE)
#define SCANLAB_RUN_ERASED_SCAN template
#else
#define SCANLAB_RUN_ERASED_SCAN extern template
#endif
SCANLAB_RUN_ERASED_SCAN RunResult run_erased_scan<std::int32_t>(const RunRequest&, const ErasedScan&);
SCANLAB_RUN_ERASED_SCAN RunResult run_erased_scan<std::uint32_t>(const RunRequest&, const ErasedScan&);
SCANLAB_RUN_ERASED_SCAN RunResult run_erased_scan<std::int64_t>(const RunRequest&, const ErasedScan&);
SCANLAB_RUN_ERASED_SCAN RunResult run_erased_scan<float>(const RunRequest&, const ErasedScan&);
SCANLAB_RUN_ERASED_SCAN RunResult run_erased_scan<double>(const RunRequest&, const ErasedScan&);
#undef SCANLAB_RUN_ERASED_SCAN
#endif
}  // namespace detail

template <template <class, class> class Scan>
RunResult run_scan(const RunRequest& request) {
  const ScanProblem& p = request.problem;
  return visit_type_op(p.type, p.op, [&](auto type, auto op) {
    using T = typename decltype(type)::type;
    using Op = decltype(op);
    require_backend();
    require_memory((p.in_place ? 1 : 2) * p.n * sizeof(T) + Scan<T, Op>::workspace_bytes(p.n));
    // The algorithm object (its workspace allocated) and its call's other arguments.
    struct Frame {
      Scan<T, Op> scan;
      std::size_t n;
      Op operation;  // (not `op`: nvcc's host code spells Op as decltype(op))
      ScanKind kind;
    } frame{Scan<T, Op>(p.n), p.n, op, p.kind};
    detail::ErasedScan erased;
    erased.frame = &frame;
    erased.run = [](void* f, const void* d_in, void* d_out) {
      Frame& called = *static_cast<Frame*>(f);
      called.scan(static_cast<const T*>(d_in), static_cast<T*>(d_out), called.n, called.operation, called.kind);
    };
    erased.takes_empty = takes_empty<Scan<T, Op>>;
    return detail::run_erased_scan<T>(request, erased);
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
