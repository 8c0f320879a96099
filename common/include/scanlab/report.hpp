/// \file report.hpp
/// \brief Results as data: CSV rows and JSON, for the plots and the lab's summary (never scraped
/// from stdout).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "scanlab/stats.hpp"
#include "scanlab/types.hpp"

namespace scanlab {

/// One algorithm's verified (or failed) run.
struct ResultRow {
  std::string section;    ///< "11.2"
  std::string algorithm;  ///< "kogge_stone"
  std::string backend;    ///< "cuda" or "cpu"
  std::string device;     ///< GPU name and CUDA version, or the emulator and host CPU
  std::string type, op, kind;
  std::uint64_t n = 0;
  std::uint64_t seed = 0;
  bool verified = false;
  int reps = 0;
  double median_ms = 0;   ///< 0 when not timed
  double min_ms = 0;
  double gbps = 0;        ///< 2 * n * sizeof(T) bytes / median time
  std::uint64_t launches = 0;
  std::uint64_t ops = 0;               ///< cpu backend: operator applications
  std::uint64_t barrier_intervals = 0; ///< cpu backend
  std::uint64_t steps = 0;             ///< cpu backend: steps with unlimited execution units
  std::string date;       ///< UTC, ISO 8601
};

/// The one CSV writer of every program: a header, then rows, each field quoted where it needs it
/// (RFC 4180: a field with a comma, a quote or a line break), each row flushed as it is written (a
/// run stopped half way leaves the rows it measured).
class CsvWriter {
 public:
  /// Opens `path`: `append` adds rows after those there (the header only if the file is new or
  /// empty), else the file is overwritten. Throws scanlab::Error if it cannot be written.
  CsvWriter(const std::string& path, const std::vector<std::string>& header, bool append = false);
  void row(const std::vector<std::string>& fields);

 private:
  std::ofstream out_;
};

/// A CSV field, quoted if it needs to be.
std::string csv_field(const std::string& s);
/// A number as text with `precision` significant digits ("%g"-like; 0.5, 1e-07, 12345.7).
std::string format_number(double v, int precision = 6);

/// Appends rows to a CSV file, writing the header first if the file is new or empty.
void append_csv(const std::string& path, const std::vector<ResultRow>& rows);
/// Writes rows as a JSON array of objects (overwrites).
void write_json(const std::string& path, const std::vector<ResultRow>& rows);
/// The CSV header line (no newline).
std::string csv_header();
/// Now, as "2026-11-23T05:00:00Z".
std::string utc_now();

/// A row's first fields: which algorithm of which section ran where, on what; dated now. The caller
/// fills in the results.
ResultRow run_row(const std::string& section, const std::string& algorithm, Backend backend, const std::string& device,
                  DType type, OpKind op, ScanKind kind, std::uint64_t n, std::uint64_t seed);

/// The timed runs' times into `row`: reps, the median and the shortest (0 when none).
void set_times(ResultRow& row, const std::vector<double>& times_ms);

/// Steps with unlimited execution units: for each launch, the longest chain of operator applications
/// through its barrier intervals (blocks run side by side), summed over launches. See docs.
std::uint64_t steps_unlimited(const std::vector<LaunchStats>& launches);

}  // namespace scanlab
