// Given stand-in (common/given/README.md) for section 11.10's piece_scan.cpp in the student release:
// PieceScan (chapters/11_10_multi_gpu/piece_scan.hpp) without section 11.8's persistent scan. One
// kernel launch of one block per scan: the block walks the piece in chunks of its size, each chunk
// loaded and stored by all threads and scanned by thread 0 alone (given::serial_scan), which carries
// the total from chunk to chunk. It needs no workspace. Compiled once per backend into the section's
// given library, as the full lab's piece_scan.cpp is.
#include "piece_scan.hpp"

#include <algorithm>
#include <cstdint>

#include "given_scan.cuh"
#include "scanlab/launcher.hpp"
#include "scanlab/ops.hpp"

namespace scanlab::s11_10 {
#if defined(SCANLAB_BACKEND_CUDA)
inline namespace backend_cuda {
#else
inline namespace backend_cpu {
#endif

namespace {

constexpr unsigned kThreads = 256;

/// Scans x[0..n) into y (may be x), inclusive or exclusive, starting from *carry_in when it is set.
/// One block of kThreads threads, kThreads elements of T of dynamic shared memory.
template <class T, class Op>
__global__ void given_piece_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive, const T* carry_in) {
  T* XY = dynamic_shared<T>();
  T carry = Op::identity();  // thread 0's: everything before the chunk
  if (threadIdx.x == 0 && carry_in != nullptr) carry = *carry_in;
  for (std::size_t start = 0; start < n; start += blockDim.x) {
    const unsigned count = static_cast<unsigned>(std::min<std::size_t>(blockDim.x, n - start));
    if (threadIdx.x < count) XY[threadIdx.x] = x[start + threadIdx.x];
    const T before = carry;  // (thread 0's: the other threads never use theirs)
    given::serial_scan(XY, count, op, carry);
    if (threadIdx.x < count) {
      // Thread 0 writes the chunk's first element: an exclusive scan's is what came before it.
      y[start + threadIdx.x] = !exclusive ? XY[threadIdx.x] : threadIdx.x == 0 ? before : XY[threadIdx.x - 1];
    }
    __syncthreads();  // every store read XY before the next chunk overwrites it
  }
}

}  // namespace

template <class T, class Op>
struct PieceScan<T, Op>::Impl {
  const T* carry = nullptr;
};

template <class T, class Op>
PieceScan<T, Op>::PieceScan(std::size_t) : impl_(std::make_unique<Impl>()) {}

template <class T, class Op>
PieceScan<T, Op>::~PieceScan() = default;

template <class T, class Op>
std::size_t PieceScan<T, Op>::workspace_bytes(std::size_t) {
  return 0;
}

template <class T, class Op>
void PieceScan<T, Op>::set_carry_in(const T* d_carry) {
  impl_->carry = d_carry;
}

template <class T, class Op>
void PieceScan<T, Op>::operator()(const T* d_in, T* d_out, std::size_t n, Op op, ScanKind kind) {
  launch(given_piece_scan_kernel<T, Op>, {"given_piece_scan_kernel", 1, kThreads, kThreads * sizeof(T)}, d_in, d_out,
         n, op, kind == ScanKind::exclusive, impl_->carry);
}

// The look-back across GPUs needs 11.8's persistent scan: the stand-in has none, and says so.
template <class T, class Op>
std::size_t PieceScan<T, Op>::dealt_tile() {
  return kThreads;
}

template <class T, class Op>
unsigned long long* PieceScan<T, Op>::status_words() {
  return nullptr;
}

template <class T, class Op>
void PieceScan<T, Op>::deal(int, const std::vector<unsigned long long*>&, unsigned) {
  throw Error(kNoDealtScan);
}

SCANLAB_PIECE_SCAN_INSTANTIATIONS()  // (piece_scan.hpp: every type and operator)

}  // inline namespace backend_cuda or backend_cpu
}  // namespace scanlab::s11_10
