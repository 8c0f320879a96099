// Unit tests of the host-side harness: options, inputs, the reference and the verifier. These hold
// the policies the grading tests rely on (see inputs.hpp and verify.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "scanlab/cli.hpp"
#include "scanlab/error.hpp"
#include "scanlab/explain.hpp"
#include "scanlab/inputs.hpp"
#include "scanlab/memory.hpp"
#include "scanlab/ops.hpp"
#include "scanlab/options.hpp"
#include "scanlab/reference.hpp"
#include "scanlab/report.hpp"
#include "scanlab/testing.hpp"
#include "scanlab/trace_labels.hpp"
#include "scanlab/verify.hpp"

namespace {

using namespace scanlab;

Options parse(std::vector<const char*> args) {
  args.insert(args.begin(), "prog");
  return parse_options(static_cast<int>(args.size()), args.data());
}

TEST(Options, ParsesEveryFlag) {
  const Options o = parse({"--n", "1000", "--type=double", "--op", "last", "--exclusive", "--backend", "cpu",
                           "--seed", "9", "--reps", "3", "--csv", "a.csv", "--algorithm", "x", "--trace"});
  EXPECT_EQ(*o.n, 1000u);
  EXPECT_EQ(o.type, DType::float64);
  EXPECT_EQ(o.op, OpKind::last);
  EXPECT_EQ(o.kind, ScanKind::exclusive);
  EXPECT_EQ(o.backend, "cpu");
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.reps, 3);
  EXPECT_EQ(o.csv, "a.csv");
  EXPECT_EQ(o.algorithms, std::vector<std::string>{"x"});
  EXPECT_TRUE(o.trace);
}

TEST(Options, RejectsBadInputWithOneLine) {
  const std::vector<std::vector<const char*>> bad = {
      {"--frobnicate"}, {"--n", "-5"}, {"--n", "12abc"}, {"--n"}, {"--n", "99999999999999999999999"},
      {"--type", "half"}, {"--op", "mul"}, {"--backend", "tpu"}, {"--reps", "-1"}, {"--inclusive=1"},
      {"--thread-order", "sideways"}};
  for (const auto& args : bad) {
    try {
      parse(args);
      ADD_FAILURE() << "accepted " << args[0];
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      EXPECT_FALSE(std::string(e.what()).empty());
    }
  }
}

// Options apply in command-line order: the later of --inclusive/--exclusive wins, --algorithm adds,
// a later --n replaces an earlier one; "--name=value" and "--name value" alike.
TEST(Options, ApplyInCommandLineOrder) {
  Options o = parse({"--exclusive", "--inclusive", "--algorithm", "a", "--algorithm=b", "--n", "5", "--n=7"});
  EXPECT_EQ(o.kind, ScanKind::inclusive);
  EXPECT_EQ(o.algorithms, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*o.n, 7u);
  o = parse({"--inclusive", "--exclusive"});
  EXPECT_EQ(o.kind, ScanKind::exclusive);
}

