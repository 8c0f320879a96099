/// \file cooperative_groups/scan.h (cpu backend)
/// \brief `cg::inclusive_scan(tile, value[, op])` and `cg::exclusive_scan(tile, value[, op])` over a
/// tile's threads in rank order (`op` defaults to cg::plus). As CUDA 13 computes them for a tile: a
/// Kogge-Stone scan of `tile.shfl_up` steps (1, 2, 4, ...), each thread taking
/// `op(its partial, the partial of the thread d ranks below)`. Note the operand order: it is the
/// thread's own value first, so an operator that is not commutative (scanlab's `last`) gives
/// different results than a left-to-right scan, on a GPU as here. The exclusive scan is the inclusive
/// one shifted up by one rank (`tile.shfl_up(inclusive, 1)`); rank 0 gets a value-initialized T
/// (0 for numbers), as CUDA's header returns.
#pragma once

#include <cooperative_groups.h>
#include <cooperative_groups/details/functional.h>

namespace cooperative_groups {

template <class Group, class T, class Op>
auto inclusive_scan(const Group& group, T&& value, Op&& op, details::Where w = details::Where::current())
    -> decltype(op(value, value)) {
  decltype(op(value, value)) partial = value;
  if constexpr (details::is_collective_group<Group>()) {
    for (unsigned distance = 1; distance < Group::num_threads(); distance *= 2) {
      const auto below = group.shfl_up(partial, distance, w);  // every lane shuffles, as it must
      if (group.thread_rank() >= distance) partial = op(partial, below);
    }
  }
  return partial;
}

template <class Group, class T>
std::remove_cvref_t<T> inclusive_scan(const Group& group, T&& value, details::Where w = details::Where::current()) {
  return inclusive_scan(group, value, plus<std::remove_cvref_t<T>>(), w);
}

template <class Group, class T, class Op>
auto exclusive_scan(const Group& group, T&& value, Op&& op, details::Where w = details::Where::current())
    -> decltype(op(value, value)) {
  decltype(op(value, value)) before{};
  if constexpr (details::is_collective_group<Group>()) {
    const auto inclusive = inclusive_scan(group, value, op, w);
    before = group.shfl_up(inclusive, 1, w);
    if (group.thread_rank() == 0) before = {};
  }
  return before;
}

template <class Group, class T>
std::remove_cvref_t<T> exclusive_scan(const Group& group, T&& value, details::Where w = details::Where::current()) {
  return exclusive_scan(group, value, plus<std::remove_cvref_t<T>>(), w);
}

// CUDA's scans that also update an atomic (exclusive_scan_update, inclusive_scan_update).
template <class Group, class... Args>
void exclusive_scan_update(const Group&, Args&&...) {
  static_assert(details::unsupported<Group>, "scanlab cpu backend: cg::exclusive_scan_update is not supported");
}
template <class Group, class... Args>
void inclusive_scan_update(const Group&, Args&&...) {
  static_assert(details::unsupported<Group>, "scanlab cpu backend: cg::inclusive_scan_update is not supported");
}

}  // namespace cooperative_groups
