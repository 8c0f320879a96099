/// \file model.hpp
/// \brief What section 11.3's grading tests call of the work model (work_model.hpp), declared here so
/// that the tests never include a student's header: the checker holds the tests, their expected
/// values and the verdict; the student's model runs in a runner of its own (model.cpp,
/// scanlab/remote.hpp) and only its numbers come back. The solution's own tests link model.cpp's
/// direct side instead (the solution's model, nothing to defend against).
#pragma once

#include <cstdint>
#include <span>

#include "scanlab/stats.hpp"

namespace scanlab::s11_3::model {

/// work_model.hpp's enums, by value (model.cpp converts them name by name).
enum class Phase2 : std::uint64_t { kogge_stone = 0, brent_kung = 1 };
enum class Granularity : std::uint64_t { thread = 0, warp = 1 };

std::uint64_t work_sequential(std::uint64_t N);
std::uint64_t work_kogge_stone(std::uint64_t N);
std::uint64_t work_brent_kung(std::uint64_t N);
std::uint64_t work_coarsened(std::uint64_t N, std::uint64_t T, Phase2 phase2);
std::uint64_t idle_lanes(const IntervalStats& interval);
std::uint64_t interval_steps(const IntervalStats& interval, std::uint64_t P, Granularity granularity);
std::uint64_t steps_with_units(std::span<const LaunchStats> launches, std::uint64_t P, Granularity granularity);

}  // namespace scanlab::s11_3::model
