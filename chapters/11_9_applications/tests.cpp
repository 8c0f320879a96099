// Section 11.9 grading tests: every application on the backend this test program was built for, over
// the element types and the edge sizes (empty, one element, around warps, blocks and tiles, not a
// power of two, many blocks), with all, none and about half of the elements kept, and the segmented
// scan with one segment, every element its own segment, and heads placed right at, before and after
// block and section boundaries, inclusive and exclusive, for every operator. Each output is checked
// against the sequential algorithm (app_check.hpp); outputs start poisoned.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app_check.hpp"
#include "app_explain.hpp"
#include "apps.hpp"
#include "scanlab/error.hpp"
#include "scanlab/explain.hpp"
#include "scanlab/testing.hpp"

#if defined(SCANLAB_LINKED_CPU)
#include "scanlab/emu/runtime.hpp"
#endif

namespace {

using namespace scanlab;
using namespace scanlab::s11_9;

Result run(const Request& r) { return SCANLAB_LINKED_ENTRY(run_app)(r); }

bool on_gpu() {
#if defined(SCANLAB_LINKED_CUDA)
  return true;
#else
  return false;
#endif
}

#define SKIP_WITHOUT_DEVICE()                                              \
  do {                                                                     \
    try {                                                                  \
      run(Request{});                                                      \
    } catch (const NoDeviceError& e) {                                     \
      GTEST_SKIP() << e.what();                                            \
    }                                                                      \
  } while (0)

// One element of y as ranges: "y[5] holds x[2..5], it should hold x[4..5] (its segment starts at x[4]):
// x[2..3] should not be in it".
std::string element_line(std::size_t i, const std::string& got, const std::string& want, std::size_t head,
                         const std::string& difference) {
  return "y[" + std::to_string(i) + "] holds " + got + ", it should hold " + want + " (its segment starts at x[" +
         std::to_string(head) + "]): " + difference;
}

// Past explain::kMaxInputs inputs (too many to count one by one): three runs, over x[i] = 1, i and i^2
// (int64 add, the same head flags), give each element of y the count, sum and sum of squares of the
// indices it combines; those of a range x[a..b] say which range. A wrong element whose three sums are
// no range's is said to hold no range (an input twice, or a gap). `lines` gets one line per wrong element.
bool segments_by_sums(const Request& failing, std::vector<std::string>& lines) {
  Request r = failing;
  r.type = DType::int64;
  r.op = OpKind::add;
  std::vector<std::int64_t> sums[3];
  for (int power = 0; power < 3; ++power) {
    std::vector<std::int64_t> x(r.n);
    for (std::size_t i = 0; i < r.n; ++i) {
      const auto v = static_cast<std::int64_t>(i);
      x[i] = power == 0 ? 1 : power == 1 ? v : v * v;
    }
    r.input = x.data();
    Result out;
    try {
      out = run(r);
    } catch (const std::exception&) {
      return false;
    }
    if (out.output.size() != r.n * sizeof(std::int64_t)) return false;
    sums[power].resize(r.n);
    std::memcpy(sums[power].data(), out.output.data(), out.output.size());
  }
  const auto below = [](std::int64_t k) { return k * (k - 1) * (2 * k - 1) / 6; };  // 0^2 + ... + (k-1)^2
  // The range with these three sums, if one has them.
  const auto range_of = [&](std::int64_t count, std::int64_t sum,
                            std::int64_t squares) -> std::optional<std::pair<std::int64_t, std::int64_t>> {
    if (count <= 0 || (2 * sum) % count != 0) return std::nullopt;
    const std::int64_t first_plus_last = 2 * sum / count, a = (first_plus_last - count + 1) / 2, b = a + count - 1;
    if (a < 0 || a + b != first_plus_last) return std::nullopt;
    if (below(b + 1) - below(a) != squares) return std::nullopt;
    return std::pair{a, b};
  };
  const auto shown = [](std::int64_t a, std::int64_t b) {
    return "x[" + std::to_string(a) + (a == b ? "" : ".." + std::to_string(b)) + "]";
  };
  std::size_t head = 0;
  for (std::size_t i = 0; i < r.n; ++i) {
    if (r.heads[i] != 0) head = i;
    const std::size_t end = r.kind == ScanKind::inclusive ? i + 1 : i;  // it should hold x[head .. end - 1]
    const std::int64_t c = sums[0][i];
    const std::string want = end > head ? shown(static_cast<std::int64_t>(head), static_cast<std::int64_t>(end) - 1)
                                        : "nothing (the identity)";
    const auto got = range_of(c, sums[1][i], sums[2][i]);
    const bool right = end > head ? got && got->first == static_cast<std::int64_t>(head) &&
                                        got->second == static_cast<std::int64_t>(end) - 1
                                  : c == 0 && sums[1][i] == 0;
    if (right) continue;
    if (!got) {
      // Its segment's range and one more range on top (a stray value, or one counted twice), or its
      // segment's range with one range left out.
      const std::int64_t h = static_cast<std::int64_t>(head), e = static_cast<std::int64_t>(end) - 1;
      const std::int64_t cw = e - h + 1, s1w = (h + e) * cw / 2, s2w = below(e + 1) - below(h);
      const auto extra = range_of(c - cw, sums[1][i] - s1w, sums[2][i] - s2w);
      const auto lack = range_of(cw - c, s1w - sums[1][i], s2w - sums[2][i]);
      if (extra && cw > 0) {
        const bool twice = extra->first >= h && extra->second <= e;
        lines.push_back(element_line(i, want + " and " + shown(extra->first, extra->second), want, head,
                                     shown(extra->first, extra->second) +
                                         (twice ? " is counted twice" : " should not be in it")));
      } else if (lack && cw > 0) {
        lines.push_back(element_line(i, want + " without " + shown(lack->first, lack->second), want, head,
                                     shown(lack->first, lack->second) + " is missing"));
      } else {
        lines.push_back("y[" + std::to_string(i) + "] holds " + (c == 0 && sums[1][i] == 0 ? "nothing (the identity)" :
                        std::to_string(c) + " inputs that make no one range (an input twice, or a gap)") +
                        ", it should hold " + want + " (its segment starts at x[" + std::to_string(head) + "])");
      }
      continue;
    }
    // What differs: the inputs of x[h..e] it lacks, and those outside it that it has.
    std::string difference;
    const auto part = [&](std::int64_t lo, std::int64_t hi, const char* what) {
      if (lo <= hi) difference += (difference.empty() ? "" : "; ") + shown(lo, hi) + what;
    };
    const std::int64_t a = got->first, b = got->second, h = static_cast<std::int64_t>(head),
                       e = static_cast<std::int64_t>(end) - 1;
    part(h, std::min(e, a - 1), " is missing");
    part(std::max(h, b + 1), e, " is missing");
    part(a, std::min(b, h - 1), " should not be in it");
    part(std::max(a, e + 1), b, " should not be in it");
    lines.push_back(element_line(i, shown(a, b), want, head, difference));
  }
  return true;
}

// For the segmented scan's smallest failing case: the same head flags, run again as an int64 add scan of
// x[i] = 16^i (one run per 16 inputs, explain.hpp's windows; past
// explain::kMaxInputs, segments_by_sums), so that each element of y says which inputs
// it combines; an element that differs from its segment's x[head .. i] is shown as ranges ("x[2..5]:
// x[2..3] should not be in it"). The other applications output elements, not combinations of them:
// app_explain.hpp names their first wrong step.
std::string segments_as_ranges(const Request& failing) {
  namespace ex = grading::explain;
  const std::optional<ex::Encoding> e = ex::encoding_for(failing.n);
  std::vector<std::string> lines;
  if (!e) {
    if (failing.n == 0 || !segments_by_sums(failing, lines) || lines.empty()) return "";
  } else {
    Request r = failing;
    r.type = DType::int64;
    r.op = OpKind::add;
    std::vector<ex::Counts> y(r.n, ex::Counts(r.n));
    for (std::size_t run_index = 0; run_index < e->runs(); ++run_index) {
      std::vector<std::int64_t> x(r.n);
      for (std::size_t i = 0; i < r.n; ++i) x[i] = static_cast<std::int64_t>(ex::encoded_input(*e, run_index, i));
      r.input = x.data();
      Result out;
      try {
        out = run(r);
      } catch (const std::exception&) {
        return "";
      }
      if (out.output.size() != r.n * sizeof(std::int64_t)) return "";
      for (std::size_t i = 0; i < r.n; ++i) {
        std::uint64_t v;
        std::memcpy(&v, out.output.data() + i * sizeof v, sizeof v);
        const ex::Counts c = ex::counts(v, *e, run_index);
        for (std::size_t j = 0; j < r.n; ++j) y[i][j] += c[j];
      }
    }
    std::size_t head = 0;
    for (std::size_t i = 0; i < r.n; ++i) {
      if (r.heads[i] != 0) head = i;
      ex::Counts want(r.n);
      for (std::size_t j = head; j < (r.kind == ScanKind::inclusive ? i + 1 : i); ++j) want[j] = 1;
      const ex::Counts& got = y[i];
      if (got != want) {
        lines.push_back(element_line(i, ex::show_counts(got), ex::show_counts(want), head, ex::show_difference(got, want)));
      }
    }
    if (lines.empty()) return "";
  }
  const std::string scan = "int64 add " + std::string(name(failing.kind)) + " segmented scan";
  std::string shown = "\nWhere it goes wrong (n = " + std::to_string(failing.n) +
                      (e ? " run again as an " + scan + " of x[i] = 16^i" +
                               (e->runs() > 1 ? " (in " + std::to_string(e->runs()) + " runs of 16 inputs)" : std::string()) +
                               " with the same head flags, so that each value says which inputs it combines"
                         : " run again three times as an " + scan + " with the same head flags, of x[i] = 1, then i, "
                           "then i^2, so that an element's three sums say which range of inputs it combines") +
                      "), in the output y:";
  for (std::size_t k = 0; k < lines.size() && k < 3; ++k) shown += "\n    " + lines[k];
  if (lines.size() > 3) shown += "\n    (and " + std::to_string(lines.size() - 3) + " more elements of y)";
  return shown;
}

std::vector<std::size_t> sizes();

std::string first_of(std::size_t m) {
  return m == 1 ? "the first element of this input" : "the first " + std::to_string(m) + " elements of this input";
}

// After a wrong answer (issue 37), once per application: the shortest prefix of the same input (and head
// flags, and pivot) that is still answered wrong, at the sizes the scans' shrink tries and the tests' own
// (the tile edges), then the failing size itself (the segmented scan's ranges: up to
// explain::kMaxInputs), within 3 s, shown in full with what is wrong at that size. After an error
// (`error`: a memory error, a launch error, the watchdog), the shortest prefix that ends in the same
// kind of error, with that error. A prefix of an input is an input of every application.
std::string smallest_failure(const Request& failing, const std::string& error = "") {
  namespace ex = grading::explain;
  static std::set<App> explained;
  const std::string kind = ex::error_kind(error);
  if (!error.empty() && kind.empty()) return "";
  if (!explained.insert(failing.app).second) return "";
  std::set<std::size_t> smaller(std::begin(ex::kShrinkSizes), std::end(ex::kShrinkSizes));
  for (std::size_t m : sizes()) smaller.insert(m);
  std::vector<std::size_t> tries;
  for (std::size_t m : smaller) {
    if (m > 0 && m < failing.n) tries.push_back(m);
  }
  tries.push_back(failing.n);
  const auto start = std::chrono::steady_clock::now();
  // The prefix of m elements: "" when it passes, else what is wrong (`out` its result), or the error it
  // ended in (`threw`).
  Result out;
  std::string threw;
  const auto fails = [&](std::size_t m) {
    Request r = failing;
    r.n = m;
    threw.clear();
    out = Result{};
    try {
      out = run(r);
      return kind.empty() ? check_result(r, out) : std::string();
    } catch (const std::exception& e) {
      threw = e.what();
      if (!kind.empty() && ex::error_kind(threw) != kind) threw.clear();  // another error: not this one
      return threw;
    }
  };
  std::size_t passed = 0, m = 0;  // the largest size tried that passed (its launches), the first that failed
  std::vector<LaunchStats> passed_launches;
  std::string message;
  for (std::size_t t : tries) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(3)) return "";
    message = fails(t);
    if (!message.empty()) {
      m = t;
      break;
    }
    passed = t;
    passed_launches = out.launches;
  }
  if (m == 0) return "";
  // Between the last size that passed and the first that failed, halve the gap (within the budget): a
  // failing prefix whose one element less passes (a tile that goes wrong at its first element kept).
  while (m - passed > 1 && std::chrono::steady_clock::now() - start < std::chrono::seconds(3)) {
    const std::size_t middle = passed + (m - passed) / 2;
    if (fails(middle).empty()) {
      passed = middle;
      passed_launches = out.launches;
    } else {
      m = middle;
    }
  }
  message = fails(m);  // (again: `out` and `threw` are the last run's)
  Request r = failing;
  r.n = m;
  if (!threw.empty()) {
    if (kind.empty() || ex::error_kind(threw) != kind) return "";  // another error tells its own story
    HostArray x(r.type, m);
    std::memcpy(x.data(), r.input, x.bytes());
    return "\nThe smallest failing case found: n = " + std::to_string(m) + ", x = " + first_of(m) + ", the same " +
           kind + "\n  x        " + ex::show_elements(x, m) +
           ex::why_not_smaller(m, passed, "ends without this " + kind, passed_launches) + "\nWhere it goes wrong (n = " + std::to_string(m) + "):\n    " + threw;
  }
  const std::size_t bytes = size_of(r.type);
  HostArray x(r.type, m), got(r.type, out.output.size() / bytes);
  std::memcpy(x.data(), r.input, x.bytes());
  std::memcpy(got.data(), out.output.data(), got.bytes());
  const HostArray expected = expected_array(r);
  std::size_t wrong = std::max(got.size(), expected.size()) - std::min(got.size(), expected.size());
  for (std::size_t i = 0; i < std::min(got.size(), expected.size()); ++i) {
    wrong += std::memcmp(got.as<unsigned char>() + i * bytes, expected.as<unsigned char>() + i * bytes, bytes) != 0;
  }
  std::string shown = "\nThe smallest failing case found: n = " + std::to_string(m) + ", x = " + first_of(m) +
                      "\n  x        " + ex::show_elements(x, m) +
                      "\n  expected " + ex::show_elements(expected, expected.size()) + "\n  got      " +
                      ex::show_elements(got, got.size()) + "\n  (" + std::to_string(wrong) + " of " +
                      std::to_string(expected.size()) + " elements wrong)\n  " + message +
                      ex::why_not_smaller(m, passed, "passes", passed_launches, out.launches);
  if (r.app == App::segmented_scan) {
    HostArray heads(DType::uint32, m);
    std::memcpy(heads.data(), r.heads, heads.bytes());
    shown += "\n  heads    " + ex::show_elements(heads, m) + segments_as_ranges(r);
  } else {
    if (r.app != App::radix_sort && r.app != App::allocate) {
      std::ostringstream pivot;
      pivot << r.pivot;
      shown += "\n  kept: the elements x < " + pivot.str();
    }
    shown += explain_app::where_it_goes_wrong(r, run);
  }
  return shown;
}

