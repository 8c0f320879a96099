// Section 11.8 grading tests: the decoupled look-back scan over every type, operator, inclusive and
// exclusive, in place, at the edge sizes and around tile boundaries; 100 launches on one workspace
// (stale statuses of an earlier launch must never count); look-backs through many windows of
// aggregates (the case where combining in the wrong order shows); misaligned arrays; and, on the cpu
// backend, blocks started in reverse and random order and run by two workers at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms.hpp"
#include "scanlab/explain.hpp"
#include "scanlab/inputs.hpp"
#include "scanlab/testing.hpp"
#include "scanlab/verify.hpp"

#if defined(SCANLAB_LINKED_CPU)
#include "scanlab/emu/runtime.hpp"
#endif

namespace {

using namespace scanlab;

const AlgorithmTable& table() { return grading::linked_table<s11_8::linked_tables>(); }
bool on_gpu() { return table().backend == Backend::cuda; }

// "" if every launch of `r` scanned right, else the first that did not (which, and what is wrong). The
// outputs come back from the kernels and are checked here: the first two (one per input) against the
// CPU reference, each later one as a repeat of the earlier launch on the same input.
std::string repeated_launches(const s11_8::RepeatedLaunches& r, int* failed = nullptr);

// After launch k of `r` went wrong (issue 37): the fewest launches that go wrong is k + 1 (the launches
// before it are the same whatever follows); then the smallest size (explain.hpp's sizes) at which that
// many go wrong, with what is wrong there.
std::size_t tile_items(DType type);

std::string fewest_launches(const s11_8::RepeatedLaunches& r, int failed) {
  return grading::timed_explanation([&]() -> std::string {
    // The sizes below one tile, then 2, 3, 5, 9, ... tiles, one element in the last (the look-back needs
    // predecessors; a stale status may need many), within 3 s.
    namespace ex = grading::explain;
    std::vector<std::size_t> sizes(std::begin(ex::kShrinkSizes), std::end(ex::kShrinkSizes));
    const std::size_t tile = r.persistent ? 0 : tile_items(r.type);
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](std::size_t m) { return tile > 0 && m > tile; }),
                sizes.end());
    for (std::size_t tiles = 1; tile > 0 && tiles * tile < r.n; tiles = 2 * tiles) sizes.push_back(tiles * tile + 1);
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t m : sizes) {
      if (m >= r.n || std::chrono::steady_clock::now() - start > std::chrono::seconds(3)) break;
      s11_8::RepeatedLaunches small = r;
      small.n = m;
      small.launches = failed + 1;
      int k = -1;
      std::string found;
      try {
        found = repeated_launches(small, &k);
      } catch (const std::exception&) {
        return "";
      }
      if (found.empty() || k < 0) continue;
      return "\nThe smallest failing case found: n = " + std::to_string(m) + ", x = the seeded inputs " +
             std::to_string(r.seed) + " and " + std::to_string(r.seed + 1) + " in turn, " + std::to_string(k + 1) +
             " launches on one workspace\nWhere it goes wrong (" + std::to_string(k + 1) +
             " launches of n = " + std::to_string(m) + "):\n    " + found + (k > 0 ? std::string("; the launch") +
             (k > 1 ? "es" : "") + " before it scanned right, so what a launch leaves in the tile statuses changes "
             "the next one" : "");
    }
    return "";
  });
}

std::string repeated_launches(const s11_8::RepeatedLaunches& r, int* failed) {
  const s11_8::RepeatedOutputs out = SCANLAB_LINKED_ENTRY(s11_8::repeated_launches)(r);
  const ScanProblem problem{r.type, r.op, r.kind, r.n, false};
  const HostArray inputs[2] = {make_input(r.type, r.op, r.n, r.seed), make_input(r.type, r.op, r.n, r.seed + 1)};
  const std::string launch_of = " of " + std::to_string(r.launches) + " on one workspace: ";
  const bool full = is_floating(r.type);
  if (out.digests.size() > static_cast<std::size_t>(r.launches) ||
      out.outputs.size() != (full ? out.digests.size() : std::min<std::size_t>(out.digests.size(), 2))) {
    return "the kernels' process sent " + std::to_string(out.digests.size()) + " digests and " +
           std::to_string(out.outputs.size()) + " outputs for " + std::to_string(r.launches) + " launches";
  }
  // Launch i's wrong output, shrunk to the fewest launches and the smallest size (not when shrinking).
  const auto wrong = [&](std::size_t i, const std::string& what) {
    if (failed) {
      *failed = static_cast<int>(i);
      return what;
    }
    return what + fewest_launches(r, static_cast<int>(i));
  };
  for (std::size_t i = 0; i < out.digests.size(); ++i) {
    const std::string what = "launch " + std::to_string(i) + launch_of;
    if (i < out.outputs.size()) {
      const std::string& output = out.outputs[i];
      if (output.size() != inputs[i % 2].bytes() || s11_8::digest(output) != out.digests[i]) {
        return what + "an output of the wrong size or digest";
      }
      const VerifyResult v = verify_scan(problem, inputs[i % 2].data(), output.data());
      if (!v.passed) return wrong(i, what + v.message);
    } else if (out.digests[i] != out.digests[i % 2]) {
      return wrong(i, what + "the output differs from launch " + std::to_string(i % 2) +
                          "'s on the same input, which was right: a flag or status of an earlier launch changed "
                          "this one");
    }
  }
  if (!out.error.empty()) return out.error;
  if (out.digests.size() != static_cast<std::size_t>(r.launches)) {
    return "only " + std::to_string(out.digests.size()) + " of " + std::to_string(r.launches) + " launches ran";
  }
  return "";
}
std::size_t tile_items(DType type) {
  return SCANLAB_LINKED_ENTRY(s11_8::tile_items)(type);
}

