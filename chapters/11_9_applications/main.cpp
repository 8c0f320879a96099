// Section 11.9: what scan is for, as a program. Runs each application (compaction, partition, radix
// sort, allocation, segmented scan; --algorithm picks some) on the book's example (no --n, no
// --input), on your values (--input) or on n seeded random ones (--n), verifies each against the
// sequential algorithm, and prints Passed/FAILED, the emulator's counts (cpu backend) and, with
// --reps, times. --trace prints the intermediate arrays (flags, their scan, starts, head flags).
// You do not need to change this file.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app_check.hpp"
#include "apps.hpp"
#include "scanlab/cli.hpp"
#include "scanlab/error.hpp"
#include "scanlab/memory.hpp"
#include "scanlab/options.hpp"
#include "scanlab/report.hpp"

namespace {

using namespace scanlab;
using namespace scanlab::s11_9;

struct Backend_ {
  Backend backend;
  Result (*run)(const Request&);
  std::string (*device)();
};

std::vector<Backend_> linked() {
  std::vector<Backend_> b;
#if defined(SCANLAB_LINKED_CUDA)
  b.push_back({Backend::cuda, &run_app_cuda, &device_cuda});
#endif
#if defined(SCANLAB_LINKED_CPU)
  b.push_back({Backend::cpu, &run_app_cpu, &device_cpu});
#endif
  return b;
}

Backend_ choose(const std::string& wanted, std::string& device) {
  const std::vector<Backend_> backends = linked();
  for (const Backend_& b : backends) {
    if (wanted != "auto" && wanted != name(b.backend)) continue;
    try {
      device = b.device();
      return b;
    } catch (const NoDeviceError&) {
      if (wanted != "auto") throw;
    }
  }
  if (wanted == "auto") throw NoDeviceError("no GPU is available and this build has no cpu backend");
  throw UsageError("this build has no " + wanted + " backend: reconfigure with -DSCANLAB_BACKENDS=cuda;cpu");
}

void print_array(const char* label, const std::vector<std::string>& values) {
  std::printf("    %-44s [", label);
  for (std::size_t i = 0; i < values.size(); ++i) std::printf(i ? " %s" : "%s", values[i].c_str());
  std::printf("]\n");
}

std::vector<std::string> as_strings(DType type, const void* data, std::size_t n) {
  std::vector<std::string> out;
  visit_type(type, [&](auto t) {
    using T = typename decltype(t)::type;
    for (std::size_t i = 0; i < n; ++i) {
      const T v = static_cast<const T*>(data)[i];
      char buffer[32];
      if constexpr (std::is_floating_point_v<T>) {
        std::snprintf(buffer, sizeof buffer, "%g", static_cast<double>(v));
      } else {
        std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(v));
      }
      out.push_back(buffer);
    }
  });
  return out;
}

int run(int argc, const char* const* argv) {
  const std::string program = argc > 0 ? cli::basename(argv[0]) : "scanlab_11_9";
  // The section programs' one command line (scanlab/options.hpp); the options 11.9 has no use for
  // are refused after parsing, with a message.
  Options o;
  cli::Parser parser(program, "scanlab section 11.9: what scan is for");
  add_section_options(parser, o);
  std::string apps_help = "Applications (--algorithm NAME):\n";
  for (const AppInfo& a : kApps) apps_help += "  " + std::string(a.name) + ": " + std::string(a.summary) + "\n";
  parser.footer(apps_help +
                "Without --n or --input: the book's example 3,1,7,0,4,1,6,3 (the sausage orders).\n"
                "--op and --inclusive/--exclusive apply to segmented_scan. Not options here: --sections,\n"
                "--in-place, --race-check, --block-order, --thread-order.\n");
  parser.parse(argc, argv);
  if (o.help) {
    std::printf("%s", parser.help().c_str());
    return 0;
  }
  if (o.capabilities) {  // what ./lab run reads (tools/scanlab_lab/run.py)
    std::vector<std::string> names;
    for (const AppInfo& a : kApps) names.emplace_back(a.name);
    std::printf("%s\n", parser.capabilities("11.9", false, names).c_str());
    return 0;
  }
  check_combinations(o);
  if (o.list) {
    for (const AppInfo& a : kApps) std::printf("%-22s %s\n", std::string(a.name).c_str(), std::string(a.summary).c_str());
    return 0;
  }
  if (o.sections) throw UsageError("--sections is not an option here: give --n or --input");
  if (o.in_place || o.race_check || !o.block_order.empty() || !o.thread_order.empty()) {
    throw UsageError("--in-place, --race-check, --block-order and --thread-order are not options here");
  }
  std::vector<AppInfo> apps;
  for (const std::string& wanted : o.algorithms) {
    const auto it = std::find_if(std::begin(kApps), std::end(kApps), [&](const AppInfo& a) { return a.name == wanted; });
    if (it == std::end(kApps)) throw UsageError("unknown --algorithm '" + wanted + "': see --list");
    apps.push_back(*it);
  }
  if (apps.empty()) apps.assign(std::begin(kApps), std::end(kApps));

  std::string device;
  const Backend_ backend = choose(o.backend, device);
  AppInput in;
  if (!o.input.empty()) {
    in = make_app_input(parse_input(o.type, o.input), o.seed);
  } else if (o.n) {
    // The host arrays (values, keys, sizes, heads, outputs) before anything is allocated.
    check_fits(*o.n * (3 * size_of(o.type) + 16), available_host_memory(), "host memory");
    in = make_app_input(make_input(o.type, OpKind::max, *o.n, o.seed), o.seed);  // wide-range values
  } else {
    in = book_input(o.type);
  }
  const std::size_t n = in.values.size();
  std::printf("11.9 what scan is for: %s backend (%s), %s, n = %zu, pivot %g\n", name(backend.backend),
              device.c_str(), name(o.type), n, in.pivot);
  if (o.trace) print_array("input x", as_strings(o.type, in.values.data(), n));

  bool all_passed = true;
  std::vector<ResultRow> rows;
  for (const AppInfo& a : apps) {
    Request r = make_request(a.app, in, o.op, o.kind);
    r.reps = o.reps;
    r.trace = o.trace;
    const Result result = backend.run(r);
    const std::string error = check_result(r, result);
    all_passed = all_passed && error.empty();
    ResultRow row = run_row("11.9", std::string(a.name), backend.backend, device, r.type, r.op, r.kind, n, o.seed);
    row.verified = error.empty();
    set_times(row, result.times_ms);
    row.launches = result.launches.size();
    for (const LaunchStats& l : result.launches) row.ops += l.ops;
    std::printf("  %-22s %s  count %zu", std::string(a.name).c_str(), error.empty() ? "Passed" : "FAILED",
                result.count);
    if (backend.backend == Backend::cpu) std::printf("  launches %zu  ops %llu", result.launches.size(),
                                                     static_cast<unsigned long long>(row.ops));
    if (row.reps > 0) std::printf("  median %.4f ms", row.median_ms);
    std::printf("\n");
    if (!error.empty()) std::printf("    %s\n", error.c_str());
    rows.push_back(row);
    if (o.trace) {
      if (a.app == App::radix_sort) print_array("keys (low 32 bits)", as_strings(DType::uint32, r.input, n));
      for (const auto& [label, values] : result.steps) print_array(label.c_str(), values);
      print_array("output", as_strings(r.type, result.output.data(), result.output.size() / size_of(r.type)));
    }
  }
  if (!o.csv.empty()) append_csv(o.csv, rows);
  if (!o.json.empty()) write_json(o.json, rows);
  return all_passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // a UsageError, no GPU, or an error that stopped the run
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