/// Runs `r` and returns "" or what went wrong, with the size and where to look, and after a wrong answer
/// the smallest failing case.
std::string check(const Request& r, const std::string& what) {
  std::string error;
  bool threw = false;
  try {
    error = check_result(r, run(r));
  } catch (const std::exception& e) {
    error = std::string("error: ") + e.what();
    threw = true;
  }
  if (error.empty()) return "";
  return what + ", n = " + std::to_string(r.n) + ": " + error + " (look at " + SCANLAB_SOURCE_HINT + ")" +
         grading::timed_explanation([&] { return smallest_failure(r, threw ? error : ""); });
}

// Sizes: edges of warps (32), one-element-per-thread blocks (256), single-pass tiles (2048: 8-byte
// elements and the segmented scan; 4096: 4-byte elements, and 11.8's scan of the counts), odd sizes,
// and many tiles.
std::vector<std::size_t> sizes() {
  std::vector<std::size_t> s = {0, 1, 2, 31, 32, 33, 255, 256, 257, 1000, 2047, 2048, 2049, 4095, 4096, 4097, 9999};
  s.push_back(on_gpu() ? (1u << 22) + 3 : 70001);  // many blocks; on the emulator: 18 to 35 single-pass tiles
  return s;
}

constexpr DType kTypes[] = {DType::int32, DType::uint32, DType::int64, DType::float32, DType::float64};

