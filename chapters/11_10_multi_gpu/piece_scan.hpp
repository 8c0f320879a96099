/// \file piece_scan.hpp
/// \brief Section 11.10: one GPU's piece scanned by section 11.8's persistent scan (PersistentScan),
/// behind a declaration only. The scan is given, not graded here: it is compiled once per backend into
/// the section's given library (piece_scan.cpp, scanlab_11_10_given_<backend>), which every 11.10
/// kernel library links, so neither a build of this section nor a student's code compiles or reads
/// 11.8's kernel. You do not need to change this file.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "scanlab/algorithm.hpp"  // SCANLAB_EXPORT
#include "scanlab/types.hpp"      // ScanKind

namespace scanlab::s11_10 {
// One name per backend: a program links the cuda and the cpu given library at once, and the loader
// would bind both backends' calls to the first one's exported PieceScan.
#if defined(SCANLAB_BACKEND_CUDA)
inline namespace backend_cuda {
#else
inline namespace backend_cpu {
#endif

/// Scans of up to n elements of T on the current GPU: 11.8's tuned persistent scan with its workspace.
template <class T, class Op>
class SCANLAB_EXPORT PieceScan {
 public:
  explicit PieceScan(std::size_t n);
  ~PieceScan();
  PieceScan(const PieceScan&) = delete;
  PieceScan& operator=(const PieceScan&) = delete;

  /// Bytes of GPU memory the workspace for n elements takes.
  static std::size_t workspace_bytes(std::size_t n);
  /// The value in this GPU's memory that later scans start from, as the prefix before their first
  /// element (the carry in); null: none, the operator's identity.
  void set_carry_in(const T* d_carry);
  /// One scan of d_in[0..n) into d_out (may be d_in): one kernel launch.
  void operator()(const T* d_in, T* d_out, std::size_t n, Op op, ScanKind kind);

  /// The look-back across GPUs (MultiGpuScan's look_back way): the tile, in elements, of 11.8's large shape,
  /// by whose runs an array is dealt out to the GPUs in turn.
  static std::size_t dealt_tile();
  /// This scan's tile statuses in its GPU's memory, which the other GPUs' look-backs read.
  unsigned long long* status_words();
  /// Later scans scan GPU `device`'s tiles of an array dealt out to peers.size() GPUs in runs of `run`
  /// tiles (run r on GPU r % G), looking back over every GPU's statuses (`peers`: each GPU's
  /// status_words(), in GPU order).
  void deal(int device, const std::vector<unsigned long long*>& peers, unsigned run);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // inline namespace backend_cuda or backend_cpu
}  // namespace scanlab::s11_10

// The element types of visit_type and the operators of visit_type_op (scanlab/dispatch.hpp), for which a
// file that defines PieceScan (the section's piece_scan.cpp, the release's stand-in) compiles it: a
// type added there and not here fails the link with PieceScan<new type, ...> undefined. SCANLAB_EXPORT
// on each: the operators are hidden types, which would hide the instantiation too.
#define SCANLAB_PIECE_SCAN_OPS(T)                       \
  template class SCANLAB_EXPORT PieceScan<T, Add<T>>;   \
  template class SCANLAB_EXPORT PieceScan<T, Max<T>>;   \
  template class SCANLAB_EXPORT PieceScan<T, Min<T>>;   \
  template class SCANLAB_EXPORT PieceScan<T, Last<T>>;
#define SCANLAB_PIECE_SCAN_INSTANTIATIONS()  \
  SCANLAB_PIECE_SCAN_OPS(std::int32_t)       \
  SCANLAB_PIECE_SCAN_OPS(std::uint32_t)      \
  SCANLAB_PIECE_SCAN_OPS(std::int64_t)       \
  SCANLAB_PIECE_SCAN_OPS(float)              \
  SCANLAB_PIECE_SCAN_OPS(double)
