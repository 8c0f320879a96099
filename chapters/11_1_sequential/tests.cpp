// Section 11.1 grading tests: the sequential scan over every type, operator, inclusive and
// exclusive, in place, at n = 0, 1, 2 and up to 100,000, on the backend this program was built for.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "algorithms.hpp"
#include "scanlab/testing.hpp"

namespace {

using namespace scanlab;

const AlgorithmTable& table() { return grading::linked_table<s11_1::linked_tables>(); }

const bool registered = grading::register_grading_tests(table(), SCANLAB_GRADING_OPTIONS(100000));

// The book's example (Sec. 11.1): the sausage orders [3 1 7 0 4 1 6 3].
TEST(Section11_1, BookExample) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  const std::vector<std::int32_t> x{3, 1, 7, 0, 4, 1, 6, 3};
  const std::vector<std::int32_t> inclusive{3, 4, 11, 11, 15, 16, 22, 25};
  const std::vector<std::int32_t> exclusive{0, 3, 4, 11, 11, 15, 16, 22};
  for (const auto kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    std::vector<std::int32_t> y;
    grading::run_add_int32(table().algorithms[0], x, y, kind);
    EXPECT_EQ(y, kind == ScanKind::inclusive ? inclusive : exclusive) << name(kind) << " scan; see "
                                                                       << SCANLAB_SOURCE_HINT;
  }
}

// Work: the sequential scan applies the operator n - 1 times, the least any scan can do (Sec. 11.3).
TEST(Section11_1, AppliesTheOperatorNMinusOneTimes) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  if (table().backend != Backend::cpu) GTEST_SKIP() << "operator counts come from the cpu backend";
  for (const std::size_t n : {1u, 2u, 1000u}) {
    for (const auto kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      std::vector<float> x(n, 1.0f), y(n);
      RunRequest request{{DType::float32, OpKind::add, kind, n, false}, x.data(), y.data(), 0, false};
      const RunResult result = table().algorithms[0].run(request);
      ASSERT_EQ(result.launches.size(), 1u);
      const bool one_more_exclusive = kind == ScanKind::exclusive && result.launches[0].ops == n;
      EXPECT_EQ(result.launches[0].ops, n - 1)
          << name(kind) << " scan of n = " << n << ": the book's loop applies the operator n - 1 times"
          << (one_more_exclusive ? "; this one applies it once more: an exclusive loop that runs to i < n also "
                                   "combines x[n-1] into a total that no output holds"
                                 : "");
    }
  }
}

}  // namespace
