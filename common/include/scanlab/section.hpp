/// \file section.hpp
/// \brief Declares a section's exported algorithm tables, one per backend, and collects the ones a
/// program or test was linked with (CMake defines SCANLAB_LINKED_CUDA / SCANLAB_LINKED_CPU).
#pragma once

#include <vector>

#include "scanlab/algorithm.hpp"

/// In a section's `algorithms.hpp`: `SCANLAB_DECLARE_SECTION(s11_2)` declares
/// `scanlab::s11_2::algorithms_cuda()`, `algorithms_cpu()` and `linked_tables()`.
#define SCANLAB_DECLARE_SECTION(ns)                                                   \
  namespace scanlab::ns {                                                             \
  SCANLAB_EXPORT AlgorithmTable algorithms_cuda();                                   \
  SCANLAB_EXPORT AlgorithmTable algorithms_cpu();                                    \
  inline std::vector<AlgorithmTable> linked_tables() {                                \
    std::vector<AlgorithmTable> tables;                                               \
    SCANLAB_IF_LINKED_CUDA(tables.push_back(algorithms_cuda());)                      \
    SCANLAB_IF_LINKED_CPU(tables.push_back(algorithms_cpu());)                        \
    return tables;                                                                    \
  }                                                                                   \
  }

#if defined(SCANLAB_LINKED_CUDA)
#define SCANLAB_IF_LINKED_CUDA(...) __VA_ARGS__
#else
#define SCANLAB_IF_LINKED_CUDA(...)
#endif
#if defined(SCANLAB_LINKED_CPU)
#define SCANLAB_IF_LINKED_CPU(...) __VA_ARGS__
#else
#define SCANLAB_IF_LINKED_CPU(...)
#endif

/// A section's entry point for the backend this test program is linked with:
/// `SCANLAB_LINKED_ENTRY(s11_7::repeated_launches)` is s11_7::repeated_launches_cuda or _cpu; and that
/// backend, SCANLAB_LINKED_BACKEND.
#if defined(SCANLAB_LINKED_CUDA)
#define SCANLAB_LINKED_ENTRY(name) name##_cuda
#define SCANLAB_LINKED_BACKEND ::scanlab::Backend::cuda
#else
#define SCANLAB_LINKED_ENTRY(name) name##_cpu
#define SCANLAB_LINKED_BACKEND ::scanlab::Backend::cpu
#endif
