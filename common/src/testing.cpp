#include "scanlab/testing.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <deque>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

#include "scanlab/dispatch.hpp"
#include "scanlab/error.hpp"
#include "scanlab/explain.hpp"
#include "scanlab/inputs.hpp"
#include "scanlab/program.hpp"
#include "scanlab/reference.hpp"
#include "scanlab/verify.hpp"

#if defined(SCANLAB_WITH_EMULATOR)
#include "scanlab/emu/runtime.hpp"
#endif

namespace scanlab::grading {

std::vector<std::size_t> grading_sizes(std::size_t max_n, std::size_t large, std::uint64_t seed) {
  const std::size_t limit = max_n ? max_n : large;
  const std::size_t edges[] = {
      0, 1, 2,             // empty, smallest
      31, 32, 33,          // around a warp
      63, 64, 65,          // around two warps
      511, 512, 513,       // around a 512-thread block
      1023, 1024, 1025,    // around a 1024-thread block
      2047, 2048, 2049,    // around a 2048-element section
      4095, 4096, 4097,    // around a 4096-element section
  };
  std::set<std::size_t> sizes;
  for (std::size_t n : edges) {
    if (n <= limit) sizes.insert(n);
  }
  sizes.insert(limit - 1);
  sizes.insert(limit);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 3; ++i) sizes.insert(std::uniform_int_distribution<std::size_t>(1, limit)(rng));
  return {sizes.begin(), sizes.end()};
}

RunResult run_add_int32(const Algorithm& algorithm, const std::vector<std::int32_t>& x, std::vector<std::int32_t>& y,
                        ScanKind kind, bool trace) {
  y.assign(x.size(), -1);
  RunRequest request{{DType::int32, OpKind::add, kind, x.size(), false}, x.data(), y.data(), 0, trace};
  return algorithm.run(request);
}

std::vector<std::vector<std::string>> traced_steps(const LaunchStats& launch, std::string_view array,
                                                   std::uint32_t block) {
  std::vector<std::vector<std::string>> steps;
  for (const TraceFrame& frame : launch.trace) {
    if (frame.name != array || frame.block != block) continue;
    if (steps.empty() || steps.back() != frame.values) steps.push_back(frame.values);
  }
  return steps;
}

std::string no_trace_message(std::string_view array) {
  const std::string a(array);
  return "the kernel traces no shared array named " + a + ", so its steps cannot be compared with the book's: "
         "after declaring it, call scanlab::trace_shared(\"" + a + "\", " + a +
         ", count) to record it at every barrier (and see it with --trace)";
}

Algorithm algorithm_named(const AlgorithmTable& table, std::string_view name) {
  if (const Algorithm* a = find_algorithm(table, name)) return *a;
  throw std::runtime_error("no algorithm '" + std::string(name) + "' in this " +
                           scanlab::name(table.backend) + " table");
}

std::optional<std::string> unavailable(const AlgorithmTable& table) {
  try {
    table.device();
    return std::nullopt;
  } catch (const NoDeviceError& e) {
    return std::string("skipped: ") + e.what();
  }
}

namespace {

// Once per algorithm and process: a mutant's run of the whole suite explains each kernel's first
// failure only (explain.hpp), at most a second or two each. Per kernel, not once in all: a bug that
// shows only past one large section (11.6-11.8) is explained by the small-section variant's test.
bool first_explanation(const Algorithm& algorithm) {
  static std::set<std::string> done;
  return done.insert(std::string(algorithm.name)).second;
}

// Time spent on explanations that found nothing since the last one that found something (or the start
// of a grading test): a failure explained with the small-section variant, after the kernel's own shrink
// found nothing, took both.
std::chrono::steady_clock::duration unreported_explaining{};

}  // namespace

std::string timed_explanation(const std::function<std::string()>& explain) {
  const auto start = std::chrono::steady_clock::now();
  std::string found = explain();
  unreported_explaining += std::chrono::steady_clock::now() - start;
  if (found.empty()) return "";
  if (std::getenv("SCANLAB_EXPLAIN_TIMES") != nullptr) {
    found += "\n(the shrink and the explanation took " +
             std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(unreported_explaining).count()) +
             " ms)";
  }
  unreported_explaining = {};
  return found;
}

