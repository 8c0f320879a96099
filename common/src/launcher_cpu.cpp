// The cpu backend's launch plumbing that does not depend on a kernel's type (scanlab/launcher.hpp),
// compiled once here instead of in every kernel library: the ~80 mutants and valid variants are each
// a kernel library of their own, and this code, instantiated per kernel and element type, was most of
// their compile time. Linked into every cpu kernel library (scanlab_kernel_library), with hidden
// visibility like the library's own code.
#define SCANLAB_LAUNCHER_CPU_SOURCE 1  // the explicit instantiations of run_erased_scan, once
#include "scanlab/launcher.hpp"

#if !defined(SCANLAB_BACKEND_CPU)
#error "launcher_cpu.cpp is the cpu backend's: compile it with -DSCANLAB_BACKEND_CPU=1"
#endif

namespace scanlab::detail {

void launch_on_emulator(const LaunchConfig& config, std::span<const LaunchArgument> arguments,
                        void (*call)(const void* frame), const void* frame) {
  const int device = emu::current_device();
  if (config.stream != nullptr && config.stream->device() != device) {
    throw Error("kernel '" + std::string(config.name) + "' launched on device " + std::to_string(device) +
                " into a stream of device " + std::to_string(config.stream->device()) +
                " (cudaErrorInvalidResourceHandle): set the stream's device first");
  }
  // A GPU faults on a pointer into another GPU's memory unless peer access is enabled; the emulator's
  // devices share one memory, so every pointer argument (not pointers inside a struct argument) is
  // checked against the device that made its buffer.
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (!arguments[i].pointer) continue;
    const int owner = guarded_device(arguments[i].address);
    if (owner >= 0 && owner != device && !emu::peer_access_enabled(device, owner)) {
      throw Error("kernel '" + std::string(config.name) + "' on device " + std::to_string(device) +
                  " is given memory of device " + std::to_string(owner) + " (argument " + std::to_string(i + 1) +
                  ") but peer access is not enabled: call enable_peer_access(" + std::to_string(owner) +
                  ") on device " + std::to_string(device) + " first (cudaDeviceEnablePeerAccess)");
    }
  }
  // The pointer arguments that name_kernel_argument named (scanlab/memory.hpp): named for this launch
  // in the emulator's reports of blocks waiting on them, unnamed after it.
  std::vector<const void*> named;
  struct Unname {
    std::vector<const void*>& named;
    ~Unname() {
      for (const void* p : named) unname_kernel_argument(p);
    }
  } unname{named};
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const LaunchArgument& a = arguments[i];
    if (a.pointer && a.element_size > 0 &&
        name_wait_argument(config.name, static_cast<unsigned>(i), a.address, a.element_size)) {
      named.push_back(a.address);
    }
  }
  const auto to_extent = [](dim3 d) { return emu::Extent3{d.x, d.y, d.z}; };
  try {
    emu::launch(config.name, to_extent(config.grid), to_extent(config.block), config.shared_bytes,
                &emu::detail::module_static_shared, [&] { call(frame); });
  } catch (const emu::LaunchError& e) {
    throw Error(e.what());
  }
  check_device_guards(config.name);  // a write past the end of a DeviceBuffer: "memory error: ..."
}

}  // namespace scanlab::detail
