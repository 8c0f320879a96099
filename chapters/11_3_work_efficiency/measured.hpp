/// \file measured.hpp
/// \brief The sections whose kernels section 11.3 measures on the emulator: those this program is
/// linked with (CMake defines SCANLAB_11_3_WITH_<id> for each).
#pragma once

#include <vector>

#include "scanlab/algorithm.hpp"

#if SCANLAB_11_3_WITH_11_1
#include "11_1_sequential/algorithms.hpp"
#endif
#if SCANLAB_11_3_WITH_11_2
#include "11_2_kogge_stone/algorithms.hpp"
#endif
#if SCANLAB_11_3_WITH_11_4
#include "11_4_brent_kung/algorithms.hpp"
#endif
#if SCANLAB_11_3_WITH_11_5
#include "11_5_coarsened/algorithms.hpp"
#endif
#if SCANLAB_11_3_WITH_11_6
#include "11_6_hierarchical/algorithms.hpp"
#endif

namespace scanlab::s11_3 {

/// A section's algorithms on the cpu backend.
struct Section {
  const char* id;
  AlgorithmTable table;
};

/// The linked sections, in the book's order.
inline std::vector<Section> linked_sections() {
  return {
#if SCANLAB_11_3_WITH_11_1
      {"11.1", s11_1::algorithms_cpu()},
#endif
#if SCANLAB_11_3_WITH_11_2
      {"11.2", s11_2::algorithms_cpu()},
#endif
#if SCANLAB_11_3_WITH_11_4
      {"11.4", s11_4::algorithms_cpu()},
#endif
#if SCANLAB_11_3_WITH_11_5
      {"11.5", s11_5::algorithms_cpu()},
#endif
#if SCANLAB_11_3_WITH_11_6
      {"11.6", s11_6::algorithms_cpu()},
#endif
  };
}

}  // namespace scanlab::s11_3