// The exact one-line messages the cli tests and users see.
TEST(Options, MessagesSayWhatIsWrong) {
  const auto message = [](std::vector<const char*> args) -> std::string {
    try {
      parse(std::move(args));
    } catch (const UsageError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_EQ(message({"--frobnicate"}), "unknown option '--frobnicate' (see --help)");
  EXPECT_EQ(message({"stray"}), "unknown option 'stray' (see --help)");
  EXPECT_EQ(message({"--n", "-5"}), "--n needs a non-negative whole number, not '-5'");
  EXPECT_EQ(message({"--n"}), "--n needs a value (see --help)");
  EXPECT_EQ(message({"--reps", "1", "--csv"}), "--csv needs a value (see --help)");
  EXPECT_EQ(message({"--n", "99999999999999999999999"}), "--n value '99999999999999999999999' is too large");
  EXPECT_EQ(message({"--inclusive=1"}), "--inclusive takes no value");
  EXPECT_EQ(message({"--type", "half"}), "unsupported --type 'half': use int32, uint32, int64, float or double");
  EXPECT_EQ(message({"--input", "1,2", "--n", "2"}),
            "--input sets n (one element per value): give --input or --n/--sections, not both");
}

// --help and --capabilities come from the one list of options: every option parsed is in both.
TEST(Cli, HelpAndCapabilitiesShowEveryOption) {
  Options o;
  cli::Parser parser("scanlab_test", "title");
  add_section_options(parser, o);
  const std::string help = parser.help();
  const std::vector<std::string> names = parser.long_options();
  EXPECT_EQ(names.size(), 22u);
  for (const auto& name : names) EXPECT_NE(help.find("  " + name + " "), std::string::npos) << name;
  const std::string caps = parser.capabilities("11.9", true, {"a", "b"});
  EXPECT_EQ(caps.find('\n'), std::string::npos);
  EXPECT_EQ(caps.rfind("{\"section\":\"11.9\",\"program\":\"scanlab_test\",\"options\":[\"--n\",", 0), 0u) << caps;
  EXPECT_NE(caps.find("\"trace_file\":true,\"algorithms\":[\"a\",\"b\"]}"), std::string::npos) << caps;
}

// Positionals (the emulator benchmark's N and THREADS) in order; one too many is refused.
TEST(Cli, PositionalsInOrder) {
  std::vector<std::string> got;
  cli::Parser parser("p", "t");
  parser.positional("A", "a", [&](const std::string& v) { got.push_back("A=" + v); });
  parser.positional("B", "b", [&](const std::string& v) { got.push_back("B=" + v); });
  const char* args[] = {"p", "-5", "7"};
  parser.parse(3, args);
  EXPECT_EQ(got, (std::vector<std::string>{"A=-5", "B=7"}));
  cli::Parser again("p", "t");
  again.positional("A", "a", [](const std::string&) {});
  const char* more[] = {"p", "1", "2"};
  EXPECT_THROW(again.parse(3, more), UsageError);
}

// --input: the values as written, blanks allowed; a bad value is named, with its position.
TEST(Inputs, ParseInputReadsTheValuesAsTheType) {
  const HostArray a = parse_input(DType::int32, "4,6, 7 ,1,2,8,5,-2");
  ASSERT_EQ(a.size(), 8u);
  EXPECT_EQ(a.as<std::int32_t>()[0], 4);
  EXPECT_EQ(a.as<std::int32_t>()[2], 7);
  EXPECT_EQ(a.as<std::int32_t>()[7], -2);
  const HostArray f = parse_input(DType::float64, "1.5,-2e3");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f.as<double>()[0], 1.5);
  EXPECT_EQ(f.as<double>()[1], -2000.0);
  EXPECT_EQ(parse_input(DType::uint32, "4294967295").as<std::uint32_t>()[0], 4294967295u);
}

TEST(Inputs, ParseInputRefusesWhatIsNotTheType) {
  const auto message = [](DType type, const char* list) -> std::string {
    try {
      parse_input(type, list);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_NE(message(DType::int32, "4,x,5").find("value 2 'x' is not a valid int32"), std::string::npos);
  EXPECT_NE(message(DType::int32, "1.5").find("'1.5' is not a valid int32"), std::string::npos);
  EXPECT_NE(message(DType::int32, "2147483648").find("not a valid int32"), std::string::npos);
  EXPECT_NE(message(DType::uint32, "-1").find("not a valid uint32"), std::string::npos);
  EXPECT_NE(message(DType::float32, "1e39").find("not a valid float"), std::string::npos);
  EXPECT_NE(message(DType::int64, "4,,5").find("value 2 ''"), std::string::npos);
}

TEST(Inputs, SameSeedSameInputOtherSeedOtherInput) {
  const HostArray a = make_input(DType::float32, OpKind::add, 1000, 5);
  const HostArray b = make_input(DType::float32, OpKind::add, 1000, 5);
  const HostArray c = make_input(DType::float32, OpKind::add, 1000, 6);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.bytes()), 0);
  EXPECT_NE(std::memcmp(a.data(), c.data(), a.bytes()), 0);
}

// Checks the walk property of n signed values with |x| <= bound: every prefix sum (the empty one, 0,
// included) lies in [-limit, limit]. Returns the widest contiguous range sum, max prefix - min
// prefix, the largest partial sum any scan can form. Sums are formed in int64, exact at the sizes
// tested (n * bound < 2^62), so an escape is seen, not wrapped. Also checks the values are not
// degenerate: uniform on [-bound, bound], so about half either sign and few zeros.
template <class T>
std::int64_t check_walk(const T* x, std::size_t n, std::int64_t limit, std::int64_t bound, const std::string& what) {
  std::int64_t prefix = 0, lowest = 0, highest = 0;
  std::size_t negative = 0, positive = 0, outside = 0, too_large = 0;
  for (std::size_t i = 0; i < n; ++i) {
    prefix += x[i];
    outside += prefix > limit || prefix < -limit;
    lowest = std::min(lowest, prefix);
    highest = std::max(highest, prefix);
    negative += x[i] < 0;
    positive += x[i] > 0;
    too_large += x[i] > bound || x[i] < -bound;
  }
  EXPECT_EQ(outside, 0u) << what << ": prefix sums outside +-" << limit;
  EXPECT_EQ(too_large, 0u) << what << ": values outside +-" << bound;
  EXPECT_GT(negative, n / 4) << what;
  EXPECT_GT(positive, n / 4) << what;
  EXPECT_LE(n - negative - positive, 2 * (n / (2 * bound + 1)) + 100) << what << ": zeros";
  return highest - lowest;
}

// Signed sums never overflow: make_input draws signed add values in [-B, B] (B = 100 for int32, 2^40
// for int64) as a walk whose prefixes stay within max / 2, so every range sum, the partial sums any
// scan forms, fits the type. (int64 sizes up to 2^21: n * 2^40 < 2^62, so check_walk's int64 sums are
// exact even if the walk were wrong.)
TEST(Inputs, SignedAddInputsCannotOverflow) {
  for (const std::size_t n : {std::size_t{1} << 10, std::size_t{1} << 20, std::size_t{1} << 26}) {
    const HostArray a = make_input(DType::int32, OpKind::add, n, 1);
    const std::int64_t widest = check_walk(a.as<std::int32_t>(), n, signed_add_limit<std::int32_t>(),
                                           signed_add_bound<std::int32_t>(), "int32, n = " + std::to_string(n));
    EXPECT_LE(widest, std::numeric_limits<std::int32_t>::max()) << "n = " << n;
  }
  for (const std::size_t n : {std::size_t{1} << 10, std::size_t{1} << 16, std::size_t{1} << 21}) {
    const HostArray a = make_input(DType::int64, OpKind::add, n, 1);
    check_walk(a.as<std::int64_t>(), n, signed_add_limit<std::int64_t>(), signed_add_bound<std::int64_t>(),
               "int64, n = " + std::to_string(n));
    // Far beyond 32 bits: most values do not fit an int (a kernel that narrows to int fails).
    const auto* x = a.as<std::int64_t>();
    const auto fits_int = std::count_if(x, x + n, [](std::int64_t v) {
      return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
    });
    EXPECT_LT(static_cast<std::size_t>(fits_int), n / 100) << "int64, n = " << n;
  }
  EXPECT_EQ(signed_add_bound<std::int32_t>(), 100);
  EXPECT_EQ(signed_add_bound<std::int64_t>(), std::int64_t{1} << 40);
  // Two prefixes within +-limit differ by at most 2 * limit, which the type holds.
  EXPECT_EQ(signed_add_limit<std::int32_t>(), 1073741823);
  EXPECT_EQ(signed_add_limit<std::int64_t>(), 4611686018427387903);
  EXPECT_LE(signed_add_limit<std::int64_t>(),
            std::numeric_limits<std::int64_t>::max() - signed_add_limit<std::int64_t>());
}

// make_input's limit (2^30 for int32) cannot be reached at a size a unit test can allocate, so the
// walk is tested with small limits. Unbounded, n = 2^20 values of up to +-100 wander about +-60000,
// far past limits of 100 to 10000; values of +-1 (the floor of the bound min(100, limit / n) that
// make_input used before, under which prefixes overflowed once n > limit) wander about +-800, past
// a limit of 100. Every prefix must stay within the limit, each value be its plain draw or that
// draw negated, and some be negated (else the case tests nothing).
TEST(Inputs, BoundedWalkKeepsEveryPrefixWithinItsLimit) {
  struct Case {
    std::int64_t bound, limit;
  };
  const std::size_t n = std::size_t{1} << 20;
  for (const Case c : {Case{100, 1000}, Case{100, 100}, Case{1, 100}, Case{100, 10'000}}) {
    const std::string what = "bound " + std::to_string(c.bound) + ", limit " + std::to_string(c.limit);
    std::mt19937_64 plain32(3), plain64(4);
    std::vector<std::int32_t> x32(n);
    std::vector<std::int64_t> x64(n);
    bounded_walk(x32.data(), n, static_cast<std::int32_t>(c.bound), static_cast<std::int32_t>(c.limit), 3);
    bounded_walk(x64.data(), n, c.bound, c.limit, 4);
    EXPECT_LE(check_walk(x32.data(), n, c.limit, c.bound, "int32 " + what), 2 * c.limit);
    EXPECT_LE(check_walk(x64.data(), n, c.limit, c.bound, "int64 " + what), 2 * c.limit);
    std::uniform_int_distribution<std::int32_t> d32(static_cast<std::int32_t>(-c.bound),
                                                    static_cast<std::int32_t>(c.bound));
    std::uniform_int_distribution<std::int64_t> d64(-c.bound, c.bound);
    std::size_t negated = 0, other = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int32_t p32 = d32(plain32);
      const std::int64_t p64 = d64(plain64);
      negated += (x32[i] != p32) + (x64[i] != p64);
      other += (x32[i] != p32 && x32[i] != -p32) + (x64[i] != p64 && x64[i] != -p64);
    }
    EXPECT_EQ(other, 0u) << what << ": values neither drawn nor the draw negated";
    EXPECT_GT(negated, 0u) << what << ": the limit never bound, so this case tests nothing";
  }
  std::int32_t x[4];
  EXPECT_THROW(bounded_walk(x, 4, 101, 100, 3), Error);
  EXPECT_THROW(bounded_walk(x, 4, -1, 100, 3), Error);
}

// While no prefix can reach the limit the walk is the plain uniform draw: small inputs are what
// they were before the walk, value for value.
TEST(Inputs, SignedAddInputsAreUniformDrawsWhileFarFromTheLimit) {
  const std::size_t n = 5000;
  const HostArray a = make_input(DType::int32, OpKind::add, n, 42);
  const HostArray b = make_input(DType::int64, OpKind::add, n, 42);
  std::mt19937_64 rng32(42), rng64(42);
  std::uniform_int_distribution<std::int32_t> d32(-signed_add_bound<std::int32_t>(), signed_add_bound<std::int32_t>());
  std::uniform_int_distribution<std::int64_t> d64(-signed_add_bound<std::int64_t>(), signed_add_bound<std::int64_t>());
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(a.as<std::int32_t>()[i], d32(rng32)) << i;
    ASSERT_EQ(b.as<std::int64_t>()[i], d64(rng64)) << i;
  }
}

TEST(Inputs, LastOperatorGetsMarkersAndValues) {
  const HostArray a = make_input(DType::int32, OpKind::last, 1000, 1);
  int markers = 0;
  for (std::size_t i = 0; i < 1000; ++i) markers += a.as<std::int32_t>()[i] == Last<std::int32_t>::identity();
  EXPECT_NE(a.as<std::int32_t>()[0], Last<std::int32_t>::identity());
  EXPECT_GT(markers, 300);
  EXPECT_LT(markers, 700);
}

TEST(Ops, LastIsAssociativeButNotCommutative) {
  const Last<int> op;
  const int none = Last<int>::identity();
  EXPECT_EQ(op(op(1, 2), 3), op(1, op(2, 3)));
  EXPECT_EQ(op(op(1, none), none), op(1, op(none, none)));
  EXPECT_NE(op(1, 2), op(2, 1));
  EXPECT_EQ(op(none, 5), 5);
  EXPECT_EQ(op(5, none), 5);
}

TEST(Reference, BookExampleInclusiveExclusiveInPlace) {
  std::vector<int> x{3, 1, 7, 0, 4, 1, 6, 3}, y(8);
  reference_scan(x.data(), y.data(), 8, Add<int>{}, ScanKind::inclusive);
  EXPECT_EQ(y, (std::vector<int>{3, 4, 11, 11, 15, 16, 22, 25}));
  reference_scan(x.data(), x.data(), 8, Add<int>{}, ScanKind::exclusive);
  EXPECT_EQ(x, (std::vector<int>{0, 3, 4, 11, 11, 15, 16, 22}));
}

TEST(Verify, UnsignedWrapsAndPassesExactly) {
  std::vector<std::uint32_t> x{0xFFFFFFFFu, 2u}, y{0xFFFFFFFFu, 1u};
  EXPECT_TRUE(verify_scan({DType::uint32, OpKind::add, ScanKind::inclusive, 2, false}, x.data(), y.data()).passed);
}

TEST(Verify, ReportsFirstWrongElementAndUnwritten) {
  std::vector<int> x{1, 1, 1, 1}, y{1, 2, 4, 4};
  std::memset(&y[3], kPoisonByte, sizeof(int));
  const VerifyResult v = verify_scan({DType::int32, OpKind::add, ScanKind::inclusive, 4, false}, x.data(), y.data());
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.wrong, 2u);
  EXPECT_EQ(v.unwritten, 1u);
  EXPECT_NE(v.message.find("element 2 of 4 is 4, expected 3"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("1 never written"), std::string::npos) << v.message;
}

// --sections: each section is its own scan; a whole-array scan (the carry-in added) is wrong from
// the second section on, and a short last section is checked too.
TEST(Verify, SectionsAreScannedEachOnItsOwn) {
  const std::vector<int> x{1, 2, 3, 4, 5, 6, 7};
  const ScanProblem p{DType::int32, OpKind::add, ScanKind::exclusive, 7, false};
  std::vector<int> y{0, 1, 3, 0, 4, 9, 0};  // sections of 3: [1 2 3] [4 5 6] [7]
  EXPECT_TRUE(verify_sections(p, x.data(), y.data(), 3).passed);
  EXPECT_FALSE(verify_scan(p, x.data(), y.data()).passed);
  y = {0, 1, 3, 6, 10, 15, 21};  // the scan of the whole array
  const VerifyResult v = verify_sections(p, x.data(), y.data(), 3);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.wrong, 4u);  // elements 3 to 6
  EXPECT_NE(v.message.find("section 1 (elements 3 to 5)"), std::string::npos) << v.message;
  y = {0, 1, 3, 0, 4, 9, 1};  // the last, one-element section wrong
  EXPECT_NE(verify_sections(p, x.data(), y.data(), 3).message.find("section 2 (elements 6 to 6)"),
            std::string::npos);
}

