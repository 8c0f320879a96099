#include "scanlab/options.hpp"

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <string_view>

namespace scanlab {
namespace {

std::uint64_t parse_unsigned(std::string_view flag, const std::string& text) {
  // strtoull accepts "-1" (wrapping it) and leading blanks; a count must be plain digits.
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    throw UsageError(std::string(flag) + " needs a non-negative whole number, not '" + text + "'");
  }
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) throw UsageError(std::string(flag) + " value '" + text + "' is too large");
  return value;
}

}  // namespace

Options parse_options(int argc, const char* const* argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto next = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) throw UsageError(arg + " needs a value (see --help)");
      return argv[++i];
    };
    auto flag_only = [&] {
      if (has_value) throw UsageError(arg + " takes no value");
    };

    if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else if (arg == "--n") {
      o.n = parse_unsigned(arg, next());
    } else if (arg == "--sections") {
      o.sections = parse_unsigned(arg, next());
      if (*o.sections == 0) throw UsageError("--sections 0: give at least 1 section");
    } else if (arg == "--type") {
      const std::string v = next();
      const auto t = parse_dtype(v);
      if (!t) throw UsageError("unsupported --type '" + v + "': use int32, uint32, int64, float or double");
      o.type = *t;
    } else if (arg == "--op") {
      const std::string v = next();
      const auto op = parse_op(v);
      if (!op) throw UsageError("unsupported --op '" + v + "': use add, max, min or last");
      o.op = *op;
    } else if (arg == "--inclusive") {
      flag_only();
      o.kind = ScanKind::inclusive;
    } else if (arg == "--exclusive") {
      flag_only();
      o.kind = ScanKind::exclusive;
    } else if (arg == "--backend") {
      o.backend = next();
      if (o.backend != "auto" && !parse_backend(o.backend)) {
        throw UsageError("unknown --backend '" + o.backend + "': use cuda, cpu or auto");
      }
    } else if (arg == "--input") {
      o.input = next();
      if (o.input.empty()) throw UsageError("--input needs comma-separated values, e.g. --input 4,6,7,1,2,8,5,2");
    } else if (arg == "--seed") {
      o.seed = parse_unsigned(arg, next());
    } else if (arg == "--reps") {
      const auto reps = parse_unsigned(arg, next());
      if (reps > 100000) throw UsageError("--reps " + std::to_string(reps) + " is too many: use at most 100000");
      o.reps = static_cast<int>(reps);
    } else if (arg == "--csv") {
      o.csv = next();
    } else if (arg == "--json") {
      o.json = next();
    } else if (arg == "--algorithm") {
      o.algorithms.push_back(next());
    } else if (arg == "--in-place") {
      flag_only();
      o.in_place = true;
    } else if (arg == "--trace") {
      flag_only();
      o.trace = true;
    } else if (arg == "--race-check") {
      flag_only();
      o.race_check = true;
    } else if (arg == "--block-order" || arg == "--thread-order") {
      const std::string v = next();
      if (v != "forward" && v != "reverse" && v != "random") {
        throw UsageError(arg + " '" + v + "': use forward, reverse or random");
      }
      (arg == "--block-order" ? o.block_order : o.thread_order) = v;
    } else if (arg == "--list") {
      flag_only();
      o.list = true;
    } else {
      throw UsageError("unknown option '" + std::string(argv[i]) + "' (see --help)");
    }
  }
  if (!o.input.empty() && (o.n || o.sections)) {
    throw UsageError("--input sets n (one element per value): give --input or --n/--sections, not both");
  }
  return o;
}

std::string usage(const std::string& program, const std::string& title) {
  std::ostringstream out;
  out << title << "\n\n"
      << "usage: " << program << " [options]\n\n"
      << "  --n N                 elements to scan (default: the section's size)\n"
      << "  --sections K          in-block scans: K independent sections of the section's size in\n"
      << "                        one launch (K blocks: fills a GPU), each section scanned on its own\n"
      << "  --type T              int32 | uint32 | int64 | float | double   (default int32)\n"
      << "  --op OP               add | max | min | last                    (default add)\n"
      << "                        last = fill forward: keeps the right operand unless it is the\n"
      << "                        'none' marker; associative but not commutative\n"
      << "  --inclusive           y[i] = x[0] + ... + x[i]                  (default)\n"
      << "  --exclusive           y[0] = identity, y[i] = x[0] + ... + x[i-1]\n"
      << "  --in-place            the output overwrites the input\n"
      << "  --backend B           cuda | cpu | auto: cuda needs an NVIDIA GPU, cpu is scanlab's\n"
      << "                        SIMT emulator; auto picks cuda when a GPU is present (default auto)\n"
      << "  --algorithm NAME      run only this algorithm (repeatable; --list shows them)\n"
      << "  --seed S              seed of the random input                  (default 2024)\n"
      << "  --input V,V,...       scan these values instead of random ones, e.g. the book's\n"
      << "                        example: --input 4,6,7,1,2,8,5,2 (sets n; with --type)\n"
      << "  --reps R              timed repetitions after one warm-up; 0 = verify only (default 10)\n"
      << "  --csv FILE            append one row per algorithm to FILE\n"
      << "  --json FILE           write the results to FILE as JSON\n"
      << "cpu backend only:\n"
      << "  --trace               print each traced shared array after every barrier (small n;\n"
      << "                        arrays of more than 40 elements show their first 16 and last 4)\n"
      << "  --race-check          run under forward, reverse and random thread orders and\n"
      << "                        report whether the outputs differ (a race)\n"
      << "  --block-order O       forward | reverse | random: the order blocks run in\n"
      << "  --thread-order O      forward | reverse | random: the order threads run between barriers\n"
      << "  --list                list the algorithms and exit\n"
      << "  --help                this text\n\n"
      << "The program verifies every result against a CPU reference and prints Passed or FAILED\n"
      << "(exit status 1 on failure); only verified runs are timed.\n";
  return out.str();
}

}  // namespace scanlab
