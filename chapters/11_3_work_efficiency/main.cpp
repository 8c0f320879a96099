// Section 11.3: speed and work efficiency. Runs the scans of sections 11.1 (sequential), 11.2
// (Kogge-Stone), 11.4 (Brent-Kung) and 11.5 (coarsened) on the emulator (cpu backend), over a range
// of n, and prints what the emulator counted next to the analytical model (work_model.hpp) and the
// book's formulas:
//   work   operator applications, all threads (the book's "additions");
//   steps  time units on P execution units, from the emulator's per-barrier-interval counts:
//            steps_P = sum over intervals of ceil(active / P) * max_ops_per_thread,
//            active  = threads applying the operator (thread granularity), or
//                      32 * warps with such a thread (warp granularity: SIMD, divergence costs).
//          (work_model.hpp defines it; README.md explains it.)
// It also writes the numbers as CSV (--csv) and JSON (--json) for plots/make_plots.py, and, with
// --trace FILE, the shared array after every barrier of an 8- and a 16-element scan (the book's
// figures). Built twice: scanlab_11_3 (solution kernels and model) and scanlab_11_3_exercise (your
// kernels and your model). You do not need to change this file.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "scanlab/algorithm.hpp"
#include "scanlab/cli.hpp"
#include "scanlab/error.hpp"
#include "scanlab/inputs.hpp"
#include "scanlab/json.hpp"
#include "scanlab/memory.hpp"
#include "scanlab/report.hpp"
#include "scanlab/trace_labels.hpp"
#include "scanlab/verify.hpp"
#include "measured.hpp"
#include "work_model.hpp"


