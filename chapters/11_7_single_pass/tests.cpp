// Section 11.7 grading tests: the single-pass scan over every type, operator, inclusive and
// exclusive, in place, at the edge sizes up to 12,289 (with the race check on the cpu backend), also
// over 256-element sections (chains of up to 49 blocks); about a million elements; 100 launches in
// a row on the same buffers; and, on the cpu backend, blocks started in reverse and random order,
// with and without the dynamic block index.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms.hpp"
#include "scanlab/dispatch.hpp"
#include "scanlab/error.hpp"
#include "scanlab/explain.hpp"
#include "scanlab/reference.hpp"
#include "scanlab/inputs.hpp"
#include "scanlab/testing.hpp"
#include "scanlab/verify.hpp"

#if defined(SCANLAB_LINKED_CPU)
#include "scanlab/emu/runtime.hpp"
#endif

namespace {

using namespace scanlab;

const AlgorithmTable& table() { return grading::linked_table<s11_7::linked_tables>(); }

// The algorithms only the tests use.
const AlgorithmTable& test_table() { return grading::kept_table<SCANLAB_LINKED_ENTRY(s11_7::test_algorithms)>(); }

RunResult repeated_launches(const RunRequest& request) {
  return SCANLAB_LINKED_ENTRY(s11_7::repeated_launches)(request);
}

Algorithm algorithm(const AlgorithmTable& in, std::string_view name) { return grading::algorithm_named(in, name); }

const bool registered = [] {
#if defined(SCANLAB_LINKED_CPU)
  // A block that waits for a flag nobody sets fails its launch after 2 s without progress, not 10
  // (or sooner where SCANLAB_EMU_WATCHDOG_S says so: the mutant tests).
  emu::settings().watchdog_seconds = std::min(emu::settings().watchdog_seconds, 2.0);
#endif
  // Grade "single_pass" (the cpu table also has the static-index kernel, which is only correct
  // while blocks start in order: see BlockIndexFromBlockIdxDeadlocksOutOfOrder) up to 3 sections and
  // one element, and the 256-element sections as far: chains of up to 49 blocks.
  // A wrong output of "single_pass" that needs several sections is explained over the 32-element ones
  // (else the 256-element ones), which are not graded themselves.
  grading::GradingOptions options = SCANLAB_GRADING_OPTIONS(3 * 4096 + 1);
  options.small_sections = &test_table();
  return grading::register_grading_tests(grading::first_algorithm_only(table()), options) &&
         grading::register_grading_tests(grading::first_algorithm_only(test_table()), options);
}();

struct Problem {
  DType type;
  OpKind op;
  ScanKind kind;
};
const Problem kProblems[] = {{DType::int32, OpKind::add, ScanKind::inclusive},
                             {DType::float64, OpKind::last, ScanKind::exclusive}};

// Long arrays: 256 sections of 4096 and one element less or more (the last section partial), and a
// size that is no multiple of anything.
TEST(Section11_7, ScansAboutAMillionElements) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  const Algorithm& a = algorithm(table(), "single_pass");
  EXPECT_EQ(grading::check_sizes(a, DType::int32, OpKind::add, ScanKind::inclusive,
                                 {256 * 4096 - 1, 256 * 4096 + 1, 1234567}),
            "")
      << "see " << SCANLAB_SOURCE_HINT;
  EXPECT_EQ(grading::check_sizes(a, DType::float64, OpKind::last, ScanKind::exclusive, {256 * 4096}), "")
      << "see " << SCANLAB_SOURCE_HINT;
}

// The same algorithm object launched 100 times on the same counter, flags and buffers, each launch
// with a new input and a poisoned output, every result checked. Only correct if the counter and the
// flags are reset before every launch: a counter left counted up hands out indices past the grid
// (nothing is written), and flags left set let a block read a running total before its predecessor
// wrote this launch's (seen on a GPU; on the cpu backend blocks run one at a time in index order,
// so a stale flag alone goes unnoticed there).
// `launches` launches of `problem` in a row on the same buffers, launch k on the seeded input 1000 + k:
// the first launch whose output is wrong (-1: none), its input, output and what is wrong.
struct Launches {
  int failed = -1;
  HostArray input, output;
  VerifyResult verdict;
};
Launches launch_repeatedly(const ScanProblem& problem, int launches) {
  const std::size_t n = problem.n;
  HostArray input(problem.type, n * launches), output(problem.type, n * launches);
  std::vector<HostArray> inputs;
  for (int k = 0; k < launches; ++k) {
    inputs.push_back(make_input(problem.type, problem.op, n, 1000 + k));
    std::memcpy(static_cast<char*>(input.data()) + k * inputs[k].bytes(), inputs[k].data(), inputs[k].bytes());
  }
  output.fill_bytes(0);
  repeated_launches(RunRequest{problem, input.data(), output.data(), launches, false});
  Launches out;
  for (int k = 0; k < launches; ++k) {
    const char* got = static_cast<const char*>(output.data()) + k * inputs[k].bytes();
    out.verdict = verify_scan(problem, inputs[k].data(), got);
    if (out.verdict.passed) continue;
    out.failed = k;
    out.input = std::move(inputs[k]);
    out.output = HostArray(problem.type, n);
    std::memcpy(out.output.data(), got, out.output.bytes());
    break;
  }
  return out;
}

