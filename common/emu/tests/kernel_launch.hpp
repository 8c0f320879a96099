// Shared by the test kernel files: how they launch on the emulator. Included last, after every
// standard header, because kernel.hpp redefines `assert` for kernel code.
#pragma once

#include <functional>
#include <utility>

#include "test_kernels.hpp"
#include "scanlab/kernel.hpp"

namespace emu_test {

/// Launches `body` once per thread of a grid x block launch, as the harness does.
template <class F>
void run(const char* name, Extent3 grid, Extent3 block, std::size_t dynamic_bytes, F&& body) {
  scanlab::emu::launch(name, grid, block, dynamic_bytes, &scanlab::emu::detail::module_static_shared,
                       std::function<void()>(std::forward<F>(body)));
}

constexpr unsigned kFull = 0xffffffffu;

}  // namespace emu_test