// Floats: inside (k+1) eps sum|x| passes, outside fails, NaN fails.
TEST(Verify, FloatToleranceIsTheStatedBound) {
  const std::size_t n = 1000;
  std::vector<float> x(n, 0.5f), y(n);
  for (std::size_t i = 0; i < n; ++i) y[i] = 0.5f * static_cast<float>(i + 1);
  const ScanProblem p{DType::float32, OpKind::add, ScanKind::inclusive, n, false};
  EXPECT_TRUE(verify_scan(p, x.data(), y.data()).passed);
  const double bound = (n + 1) * std::numeric_limits<float>::epsilon() * 0.5 * n;
  y[n - 1] = static_cast<float>(0.5 * n + 0.5 * bound);
  EXPECT_TRUE(verify_scan(p, x.data(), y.data()).passed);
  y[n - 1] = static_cast<float>(0.5 * n + 2 * bound);
  EXPECT_FALSE(verify_scan(p, x.data(), y.data()).passed);
  y[n - 1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(verify_scan(p, x.data(), y.data()).passed);
}

// The T on `side` (+1 above, -1 below) of `ref` farthest from it with |y - ref| <= tolerance: the
// last result the verifier must pass. (y - ref is exact in double: y is within a factor 2 of ref.)
template <class T>
T last_inside(double ref, double side, double tolerance) {
  const T away = static_cast<T>(side) * std::numeric_limits<T>::infinity();
  const T toward = -away;
  T y = static_cast<T>(ref + side * tolerance);
  while (std::fabs(static_cast<double>(y) - ref) > tolerance) y = std::nextafter(y, toward);
  while (std::fabs(static_cast<double>(std::nextafter(y, away)) - ref) <= tolerance) y = std::nextafter(y, away);
  return y;
}

// The bound of verify.hpp, at its edge, for float and double, inclusive and exclusive: the last
// element y[n-1] of k = n (inclusive) or n - 1 (exclusive) terms may differ from the double
// reference by (k + 1) * eps(T) * sum|x| and no more. The first T inside the bound, above and
// below the reference, passes; the next T out fails. x alternates 0.75 and -0.25, so sum|x| (the
// bound's) is not |sum x|; every exact prefix is a T. Exclusive y[0] sums no term: tolerance 0.
template <class T>
void expect_tolerance_edge(DType type, ScanKind kind) {
  const std::size_t n = 1000;
  std::vector<T> x(n), y(n);
  double running = 0;
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<T>(i % 2 ? -0.25 : 0.75);
    if (kind == ScanKind::inclusive) running += static_cast<double>(x[i]);
    y[i] = static_cast<T>(running);
    if (kind == ScanKind::exclusive) running += static_cast<double>(x[i]);
  }
  const ScanProblem p{type, OpKind::add, kind, n, false};
  EXPECT_TRUE(verify_scan(p, x.data(), y.data()).passed) << "the exact scan";
  const std::size_t k = kind == ScanKind::inclusive ? n : n - 1;
  double ref = 0, abs_sum = 0;
  for (std::size_t j = 0; j < k; ++j) {
    ref += static_cast<double>(x[j]);
    abs_sum += std::fabs(static_cast<double>(x[j]));
  }
  EXPECT_EQ(ref, kind == ScanKind::inclusive ? 250.0 : 250.25);
  EXPECT_EQ(abs_sum, kind == ScanKind::inclusive ? 500.0 : 499.75);
  const double tolerance = static_cast<double>(k + 1) * std::numeric_limits<T>::epsilon() * abs_sum;
  for (const double side : {1.0, -1.0}) {
    const T inside = last_inside<T>(ref, side, tolerance);
    // (nextafter's arguments both T: a double `to` would pick the double overload.)
    const T outside = std::nextafter(inside, static_cast<T>(side) * std::numeric_limits<T>::infinity());
    // The T grid is fine enough here that "inside" is within 0.1% of the bound.
    EXPECT_GT(std::fabs(static_cast<double>(inside) - ref), 0.999 * tolerance);
    y[n - 1] = inside;
    EXPECT_TRUE(verify_scan(p, x.data(), y.data()).passed) << "error " << static_cast<double>(inside) - ref;
    y[n - 1] = outside;
    const VerifyResult v = verify_scan(p, x.data(), y.data());
    EXPECT_FALSE(v.passed) << "error " << static_cast<double>(outside) - ref;
    EXPECT_EQ(v.wrong, 1u);
    y[n - 1] = static_cast<T>(ref);
  }
  if (kind == ScanKind::exclusive) {
    y[0] = std::numeric_limits<T>::denorm_min();
    EXPECT_FALSE(verify_scan(p, x.data(), y.data()).passed) << "exclusive y[0] must be exactly 0";
  }
}

TEST(Verify, FloatToleranceEdgeForEveryKindAndType) {
  for (const ScanKind kind : kAllKinds) {
    SCOPED_TRACE(name(kind));
    {
      SCOPED_TRACE("float");
      expect_tolerance_edge<float>(DType::float32, kind);
    }
    {
      SCOPED_TRACE("double");
      expect_tolerance_edge<double>(DType::float64, kind);
    }
  }
}

