/// \file options.hpp
/// \brief The command line every section program shares.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scanlab/cli.hpp"
#include "scanlab/types.hpp"

namespace scanlab {

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
  bool explain = false;                  ///< --explain (cpu backend): after a wrong output, where it went wrong
  std::string block_order;               ///< --block-order forward|reverse|random (cpu backend)
  std::string thread_order;              ///< --thread-order forward|reverse|random (cpu backend)
  bool list = false;                     ///< --list: print the algorithms and exit
  bool help = false;                     ///< --help
  bool capabilities = false;             ///< --capabilities: print what the program supports as JSON
};

/// Registers every section program's option on `parser`, each storing into `o` (which must outlive
/// the parser's parse()). The one list of the section programs' options: parsing, --help and
/// --capabilities all come from it.
void add_section_options(cli::Parser& parser, Options& o);

/// Parses argv; throws UsageError (one line) on an unknown option or a bad value.
Options parse_options(int argc, const char* const* argv);

/// Throws UsageError if options that exclude each other were given together (--input with --n).
void check_combinations(const Options& o);

}  // namespace scanlab
