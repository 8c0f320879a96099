#include "scanlab/types.hpp"

#include <array>
#include <utility>

namespace scanlab {
namespace {
template <class E, std::size_t N>
std::optional<E> find(const std::array<std::pair<E, const char*>, N>& names, std::string_view text) {
  for (const auto& [value, n] : names) {
    if (text == n) return value;
  }
  return std::nullopt;
}
template <class E, std::size_t N>
const char* lookup(const std::array<std::pair<E, const char*>, N>& names, E value) {
  for (const auto& [v, n] : names) {
    if (v == value) return n;
  }
  return "?";
}
constexpr std::array<std::pair<DType, const char*>, 5> kTypeNames{{{DType::int32, "int32"},
                                                                   {DType::uint32, "uint32"},
                                                                   {DType::int64, "int64"},
                                                                   {DType::float32, "float"},
                                                                   {DType::float64, "double"}}};
constexpr std::array<std::pair<OpKind, const char*>, 4> kOpNames{
    {{OpKind::add, "add"}, {OpKind::max, "max"}, {OpKind::min, "min"}, {OpKind::last, "last"}}};
constexpr std::array<std::pair<Backend, const char*>, 2> kBackendNames{
    {{Backend::cuda, "cuda"}, {Backend::cpu, "cpu"}}};
}  // namespace

const char* name(DType t) { return lookup(kTypeNames, t); }
const char* name(OpKind o) { return lookup(kOpNames, o); }
const char* name(ScanKind k) { return k == ScanKind::inclusive ? "inclusive" : "exclusive"; }
const char* name(Backend b) { return lookup(kBackendNames, b); }
std::optional<DType> parse_dtype(std::string_view text) { return find(kTypeNames, text); }
std::optional<OpKind> parse_op(std::string_view text) { return find(kOpNames, text); }
std::optional<Backend> parse_backend(std::string_view text) { return find(kBackendNames, text); }

std::size_t size_of(DType t) {
  switch (t) {
    case DType::int32:
    case DType::uint32:
    case DType::float32: return 4;
    case DType::int64:
    case DType::float64: break;
  }
  return 8;
}
bool is_floating(DType t) { return t == DType::float32 || t == DType::float64; }

}  // namespace scanlab
