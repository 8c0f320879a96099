/// \file out_of_core_scan.hpp
/// \brief Section 11.10: a scan of an array in host memory larger than the GPU's, on one GPU. The
/// array goes through the GPU in pieces, each in one of three GPU buffers, so that three things
/// overlap: piece k+1 is copied in while piece k is scanned and piece k-1 is copied back. Each piece
/// is scanned by section 11.8's scan starting from the carry of the pieces before it (its carry in:
/// the chapter's hierarchical idea once more, with the pieces in time instead of space), and its
/// total, which includes that carry, is the next piece's carry (piece_total_kernel).
///
/// Three streams: the copies in, the scans (the device's default stream, where 11.8's scan runs) and
/// the copies back; events order them:
///   copy in k    waits until the copy back of k-3 (the same buffer) is done;
///   scan k       waits until copy in k is done (and, on its own stream, for scan k-1 and its carry);
///   copy back k  waits until scan k is done.
/// Used by launch.cpp (both backends) and by the out-of-core program. You do not need to change this file.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>

#include "multi_gpu.cuh"
#include "piece_scan.hpp"  // section 11.8's scan, with its carry in
#include "scanlab/launcher.hpp"

namespace scanlab::s11_10 {

/// What a pass over the array does on the GPU: scan it, or only copy it in and back (the baseline
/// the out-of-core scan is measured against: the same bytes over the same links).
enum class Pass { scan, copy_only };

template <class T, class Op>
class OutOfCoreScan {
  static constexpr std::size_t kBuffers = 3;

 public:
  /// Pieces of `piece` elements (the last may be shorter), in GPU memory of the current device.
  explicit OutOfCoreScan(std::size_t piece)
      : piece_(std::max<std::size_t>(piece, 1)),
        buffers_{DeviceBuffer<T>(piece_), DeviceBuffer<T>(piece_), DeviceBuffer<T>(piece_)},
        carries_{DeviceBuffer<T>(1), DeviceBuffer<T>(1)},
        last_input_(1),
        scan_(piece_) {}

  std::size_t piece() const { return piece_; }
  /// Bytes of GPU memory for pieces of `piece` elements: the three buffers and 11.8's workspace.
  static std::size_t bytes_on_device(std::size_t piece) {
    return kBuffers * std::max<std::size_t>(piece, 1) * sizeof(T) + PieceScan<T, Op>::workspace_bytes(piece);
  }

  /// Scans the host array in[0..n) into out[0..n) (out may be in). Returns when every piece is back.
  void operator()(const T* in, T* out, std::size_t n, Op op, ScanKind kind, Pass pass = Pass::scan) {
    const bool exclusive = kind == ScanKind::exclusive;
    const std::size_t pieces = (n + piece_ - 1) / piece_;
    begin_.record();
    begin_.wait(&in_stream_);  // (a timer started on the default stream covers the first copy in)
    for (std::size_t k = 0; k < pieces; ++k) {
      const std::size_t b = k % kBuffers, first = k * piece_, m = std::min(piece_, n - first);
      T* buffer = buffers_[b].data();
      if (k >= kBuffers) copied_back_[b].wait(&in_stream_);  // the buffer's previous piece is out
      copy_async(buffer, in + first, m, &in_stream_);
      copied_in_[b].record(&in_stream_);

      copied_in_[b].wait();  // the default stream: scan piece k
      if (pass == Pass::scan) {
        const T* carry_in = k == 0 ? nullptr : carries_[k % 2].data();
        T* total = carries_[(k + 1) % 2].data();  // the carry of piece k + 1
        if (exclusive) copy_async(last_input_.data(), buffer + m - 1, 1);
        scan_.set_carry_in(carry_in);
        scan_(buffer, buffer, m, op, kind);
        launch(piece_total_kernel<T, Op>, {"piece_total_kernel", 1, 1}, static_cast<const T*>(buffer),
               static_cast<const T*>(last_input_.data()), m, op, exclusive, total);
      }
      scanned_[b].record();

      scanned_[b].wait(&out_stream_);
      copy_async(out + first, static_cast<const T*>(buffer), m, &out_stream_);
      copied_back_[b].record(&out_stream_);
    }
    if (pieces > 0) copied_back_[(pieces - 1) % kBuffers].wait();  // (copies back run in order)
    synchronize();
  }

 private:
  std::size_t piece_;
  std::array<DeviceBuffer<T>, kBuffers> buffers_;
  std::array<DeviceBuffer<T>, 2> carries_;  // piece k's carry in, and its total: piece k + 1's
  DeviceBuffer<T> last_input_;              // an exclusive scan's piece total needs its last input
  PieceScan<T, Op> scan_;
  Stream in_stream_, out_stream_;
  Event begin_;
  std::array<Event, kBuffers> copied_in_, scanned_, copied_back_;
};

}  // namespace scanlab::s11_10
