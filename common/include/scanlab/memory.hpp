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

/// cpu backend: "device" allocations are host memory between two guard zones filled with
/// kDeviceGuardByte, at least kDeviceGuardBytes before the array and up to 15 bytes after it (the padding
/// to 16-byte alignment); after every launch the harness checks them (check_device_guards). Beyond
/// them lie guard pages (PROT_NONE, up to 32 GiB on either side), registered with the emulator: a
/// kernel's read or write there fails its launch with a "memory error:" naming the block, thread and
/// line (common/emu/src/memory_fault.cpp). Under ASan and TSan, guard zones of kDeviceGuardBytes only.
inline constexpr std::size_t kDeviceGuardBytes = 256;
inline constexpr unsigned char kDeviceGuardByte = 0xFD;

/// Allocates `count` elements of `element_size` bytes, 16-byte aligned (256 under the sanitizers),
/// between guard zones, and registers them for check_device_guards, as memory of (modelled) device
/// `device`. Returns null when out of memory.
void* guarded_alloc(std::size_t count, std::size_t element_size, int device = 0);
/// The device whose guarded allocation holds the byte at `p` (from its start to its last element), or
/// -1 if none does (host memory).
int guarded_device(const void* p);
/// Frees what guarded_alloc returned (null: nothing).
void guarded_free(void* data);

/// Names a kernel's parameter whose device buffer blocks wait on (11.7's flags), for the emulator's
/// reports of a launch that never finishes (scanlab/emu/wait_arrays.hpp): while kernel `kernel` (its
/// LaunchConfig name) runs, the guarded buffer that its argument number `argument` (from 0) points
/// into is named `name`, from that pointer to the buffer's end, each element "set" or "not set" (zero
/// bytes). So the report says `spins ... on flags[5]` and `flags when the launch stopped: 0-4 set,
/// 5-63 not set`, with nothing asked of the host code that allocates the buffer. Does nothing on a GPU.
void name_kernel_argument(const char* kernel, unsigned argument, const char* name);
namespace detail {
/// launch() on the cpu backend: names `p`, argument `argument` of `kernel`, if name_kernel_argument
/// said so; true if it did (then unname_kernel_argument(p) once the launch is over).
bool name_wait_argument(const char* kernel, unsigned argument, const void* p, std::size_t element_size);
void unname_kernel_argument(const void* p);
}  // namespace detail
/// Checks the guard zones of every live guarded allocation after `kernel` ran. Throws scanlab::Error
/// "memory error: kernel 'k' wrote past the end of a N-element array of S-byte elements (element N+k)
/// ..." for the first damaged one (and repairs the zones, so that one error is reported once).
void check_device_guards(const char* kernel);

/// Bytes of host memory available now (MemAvailable), or a large number if unknown.
std::size_t available_host_memory();

/// The host CPU's model name (from /proc/cpuinfo), for reports.
std::string host_cpu_name();

/// Throws scanlab::Error, saying how much is needed and how much there is, if `needed` > `available`.
void check_fits(std::size_t needed, std::size_t available, const char* what);

}  // namespace scanlab
