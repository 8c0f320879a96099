#include "scanlab/program.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <optional>

#include "scanlab/cli.hpp"
#include "scanlab/error.hpp"
#include "scanlab/explain.hpp"
#include "scanlab/inputs.hpp"
#include "scanlab/memory.hpp"
#include "scanlab/options.hpp"
#include "scanlab/report.hpp"
#include "scanlab/trace_labels.hpp"
#include "scanlab/verify.hpp"

#if defined(SCANLAB_WITH_EMULATOR)
#include "scanlab/emu/runtime.hpp"
#endif

namespace scanlab {
namespace {

const AlgorithmTable* find_table(const std::vector<AlgorithmTable>& tables, Backend b) {
  for (const auto& t : tables) {
    if (t.backend == b) return &t;
  }
  return nullptr;
}

/// The traced arrays after each barrier, each step named by its stride or phase where `labels` has
/// names (trace_labels.hpp), else numbered.
void print_trace(const std::vector<LaunchStats>& launches, const std::vector<std::vector<std::string>>& labels) {
  for (std::size_t l = 0; l < launches.size(); ++l) {
    const LaunchStats& launch = launches[l];
    if (launch.trace.empty()) continue;
    std::printf("  trace of %s:\n", launch.kernel.c_str());
    for (std::size_t f = 0; f < launch.trace.size(); ++f) {
      const TraceFrame& frame = launch.trace[f];
      const std::string step = l < labels.size() && f < labels[l].size() ? labels[l][f]
                                                                          : "step " + std::to_string(frame.step);
      std::printf("    block %u  %-11s %-27s %-24s [", frame.block, frame.name.c_str(), step.c_str(),
                  cli::basename(frame.where).c_str());
      // A long array (a whole section of 11.6, say) shows its first 16 and last 4 elements.
      const std::size_t count = frame.values.size();
      const bool elide = count > 40;
      for (std::size_t i = 0; i < count; ++i) {
        if (elide && i == 16) {
          std::printf(" ...");
          i = count - 4;
        }
        std::printf("%s%s", i ? " " : "", frame.values[i].c_str());
      }
      if (elide) {
        std::printf("]  (%zu elements)\n", count);
      } else {
        std::printf("]\n");
      }
    }
  }
}

}  // namespace

std::string compare_thread_orders([[maybe_unused]] const Algorithm& algorithm, [[maybe_unused]] RunRequest request,
                                  [[maybe_unused]] std::uint64_t seed) {
#if defined(SCANLAB_WITH_EMULATOR)
  const std::size_t element = size_of(request.problem.type);
  const std::size_t bytes = request.problem.n * element;
  std::vector<unsigned char> first(bytes), other(bytes);
  request.problem.in_place = false;
  request.trace = false;
  request.reps = 0;
  auto& settings = emu::settings();
  const auto saved = settings;
  std::string verdict;
  for (const auto order : {emu::Order::forward, emu::Order::reverse, emu::Order::random}) {
    const std::string which = std::string("the ") + emu::order_name(order) + " thread order" +
                              (order == emu::Order::random ? " (seed " + std::to_string(seed) + ")" : "");
    settings.thread_order = order;
    settings.seed = seed;
    request.output = order == emu::Order::forward ? first.data() : other.data();
    try {
      algorithm.run(request);
    } catch (const Error& e) {
      verdict = "under " + which + ": " + e.what();
      break;
    }
    if (order == emu::Order::forward) continue;
    const auto diff = std::mismatch(first.begin(), first.end(), other.begin()).first;
    if (diff != first.end()) {
      const std::size_t at = static_cast<std::size_t>(diff - first.begin()) / element;
      verdict = "the output under " + which + " differs from the forward order's from element " +
                std::to_string(at) + " of " + std::to_string(request.problem.n) +
                " on: the result depends on the order of the threads, a race (is a __syncthreads() missing?)";
      break;
    }
  }
  settings = saved;
  return verdict;
#else
  return "";
#endif
}

const AlgorithmTable& choose_backend(const std::vector<AlgorithmTable>& tables, const std::string& backend,
                                     std::string& note) {
  if (backend == "auto") {
    if (const auto* cuda = find_table(tables, Backend::cuda)) {
      try {
        cuda->device();
        note = "auto: a GPU is present";
        return *cuda;
      } catch (const NoDeviceError&) {
        note = "auto: no GPU found";
      }
    } else {
      note = "auto: this build has no cuda backend";
    }
    if (const auto* cpu = find_table(tables, Backend::cpu)) return *cpu;
    throw NoDeviceError("no GPU is available and this build has no cpu backend: reconfigure with "
                        "-DSCANLAB_BACKENDS=cpu (or cuda;cpu)");
  }
  const Backend wanted = *parse_backend(backend);
  const auto* table = find_table(tables, wanted);
  if (table == nullptr) {
    throw UsageError("this build has no " + backend + " backend: reconfigure with -DSCANLAB_BACKENDS=cuda;cpu");
  }
  table->device();  // throws NoDeviceError for cuda without a GPU
  return *table;
}

int section_main(int argc, const char* const* argv, const SectionInfo& info,
                 const std::vector<AlgorithmTable>& tables) {
  const std::string program = argc > 0 ? cli::basename(argv[0]) : "scan";
  try {
    const std::string title = "scanlab section " + info.id + ": " + info.title;
    Options o;
    cli::Parser parser(program, title);
    add_section_options(parser, o);
    parser.parse(argc, argv);
    if (o.help) {
      std::cout << parser.help();
      return 0;
    }
    if (o.capabilities) {
      // What ./lab reads: no GPU needed, so it comes before the backend is chosen.
      std::vector<std::string> names;
      if (!tables.empty()) {
        for (const auto& a : tables.front().algorithms) names.emplace_back(a.name);
      }
      std::cout << parser.capabilities(info.id, false, names) << "\n";
      return 0;
    }
    check_combinations(o);
    std::string note;
    const AlgorithmTable& table = choose_backend(tables, o.backend, note);
    if (o.list) {
      for (const auto& a : table.algorithms) {
        std::printf("%-28s %-12s %s\n", std::string(a.name).c_str(), std::string(a.figure).c_str(),
                    std::string(a.summary).c_str());
      }
      return 0;
    }
    const bool cpu = table.backend == Backend::cpu;
    if (!cpu && (o.trace || o.race_check || o.explain || !o.block_order.empty() || !o.thread_order.empty())) {
      throw UsageError("--trace, --race-check, --explain, --block-order and --thread-order need --backend cpu");
    }
#if defined(SCANLAB_WITH_EMULATOR)
    if (cpu) {
      auto& s = emu::settings();
      if (!o.block_order.empty()) s.block_order = emu::parse_order(o.block_order);
      if (!o.thread_order.empty()) s.thread_order = emu::parse_order(o.thread_order);
      s.seed = o.seed;
    }
#endif

    std::vector<const Algorithm*> chosen;
    for (const auto& name : o.algorithms) {
      const Algorithm* algorithm = find_algorithm(table, name);
      if (algorithm == nullptr) {
        std::string known;
        for (const auto& a : table.algorithms) known += (known.empty() ? "" : ", ") + std::string(a.name);
        throw UsageError("unknown --algorithm '" + name + "': this section has " + known);
      }
      chosen.push_back(algorithm);
    }
    if (chosen.empty()) {
      for (const auto& a : table.algorithms) chosen.push_back(&a);
    }
    if (o.sections && o.n) throw UsageError("give --n or --sections, not both");
    // --input: the values to scan (n is their count), parsed once, before anything runs.
    const HostArray given = o.input.empty() ? HostArray{} : parse_input(o.type, o.input);
    const std::optional<std::size_t> asked_n = o.input.empty() ? o.n : std::optional<std::size_t>(given.size());
    for (const Algorithm* a : chosen) {
      if (o.sections && a->max_n == 0) {
        throw UsageError(std::string(a->name) + " scans any n in one piece: --sections is for the in-block "
                         "scans (sections 11.2 to 11.5); use --n");
      }
      if (o.sections && *o.sections > std::numeric_limits<std::size_t>::max() / a->max_n) {
        throw UsageError("--sections " + std::to_string(*o.sections) + " is more than any memory holds");
      }
      if (asked_n && a->max_n != 0 && *asked_n > a->max_n) {
        throw UsageError("n = " + std::to_string(*asked_n) + " is more than one section of " + std::string(a->name) +
                         " (" + std::to_string(a->max_n) +
                         " elements): scan longer arrays with section 11.6 (chapters/11_6_hierarchical)");
      }
    }

    const std::string device = table.device();
    std::printf("%s\n", title.c_str());
    std::printf("backend %s (%s)%s%s\n", name(table.backend), device.c_str(), note.empty() ? "" : "; ",
                note.c_str());
    if (!info.given.empty()) std::printf("%s\n", info.given.c_str());

    std::vector<ResultRow> rows;
    bool all_passed = true;
    for (const Algorithm* a : chosen) {
      // --sections K: K whole sections, one block each (an in-block kernel given more than one
      // section scans each on its own: the first step of 11.6's hierarchical scan).
      const std::size_t n = !o.input.empty() ? given.size()
                            : o.sections     ? *o.sections * a->max_n
                            : o.n            ? *o.n
                                             : (a->max_n ? std::min(info.default_n, a->max_n) : info.default_n);
      const ScanProblem problem{o.type, o.op, o.kind, n, o.in_place};
      // Host memory first, before anything is allocated: input, output and the double-precision
      // reference the check builds, plus the "device" buffers when the device is this CPU.
      const std::size_t per_element = 2 * size_of(o.type) + sizeof(double) +
                                      (table.backend == Backend::cpu ? 2 * size_of(o.type) : 0);
      if (n > std::numeric_limits<std::size_t>::max() / per_element) {
        throw UsageError("n = " + std::to_string(n) + " is more than any memory holds: choose a smaller --n");
      }
      check_fits(n * per_element, available_host_memory(), "host memory");
      const HostArray input = o.input.empty() ? make_input(o.type, o.op, n, o.seed) : given;
      HostArray output(o.type, n);
      RunRequest request{problem, input.data(), output.data(), 0, o.trace};

      ResultRow row = run_row(info.id, std::string(a->name), table.backend, device, o.type, o.op, o.kind, n, o.seed);

      const std::string where_from =
          o.input.empty() ? "seed " + std::to_string(o.seed) : "input [" + o.input + "]";
      std::printf("\n%s (%s): %s %s %s scan of n = %zu%s, %s\n", row.algorithm.c_str(),
                  std::string(a->figure).c_str(), row.type.c_str(), row.op.c_str(), row.kind.c_str(), n,
                  o.sections ? (" as " + std::to_string(*o.sections) + " sections of " + std::to_string(a->max_n))
                                   .c_str()
                             : "",
                  where_from.c_str());
      RunResult result;
      std::string failure;
      [[maybe_unused]] bool threw = false;  // read by the race check (cpu backend)
      try {
        result = a->run(request);
        const VerifyResult v = o.sections ? verify_sections(problem, input.data(), output.data(), a->max_n)
                                          : verify_scan(problem, input.data(), output.data());
        row.verified = v.passed;
        failure = v.message;
      } catch (const NoDeviceError&) {
        throw;
      } catch (const Error& e) {
        failure = e.what();
        threw = true;
      }
      if (o.trace) print_trace(result.launches, trace_labels_by_rerun(*a, o.kind, n, result.launches));
      row.launches = result.launches.size();
      for (const auto& l : result.launches) {
        row.ops += l.ops;
        row.barrier_intervals += l.barrier_intervals;
      }
      row.steps = steps_unlimited(result.launches);
#if defined(SCANLAB_WITH_EMULATOR)
      // Also after a wrong output (not after an error): a wrong output that changes with the order
      // of the threads is a race, which the wrong value alone does not say.
      if (cpu && o.race_check && !threw) {
        const std::string race = compare_thread_orders(*a, request, o.seed);
        if (race.empty()) {
          std::printf("  race check: the same output under the forward, reverse and random (seed %llu) thread "
                      "orders\n", static_cast<unsigned long long>(o.seed));
        } else {
          std::printf("  race check: %s\n", race.c_str());
          failure = failure.empty() ? "the race check found a race" : failure + "; the race check found a race";
          row.verified = false;
        }
      }
#endif
      if (!row.verified) {
        all_passed = false;
        std::printf("  FAILED: %s\n", failure.c_str());
        // The grader's explanation (explain.hpp), for this case (after an error: the smallest size that
        // ends in it), not for --sections (the shrink scans one section).
        if (o.explain && !o.sections) {
          const std::string why = threw ? grading::explain::smallest_error(*a, problem, o.seed, failure, true)
                                        : grading::explain::smallest_failure(*a, problem, o.seed);
          std::printf("%s\n", why.empty() ? "  (--explain: no smaller failing case, and nothing to explain for this one)"
                                           : why.c_str());
        }
        rows.push_back(row);
        continue;
      }
      std::printf("  Passed");
      if (cpu) {
        std::printf("  (%llu launch%s, %llu operator applications, %llu barrier intervals, %llu steps)",
                    static_cast<unsigned long long>(row.launches), row.launches == 1 ? "" : "es",
                    static_cast<unsigned long long>(row.ops),
                    static_cast<unsigned long long>(row.barrier_intervals),
                    static_cast<unsigned long long>(row.steps));
      }
      std::printf("\n");
      if (o.reps > 0 && n > 0) {
        request.reps = o.reps;
        request.trace = false;
        const RunResult timed = a->run(request);
        set_times(row, timed.times_ms);
        const double bytes = 2.0 * static_cast<double>(n) * static_cast<double>(size_of(o.type));
        row.gbps = row.median_ms > 0 ? bytes / (row.median_ms * 1e-3) / 1e9 : 0;
        std::printf("  time %.4f ms (median of %d), %.2f GB/s\n", row.median_ms, o.reps, row.gbps);
      }
      rows.push_back(row);
    }

    std::printf("\n%-28s %-7s %10s %9s %12s %10s %7s\n", "algorithm", "result", "median_ms", "GB/s", "ops",
                "intervals", "steps");
    for (const auto& r : rows) {
      std::printf("%-28s %-7s %10.4f %9.2f %12llu %10llu %7llu\n", r.algorithm.c_str(),
                  r.verified ? "Passed" : "FAILED", r.median_ms, r.gbps, static_cast<unsigned long long>(r.ops),
                  static_cast<unsigned long long>(r.barrier_intervals), static_cast<unsigned long long>(r.steps));
    }
    if (!o.csv.empty()) append_csv(o.csv, rows);
    if (!o.json.empty()) write_json(o.json, rows);
    std::printf("%s\n", all_passed ? "Passed" : "FAILED");
    return all_passed ? 0 : 1;
  } catch (const std::exception& e) {  // a UsageError, or an error that stopped the run
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
    return 2;
  }
}

}  // namespace scanlab