namespace {

using namespace scanlab;
using namespace scanlab::s11_3;

#if defined(SCANLAB_11_3_EXERCISE)
constexpr const char* kSource = "exercise";
#else
constexpr const char* kSource = "solution";
#endif

/// Which formula describes an algorithm: by its name (kogge_stone, brent_kung_padded, ...).
enum class Family { sequential, kogge_stone, brent_kung, coarsened, other };

Family family_of(const std::string& name) {
  const auto starts = [&](const char* prefix) { return name.rfind(prefix, 0) == 0; };
  if (name == "sequential") return Family::sequential;
  if (starts("kogge_stone")) return Family::kogge_stone;
  if (starts("brent_kung")) return Family::brent_kung;
  if (starts("coarsened")) return Family::coarsened;
  return Family::other;
}

const char* family_name(Family f) {
  switch (f) {
    case Family::sequential: return "sequential";
    case Family::kogge_stone: return "kogge_stone";
    case Family::brent_kung: return "brent_kung";
    case Family::coarsened: return "coarsened";
    case Family::other: break;
  }
  return "other";
}

/// The book's work formula, as the book writes it.
const char* book_formula(Family f) {
  switch (f) {
    case Family::sequential: return "N - 1";
    case Family::kogge_stone: return "N log2 N - (N - 1)";
    case Family::brent_kung: return "2N - 2 - log2 N";
    case Family::coarsened: return "(N - T) + T log2 T + (N - T)";
    case Family::other: break;
  }
  return "-";
}

/// The default algorithms: one per family (variants such as brent_kung_padded count the same work;
/// name them with --algorithm, or use --all).
bool runs_by_default(const std::string& name) {
  const Family f = family_of(name);
  if (f == Family::coarsened) return true;
  return name == "sequential" || name == "kogge_stone" || name == "brent_kung" ||
         name.rfind("hierarchical", 0) == 0;
}

struct RunOptions {
  std::vector<std::size_t> n;
  std::vector<std::uint64_t> p;
  std::vector<std::string> algorithms;
  bool all = false;
  std::string csv, json, trace;
  std::uint64_t seed = 2024;
  bool list = false, help = false, capabilities = false;
};

std::uint64_t parse_count(const std::string& flag, const std::string& text) {
  const std::uint64_t v = cli::whole_number(flag, text, 0, 999'999'999'999, "a positive whole number");
  if (v == 0) throw UsageError(flag + " must be at least 1");
  return v;
}

/// The options, each with its help: parsing, --help and --capabilities come from this one list.
void add_options(cli::Parser& p, RunOptions& o) {
  p.option("--n", "N",
           "scan N elements (repeatable; default 8, 16, ..., 2048, 100, 300, 1000, 1500, and\n"
           "for the scans of any length 4096, 16384, 65536)",
           [&o](const std::string& v) { o.n.push_back(parse_count("--n", v)); });
  p.option("--p", "P", "execution units for the step counts (repeatable; default 32, 128, 1024)",
           [&o](const std::string& v) { o.p.push_back(parse_count("--p", v)); });
  p.option("--algorithm", "NAME", "measure only this algorithm (repeatable; --list shows them)",
           [&o](const std::string& v) { o.algorithms.push_back(v); });
  p.flag("--all", "every algorithm (default: one per family, e.g. not brent_kung_padded)", o.all);
  p.option("--csv", "FILE", "write the table as CSV (one row per algorithm and n; overwrites)", o.csv);
  p.option("--json", "FILE", "write the table as JSON, for plots/make_plots.py (overwrites)", o.json);
  p.option("--trace", "FILE",
           "also scan 8 and 16 elements x[i] = 2^i and write the shared arrays after\n"
           "every barrier as JSON, for the step-by-step figures",
           o.trace);
  p.option("--seed", "S", "input seed (default 2024)", [&o](const std::string& v) { o.seed = parse_count("--seed", v); });
  p.flag("--list", "print the algorithms this build measures and exit", o.list);
  p.flag("--capabilities", "print what this program supports (options, algorithms) as JSON and exit",
         o.capabilities);
  p.flag("--help,-h", "this text", o.help);
  for (const char* other : {"--type", "--op", "--backend", "--inclusive", "--exclusive"}) {
    p.refuse(other, std::string("section 11.3 counts int32 add inclusive scans on the emulator (cpu backend) only: ") +
                        other + " is not an option here (the other sections' programs take it)");
  }
}

/// One algorithm's run at one n, with what the emulator counted.
struct Row {
  std::string section, algorithm;
  Family family = Family::other;
  std::size_t n = 0;
  bool verified = false;
  std::string failure;
  std::uint64_t launches = 0, blocks = 0, threads = 0;  // threads: of the first launch's blocks
  std::uint64_t work = 0, steps_unlimited = 0;
  std::optional<std::uint64_t> work_model;  // the model at the kernel's section (padded) size
  std::optional<double> work_book;          // the book's formula at N
  std::uint64_t section_size = 0;           // elements one block scans (a power of two), 0 = n/a
  std::vector<std::uint64_t> steps_thread, steps_warp;  // per P
  std::vector<double> steps_book;                       // per P, the book's estimate (0 = n/a)
  std::vector<LaunchStats> stats;
};

double log2d(double x) { return std::log2(x); }

/// The elements one block scans, as the kernels lay them out: Kogge-Stone one per thread,
/// Brent-Kung two per thread (both a power of two >= n, padded with the identity), coarsened
/// threads x factor elements, the factor read off phase 1 (the first interval that applies the
/// operator, where each thread scans its factor elements: factor - 1 applications). 0 if unknown.
std::uint64_t section_size(Family f, const Row& r) {
  switch (f) {
    case Family::sequential: return r.n;
    case Family::kogge_stone: return r.blocks == 1 ? r.threads : 0;
    case Family::brent_kung: return r.blocks == 1 ? 2 * r.threads : 0;
    case Family::coarsened: {
      if (r.blocks != 1 || r.stats.empty()) return 0;
      for (const IntervalStats& iv : r.stats.front().intervals) {
        if (iv.ops > 0) return r.threads * (iv.max_ops_per_thread + 1);
      }
      return r.threads;  // factor 1: no phase-1 work
    }
    case Family::other: break;
  }
  return 0;
}

/// Phase 2 of a coarsened scan: Brent-Kung if its name says so, else Kogge-Stone.
Phase2 phase2_of(const std::string& name) {
  return name.find("brent_kung") != std::string::npos ? Phase2::brent_kung : Phase2::kogge_stone;
}

/// The book's step estimate on P units: its work formula over P, but never fewer than the steps
/// with unlimited units (Kogge-Stone log2 N, Brent-Kung 2 log2 N - 1, coarsened 2 (N/T - 1) + log2 T,
/// sequential N - 1: one thread).
double book_steps(Family f, double N, double T, double P) {
  const double lg = log2d(N);
  switch (f) {
    case Family::sequential: return N - 1;
    case Family::kogge_stone: return std::max(N * lg / P, lg);
    case Family::brent_kung: return std::max((2 * N - 2 - lg) / P, 2 * lg - 1);
    case Family::coarsened: {
      const double work = (N - T) + T * log2d(T) + (N - T);
      return std::max(work / P, 2 * (N / T - 1) + log2d(T));
    }
    case Family::other: break;
  }
  return 0;
}

std::optional<double> book_work(Family f, double N, double T) {
  switch (f) {
    case Family::sequential: return N - 1;
    case Family::kogge_stone: return N * log2d(N) - (N - 1);
    case Family::brent_kung: return 2 * N - 2 - log2d(N);
    case Family::coarsened: return (N - T) + T * log2d(T) + (N - T);
    case Family::other: break;
  }
  return std::nullopt;
}

Row measure(const Section& section, const Algorithm& a, std::size_t n, const RunOptions& o, bool trace,
            const void* input_override = nullptr, std::vector<std::int32_t>* output_copy = nullptr) {
  Row r;
  r.section = section.id;
  r.algorithm = std::string(a.name);
  r.family = family_of(r.algorithm);
  r.n = n;
  const ScanProblem problem{DType::int32, OpKind::add, ScanKind::inclusive, n, false};
  const HostArray input = make_input(DType::int32, OpKind::add, n, o.seed);
  const void* in = input_override != nullptr ? input_override : input.data();
  HostArray output(DType::int32, n);
  RunRequest request{problem, in, output.data(), 0, trace};
  try {
    RunResult result = a.run(request);
    r.stats = std::move(result.launches);
    const VerifyResult v = verify_scan(problem, in, output.data());
    r.verified = v.passed;
    r.failure = v.message;
  } catch (const NoDeviceError&) {
    throw;
  } catch (const Error& e) {
    r.failure = e.what();
  }
  if (output_copy != nullptr) output_copy->assign(output.as<std::int32_t>(), output.as<std::int32_t>() + n);
  r.launches = r.stats.size();
  for (const auto& l : r.stats) {
    r.work += l.ops;
    r.blocks += l.grid_blocks;
  }
  if (!r.stats.empty()) r.threads = r.stats.front().block_threads;
  r.steps_unlimited = steps_unlimited(r.stats);

  r.section_size = section_size(r.family, r);
  const std::uint64_t S = r.section_size;
  if (r.launches == 1 && (r.family == Family::sequential || S != 0)) {
    switch (r.family) {
      case Family::sequential: r.work_model = work_sequential(n); break;
      case Family::kogge_stone: r.work_model = work_kogge_stone(S); break;
      case Family::brent_kung: r.work_model = work_brent_kung(S); break;
      case Family::coarsened: r.work_model = work_coarsened(S, r.threads, phase2_of(r.algorithm)); break;
      case Family::other: break;
    }
  }
  const double T = static_cast<double>(std::max<std::uint64_t>(r.threads, 1));
  r.work_book = book_work(r.family, static_cast<double>(n), T);
  for (const std::uint64_t P : o.p) {
    r.steps_thread.push_back(steps_with_units(r.stats, P, Granularity::thread));
    r.steps_warp.push_back(steps_with_units(r.stats, P, Granularity::warp));
    r.steps_book.push_back(book_steps(r.family, static_cast<double>(n), T, static_cast<double>(P)));
  }
  return r;
}

// ---- output -------------------------------------------------------------------------------------

std::string num(double v) { return format_number(v, 10); }

Json opt(const std::optional<std::uint64_t>& v) { return v ? Json(*v) : Json(nullptr); }
Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

void write_csv(const std::string& path, const std::vector<Row>& rows, const RunOptions& o) {
  std::vector<std::string> header{"section",      "algorithm",     "source",     "n",         "verified",
                                  "launches",     "blocks",        "threads",    "section_size", "work_measured",
                                  "work_model",   "work_book",     "steps_unlimited"};
  for (const auto P : o.p) {
    for (const char* what : {"steps_thread_p", "steps_warp_p", "steps_book_p"}) header.push_back(what + std::to_string(P));
  }
  CsvWriter csv(path, header);
  for (const Row& r : rows) {
    std::vector<std::string> fields{r.section,
                                    r.algorithm,
                                    kSource,
                                    std::to_string(r.n),
                                    r.verified ? "true" : "false",
                                    std::to_string(r.launches),
                                    std::to_string(r.blocks),
                                    std::to_string(r.threads),
                                    std::to_string(r.section_size),
                                    std::to_string(r.work),
                                    r.work_model ? std::to_string(*r.work_model) : "",
                                    r.work_book ? num(*r.work_book) : "",
                                    std::to_string(r.steps_unlimited)};
    for (std::size_t k = 0; k < o.p.size(); ++k) {
      fields.push_back(std::to_string(r.steps_thread[k]));
      fields.push_back(std::to_string(r.steps_warp[k]));
      fields.push_back(r.family == Family::other ? "" : num(r.steps_book[k]));
    }
    csv.row(fields);
  }
}

/// The book's worked examples (Sec. 11.3-11.5): 1024 elements, 32 execution units.
struct BookExample {
  const char* algorithm;  // the algorithm measured for it
  const char* what;
  double book;
  std::uint64_t n, threads;  // the configuration the book assumes
};
const BookExample kBookExamples[] = {
    {"kogge_stone", "Kogge-Stone, 1024 threads: N log2 N / P", 320.0, 1024, 1024},
    {"brent_kung", "Brent-Kung, 512 threads: with control divergence", 73.6, 1024, 512},
    {"coarsened", "coarsened, 64 threads: (N - T + T log2 T + N - T) / P", 72.0, 1024, 64},
};
constexpr std::uint64_t kBookP = 32;

struct ExampleResult {
  const BookExample* example;
  const Row* row;  // the measured run it is compared with, or null
};

std::vector<ExampleResult> book_examples(const std::vector<Row>& rows) {
  std::vector<ExampleResult> out;
  for (const auto& e : kBookExamples) {
    const Row* best = nullptr;
    for (const Row& r : rows) {
      if (r.n != e.n || !r.verified) continue;
      const bool match = std::string(e.algorithm) == "coarsened" ? r.family == Family::coarsened : r.algorithm == e.algorithm;
      if (!match) continue;
      // Prefer the run whose thread count is the book's.
      if (best == nullptr || (r.threads == e.threads && best->threads != e.threads)) best = &r;
    }
    out.push_back({&e, best});
  }
  return out;
}

void write_json(const std::string& path, const std::vector<Row>& rows, const RunOptions& o, const std::string& device) {
  Json out = {{"schema", "scanlab.work_efficiency/1"}, {"source", kSource}, {"device", device}, {"date", utc_now()},
              {"warp_size", kWarpSize}, {"p", o.p}};
  Json& table = out["rows"] = Json::array();
  for (const Row& r : rows) {
    Json steps = Json::object();
    for (std::size_t k = 0; k < o.p.size(); ++k) {
      steps[std::to_string(o.p[k])] = {{"thread", r.steps_thread[k]},
                                       {"warp", r.steps_warp[k]},
                                       {"book", r.family == Family::other ? Json(nullptr) : Json(r.steps_book[k])}};
    }
    table.push_back({{"section", r.section}, {"algorithm", r.algorithm}, {"family", family_name(r.family)},
                     {"n", r.n}, {"verified", r.verified}, {"launches", r.launches}, {"blocks", r.blocks},
                     {"threads", r.threads}, {"section_size", r.section_size}, {"work_measured", r.work},
                     {"work_model", opt(r.work_model)}, {"work_book", opt(r.work_book)},
                     {"steps_unlimited", r.steps_unlimited}, {"steps", steps}});
  }
  Json& examples = out["book_examples"] = Json::array();
  for (const auto& [e, row] : book_examples(rows)) {
    const auto* r = row;  // Clang before 16 cannot capture a structured binding in a lambda
    const auto steps = [&](Granularity g) { return r ? Json(steps_with_units(r->stats, kBookP, g)) : Json(nullptr); };
    examples.push_back({{"algorithm", e->algorithm}, {"what", e->what}, {"n", e->n}, {"p", kBookP},
                        {"book_threads", e->threads}, {"book", e->book},
                        {"measured_algorithm", r ? Json(r->algorithm) : Json(nullptr)},
                        {"measured_threads", r ? Json(r->threads) : Json(nullptr)},
                        {"measured_thread", steps(Granularity::thread)}, {"measured_warp", steps(Granularity::warp)}});
  }
  write_json_file(path, out);
}

/// The 8- and 16-element traces: input x[i] = 2^i, so every element's value says exactly which
/// inputs it sums (a run of bits), which the plots turn into the book's x_i..x_j labels.
void write_trace(const std::string& path, const std::vector<std::pair<const Section*, const Algorithm*>>& chosen,
                 const RunOptions& o) {
  Json out = {{"schema", "scanlab.trace/1"}, {"source", kSource}, {"input", "x[i] = 2^i (int32, add, inclusive)"}};
  Json& runs = out["runs"] = Json::array();
  for (const std::size_t n : {std::size_t{8}, std::size_t{16}}) {
    std::vector<std::int32_t> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = std::int32_t{1} << i;
    for (const auto& [section, a] : chosen) {
      if (a->max_n != 0 && n > a->max_n) continue;
      std::vector<std::int32_t> y;
      const Row r = measure(*section, *a, n, o, true, x.data(), &y);
      // Draw only what fits a figure: no traced array (the sequential scan) or one longer than 64
      // elements (a 2048-element section padded around 16 elements) is left out.
      bool any = false, small = true;
      for (const auto& l : r.stats) {
        for (const auto& f : l.trace) {
          any = true;
          small = small && f.values.size() <= 64;
        }
      }
      if (!any || !small) continue;
      Json intervals = Json::array(), frames = Json::array();
      // Each step's name (its stride or phase, as the console's --trace prints it) and the combinations
      // it was made of: the figures label their rows with the one and draw the other as arrows. An
      // operand is [the index of the frame that showed it in "frames", or -1 for the input; its element].
      const std::vector<std::vector<TraceStep>> steps = trace_steps(r.algorithm, n, r.stats);
      std::size_t first_frame = 0;  // the index in "frames" of this launch's first frame
      for (std::size_t li = 0; li < r.stats.size(); ++li) {
        for (const auto& iv : r.stats[li].intervals) {
          if (iv.block != 0) continue;
          intervals.push_back({{"launch", li}, {"threads_applying", iv.threads_applying},
                               {"warps_applying", iv.warps_applying}, {"ops", iv.ops},
                               {"max_ops_per_thread", iv.max_ops_per_thread}});
        }
        const auto operand = [&](long frame, std::size_t element) {
          return Json::array({frame < 0 ? -1L : static_cast<long>(first_frame) + frame, element});
        };
        for (std::size_t fi = 0; fi < r.stats[li].trace.size(); ++fi) {
          const auto& f = r.stats[li].trace[fi];
          Json combos = Json::array();
          for (const TraceCombo& c : steps[li][fi].combos) {
            combos.push_back({{"kind", c.copy ? "copy" : "combine"}, {"target", c.target},
                              {"left", operand(c.left_frame, c.left)},
                              {"right", c.copy ? Json(nullptr) : operand(c.right_frame, c.right)}});
          }
          frames.push_back({{"launch", li}, {"kernel", r.stats[li].kernel}, {"block", f.block}, {"step", f.step},
                            {"name", f.name}, {"where", f.where}, {"label", steps[li][fi].label},
                            {"combos", combos}, {"values", f.values}});
        }
        first_frame += r.stats[li].trace.size();
      }
      runs.push_back({{"section", r.section}, {"algorithm", r.algorithm}, {"n", n}, {"verified", r.verified},
                      {"failure", r.failure}, {"threads", r.threads}, {"work_measured", r.work}, {"input", x},
                      {"output", y}, {"intervals", intervals}, {"frames", frames}});
    }
  }
  write_json_file(path, out, "trace file");
}

// ---- the printed tables -------------------------------------------------------------------------

std::string fmt_opt(const std::optional<std::uint64_t>& v) { return v ? std::to_string(*v) : "-"; }
std::string fmt_book(const std::optional<double>& v) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, std::abs(*v - std::round(*v)) < 1e-9 ? "%.0f" : "%.1f", *v);
  return buf;
}

