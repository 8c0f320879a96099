/// \file emu/runtime.hpp
/// \brief Host-side interface of scanlab's SIMT emulator (the `cpu` backend): launching a kernel,
/// choosing block and thread orders, the watchdog, and reading back what was counted and traced.
///
/// Kernels never include this file directly; they include `scanlab/kernel.hpp`, which pulls in
/// `emu/cuda_shim.hpp` when compiled by the host compiler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "scanlab/memory.hpp"
#include "scanlab/stats.hpp"

namespace scanlab::emu {

/// A 3-D extent, as CUDA's dim3.
struct Extent3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr unsigned count() const { return x * y * z; }
};

/// The order in which blocks of a grid, or threads between two sync points, are run.
enum class Order { forward, reverse, random };

/// Parses "forward", "reverse" or "random"; throws std::invalid_argument otherwise.
Order parse_order(const std::string& text);
const char* order_name(Order order);

/// Which of the resident blocks of a launch runs next, at a point where blocks can interleave
/// (see Settings::resident_blocks and the emulator's README, "Blocks that run at the same time").
enum class Schedule {
  /// The block that joined the launch's communication last runs first: the blocks that have not yet
  /// changed memory with an atomic (the youngest first), then the one whose last atomic change is
  /// the most recent. A block waits (spins) only once every block after it does: a consumer that reads
  /// a producer's data before waiting for the producer's flag reads it before the producer wrote it.
  adversarial,
  /// A seeded random resident block that is not stuck (settings().seed).
  random,
};
/// Parses "adversarial" or "random"; throws std::invalid_argument otherwise.
Schedule parse_schedule(const std::string& text);
const char* schedule_name(Schedule schedule);

/// Process-wide settings of the emulator. Defaults come from the environment, read once, the first
/// time settings() is called (at the latest by the first launch): SCANLAB_EMU_BLOCK_ORDER,
/// SCANLAB_EMU_THREAD_ORDER, SCANLAB_EMU_SEED, SCANLAB_EMU_WORKERS, SCANLAB_EMU_RESIDENT_BLOCKS,
/// SCANLAB_EMU_BLOCK_SCHEDULE, SCANLAB_EMU_STACK_KB, SCANLAB_EMU_WATCHDOG_S, SCANLAB_EMU_DEVICES; an invalid value is ignored with a warning. Programs and tests may change
/// them between launches.
struct Settings {
  Order block_order = Order::forward;
  Order thread_order = Order::forward;
  std::uint64_t seed = 1;            ///< seed of the random orders; printed (once per seed) when used
  unsigned workers = 1;              ///< OS threads that run blocks; 1 = deterministic
  /// With one worker: how many blocks of a launch are resident at once (started, not finished), run
  /// one at a time and interleaved at atomics and spins as `block_schedule` says; 1 = one block after
  /// another. Deterministic for a given seed.
  unsigned resident_blocks = 4;
  Schedule block_schedule = Schedule::adversarial;
  std::size_t stack_bytes = 64 * 1024; ///< per fiber, plus a guard page below
  double watchdog_seconds = 10.0;    ///< a launch with no progress for this long fails
  bool trace = false;                ///< record arrays registered with trace_shared after each barrier
  unsigned trace_max_blocks = 1;     ///< trace only the first blocks (by linear index)
  /// ThreadSanitizer builds only: run fibers unordered and make every barrier and warp rendezvous a
  /// release/acquire, so TSan reports races on shared and global memory (env SCANLAB_EMU_TSAN_RACES=1).
  bool tsan_races = false;
  /// The byte unwritten shared memory holds at block start (the grading tests run once more with
  /// another, to see whether a result depends on shared memory no thread wrote).
  unsigned char shared_poison = kPoisonByte;
  /// GPUs of one host that the cpu backend models (SCANLAB_EMU_DEVICES, 1 to kMaxDevices): each has
  /// its own memory (DeviceBuffer records where it was made) and streams, and reads another's memory
  /// only once peer access is enabled (see the devices below and the emulator's README, "Devices").
  int devices = 1;
};

/// The most devices the emulator models.
inline constexpr int kMaxDevices = 16;

/// The current settings (mutable). Not thread-safe: change them between launches only.
Settings& settings();

// Default visibility: the kernel libraries hide their symbols, and libc++ matches a thrown type by
// the address of its type_info, so the emulator's throw and a kernel library's catch (scanlab::launch)
// must see one type_info per process (hidden, every LaunchError went past that catch under libc++).
#pragma GCC visibility push(default)
/// A launch that failed: barrier divergence, deadlock, a bad warp operation, a watchdog timeout, an
/// exception or a failed assert in a kernel thread. The message names the kernel, block, threads and
/// source lines involved, in a form a student can act on.
class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
#pragma GCC visibility pop

namespace detail {
struct StaticShared;  // emu/cuda_shim.hpp
}
/// Where a kernel library's static `__shared__` variables are: its
/// `scanlab::emu::detail::module_static_shared` (emu/cuda_shim.hpp).
using StaticSharedFn = detail::StaticShared (*)();

/// Runs `thread_body` once per CUDA thread of a `grid` x `block` launch, each on its own fiber, with
/// `dynamic_shared_bytes` of dynamic shared memory per block. `kernel_name` is used in messages and in
/// the stats. `static_shared`: the kernel library's module_static_shared, by which the emulator
/// poisons the library's static `__shared__` variables at the start of every block and checks the
/// guard zones between them. Synchronous: returns when every block is done, or throws LaunchError.
void launch(const char* kernel_name, Extent3 grid, Extent3 block, std::size_t dynamic_shared_bytes,
            StaticSharedFn static_shared, const std::function<void()>& thread_body);