AppInput random_input(DType type, std::size_t n, std::uint64_t seed) {
  return make_app_input(make_input(type, OpKind::max, n, seed), seed);
}

class Select : public testing::TestWithParam<App> {};

TEST_P(Select, HalfKeptEveryTypeAndSize) {
  SKIP_WITHOUT_DEVICE();
  for (DType type : kTypes) {
    for (std::size_t n : sizes()) {
      const AppInput in = random_input(type, n, n + 1);
      const std::string e = check(make_request(GetParam(), in, OpKind::add, ScanKind::inclusive), name(type));
      ASSERT_EQ(e, "");
    }
  }
}

TEST_P(Select, AllKeptAndNoneKept) {
  SKIP_WITHOUT_DEVICE();
  for (std::size_t n : {std::size_t{1}, std::size_t{257}, std::size_t{4097}, std::size_t{9999}}) {
    AppInput in = random_input(DType::int32, n, 5);
    in.pivot = 1e9;  // every value is below
    ASSERT_EQ(check(make_request(GetParam(), in, OpKind::add, ScanKind::inclusive), "all kept"), "");
    in.pivot = -1e9;  // none is
    ASSERT_EQ(check(make_request(GetParam(), in, OpKind::add, ScanKind::inclusive), "none kept"), "");
  }
}