// The algorithms only the tests use.
const AlgorithmTable& test_table() { return grading::kept_table<SCANLAB_LINKED_ENTRY(s11_8::test_algorithms)>(); }

// Sizes for the grading tests: up to 200,000 on the emulator, 2^22 + a few on a GPU. A wrong output that
// needs several tiles is explained over the 128-element ones (graded only through the kernel it shares).
const bool registered = [] {
  grading::GradingOptions options = SCANLAB_GRADING_OPTIONS(on_gpu() ? (1u << 22) + 5 : 200000);
  options.small_sections = &test_table();
  return grading::register_grading_tests(table(), options);
}();

#if defined(SCANLAB_LINKED_CPU)
/// Changes emulator settings for one scope.
class EmulatorSettings {
 public:
  EmulatorSettings() : saved_(emu::settings()) {}
  ~EmulatorSettings() { emu::settings() = saved_; }
  emu::Settings& operator*() { return emu::settings(); }
  emu::Settings* operator->() { return &emu::settings(); }

 private:
  emu::Settings saved_;
};
#endif

// The checks below run on both kernels of the section: the decoupled look-back scan (the student's)
// and, in the solution build, the persistent pipelined kernel (persistent_scan.cuh, given).
struct Kernel {
  Algorithm algorithm;
  bool persistent;
  std::size_t (*tile_items)(DType);
  std::string see;  // what a failure message ends with: where to look
};

// Around 1, 2, 3 tiles, and 33 tiles (the look-back window is 32 tiles), for both status widths.
void check_tile_boundaries(const Kernel& k) {
  for (const DType type : {DType::int32, DType::float64}) {
    const std::size_t tile = k.tile_items(type);
    std::vector<std::size_t> sizes;
    for (const std::size_t tiles : {1u, 2u, 3u, 33u}) {
      for (const std::size_t n : {tiles * tile - 1, tiles * tile, tiles * tile + 1}) sizes.push_back(n);
    }
    for (const OpKind op : {OpKind::add, OpKind::last}) {
      for (const ScanKind kind : kAllKinds) {
        EXPECT_EQ(grading::check_sizes(k.algorithm, type, op, kind, sizes), "")
            << "tile of " << tile << " elements; " << k.see;
      }
    }
  }
}

// `launches` launches of about `tiles` tiles (2^22 elements on a GPU) on one workspace, on at most
// `max_blocks` blocks (0: as many as fit), with two workers running blocks at once on the cpu backend.
void check_repeated_launches(const Kernel& k, std::size_t tiles, std::size_t max_blocks, int launches) {
#if defined(SCANLAB_LINKED_CPU)
  EmulatorSettings settings;
  settings->workers = 2;
#endif
  for (const DType type : {DType::int32, DType::int64}) {
    s11_8::RepeatedLaunches r;
    r.type = type;
    r.persistent = k.persistent;
    r.max_blocks = max_blocks;
    r.n = on_gpu() ? (std::size_t{1} << 22) + 3 : tiles * k.tile_items(type) + 3;
    r.launches = launches;
    EXPECT_EQ(repeated_launches(r), "") << launches << " launches on at most " << max_blocks
                                        << " blocks (0: as many as fit); " << k.see;
  }
}

// Only tile 0 publishes its inclusive prefix, so every other tile combines all its predecessors'
// aggregates, 32 per window, in order: `last` (not commutative) shows a wrong order.
void check_windows_of_aggregates(const Kernel& k) {
  for (const DType type : {DType::int32, DType::uint32, DType::int64, DType::float32, DType::float64}) {
    for (const OpKind op : kAllOps) {
      for (const ScanKind kind : kAllKinds) {
        s11_8::RepeatedLaunches r;
        r.type = type;
        r.op = op;
        r.kind = kind;
        r.persistent = k.persistent;
        r.n = (on_gpu() ? 200 : 40) * k.tile_items(type) + 5;
        r.launches = 2;
        r.prefix_period_log2 = 31;
        EXPECT_EQ(repeated_launches(r), "") << name(type) << " " << name(op) << " " << name(kind) << "; " << k.see;
      }
    }
  }
}

