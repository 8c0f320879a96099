/// \file guarded_memory.hpp
/// \brief The emulator's side of the cpu backend's device buffers: arrays between guard pages whose
/// faults become memory errors (apart from runtime.hpp, which every kernel library includes).
#pragma once

#include <cstddef>

namespace scanlab::emu {

/// Guarded device memory (the cpu backend's device buffers, common/src/memory.cpp): `count` elements
/// of `element_size` bytes at `data`, inside a reservation [begin, end) whose other bytes the kernel
/// may not touch (PROT_NONE pages). A kernel thread that reads or writes those pages fails its launch
/// with one line, `memory error: kernel 'k', block 3, thread 17 read past the end of a 1000-element
/// array of 4-byte elements (element 1024 = N+24) in device memory at add.cuh:23; ...` (x86-64; the
/// line where the kernel library has debug information, else the thread's last sync point). Up to 4096 arrays at a time.
void guard_array(const void* data, std::size_t count, std::size_t element_size, const void* begin, const void* end);
/// Forgets what guard_array registered at `data`.
void unguard_array(const void* data);

}  // namespace scanlab::emu
