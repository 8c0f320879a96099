// Dynamic shared memory as the book declares it. nvcc compiles this; the cpu backend cannot (see
// common/emu/README.md), and the test EmuCompat.extern_shared_build_error checks that its build error
// names the construct and what to write instead.
#include "scanlab/kernel.hpp"

__global__ void scan_kernel(const float* in, float* out) {
  extern __shared__ float XY[];
  XY[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = XY[blockDim.x - 1 - threadIdx.x];
}
