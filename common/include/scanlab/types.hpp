/// \file types.hpp
/// \brief The choices every section program and test shares: element type, operator, inclusive or
/// exclusive, backend. Names are the ones the command line uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace scanlab {

/// Element types the lab scans.
enum class DType { int32, uint32, int64, float32, float64 };
/// Associative operators (see ops.hpp).
enum class OpKind { add, max, min, last };
/// Inclusive: y[i] = x[0] (+) ... (+) x[i]. Exclusive: y[0] = identity, y[i] = x[0] (+) ... (+) x[i-1].
enum class ScanKind { inclusive, exclusive };
/// Where kernels run: a real GPU, or scanlab's SIMT emulator on the CPU.
enum class Backend { cuda, cpu };

inline constexpr DType kAllTypes[] = {DType::int32, DType::uint32, DType::int64, DType::float32,
                                      DType::float64};
inline constexpr OpKind kAllOps[] = {OpKind::add, OpKind::max, OpKind::min, OpKind::last};
inline constexpr ScanKind kAllKinds[] = {ScanKind::inclusive, ScanKind::exclusive};

/// Command-line names: int32 uint32 int64 float double.
const char* name(DType t);
/// add max min last
const char* name(OpKind o);
/// inclusive exclusive
const char* name(ScanKind k);
/// cuda cpu
const char* name(Backend b);

std::optional<DType> parse_dtype(std::string_view text);
std::optional<OpKind> parse_op(std::string_view text);
std::optional<Backend> parse_backend(std::string_view text);

/// Bytes of one element.
std::size_t size_of(DType t);
bool is_floating(DType t);

}  // namespace scanlab
