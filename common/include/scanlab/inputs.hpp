/// \file inputs.hpp
/// \brief Seeded random inputs, chosen per type and operator so that every check is meaningful.
///
/// Policies (tested in common/tests):
/// - add, signed integers (int32, int64): values drawn uniformly from [-B, B] as a bounded walk
///   (bounded_walk below), B = signed_add_bound<T>(): 100 for int32, 2^40 for int64. A value that
///   would take the running sum past L = max(T) / 2 either way is negated instead. Every prefix sum,
///   inclusive or exclusive, then stays in [-L, L], and every sum of a contiguous range x[a..b] (a
///   difference of two prefixes; the partial sums of any scan, serial or parallel, are such range
///   sums) in [-2L, 2L], within the type: no sum overflows, whatever n is. While n * B <= L no value
///   can be negated, so the values are the plain uniform draws; a random walk of such steps does
///   not come near L at any size memory holds. int64 values are far beyond 32 bits, so a kernel
///   that keeps an element or a running sum in `int` instead of T fails (Verify.NarrowingToIntFails).
///   (Signed overflow is undefined behaviour in C++ and CUDA alike; the kernels' Add wraps, see
///   ops.hpp, but correct kernels are never tested on an overflow.)
///   Tested: Inputs.SignedAddInputsCannotOverflow, Inputs.BoundedWalkKeepsEveryPrefixWithinItsLimit,
///   Inputs.SignedAddInputsAreUniformDrawsWhileFarFromTheLimit.
/// - add, uint32: any value; sums wrap modulo 2^32, which unsigned arithmetic defines.
/// - add, floating point: uniform in [-1, 1]: almost never whole numbers, so a kernel that keeps a
///   value in `int` fails, and small enough that the float tolerance (verify.hpp) stays tight.
/// - max, min: values spread over a wide range (int32 up to +-10^6, int64 up to +-2^40, floats up
///   to +-1000, not whole), never the identity.
/// - last: about half the elements are the marker "none" (the operator's identity), the rest values,
///   so the scan really carries values forward; element 0 is a value.
/// The same (type, op, n, seed) always gives the same input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
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

/// The largest value a signed add input draws (the bound of its uniform draw): 100 for int32 (sums
/// a reader can follow), 2^40 for int64 (far beyond 32 bits: narrowing to `int` shows).
template <class T>
constexpr T signed_add_bound() {
  return sizeof(T) == 8 ? static_cast<T>(std::int64_t{1} << 40) : T{100};
}

/// The limit make_input keeps every prefix sum of signed add inputs within: max(T) / 2, so that a
/// difference of two prefixes, the sum of any contiguous range, is at most 2 * (max(T) / 2) <= max(T).
template <class T>
constexpr T signed_add_limit() {
  return std::numeric_limits<T>::max() / 2;
}

/// The generator of signed add inputs, here so that its limit can be tested small: writes n values
/// drawn uniformly from [-bound, bound] (std::uniform_int_distribution<T> on std::mt19937_64(seed));
/// a value that would take the running sum out of [-limit, limit] is written negated instead, which
/// always brings it back since bound <= limit. So every prefix sum x[0] + ... + x[i] stays in
/// [-limit, limit] for any n. While n * bound <= limit no value is ever negated: the output is the
/// plain uniform draws. Throws scanlab::Error unless 0 <= bound <= limit. make_input calls it with
/// bound signed_add_bound<T>() and limit signed_add_limit<T>().
void bounded_walk(std::int32_t* out, std::size_t n, std::int32_t bound, std::int32_t limit, std::uint64_t seed);
void bounded_walk(std::int64_t* out, std::size_t n, std::int64_t bound, std::int64_t limit, std::uint64_t seed);

/// The elements written in `list`, comma-separated (blanks allowed), as `type`: the program's
/// `--input 4,6,7,1,2,8,5,2`. Throws UsageError naming the first value that is not a `type` (not a
/// number, a fraction for an integer type, or out of its range).
HostArray parse_input(DType type, const std::string& list);

}  // namespace scanlab
