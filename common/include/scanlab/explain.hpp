/// \file explain.hpp
/// \brief Where a wrong scan first leaves the book's algorithm (issue 37, item 2). The grader runs the
/// student's kernel once more on the emulator, as an add scan of x[i] = 2^(bits i): then every value
/// in a traced shared array is a sum of distinct digits, one per input, and each digit counts how
/// often that input was combined into the value ("x[2..5]", "x[0] twice"). A model of the section's
/// algorithm, written from the book (never the solution, which a student's copy does not have), says
/// what each element should hold after each step; the first element that differs is reported as
/// ranges: "XY[3] holds x[2..3], it should hold x[0..3]: x[0..1] is missing".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scanlab/algorithm.hpp"

namespace scanlab::grading::explain {

/// How the inputs are spread over a 64-bit value: x[i] = 2^(bits * i), so a value's digit i (of
/// `bits` bits) counts x[i]. 4 bits (a count up to 15) for up to 16 inputs, 2 for up to 32.
struct Encoding {
  unsigned bits = 4;
  std::size_t n = 0;  ///< the inputs x[0 .. n)
};

/// The encoding for n inputs, or nothing when n is too large to count (n > 32).
std::optional<Encoding> encoding_for(std::size_t n);

/// How many times each input x[0 .. n) is combined in `value`.
std::vector<unsigned> counts(std::uint64_t value, const Encoding& e);

/// The inputs a value combines as ranges: "x[2..5]", "x[0], x[2..3]", "nothing (the identity)";
/// with an input counted more than once: "x[0..2] with x[0] twice".
std::string show_counts(const std::vector<unsigned>& c);

/// What a value that holds `got` lacks or has too much of, against `want`: "x[0..1] is missing",
/// "x[1] is counted twice", "x[3] should not be in it", joined with "; ".
std::string show_difference(const std::vector<unsigned>& got, const std::vector<unsigned>& want);

/// The shared arrays of one block at one point of the algorithm; an element the model does not
/// care about (not written yet, a padding slot) is nothing.
struct Snapshot {
  std::string label;  ///< "after the step with stride 2"
  std::string where;  ///< traced snapshots: the barrier where it was first seen ("kogge_stone.cuh:85")
  std::vector<std::pair<std::string, std::vector<std::optional<std::uint64_t>>>> arrays;
};

/// The snapshots of the book's algorithm `algorithm` (a section's algorithm name) on the encoded
/// input, for shared arrays of the lengths the kernel traced (`length` of an array name, 0 if not
/// traced): each state once, as traced_steps keeps them. Empty when there is no model for that name.
std::vector<Snapshot> model_steps(std::string_view algorithm, const Encoding& e, ScanKind kind,
                                  const std::vector<std::pair<std::string, std::size_t>>& lengths);

/// The traced snapshots of block 0 of `launch` over the arrays `names`, each state once (as
/// traced_steps keeps them). A "?" (never written) is nothing.
std::vector<Snapshot> traced_snapshots(const LaunchStats& launch, const std::vector<std::string>& names);

/// The first difference between the model's snapshots and the trace's, as a few lines; "" if the
/// trace follows the model. Each traced state must be the model's next (with fewer traced states,
/// a later one is allowed: a kernel with barriers of its own may do two steps between two); the
/// first that is none is compared with the model's next state, element by element. A trace that
/// ends early is compared with the step it never shows.
std::string compare(const std::vector<Snapshot>& model, const std::vector<Snapshot>& traced, const Encoding& e);

/// Runs `algorithm` once more, traced, as an add scan (`kind`) of n encoded inputs, and says where it
/// first leaves the book's algorithm; "" when there is no model for it, n is too large or the backend
/// traces nothing (cuda). When the trace follows the model and `add_failed` (the failing case was an
/// add scan, so the traced run should show it), says that the steps are right. Never throws.
std::string where_it_went_wrong(const Algorithm& algorithm, ScanKind kind, std::size_t n, bool add_failed);

}  // namespace scanlab::grading::explain