// A scan that keeps a value in `int` where it should keep T: the running sum (`acc`) or each element
// as it is read (`element`). Conversions to int wrap modulo 2^32 (C++20), float ones truncate.
template <class T>
std::vector<T> narrowing_scan(const T* x, std::size_t n, ScanKind kind, bool element) {
  std::vector<T> y(n);
  int acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (kind == ScanKind::exclusive) y[i] = static_cast<T>(acc);
    // (int + int through unsigned: it wraps as a GPU's adder does, never undefined behaviour)
    acc = element ? static_cast<int>(static_cast<unsigned>(acc) + static_cast<unsigned>(static_cast<int>(x[i])))
                  : static_cast<int>(static_cast<T>(acc) + x[i]);
    if (kind == ScanKind::inclusive) y[i] = static_cast<T>(acc);
  }
  return y;
}

// The inputs expose a kernel that narrows T to int anywhere: for every 64-bit and floating type, at
// small n, both scan kinds, narrowing the running sum or the elements fails verification; and so does
// a double scan that keeps its running sum in float (the tolerance for double is 2^-52 relative).
template <class T>
void expect_narrowing_fails(DType type) {
  for (const std::size_t n : {std::size_t{4}, std::size_t{16}, std::size_t{100}, std::size_t{1000}}) {
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
      const HostArray input = make_input(type, OpKind::add, n, seed);
      const T* x = input.as<T>();
      for (const ScanKind kind : kAllKinds) {
        const ScanProblem p{type, OpKind::add, kind, n, false};
        for (const bool element : {false, true}) {
          const std::vector<T> y = narrowing_scan(x, n, kind, element);
          EXPECT_FALSE(verify_scan(p, x, y.data()).passed)
              << name(type) << " " << name(kind) << " n = " << n << " seed " << seed
              << (element ? ": elements" : ": running sum") << " narrowed to int passed";
        }
        if constexpr (std::is_same_v<T, double>) {
          std::vector<T> y(n);
          float acc = 0;
          for (std::size_t i = 0; i < n; ++i) {
            if (kind == ScanKind::exclusive) y[i] = acc;
            acc = static_cast<float>(acc + x[i]);
            if (kind == ScanKind::inclusive) y[i] = acc;
          }
          EXPECT_FALSE(verify_scan(p, x, y.data()).passed) << "double kept in float, n = " << n;
        }
      }
    }
  }
}

TEST(Verify, NarrowingToIntFails) {
  expect_narrowing_fails<std::int64_t>(DType::int64);
  expect_narrowing_fails<float>(DType::float32);
  expect_narrowing_fails<double>(DType::float64);
}

TEST(Memory, RefusesWhatDoesNotFitSayingHowMuch) {
  try {
    check_fits(std::size_t{3} << 30, std::size_t{1} << 30, "GPU memory");
    FAIL() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("3.00 GiB"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1.00 GiB"), std::string::npos) << e.what();
  }
}

// The one CSV writer: fields quoted where they must be (RFC 4180), the header once when appending.
TEST(Report, CsvWriterQuotesAndAppendsUnderOneHeader) {
  const std::string path = testing::TempDir() + "scanlab_csv_test.csv";
  std::remove(path.c_str());
  { CsvWriter(path, {"a", "b"}, true).row({"NVIDIA H100, CUDA 13.0", "say \"hi\""}); }
  { CsvWriter(path, {"a", "b"}, true).row({"x", ""}); }
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "a,b\n\"NVIDIA H100, CUDA 13.0\",\"say \"\"hi\"\"\"\nx,\n");
  { CsvWriter(path, {"c"}).row({"1"}); }  // not appending: overwritten
  std::ifstream again(path);
  const std::string fresh((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
  EXPECT_EQ(fresh, "c\n1\n");
  std::remove(path.c_str());
  EXPECT_THROW(CsvWriter("/nonexistent-folder/x.csv", {"a"}), Error);
}

TEST(Report, StepsUnlimitedTakesLongestBlockPerLaunch) {
  LaunchStats l;
  l.intervals = {{0, 4, 1, 4, 1}, {0, 2, 1, 2, 1}, {1, 4, 1, 12, 3}};
  EXPECT_EQ(steps_unlimited({l, l}), 6u);
}

}  // namespace

// The cpu backend's device buffers lie between guard zones; a write into them (past the end within
// the padding to 16 bytes, or just before the start) is reported after the launch as one "memory
// error:" line naming the kernel, the array and the element. Beyond the zones lie guard pages (the
// emulator's tests: Emu.ReadOrWritePastGuardedDeviceMemoryIsAMemoryError).
TEST(Memory, GuardZonesReportAWritePastAnAllocation) {
  auto* a = static_cast<int*>(scanlab::guarded_alloc(10, sizeof(int)));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 16, 0u);
  for (int i = 0; i < 10; ++i) a[i] = i;
  EXPECT_NO_THROW(scanlab::check_device_guards("fine"));
  a[10] = 1;  // one past the end
  try {
    scanlab::check_device_guards("k");
    ADD_FAILURE() << "no memory error";
  } catch (const scanlab::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("memory error: kernel 'k' wrote past the end of a 10-element array of "
                                          "4-byte elements (element 10 = N+0)", 0), 0u) << e.what();
  }
  EXPECT_NO_THROW(scanlab::check_device_guards("k"));  // reported once: the zones are filled again
  a[-2] = 1;  // before the start
  try {
    scanlab::check_device_guards("k");
    ADD_FAILURE() << "no memory error";
  } catch (const scanlab::Error& e) {
    EXPECT_NE(std::string(e.what()).find("wrote before the start of a 10-element array of 4-byte elements "
                                         "(element -2)"), std::string::npos) << e.what();
  }
  scanlab::guarded_free(a);
}

// ---- the smallest failing case (check_sizes, issue 37) ---------------------------------------------
// A scan with the bug of a Kogge-Stone without its second barrier, as a host function: from n = 3 on,
// y[2] counts x[1] twice. check_sizes fails it at n = 100 and then shows the smallest case that still
// fails, with inputs a reader can follow: n = 3, all ones.
TEST(Grading, SmallestFailingCaseIsShownInFull) {
  const scanlab::RunFn run = [](const scanlab::RunRequest& r) {
    const auto* x = static_cast<const std::int32_t*>(r.input);
    auto* y = static_cast<std::int32_t*>(r.output);
    std::vector<std::int32_t> in(x, x + r.problem.n);
    scanlab::reference_scan(in.data(), y, r.problem.n, scanlab::Add<std::int32_t>{}, r.problem.kind);
    if (r.problem.n >= 3) y[2] += in[1];
    return scanlab::RunResult{};
  };
  const scanlab::Algorithm wrong{"counts_x1_twice", "", "", 0, run};
  const std::string failure = scanlab::grading::check_sizes(wrong, scanlab::DType::int32, scanlab::OpKind::add,
                                                            scanlab::ScanKind::inclusive, {100});
  EXPECT_EQ(failure.rfind("counts_x1_twice: int32 add inclusive scan, n = 100: element 2 of 100 is ", 0), 0u) << failure;
  EXPECT_NE(failure.find("\nThe smallest failing case found: n = 3, x = all ones\n  x        [1, 1, 1]\n"
                         "  expected [1, 2, 3]\n  got      [1, 2, 4]\n  (1 of 3 elements wrong)"),
            std::string::npos) << failure;
  // Nothing smaller fails: the failing size itself, with the simplest input that still fails.
  const std::string at_3 = scanlab::grading::check_sizes({"counts_x1_twice_at_3", "", "", 0, run}, scanlab::DType::int32,
                                                         scanlab::OpKind::add, scanlab::ScanKind::inclusive, {3});
  EXPECT_NE(at_3.find("\nThe smallest failing case found: n = 3, x = all ones\n"), std::string::npos) << at_3;
}