TEST_P(Select, BookExample) {
  SKIP_WITHOUT_DEVICE();
  ASSERT_EQ(check(make_request(GetParam(), book_input(DType::int32), OpKind::add, ScanKind::inclusive), "book"), "");
}

// Many equal keys: a partition that moves equal elements out of order shows (values carry their index
// in the low bits, the predicate looks at the high bits only through the pivot).
TEST_P(Select, StableWithRepeatedKeys) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t n = 5000;
  HostArray values(DType::int64, n);
  for (std::size_t i = 0; i < n; ++i) values.as<std::int64_t>()[i] = static_cast<std::int64_t>(((i * 7919) % 3) << 32) + static_cast<std::int64_t>(i);
  AppInput in = make_app_input(std::move(values), 3);
  in.pivot = static_cast<double>(std::int64_t{1} << 32);  // the keys 0 x 2^32 + i are kept
  ASSERT_EQ(check(make_request(GetParam(), in, OpKind::add, ScanKind::inclusive), "repeated keys"), "");
}

INSTANTIATE_TEST_SUITE_P(Apps, Select,
                         testing::Values(App::compact, App::partition, App::compact_single_pass,
                                         App::partition_single_pass),
                         [](const auto& info) { return std::string(kApps[static_cast<int>(info.param)].name); });

