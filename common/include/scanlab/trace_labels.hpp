/// \file trace_labels.hpp
/// \brief Each traced step named as the book names it: by its stride ("stride 2"), its tree
/// ("reduction tree, stride 4") or its phase ("phase 1: each thread's scan"). The one source of these
/// names: the console's `--trace`, the docs pages' text traces and the trace figures (scanlab_11_3
/// writes them into its trace file, which plots/make_plots.py draws) all print these.
///
/// The names come from the values alone, on an add scan of x[i] = 2^i: every value a correct step
/// leaves is then the sum of a run of inputs x[lo..hi], so a changed element says which element it
/// was combined with (the one holding x[lo..k-1] when it held x[k..hi] before): the distance between
/// them is the step's stride; a left operand found in another array is the coarsened scan's phase 3;
/// one found earlier in the same array's new state is a thread's sequential loop (phase 1).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "scanlab/algorithm.hpp"
#include "scanlab/stats.hpp"

namespace scanlab {

/// How one traced state was made from earlier ones: each changed element a combination of two
/// elements (`left` first, as the operator takes them) or a copy of one. An element is named by the
/// frame that showed it (an index into the launch's trace; -1: the input x) and its index there.
struct TraceCombo {
  bool copy = false;
  std::size_t target = 0;  ///< the element of this frame's array
  long left_frame = -1;    ///< a copy's source, or the left operand
  std::size_t left = 0;
  long right_frame = -1;   ///< the right operand (the element's old value, or another array's); a copy has none
  std::size_t right = 0;
};

/// One frame's name and, where it changed its array, how.
struct TraceStep {
  std::string label;
  std::vector<TraceCombo> combos;
};

/// trace_labels with the combinations the names come from (the trace figures draw them as arrows).
std::vector<std::vector<TraceStep>> trace_steps(std::string_view algorithm, std::size_t n,
                                                const std::vector<LaunchStats>& launches);

/// The name of every frame of `launches` (labels[launch][frame], the frames' order), for a run of
/// `algorithm` (its name: "brent_kung...", "coarsened..." name their trees and phases) whose input
/// was x[i] = 2^i for i < n, an add scan: "the load", "stride 2", "reduction tree, stride 4",
/// "reverse tree, stride 1", "phase 1: each thread's scan", "phase 1: the totals", "phase 2, stride
/// 1", "phase 3: the totals before", "sequential scan", "copies", "unchanged", "not written yet";
/// "changed" where the values say nothing more (a value that is no such sum: a wrong step).
std::vector<std::vector<std::string>> trace_labels(std::string_view algorithm, std::size_t n,
                                                   const std::vector<LaunchStats>& launches);

/// The names for a traced run of `algorithm` on any values: it runs once more on the emulator,
/// traced, as an int64 add scan (`kind`) of x[i] = 2^i, and names that run's frames. Empty (the
/// caller numbers the steps instead) when n > 62, when that run fails, or when its frames are not
/// the same arrays as `launches`' (a kernel whose shape depends on the element type). Never throws.
std::vector<std::vector<std::string>> trace_labels_by_rerun(const Algorithm& algorithm, ScanKind kind, std::size_t n,
                                                            const std::vector<LaunchStats>& launches);

}  // namespace scanlab