namespace {

std::string smallest_failure(const Algorithm& algorithm, const ScanProblem& failing, std::uint64_t seed) {
  if (!first_explanation(algorithm)) return "";
  return timed_explanation([&] { return explain::smallest_failure(algorithm, failing, seed); });
}

// After an error, the smallest size that ends in the same error (once per algorithm).
std::string smallest_error(const Algorithm& algorithm, const ScanProblem& failing, std::uint64_t seed,
                           const std::string& error) {
  if (explain::error_kind(error).empty() || !first_explanation(algorithm)) return "";
  return timed_explanation([&] { return explain::smallest_error(algorithm, failing, seed, error); });
}

}  // namespace

namespace {

constexpr const char* kLookBackStoppedAtAggregate = "that tile had published only its aggregate (flag A: its own elements)";

/// For an integer add scan whose first wrong element i holds the inputs from some element k > 0 on
/// and none before (x[k .. i] combined: a carry never added), or the inputs before some element k
/// once more (a carry added to an element that already had it): says so, with the elements right
/// after it that are wrong the same way, in the words of the section's algorithm. "" otherwise. Sums
/// are modulo 2^bits, as the kernel's own wrap.
template <class U>
std::string missing_prefix(const std::string& algorithm, const U* x, const U* y, std::size_t n, ScanKind kind) {
  std::vector<U> before(n + 1, U{0});  // before[k] = x[0] + ... + x[k - 1]
  for (std::size_t i = 0; i < n; ++i) before[i + 1] = static_cast<U>(before[i] + x[i]);
  const auto want = [&](std::size_t i) { return kind == ScanKind::inclusive ? before[i + 1] : before[i]; };
  std::size_t i = 0;
  while (i < n && y[i] == want(i)) ++i;
  if (i == n) return "";
  const std::size_t end = kind == ScanKind::inclusive ? i + 1 : i;  // y[i] should combine x[0 .. end - 1]
  // missing: y = want - before[k]; extra: y = want + before[k].
  const auto missing = [&](std::size_t j) { return static_cast<U>(want(j) - y[j]); };
  const auto extra = [&](std::size_t j) { return static_cast<U>(y[j] - want(j)); };
  // Unsigned inputs are random over all values, so one k matches (the roundest, should two).
  const auto roundest = [&](std::size_t to, U value) {
    std::size_t best = 0;
    for (std::size_t k = 1; k < to; ++k) {
      if (before[k] == value && (best == 0 || std::countr_zero(k) > std::countr_zero(best))) best = k;
    }
    return best;
  };
  bool lacks = true;
  std::size_t k = roundest(end, missing(i));
  if (k == 0) {
    lacks = false;
    k = roundest(n + 1, extra(i));
    if (k == 0) return "";
  }
  std::size_t last = i;  // the elements right after i that are wrong by the same x[0 .. k - 1]
  while (last + 1 < n && y[last + 1] != want(last + 1) && (lacks ? missing(last + 1) : extra(last + 1)) == before[k]) {
    ++last;
  }
  const std::string head = "x[0 .. " + std::to_string(k - 1) + "]";
  const std::string others = last > i ? "; so do elements " + std::to_string(i + 1) + " .. " + std::to_string(last) : "";
  std::string text = "\nWhat the wrong values hold: element " + std::to_string(i) + " combines ";
  if (lacks) {
    text += "x[" + std::to_string(k) + " .. " + std::to_string(end - 1) + "] only, without " + head +
            ", the inputs before element " + std::to_string(k) + others + (others.empty() ? "" : " (each without " + head + ")");
  } else {
    text += "x[0 .. " + std::to_string(end - 1) + "] and, on top of them, " + head + " (the inputs before element " +
            std::to_string(k) + ") once more" + others + (others.empty() ? "" : " (each with " + head + " added on top)");
  }
  const bool look_back = algorithm.find("lookback") != std::string::npos || algorithm.find("look_back") != std::string::npos;
  // The look-back took a value from tiles k .. (its own tile - 1): k < i. (k == i: it took nothing,
  // as when a status is read before its tile published: the race paragraph says that.)
  if (look_back && lacks && k < i) {
    text += ". Its tile's look-back stopped at the tile that starts at element " + std::to_string(k) +
            ", taking that tile's value as if it held everything before it; " + kLookBackStoppedAtAggregate +
            ", so the tiles before it are left out. An aggregate is combined on the left and the look-back goes on "
            "to the tile before it, until a tile that published its inclusive prefix (flag P)";
  } else if (algorithm.rfind("hierarchical", 0) == 0 && lacks) {
    text += ". The sections before element " + std::to_string(k) +
            " were never added to it: in step 3 (add_block_sums_kernel) every element of section b must get the "
            "scanned sums of the sections before it (S[b - 1]). Do the add kernel's threads reach every element of "
            "their section (a block with fewer threads than the section has elements, one element per thread, "
            "reaches only the first ones)?";
  } else if (algorithm.rfind("hierarchical", 0) == 0) {
    text += ". That is the carry of the section that starts at element " + std::to_string(k) +
            " (S[b - 1], the scanned sums of the sections before it), added to an element outside that section: in "
            "step 3 (add_block_sums_kernel) block b adds S[b - 1] to the elements of its own section b and to no "
            "other. An index blockIdx.x * blockDim.x + threadIdx.x lands in section b only when a block has one "
            "thread per element of the section";
  }
  return text;
}

std::string missing_prefix_note(const Algorithm& algorithm, const ScanProblem& p, const void* x, const void* y,
                                std::uint64_t seed) {
  if (p.op != OpKind::add) return "";
  const std::string name(algorithm.name);
  if (p.type == DType::uint32) {
    return missing_prefix(name, static_cast<const std::uint32_t*>(x), static_cast<const std::uint32_t*>(y), p.n, p.kind);
  }
  // Up to 65,536 elements, so that the extra run stays cheap (the grading sizes below that fail first).
  if ((p.type != DType::int32 && p.type != DType::int64) || p.n > 65536) return "";
  // Signed add inputs are a bounded walk (make_input), whose prefix sums repeat: many k would match.
  // The same size again as a uint32 add scan of random inputs, where a sum says which inputs it holds.
  const ScanProblem again{DType::uint32, OpKind::add, p.kind, p.n, p.in_place};
  const HostArray input = make_input(again.type, again.op, again.n, seed + again.n);
  HostArray output(again.type, again.n);
  if (again.in_place) std::memcpy(output.data(), input.data(), input.bytes());
  try {
    algorithm.run(RunRequest{again, again.in_place ? output.data() : input.data(), output.data(), 0, false});
  } catch (const std::exception&) {
    return "";
  }
  const std::string note = missing_prefix(name, static_cast<const std::uint32_t*>(input.data()),
                                          static_cast<const std::uint32_t*>(output.data()), again.n, again.kind);
  if (note.empty()) return "";
  return "\n(n = " + std::to_string(p.n) + " run again as a uint32 add scan of random inputs, where a sum says which "
         "inputs it holds)" + note;
}

// "x[3]" or "x[3 .. 7]".
std::string inputs(std::size_t first, std::size_t last) {
  return "x[" + std::to_string(first) + (first == last ? "" : " .. " + std::to_string(last)) + "]";
}

/// For a failing last, max or min scan: the same size again over distinct inputs (1, 2, ..., n in a
/// seeded order), where each value the scan gives is one input and says which, if it fails there too.
/// Says what the first wrong element holds: for last, which input (it should be the last it combines);
/// for max and min, which input and the widest range of inputs around it of which it is the max (min),
/// against the input that should win. "" otherwise (add, past 65,536 elements, a run that passes). Once
/// per algorithm, as the shrink: one more run of a failing kernel, not one per failing test.
std::string holds_note(const Algorithm& algorithm, const ScanProblem& p, std::uint64_t seed) {
  static std::set<std::string> done;
  if (p.op == OpKind::add || p.n == 0 || p.n > 65536 || !done.insert(std::string(algorithm.name)).second) return "";
  return visit_type_op(p.type, p.op, [&](auto t, auto op) -> std::string {
    using T = typename decltype(t)::type;
    std::vector<std::size_t> order(p.n);
    for (std::size_t j = 0; j < p.n; ++j) order[j] = j;
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed + p.n));
    HostArray input(p.type, p.n), output(p.type, p.n);
    T* const x = input.as<T>();
    for (std::size_t j = 0; j < p.n; ++j) x[j] = static_cast<T>(order[j] + 1);  // exact in every type here
    if (p.in_place) std::memcpy(output.data(), input.data(), input.bytes());
    try {
      algorithm.run(RunRequest{p, p.in_place ? output.data() : input.data(), output.data(), 0, false});
    } catch (const std::exception&) {
      return "";
    }
    std::vector<T> want(p.n);
    reference_scan(x, want.data(), p.n, op, p.kind);
    const T* const y = output.as<T>();
    std::size_t i = 0;
    while (i < p.n && y[i] == want[i]) ++i;
    if (i == p.n) return "";
    // y[i] should combine x[0 .. i] (exclusive: x[0 .. i - 1]); w: the input that should win.
    const bool exclusive = p.kind == ScanKind::exclusive;
    const std::size_t w = static_cast<std::size_t>(std::find(x, x + p.n, want[i]) - x);
    const std::string should = exclusive && i == 0 ? "the identity (element 0 of an exclusive scan combines no input)"
                               : p.op == OpKind::last
                                   ? inputs(w, w) + ", the last of " + inputs(0, exclusive ? i - 1 : i)
                                   : inputs(w, w) + ", the " + std::string(name(p.op)) + " of " +
                                         inputs(0, exclusive ? i - 1 : i);
    std::string text = "\n(n = " + std::to_string(p.n) + " run again over the inputs 1, 2, ..., n in a seeded order, "
                       "so that each value is one input and says which)\nWhat the wrong values hold: in that run, element " +
                       std::to_string(i) + " is ";
    const std::size_t j = static_cast<std::size_t>(std::find(x, x + p.n, y[i]) - x);
    if (y[i] == decltype(op)::identity()) {
      text += "the identity, as if it combined no input";
    } else if (j == p.n) {
      return text + "none of the inputs (a " + std::string(name(p.op)) + " of inputs is always one of them); it should be " +
             should;
    } else if (p.op == OpKind::last) {
      text += inputs(j, j) + (exclusive && i == 0 ? "" : j < w ? ", an earlier input" : ", a later input");
    } else {
      // The widest range around x[j] of which it is the max (min): every range inside it that holds x[j].
      const auto loses = [&](std::size_t k) { return p.op == OpKind::max ? x[k] > x[j] : x[k] < x[j]; };
      std::size_t lo = j, hi = j;
      while (lo > 0 && !loses(lo - 1)) --lo;
      while (hi + 1 < p.n && !loses(hi + 1)) ++hi;
      text += inputs(j, j) + (lo == hi ? std::string(", the ") + name(p.op) + " of itself alone (the inputs beside it are " +
                                             (p.op == OpKind::max ? "larger" : "smaller") + ")"
                                       : ", the " + std::string(name(p.op)) + " of " + inputs(lo, hi) +
                                             " (and of any range in it that holds " + inputs(j, j) + ")");
    }
    return text + "; it should be " + should;
  });
}

}  // namespace

