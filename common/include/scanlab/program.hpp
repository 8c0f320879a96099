/// \file program.hpp
/// \brief The shape every section program shares: parse options, pick the backend, make a seeded
/// input, run each algorithm, verify against the CPU reference, print Passed/FAILED, and only then
/// time it and report time and bandwidth (and, on the cpu backend, the emulator's counts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "scanlab/algorithm.hpp"

namespace scanlab {

struct SectionInfo {
  std::string id;         ///< "11.2"
  std::string title;      ///< "Kogge-Stone scan"
  std::size_t default_n;  ///< n when --n is not given (capped at each algorithm's section size)
  /// What the program is built on that is not the book's (the student release's given stand-ins,
  /// common/given/README.md), printed under the title; "" for nothing. A section's main passes
  /// SCANLAB_GIVEN_NOTE, which scanlab_add_section defines where it applies.
  std::string given = "";
};

#if !defined(SCANLAB_GIVEN_NOTE)
#define SCANLAB_GIVEN_NOTE ""
#endif

/// The whole program: returns the exit status (0 all passed, 1 a check failed, 2 a usage error or an
/// error that stopped the run). `tables` holds one entry per backend this build has.
int section_main(int argc, const char* const* argv, const SectionInfo& info,
                 const std::vector<AlgorithmTable>& tables);

/// Picks the table for `--backend` ("cuda", "cpu" or "auto"); `note` says why, for auto. Throws
/// UsageError or NoDeviceError with a one-line message.
const AlgorithmTable& choose_backend(const std::vector<AlgorithmTable>& tables, const std::string& backend,
                                     std::string& note);

/// cpu backend: runs `request` (not in place) under the forward, reverse and seeded random thread
/// orders of the emulator and compares each output with the forward order's, element by element.
/// Returns "" when they agree, else which order differed and the first element where it did: the
/// output depends on the order of the threads, so there is a race (a missing __syncthreads(), as
/// in the book's Kogge-Stone kernel without its second barrier). An error under any order is
/// returned the same way. Restores the emulator's settings. Without the emulator, returns "".
std::string compare_thread_orders(const Algorithm& algorithm, RunRequest request, std::uint64_t seed);

}  // namespace scanlab
