/// \file error.hpp
/// \brief scanlab's one error type and the CUDA error-check macro. Library code throws
/// scanlab::Error (so a test can report it); only a program's main turns it into an exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace scanlab {

// Default visibility for the error types: the kernel libraries hide their symbols, and libc++ matches
// a thrown type by the address of its type_info, so each type must have one type_info per process.
#pragma GCC visibility push(default)

/// An error a user can act on: the message says what is wrong and what to do, in one line.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Thrown when the cuda backend is asked for but no usable GPU is present.
class NoDeviceError : public Error {
 public:
  using Error::Error;
};

#pragma GCC visibility pop

}  // namespace scanlab

#if defined(__CUDACC__)
#include <cuda_runtime.h>
namespace scanlab::detail {
[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* call, const char* file,
                                          int line) {
  throw Error(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
              cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
}
}  // namespace scanlab::detail

/// Checks the cudaError_t of `call`; on failure throws scanlab::Error naming the call, file:line and
/// the CUDA error.
#define SCANLAB_CUDA_CHECK(call)                                                   \
  do {                                                                             \
    const cudaError_t scanlab_status_ = (call);                                    \
    if (scanlab_status_ != cudaSuccess) {                                          \
      ::scanlab::detail::throw_cuda_error(scanlab_status_, #call, __FILE__, __LINE__); \
    }                                                                              \
  } while (0)
#endif