// After launch k of many on the same buffers failed (issue 37): the fewest launches that fail is k + 1
// (the launches before it are the same whatever follows), then the smallest size at which that many
// fail (explain.hpp's sizes), in full: the failing launch's input, the expected and the actual output.
std::string fewest_launches(const ScanProblem& failing, int failed) {
  return grading::timed_explanation([&]() -> std::string {
    for (std::size_t m : grading::explain::kShrinkSizes) {
      if (m >= failing.n) break;
      ScanProblem problem = failing;
      problem.n = m;
      Launches out;
      try {
        out = launch_repeatedly(problem, failed + 1);
      } catch (const std::exception&) {
        return "";
      }
      if (out.failed < 0) continue;
      const std::string k = std::to_string(out.failed + 1);
      std::string expected;
      visit_type_op(problem.type, problem.op, [&](auto t, auto op) {
        using T = typename decltype(t)::type;
        HostArray want(problem.type, m);
        reference_scan(out.input.as<T>(), want.as<T>(), m, op, problem.kind);
        expected = grading::explain::show_elements(want, m);
      });
      return "\nThe smallest failing case found: n = " + std::to_string(m) + ", x = launch " + k + "'s input, " + k +
             " launches on the same buffers\n  x        " + grading::explain::show_elements(out.input, m) +
             "\n  expected " + expected + "\n  got      " + grading::explain::show_elements(out.output, m) +
             "\n  (" + std::to_string(out.verdict.wrong) + " of " + std::to_string(m) + " elements wrong)" +
             "\nWhere it goes wrong (" + k + " launches of n = " + std::to_string(m) + "):\n    launch " + k +
             ": " + out.verdict.message + "; the launch" + (out.failed == 1 ? "" : "es") + " before it, on the same "
             "counter and flags, scanned right, so what a launch leaves in them changes the next one";
    }
    return "";
  });
}

TEST(Section11_7, HundredLaunchesOnTheSameBuffers) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  const int launches = 100;
  const std::size_t n = table().backend == Backend::cpu ? 3 * 4096 + 5 : (std::size_t{1} << 20) + 3;
  for (const Problem& p : kProblems) {
    const ScanProblem problem{p.type, p.op, p.kind, n, false};
    Launches out;
    ASSERT_NO_THROW(out = launch_repeatedly(problem, launches));
    if (out.failed >= 0) {
      FAIL() << "launch " << out.failed + 1 << " of " << launches << " on the same buffers: " << out.verdict.message
             << "\n(are the counter and the flags reset before every launch?)" << fewest_launches(problem, out.failed)
             << "\nsee " << SCANLAB_SOURCE_HINT;
    }
  }
}

#if defined(SCANLAB_LINKED_CPU)

/// Sets the emulator's block order for one scope.
class BlockOrder {
 public:
  explicit BlockOrder(emu::Order order, std::uint64_t seed = 5) : saved_(emu::settings()) {
    emu::settings().block_order = order;
    emu::settings().seed = seed;
  }
  BlockOrder(const BlockOrder&) = delete;
  BlockOrder& operator=(const BlockOrder&) = delete;
  ~BlockOrder() { emu::settings() = saved_; }

 private:
  emu::Settings saved_;
};

// The dynamic block index makes the result independent of the order in which blocks start: under
// reverse and random orders, the first block to start takes section 0.
TEST(Section11_7, AnyBlockOrderWithTheCounter) {
  for (const auto order : {emu::Order::reverse, emu::Order::random}) {
    const BlockOrder scope(order);
    for (const char* name : {"single_pass", "single_pass_small_sections"}) {
      const Algorithm& a = algorithm(std::string(name) == "single_pass" ? table() : test_table(), name);
      for (const Problem& p : kProblems) {
        ASSERT_EQ(grading::check_sizes(a, p.type, p.op, p.kind, {5 * 4096 + 1, 256 * 30 + 7}), "")
            << "blocks started in " << emu::order_name(order)
            << " order: does each block take its section number from the counter? see " << SCANLAB_SOURCE_HINT;
      }
    }
  }
}

// Why the counter (Sec. 11.7): with blockIdx.x as section number, the same kernel is right while
// blocks start in index order, and deadlocks when they do not: the first block to start, the last
// section, waits for a predecessor that cannot start until it is done. The emulator's watchdog sees
// no progress and fails the launch. (On a GPU the same can hang for good: this kernel is only in the
// cpu backend's table.)
TEST(Section11_7, BlockIndexFromBlockIdxDeadlocksOutOfOrder) {
  const Algorithm& a = algorithm(table(), "single_pass_static_index");
  // More blocks than the emulator keeps resident at once (settings().resident_blocks, 4): in reverse
  // order the resident ones all wait for a block that cannot start.
  const std::size_t n = 8 * 4096;
  EXPECT_EQ(grading::check_sizes(a, DType::int32, OpKind::add, ScanKind::inclusive, {n}), "")
      << "in index order the static index works; see " << SCANLAB_SOURCE_HINT;
  const BlockOrder scope(emu::Order::reverse);
  const std::string failure = grading::check_sizes(a, DType::int32, OpKind::add, ScanKind::inclusive, {n});
  EXPECT_NE(failure, "") << "with blocks started in reverse order, block 2 should wait for block 1 forever "
                            "(the leader must spin until its predecessor's flag is set); see "
                         << SCANLAB_SOURCE_HINT;
  EXPECT_NE(failure.find("watchdog"), std::string::npos) << failure;
}

#endif  // SCANLAB_LINKED_CPU

}  // namespace
