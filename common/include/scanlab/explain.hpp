/// \file explain.hpp
/// \brief Where a wrong scan first leaves the book's algorithm (issue 37, item 2). The grader runs the
/// student's kernel once more on the emulator, as an add scan of x[i] = 16^i: then every value in a
/// traced shared array (and in y) is a sum of distinct hex digits, one per input, and each digit counts
/// how often that input was combined into the value ("x[2..5]", "x[0] twice"). 64 bits hold 16 such
/// digits, so n = 17..512 runs the kernel over windows of 16 inputs (x[i] = 16^(i - 16w) inside window
/// w, the identity 0 outside) and adds up what each run counts. A model of the section's algorithm,
/// written from the book (never the solution, which a student's copy does not have), says what each
/// element should hold after each step; the first element that differs is reported as ranges: "XY[3]
/// holds x[2..3], it should hold x[0..3]: x[0..1] is missing". Where the add scan is right but another
/// operator's is not, a second run with that operator on x[i] = 2^i says which input each element holds
/// ("the operands are combined in the wrong order").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scanlab/algorithm.hpp"
#include "scanlab/inputs.hpp"

namespace scanlab::grading::explain {

/// How often each input x[0 .. n) is combined in a value.
using Counts = std::vector<unsigned>;

/// The inputs x[0 .. n), counted 16 to a run: run w sets x[i] = 16^(i - 16 w) for 16 w <= i < 16 w + 16.
struct Encoding {
  static constexpr unsigned bits = 4;                 ///< a digit counts one input up to 15 times
  static constexpr std::size_t per_run = 64 / bits;   ///< 16 inputs a run
  std::size_t n = 0;                                  ///< the inputs x[0 .. n)
  std::size_t runs() const { return (n + per_run - 1) / per_run; }
};

/// The largest n explained: 64 runs of 16 inputs (a wrong carry of 11.7's small-section variant, 256
/// elements a section, needs three sections: 513 inputs).
inline constexpr std::size_t kMaxInputs = 1024;

/// The encoding for n inputs, or nothing when n is 0 or larger than kMaxInputs.
std::optional<Encoding> encoding_for(std::size_t n);

/// x[i] as run `run` encodes it (0, the identity, outside its window).
std::uint64_t encoded_input(const Encoding& e, std::size_t run, std::size_t i);

/// How many times each input x[0 .. n) is combined in `value` of run `run` (0 outside its window).
Counts counts(std::uint64_t value, const Encoding& e, std::size_t run = 0);

/// The inputs a value combines as ranges: "x[2..5]", "x[0], x[2..3]", "nothing (the identity)";
/// with an input counted more than once: "x[0..2] with x[0] twice".
std::string show_counts(const Counts& c);

/// What a value that holds `got` lacks or has too much of, against `want`: "x[0..1] is missing",
/// "x[1] is counted twice", "x[3] should not be in it", joined with "; ".
std::string show_difference(const Counts& got, const Counts& want);

/// The shared arrays of one block at one point of the algorithm; an element the model does not care
/// about (not written yet, a padding slot) is nothing. V: the inputs each element combines (Counts),
/// or the value itself (a run with another operator).
template <class V>
struct State {
  std::string label;  ///< "after the step with stride 2"
  std::string where;  ///< traced snapshots: the barrier where it was first seen ("kogge_stone.cuh:85")
  std::vector<std::pair<std::string, std::vector<std::optional<V>>>> arrays;
};
using Snapshot = State<Counts>;

/// The snapshots of the book's algorithm `algorithm` (a section's algorithm name, or an in-block
/// kernel's name without "_scan_kernel") on n inputs, for shared arrays of the lengths the kernel
/// traced (`length` of an array name, 0 if not traced): each state once, as traced_steps keeps them.
/// `width` > 1: a level of 11.6's hierarchy, whose element i is the block sum x[i w .. i w + w - 1].
/// Empty when there is no model for that name.
std::vector<Snapshot> model_steps(std::string_view algorithm, const Encoding& e, ScanKind kind,
                                  const std::vector<std::pair<std::string, std::size_t>>& lengths,
                                  std::size_t width = 1);

/// The traced snapshots of block 0 of `launch` over the arrays `names`, read as run `run` of `e`, each
/// state once (as traced_steps keeps them). A "?" (never written) is nothing.
std::vector<Snapshot> traced_snapshots(const LaunchStats& launch, const std::vector<std::string>& names,
                                       const Encoding& e, std::size_t run = 0);

/// The first difference between the model's snapshots and the trace's, as a few lines; "" if the
/// trace follows the model. Each traced state must be the model's next (with fewer traced states,
/// a later one is allowed: a kernel with barriers of its own may do two steps between two); the
/// first that is none is compared with the model's next state, element by element. A trace that
/// ends early is compared with the step it never shows.
std::string compare(const std::vector<Snapshot>& model, const std::vector<Snapshot>& traced);

/// Runs `algorithm` once more, traced, as an add scan (`kind`) of n encoded inputs, and says where it
/// first leaves the book's algorithm: the first barrier where its shared memory differs from the model
/// (11.2's Fig. 11.3 and double buffer, 11.4, 11.5), for a tiled scan (11.7's domino, 11.8's look-back)
/// the first tile whose prefix is wrong ("tile 2 (x[512]): the carry it received ... covers x[256..511],
/// it should cover x[0..511]: x[0..255] (tile 0) is missing") and what the tile before it passed on, else
/// the first wrong elements of y as ranges (every scan); a launch that wrote nothing says so. When the add scan is right at every step and `op` is not add, runs it once more with
/// `op` on x[i] = 2^i and says which input each element holds where it differs ("the operands are
/// combined in the wrong order"). "" when n is too large, the backend traces nothing (cuda) or all is
/// right. Never throws.
std::string where_it_went_wrong(const Algorithm& algorithm, ScanKind kind, std::size_t n, OpKind op = OpKind::add);

/// The first 16 elements of `a` (`n` of them, of its type), "[1, 2, 3]", then a count of the rest: how the
/// smallest failing case shows its arrays.
std::string show_elements(const HostArray& a, std::size_t n);

/// The sizes the shrink tries, ascending: around the edges a kernel's structure has (a warp, a block,
/// a section).
inline constexpr std::size_t kShrinkSizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 16, 31, 32, 33, 63, 64, 65, 127, 128, 129,
                                               255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049};