void print_tables(const std::vector<Row>& rows, const RunOptions& o) {
  std::printf("\nWork: operator applications counted by the emulator, the model (work_model.hpp, at the\n"
              "kernel's section size S) and the book's formula (at N; T = threads)\n\n");
  std::printf("%-22s %6s %7s %6s %6s %10s %10s %10s  %s\n", "algorithm", "N", "threads", "S", "check",
              "measured", "model", "book", "book formula");
  for (const Row& r : rows) {
    std::printf("%-22s %6zu %7llu %6llu %6s %10llu %10s %10s  %s%s\n", r.algorithm.c_str(), r.n,
                static_cast<unsigned long long>(r.threads), static_cast<unsigned long long>(r.section_size),
                r.verified ? "ok" : "FAILED", static_cast<unsigned long long>(r.work), fmt_opt(r.work_model).c_str(),
                fmt_book(r.work_book).c_str(), book_formula(r.family),
                r.work_model && *r.work_model != r.work ? "   <- model differs" : "");
  }

  std::printf("\nSteps on P execution units: thread granularity / warp granularity (32 lanes) / the book's\n"
              "estimate (work / P, at least the steps with unlimited units)\n\n");
  std::printf("%-22s %6s %7s %9s", "algorithm", "N", "threads", "unlimited");
  for (const auto P : o.p) std::printf("   %-22s", ("P = " + std::to_string(P) + " thr/warp/book").c_str());
  std::printf("\n");
  for (const Row& r : rows) {
    std::printf("%-22s %6zu %7llu %9llu", r.algorithm.c_str(), r.n, static_cast<unsigned long long>(r.threads),
                static_cast<unsigned long long>(r.steps_unlimited));
    for (std::size_t k = 0; k < o.p.size(); ++k) {
      char cell[64];
      std::snprintf(cell, sizeof cell, "%llu / %llu / %s", static_cast<unsigned long long>(r.steps_thread[k]),
                    static_cast<unsigned long long>(r.steps_warp[k]),
                    r.family == Family::other ? "-" : fmt_book(r.steps_book[k]).c_str());
      std::printf("   %-22s", cell);
    }
    std::printf("\n");
  }

  std::printf("\nThe book's worked examples: 1024 elements, P = 32 execution units\n\n");
  std::printf("%-56s %8s %22s %9s %9s\n", "example", "book", "measured on", "thread", "warp");
  for (const auto& [e, r] : book_examples(rows)) {
    if (r == nullptr) {
      std::printf("%-56s %8.1f %22s %9s %9s\n", e->what, e->book, "(not run)", "-", "-");
      continue;
    }
    const std::string on = r->algorithm + ", " + std::to_string(r->threads) + " thr";
    std::printf("%-56s %8.1f %22s %9llu %9llu\n", e->what, e->book, on.c_str(),
                static_cast<unsigned long long>(steps_with_units(r->stats, kBookP, Granularity::thread)),
                static_cast<unsigned long long>(steps_with_units(r->stats, kBookP, Granularity::warp)));
  }
}

