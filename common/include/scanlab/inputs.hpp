/// \file inputs.hpp
/// \brief Seeded random inputs, chosen per type and operator so that every check is meaningful.
///
/// Policies (tested in common/tests):
/// - add, signed integers: values in [-B, B] with B = min(100, INT_MAX / n), so no prefix can
///   overflow (signed overflow is undefined behaviour in C++ and CUDA alike).
/// - add, uint32: any value; sums wrap modulo 2^32, which unsigned arithmetic defines.
/// - add, floating point: uniform in [-1, 1].
/// - max, min: values spread over a wide range (integers up to +-10^6), never the identity.
/// - last: about half the elements are the marker "none" (the operator's identity), the rest values,
///   so the scan really carries values forward; element 0 is a value.
/// The same (type, op, n, seed) always gives the same input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "scanlab/types.hpp"

namespace scanlab {

/// A host array of n elements of a run-time type: raw bytes, 16-byte aligned.
class HostArray {
 public:
  HostArray() = default;
  HostArray(DType type, std::size_t n) : type_(type), n_(n), words_((n * size_of(type) + 15) / 16 * 2) {}
  DType type() const { return type_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * size_of(type_); }
  void* data() { return words_.data(); }
  const void* data() const { return words_.data(); }
  template <class T>
  T* as() { return reinterpret_cast<T*>(words_.data()); }
  template <class T>
  const T* as() const { return reinterpret_cast<const T*>(words_.data()); }
  /// Fills every byte with `byte` (the poison pattern, say).
  void fill_bytes(unsigned char byte);

 private:
  DType type_ = DType::int32;
  std::size_t n_ = 0;
  std::vector<std::uint64_t> words_;
};

/// n seeded random elements suited to `op` (see the policies above).
HostArray make_input(DType type, OpKind op, std::size_t n, std::uint64_t seed);

/// The elements written in `list`, comma-separated (blanks allowed), as `type`: the program's
/// `--input 4,6,7,1,2,8,5,2`. Throws UsageError naming the first value that is not a `type` (not a
/// number, a fraction for an integer type, or out of its range).
HostArray parse_input(DType type, const std::string& list);

}  // namespace scanlab
