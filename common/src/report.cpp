#include "scanlab/report.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include "scanlab/error.hpp"

namespace scanlab {
namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string number(double v) {
  std::ostringstream out;
  out << std::setprecision(6) << v;
  return out.str();
}

}  // namespace

std::string csv_header() {
  return "section,algorithm,backend,device,type,op,kind,n,seed,verified,reps,median_ms,min_ms,gbps,"
         "launches,ops,barrier_intervals,steps,date";
}

void append_csv(const std::string& path, const std::vector<ResultRow>& rows) {
  bool fresh = true;
  {
    std::ifstream existing(path);
    fresh = !existing || existing.peek() == std::ifstream::traits_type::eof();
  }
  std::ofstream out(path, std::ios::app);
  if (!out) throw Error("cannot write the CSV file '" + path + "': check the folder exists and is writable");
  if (fresh) out << csv_header() << "\n";
  for (const auto& r : rows) {
    out << r.section << "," << r.algorithm << "," << r.backend << "," << csv_field(r.device) << ","
        << r.type << "," << r.op << "," << r.kind << "," << r.n << "," << r.seed << ","
        << (r.verified ? "true" : "false") << "," << r.reps << "," << number(r.median_ms) << ","
        << number(r.min_ms) << "," << number(r.gbps) << "," << r.launches << "," << r.ops << ","
        << r.barrier_intervals << "," << r.steps << "," << r.date << "\n";
  }
}

void write_json(const std::string& path, const std::vector<ResultRow>& rows) {
  std::ofstream out(path);
  if (!out) throw Error("cannot write the JSON file '" + path + "': check the folder exists and is writable");
  out << "[\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    out << "  {\"section\": " << json_string(r.section) << ", \"algorithm\": " << json_string(r.algorithm)
        << ", \"backend\": " << json_string(r.backend) << ", \"device\": " << json_string(r.device)
        << ", \"type\": " << json_string(r.type) << ", \"op\": " << json_string(r.op)
        << ", \"kind\": " << json_string(r.kind) << ", \"n\": " << r.n << ", \"seed\": " << r.seed
        << ", \"verified\": " << (r.verified ? "true" : "false") << ", \"reps\": " << r.reps
        << ", \"median_ms\": " << number(r.median_ms) << ", \"min_ms\": " << number(r.min_ms)
        << ", \"gbps\": " << number(r.gbps) << ", \"launches\": " << r.launches << ", \"ops\": " << r.ops
        << ", \"barrier_intervals\": " << r.barrier_intervals << ", \"steps\": " << r.steps
        << ", \"date\": " << json_string(r.date) << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  out << "]\n";
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

}  // namespace scanlab