#if !defined(SCANLAB_GRADES_EXERCISE)
// The persistent forms (persistent_select.cuh, given, so not in a grade): the same tests, and blocks
// that take many tiles each (one, two, three blocks), arrays 4 or 8 bytes past 16-byte alignment (no
// bulk copies: the select warps read x directly), and on the emulator blocks started in reverse or
// random order.
INSTANTIATE_TEST_SUITE_P(Given, Select, testing::Values(App::compact_persistent, App::partition_persistent),
                         [](const auto& info) { return std::string(kApps[static_cast<int>(info.param)].name); });

/// Both persistent forms, int32 and double, with one, two and three blocks (so the ring wraps).
void check_few_blocks(bool misaligned) {
  const std::size_t n = on_gpu() ? (1u << 20) + 5 : 20011;
  for (App app : {App::compact_persistent, App::partition_persistent}) {
    for (DType type : {DType::int32, DType::float64}) {
      const AppInput in = random_input(type, n, 31);
      for (std::size_t blocks : {1, 2, 3}) {
        Request r = make_request(app, in, OpKind::add, ScanKind::inclusive);
        r.max_blocks = blocks;
        r.misaligned = misaligned;
        ASSERT_EQ(check(r, std::string(name(type)) + ", " + std::to_string(blocks) + " blocks" +
                               (misaligned ? ", misaligned" : "")),
                  "");
      }
    }
  }
}