/// After a wrong output of `failing`: within a budget (3 s, 120 runs: three inputs at each size), the
/// first case smaller than it that still gives a wrong output, in full ("The smallest failing case
/// found: n = 3, x = all ones", its input, the expected and the actual output, past 16 elements the
/// first wrong one; the tests' seeded inputs use `seed`), then where_it_went_wrong for that case (or
/// `failing` itself when nothing smaller fails). "" when nothing smaller fails and there is nothing to
/// explain; stops at a run that ends in an error (a hang or a memory error tells its own story).
std::string smallest_failure(const Algorithm& algorithm, const ScanProblem& failing, std::uint64_t seed);

/// For a smallest failing case of n > 16 elements (past issue 37's bar): why it is the smallest, as a
/// line of the case ("no smaller case: every size tried below it passes (...); the largest, n = 64, runs
/// 2 blocks of 32 threads, and n = 65 runs 3 blocks of 32 threads"), from the largest size tried below it
/// (`below`, which `how`: "passes", "ends without this memory error") and the launches of both (cpu
/// backend), so that a student sees the edge the bug needs: another block, a wider one, another launch.
/// "" for n <= 16 or nothing tried below.
std::string why_not_smaller(std::size_t n, std::size_t below, const std::string& how,
                            const std::vector<LaunchStats>& below_launches, const std::vector<LaunchStats>& launches = {});

/// The kind of error a message tells, as the grade report classifies it (tools/scanlab_lab/diagnose.py):
/// "memory error", "watchdog", "deadlock", "barrier divergence", "launch error"; "" for any other.
std::string error_kind(const std::string& message);

/// After a run of `failing` that ended in `error` (one of error_kind's): within 3 s, the smallest size
/// below it (n = 0, then kShrinkSizes) whose seeded run ends in the same kind of error ("The smallest
/// failing case found: n = 1, ..., the same memory error", then that run's error in full: the kernel,
/// the block, the thread and the access). The sizes go up, so a hang costs the watchdog's time once.
/// When no smaller size gives it: with `or_itself` (and `failing` no larger than the shrink's sizes),
/// the failing case itself, its input and `error`; else "".
std::string smallest_error(const Algorithm& algorithm, const ScanProblem& failing, std::uint64_t seed,
                           const std::string& error, bool or_itself = false);

}  // namespace scanlab::grading::explain
