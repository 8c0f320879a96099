// Section 11.6 grading tests: the hierarchical scan (over the coarsened kernel, the book's choice)
// for every type, operator, inclusive and exclusive, in place, at the edge sizes up to 3 sections
// and one element (with the race check on the cpu backend); the same over the Kogge-Stone and
// Brent-Kung kernels for two problems; three levels of recursion over 32-element sections, for every
// operator; sizes around a multiple of a section near a million, and past one section squared; and,
// on the cpu backend, the launches each level of the recursion makes.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "algorithms.hpp"
#include "scanlab/testing.hpp"

namespace {

using namespace scanlab;

const AlgorithmTable& table() { return grading::linked_table<s11_6::linked_tables>(); }

// The algorithms only the tests use.
const AlgorithmTable& test_table() { return grading::kept_table<SCANLAB_LINKED_ENTRY(s11_6::test_algorithms)>(); }

Algorithm algorithm(const AlgorithmTable& in, std::string_view name) { return grading::algorithm_named(in, name); }

// The hierarchical code is the same whichever in-block kernel runs step 1, so every type and
// operator is graded over the default one (table entry 0, the coarsened kernel, sections of 4096),
// up to 3 sections and one element; the other kernels are checked below.
// A wrong output that needs several 4096-element sections is explained over the 32-element ones.
const bool registered = [] {
  grading::GradingOptions options = SCANLAB_GRADING_OPTIONS(3 * 4096 + 1);
  options.small_sections = &test_table();
  return grading::register_grading_tests(grading::first_algorithm_only(table()), options);
}();

struct Problem {
  DType type;
  OpKind op;
  ScanKind kind;
};

// The other in-block kernels (Kogge-Stone, sections of 1024; Brent-Kung, 2048) under the same host
// code, around one and several sections.
TEST(Section11_6, EveryInBlockKernel) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  const Problem problems[] = {{DType::int32, OpKind::add, ScanKind::inclusive},
                              {DType::float32, OpKind::last, ScanKind::exclusive}};
  for (const char* name : {"hierarchical_kogge_stone", "hierarchical_brent_kung"}) {
    for (const Problem& p : problems) {
      EXPECT_EQ(grading::check_sizes(algorithm(table(), name), p.type, p.op, p.kind,
                                     {1, 1023, 1024, 1025, 2047, 2048, 2049, 5 * 2048 + 3}),
                "")
          << name << " " << scanlab::name(p.type) << " " << scanlab::name(p.op) << " " << scanlab::name(p.kind)
          << "; see " << SCANLAB_SOURCE_HINT;
    }
  }
}

// Deep recursion, every operator and kind, over 32-element sections: n > 32^2 needs block sums of
// block sums (1025 -> 33 -> 2 -> 1), n > 32^3 one level more (32769 -> 1025 -> 33 -> 2 -> 1).
TEST(Section11_6, RecursesOverSmallSections) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  const Algorithm& small = algorithm(test_table(), "hierarchical_small_sections");
  for (const OpKind op : kAllOps) {
    for (const ScanKind kind : kAllKinds) {
      EXPECT_EQ(grading::check_sizes(small, DType::int64, op, kind, {1023, 1024, 1025, 32 * 32 * 32 + 1}), "")
          << "32-element sections; see " << SCANLAB_SOURCE_HINT;
    }
  }
}

// Long arrays: one element short of 256 sections of 4096 and one more (the last section holds one
// element), a size that is no multiple of anything; and past one section squared, where the block
// sums need a second level (1024^2 + 1 elements in 1024-element sections: 1025 block sums, scanned
// as 2 sections, whose 2 sums one block scans).
TEST(Section11_6, ScansAboutAMillionElements) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  const Algorithm& coarsened = algorithm(table(), "hierarchical_coarsened");
  EXPECT_EQ(grading::check_sizes(coarsened, DType::int32, OpKind::add, ScanKind::inclusive,
                                 {256 * 4096 - 1, 256 * 4096 + 1}),
            "")
      << "see " << SCANLAB_SOURCE_HINT;
  EXPECT_EQ(grading::check_sizes(coarsened, DType::float64, OpKind::last, ScanKind::exclusive, {1234567}), "")
      << "see " << SCANLAB_SOURCE_HINT;
  EXPECT_EQ(grading::check_sizes(algorithm(table(), "hierarchical_kogge_stone"), DType::uint32, OpKind::add,
                                 ScanKind::inclusive, {1024 * 1024 + 1}),
            "")
      << "two levels of block sums; see " << SCANLAB_SOURCE_HINT;
}

// The recursion, launch by launch (cpu backend): 5000 elements in 32-element sections make 157
// block sums, which make 5, which fit one section. Step 1 runs at each level on the way down; step 3
// on the way up, from the short level to the long one. Section 0 is already final in an inclusive
// scan, but an exclusive scan also shifts it, so a single section still gets step 3.
TEST(Section11_6, RecursesUntilTheBlockSumsFitOneSection) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  if (table().backend != Backend::cpu) GTEST_SKIP() << "launch records come from the cpu backend";
  const Algorithm& small = algorithm(test_table(), "hierarchical_small_sections");
  struct Case {
    std::size_t n;
    ScanKind kind;
    std::vector<std::pair<std::string, std::uint32_t>> launches;  // kernel, blocks
  };
  const std::string scan = "kogge_stone_warp_shuffle_scan_kernel", add = "add_block_sums_kernel";
  const Case cases[] = {
      {5000, ScanKind::inclusive, {{scan, 157}, {scan, 5}, {scan, 1}, {add, 5}, {add, 157}}},
      {5000, ScanKind::exclusive, {{scan, 157}, {scan, 5}, {scan, 1}, {add, 5}, {add, 157}}},
      {1024, ScanKind::inclusive, {{scan, 32}, {scan, 1}, {add, 32}}},
      {1025, ScanKind::inclusive, {{scan, 33}, {scan, 2}, {scan, 1}, {add, 2}, {add, 33}}},
      {20, ScanKind::inclusive, {{scan, 1}}},
      {20, ScanKind::exclusive, {{scan, 1}, {add, 1}}},
  };
  for (const Case& c : cases) {
    std::vector<std::int32_t> x(c.n, 1), y(c.n);
    RunRequest request{{DType::int32, OpKind::add, c.kind, c.n, false}, x.data(), y.data(), 0, false};
    const RunResult result = small.run(request);
    std::vector<std::pair<std::string, std::uint32_t>> launches;
    for (const LaunchStats& launch : result.launches) launches.emplace_back(launch.kernel, launch.grid_blocks);
    EXPECT_EQ(launches, c.launches) << name(c.kind) << " scan of n = " << c.n << " over 32-element sections; see "
                                    << SCANLAB_SOURCE_HINT;
    EXPECT_EQ(y.back(), static_cast<std::int32_t>(c.kind == ScanKind::inclusive ? c.n : c.n - 1));
  }
}

// Any n that fits in device memory: 2^30 int32 elements (4 GiB in, 4 GiB out) on a GPU. (On the cpu
// backend this would take minutes; the recursion it needs is the same as at 1024^2 + 1 above.)
TEST(Section11_6, ScansTwoToTheThirtyOnAGpu) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  if (table().backend != Backend::cuda) GTEST_SKIP() << "2^30 elements: a GPU-only test";
  EXPECT_EQ(grading::check_sizes(table().algorithms[0], DType::int32, OpKind::add, ScanKind::inclusive,
                                 {std::size_t{1} << 30}),
            "")
      << "see " << SCANLAB_SOURCE_HINT;
}

}  // namespace
