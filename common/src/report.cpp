#include "scanlab/report.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include "scanlab/error.hpp"
#include "scanlab/json.hpp"

namespace scanlab {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string format_number(double v, int precision) {
  std::ostringstream out;
  out << std::setprecision(precision) << v;
  return out.str();
}

CsvWriter::CsvWriter(const std::string& path, const std::vector<std::string>& header, bool append) {
  bool fresh = true;
  if (append) {
    std::ifstream existing(path);
    fresh = !existing || existing.peek() == std::ifstream::traits_type::eof();
  }
  out_.open(path, append ? std::ios::app : std::ios::trunc);
  if (!out_) throw Error("cannot write the CSV file '" + path + "': check the folder exists and is writable");
  if (fresh) row(header);
}

void CsvWriter::row(const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) out_ << (i ? "," : "") << csv_field(fields[i]);
  out_ << std::endl;  // flushed: the rows so far survive a run stopped half way
}

void write_json_file(const std::string& path, const Json& value, const std::string& what) {
  std::ofstream out(path);
  if (!out) throw Error("cannot write the " + what + " '" + path + "': check the folder exists and is writable");
  const bool rows = value.is_array() && !value.empty() &&
                    std::all_of(value.begin(), value.end(), [](const Json& v) { return v.is_object(); });
  if (rows) {
    out << "[\n";
    for (std::size_t i = 0; i < value.size(); ++i) out << "  " << value[i].dump() << (i + 1 < value.size() ? ",\n" : "\n");
    out << "]\n";
  } else {
    out << value.dump(2) << "\n";
  }
  if (!out) throw Error("cannot write the " + what + " '" + path + "': is the disk full?");
}

namespace {

std::vector<std::string> csv_columns() {
  return {"section", "algorithm", "backend", "device", "type", "op", "kind", "n", "seed", "verified", "reps",
          "median_ms", "min_ms", "gbps", "launches", "ops", "barrier_intervals", "steps", "date"};
}

}  // namespace

std::string csv_header() {
  std::string header;
  for (const auto& c : csv_columns()) header += (header.empty() ? "" : ",") + c;
  return header;
}

void append_csv(const std::string& path, const std::vector<ResultRow>& rows) {
  CsvWriter csv(path, csv_columns(), true);
  for (const auto& r : rows) {
    csv.row({r.section, r.algorithm, r.backend, r.device, r.type, r.op, r.kind, std::to_string(r.n),
             std::to_string(r.seed), r.verified ? "true" : "false", std::to_string(r.reps), format_number(r.median_ms),
             format_number(r.min_ms), format_number(r.gbps), std::to_string(r.launches), std::to_string(r.ops),
             std::to_string(r.barrier_intervals), std::to_string(r.steps), r.date});
  }
}

void write_json(const std::string& path, const std::vector<ResultRow>& rows) {
  Json out = Json::array();
  for (const auto& r : rows) {
    out.push_back({{"section", r.section}, {"algorithm", r.algorithm}, {"backend", r.backend},
                   {"device", r.device}, {"type", r.type}, {"op", r.op}, {"kind", r.kind}, {"n", r.n},
                   {"seed", r.seed}, {"verified", r.verified}, {"reps", r.reps}, {"median_ms", r.median_ms},
                   {"min_ms", r.min_ms}, {"gbps", r.gbps}, {"launches", r.launches}, {"ops", r.ops},
                   {"barrier_intervals", r.barrier_intervals}, {"steps", r.steps}, {"date", r.date}});
  }
  write_json_file(path, out);
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::uint64_t steps_unlimited(const std::vector<LaunchStats>& launches) {
  std::uint64_t total = 0;
  for (const auto& launch : launches) {
    std::map<std::uint32_t, std::uint64_t> per_block;  // blocks run side by side: take the longest
    for (const auto& interval : launch.intervals) per_block[interval.block] += interval.max_ops_per_thread;
    std::uint64_t longest = 0;
    for (const auto& [block, steps] : per_block) longest = std::max(longest, steps);
    total += longest;
  }
  return total;
}

ResultRow run_row(const std::string& section, const std::string& algorithm, Backend backend, const std::string& device,
                  DType type, OpKind op, ScanKind kind, std::uint64_t n, std::uint64_t seed) {
  ResultRow row;
  row.section = section;
  row.algorithm = algorithm;
  row.backend = name(backend);
  row.device = device;
  row.type = name(type);
  row.op = name(op);
  row.kind = name(kind);
  row.n = n;
  row.seed = seed;
  row.date = utc_now();
  return row;
}

void set_times(ResultRow& row, const std::vector<double>& times_ms) {
  row.reps = static_cast<int>(times_ms.size());
  if (times_ms.empty()) return;
  std::vector<double> t = times_ms;
  std::sort(t.begin(), t.end());
  const std::size_t m = t.size() / 2;
  row.median_ms = t.size() % 2 ? t[m] : (t[m - 1] + t[m]) / 2;
  row.min_ms = t.front();
}

}  // namespace scanlab