// Arrays that do not start on a 16-byte boundary (input or output) take the element-by-element path.
void check_misaligned(const Kernel& k, std::size_t tiles) {
  for (const DType type : {DType::int32, DType::float64}) {
    for (const std::size_t offset : {1u, 3u}) {
      s11_8::RepeatedLaunches r;
      r.type = type;
      r.op = OpKind::last;
      r.persistent = k.persistent;
      r.n = tiles * k.tile_items(type) + 7;
      r.launches = 2;
      r.offset = offset;
      EXPECT_EQ(repeated_launches(r), "") << "offset " << offset << "; " << k.see;
    }
  }
}

// Correctness at scale: 2^30 ints (4 GiB in, 4 GiB out; 262,144 tiles in one launch), verified
// against the CPU reference. GPU only: on the emulator it would take hours.
void check_two_to_the_30(const Kernel& k, ScanKind kind) {
  EXPECT_EQ(grading::check_sizes(k.algorithm, DType::int32, OpKind::add, kind, {std::size_t{1} << 30}), "") << k.see;
}

const Kernel& lookback() {
  static const Kernel k{table().algorithms[0], false, &tile_items, std::string("see ") + SCANLAB_SOURCE_HINT};
  return k;
}

TEST(Section11_8, TileBoundaries) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  check_tile_boundaries(lookback());
}

// One workspace, 100 launches, the input alternating between two arrays: a status left by the
// previous launch must read as "not yet published". On the cpu backend two workers run blocks at
// the same time, so a tile does find predecessors that have not published yet in this launch.
TEST(Section11_8, HundredLaunchesOnOneWorkspace) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  check_repeated_launches(lookback(), 12, 0, 100);
}

TEST(Section11_8, LookBackThroughWindowsOfAggregates) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  check_windows_of_aggregates(lookback());
}

TEST(Section11_8, TwoToThe30IntsOnAGpu) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  if (!on_gpu()) GTEST_SKIP() << "2^30 elements run on a GPU only (the emulator would take hours)";
  check_two_to_the_30(lookback(), ScanKind::inclusive);
}

TEST(Section11_8, MisalignedArrays) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  check_misaligned(lookback(), 3);
}

// ---- the persistent pipelined kernel (persistent_scan.cuh) -------------------------------------
// Given, not written by the student: tested in the solution build only (Algorithm::given).
#if !defined(SCANLAB_GRADES_EXERCISE)

std::size_t persistent_tile_items(DType type) { return SCANLAB_LINKED_ENTRY(s11_8::persistent_tile_items)(type); }
const Kernel& persistent() {
  static const Kernel k{grading::algorithm_named(table(), "persistent_pipelined"), true, &persistent_tile_items,
                        "the persistent kernel"};
  return k;
}

// Bulk copies bring whole 16-byte chunks below n into the stages (on sm_90); the warps read the rest
// of the last tile from x directly; a ring of stages wraps around many times.
TEST(Section11_8, PersistentTileBoundaries) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  check_tile_boundaries(persistent());
}

// 100 launches on one workspace (20 on the cpu backend with 1 or 3 blocks, which scan many tiles
// each): the ring of stages turns over many times, and the ticket counter must be rewound by
// exactly the last ticket of each launch.
TEST(Section11_8, PersistentHundredLaunchesOnOneWorkspace) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  for (const std::size_t blocks : {0u, 1u, 3u}) {
    check_repeated_launches(persistent(), 6, blocks, on_gpu() || blocks == 0 ? 100 : 20);
  }
}

TEST(Section11_8, PersistentLookBackThroughWindowsOfAggregates) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  check_windows_of_aggregates(persistent());
}

// Misaligned input or output (a misaligned x gets no bulk copies: the warps read its tiles directly).
TEST(Section11_8, PersistentMisalignedArrays) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  check_misaligned(persistent(), 5);
}

TEST(Section11_8, PersistentTwoToThe30IntsOnAGpu) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  if (!on_gpu()) GTEST_SKIP() << "2^30 elements run on a GPU only (the emulator would take hours)";
  for (const ScanKind kind : kAllKinds) check_two_to_the_30(persistent(), kind);
}
#endif  // !SCANLAB_GRADES_EXERCISE

#if defined(SCANLAB_LINKED_CPU)
// Tiles are numbered by a ticket counter, not by blockIdx, so the order in which blocks start does
// not matter (numbered by blockIdx, a block started first would wait for ever on a block not started).
TEST(Section11_8, AnyBlockOrder) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  for (const auto order : {emu::Order::reverse, emu::Order::random}) {
    EmulatorSettings settings;
    settings->block_order = order;
    settings->seed = 5;
    settings->watchdog_seconds = std::min(settings->watchdog_seconds, 5.0);  // SCANLAB_EMU_WATCHDOG_S may say less
    std::vector<const Kernel*> kernels{&lookback()};
#if !defined(SCANLAB_GRADES_EXERCISE)
    kernels.push_back(&persistent());
#endif
    for (const Kernel* k : kernels) {
      EXPECT_EQ(grading::check_sizes(k->algorithm, DType::int32, OpKind::last, ScanKind::inclusive,
                                     {5 * k->tile_items(DType::int32) + 9}),
                "")
          << emu::order_name(order) << " block order; " << k->see;
    }
  }
}
#endif

}  // namespace
