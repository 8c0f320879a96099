#include "scanlab/inputs.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>

#include "scanlab/dispatch.hpp"

namespace scanlab {

void HostArray::fill_bytes(unsigned char byte) {
  std::memset(words_.data(), byte, words_.size() * sizeof(std::uint64_t));
}

namespace {

template <class T>
T draw(std::mt19937_64& rng, OpKind op, std::size_t n) {
  if constexpr (std::is_floating_point_v<T>) {
    const T range = op == OpKind::add ? T(1) : T(1000);
    return std::uniform_real_distribution<T>(-range, range)(rng);
  } else if constexpr (std::is_unsigned_v<T>) {
    if (op == OpKind::add) return static_cast<T>(rng());
    return static_cast<T>(std::uniform_int_distribution<std::uint64_t>(1, 2'000'000)(rng));
  } else {
    T bound = 1'000'000;
    if (op == OpKind::add) {
      const auto limit = static_cast<std::uint64_t>(std::numeric_limits<T>::max()) / std::max<std::size_t>(n, 1);
      bound = static_cast<T>(std::clamp<std::uint64_t>(limit, 1, 100));
    }
    return std::uniform_int_distribution<T>(-bound, bound)(rng);
  }
}

}  // namespace

HostArray make_input(DType type, OpKind op, std::size_t n, std::uint64_t seed) {
  HostArray array(type, n);
  std::mt19937_64 rng(seed);
  visit_type_op(type, op, [&](auto t, auto op_object) {
    using T = typename decltype(t)::type;
    T* x = array.as<T>();
    for (std::size_t i = 0; i < n; ++i) {
      const bool none = op == OpKind::last && i > 0 && (rng() & 1) != 0;
      x[i] = none ? decltype(op_object)::identity() : draw<T>(rng, op, n);
    }
  });
  return array;
}

}  // namespace scanlab