std::string check_sizes(const Algorithm& algorithm, DType type, OpKind op, ScanKind kind,
                        const std::vector<std::size_t>& sizes, bool in_place, std::uint64_t seed, bool* ran,
                        std::size_t* failed_n) {
  if (ran) *ran = true;
  for (std::size_t n : sizes) {
    if (failed_n) *failed_n = n;
    const ScanProblem problem{type, op, kind, n, in_place};
    const HostArray input = make_input(type, op, n, seed + n);
    HostArray output(type, n);
    if (in_place) {
      std::memcpy(output.data(), input.data(), input.bytes());
    } else {
      output.fill_bytes(0);  // the run poisons its device buffer; this only keeps the host copy defined
    }
    RunRequest request{problem, in_place ? output.data() : input.data(), output.data(), 0, false};
    try {
      algorithm.run(request);
    } catch (const Error& e) {
      if (ran) *ran = false;
      // A memory error's line starts with "memory error:" wherever it is reported (the grade report
      // classifies failures by it).
      const std::string what = e.what(), tag = "memory error: ";
      const std::string smaller = smallest_error(algorithm, problem, seed, what);
      if (what.rfind(tag, 0) == 0) {
        return tag + std::string(algorithm.name) + " at n = " + std::to_string(n) + ": " + what.substr(tag.size()) +
               smaller;
      }
      return std::string(algorithm.name) + " at n = " + std::to_string(n) + ": " + what + smaller;
    }
    const VerifyResult v = verify_scan(problem, input.data(), output.data());
    if (!v.passed) {
      return std::string(algorithm.name) + ": " + v.message +
             missing_prefix_note(algorithm, problem, input.data(), output.data(), seed) +
             holds_note(algorithm, problem, seed) +
             smallest_failure(algorithm, problem, seed);
    }
  }
  return "";
}