// A bug that needs a second block of 32 threads (n >= 33): the case found says why nothing smaller
// fails, with the launches of the largest size below it that passed and of the case itself.
TEST(Grading, SmallestFailingCaseSaysWhyNothingSmallerFails) {
  const scanlab::RunFn run = [](const scanlab::RunRequest& r) {
    const std::size_t n = r.problem.n;
    auto* y = static_cast<std::int32_t*>(r.output);
    scanlab::reference_scan(static_cast<const std::int32_t*>(r.input), y, n, scanlab::Add<std::int32_t>{},
                            r.problem.kind);
    if (n > 32) y[32] += 1;  // the second block's first element
    scanlab::RunResult result;
    scanlab::LaunchStats launch;
    launch.grid_blocks = static_cast<std::uint32_t>((n + 31) / 32);
    launch.block_threads = 32;
    result.launches.push_back(launch);
    return result;
  };
  const std::string failure = scanlab::grading::check_sizes({"second_block_wrong", "", "", 0, run}, scanlab::DType::int32,
                                                            scanlab::OpKind::add, scanlab::ScanKind::inclusive, {100});
  EXPECT_NE(failure.find("\nThe smallest failing case found: n = 33, x = all ones\n"), std::string::npos) << failure;
  EXPECT_NE(failure.find("\n  no smaller case: every size tried below it passes (all ones, 1, 2, ..., n and seeded "
                         "values); the largest, n = 32, runs 1 block of 32 threads, and n = 33 runs 2 blocks of 32 "
                         "threads"),
            std::string::npos)
      << failure;
}

// A failing last or max scan: the same size again over distinct inputs says which input the first wrong
// element is, and for max the widest range around it of which it is the max.
namespace {
std::vector<std::int32_t> last_input;  // the distinct inputs of the run that holds_note makes
// last: keeps x[0] (its operands swapped); max: of x[i - 1] and x[i] only.
scanlab::RunResult first_not_last(const scanlab::RunRequest& r) {
  const auto* x = static_cast<const std::int32_t*>(r.input);
  auto* y = static_cast<std::int32_t*>(r.output);
  // Kept only for 1, 2, ..., n shuffled (holds_note's run; the shrink's runs are other inputs).
  std::vector<std::int32_t> sorted(x, x + r.problem.n);
  std::sort(sorted.begin(), sorted.end());
  bool shuffled = !std::equal(sorted.begin(), sorted.end(), x);
  for (std::size_t i = 0; i < sorted.size(); ++i) shuffled = shuffled && sorted[i] == static_cast<std::int32_t>(i + 1);
  if (shuffled) last_input.assign(x, x + r.problem.n);
  for (std::size_t i = 0; i < r.problem.n; ++i) {
    y[i] = r.problem.op == scanlab::OpKind::max && i > 0 ? std::max(x[i - 1], x[i]) : x[0];
  }
  return {};
}
}  // namespace

TEST(Grading, WrongValuesOfLastAndMaxSayWhichInput) {
  const scanlab::Algorithm a{"first_not_last", "", "", 0, &first_not_last};
  const std::string last = scanlab::grading::check_sizes(a, scanlab::DType::int32, scanlab::OpKind::last,
                                                         scanlab::ScanKind::inclusive, {40});
  EXPECT_NE(last.find("\nWhat the wrong values hold: in that run, element 1 is x[0], an earlier input; it should be x[1], the last "
                      "of x[0 .. 1]"),
            std::string::npos)
      << last;
  // max over two neighbours (x[i - 1] and x[i]): the first wrong element i is x[j], the max of x[lo .. hi].
  const std::string max = scanlab::grading::check_sizes({"max_of_two", "", "", 0, &first_not_last}, scanlab::DType::int32,
                                                        scanlab::OpKind::max, scanlab::ScanKind::inclusive, {40});
  const std::string tag = "\nWhat the wrong values hold: in that run, element ";
  const std::size_t at = max.find(tag);
  ASSERT_NE(at, std::string::npos) << max;
  unsigned i = 0, j = 0, lo = 0, hi = 0, k = 0;
  ASSERT_EQ(std::sscanf(max.c_str() + at + tag.size(), "%u is x[%u], the max of x[%u .. %u] (and of any range in it that "
                                                       "holds x[%u])", &i, &j, &lo, &hi, &k), 5) << max;
  const std::vector<std::int32_t>& x = last_input;
  ASSERT_TRUE(i < x.size() && i > 0 && lo <= j && j <= hi && hi < x.size()) << max;
  EXPECT_EQ(x[j], std::max(x[i - 1], x[i])) << max;  // what the kernel gave
  EXPECT_EQ(*std::max_element(x.begin() + lo, x.begin() + hi + 1), x[j]) << max;
  EXPECT_TRUE((lo == 0 || x[lo - 1] > x[j]) && (hi + 1 == x.size() || x[hi + 1] > x[j])) << max;  // the widest
}

// ---- where it went wrong (explain.hpp, issue 37 item 2) ---------------------------------------------
namespace ex = scanlab::grading::explain;

// A value of the traced run is a sum of x[i] = 16^i: its digits count the inputs, shown as ranges.
// Past 16 inputs, run w counts x[16 w .. 16 w + 15].
TEST(Grading, ExplainShowsValuesAsRangesOfInputs) {
  const ex::Encoding e = *ex::encoding_for(6);
  EXPECT_EQ(e.runs(), 1u);
  EXPECT_EQ(ex::encoding_for(33)->runs(), 3u);
  EXPECT_EQ(ex::encoding_for(64)->runs(), 4u);
  EXPECT_EQ(ex::encoding_for(1024)->runs(), 64u);
  EXPECT_FALSE(ex::encoding_for(1025));
  EXPECT_FALSE(ex::encoding_for(0));
  EXPECT_EQ(ex::counts(0x21110, e), (std::vector<unsigned>{0, 1, 1, 1, 2, 0}));
  const ex::Encoding e20 = *ex::encoding_for(20);
  EXPECT_EQ(ex::encoded_input(e20, 1, 17), 16u);
  EXPECT_EQ(ex::encoded_input(e20, 0, 17), 0u);
  ex::Counts in_run_1(20);
  in_run_1[16] = 1;
  in_run_1[17] = 2;
  EXPECT_EQ(ex::counts(0x21, e20, 1), in_run_1);
  EXPECT_EQ(ex::show_counts({1, 1, 1, 0}), "x[0..2]");
  EXPECT_EQ(ex::show_counts({0, 1, 0, 1}), "x[1], x[3]");
  EXPECT_EQ(ex::show_counts({2, 1, 1, 3}), "x[0..3] with x[0] twice and x[3] 3 times");
  EXPECT_EQ(ex::show_counts({0, 0}), "nothing (the identity)");
  EXPECT_EQ(ex::show_difference({0, 0, 1, 1}, {1, 1, 1, 1}), "x[0..1] is missing");
  EXPECT_EQ(ex::show_difference({2, 1, 1}, {1, 1, 1}), "x[0] is counted twice");
  EXPECT_EQ(ex::show_difference({1, 1, 0}, {0, 1, 1}), "x[2] is missing; x[0] should not be in it");
}

namespace {

// A trace as the emulator records it: one frame per barrier, then one at the block's end.
scanlab::LaunchStats trace_of(const std::vector<std::vector<std::string>>& states, const char* array = "XY") {
  scanlab::LaunchStats launch;
  for (std::size_t k = 0; k < states.size(); ++k) {
    const bool last = k + 1 == states.size();
    launch.trace.push_back({0, static_cast<std::uint32_t>(k), array,
                            last ? "end of block" : "/src/exercises/11_2_kogge_stone/kogge_stone.cuh:85", states[k]});
  }
  return launch;
}

}  // namespace