int run(int argc, char** argv) {
  RunOptions o;
  cli::Parser parser(argc > 0 ? cli::basename(argv[0]) : "scanlab_11_3",
                     "scanlab section 11.3: speed and work efficiency (cpu backend: the emulator counts)");
  add_options(parser, o);
  parser.parse(argc, argv);
  if (o.p.empty()) o.p = {32, 128, 1024};
  if (o.help) {
    std::cout << parser.help();
    return 0;
  }
  const std::vector<Section> sections = linked_sections();
  if (o.capabilities) {
    std::vector<std::string> names;
    for (const Section& s : sections) {
      for (const Algorithm& a : s.table.algorithms) {
        if (std::find(names.begin(), names.end(), a.name) == names.end()) names.emplace_back(a.name);
      }
    }
    std::cout << parser.capabilities("11.3", true, names) << "\n";
    return 0;
  }
  if (sections.empty()) throw Error("this build links no section's kernels (sections 11.1-11.6 are missing)");

  std::vector<std::pair<const Section*, const Algorithm*>> chosen;
  for (const Section& s : sections) {
    for (const Algorithm& a : s.table.algorithms) {
      const std::string name(a.name);
      const bool named = std::find(o.algorithms.begin(), o.algorithms.end(), name) != o.algorithms.end();
      if (o.algorithms.empty() ? (o.all || runs_by_default(name)) : named) chosen.push_back({&s, &a});
    }
  }
  if (o.list) {
    for (const Section& s : sections) {
      for (const Algorithm& a : s.table.algorithms) {
        std::printf("%-6s %-28s %-12s %s\n", s.id, std::string(a.name).c_str(), std::string(a.figure).c_str(),
                    std::string(a.summary).c_str());
      }
    }
    return 0;
  }
  for (const std::string& name : o.algorithms) {
    if (std::none_of(chosen.begin(), chosen.end(), [&](const auto& c) { return c.second->name == name; })) {
      throw UsageError("unknown --algorithm '" + name + "' (--list shows the algorithms of this build)");
    }
  }

  std::vector<std::size_t> sizes = o.n;
  if (sizes.empty()) {
    for (std::size_t n = 8; n <= 2048; n *= 2) sizes.push_back(n);
    for (const std::size_t n : {100, 300, 1000, 1500}) sizes.push_back(n);
    for (const std::size_t n : {4096, 16384, 65536}) sizes.push_back(n);  // any-n algorithms only
    std::sort(sizes.begin(), sizes.end());
  }

  // Refuse a size too large for memory before anything is allocated: per element, the int32 input
  // and output, the emulator's two device buffers, and the double-precision reference of the check.
  const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
  check_fits(largest * (4 * sizeof(std::int32_t) + sizeof(double)), available_host_memory(), "host memory");

  const std::string device = sections.front().table.device();
  std::printf("scanlab section 11.3: speed and work efficiency (%s kernels and model)\n", kSource);
  std::printf("backend cpu (%s): int32 add inclusive scans, seed %llu\n", device.c_str(),
              static_cast<unsigned long long>(o.seed));

  std::vector<Row> rows;
  bool all_passed = true;
  for (const auto& [section, a] : chosen) {
    for (const std::size_t n : sizes) {
      if (a->max_n != 0 && n > a->max_n) continue;
      // By default the multi-section scans (11.6) start at one full section: below, they are one
      // padded section of another section's kernel.
      if (o.n.empty() && family_of(std::string(a->name)) == Family::other && n < 1024) continue;
      Row r = measure(*section, *a, n, o, false);
      if (!r.verified) {
        all_passed = false;
        std::printf("%s %s, n = %zu: FAILED: %s\n", r.section.c_str(), r.algorithm.c_str(), n, r.failure.c_str());
      }
      rows.push_back(std::move(r));
    }
  }
  print_tables(rows, o);
  if (!o.csv.empty()) write_csv(o.csv, rows, o);
  if (!o.json.empty()) write_json(o.json, rows, o, device);
  if (!o.trace.empty()) write_trace(o.trace, chosen, o);
  std::printf("\n%s\n", all_passed ? "Passed" : "FAILED (see the lines above: counts of a wrong scan are shown but "
                                                  "mean little)");
  return all_passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string program = argc > 0 ? cli::basename(argv[0]) : "scanlab_11_3";
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // a UsageError, or an error that stopped the run
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
    return 2;
  }
}