namespace {

#if defined(SCANLAB_WITH_EMULATOR)
// For a result that changes with the order of the threads: the smallest size where it still does
// (within 1 s, at most 15 sizes, the same thread orders and seed: the schedule stays fixed), then where
// the kernel leaves the book's algorithm when its threads run in reverse order (or the random order,
// when the reverse one follows the book). Once per algorithm, with smallest_failure.
std::string smallest_race(const Algorithm& algorithm, DType type, OpKind op, ScanKind kind, std::size_t n,
                          std::uint64_t seed) {
  if (!first_explanation(algorithm)) return "";
  return timed_explanation([&] {
    const auto start = std::chrono::steady_clock::now();
    int runs = 0;
    for (std::size_t m : explain::kShrinkSizes) {
      if (m >= n || ++runs > 15 || std::chrono::steady_clock::now() - start > std::chrono::seconds(1)) break;
      const HostArray input = make_input(type, op, m, seed);
      HostArray output(type, m);
      try {
        if (!compare_thread_orders(algorithm, RunRequest{{type, op, kind, m, false}, input.data(), output.data()}, seed)
                 .empty()) {
          n = m;
          break;
        }
      } catch (const std::exception&) {
        break;
      }
    }
    const emu::Settings saved = emu::settings();
    std::string found;
    for (const emu::Order order : {emu::Order::reverse, emu::Order::random}) {
      emu::settings().thread_order = order;
      emu::settings().seed = seed;
      found = explain::where_it_went_wrong(algorithm, kind, n, op);
      if (!found.empty()) {
        found = "\nThe smallest size found where the output changes with the order of the threads: n = " +
                std::to_string(n) + "; with the threads of each step run in " + emu::order_name(order) +
                " order (SCANLAB_EMU_THREAD_ORDER=" + emu::order_name(order) +
                (order == emu::Order::random ? " SCANLAB_EMU_SEED=" + std::to_string(seed) : std::string()) + "):" +
                found;
        break;
      }
    }
    emu::settings() = saved;
    return found;
  });
}
#endif

}  // namespace