// The model of Fig. 11.3 against traces of n = 4 (x[i] = 16^i: 1, 16, 256, 4096): the book's own
// steps match; a kernel without the write-after-read barrier (threads in index order: XY[2] takes
// the new XY[1]) leaves it at the step with stride 1, and so does one that counts an input twice; a
// kernel whose last step changes nothing stops short of the book; one that does two steps between
// two barriers follows it; an element no thread wrote says so.
TEST(Grading, ExplainFindsTheFirstStepThatLeavesTheModel) {
  const ex::Encoding e = *ex::encoding_for(4);
  const std::vector<std::pair<std::string, std::size_t>> lengths{{"XY", 4}};
  const auto model = ex::model_steps("kogge_stone", e, scanlab::ScanKind::inclusive, lengths);
  ASSERT_EQ(model.size(), 3u);
  const std::vector<std::string> load{"1", "16", "256", "4096"};
  const std::vector<std::string> right1{"1", "17", "272", "4352"}, right2{"1", "17", "273", "4369"};
  EXPECT_EQ(ex::compare(model, ex::traced_snapshots(trace_of({load, right1, right2}), {"XY"}, e)), "");

  const std::vector<std::string> race1{"1", "17", "273", "4369"}, race2{"1", "17", "274", "4386"};
  EXPECT_EQ(ex::compare(model, ex::traced_snapshots(trace_of({load, race1, race2}), {"XY"}, e)),
            "\n  after the step with stride 1 (traced at the barrier at kogge_stone.cuh:85):"
            "\n    XY[2] holds x[0..2], it should hold x[1..2]: x[0] should not be in it"
            "\n    XY[3] holds x[0..3], it should hold x[2..3]: x[0..1] should not be in it");

  const std::string states = "\n  (its shared memory went through 2 states, one per barrier where it changed; the "
                             "book's algorithm through 3)";
  EXPECT_EQ(ex::compare(model, ex::traced_snapshots(trace_of({load, race2}), {"XY"}, e)),
            "\n  after the step with stride 1 (traced at the end of the block):"
            "\n    XY[2] holds x[0..2] with x[0] twice, it should hold x[1..2]: x[0] is counted twice"
            "\n    XY[3] holds x[0..3] with x[0..1] twice, it should hold x[2..3]: x[0..1] is counted twice" + states);
  EXPECT_EQ(ex::compare(model, ex::traced_snapshots(trace_of({load, right1}), {"XY"}, e)),
            "\n  after the step with stride 2, which left its shared memory as it was after the step with stride 1:"
            "\n    XY[2] holds x[1..2], it should hold x[0..2]: x[0] is missing"
            "\n    XY[3] holds x[2..3], it should hold x[0..3]: x[0..1] is missing" + states);
  EXPECT_EQ(ex::compare(model, ex::traced_snapshots(trace_of({load, right2}), {"XY"}, e)), "");  // two steps at once

  EXPECT_EQ(ex::compare(model, ex::traced_snapshots(trace_of({load, {"1", "17", "272", "?"}, right2}), {"XY"}, e)),
            "\n  after the step with stride 1 (traced at the barrier at kogge_stone.cuh:85):"
            "\n    XY[3] was never written, it should hold x[2..3]");
}

// Each model ends with the scan (the exclusive Kogge-Stone's shifted), whatever the section's size.
TEST(Grading, ExplainModelsEndWithTheScan) {
  for (std::size_t n : {1u, 3u, 8u, 13u}) {
    const ex::Encoding e = *ex::encoding_for(n);
    std::size_t S = 1;
    while (S < n) S *= 2;
    const auto final_element = [&](const std::vector<ex::Snapshot>& steps, std::size_t array, std::size_t i) {
      return ex::show_counts(*steps.back().arrays.at(array).second.at(i));
    };
    const auto ks = ex::model_steps("kogge_stone", e, scanlab::ScanKind::exclusive, {{"XY", S}});
    const auto db = ex::model_steps("kogge_stone_double_buffer", e, scanlab::ScanKind::inclusive,
                                    {{"XY_a", S}, {"XY_b", S}});
    const std::size_t bk_S = std::max<std::size_t>(S, 2);
    const auto bk = ex::model_steps("brent_kung", e, scanlab::ScanKind::inclusive, {{"XY", bk_S}});
    const auto co = ex::model_steps("coarsened", e, scanlab::ScanKind::inclusive, {{"XY", 16}, {"totals", 4}});
    ASSERT_FALSE(ks.empty() || db.empty() || bk.empty() || co.empty()) << n;
    const std::size_t db_array = (db.size() - 1) % 2;  // the array the last step wrote
    for (std::size_t i = 0; i < n; ++i) {
      const std::string prefix = "x[0" + (i ? ".." + std::to_string(i) : "") + "]";
      EXPECT_EQ(final_element(ks, 0, i), i ? "x[0" + (i > 1 ? ".." + std::to_string(i - 1) : "") + "]"
                                           : "nothing (the identity)") << n;
      EXPECT_EQ(final_element(db, db_array, i), prefix) << n;
      EXPECT_EQ(final_element(bk, 0, i), prefix) << n;
      EXPECT_EQ(final_element(co, 0, i), prefix) << n;
    }
    // The warp shuffle's warp totals (2 warps): scanned, each the prefix up to its warp's last element.
    const auto ws = ex::model_steps("kogge_stone_warp_shuffle", e, scanlab::ScanKind::inclusive, {{"warp_totals", 2}});
    ASSERT_EQ(ws.size(), 2u) << n;
    EXPECT_EQ(final_element(ws, 0, 1), final_element(bk, 0, n - 1)) << n;  // x[0 .. n - 1]
    // 11.6's level 2 over sections of 4: element i is the block sum x[4 i .. 4 i + 3].
    const auto level2 = ex::model_steps("kogge_stone", e, scanlab::ScanKind::inclusive, {{"XY", 4}}, 4);
    ASSERT_FALSE(level2.empty());
    EXPECT_EQ(ex::show_counts(*level2.front().arrays.at(0).second.at(0)), final_element(bk, 0, std::min<std::size_t>(n, 4) - 1)) << n;
    if (n > 4) {
      EXPECT_EQ(final_element(level2, 0, 1), "x[0.." + std::to_string(std::min<std::size_t>(n, 8) - 1) + "]") << n;
    }
  }
}

namespace {

// Fig. 11.3 as a host function that traces XY as the emulator would, with the threads of a step in
// index order (add, or last: fill forward). Wrong ways: `racy` (no write-after-read barrier: thread t
// reads the XY[t - s] of this step), `swapped` (op(XY[t], XY[t - s])), `bad_store` (y[i] = XY[i - 1]).
enum class Way { right, racy, swapped, bad_store };

template <Way way>
scanlab::RunResult traced_kogge_stone(const scanlab::RunRequest& r) {
  const auto* x = static_cast<const std::int64_t*>(r.input);
  auto* y = static_cast<std::int64_t*>(r.output);
  const auto op = [&](std::int64_t a, std::int64_t b) {
    if (r.problem.op != scanlab::OpKind::last) return scanlab::Add<std::int64_t>{}(a, b);  // (wraps, as on a GPU)
    return b == std::numeric_limits<std::int64_t>::lowest() ? a : b;
  };
  std::size_t S = 1;
  while (S < r.problem.n) S *= 2;
  std::vector<std::int64_t> xy(S, r.problem.op == scanlab::OpKind::last ? std::numeric_limits<std::int64_t>::lowest() : 0);
  std::copy(x, x + r.problem.n, xy.begin());
  std::vector<std::vector<std::string>> states;
  const auto keep = [&] {
    states.emplace_back();
    for (std::int64_t v : xy) states.back().push_back(std::to_string(v));
  };
  keep();
  for (std::size_t s = 1; s < S; s *= 2) {
    const std::vector<std::int64_t> before = xy;
    for (std::size_t t = s; t < S; ++t) {
      xy[t] = way == Way::racy ? op(xy[t - s], xy[t]) : way == Way::swapped ? op(xy[t], before[t - s])
                                                                             : op(before[t - s], xy[t]);
    }
    keep();
  }
  for (std::size_t i = 0; i < r.problem.n; ++i) y[i] = way == Way::bad_store && i > 0 ? xy[i - 1] : xy[i];
  scanlab::RunResult result;
  if (r.trace) result.launches.push_back(trace_of(states));
  return result;
}

}  // namespace

