// Given stand-in (common/given/README.md) for section 11.10's piece_scan.cpp in the student release:
// PieceScan (chapters/11_10_multi_gpu/piece_scan.hpp) without section 11.8's persistent scan. One
// kernel launch of one block per scan: the block walks the piece in chunks of its size, each chunk
// loaded and stored by all threads and scanned by thread 0 alone (given::serial_scan), which carries
// the total from chunk to chunk. Dealt out across GPUs (the look_back way), the block walks its GPU's
// tiles in order and chains them: each tile waits for the inclusive prefix of the tile before it in the
// whole array (11.8's tile statuses, read through peer memory), one tile at a time, with no look-back
// window. Compiled once per backend into the section's given library, as the full lab's piece_scan.cpp is.
#include "piece_scan.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "given_scan.cuh"
#include "scanlab/launcher.hpp"
#include "scanlab/ops.hpp"
#include "tile_status.cuh"  // section 11.8's tile statuses (chapters/11_8_decoupled_lookback)

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

/// The tile by which the look_back way deals an array out (in runs of tiles): four chunks of the block.
constexpr std::size_t kDealtTile = 4 * kThreads;

/// GPU `status.device`'s tiles of kDealtTile elements of an array dealt out to several GPUs, x[0..n) on
/// this GPU, scanned into y: tile by tile, each starting from the inclusive prefix that the tile before it
/// in the whole array published (thread 0 waits for it), and publishing its own. One block.
template <class T, class Op>
__global__ void given_dealt_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive,
                                        lookback::TileStatusArray status) {
  T* XY = dynamic_shared<T>();
  T carry = Op::identity();  // thread 0's: everything before the chunk
  for (unsigned t = 0; static_cast<std::size_t>(t) * kDealtTile < n; ++t) {
    if (threadIdx.x == 0) {
      const unsigned long long whole = lookback::whole_tile(status, t);
      carry = Op::identity();
      if (whole > 0) {  // wait for the tile before, on whichever GPU
        lookback::TileStatus<T> before{lookback::kNotPublished, Op::identity()};
        while (before.flag != lookback::kPrefix) before = lookback::read_whole_status<T>(status, whole - 1);
        carry = before.value;
      }
    }
    const std::size_t first = static_cast<std::size_t>(t) * kDealtTile;
    const std::size_t end = std::min(n, first + kDealtTile);
    for (std::size_t start = first; start < end; start += blockDim.x) {
      const unsigned count = static_cast<unsigned>(std::min<std::size_t>(blockDim.x, end - start));
      if (threadIdx.x < count) XY[threadIdx.x] = x[start + threadIdx.x];
      const T before = carry;  // (thread 0's)
      given::serial_scan(XY, count, op, carry);
      if (threadIdx.x < count) {
        y[start + threadIdx.x] = !exclusive ? XY[threadIdx.x] : threadIdx.x == 0 ? before : XY[threadIdx.x - 1];
      }
      __syncthreads();  // every store read XY before the next chunk overwrites it
    }
    if (threadIdx.x == 0) lookback::publish_status(status, t, lookback::kPrefix, carry);
  }
}

}  // namespace

template <class T, class Op>
struct PieceScan<T, Op>::Impl {
  explicit Impl(std::size_t n) : words(std::max<std::size_t>(ceil_div(n, kDealtTile), 1) * lookback::kStatusWords<T>) {
    words.fill(0);
  }
  const T* carry = nullptr;
  // Dealt out (deal): the tile statuses, every GPU's, this GPU's number, the run and the launch's epoch.
  DeviceBuffer<unsigned long long> words;
  std::vector<unsigned long long*> peers;
  unsigned device = 0, run = 1, epoch = 0;
};

template <class T, class Op>
PieceScan<T, Op>::PieceScan(std::size_t n) : impl_(std::make_unique<Impl>(n)) {}

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
  Impl& d = *impl_;
  if (!d.peers.empty()) {  // dealt out: every GPU's scan launched together, the same number of times
    if (n == 0) return;
    if (++d.epoch > lookback::kMaxEpoch) {  // (a stale status must never look current)
      d.words.fill(0);
      d.epoch = 1;
    }
    lookback::TileStatusArray status{nullptr, d.words.data(), d.epoch};
    status.devices = static_cast<unsigned>(d.peers.size());
    status.device = d.device;
    status.run = d.run;
    std::copy(d.peers.begin(), d.peers.end(), status.peers);
    launch(given_dealt_scan_kernel<T, Op>, {"given_dealt_scan_kernel", 1, kThreads, kThreads * sizeof(T)}, d_in,
           d_out, n, op, kind == ScanKind::exclusive, status);
    return;
  }
  launch(given_piece_scan_kernel<T, Op>, {"given_piece_scan_kernel", 1, kThreads, kThreads * sizeof(T)}, d_in, d_out,
         n, op, kind == ScanKind::exclusive, impl_->carry);
}

template <class T, class Op>
std::size_t PieceScan<T, Op>::dealt_tile() {
  return kDealtTile;
}

template <class T, class Op>
unsigned long long* PieceScan<T, Op>::status_words() {
  return impl_->words.data();
}

template <class T, class Op>
void PieceScan<T, Op>::deal(int device, const std::vector<unsigned long long*>& peers, unsigned run) {
  if (peers.empty() || peers.size() > static_cast<std::size_t>(lookback::kMaxDealtDevices) || device < 0 ||
      device >= static_cast<int>(peers.size())) {
    throw Error("the stand-in scan: tiles dealt out to " + std::to_string(peers.size()) + " GPUs (1 to " +
                std::to_string(lookback::kMaxDealtDevices) + "), this one " + std::to_string(device));
  }
  impl_->device = static_cast<unsigned>(device);
  impl_->run = std::max(run, 1u);
  impl_->peers = peers;
}

SCANLAB_PIECE_SCAN_INSTANTIATIONS()  // (piece_scan.hpp: every type and operator)

}  // inline namespace backend_cuda or backend_cpu
}  // namespace scanlab::s11_10
