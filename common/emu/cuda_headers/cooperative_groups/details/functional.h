/// \file cooperative_groups/details/functional.h (cpu backend)
/// \brief The operators of cg::reduce and the cg scans (`cg::plus`, `cg::less`, `cg::greater`,
/// `cg::bit_and`, `cg::bit_or`, `cg::bit_xor`), for <cooperative_groups/reduce.h> and
/// <cooperative_groups/scan.h>, which both provide them in CUDA too. `less` keeps the smaller
/// operand and `greater` the larger: a minimum and a maximum, not comparisons.
#pragma once

#include <cooperative_groups.h>

namespace cooperative_groups {

template <class T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
  T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
  T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

namespace details {
/// cg::reduce and the scans take tiles only, as in CUDA (there, coalesced groups too).
template <class Group>
inline constexpr bool is_tile = false;
template <unsigned Size, class Parent>
inline constexpr bool is_tile<thread_block_tile<Size, Parent>> = true;

/// True for a tile; otherwise stops the build with a message first (the collectives' bodies compile
/// only for a tile: `if constexpr (is_collective_group<Group>())`).
template <class Group>
constexpr bool is_collective_group() {
  static_assert(is_tile<Group>,
                "cg::reduce / cg::inclusive_scan / cg::exclusive_scan take a thread_block_tile (tiled_partition<N>), as "
                "in CUDA: not a thread_block (scan the tiles' totals in shared memory, then add them)");
  return is_tile<Group>;
}
}  // namespace details

}  // namespace cooperative_groups
