/// \file wait_arrays.hpp
/// \brief Device memory that blocks wait on (11.7's flags, 11.8's tile statuses), named for the
/// emulator's reports of a launch that never finishes: which element a spinning thread waits on, and
/// what every element held when the launch was stopped. For the harness's host code (cpu backend);
/// apart from runtime.hpp, which every kernel library includes.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace scanlab::emu {

/// A short word for one element's state, from its bytes ("P", "A", "not published").
using DescribeElement = std::function<std::string(const void* element)>;

/// Names `count` elements of `element_bytes` bytes at `base`, each one tile's (or block's) word, until
/// unname_wait_array(base). While named: an atomic of kernel code there is remembered per thread, so a
/// watchdog or deadlock report says `thread 0 spins at an atomic or fence at f.cuh:106 on tile
/// statuses[5]`, and the report ends with every element's state, consecutive equal ones as one range:
/// `tile statuses when the launch stopped: 0-4 P, 5 A, 6-12 not published`. Costs each atomic a
/// look-up in the named ranges (as watch_atomics does) while any is named.
void name_wait_array(const char* name, const void* base, std::size_t element_bytes, std::size_t count,
                     DescribeElement describe);
void unname_wait_array(const void* base);

/// A time limit for every launch from now on, in seconds (0: none, the default; the environment's
/// SCANLAB_EMU_LAUNCH_LIMIT_S sets it at the first launch): a launch whose threads still spin at
/// atomics or fences after that long fails with `time limit: the launch ran 12.1 s, past its limit of
/// 12 s, while thread 0 spins at ... on tile statuses[7]; tile statuses when the launch stopped: ...`.
/// Meant for the slowest correct strategy of a section times a wide margin: a kernel that is merely
/// slow then fails with what it waited for, instead of running into the test's own timeout, which
/// says nothing. Checked where the watchdog looks (every 256 memory points).
void set_launch_time_limit(double seconds);
double launch_time_limit();

/// name_wait_array for one scope.
class NamedWaitArray {
 public:
  NamedWaitArray(const char* name, const void* base, std::size_t element_bytes, std::size_t count,
                 DescribeElement describe)
      : base_(base) {
    name_wait_array(name, base, element_bytes, count, std::move(describe));
  }
  ~NamedWaitArray() { unname_wait_array(base_); }
  NamedWaitArray(const NamedWaitArray&) = delete;
  NamedWaitArray& operator=(const NamedWaitArray&) = delete;

 private:
  const void* base_;
};

}  // namespace scanlab::emu