// The whole path: one traced run on x[i] = 16^i (one run per 16 inputs), compared with the model of
// the algorithm's name, then y; with another operator, one more run on x[i] = 2^i.
TEST(Grading, ExplainRunsTheKernelOnceMoreTraced) {
  const scanlab::Algorithm racy{"kogge_stone", "", "", 0, &traced_kogge_stone<Way::racy>};
  EXPECT_EQ(ex::where_it_went_wrong(racy, scanlab::ScanKind::inclusive, 3),
            "\nWhere it first leaves the book's algorithm (n = 3 run again as an int64 add inclusive scan of x[i] = "
            "16^i, so that each value in shared memory says which inputs it combines):"
            "\n  after the step with stride 1 (traced at the barrier at kogge_stone.cuh:85):"
            "\n    XY[2] holds x[0..2], it should hold x[1..2]: x[0] should not be in it"
            "\n    XY[3] holds x[0..2], it should hold x[2]: x[0..1] should not be in it");
  // 33 inputs: three runs, added up.
  EXPECT_EQ(ex::where_it_went_wrong(racy, scanlab::ScanKind::inclusive, 33).rfind(
                "\nWhere it first leaves the book's algorithm (n = 33 run again as an int64 add inclusive scan of "
                "x[i] = 16^i (in 3 runs of 16 inputs: x[i] = 16^(i - 16 w) in run w, 0 elsewhere), so that each "
                "value in shared memory says which inputs it combines):"
                "\n  after the step with stride 1 (traced at the barrier at kogge_stone.cuh:85):"
                "\n    XY[2] holds x[0..2], it should hold x[1..2]: x[0] should not be in it", 0), 0u);
  EXPECT_EQ(ex::where_it_went_wrong(racy, scanlab::ScanKind::inclusive, 1025), "");  // too many to count

  const scanlab::Algorithm right{"kogge_stone", "", "", 0, &traced_kogge_stone<Way::right>};
  for (std::size_t n : {1u, 5u, 16u, 17u, 64u}) {
    EXPECT_EQ(ex::where_it_went_wrong(right, scanlab::ScanKind::inclusive, n, scanlab::OpKind::last), "") << n;
  }
  const scanlab::Algorithm bad_store{"kogge_stone", "", "", 0, &traced_kogge_stone<Way::bad_store>};
  EXPECT_EQ(ex::where_it_went_wrong(bad_store, scanlab::ScanKind::inclusive, 3),
            "\nIts shared memory (n = 3 run again as an int64 add inclusive scan of x[i] = 16^i) holds what the "
            "book's algorithm says at every barrier, so the error is in what goes into y (the stores after the last "
            "barrier), or in a step that goes wrong only when the threads run in another order:"
            "\n    y[1] holds x[0], it should hold x[0..1]: x[1] is missing"
            "\n    y[2] holds x[0..1], it should hold x[0..2]: x[2] is missing");
  // A kernel with no model: y alone.
  const scanlab::Algorithm unknown{"no_model", "", "", 0, &traced_kogge_stone<Way::racy>};
  EXPECT_EQ(ex::where_it_went_wrong(unknown, scanlab::ScanKind::inclusive, 3),
            "\nWhere it goes wrong (n = 3 run again as an int64 add inclusive scan of x[i] = 16^i, so that each value "
            "says which inputs it combines), in the output y:"
            "\n    y[2] holds x[0..2] with x[0] twice, it should hold x[0..2]: x[0] is counted twice");
  // Swapped operands: add is right, last is not, from the step with stride 1.
  const scanlab::Algorithm swapped{"kogge_stone", "", "", 0, &traced_kogge_stone<Way::swapped>};
  EXPECT_EQ(ex::where_it_went_wrong(swapped, scanlab::ScanKind::inclusive, 3, scanlab::OpKind::add), "");
  EXPECT_EQ(ex::where_it_went_wrong(swapped, scanlab::ScanKind::inclusive, 3, scanlab::OpKind::last),
            "\nWhere it goes wrong: its add scan (n = 3 run again as an int64 add inclusive scan of x[i] = 16^i) is "
            "right at every step, and n = 3 run again as an int64 last inclusive scan of x[i] = 2^i (so that a value "
            "that is one input says which) is not:"
            "\n  after the step with stride 1 (traced at the barrier at kogge_stone.cuh:85):"
            "\n    XY[1] combines x[0..1] (the add scan says so), so with last it should be x[1]; it is x[0]: the "
            "operands are combined in the wrong order, op(later, earlier), where the scan needs op(earlier, later) "
            "(last keeps its right operand)"
            "\n    XY[2] combines x[1..2] (the add scan says so), so with last it should be x[2]; it is x[1]: the "
            "operands are combined in the wrong order, op(later, earlier), where the scan needs op(earlier, later) "
            "(last keeps its right operand)");
}

namespace {

// A tiled scan in the shape of 11.7's domino and 11.8's look-back: blocks of 2 threads, tiles of 4 inputs;
// block 0 traces its tile's total ("warp_totals"), as those kernels do. `wrong_tile` receives the carry
// that tile `wrong_tile` - 1 would pass on if it published its own total only (11.7's publishes_own_total);
// `tail` > 0 leaves the last `tail` elements unwritten.
template <std::size_t wrong_tile, std::size_t tail = 0>
scanlab::RunResult traced_tiles(const scanlab::RunRequest& r) {
  constexpr std::size_t kTile = 4;
  const auto* x = static_cast<const std::int64_t*>(r.input);
  auto* y = static_cast<std::int64_t*>(r.output);
  const std::size_t n = r.problem.n, tiles = (n + kTile - 1) / kTile;
  std::int64_t running = 0, previous_total = 0;
  std::int64_t tile0_total = 0;
  for (std::size_t b = 0; b < tiles; ++b) {
    const std::int64_t carry = b == wrong_tile ? previous_total : running;
    std::int64_t total = 0;
    for (std::size_t i = b * kTile; i < std::min(n, b * kTile + kTile); ++i) {
      total += x[i];
      if (i + tail < n) y[i] = carry + total;
    }
    if (b == 0) tile0_total = total;
    running += total;
    previous_total = total;
  }
  scanlab::RunResult result;
  if (r.trace) {
    scanlab::LaunchStats launch = trace_of({{std::to_string(tile0_total)}}, "warp_totals");
    launch.grid_blocks = static_cast<std::uint32_t>(tiles);
    launch.block_threads = 2;
    result.launches.push_back(launch);
  }
  return result;
}

}  // namespace

// 11.7 and 11.8: the first tile whose prefix (the inputs before it in its first element of y) is wrong,
// its missing inputs named by tile, and what the tile before it passed on; a tile never written says so.
TEST(Grading, ExplainNamesTheFirstTileWithAWrongPrefix) {
  const scanlab::Algorithm domino{"single_pass", "", "", 0, &traced_tiles<2>};
  EXPECT_EQ(ex::where_it_went_wrong(domino, scanlab::ScanKind::inclusive, 9),
            "\nWhere it goes wrong, tile by tile (n = 9 run again as an int64 add inclusive scan of x[i] = 16^i; one "
            "block scans each tile of 4 inputs, tile b must receive x[0 .. 4 b - 1] from the tiles before it, as the "
            "carry its predecessor passes on):"
            "\n  tile 2 (x[8]): the carry it received (the inputs before the tile in y[8]) covers x[4..7], it should "
            "cover x[0..7]: x[0..3] (tile 0) is missing"
            "\n  tile 1 (x[4..7]) received the right carry, x[0..3], so the running total it passed on (running[2]) is "
            "wrong: it must be that carry combined with its own section's total, x[0..7]"
            "\n  in the output y:"
            "\n    y[8] holds x[4..8], it should hold x[0..8]: x[0..3] is missing");
  // The same in the look-back's words; 40 inputs (three runs of 16) with tile 0 scanned by block 0.
  const scanlab::Algorithm lookback{"decoupled_lookback", "", "", 0, &traced_tiles<3>};
  const std::string found = ex::where_it_went_wrong(lookback, scanlab::ScanKind::inclusive, 40);
  EXPECT_NE(found.find("\n  tile 3 (x[12..15]): the prefix its look-back gave (the inputs before the tile in y[12]) "
                       "covers x[8..11], it should cover x[0..11]: x[0..7] (tiles 0..1) is missing"
                       "\n  the tiles before it received the right prefixes, so what its look-back combined is "
                       "wrong"), std::string::npos) << found;
  // The right kernel: nothing to say; a tile never written.
  const scanlab::Algorithm right{"single_pass", "", "", 0, &traced_tiles<99>};
  EXPECT_EQ(ex::where_it_went_wrong(right, scanlab::ScanKind::inclusive, 9), "");
  const scanlab::Algorithm short_grid{"single_pass", "", "", 0, &traced_tiles<99, 1>};
  EXPECT_NE(ex::where_it_went_wrong(short_grid, scanlab::ScanKind::inclusive, 9)
                .find("\n  tile 2 (x[8]) was never written: no block stored its elements"),
            std::string::npos);
}

