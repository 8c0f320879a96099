// Section 11.10's given code: PieceScan (piece_scan.hpp) on section 11.8's persistent scan, for every
// element type and operator a scan takes. Compiled once per backend into the given library
// (scanlab_add_section's GIVEN), from 11.8's chapter and solution folders.
#include "piece_scan.hpp"

#include <cstdint>

#include "persistent_scan.hpp"
#include "scanlab/ops.hpp"

namespace scanlab::s11_10 {
#if defined(SCANLAB_BACKEND_CUDA)
inline namespace backend_cuda {
#else
inline namespace backend_cpu {
#endif

template <class T, class Op>
struct PieceScan<T, Op>::Impl {
  explicit Impl(std::size_t n) : scan(n) {}
  s11_8::PersistentScan<T, Op> scan;
};

template <class T, class Op>
PieceScan<T, Op>::PieceScan(std::size_t n) : impl_(std::make_unique<Impl>(n)) {}

template <class T, class Op>
PieceScan<T, Op>::~PieceScan() = default;

template <class T, class Op>
std::size_t PieceScan<T, Op>::workspace_bytes(std::size_t n) {
  return s11_8::PersistentScan<T, Op>::workspace_bytes(n);
}

template <class T, class Op>
void PieceScan<T, Op>::set_carry_in(const T* d_carry) {
  impl_->scan.set_carry_in(d_carry);
}

template <class T, class Op>
void PieceScan<T, Op>::operator()(const T* d_in, T* d_out, std::size_t n, Op op, ScanKind kind) {
  impl_->scan(d_in, d_out, n, op, kind);
}

template <class T, class Op>
std::size_t PieceScan<T, Op>::dealt_tile() {
  return s11_8::PersistentScan<T, Op>::kTile;
}

template <class T, class Op>
unsigned long long* PieceScan<T, Op>::status_words() {
  return impl_->scan.status_words();
}

template <class T, class Op>
void PieceScan<T, Op>::deal(int device, const std::vector<unsigned long long*>& peers, unsigned run) {
  impl_->scan.deal(device, peers, run);
}

SCANLAB_PIECE_SCAN_INSTANTIATIONS()  // (piece_scan.hpp: every type and operator)

}  // inline namespace backend_cuda or backend_cpu
}  // namespace scanlab::s11_10
