/// \file app_check.hpp
/// \brief Section 11.9's inputs and CPU references, shared by the program and the grading tests:
/// the book's example, seeded random keys, sizes and head flags, and the check of each application's
/// output against the sequential algorithm (std::copy_if, std::stable_partition, std::stable_sort, a
/// serial allocation and segmented scan). Host code only.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "apps.hpp"
#include "scanlab/dispatch.hpp"
#include "scanlab/inputs.hpp"

namespace scanlab::s11_9 {

/// The book's sausage orders (Sec. 11.1): eight people ask for 3, 1, 7, 0, 4, 1, 6 and 3 inches.
inline const std::vector<std::int32_t> kBookExample = {3, 1, 7, 0, 4, 1, 6, 3};
/// Head flags for the book's example in the segmented scan: segments [3 1] [7 0 4] [1 6 3].
inline const std::vector<std::uint32_t> kBookHeads = {1, 0, 1, 0, 0, 1, 0, 0};

/// Everything an application needs besides the request's options, made from one input array.
struct AppInput {
  HostArray values;                  ///< the elements (compaction, partition, segmented scan)
  std::vector<std::uint32_t> keys;   ///< radix_sort: the low 32 bits of each element
  std::vector<std::uint32_t> sizes;  ///< allocate: |value| mod 16, or the values themselves (book)
  std::vector<std::uint32_t> heads;  ///< segmented_scan
  double pivot = 0;                  ///< the median element: about half are kept
};

/// Seeded head flags: element 0 and about one in `every` others start a segment.
inline std::vector<std::uint32_t> random_heads(std::size_t n, unsigned every, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> heads(n);
  for (std::size_t i = 0; i < n; ++i) heads[i] = i == 0 || rng() % every == 0 ? 1u : 0u;
  return heads;
}

inline double element(const HostArray& a, std::size_t i) {
  return visit_type(a.type(), [&](auto t) { return static_cast<double>(a.as<typename decltype(t)::type>()[i]); });
}

/// Derives keys, sizes, heads and the pivot from `values`.
inline AppInput make_app_input(HostArray values, std::uint64_t seed) {
  AppInput in;
  const std::size_t n = values.size();
  const std::size_t bytes = size_of(values.type());
  in.keys.resize(n);
  in.sizes.resize(n);
  std::vector<double> sorted(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::memcpy(&in.keys[i], static_cast<const unsigned char*>(values.data()) + i * bytes, 4);
    const double v = element(values, i);
    sorted[i] = v;
    in.sizes[i] = static_cast<std::uint32_t>(static_cast<long long>(std::fabs(v)) % 16);
  }
  in.heads = random_heads(n, 4, seed);
  if (n > 0) {
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(n / 2), sorted.end());
    in.pivot = sorted[n / 2];
  }
  in.values = std::move(values);
  return in;
}

/// The book's example as an AppInput of `type` (its head flags, and the orders as sizes).
inline AppInput book_input(DType type) {
  HostArray values(type, kBookExample.size());
  visit_type(type, [&](auto t) {
    using T = typename decltype(t)::type;
    for (std::size_t i = 0; i < kBookExample.size(); ++i) values.as<T>()[i] = static_cast<T>(kBookExample[i]);
  });
  AppInput in = make_app_input(std::move(values), 1);
  in.heads = kBookHeads;
  return in;
}

/// The request for `app` on `in` (type: the values' type, or uint32 for radix_sort and allocate).
inline Request make_request(App app, const AppInput& in, OpKind op, ScanKind kind) {
  Request r;
  r.app = app;
  r.type = in.values.type();
  r.op = op;
  r.kind = kind;
  r.n = in.values.size();
  r.input = in.values.data();
  r.pivot = in.pivot;
  r.heads = in.heads.data();
  if (app == App::radix_sort) {
    r.type = DType::uint32;
    r.input = in.keys.data();
  } else if (app == App::allocate) {
    r.type = DType::uint32;
    r.input = in.sizes.data();
  }
  return r;
}

