/// \file cooperative_groups/reduce.h (cpu backend)
/// \brief `cg::reduce(tile, value, op)`: the tile's values combined with `op`, returned to every
/// thread of the tile. As CUDA 13 computes it for a tile: a butterfly of `tile.shfl_xor` steps
/// (Size/2, ..., 2, 1), each thread taking `op(its value, its partner's)`. So every thread gets the
/// same result only for an associative and commutative operator, as CUDA requires; for floating
/// point the order of the additions is the butterfly's, not left to right.
#pragma once

#include <cooperative_groups.h>
#include <cooperative_groups/details/functional.h>

namespace cooperative_groups {

template <class Group, class T, class Op>
auto reduce(const Group& group, T&& value, Op&& op, details::Where w = details::Where::current())
    -> decltype(op(value, value)) {
  decltype(op(value, value)) total = value;
  if constexpr (details::is_collective_group<Group>()) {
    for (unsigned lane_mask = Group::num_threads() / 2; lane_mask > 0; lane_mask /= 2) {
      total = op(total, group.shfl_xor(total, lane_mask, w));
    }
  }
  return total;
}

}  // namespace cooperative_groups
