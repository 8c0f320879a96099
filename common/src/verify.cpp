#include "scanlab/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

#include "scanlab/dispatch.hpp"
#include "scanlab/error.hpp"
#include "scanlab/memory.hpp"
#include "scanlab/reference.hpp"

namespace scanlab {
namespace {

template <class T>
bool is_poison(const T& value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  for (unsigned char b : bytes) {
    if (b != kPoisonByte) return false;
  }
  return true;
}

template <class T>
std::string show(T value) {
  std::ostringstream out;
  if constexpr (std::is_floating_point_v<T>) {
    out.precision(std::numeric_limits<T>::max_digits10);
  }
  if constexpr (sizeof(T) == 1) {
    out << static_cast<int>(value);
  } else {
    out << value;
  }
  return out.str();
}

template <class T, class Op>
VerifyResult check(const ScanProblem& p, const T* x, const T* y, Op op, std::size_t from) {
  const std::size_t n = p.n;
  VerifyResult result;
  std::ostringstream first;
  auto report = [&](std::size_t i, const std::string& got, const std::string& expected,
                    const std::string& extra) {
    ++result.wrong;
    if (result.wrong == 1) {
      first << "element " << i << " of " << n << " is " << got << ", expected " << expected << extra;
      // An exclusive scan's first element includes no input: a kernel that starts from 0 (a sum's
      // identity) or from x[0] instead of Op::identity() is wrong there first.
      if (i == 0 && p.kind == ScanKind::exclusive && got.rfind("never written", 0) != 0) {
        first << " (the first element of an exclusive scan is the operator's identity, Op::identity(), "
              << expected << " here)";
      }
    }
  };

  constexpr bool kTolerant = std::is_floating_point_v<T> && std::is_same_v<Op, Add<T>>;
  if constexpr (kTolerant) {
    // Reference in double, and the error bound of each prefix (see verify.hpp).
    double running = 0, abs_sum = 0;
    const double eps = std::numeric_limits<T>::epsilon();
    for (std::size_t i = 0; i < n; ++i) {
      double ref = running, bound_sum = abs_sum;
      std::size_t terms = i;
      if (p.kind == ScanKind::inclusive) {
        ref += static_cast<double>(x[i]);
        bound_sum += std::fabs(static_cast<double>(x[i]));
        terms = i + 1;
      }
      const double tolerance = static_cast<double>(terms + 1) * eps * bound_sum;
      const double got = static_cast<double>(y[i]);
      if (i < from) {  // (not compared: the prefix before the part checked)
      } else if (is_poison(y[i])) {
        ++result.unwritten;
        report(i, "never written (it still holds the poison pattern)", show(ref), "");
      } else if (!(std::fabs(got - ref) <= tolerance)) {  // also catches NaN
        std::ostringstream extra;
        extra << " (error " << std::fabs(got - ref) << " > tolerance " << tolerance << ")";
        report(i, show(y[i]), show(ref), extra.str());
      }
      running += static_cast<double>(x[i]);
      abs_sum += std::fabs(static_cast<double>(x[i]));
    }
  } else {
    std::vector<T> ref(n);
    reference_scan(x, ref.data(), n, op, p.kind);
    for (std::size_t i = from; i < n; ++i) {
      // Compare bytes for floats too: max/min/last never round, and this makes NaN fail.
      if (std::memcmp(&y[i], &ref[i], sizeof(T)) == 0) continue;
      if (is_poison(y[i]) && !is_poison(ref[i])) {
        ++result.unwritten;
        report(i, "never written (it still holds the poison pattern)", show(ref[i]), "");
      } else {
        report(i, show(y[i]), show(ref[i]), "");
      }
    }
  }

  result.passed = result.wrong == 0;
  if (!result.passed) {
    std::ostringstream message;
    message << name(p.type) << " " << name(p.op) << " " << name(p.kind) << " scan, n = " << n << ": "
            << first.str() << "; " << result.wrong << " of " << n << " elements wrong";
    if (result.unwritten > 0) {
      message << ", " << result.unwritten << " never written";
      if (result.unwritten == n - from) message << " (did the kernel store anything? look for TODO(student))";
    }
    result.message = message.str();
  }
  return result;
}

}  // namespace

VerifyResult verify_scan(const ScanProblem& problem, const void* input, const void* output, std::size_t from) {
  return visit_type_op(problem.type, problem.op, [&](auto type, auto op) {
    using T = typename decltype(type)::type;
    return check(problem, static_cast<const T*>(input), static_cast<const T*>(output), op, from);
  });
}

VerifyResult verify_sections(const ScanProblem& problem, const void* input, const void* output,
                             std::size_t section) {
  if (section == 0) throw Error("verify_sections: a section of 0 elements");
  const std::size_t bytes = size_of(problem.type);
  VerifyResult all{true, 0, 0, ""};
  for (std::size_t first = 0; first < problem.n; first += section) {
    ScanProblem part = problem;
    part.n = std::min(section, problem.n - first);
    const VerifyResult v = verify_scan(part, static_cast<const char*>(input) + first * bytes,
                                       static_cast<const char*>(output) + first * bytes);
    all.wrong += v.wrong;
    all.unwritten += v.unwritten;
    if (!v.passed && all.passed) {
      all.passed = false;
      all.message = "section " + std::to_string(first / section) + " (elements " + std::to_string(first) +
                    " to " + std::to_string(first + part.n - 1) + "): " + v.message;
    }
  }
  return all;
}

}  // namespace scanlab