/// Where blocks of the launches since the last call waited for other blocks (a spin at an atomic:
/// "single_pass_scan.cuh:98"), each place once, in the order first seen; clears them.
std::vector<std::string> take_block_waits();

/// Adds places to what take_block_waits returns, each once: the grader's checker adds those its
/// runner reported (scanlab/remote.hpp), so the hints read as if the kernels ran in the checker.
void add_block_waits(const std::vector<std::string>& places);

/// What the guard zones around a block's dynamic shared memory and between its static shared
/// variables hold: a write past either end of an array changes them, and the emulator reports it at
/// the next barrier or at the block's end ("memory error: ...").
inline constexpr unsigned char kGuardByte = 0xFD;
/// Bytes of guard zone before and after dynamic shared memory.
inline constexpr std::size_t kSharedGuardBytes = 256;

/// One atomic operation on watched memory (watch_atomics), in the order they ran: `array` names the
/// watched range, `offset` is the byte offset in it, `before` and `after` the value the atomic found
/// and the one it left (equal for a read such as `atomicAdd(&flag, 0)`), as raw bytes (up to 8).
struct AtomicEvent {
  std::string array;
  std::size_t offset = 0;
  std::size_t size = 0;
  unsigned block = 0;   ///< linear index of the block (blockIdx.x for a 1-D grid)
  unsigned thread = 0;  ///< linear index of the thread in its block
  unsigned long long before = 0, after = 0;
};

/// Records every atomic operation of kernel code on the `bytes` bytes at `base` (device memory the
/// kernel's flags or statuses live in) as an AtomicEvent under `name`, until unwatch_atomics(). Meant
/// for pictures of blocks that wait for each other (the docs' figures of sections 11.7 and 11.8):
/// with the default one worker the order of the events is the order the emulator ran them.
void watch_atomics(const char* name, const void* base, std::size_t bytes);
/// Stops recording atomics (every range); the events stay until take_atomic_events().
void unwatch_atomics();
/// The events recorded since the last call, oldest first; clears them.
std::vector<AtomicEvent> take_atomic_events();

/// The stats of every launch since the last call (or since the program started), oldest first;
/// clears them.
std::vector<LaunchStats> take_stats();

/// Every byte of shared memory is filled with this at block start (the harness poisons output
/// buffers with the same byte), so a value nothing wrote is recognisable.
using ::scanlab::kPoisonByte;

/// The exit status of a process the emulator stops because a kernel thread spun for longer than the
/// watchdog time without reaching any scheduling point (a spin on a plain or volatile variable cannot
/// be preempted by a cooperative scheduler, so it cannot be turned into a LaunchError).
inline constexpr int kWatchdogExitCode = 124;

/// The exit status of a process the emulator stops because a kernel thread overflowed its fiber
/// stack (settings().stack_bytes, SCANLAB_EMU_STACK_KB): it ran into the guard page below the
/// stack, and the emulator's SIGSEGV handler says which thread and what to do, on stderr. Not in
/// ASan or TSan builds, whose own handlers report the fault.
inline constexpr int kStackOverflowExitCode = 125;

/// Largest number of threads in one block, as on every current GPU.
inline constexpr unsigned kMaxBlockThreads = 1024;

// ---- devices: the cpu backend's model of several GPUs of one host -----------------------------------
// What CUDA's runtime does per device, for the calls the lab uses; each returns a DeviceStatus where
// CUDA returns a cudaError_t, and the launcher (scanlab/launcher.hpp) turns one into an Error. Memory
// of every device is this process's memory: a kernel could read any of it, so the launcher checks each
// pointer a launch is given against the device that owns it (see peer_access_enabled).

/// What a device call says, as CUDA's error codes do.
enum class DeviceStatus {
  ok,
  invalid_device,                ///< cudaErrorInvalidDevice: no such device (or a device as its own peer)
  peer_access_already_enabled,   ///< cudaErrorPeerAccessAlreadyEnabled
  peer_access_not_enabled,       ///< cudaErrorPeerAccessNotEnabled (disable_peer_access)
};
/// CUDA's name and text for `status` ("cudaErrorInvalidDevice: invalid device ordinal").
const char* device_status_text(DeviceStatus status);

/// settings().devices: cudaGetDeviceCount.
int device_count();
/// The calling host thread's current device (0 until set): cudaGetDevice.
int current_device();
/// Makes `device` the calling host thread's current device: cudaSetDevice.
DeviceStatus set_device(int device);
/// Whether `device` can read and write `peer`'s memory once enabled: every two different devices of
/// the model can (as two GPUs on NVLink): cudaDeviceCanAccessPeer.
bool can_access_peer(int device, int peer);
/// Lets kernels of the current device use `peer`'s memory: cudaDeviceEnablePeerAccess (one direction).
DeviceStatus enable_peer_access(int peer);
/// cudaDeviceDisablePeerAccess.
DeviceStatus disable_peer_access(int peer);
/// Whether kernels of `device` may use memory of `peer` (always for device == peer).
bool peer_access_enabled(int device, int peer);
/// Back to the start: no peer access enabled anywhere, the calling thread on device 0 (cudaDeviceReset
/// on every device, for tests).
void reset_devices();

/// Measures the cost of one fiber switch (resume and return) with pooled stacks, in nanoseconds.
double measure_switch_ns(std::size_t switches);

}  // namespace scanlab::emu
