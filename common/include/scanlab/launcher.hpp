/// \file launcher.hpp
/// \brief The host side of a kernel library: device buffers, the one kernel-launch wrapper, timers,
/// and `run_scan`, which turns an algorithm class into a type-erased RunFn (upload, poison, run,
/// download, time). Compiled once per backend from the same source, like the kernels: a section's
/// `launch.cpp` includes this and its kernel headers, and never `<<< >>>` or cudaMalloc directly.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
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
/// A GPU faults on a pointer into another GPU's memory unless peer access is enabled; the emulator's
/// devices share one memory, so the launch checks every pointer argument (not pointers inside a
/// struct argument) against the device that made its buffer.
template <class P>
void check_device_pointer(const char* kernel, int device, std::size_t argument, const P& p) {
  if constexpr (std::is_pointer_v<P> && !std::is_function_v<std::remove_pointer_t<P>>) {
    const int owner = guarded_device(const_cast<const void*>(static_cast<const volatile void*>(p)));
    if (owner >= 0 && owner != device && !emu::peer_access_enabled(device, owner)) {
      throw Error("kernel '" + std::string(kernel) + "' on device " + std::to_string(device) + " is given memory of device " +
                  std::to_string(owner) + " (argument " + std::to_string(argument + 1) +
                  ") but peer access is not enabled: call enable_peer_access(" + std::to_string(owner) + ") on device " +
                  std::to_string(device) + " first (cudaDeviceEnablePeerAccess)");
    }
  }
}

/// A pointer argument that name_kernel_argument named (scanlab/memory.hpp): named for this launch,
/// remembered in `named` to be unnamed after it.
template <class P>
void name_wait_argument(const char* kernel, unsigned argument, const P& p, std::vector<const void*>& named) {
  if constexpr (std::is_pointer_v<P> && !std::is_function_v<std::remove_pointer_t<P>> &&
                !std::is_void_v<std::remove_cv_t<std::remove_pointer_t<P>>>) {
    const void* q = const_cast<const void*>(static_cast<const volatile void*>(p));
    if (name_wait_argument(kernel, argument, q, sizeof(*p))) named.push_back(q);
  }
}
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
  // Convert the arguments once, as a CUDA launch copies them into the kernel's parameters.
  std::tuple<std::decay_t<Params>...> params(std::forward<Args>(args)...);
  const int device = emu::current_device();
  if (config.stream != nullptr && config.stream->device() != device) {
    throw Error("kernel '" + std::string(config.name) + "' launched on device " + std::to_string(device) +
                " into a stream of device " + std::to_string(config.stream->device()) +
                " (cudaErrorInvalidResourceHandle): set the stream's device first");
  }
  std::apply([&](const auto&... p) {
    std::size_t argument = 0;
    (detail::check_device_pointer(config.name, device, argument++, p), ...);
  }, params);
  std::vector<const void*> named;  // arguments blocks wait on, named for the emulator's reports
  struct Unname {
    std::vector<const void*>& named;
    ~Unname() {
      for (const void* p : named) detail::unname_kernel_argument(p);
    }
  } unname{named};
  std::apply([&](const auto&... p) {
    unsigned argument = 0;
    (detail::name_wait_argument(config.name, argument++, p, named), ...);
  }, params);
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
