// Parts of cooperative_groups that nvcc takes and the cpu backend does not, one per value of
// SCANLAB_COMPAT_CONSTRUCT: the tests EmuCompat.cooperative_groups_build_error.* (compat.cmake)
// check that the build error names the construct.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "scanlab/kernel.hpp"

namespace cg = cooperative_groups;

__global__ void unsupported_kernel(int* out) {
#if SCANLAB_COMPAT_CONSTRUCT == 1
  cg::this_grid();  // a grid group, for grid.sync()
  (void)out;
#elif SCANLAB_COMPAT_CONSTRUCT == 2
  auto tile = cg::tiled_partition<64>(cg::this_thread_block());  // two warps
  out[0] = static_cast<int>(tile.thread_rank());
#elif SCANLAB_COMPAT_CONSTRUCT == 3
  out[0] = cg::reduce(cg::this_thread_block(), 1, cg::plus<int>());  // a block is not a tile
#endif
}
