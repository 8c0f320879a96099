// Dynamic shared memory as the book declares it, compiled by the host compiler as it is, without the
// rewrite a cpu kernel library's sources go through (common/cmake/cpu_sources.py): the test
// EmuCompat.extern_shared_build_error checks that the build error of a declaration the rewrite leaves
// names the construct and what to write instead.
#include "scanlab/kernel.hpp"

__global__ void scan_kernel(const float* in, float* out) {
  extern __shared__ float XY[];
  XY[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = XY[blockDim.x - 1 - threadIdx.x];
}