std::string race_check(const Algorithm& algorithm, DType type, OpKind op, ScanKind kind, std::size_t n,
                       std::uint64_t seed) {
  const HostArray input = make_input(type, op, n, seed);
  HostArray output(type, n);
#if defined(SCANLAB_WITH_EMULATOR)
  // Threads of a block only: with several resident blocks, which tiles of a decoupled look-back have
  // published their prefix depends on the schedule, and so does the rounding of a float sum. Races
  // between blocks are the block schedules' business (see schedule_check).
  const emu::Settings saved = emu::settings();
  emu::settings().resident_blocks = 1;
#endif
  const std::string verdict =
      compare_thread_orders(algorithm, RunRequest{{type, op, kind, n, false}, input.data(), output.data()}, seed);
#if defined(SCANLAB_WITH_EMULATOR)
  emu::settings() = saved;
#endif
  if (verdict.empty()) return "";
  std::string explained;
#if defined(SCANLAB_WITH_EMULATOR)
  emu::settings().resident_blocks = 1;
  explained = smallest_race(algorithm, type, op, kind, n, seed);
  emu::settings() = saved;
#endif
  return std::string(algorithm.name) + " at n = " + std::to_string(n) + ": " + verdict + explained;
}

std::string schedule_check([[maybe_unused]] const Algorithm& algorithm, [[maybe_unused]] DType type,
                           [[maybe_unused]] OpKind op, [[maybe_unused]] ScanKind kind,
                           [[maybe_unused]] std::size_t n) {
#if defined(SCANLAB_WITH_EMULATOR)
  const emu::Settings saved = emu::settings();
  std::string verdict;
  // Two seeds of the random block schedule (the default schedule, adversarial, ran already).
  for (std::uint64_t seed : {11u, 12u}) {
    emu::settings().block_schedule = emu::Schedule::random;
    emu::settings().seed = seed;
    verdict = check_sizes(algorithm, type, op, kind, {n}, false, 1);
    if (!verdict.empty()) {
      verdict = "with resident blocks run on the random schedule (SCANLAB_EMU_BLOCK_SCHEDULE=random "
                "SCANLAB_EMU_SEED=" + std::to_string(seed) + "): " + verdict;
      break;
    }
  }
  emu::settings() = saved;
  if (!verdict.empty()) return verdict;
  // Unwritten shared memory holding other bytes: a result that changes reads shared memory no
  // thread wrote (0x7F bytes are huge for every type, where the usual 0xCD bytes are tiny floats).
  emu::settings().shared_poison = 0x7F;
  verdict = check_sizes(algorithm, type, op, kind, {n}, false, 1);
  emu::settings() = saved;
  if (!verdict.empty()) {
    verdict = "with unwritten shared memory filled with 0x7F bytes instead of 0xCD the result is wrong, so "
              "the kernel reads shared memory that no thread wrote (an element past what it loaded, or "
              "before a barrier): " + verdict;
  }
  return verdict;
#else
  return "";
#endif
}