/// The right answer to `r`, of its type T and operator Op: the output's elements, and its count (kept
/// elements or slots; n for the others); `tolerance` (segmented float add): each element's error bound.
template <class T, class Op>
std::vector<T> expected_output(const Request& r, Op op, std::size_t& expected_count, std::vector<double>& tolerance) {
  const T* x = static_cast<const T*>(r.input);
  const std::size_t n = r.n;
  std::vector<T> expected;
  expected_count = n;
  switch (r.app) {
    case App::compact:
    case App::compact_single_pass:
    case App::partition:
    case App::partition_single_pass:
    case App::compact_persistent:
    case App::partition_persistent: {
      const T pivot = static_cast<T>(r.pivot);
      const auto keep = [&](T v) { return v < pivot; };
      std::copy_if(x, x + n, std::back_inserter(expected), keep);
      expected_count = expected.size();
      if (r.app == App::partition || r.app == App::partition_single_pass || r.app == App::partition_persistent) {
        std::copy_if(x, x + n, std::back_inserter(expected), [&](T v) { return !keep(v); });
      }
      break;
    }
    case App::radix_sort:
      expected.assign(x, x + n);
      std::stable_sort(expected.begin(), expected.end());
      break;
    case App::allocate:
      for (std::size_t i = 0; i < n; ++i) expected.insert(expected.end(), static_cast<std::size_t>(x[i]), static_cast<T>(i));
      expected_count = expected.size();
      break;
    case App::segmented_scan: {
      T running = Op::identity();
      double magnitude = 0;
      std::size_t terms = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (i == 0 || r.heads[i] != 0) running = Op::identity(), magnitude = 0, terms = 0;
        if (r.kind == ScanKind::exclusive) expected.push_back(running);
        if (r.kind == ScanKind::exclusive) tolerance.push_back((terms + 1) * magnitude);
        running = op(running, x[i]);
        magnitude += std::fabs(static_cast<double>(x[i]));
        ++terms;
        if (r.kind == ScanKind::inclusive) expected.push_back(running);
        if (r.kind == ScanKind::inclusive) tolerance.push_back((terms + 1) * magnitude);
      }
      break;
    }
  }
  return expected;
}

/// The right answer to `r` as an array of its type (expected_output), for a report.
inline HostArray expected_array(const Request& r) {
  return visit_type_op(r.type, r.op, [&](auto type, auto op) {
    using T = typename decltype(type)::type;
    std::size_t count = 0;
    std::vector<double> tolerance;
    const std::vector<T> expected = expected_output<T>(r, op, count, tolerance);
    HostArray a(r.type, expected.size());
    std::copy(expected.begin(), expected.end(), a.as<T>());
    return a;
  });
}

/// "" if `out` is the right answer to `r`, else what is wrong (the first wrong element).
inline std::string check_result(const Request& r, const Result& out) {
  return visit_type_op(r.type, r.op, [&](auto type, auto op) -> std::string {
    using T = typename decltype(type)::type;
    std::size_t expected_count = 0;
    std::vector<double> tolerance;  // segmented float add only
    const std::vector<T> expected = expected_output<T>(r, op, expected_count, tolerance);
    if (out.count != expected_count) {
      return "the count is " + std::to_string(out.count) + ", expected " + std::to_string(expected_count);
    }
    if (out.output.size() != expected.size() * sizeof(T)) {
      return "the output has " + std::to_string(out.output.size() / sizeof(T)) + " elements, expected " +
             std::to_string(expected.size());
    }
    const bool approximate = std::is_floating_point_v<T> && r.app == App::segmented_scan && r.op == OpKind::add;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      T got;
      std::memcpy(&got, out.output.data() + i * sizeof(T), sizeof(T));
      bool ok = got == expected[i];
      if (approximate) {
        const double eps = std::numeric_limits<T>::epsilon();
        // Both sums may be off by (k + 1) eps sum|x| (see scanlab/verify.hpp): twice that apart.
        ok = std::fabs(static_cast<double>(got) - static_cast<double>(expected[i])) <= 2 * eps * tolerance[i];
      }
      if (!ok) {
        return "element " + std::to_string(i) + " is " + std::to_string(got) + ", expected " +
               std::to_string(expected[i]);
      }
    }
    return "";
  });
}

}  // namespace scanlab::s11_9
