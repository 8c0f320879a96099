/// \file kernel.hpp
/// \brief The one header a kernel file (`*.cuh`) includes. It makes the same kernel source compile
/// for both backends: with nvcc for a real GPU (`cuda`), and with the host compiler for scanlab's
/// SIMT emulator (`cpu`). A kernel file includes nothing backend-specific besides this.
///
/// It provides the scan operators (scanlab/ops.hpp), `SCANLAB_HD` for functions used on host and
/// device, `scanlab::dynamic_shared<T>()` for dynamic shared memory, and `scanlab::trace_shared()`
/// to let the cpu backend print a shared array after every barrier (`--trace`).
///
/// The backend is set by the build, per kernel library: scanlab_kernel_library (common/cmake/
/// scanlab.cmake) compiles the cuda library with SCANLAB_BACKEND_CUDA=1 (nvcc) and the cpu library
/// with SCANLAB_BACKEND_CPU=1 (the host compiler). So the order of includes carries no meaning.
#pragma once

#if defined(SCANLAB_BACKEND_CUDA) && defined(SCANLAB_BACKEND_CPU)
#error "SCANLAB_BACKEND_CUDA and SCANLAB_BACKEND_CPU are both defined: a kernel library has one backend"
#elif defined(SCANLAB_BACKEND_CUDA)
#if !defined(__CUDACC__)
#error "SCANLAB_BACKEND_CUDA=1 is for nvcc; the host compiler builds the cpu backend (SCANLAB_BACKEND_CPU=1)"
#endif
#include <cuda_runtime.h>
#include <cassert>
#include <cstdio>
/// Compiled by nvcc: kernels run on a GPU.
#define SCANLAB_BACKEND_NAME cuda
#elif defined(SCANLAB_BACKEND_CPU)
#include "scanlab/emu/cuda_shim.hpp"
/// Compiled by the host compiler: kernels run on scanlab's SIMT emulator.
#define SCANLAB_BACKEND_NAME cpu
#else
#error "kernel code needs a backend: compile it with -DSCANLAB_BACKEND_CPU=1 or -DSCANLAB_BACKEND_CUDA=1 (scanlab_kernel_library in common/cmake/scanlab.cmake does)"
#endif

// SCANLAB_HD, for small functions called from kernels and from host code alike (operators, index
// helpers), comes from ops.hpp.
#include "scanlab/ops.hpp"

namespace scanlab {

/// The block's dynamic shared memory (the size given by the launch), viewed as an array of T.
/// Aligned to 16 bytes. Use it where the section size is a run-time parameter. `name`: the array's,
/// for the cpu backend's memory error reports (the build's rewrite of `extern __shared__` passes it).
template <class T>
__device__ __forceinline__ T* dynamic_shared([[maybe_unused]] const char* name = nullptr) {
#if defined(SCANLAB_BACKEND_CUDA)
  extern __shared__ __align__(16) unsigned char scanlab_dynamic_shared_bytes[];
  return reinterpret_cast<T*>(scanlab_dynamic_shared_bytes);
#else
  return static_cast<T*>(::scanlab::emu::detail::dynamic_shared_memory(sizeof(T), name));
#endif
}

#if defined(SCANLAB_BACKEND_CPU)
namespace detail {
template <class T>
void format_element(const void* element, char* buffer, std::size_t size) {
  T value;
  std::memcpy(&value, element, sizeof(T));
  if constexpr (std::is_floating_point_v<T>) {
    std::snprintf(buffer, size, "%g", static_cast<double>(value));
  } else if constexpr (std::is_signed_v<T>) {
    std::snprintf(buffer, size, "%lld", static_cast<long long>(value));
  } else {
    std::snprintf(buffer, size, "%llu", static_cast<unsigned long long>(value));
  }
}
}  // namespace detail
#endif

/// Asks the cpu backend to record `count` elements of the shared array `data` after every barrier
/// of this block, under `name`, when tracing is on (`--trace`). Call it once, from every thread,
/// right after declaring the array. On a GPU it does nothing.
template <class T>
__device__ __forceinline__ void trace_shared(const char* name, const T* data, unsigned count) {
#if defined(SCANLAB_BACKEND_CPU)
  ::scanlab::emu::detail::trace_shared(name, data, count, sizeof(T), &detail::format_element<T>);
#else
  (void)name;
  (void)data;
  (void)count;
#endif
}

}  // namespace scanlab
