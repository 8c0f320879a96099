/// \file dispatch.hpp
/// \brief Turns the run-time choice of element type and operator into template arguments.
#pragma once

#include <type_traits>

#include "scanlab/ops.hpp"
#include "scanlab/types.hpp"

namespace scanlab {

/// Calls `f(std::type_identity<T>{})` with T the C++ type of `t`.
template <class F>
decltype(auto) visit_type(DType t, F&& f) {
  switch (t) {
    case DType::int32: return f(std::type_identity<std::int32_t>{});
    case DType::uint32: return f(std::type_identity<std::uint32_t>{});
    case DType::int64: return f(std::type_identity<std::int64_t>{});
    case DType::float32: return f(std::type_identity<float>{});
    case DType::float64: break;
  }
  return f(std::type_identity<double>{});
}

/// Calls `f(std::type_identity<T>{}, Op{})` with T the type of `t` and Op the operator class of `o`.
template <class F>
decltype(auto) visit_type_op(DType t, OpKind o, F&& f) {
  return visit_type(t, [&](auto type) -> decltype(auto) {
    using T = typename decltype(type)::type;
    switch (o) {
      case OpKind::add: return f(type, Add<T>{});
      case OpKind::max: return f(type, Max<T>{});
      case OpKind::min: return f(type, Min<T>{});
      case OpKind::last: break;
    }
    return f(type, Last<T>{});
  });
}

}  // namespace scanlab