std::string blocks_hint([[maybe_unused]] const std::string& failure,
                        [[maybe_unused]] const std::function<std::string()>& in_index_order) {
#if defined(SCANLAB_WITH_EMULATOR)
  const std::vector<std::string> waits = emu::take_block_waits();
  if (failure.empty() || failure.find("watchdog") != std::string::npos) return "";
  std::string places;
  for (const std::string& w : waits) places += (places.empty() ? "" : ", ") + w;
  const emu::Settings saved = emu::settings();
  emu::settings().resident_blocks = 1;
  const std::string in_order = in_index_order();
  emu::settings() = saved;
  emu::take_block_waits();  // the rerun's own waits say nothing new
  // The wrong values already say which tiles the look-back left out (missing_prefix): the blocks
  // waited for the flags, so the rule about reading only after the wait is not the one broken.
  if (in_order.empty() && failure.find(kLookBackStoppedAtAggregate) != std::string::npos) return "";
  if (in_order.empty()) {
    return "(a race between blocks: the result is right when the blocks run one after another in index "
           "order, and wrong when they run at the same time, as on a GPU. " +
           (places.empty() ? std::string("No block waited for another: a block reads what another block writes "
                                         "without waiting for that block's flag")
                           : "Blocks waited for other blocks at " + places +
                                 ": a block must read what another block wrote only after that wait sees the "
                                 "other block's flag") +
           ", and the writer must make its data visible before it sets the flag)\n";
  }
  if (places.empty()) return "";
  return "(blocks of this kernel waited for other blocks at " + places +
         ": a block must read what another block wrote only after that wait sees the other block's "
         "flag; the emulator runs the waiting blocks first, so a read before the wait sees old data)\n";
#else
  return "";
#endif
}

namespace {

// A wrong output that shows only past one large section (11.6, 11.7: thousands of elements) is
// explained with the section's test-only variants of the same kernels over smaller sections
// (GradingOptions::small_sections), when the failure has no explanation of its own: the smallest
// sections first (the table lists them last), so that the case shown is as small as the kernel allows.
std::vector<const Algorithm*> smaller_sections(const AlgorithmTable* table, const Algorithm& algorithm) {
  std::vector<const Algorithm*> out;
  for (const Algorithm& small : table ? table->algorithms : std::span<const Algorithm>{}) {
    if (small.name != algorithm.name) out.insert(out.begin(), &small);
  }
  return out;
}

std::string with_smaller_sections(const Algorithm& small, const std::string& found) {
  return "\nThe same kernels with smaller sections (" + std::string(small.name) + ": " + std::string(small.summary) +
         ") fail too:" + found;
}

std::string small_sections_explanation(const AlgorithmTable* table, const Algorithm& algorithm, DType type, OpKind op,
                                       ScanKind kind, std::size_t n, const std::string& failure) {
  if (failure.find("\nThe smallest failing case found") != std::string::npos) return "";
  for (const Algorithm* small : smaller_sections(table, algorithm)) {
    if (!first_explanation(*small)) return "";
    const std::string found =
        timed_explanation([&] { return explain::smallest_failure(*small, ScanProblem{type, op, kind, n, false}, 1); });
    if (!found.empty()) return with_smaller_sections(*small, found);
  }
  return "";
}

// After an error that no smaller size gives (a section's edge, thousands of elements): the smallest size
// where one of the section's smaller-section variants gives it, else the failing case itself.
std::string smallest_error_of_size(const AlgorithmTable* table, const Algorithm& algorithm, const ScanProblem& failing,
                                   const std::string& error) {
  static std::set<std::string> done;  // once per algorithm, as first_explanation
  if (!done.insert(std::string(algorithm.name)).second) return "";
  for (const Algorithm* small : smaller_sections(table, algorithm)) {
    const std::string found = timed_explanation([&] { return explain::smallest_error(*small, failing, 1, error); });
    if (!found.empty()) return with_smaller_sections(*small, found);
  }
  return timed_explanation([&] { return explain::smallest_error(algorithm, failing, 1, error, true); });
}

class GradingTest : public ::testing::Test {
 public:
  GradingTest(const AlgorithmTable& table, const Algorithm& algorithm, DType type, OpKind op, ScanKind kind,
              GradingOptions options)
      : table_(table), algorithm_(algorithm), type_(type), op_(op), kind_(kind), options_(std::move(options)) {}