// A run that ends in an error (issue 37): the smallest size that ends in the same kind, with that run's
// error in full; a smaller size that fails otherwise is passed over; nothing smaller: nothing said.
namespace {
scanlab::RunResult reads_past_five(const scanlab::RunRequest& r) {
  if (r.problem.n == 3) throw scanlab::Error("deadlock: the threads wait at different barriers");
  if (r.problem.n >= 5) {
    throw scanlab::Error("memory error: kernel 'k', block 0, thread " + std::to_string(r.problem.n) +
                         " (read 4 bytes past the end of x)");
  }
  return {};
}
}  // namespace

TEST(Grading, ExplainShrinksAnError) {
  const scanlab::Algorithm a{"k", "", "", 0, &reads_past_five};
  const scanlab::ScanProblem failing{scanlab::DType::int32, scanlab::OpKind::add, scanlab::ScanKind::inclusive, 257,
                                     false};
  const std::string found = ex::smallest_error(a, failing, 1, "memory error: kernel 'k', block 1, thread 0");
  EXPECT_EQ(found.rfind("\nThe smallest failing case found: n = 5, x = seeded random values, the same memory error\n"
                        "  x        [", 0), 0u) << found;
  EXPECT_NE(found.find("]\nWhere it goes wrong (n = 5):\n    memory error: kernel 'k', block 0, thread 5 (read 4 bytes "
                       "past the end of x)"),
            std::string::npos)
      << found;
  EXPECT_EQ(ex::error_kind("deadlock: no thread can continue"), "deadlock");
  EXPECT_EQ(ex::error_kind("element 2 of 3 is 4, expected 3"), "");
  EXPECT_EQ(ex::smallest_error(a, failing, 1, "element 2 of 3 is 4, expected 3"), "");  // not an error
  EXPECT_EQ(ex::smallest_error(a, {scanlab::DType::int32, scanlab::OpKind::add, scanlab::ScanKind::inclusive, 5, false},
                               1, "memory error: ..."),
            "");  // nothing smaller
}

// ---- trace_labels: each traced step named by its stride or phase, from x[i] = 2^i ------------------

namespace {
/// The value of x[lo] + ... + x[hi] with x[i] = 2^i; "0" the identity, "?" never written.
std::string sum(int lo, int hi) { return std::to_string(((std::uint64_t{1} << (hi + 1)) - 1) >> lo << lo); }

scanlab::LaunchStats launch_of(const std::vector<std::pair<std::string, std::vector<std::string>>>& frames) {
  scanlab::LaunchStats launch;
  std::uint32_t step = 0;
  for (const auto& [name, values] : frames) launch.trace.push_back({0, step++, name, "k.cuh:1", values});
  return launch;
}

std::vector<std::string> labels_of(std::string_view algorithm, std::size_t n, const scanlab::LaunchStats& launch) {
  return scanlab::trace_labels(algorithm, n, {launch}).at(0);
}
}  // namespace

TEST(TraceLabels, KoggeStoneStepsByStride) {
  const auto launch = launch_of({{"XY", {sum(0, 0), sum(1, 1), sum(2, 2), sum(3, 3)}},
                                 {"XY", {sum(0, 0), sum(1, 1), sum(2, 2), sum(3, 3)}},
                                 {"XY", {sum(0, 0), sum(0, 1), sum(1, 2), sum(2, 3)}},
                                 {"XY", {sum(0, 0), sum(0, 1), sum(0, 2), sum(0, 3)}}});
  EXPECT_EQ(labels_of("kogge_stone", 4, launch),
            (std::vector<std::string>{"the load", "unchanged", "stride 1", "stride 2"}));
  // The combinations the figures draw: XY[1] = x[0] (+) x[1], both from the input (the load).
  const auto steps = scanlab::trace_steps("kogge_stone", 4, {launch}).at(0);
  ASSERT_EQ(steps[2].combos.size(), 3u);
  const scanlab::TraceCombo& c = steps[2].combos[0];
  EXPECT_FALSE(c.copy);
  EXPECT_EQ(c.target, 1u);
  EXPECT_EQ(c.left_frame, -1);
  EXPECT_EQ(c.left, 0u);
  EXPECT_EQ(c.right_frame, -1);
  EXPECT_EQ(c.right, 1u);
  // Stride 2 reads the state of frame 2.
  EXPECT_EQ(steps[3].combos[1].left_frame, 2);
}

TEST(TraceLabels, BrentKungTreesAndPaddingSlots) {
  // Sec. 11.4 on 4 elements, in a layout with a padding slot after element 1 (never a sum): the strides
  // count elements, not slots.
  const auto launch = launch_of({{"XY", {sum(0, 0), sum(1, 1), "0", sum(2, 2), sum(3, 3)}},
                                 {"XY", {sum(0, 0), sum(0, 1), "0", sum(2, 2), sum(2, 3)}},
                                 {"XY", {sum(0, 0), sum(0, 1), "0", sum(2, 2), sum(0, 3)}},
                                 {"XY", {sum(0, 0), sum(0, 1), "0", sum(0, 2), sum(0, 3)}}});
  EXPECT_EQ(labels_of("brent_kung_padded", 4, launch),
            (std::vector<std::string>{"the load", "reduction tree, stride 1", "reduction tree, stride 2",
                                      "reverse tree, stride 1"}));
}

TEST(TraceLabels, DoubleBufferCoarsenedPhasesAndWhatIsNotASum) {
  const auto twin = launch_of({{"XY_a", {sum(0, 0), sum(1, 1), sum(2, 2), sum(3, 3)}},
                               {"XY_b", {"?", "?", "?", "?"}},
                               {"XY_b", {sum(0, 0), sum(0, 1), sum(1, 2), sum(2, 3)}},
                               {"XY_a", {sum(0, 0), sum(0, 1), sum(0, 2), sum(0, 3)}}});
  EXPECT_EQ(labels_of("kogge_stone_double_buffer", 4, twin),
            (std::vector<std::string>{"the load", "not written yet", "stride 1", "stride 2"}));
  // Sec. 11.5, 2 threads x 4 elements: each thread's scan, the totals, their scan, the totals before.
  std::vector<std::string> load, own, all;
  for (int i = 0; i < 8; ++i) {
    load.push_back(sum(i, i));
    own.push_back(sum(i < 4 ? 0 : 4, i));
    all.push_back(sum(0, i));
  }
  const auto coarsened = launch_of({{"XY", load}, {"totals", {"?", "?"}}, {"XY", own},
                                    {"totals", {sum(0, 3), sum(4, 7)}}, {"totals", {sum(0, 3), sum(0, 7)}},
                                    {"XY", all}});
  EXPECT_EQ(labels_of("hierarchical_coarsened", 8, coarsened),
            (std::vector<std::string>{"the load", "not written yet", "phase 1: each thread's scan",
                                      "phase 1: the totals", "phase 2, stride 1", "phase 3: the totals before"}));
  // A value that is no sum of a run of inputs (a wrong step) is named for what it did, no more.
  const auto wrong = launch_of({{"XY", {sum(0, 0), sum(1, 1)}}, {"XY", {sum(0, 0), "5"}}});
  EXPECT_EQ(labels_of("kogge_stone", 2, wrong), (std::vector<std::string>{"the load", "changed"}));
}
