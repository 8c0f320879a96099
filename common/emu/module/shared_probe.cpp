// Linked second into every kernel library of the cpu backend (after shared_first.cpp, in a file of
// its own because a compiler may lay out one file's thread-local variables in any order): a static
// shared variable whose address the emulator knows. Whether its guard zone ends where it starts, or
// starts where it ends, tells on which side of its variable this compiler puts a guard, and that it
// puts it right next to it (emu/src/static_shared.cpp).
#include "scanlab/emu/cuda_shim.hpp"

namespace scanlab::emu::detail {

__attribute__((visibility("hidden"))) unsigned char* module_static_shared_probe() {
  __shared__ unsigned char variable[1];
  return variable;
}

}  // namespace scanlab::emu::detail