  void TestBody() override {
    SCANLAB_SKIP_IF_UNAVAILABLE(table_);
    const auto sizes = grading_sizes(algorithm_.max_n, options_.large);
    blocks_hint("", {});  // forget the waits of earlier tests
    unreported_explaining = {};  // and the time earlier tests spent explaining
    bool ran = true;
    std::size_t failed_n = 0;
    std::string failure = check_sizes(algorithm_, type_, op_, kind_, sizes, false, 1, &ran, &failed_n);
    if (ran && !failure.empty()) {
      failure += small_sections_explanation(options_.small_sections, algorithm_, type_, op_, kind_, failed_n, failure);
    } else if (!ran && !explain::error_kind(failure).empty() &&
               failure.find("\nThe smallest failing case found") == std::string::npos) {
      failure += smallest_error_of_size(options_.small_sections, algorithm_, {type_, op_, kind_, failed_n, false},
                                        failure);
    }
    const auto in_index_order = [&] { return check_sizes(algorithm_, type_, op_, kind_, {failed_n}, false, 1); };
    EXPECT_EQ(failure, "") << (ran ? blocks_hint(failure, in_index_order) : "") << "see " << options_.source_hint;
    if (failure.empty() && op_ == OpKind::add) {
      // In place (output aliasing input), once per type and kind, at sizes the algorithm accepts
      // (sizes.back() is the largest: the section's size, or `large` for algorithms that scan any n).
      // An exclusive scan must read x[i] before y[i] (the same element) is written.
      std::vector<std::size_t> in_place_sizes;
      for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::max<std::size_t>(sizes.back() / 2, 2)}) {
        if (n <= sizes.back()) in_place_sizes.push_back(n);
      }
      EXPECT_EQ(check_sizes(algorithm_, type_, op_, kind_, in_place_sizes, true), "")
          << "in place (y == x): the output overwrites the input, so an element read after its output is "
             "written gives a wrong value; see " << options_.source_hint;
    }
#if defined(SCANLAB_WITH_EMULATOR)
    // Also after a wrong output: when the output changes with the order of the threads, the student
    // learns it is a race (a missing __syncthreads), which the wrong value alone does not say. Not
    // after an error (a deadlock, the watchdog): running it again would say nothing new, slowly.
    if (ran && table_.backend == Backend::cpu && options_.race_check) {
      EXPECT_EQ(race_check(algorithm_, type_, op_, kind_, sizes.back()), "") << "see " << options_.source_hint;
    }
    if (failure.empty() && table_.backend == Backend::cpu) {
      EXPECT_EQ(schedule_check(algorithm_, type_, op_, kind_, sizes.back()), "") << "see " << options_.source_hint;
    }
#endif
  }

 private:
  const AlgorithmTable& table_;
  const Algorithm& algorithm_;
  DType type_;
  OpKind op_;
  ScanKind kind_;
  GradingOptions options_;
};

}  // namespace

bool register_grading_tests(const AlgorithmTable& table, const GradingOptions& options) {
  static std::deque<AlgorithmTable> keep;  // the tests refer to the table for the whole run
  keep.push_back(table);
  const AlgorithmTable& kept = keep.back();
  for (const Algorithm& algorithm : kept.algorithms) {
    if (options.exercise && algorithm.given) continue;  // not the student's kernel: no points for it
    for (DType type : kAllTypes) {
      for (OpKind op : kAllOps) {
        for (ScanKind kind : kAllKinds) {
          const std::string suite = "Grading." + std::string(algorithm.name);
          const std::string test = std::string(name(type)) + "_" + name(op) + "_" + name(kind);
          ::testing::RegisterTest(suite.c_str(), test.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                                  [&kept, &algorithm, type, op, kind, options]() -> ::testing::Test* {
                                    return new GradingTest(kept, algorithm, type, op, kind, options);
                                  });
        }
      }
    }
  }
  return true;
}

}  // namespace scanlab::grading
