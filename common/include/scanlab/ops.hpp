/// \file ops.hpp
/// \brief The associative operators scanlab scans with, each with its identity.
///
/// Every kernel takes its operator as an object (`Op op`, applied as `op(a, b)`), never as a
/// hard-coded `+`. That keeps the kernels generic, and it is how the cpu backend counts work: each
/// application calls the emulator's counter (sections 11.3-11.5 compare those counts with the book's
/// formulas). On a GPU, and in host-only code, counting compiles to nothing.
///
/// | operator | a (+) b                         | identity            | commutative |
/// |----------|---------------------------------|---------------------|-------------|
/// | add      | a + b                           | 0                   | yes         |
/// | max      | a > b ? a : b                   | lowest (float: -inf) | yes        |
/// | min      | a < b ? a : b                   | largest (float: +inf) | yes       |
/// | last     | b == none ? a : b  ("fill forward") | none = lowest()  | **no**      |
///
/// `last` keeps the right operand unless it is the marker `none` (a missing value), so an inclusive
/// scan carries the most recent present value forward. It is associative but not commutative: a
/// kernel that combines operands in the wrong order gives wrong answers, which add, max and min
/// would hide.
#pragma once

#include <limits>
#include <type_traits>

#include "scanlab/types.hpp"

/// For small functions called from kernels and from host code alike (operators, index helpers).
#if defined(__CUDACC__)
#define SCANLAB_HD __host__ __device__ __forceinline__
#else
#define SCANLAB_HD inline
#endif

// Counting is on in the cpu backend's kernel libraries only (SCANLAB_BACKEND_CPU=1, set by the build
// per target: see scanlab/kernel.hpp); host code and the cuda backend do not count.
#if defined(SCANLAB_BACKEND_CPU)
namespace scanlab::emu::detail {
void count_op();  // the emulator's counter (declared with the rest in scanlab/emu/cuda_shim.hpp)
}  // namespace scanlab::emu::detail
#define SCANLAB_COUNT_OP() ::scanlab::emu::detail::count_op()
#else
#define SCANLAB_COUNT_OP() static_cast<void>(0)
#endif

namespace scanlab {

template <class T>
struct Add {
  using value_type = T;
  static constexpr OpKind kind = OpKind::add;
  static SCANLAB_HD T identity() { return T(0); }
  SCANLAB_HD T operator()(T a, T b) const {
    SCANLAB_COUNT_OP();
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      // Two's-complement wrap-around, as the GPU's adder does. Written through the unsigned type
      // because C++ leaves a signed overflow undefined, and a wrong kernel (one that adds poison
      // from shared memory nothing wrote) must give a wrong sum for the tests to see, not
      // undefined behaviour on the cpu backend. Correct kernels never overflow: see inputs.hpp.
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
};

template <class T>
struct Max {
  using value_type = T;
  static constexpr OpKind kind = OpKind::max;
  static SCANLAB_HD T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return -std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::lowest();
    }
  }
  SCANLAB_HD T operator()(T a, T b) const {
    SCANLAB_COUNT_OP();
    return a > b ? a : b;
  }
};

template <class T>
struct Min {
  using value_type = T;
  static constexpr OpKind kind = OpKind::min;
  static SCANLAB_HD T identity() {
    if constexpr (std::numeric_limits<T>::has_infinity) {
      return std::numeric_limits<T>::infinity();
    } else {
      return std::numeric_limits<T>::max();
    }
  }
  SCANLAB_HD T operator()(T a, T b) const {
    SCANLAB_COUNT_OP();
    return a < b ? a : b;
  }
};

/// Fill-forward: the right operand, unless it is the "none" marker (the identity).
template <class T>
struct Last {
  using value_type = T;
  static constexpr OpKind kind = OpKind::last;
  static SCANLAB_HD T identity() { return std::numeric_limits<T>::lowest(); }
  SCANLAB_HD T operator()(T a, T b) const {
    SCANLAB_COUNT_OP();
    return b == identity() ? a : b;
  }
};

}  // namespace scanlab
