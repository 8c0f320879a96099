/// \file program.hpp
/// \brief The shape every section program shares: parse options, pick the backend, make a seeded
/// input, run each algorithm, verify against the CPU reference, print Passed/FAILED, and only then
/// time it and report time and bandwidth (and, on the cpu backend, the emulator's counts).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "scanlab/algorithm.hpp"

namespace scanlab {

struct SectionInfo {
  std::string id;         ///< "11.2"
  std::string title;      ///< "Kogge-Stone scan"
  std::size_t default_n;  ///< n when --n is not given (capped at each algorithm's section size)
};

/// The whole program: returns the exit status (0 all passed, 1 a check failed, 2 a usage error or an
/// error that stopped the run). `tables` holds one entry per backend this build has.
int section_main(int argc, const char* const* argv, const SectionInfo& info,
                 const std::vector<AlgorithmTable>& tables);

/// Picks the table for `--backend` ("cuda", "cpu" or "auto"); `note` says why, for auto. Throws
/// UsageError or NoDeviceError with a one-line message.
const AlgorithmTable& choose_backend(const std::vector<AlgorithmTable>& tables, const std::string& backend,
                                     std::string& note);

}  // namespace scanlab
