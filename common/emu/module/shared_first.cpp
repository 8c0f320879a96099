// Linked first into every kernel library of the cpu backend (scanlab_kernel_library, in
// common/cmake/scanlab.cmake; shared_probe.cpp second, shared_last.cpp last): the leading anchor of
// the library's static shared memory, and the function by which the emulator finds it. Nothing else
// thread_local here: a compiler may lay out one file's thread-local variables in any order.
//
// On this backend `__shared__` variables are thread_local (emu/cuda_shim.hpp), so they live in the
// library's thread-local storage. Linkers lay out the thread-local sections of their input files in
// command-line order (GNU ld, gold, lld and Apple's ld64 all do), so this file's anchor comes before
// every kernel's variables and shared_last.cpp's after them: the library's static shared memory is
// the span between the two, found with plain addresses, on any platform. The emulator checks, when
// a kernel is first launched, that every variable's guard lies inside that span and that a guard
// sits right next to its variable (shared_probe.cpp), and refuses to launch if not
// (emu/src/static_shared.cpp).
#include "scanlab/emu/cuda_shim.hpp"

namespace scanlab::emu::detail {

// The other objects of the library's static shared memory (shared_last.cpp, shared_probe.cpp).
__attribute__((visibility("hidden"))) unsigned char* module_static_shared_last();
__attribute__((visibility("hidden"))) unsigned char* module_static_shared_probe();

namespace {

struct LeadingGuard {
  unsigned char bytes[kStaticLeadingGuardBytes];
};
constinit thread_local LeadingGuard leading{};

}  // namespace

StaticShared module_static_shared() { return {leading.bytes, module_static_shared_last(), module_static_shared_probe()}; }

}  // namespace scanlab::emu::detail