TEST(Persistent, FewBlocks) {
  SKIP_WITHOUT_DEVICE();
  check_few_blocks(false);
}

// (No bulk copies: compute-sanitizer racecheck can check this one, ring wrap-around included. It
// takes the mbarriers that order a stage's reuse for no synchronisation, so it reports every bulk
// copy into a stage that was read before.)
TEST(Persistent, FewBlocksMisaligned) {
  SKIP_WITHOUT_DEVICE();
  check_few_blocks(true);
}

#if defined(SCANLAB_LINKED_CPU)
TEST(Persistent, AnyBlockOrder) {
  const emu::Settings saved = emu::settings();
  for (const char* order : {"reverse", "random"}) {
    emu::settings().block_order = emu::parse_order(order);
    for (App app : {App::compact_persistent, App::partition_persistent}) {
      const std::string e = check(make_request(app, random_input(DType::int32, 70001, 22), OpKind::add,
                                               ScanKind::inclusive),
                                  std::string(order) + " block order");
      if (!e.empty()) {
        emu::settings() = saved;
        FAIL() << e;
      }
    }
  }
  emu::settings() = saved;
}
#endif
#endif  // !SCANLAB_GRADES_EXERCISE

std::vector<std::pair<std::string, std::vector<std::uint32_t>>> head_patterns(std::size_t n);

#if defined(SCANLAB_LINKED_CPU)
// The single-pass kernels number their tiles by ticket and look back over their predecessors: with the
// blocks started in reverse or random order (emulator), the tiles must still come out in order.
TEST(SinglePass, AnyBlockOrder) {
  const emu::Settings saved = emu::settings();
  for (const char* order : {"reverse", "random"}) {
    emu::settings().block_order = emu::parse_order(order);
    for (App app : {App::compact_single_pass, App::partition_single_pass, App::segmented_scan}) {
      AppInput in = random_input(DType::int32, 70001, 21);
      for (auto& [label, heads] : head_patterns(in.heads.size())) {
        in.heads = heads;
        const std::string e = check(make_request(app, in, OpKind::add, ScanKind::inclusive),
                                    std::string(order) + " block order, " + label);
        if (!e.empty()) {
          emu::settings() = saved;
          FAIL() << e;
        }
        if (app != App::segmented_scan) break;  // (heads matter to the segmented scan only)
      }
    }
  }
  emu::settings() = saved;
}
#endif

TEST(RadixSort, MatchesStableSort) {
  SKIP_WITHOUT_DEVICE();
  for (std::size_t n : {0, 1, 2, 33, 257, 2049, 5001}) {
    const AppInput in = random_input(DType::uint32, n, n + 11);
    ASSERT_EQ(check(make_request(App::radix_sort, in, OpKind::add, ScanKind::inclusive), "uint32 keys"), "");
  }
  const AppInput negative = random_input(DType::int32, 3001, 4);  // keys with the high bit set
  ASSERT_EQ(check(make_request(App::radix_sort, negative, OpKind::add, ScanKind::inclusive), "high bits"), "");
  // Uniform 32-bit keys: every bit decides some order (the top one too: 2^31 + 5 before 2^31 - 5
  // only if bit 31 is split on).
  std::mt19937_64 rng(17);
  HostArray keys(DType::uint32, 3001);
  for (std::size_t i = 0; i < keys.size(); ++i) keys.as<std::uint32_t>()[i] = static_cast<std::uint32_t>(rng());
  const AppInput uniform = make_app_input(std::move(keys), 5);
  ASSERT_EQ(check(make_request(App::radix_sort, uniform, OpKind::add, ScanKind::inclusive), "uniform 32-bit keys"), "");
}

TEST(Allocate, BookSausageExample) {
  SKIP_WITHOUT_DEVICE();
  const AppInput in = book_input(DType::int32);
  const Request r = make_request(App::allocate, in, OpKind::add, ScanKind::inclusive);
  const Result result = run(r);
  ASSERT_EQ(check_result(r, result), "") << SCANLAB_SOURCE_HINT;
  EXPECT_EQ(result.count, 25u);  // 3 + 1 + 7 + 0 + 4 + 1 + 6 + 3 inches of sausage
}

