/// \file memory.hpp
/// \brief The poison byte, and the check that refuses a problem too large for memory before anything
/// is allocated.
#pragma once

#include <cstddef>
#include <string>

namespace scanlab {

/// Output buffers and the emulator's shared memory are filled with this byte before a kernel runs,
/// so an element that nothing wrote is recognisable (verification reports it as "never written").
inline constexpr unsigned char kPoisonByte = 0xCD;

/// Bytes of host memory available now (MemAvailable), or a large number if unknown.
std::size_t available_host_memory();

/// The host CPU's model name (from /proc/cpuinfo), for reports.
std::string host_cpu_name();

/// Throws scanlab::Error, saying how much is needed and how much there is, if `needed` > `available`.
void check_fits(std::size_t needed, std::size_t available, const char* what);

}  // namespace scanlab
