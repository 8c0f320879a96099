// Linked last into every kernel library of the cpu backend: the trailing anchor of the library's
// static shared memory, a guard zone after its last `__shared__` variable. See shared_first.cpp.
#include "scanlab/emu/cuda_shim.hpp"

namespace scanlab::emu::detail {

namespace {

struct TrailingGuard {
  unsigned char bytes[kStaticTrailingGuardBytes];
};
constinit thread_local TrailingGuard trailing{};

}  // namespace

__attribute__((visibility("hidden"))) unsigned char* module_static_shared_last() { return trailing.bytes; }

}  // namespace scanlab::emu::detail
