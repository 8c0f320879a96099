#include "scanlab/options.hpp"

#include <limits>

namespace scanlab {
namespace {

constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();

std::uint64_t count(const std::string& flag, const std::string& text) {
  return cli::whole_number(flag, text, 0, kMax, "a non-negative whole number");
}

std::string order(const std::string& flag, const std::string& v) {
  if (v != "forward" && v != "reverse" && v != "random") {
    throw UsageError(flag + " '" + v + "': use forward, reverse or random");
  }
  return v;
}

}  // namespace

void add_section_options(cli::Parser& p, Options& o) {
  p.option("--n", "N", "elements to scan (default: the section's size)",
           [&o](const std::string& v) { o.n = count("--n", v); });
  p.option("--sections", "K",
           "in-block scans: K independent sections of the section's size in\n"
           "one launch (K blocks: fills a GPU), each section scanned on its own",
           [&o](const std::string& v) {
             o.sections = count("--sections", v);
             if (*o.sections == 0) throw UsageError("--sections 0: give at least 1 section");
           });
  p.option("--type", "T", "int32 | uint32 | int64 | float | double   (default int32)", [&o](const std::string& v) {
    const auto t = parse_dtype(v);
    if (!t) throw UsageError("unsupported --type '" + v + "': use int32, uint32, int64, float or double");
    o.type = *t;
  });
  p.option("--op", "OP",
           "add | max | min | last                    (default add)\n"
           "last = fill forward: keeps the right operand unless it is the\n"
           "'none' marker; associative but not commutative",
           [&o](const std::string& v) {
             const auto op = parse_op(v);
             if (!op) throw UsageError("unsupported --op '" + v + "': use add, max, min or last");
             o.op = *op;
           });
  p.flag("--inclusive", "y[i] = x[0] + ... + x[i]                  (default)", [&o] { o.kind = ScanKind::inclusive; });
  p.flag("--exclusive", "y[0] = identity, y[i] = x[0] + ... + x[i-1]", [&o] { o.kind = ScanKind::exclusive; });
  p.flag("--in-place", "the output overwrites the input", o.in_place);
  p.option("--backend", "B",
           "cuda | cpu | auto: cuda needs an NVIDIA GPU, cpu is scanlab's\n"
           "SIMT emulator; auto picks cuda when a GPU is present (default auto)",
           [&o](const std::string& v) {
             if (v != "auto" && !parse_backend(v)) throw UsageError("unknown --backend '" + v + "': use cuda, cpu or auto");
             o.backend = v;
           });
  p.option("--algorithm", "NAME", "run only this algorithm (repeatable; --list shows them)",
           [&o](const std::string& v) { o.algorithms.push_back(v); });
  p.option("--seed", "S", "seed of the random input                  (default 2024)",
           [&o](const std::string& v) { o.seed = count("--seed", v); });
  p.option("--input", "V,V,...",
           "scan these values instead of random ones, e.g. the book's\n"
           "example: --input 4,6,7,1,2,8,5,2 (sets n; with --type)",
           [&o](const std::string& v) {
             if (v.empty()) throw UsageError("--input needs comma-separated values, e.g. --input 4,6,7,1,2,8,5,2");
             o.input = v;
           });
  p.option("--reps", "R", "timed repetitions after one warm-up; 0 = verify only (default 10)",
           [&o](const std::string& v) {
             const auto reps = count("--reps", v);
             if (reps > 100000) throw UsageError("--reps " + std::to_string(reps) + " is too many: use at most 100000");
             o.reps = static_cast<int>(reps);
           });
  p.option("--csv", "FILE", "append one row per algorithm to FILE", o.csv);
  p.option("--json", "FILE", "write the results to FILE as JSON", o.json);
  p.flag("--list", "list the algorithms and exit", o.list);
  p.flag("--capabilities", "print what this program supports (options, algorithms) as JSON and exit",
         o.capabilities);
  p.flag("--help,-h", "this text", o.help);
  p.heading("cpu backend only:");
  p.flag("--trace",
         "print each traced shared array after every barrier (small n;\n"
         "arrays of more than 40 elements show their first 16 and last 4)",
         o.trace);
  p.flag("--race-check",
         "run under forward, reverse and random thread orders and\n"
         "report whether the outputs differ (a race)",
         o.race_check);
  p.flag("--explain",
         "after a wrong output, the smallest case that still fails and where\n"
         "the kernel first leaves the book's algorithm (what the grader shows)",
         o.explain);
  p.option("--block-order", "O", "forward | reverse | random: the order blocks run in",
           [&o](const std::string& v) { o.block_order = order("--block-order", v); });
  p.option("--thread-order", "O", "forward | reverse | random: the order threads run between barriers",
           [&o](const std::string& v) { o.thread_order = order("--thread-order", v); });
  p.footer(
      "The program verifies every result against a CPU reference and prints Passed or FAILED\n"
      "(exit status 1 on failure); only verified runs are timed.\n");
}

Options parse_options(int argc, const char* const* argv) {
  Options o;
  cli::Parser parser(argc > 0 ? cli::basename(argv[0]) : "scan", "");
  add_section_options(parser, o);
  parser.parse(argc, argv);
  check_combinations(o);
  return o;
}

void check_combinations(const Options& o) {
  if (!o.input.empty() && (o.n || o.sections)) {
    throw UsageError("--input sets n (one element per value): give --input or --n/--sections, not both");
  }
}

}  // namespace scanlab
