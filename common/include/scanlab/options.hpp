/// \file options.hpp
/// \brief The command line every section program shares.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scanlab/types.hpp"

namespace scanlab {

/// A bad command line: the message is one line saying what is wrong and what to do.
class UsageError : public std::exception {
 public:
  explicit UsageError(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

struct Options {
  std::optional<std::size_t> n;          ///< --n (default: the section's)
  std::optional<std::size_t> sections;   ///< --sections K: K independent sections in one launch
  DType type = DType::int32;             ///< --type
  OpKind op = OpKind::add;               ///< --op
  ScanKind kind = ScanKind::inclusive;   ///< --inclusive / --exclusive
  std::string backend = "auto";          ///< --backend cuda|cpu|auto
  std::uint64_t seed = 2024;             ///< --seed
  std::string input;                     ///< --input V,V,...: scan these values, not random ones (sets n)
  int reps = 10;                         ///< --reps (timed repetitions; 0 = verify only)
  std::string csv;                       ///< --csv FILE (rows appended)
  std::string json;                      ///< --json FILE
  std::vector<std::string> algorithms;   ///< --algorithm NAME (repeatable; default: all)
  bool in_place = false;                 ///< --in-place
  bool trace = false;                    ///< --trace (cpu backend)
  bool race_check = false;               ///< --race-check (cpu backend)
  std::string block_order;               ///< --block-order forward|reverse|random (cpu backend)
  std::string thread_order;              ///< --thread-order forward|reverse|random (cpu backend)
  bool list = false;                     ///< --list: print the algorithms and exit
  bool help = false;                     ///< --help
};

/// Parses argv; throws UsageError on an unknown flag or a bad value.
Options parse_options(int argc, const char* const* argv);

/// The --help text (program name and section title first).
std::string usage(const std::string& program, const std::string& title);

}  // namespace scanlab
