// Unit tests of the host-side harness: options, inputs, the reference and the verifier. These hold
// the policies the grading tests rely on (see inputs.hpp and verify.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "scanlab/inputs.hpp"
#include "scanlab/memory.hpp"
#include "scanlab/ops.hpp"
#include "scanlab/options.hpp"
#include "scanlab/reference.hpp"
#include "scanlab/report.hpp"
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

// Signed sums never overflow: |x| <= INT_MAX / n, so no prefix sum can leave the type.
TEST(Inputs, SignedAddInputsCannotOverflow) {
  for (const std::size_t n : {std::size_t{1} << 10, std::size_t{1} << 20, std::size_t{1} << 26}) {
    const HostArray a = make_input(DType::int32, OpKind::add, n, 1);
    std::int64_t worst = 0;
    for (std::size_t i = 0; i < n; ++i) worst += std::llabs(a.as<std::int32_t>()[i]);
    EXPECT_LE(worst, std::numeric_limits<std::int32_t>::max()) << "n = " << n;
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

TEST(Memory, RefusesWhatDoesNotFitSayingHowMuch) {
  try {
    check_fits(std::size_t{3} << 30, std::size_t{1} << 30, "GPU memory");
    FAIL() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("3.00 GiB"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1.00 GiB"), std::string::npos) << e.what();
  }
}

TEST(Report, StepsUnlimitedTakesLongestBlockPerLaunch) {
  LaunchStats l;
  l.intervals = {{0, 4, 1, 4, 1}, {0, 2, 1, 2, 1}, {1, 4, 1, 12, 3}};
  EXPECT_EQ(steps_unlimited({l, l}), 6u);
}

}  // namespace