TEST(Allocate, EverySize) {
  SKIP_WITHOUT_DEVICE();
  for (std::size_t n : sizes()) {
    const AppInput in = random_input(DType::int32, n, n + 2);
    ASSERT_EQ(check(make_request(App::allocate, in, OpKind::add, ScanKind::inclusive), "sizes"), "");
  }
  AppInput zeros = random_input(DType::int32, 3000, 9);
  std::fill(zeros.sizes.begin(), zeros.sizes.end(), 0u);
  zeros.sizes[1234] = 5;
  ASSERT_EQ(check(make_request(App::allocate, zeros, OpKind::add, ScanKind::inclusive), "one request"), "");
}

/// Head patterns for the segmented scan.
std::vector<std::pair<std::string, std::vector<std::uint32_t>>> head_patterns(std::size_t n) {
  std::vector<std::pair<std::string, std::vector<std::uint32_t>>> p;
  p.push_back({"one segment", std::vector<std::uint32_t>(n, 0)});
  p.push_back({"every element its own segment", std::vector<std::uint32_t>(n, 1)});
  p.push_back({"random heads", random_heads(n, 5, n)});
  // Heads at, just before and just after the boundaries of 256-element blocks and 65536-element
  // levels, and one in the middle of a block: every way a segment can cross a block.
  std::vector<std::uint32_t> edges(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t r = i % 256;
    if ((i / 256) % 3 == 0 && r == 0) edges[i] = 1;
    if ((i / 256) % 3 == 1 && r == 255) edges[i] = 1;
    if ((i / 256) % 3 == 2 && r == 100) edges[i] = 1;
  }
  p.push_back({"heads at block boundaries", edges});
  // One head on the first (then on the last) element of every third single-pass tile (2048 elements:
  // 128 threads of 16), none elsewhere: a tile whose only head is at its edge, then tiles without any.
  for (std::size_t offset : {std::size_t{0}, std::size_t{2047}}) {
    std::vector<std::uint32_t> h(n, 0);
    for (std::size_t i = 2048 + offset; i < n; i += 3 * 2048) h[i] = 1;
    p.push_back({offset == 0 ? "a head on a tile's first element" : "a head on a tile's last element", h});
  }
  return p;
}

TEST(SegmentedScan, EveryOperatorKindAndHeadPattern) {
  SKIP_WITHOUT_DEVICE();
  for (DType type : kTypes) {
    for (OpKind op : kAllOps) {
      for (ScanKind kind : kAllKinds) {
        for (std::size_t n : {0, 1, 2, 33, 255, 256, 257, 1000, 5001}) {
          for (auto& [label, heads] : head_patterns(n)) {
            AppInput in = make_app_input(make_input(type, op, n, n + 3), 1);
            in.heads = heads;
            const std::string what = std::string(name(type)) + " " + name(op) + " " + name(kind) + ", " + label;
            ASSERT_EQ(check(make_request(App::segmented_scan, in, op, kind), what), "");
          }
        }
      }
    }
  }
}

TEST(SegmentedScan, ManyTiles) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t n = on_gpu() ? (1u << 22) + 7 : 70001;  // 35 tiles on the emulator, 2049 on a GPU
  for (ScanKind kind : kAllKinds) {
    for (auto& [label, heads] : head_patterns(n)) {
      AppInput in = make_app_input(make_input(DType::int32, OpKind::add, n, 8), 1);
      in.heads = heads;
      ASSERT_EQ(check(make_request(App::segmented_scan, in, OpKind::add, kind), std::string(name(kind)) + ", " + label), "");
    }
  }
}

TEST(SegmentedScan, BookExample) {
  SKIP_WITHOUT_DEVICE();
  for (ScanKind kind : kAllKinds) {
    ASSERT_EQ(check(make_request(App::segmented_scan, book_input(DType::int32), OpKind::add, kind), name(kind)), "");
  }
}

}  // namespace
