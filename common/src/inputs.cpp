#include "scanlab/inputs.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include "scanlab/dispatch.hpp"
#include "scanlab/error.hpp"
#include "scanlab/options.hpp"

namespace scanlab {

void HostArray::fill_bytes(unsigned char byte) {
  // (An empty vector's data() may be null, and memset on null is undefined even for 0 bytes.)
  if (!words_.empty()) std::memset(words_.data(), byte, words_.size() * sizeof(std::uint64_t));
}

namespace {

template <class T>
T draw(std::mt19937_64& rng, OpKind op) {
  if constexpr (std::is_floating_point_v<T>) {
    const T range = op == OpKind::add ? T(1) : T(1000);
    return std::uniform_real_distribution<T>(-range, range)(rng);
  } else if constexpr (std::is_unsigned_v<T>) {
    if (op == OpKind::add) return static_cast<T>(rng());
    return static_cast<T>(std::uniform_int_distribution<std::uint64_t>(1, 2'000'000)(rng));
  } else {
    // (Signed add never comes here: make_input draws it as a bounded walk.) int64 values reach far
    // beyond 32 bits, so a kernel that narrows them to int gives a wrong max, min or last.
    const T range = sizeof(T) == 8 ? static_cast<T>(std::int64_t{1} << 40) : T{1'000'000};
    return std::uniform_int_distribution<T>(-range, range)(rng);
  }
}

template <class T>
void walk(T* out, std::size_t n, T bound, T limit, std::uint64_t seed) {
  if (bound < 0 || bound > limit) {
    throw Error("bounded_walk: the bound " + std::to_string(bound) + " must lie in [0, limit " +
                std::to_string(limit) + "]");
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<T> draw(-bound, bound);
  T sum = 0;  // |sum| <= limit and |x| <= bound <= limit, so sum + x and sum - x cannot overflow
  for (std::size_t i = 0; i < n; ++i) {
    T x = draw(rng);
    // If sum + x leaves [-limit, limit] on one side, sum - x lies within it: say sum + x > limit;
    // then x > 0, so sum - x < sum <= limit, and sum - x > limit - 2x >= -limit as x <= limit.
    if (sum + x > limit || sum + x < -limit) x = static_cast<T>(-x);
    sum = static_cast<T>(sum + x);
    out[i] = x;
  }
}

}  // namespace

void bounded_walk(std::int32_t* out, std::size_t n, std::int32_t bound, std::int32_t limit, std::uint64_t seed) {
  walk(out, n, bound, limit, seed);
}

void bounded_walk(std::int64_t* out, std::size_t n, std::int64_t bound, std::int64_t limit, std::uint64_t seed) {
  walk(out, n, bound, limit, seed);
}

HostArray make_input(DType type, OpKind op, std::size_t n, std::uint64_t seed) {
  HostArray array(type, n);
  std::mt19937_64 rng(seed);
  visit_type_op(type, op, [&](auto t, auto op_object) {
    using T = typename decltype(t)::type;
    T* x = array.as<T>();
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      if (op == OpKind::add) {
        bounded_walk(x, n, signed_add_bound<T>(), signed_add_limit<T>(), seed);
        return;
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      const bool none = op == OpKind::last && i > 0 && (rng() & 1) != 0;
      x[i] = none ? decltype(op_object)::identity() : draw<T>(rng, op);
    }
  });
  return array;
}

namespace {

/// Parses one value of --input into `out`; false when `text` is not a valid T.
template <class T>
bool parse_value(const std::string& text, T& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  if constexpr (std::is_floating_point_v<T>) {
    const double v = std::strtod(text.c_str(), &end);
    if (*end != '\0' || errno == ERANGE || !std::isfinite(v)) return false;
    if (std::is_same_v<T, float> && std::fabs(v) > std::numeric_limits<float>::max()) return false;
    out = static_cast<T>(v);
  } else if constexpr (std::is_unsigned_v<T>) {
    if (text.find('-') != std::string::npos) return false;  // strtoull would wrap "-1"
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || v > std::numeric_limits<T>::max()) return false;
    out = static_cast<T>(v);
  } else {
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
      return false;
    }
    out = static_cast<T>(v);
  }
  return true;
}

}  // namespace

HostArray parse_input(DType type, const std::string& list) {
  std::vector<std::string> texts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = list.find(',', start);
    std::string text = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    text.erase(0, text.find_first_not_of(" \t"));
    text.erase(text.find_last_not_of(" \t") + 1);
    texts.push_back(text);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  HostArray array(type, texts.size());
  visit_type(type, [&](auto t) {
    using T = typename decltype(t)::type;
    T* x = array.as<T>();
    for (std::size_t i = 0; i < texts.size(); ++i) {
      if (!parse_value(texts[i], x[i])) {
        throw UsageError("--input: value " + std::to_string(i + 1) + " '" + texts[i] + "' is not a valid " +
                         std::string(name(type)) + " (give comma-separated numbers, e.g. --input 4,6,7,1)");
      }
    }
  });
  return array;
}

}  // namespace scanlab
