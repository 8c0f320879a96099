#include "scanlab/explain.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <sstream>

#include "scanlab/dispatch.hpp"
#include "scanlab/inputs.hpp"
#include "scanlab/memory.hpp"
#include "scanlab/reference.hpp"
#include "scanlab/verify.hpp"

namespace scanlab::grading::explain {

using U = std::uint64_t;
using Values = std::vector<std::optional<Counts>>;

std::optional<Encoding> encoding_for(std::size_t n) {
  if (n == 0 || n > kMaxInputs) return std::nullopt;
  return Encoding{n};
}

U encoded_input(const Encoding& e, std::size_t run, std::size_t i) {
  const std::size_t first = run * Encoding::per_run;
  return i >= first && i < first + Encoding::per_run && i < e.n ? U{1} << (Encoding::bits * (i - first)) : 0;
}

Counts counts(U value, const Encoding& e, std::size_t run) {
  Counts c(e.n);
  const U digit = (U{1} << Encoding::bits) - 1;
  const std::size_t first = run * Encoding::per_run;
  for (std::size_t k = 0; k < Encoding::per_run && first + k < e.n; ++k) {
    c[first + k] = static_cast<unsigned>((value >> (Encoding::bits * k)) & digit);
  }
  return c;
}

namespace {

// "x[2]" or "x[2..5]".
std::string range(std::size_t first, std::size_t last) {
  return "x[" + std::to_string(first) + (first == last ? "" : ".." + std::to_string(last)) + "]";
}

// What a range is, after it ("(tile 1)"); nothing by default.
using Note = std::function<std::string(std::size_t, std::size_t)>;

// The runs of consecutive indices where `pick` holds, as ranges joined by ", ", each with its note.
template <class Pick>
std::string runs(std::size_t n, Pick pick, const Note& note = nullptr) {
  std::string out;
  for (std::size_t i = 0; i < n;) {
    if (!pick(i)) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j + 1 < n && pick(j + 1)) ++j;
    out += (out.empty() ? "" : ", ") + range(i, j) + (note ? note(i, j) : "");
    i = j + 1;
  }
  return out;
}

std::string times(unsigned k) { return k == 2 ? "twice" : std::to_string(k) + " times"; }

}  // namespace

std::string show_counts(const Counts& c) {
  std::string out = runs(c.size(), [&](std::size_t i) { return c[i] > 0; });
  if (out.empty()) return "nothing (the identity)";
  // Inputs counted more than once, grouped by how often.
  std::vector<unsigned> often;
  for (unsigned k : c) {
    if (k > 1 && std::find(often.begin(), often.end(), k) == often.end()) often.push_back(k);
  }
  std::sort(often.begin(), often.end());
  std::string extra;
  for (unsigned k : often) {
    extra += (extra.empty() ? " with " : " and ") + runs(c.size(), [&](std::size_t i) { return c[i] == k; }) + " " +
             times(k);
  }
  return out + extra;
}

namespace {

// show_difference, each range with its note.
std::string difference(const Counts& got, const Counts& want, const Note& note) {
  const std::size_t n = std::min(got.size(), want.size());
  std::vector<std::string> parts;
  const std::string missing = runs(n, [&](std::size_t i) { return got[i] < want[i]; }, note);
  if (!missing.empty()) parts.push_back(missing + " is missing");
  const std::string stray = runs(n, [&](std::size_t i) { return want[i] == 0 && got[i] == 1; }, note);
  if (!stray.empty()) parts.push_back(stray + " should not be in it");
  std::vector<unsigned> often;
  for (std::size_t i = 0; i < n; ++i) {
    if (got[i] > want[i] && got[i] > 1 && std::find(often.begin(), often.end(), got[i]) == often.end()) {
      often.push_back(got[i]);
    }
  }
  std::sort(often.begin(), often.end());
  for (unsigned k : often) {
    parts.push_back(runs(n, [&](std::size_t i) { return got[i] == k && want[i] < k; }, note) + " is counted " +
                    times(k));
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace

std::string show_difference(const Counts& got, const Counts& want) { return difference(got, want, nullptr); }

namespace {

// The book's algorithms, step by step, on the inputs: each element is the inputs it combines, and the
// operator is `+` on those counts. Each records its arrays after every step, each state once.
class Steps {
 public:
  void record(std::string label, const std::vector<std::pair<std::string, Values>>& arrays) {
    if (!steps_.empty() && steps_.back().arrays == arrays) return;
    steps_.push_back({std::move(label), "", arrays});
  }
  std::vector<Snapshot> take() { return std::move(steps_); }

 private:
  std::vector<Snapshot> steps_;
};

Values known(const std::vector<Counts>& v) { return {v.begin(), v.end()}; }

Counts operator+(Counts a, const Counts& b) {
  for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}

// The inputs of one level of a hierarchical scan: element i is x[i w .. i w + w - 1] (w = 1: x[i]),
// what the level before leaves in its block sums.
struct Inputs {
  const Encoding& e;
  std::size_t width = 1;
  Counts operator()(std::size_t i) const {
    Counts c(e.n);
    for (std::size_t j = i * width; j < (i + 1) * width && j < e.n; ++j) c[j] = 1;
    return c;
  }
};

// What the scan leaves in element i: x[0..i] (exclusive: x[0..i-1]).
Counts prefix(const Encoding& e, ScanKind kind, std::size_t i) {
  Counts c(e.n);
  const std::size_t end = std::min(e.n, kind == ScanKind::exclusive ? i : i + 1);
  for (std::size_t j = 0; j < end; ++j) c[j] = 1;
  return c;
}

// Element t's load: x[t] (exclusive: x[t - 1], the identity at t = 0).
Counts load(const Inputs& in, ScanKind kind, std::size_t t) {
  return kind == ScanKind::exclusive ? (t > 0 ? in(t - 1) : Counts(in.e.n)) : in(t);
}

std::size_t length_of(const std::vector<std::pair<std::string, std::size_t>>& lengths, std::string_view name) {
  for (const auto& [n, len] : lengths) {
    if (n == name) return len;
  }
  return 0;
}

// Sec. 11.2, Fig. 11.3: XY[t] loads x[t] (exclusive: x[t - 1], the identity at t = 0); the step with
// stride s adds XY[t - s] into XY[t] for t >= s, all reads before all writes.
std::vector<Snapshot> kogge_stone(const Inputs& in, ScanKind kind, std::size_t S) {
  std::vector<Counts> xy(S);
  for (std::size_t t = 0; t < S; ++t) xy[t] = load(in, kind, t);
  Steps steps;
  steps.record("after the loads", {{"XY", known(xy)}});
  for (std::size_t s = 1; s < S; s *= 2) {
    std::vector<Counts> next = xy;
    for (std::size_t t = s; t < S; ++t) next[t] = xy[t - s] + xy[t];
    xy = next;
    steps.record("after the step with stride " + std::to_string(s), {{"XY", known(xy)}});
  }
  return steps.take();
}

// Sec. 11.2, double buffering: each step reads one array and writes the whole other one (a copy
// below the stride), then the two swap roles.
std::vector<Snapshot> kogge_stone_double_buffer(const Inputs& x, ScanKind kind, std::size_t S) {
  Values a(S), b(S);  // b: not written yet
  for (std::size_t t = 0; t < S; ++t) a[t] = load(x, kind, t);
  Steps steps;
  steps.record("after the loads", {{"XY_a", a}, {"XY_b", b}});
  Values* in = &a;
  Values* out = &b;
  for (std::size_t s = 1; s < S; s *= 2) {
    for (std::size_t t = 0; t < S; ++t) (*out)[t] = t >= s ? *(*in)[t - s] + *(*in)[t] : *(*in)[t];
    std::swap(in, out);
    steps.record("after the step with stride " + std::to_string(s) + ", which writes " + (in == &a ? "XY_a" : "XY_b"),
                 {{"XY_a", a}, {"XY_b", b}});
  }
  return steps.take();
}

// Sec. 11.4: the reduction tree (strides 1, 2, ..., S/2: XY[k 2s + 2s - 1] += XY[k 2s + s - 1]) and
// the reverse tree (strides S/4, ..., 1: XY[k 2s + 3s - 1] += XY[k 2s + 2s - 1]). Exclusive scans
// shift on the way out, so the shared array is the inclusive scan's. Padded: element i at i + i/32.
std::vector<Snapshot> brent_kung(const Inputs& in, std::size_t length, bool padded) {
  std::size_t S = 1;
  while (S + (padded ? S / 32 : 0) < length) S *= 2;
  if (S + (padded ? S / 32 : 0) != length) return {};
  std::vector<Counts> xy(S);
  for (std::size_t i = 0; i < S; ++i) xy[i] = in(i);
  const auto laid_out = [&] {
    Values v(length);
    for (std::size_t i = 0; i < S; ++i) v[padded ? i + i / 32 : i] = xy[i];
    return std::vector<std::pair<std::string, Values>>{{"XY", v}};
  };
  Steps steps;
  steps.record("after the loads", laid_out());
  for (std::size_t s = 1; s <= S / 2; s *= 2) {
    for (std::size_t index = 2 * s - 1; index < S; index += 2 * s) xy[index] = xy[index] + xy[index - s];
    steps.record("after the reduction tree's step with stride " + std::to_string(s), laid_out());
  }
  for (std::size_t s = S / 4; s > 0; s /= 2) {
    for (std::size_t index = 2 * s - 1; index + s < S; index += 2 * s) xy[index + s] = xy[index + s] + xy[index];
    steps.record("after the reverse tree's step with stride " + std::to_string(s), laid_out());
  }
  return steps.take();
}

// Sec. 11.5 (Fig. 11.5): thread t owns XY[t f .. t f + f - 1]; phase 1 scans it sequentially and
// writes its total to totals[t]; phase 2 is Kogge-Stone over the totals; phase 3 adds totals[t - 1]
// into the subsection (its last element takes totals[t]). Exclusive shifts on the way out.
std::vector<Snapshot> coarsened(const Inputs& in, std::size_t section, std::size_t T) {
  if (T == 0 || section % T != 0) return {};
  const std::size_t f = section / T;
  std::vector<Counts> xy(section), totals(T, Counts(in.e.n));
  for (std::size_t i = 0; i < section; ++i) xy[i] = in(i);
  Steps steps;
  steps.record("after the loads", {{"XY", known(xy)}, {"totals", Values(T)}});
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t j = t * f + 1; j < t * f + f; ++j) xy[j] = xy[j] + xy[j - 1];
    totals[t] = xy[t * f + f - 1];
  }
  steps.record("after phase 1, each thread's sequential scan of its " + std::to_string(f) +
                   " elements and its total in totals",
               {{"XY", known(xy)}, {"totals", known(totals)}});
  for (std::size_t s = 1; s < T; s *= 2) {
    std::vector<Counts> next = totals;
    for (std::size_t t = s; t < T; ++t) next[t] = totals[t - s] + totals[t];
    totals = next;
    steps.record("after phase 2's step with stride " + std::to_string(s),
                 {{"XY", known(xy)}, {"totals", known(totals)}});
  }
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t j = t * f; j + 1 < t * f + f; ++j) {
      if (t > 0) xy[j] = xy[j] + totals[t - 1];
    }
    xy[t * f + f - 1] = totals[t];
  }
  steps.record("after phase 3, where each subsection adds the totals before it",
               {{"XY", known(xy)}, {"totals", known(totals)}});
  return steps.take();
}

// Sec. 11.2 with warp shuffles (warp_scan.cuh): each warp of 32 threads scans its elements in
// registers, its last lane writes the warp's total to warp_totals[w] (a barrier), warp 0 scans the
// totals (a barrier), and each warp adds the totals before it. Only warp_totals is in shared memory.
std::vector<Snapshot> kogge_stone_warp_shuffle(const Inputs& in, ScanKind kind, std::size_t W) {
  std::vector<Counts> totals(W, Counts(in.e.n));
  for (std::size_t w = 0; w < W; ++w) {
    for (std::size_t t = 32 * w; t < 32 * w + 32; ++t) totals[w] = totals[w] + load(in, kind, t);
  }
  Steps steps;
  steps.record("after each warp's shuffle scan (its last lane writes the warp's total)",
               {{"warp_totals", known(totals)}});
  for (std::size_t w = 1; w < W; ++w) totals[w] = totals[w] + totals[w - 1];
  steps.record("after warp 0's shuffle scan of the warp totals", {{"warp_totals", known(totals)}});
  return steps.take();
}

// The shared arrays a model's kernel traces, or none when there is no such model.
std::vector<std::string> traced_arrays(std::string_view model) {
  if (model == "kogge_stone" || model == "brent_kung" || model == "brent_kung_padded") return {"XY"};
  if (model == "kogge_stone_double_buffer") return {"XY_a", "XY_b"};
  if (model == "kogge_stone_warp_shuffle") return {"warp_totals"};
  if (model.rfind("coarsened", 0) == 0) return {"XY", "totals"};
  return {};
}

// The model of a launch: its kernel's ("kogge_stone_scan_kernel": kogge_stone), so that 11.6's
// levels use the in-block kernels' models; else the algorithm's (a kernel without a name).
std::string model_of(std::string_view algorithm, const std::string& kernel) {
  const std::string suffix = "_scan_kernel";
  if (kernel.size() > suffix.size() && kernel.compare(kernel.size() - suffix.size(), suffix.size(), suffix) == 0) {
    const std::string name = kernel.substr(0, kernel.size() - suffix.size());
    if (!traced_arrays(name).empty()) return name;
  }
  return std::string(algorithm);
}

// The elements one block of a model's kernel scans.
std::size_t section_of(std::string_view model, const LaunchStats& launch,
                       const std::vector<std::pair<std::string, std::size_t>>& lengths) {
  if (model.rfind("brent_kung", 0) == 0) return 2 * std::size_t{launch.block_threads};
  if (model.rfind("coarsened", 0) == 0) return length_of(lengths, "XY");
  return launch.block_threads;
}

}  // namespace

std::vector<Snapshot> model_steps(std::string_view algorithm, const Encoding& e, ScanKind kind,
                                  const std::vector<std::pair<std::string, std::size_t>>& lengths, std::size_t width) {
  for (const std::string& name : traced_arrays(algorithm)) {
    if (length_of(lengths, name) == 0) return {};
  }
  const Inputs in{e, width};
  if (algorithm == "kogge_stone") return kogge_stone(in, kind, length_of(lengths, "XY"));
  if (algorithm == "kogge_stone_double_buffer") {
    if (length_of(lengths, "XY_a") != length_of(lengths, "XY_b")) return {};
    return kogge_stone_double_buffer(in, kind, length_of(lengths, "XY_a"));
  }
  if (algorithm == "kogge_stone_warp_shuffle") return kogge_stone_warp_shuffle(in, kind, length_of(lengths, "warp_totals"));
  if (algorithm == "brent_kung" || algorithm == "brent_kung_padded") {
    return brent_kung(in, length_of(lengths, "XY"), algorithm == "brent_kung_padded");
  }
  if (algorithm.rfind("coarsened", 0) == 0) return coarsened(in, length_of(lengths, "XY"), length_of(lengths, "totals"));
  return {};
}

namespace {

// Block 0's frames of `launch` over the arrays `names`, one state per barrier (not deduplicated), each
// element read by `read` from its text; a "?" (never written) or a text that is no number is nothing.
template <class V, class Read>
std::vector<State<V>> frames(const LaunchStats& launch, const std::vector<std::string>& names, Read read) {
  std::vector<State<V>> out;
  for (std::size_t k = 0; k < launch.trace.size();) {
    // The frames of one barrier: one per traced array, with the same step.
    const std::uint32_t step = launch.trace[k].step, block = launch.trace[k].block;
    State<V> s;
    s.where = launch.trace[k].where;
    for (const std::string& name : names) s.arrays.push_back({name, {}});
    std::size_t j = k;
    for (; j < launch.trace.size() && launch.trace[j].step == step && launch.trace[j].block == block; ++j) {
      const TraceFrame& f = launch.trace[j];
      for (auto& [name, values] : s.arrays) {
        if (name != f.name) continue;
        for (const std::string& v : f.values) {
          std::optional<V> value;
          if (v != "?") {
            try {
              value = read(static_cast<U>(std::stoll(v)));
            } catch (const std::exception&) {
            }
          }
          values.push_back(std::move(value));
        }
      }
    }
    k = j;
    if (block == 0) out.push_back(std::move(s));
  }
  return out;
}

// Each state once, as traced_steps keeps them.
template <class V>
std::vector<State<V>> each_once(std::vector<State<V>> states) {
  std::vector<State<V>> out;
  for (State<V>& s : states) {
    if (out.empty() || out.back().arrays != s.arrays) out.push_back(std::move(s));
  }
  return out;
}

// The runs of one traced run per window, added up: what each element combines of all n inputs.
// Nothing when the runs went through different barriers (they should not: the values differ only).
std::optional<std::vector<Snapshot>> merge(const std::vector<std::vector<Snapshot>>& runs) {
  std::vector<Snapshot> out = runs.at(0);
  for (std::size_t r = 1; r < runs.size(); ++r) {
    if (runs[r].size() != out.size()) return std::nullopt;
    for (std::size_t k = 0; k < out.size(); ++k) {
      for (std::size_t a = 0; a < out[k].arrays.size(); ++a) {
        auto& into = out[k].arrays[a].second;
        const auto& from = runs[r][k].arrays[a].second;
        if (from.size() != into.size()) return std::nullopt;
        for (std::size_t i = 0; i < into.size(); ++i) {
          if (into[i] && from[i]) {
            into[i] = *into[i] + *from[i];
          } else {
            into[i] = std::nullopt;
          }
        }
      }
    }
  }
  return out;
}

// The states with only the arrays `names` (a model's), in that order.
std::vector<Snapshot> only(const std::vector<Snapshot>& states, const std::vector<std::string>& names) {
  std::vector<Snapshot> out;
  for (const Snapshot& s : states) {
    Snapshot kept{s.label, s.where, {}};
    for (const std::string& name : names) {
      for (const auto& array : s.arrays) {
        if (array.first == name) kept.arrays.push_back(array);
      }
    }
    out.push_back(std::move(kept));
  }
  return out;
}

}  // namespace

std::vector<Snapshot> traced_snapshots(const LaunchStats& launch, const std::vector<std::string>& names,
                                       const Encoding& e, std::size_t run) {
  return each_once(frames<Counts>(launch, names, [&](U v) { return counts(v, e, run); }));
}

namespace {

// "kogge_stone.cuh:85" from a path; "the end of the block" as the emulator says it.
std::string place(const std::string& where) {
  if (where == "end of block") return "traced at the end of the block";
  const std::size_t slash = where.find_last_of('/');
  return "traced at the barrier at " + (slash == std::string::npos ? where : where.substr(slash + 1));
}

// One line for element `element` that holds `got` where it should hold `want` (add runs: the inputs
// each combines).
std::string describe(const std::string& element, const std::optional<Counts>& got, const Counts& want) {
  if (!got) return element + " was never written, it should hold " + show_counts(want);
  return element + " holds " + show_counts(*got) + ", it should hold " + show_counts(want) + ": " +
         show_difference(*got, want);
}

// The elements of `traced` that differ from `model`, one line each (`describe` words it).
template <class V, class Describe>
std::vector<std::string> differences(const State<V>& model, const State<V>& traced, Describe describe) {
  std::vector<std::string> lines;
  for (const auto& array : model.arrays) {
    const std::string& name = array.first;  // (not a structured binding: clang before 16 cannot capture one)
    const auto& want = array.second;
    const auto it = std::find_if(traced.arrays.begin(), traced.arrays.end(),
                                 [&](const auto& a) { return a.first == name; });
    if (it == traced.arrays.end() || it->second.size() != want.size()) continue;
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (want[i] && it->second[i] != want[i]) {
        lines.push_back(describe(name + "[" + std::to_string(i) + "]", it->second[i], *want[i]));
      }
    }
  }
  return lines;
}

std::string show_lines(const std::vector<std::string>& lines, const char* where = "at this step") {
  std::string out;
  const std::size_t shown = std::min<std::size_t>(lines.size(), 3);
  for (std::size_t i = 0; i < shown; ++i) out += "\n    " + lines[i];
  if (lines.size() > shown) {
    out += "\n    (and " + std::to_string(lines.size() - shown) + " more element" +
           (lines.size() - shown == 1 ? "" : "s") + " " + where + ")";
  }
  return out;
}

template <class V, class Describe>
std::string compare_states(const std::vector<State<V>>& model, const std::vector<State<V>>& traced,
                           Describe describe) {
  if (model.empty() || traced.empty()) return "";
  // Each traced state should be the model's next. With fewer traced states than the model's, one that
  // comes later than the next is fine (a kernel of its own may do two of the book's steps between two
  // barriers). A traced state that is none of them is where the kernel leaves the book: compared with
  // the next state. (With as many states, no skipping: a race that gets the whole prefix one step
  // early, and more later, is shown at the step where it took too much.)
  const bool may_skip = traced.size() < model.size();
  const std::string states = model.size() == traced.size()
                                 ? ""
                                 : "\n  (its shared memory went through " + std::to_string(traced.size()) +
                                       " states, one per barrier where it changed; the book's algorithm through " +
                                       std::to_string(model.size()) + ")";
  std::size_t next = 0;
  for (const State<V>& t : traced) {
    const auto matches = [&](std::size_t k) { return differences(model[k], t, describe).empty(); };
    std::size_t j = next;
    while (may_skip && j < model.size() && !matches(j)) ++j;
    if (j < model.size() && matches(j)) {
      next = j + 1;
      continue;
    }
    const State<V>& want = model[std::min(next, model.size() - 1)];
    return "\n  " + want.label + " (" + place(t.where) + "):" + show_lines(differences(want, t, describe)) + states;
  }
  if (next == model.size()) return "";
  // Its last state is one the book passes through: the kernel stops short of the book's last steps.
  return "\n  " + model[next].label + ", which left its shared memory as it was " + model[next - 1].label + ":" +
         show_lines(differences(model[next], traced.back(), describe)) + states;
}

}  // namespace

std::string compare(const std::vector<Snapshot>& model, const std::vector<Snapshot>& traced) {
  return compare_states(model, traced, describe);
}

namespace {

// One traced run on the emulator: its launches and its output.
struct Run {
  std::vector<LaunchStats> launches;
  std::vector<std::int64_t> y;
};

// In place: y starts as a copy of x and is the input too (an element never written then still holds
// its input).
Run run_traced(const Algorithm& algorithm, OpKind op, ScanKind kind, const std::vector<std::int64_t>& x,
               bool in_place = false) {
  Run run;
  if (in_place) {
    run.y = x;
  } else {
    run.y.assign(x.size(), -1);
  }
  RunResult r = algorithm.run(RunRequest{{DType::int64, op, kind, x.size(), in_place},
                                         in_place ? run.y.data() : x.data(), run.y.data(), 0, true});
  run.launches = std::move(r.launches);
  return run;
}

// The arrays block 0 of a launch traces, in the order first seen.
std::vector<std::string> arrays_of(const LaunchStats& launch) {
  std::vector<std::string> names;
  for (const TraceFrame& f : launch.trace) {
    if (f.block == 0 && std::find(names.begin(), names.end(), f.name) == names.end()) names.push_back(f.name);
  }
  return names;
}

// ---- a run with another operator, on x[i] = 2^i: each value that is one input says which ----------
constexpr std::size_t kMaxOpInputs = 62;  // x[61] = 2^61: a sum of distinct inputs stays below 2^62, positive

// A value of that run, with what the add run says it combines (the traced run's own values: nothing).
struct OpValue {
  std::int64_t value = 0;
  Counts combines;
  bool operator==(const OpValue& o) const { return value == o.value; }
  bool operator!=(const OpValue& o) const { return value != o.value; }
};

std::int64_t identity(OpKind op) {
  switch (op) {
    case OpKind::add: return 0;
    case OpKind::min: return std::numeric_limits<std::int64_t>::max();
    case OpKind::max:
    case OpKind::last: return std::numeric_limits<std::int64_t>::lowest();
  }
  return 0;
}

// What `op` gives over the inputs `c` counts, combined in index order: max and last keep the latest
// input (x[i] = 2^i grows), min the earliest.
std::int64_t op_over(OpKind op, const Counts& c) {
  std::int64_t sum = 0;
  std::optional<std::size_t> lo, hi;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c[i] == 0) continue;
    sum += static_cast<std::int64_t>(c[i]) << i;
    if (!lo) lo = i;
    hi = i;
  }
  if (!lo) return identity(op);
  if (op == OpKind::add) return sum;
  return std::int64_t{1} << (op == OpKind::min ? *lo : *hi);
}

// The input a value is (x[j] = 2^j), if it is one.
std::optional<std::size_t> which_input(std::int64_t v, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    if (v == std::int64_t{1} << j) return j;
  }
  return std::nullopt;
}

std::string show_value(std::int64_t v, OpKind op, std::size_t n) {
  if (v == identity(op)) return "nothing (the identity)";
  if (const auto j = which_input(v, n)) return "x[" + std::to_string(*j) + "]";
  return std::to_string(v) + ", no single input";
}

// One line for an element of the run with `op` that differs from what its inputs give in index order.
auto describe_op(OpKind op, std::size_t n) {
  return [op, n](const std::string& element, const std::optional<OpValue>& got, const OpValue& want) {
    const std::string should = element + " combines " + show_counts(want.combines) + " (the add scan says so), so with " +
                               name(op) + " it should be " + show_value(want.value, op, n);
    if (!got) return should + "; it was never written";
    std::string line = should + "; it is " + show_value(got->value, op, n);
    const auto j = which_input(got->value, n);
    std::size_t hi = 0;
    for (std::size_t i = 0; i < want.combines.size(); ++i) hi = want.combines[i] ? i : hi;
    if (op == OpKind::last && j && *j < hi && want.combines[*j]) {
      line += ": the operands are combined in the wrong order, op(later, earlier), where the scan needs "
              "op(earlier, later) (last keeps its right operand)";
    } else if (!j && got->value == op_over(OpKind::add, want.combines)) {
      line += ": their sum, so the kernel adds where it should apply the operator";
    }
    return line;
  };
}

// The first barrier where the run with `op` differs from what the add run's values give with `op`
// (both runs pass the same barriers: only the values differ), then its output; "" if none does.
std::string op_difference(const std::vector<std::vector<Snapshot>>& add_frames,
                          const std::vector<std::vector<Snapshot>>& add_model, const std::vector<Counts>& add_y,
                          const Run& op_run, OpKind op, std::size_t n) {
  const auto as_op = [&](const std::optional<Counts>& c) -> std::optional<OpValue> {
    if (!c) return std::nullopt;
    return OpValue{op_over(op, *c), *c};
  };
  for (std::size_t l = 0; l < add_frames.size() && l < op_run.launches.size(); ++l) {
    if (add_frames[l].empty()) continue;
    std::vector<std::string> names;
    for (const auto& a : add_frames[l][0].arrays) names.push_back(a.first);
    const auto got = frames<OpValue>(op_run.launches[l], names, [](U v) { return OpValue{static_cast<std::int64_t>(v), {}}; });
    if (got.size() != add_frames[l].size()) continue;
    for (std::size_t k = 0; k < got.size(); ++k) {
      State<OpValue> want{"", add_frames[l][k].where, {}};
      for (const auto& [array, values] : add_frames[l][k].arrays) {
        std::vector<std::optional<OpValue>> v;
        for (const auto& c : values) v.push_back(as_op(c));
        want.arrays.push_back({array, v});
      }
      const std::vector<std::string> lines = differences(want, got[k], describe_op(op, n));
      if (lines.empty()) continue;
      // The add run followed the book's steps: name the one this barrier is.
      std::string label = "at a barrier";
      for (const Snapshot& m : add_model[l]) {
        if (differences(m, add_frames[l][k], describe).empty()) label = m.label;
      }
      return "\n  " + label + " (" + place(got[k].where) + "):" + show_lines(lines);
    }
  }
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < n; ++i) {
    const OpValue want{op_over(op, add_y[i]), add_y[i]};
    if (op_run.y[i] != want.value) lines.push_back(describe_op(op, n)("y[" + std::to_string(i) + "]", OpValue{op_run.y[i], {}}, want));
  }
  return lines.empty() ? "" : "\n  in the output y:" + show_lines(lines, "of y");
}

// ---- per-tile models: Sec. 11.7's domino and 11.8's decoupled look-back -----------------------------
// Each block scans one tile of T consecutive inputs and combines it with a prefix from the tiles before
// it: the carry its predecessor passes on (11.7: running[b] = carry (+) the predecessor's section
// total), or what its look-back gives (11.8: the nearest predecessor's inclusive PREFIX and the
// AGGREGATEs of the tiles after it). So tile b covers x[bT .. bT + T - 1], must receive x[0 .. bT - 1],
// and passes on x[0 .. bT + T - 1]. What a tile received is in its elements of y: the inputs before the
// tile in its first written element. The first tile whose prefix is wrong is where the chain broke.
enum class Tiles { none, domino, lookback };

Tiles tiles_of(std::string_view algorithm) {
  if (algorithm.rfind("single_pass", 0) == 0) return Tiles::domino;
  if (algorithm.rfind("decoupled_lookback", 0) == 0) return Tiles::lookback;
  return Tiles::none;
}

// The elements of one tile, T, from the trace of block 0 (the emulator traces only that one): the
// range of inputs its traced shared values combine (its warp totals, its own tile's inputs only: the
// whole tile in the last one scanned, or all of them together) is a whole tile, or the last, partial
// one, n - (g - 1) T, of a grid of g = ceil(n / T) blocks. 0 when the runs trace nothing, the kernel
// launched more than once or no T agrees with both.
std::size_t tile_size(const std::vector<Run>& runs, const Encoding& e) {
  if (runs.front().launches.size() != 1) return 0;
  std::optional<std::pair<std::size_t, std::size_t>> span;  // the first and last input block 0 combines
  for (std::size_t r = 0; r < runs.size(); ++r) {
    for (const TraceFrame& f : runs[r].launches.at(0).trace) {
      if (f.block != 0) continue;
      for (const std::string& v : f.values) {
        if (v == "?") continue;
        U value = 0;
        try {
          value = static_cast<U>(std::stoll(v));
        } catch (const std::exception&) {
          continue;
        }
        const Counts c = counts(value, e, r);
        for (std::size_t i = 0; i < c.size(); ++i) {
          if (c[i] == 0) continue;
          span = span ? std::pair{std::min(span->first, i), std::max(span->second, i)} : std::pair{i, i};
        }
      }
    }
  }
  const std::size_t g = runs.front().launches[0].grid_blocks, threads = runs.front().launches[0].block_threads;
  if (!span || g < 2 || threads == 0) return 0;
  const std::size_t s = span->second - span->first + 1;
  const auto fits = [&](std::size_t tile) { return tile % threads == 0 && (e.n + tile - 1) / tile == g; };
  if (fits(s)) return s;  // block 0 scanned a whole tile
  if ((e.n - s) % (g - 1) == 0 && fits((e.n - s) / (g - 1))) return (e.n - s) / (g - 1);  // the last one
  return 0;
}

// The first tile whose prefix (the inputs before it in its first written element of y) is not all the
// inputs before it, as a few lines; "" when every tile received the right one.
std::string tile_report(Tiles model, std::size_t tile, const std::vector<Counts>& y, const std::vector<bool>& written) {
  const std::size_t n = y.size(), tiles = (n + tile - 1) / tile;
  const auto name = [&](std::size_t b) {
    return "tile " + std::to_string(b) + " (" + range(b * tile, std::min(n, b * tile + tile) - 1) + ")";
  };
  // "(tile 1)", "(tiles 0..1)" for whole tiles, "(in tile 1)" for part of one.
  const Note note = [&](std::size_t first, std::size_t last) {
    const std::size_t a = first / tile, b = last / tile;
    const bool whole = first % tile == 0 && (last + 1 == n || (last + 1) % tile == 0);
    const std::string which =
        a == b ? "tile " + std::to_string(a) : "tiles " + std::to_string(a) + ".." + std::to_string(b);
    return std::string(" (") + (whole ? "" : "in ") + which + ")";
  };
  for (std::size_t b = 0; b < tiles; ++b) {
    const std::size_t first = b * tile, last = std::min(n, first + tile) - 1;
    std::size_t i = first;
    while (i <= last && !written[i]) ++i;
    if (i > last) {
      return "\n  " + name(b) + " was never written: no block stored its elements (does the grid have a block for "
             "every tile, ceil(n / " + std::to_string(tile) + ")?)";
    }
    Counts got(n), want(n);
    for (std::size_t j = 0; j < first; ++j) {
      got[j] = y[i][j];
      want[j] = 1;
    }
    if (got == want) continue;
    const std::string received = model == Tiles::domino ? "the carry it received" : "the prefix its look-back gave";
    std::string out = "\n  " + name(b) + ": " + received + " (the inputs before the tile in y[" + std::to_string(i) +
                      "]) covers " + show_counts(got) + ", it should cover " + show_counts(want) + ": " +
                      difference(got, want, note);
    if (model == Tiles::lookback) {
      out += "\n  the tiles before it received the right prefixes, so what its look-back combined is wrong: the "
             "nearest predecessor's inclusive PREFIX (its prefix combined with its own AGGREGATE) and the AGGREGATEs "
             "of the tiles after that one, in order, make " + range(0, first - 1);
      // Only tile b - 1's own inputs missing: the value tile b read from it left out its aggregate.
      Counts own(n);
      for (std::size_t j = first - tile; j < first; ++j) own[j] = 1;
      if (got + own == want) {
        out += "; only tile " + std::to_string(b - 1) + "'s own elements are missing, so the PREFIX it published "
               "is its prefix without its own AGGREGATE";
      }
    } else if (b == 1) {
      out += "\n  tile 0 has no predecessor: the running total it passes on (running[1]) must be its own section's "
             "total, " + range(0, first - 1);
    } else {
      out += "\n  " + name(b - 1) + " received the right carry, " + range(0, first - tile - 1) +
             ", so the running total it passed on (running[" + std::to_string(b) + "]) is wrong: it must be that "
             "carry combined with its own section's total, " + range(0, first - 1);
    }
    return out;
  }
  return "";
}

}  // namespace

// where_it_went_wrong, also for a case that failed in place (y == x).
static std::string where_went_wrong(const Algorithm& algorithm, ScanKind kind, std::size_t n, OpKind op,
                                    bool in_place) {
  const std::optional<Encoding> e = encoding_for(n);
  if (!e) return "";
  try {
    // The add scan, one run per window of 16 inputs.
    std::vector<Run> runs;
    for (std::size_t r = 0; r < e->runs(); ++r) {
      std::vector<std::int64_t> x(n);
      for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<std::int64_t>(encoded_input(*e, r, i));
      runs.push_back(run_traced(algorithm, OpKind::add, kind, x, in_place));
      if (runs.back().launches.size() != runs.front().launches.size()) return "";
    }
    // Never written: still the poison of the run's output (kPoisonByte in every byte), or the -1 that
    // run_traced put there, in every run; no sum of inputs is either.
    std::int64_t poison;
    std::memset(&poison, kPoisonByte, sizeof poison);
    std::vector<bool> written(n, false);
    for (const Run& r : runs) {
      for (std::size_t i = 0; i < n; ++i) written[i] = written[i] || (r.y[i] != -1 && r.y[i] != poison);
    }
    if (runs.front().launches.empty()) {
      // The cuda backend traces nothing; the cpu backend launched nothing.
      if (std::find(written.begin(), written.end(), true) != written.end()) return "";
      return "\nWhere it goes wrong: n = " + std::to_string(n) + " run again, no element of y was written and no "
             "kernel traced anything: was a kernel launched at all, with a grid that has a block for every "
             "element (ceil(n / elements per block), not n / elements per block)?";
    }
    const std::string run = "n = " + std::to_string(n) + " run again" + (in_place ? " in place (y == x)" : "") +
                            " as an int64 add " + name(kind) +
                            " scan of x[i] = 16^i" +
                            (e->runs() > 1 ? " (in " + std::to_string(e->runs()) +
                                                 " runs of 16 inputs: x[i] = 16^(i - 16 w) in run w, 0 elsewhere)"
                                           : "");
    // Per launch: every traced array of block 0 at every barrier, all runs added up; the book's steps
    // where there is a model of them.
    std::vector<std::vector<Snapshot>> add_frames, add_model;
    bool modelled = false;
    // 11.6: each level's in-block scan is inclusive; level k + 1 scans the block sums of level k.
    const bool hierarchical = algorithm.name.rfind("hierarchical", 0) == 0;
    std::size_t level = 0, width = 1;
    for (std::size_t l = 0; l < runs.front().launches.size(); ++l) {
      const LaunchStats& launch = runs.front().launches[l];
      const std::vector<std::string> names = arrays_of(launch);
      std::vector<std::vector<Snapshot>> per_run;
      for (std::size_t r = 0; r < runs.size(); ++r) {
        per_run.push_back(frames<Counts>(runs[r].launches[l], names, [&](U v) { return counts(v, *e, r); }));
      }
      const auto merged = merge(per_run);
      add_frames.push_back(merged ? *merged : std::vector<Snapshot>{});
      std::vector<std::pair<std::string, std::size_t>> lengths;
      if (!add_frames.back().empty()) {
        for (const auto& [array, values] : add_frames.back()[0].arrays) lengths.push_back({array, values.size()});
      }
      const std::string model = model_of(algorithm.name, launch.kernel);
      add_model.push_back(model_steps(model, *e, hierarchical ? ScanKind::inclusive : kind, lengths, width));
      if (add_model.back().empty() || !merged) continue;
      modelled = true;
      ++level;
      const std::string found = compare(add_model.back(), each_once(only(*merged, traced_arrays(model))));
      if (!found.empty()) {
        const std::string which =
            !hierarchical ? ""
            : level == 1  ? "\n  in level 1 of the hierarchy (" + launch.kernel + ": each block scans its section; block 0 shown):"
                          : "\n  in level " + std::to_string(level) + " of the hierarchy (" + launch.kernel +
                               ": block 0 scans the block sums, its element i being x[i " + std::to_string(width) +
                               " .. i " + std::to_string(width) + " + " + std::to_string(width - 1) + "]):";
        return "\nWhere it first leaves the book's algorithm (" + run + ", so that each value in shared memory says "
               "which inputs it combines):" + which + found;
      }
      width *= section_of(model, launch, lengths);
    }
    // The output, as ranges.
    std::vector<Counts> y(n, Counts(n));
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t r = 0; r < runs.size(); ++r) y[i] = y[i] + counts(static_cast<U>(runs[r].y[i]), *e, r);
      const Counts want = prefix(*e, kind, i);
      if (!written[i]) {
        lines.push_back(describe("y[" + std::to_string(i) + "]", std::nullopt, want));
      } else if (y[i] != want) {
        lines.push_back(describe("y[" + std::to_string(i) + "]", y[i], want));
      }
    }
    if (!lines.empty()) {
      // (No kind's words here, such as "race": the report classifies a failure by its text,
      // tools/scanlab_lab/diagnose.py.)
      if (const Tiles model = tiles_of(algorithm.name); model != Tiles::none) {
        const std::size_t tile = tile_size(runs, *e);
        const std::string found = tile > 0 && tile < n ? tile_report(model, tile, y, written) : "";
        if (!found.empty()) {
          return "\nWhere it goes wrong, tile by tile (" + run + "; one block scans each tile of " +
                 std::to_string(tile) + " inputs, tile b must receive x[0 .. " + std::to_string(tile) +
                 " b - 1] from the tiles before it" +
                 (model == Tiles::domino ? ", as the carry its predecessor passes on"
                                         : ", from its look-back over its predecessors' published values") +
                 "):" + found + "\n  in the output y:" + show_lines(lines, "of y");
        }
      }
      if (hierarchical && modelled) {
        return "\nEach level's in-block scan (" + run + ") holds what the book's algorithm says at every barrier, "
               "so the error is in step 3, where each section adds the scanned block sums of the sections before it "
               "(add_block_sums_kernel), or in the stores into y:" + show_lines(lines, "of y");
      }
      if (modelled) {
        return "\nIts shared memory (" + run + ") holds what the book's algorithm says at every barrier, so the "
               "error is in what goes into y (the stores after the last barrier), or in a step that goes wrong "
               "only when the threads run in another order:" + show_lines(lines, "of y");
      }
      return "\nWhere it goes wrong (" + run + ", so that each value says which inputs it combines), in the output y" +
             (algorithm.name == "sequential" ? ", which the loop writes in index order (the first line is the first "
                                               "iteration that goes wrong)" : "") +
             ":" + show_lines(lines, "of y");
    }
    if (op == OpKind::add || n > kMaxOpInputs) return "";
    // The add scan is right at every step: the operator's order, or + in its place.
    std::vector<std::int64_t> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = std::int64_t{1} << i;
    const Run op_run = run_traced(algorithm, op, kind, x, in_place);
    const std::string found = op_difference(add_frames, add_model, y, op_run, op, n);
    if (found.empty()) return "";
    return "\nWhere it goes wrong: its add scan (" + run + ") is right at every step, and n = " + std::to_string(n) +
           " run again as an int64 " + name(op) + " " + name(kind) +
           " scan of x[i] = 2^i (so that a value that is one input says which) is not:" + found;
  } catch (const std::exception&) {
  }
  return "";
}

std::string where_it_went_wrong(const Algorithm& algorithm, ScanKind kind, std::size_t n, OpKind op) {
  return where_went_wrong(algorithm, kind, n, op, false);
}

// ---- the smallest failing case (issue 37, item 1) -----------------------------------------------------
// After a wrong output, the grader looks for a smaller case that still fails, with inputs a reader can
// follow by hand: all ones, then 1, 2, ..., n, then seeded random values as the tests draw them.
namespace {

enum class Simple { ones, counting, seeded };

HostArray simple_input(DType type, OpKind op, std::size_t n, Simple kind, std::uint64_t seed) {
  if (kind == Simple::seeded) return make_input(type, op, n, seed + n);
  HostArray a(type, n);
  visit_type(type, [&](auto t) {
    using T = typename decltype(t)::type;
    for (std::size_t i = 0; i < n; ++i) a.as<T>()[i] = kind == Simple::ones ? T(1) : static_cast<T>(i + 1);
  });
  return a;
}

// "[1, 2, 3]", the first 16 elements and a count of the rest.
template <class T>
std::string show_elements(const T* a, std::size_t n) {
  std::ostringstream out;
  out << "[";
  for (std::size_t i = 0; i < std::min<std::size_t>(n, 16); ++i) {
    if (i) out << ", ";
    if constexpr (std::is_floating_point_v<T>) {
      out << static_cast<double>(a[i]);
    } else {
      out << static_cast<long long>(a[i]);
    }
  }
  if (n > 16) out << ", ... (" << n - 16 << " more)";
  out << "]";
  return out.str();
}

}  // namespace

std::string show_elements(const HostArray& a, std::size_t n) {
  return visit_type(a.type(), [&](auto t) { return show_elements(a.as<typename decltype(t)::type>(), n); });
}

namespace {

// The case in full: the input, what the scan should give, what the kernel gave.
std::string show_case(const ScanProblem& p, const HostArray& input, const HostArray& output, Simple kind,
                      const VerifyResult& v) {
  return visit_type_op(p.type, p.op, [&](auto t, auto op) {
    using T = typename decltype(t)::type;
    std::vector<T> expected(p.n);
    reference_scan(input.as<T>(), expected.data(), p.n, op, p.kind);
    const char* what = kind == Simple::ones ? "all ones" : kind == Simple::counting ? "1, 2, ..., n" : "seeded random values";
    std::ostringstream out;
    out << "\nThe smallest failing case found: n = " << p.n << ", x = " << what << "\n  x        "
        << show_elements(input.as<T>(), p.n) << "\n  expected " << show_elements(expected.data(), p.n)
        << "\n  got      " << show_elements(output.as<T>(), p.n) << "\n  (" << v.wrong << " of " << p.n
        << " elements wrong)";
    // Past the 16 shown, the first wrong element as the check words it ("element 512 of 513 is ...").
    const std::size_t at = v.message.find(": element ");
    if (p.n > 16 && at != std::string::npos) {
      out << "\n  first wrong: " << v.message.substr(at + 2, v.message.find(';', at) - at - 2);
    }
    return out.str();
  });
}

// "2 blocks of 32 threads"; several launches one after another, each with its kernel's name
// ("scan_kernel: 2 blocks of 32 threads, then add_kernel: ...").
std::string shape(const std::vector<LaunchStats>& launches) {
  std::string out;
  for (const LaunchStats& l : launches) {
    out += (out.empty() ? "" : ", then ") + (launches.size() > 1 && !l.kernel.empty() ? l.kernel + ": " : "") +
           std::to_string(l.grid_blocks) + (l.grid_blocks == 1 ? " block" : " blocks") + " of " +
           std::to_string(l.block_threads) + " threads";
  }
  return out;
}

}  // namespace

std::string why_not_smaller(std::size_t n, std::size_t below, const std::string& how,
                            const std::vector<LaunchStats>& below_launches, const std::vector<LaunchStats>& launches) {
  if (n <= 16 || below == 0) return "";
  std::string out = "\n  no smaller case: every size tried below it " + how + "; the largest, n = " +
                    std::to_string(below);
  const std::string was = shape(below_launches), is = shape(launches);
  if (!was.empty()) out += ", runs " + was;
  if (!is.empty() && is != was) out += ", and n = " + std::to_string(n) + " runs " + is;
  return out;
}

std::string smallest_failure(const Algorithm& algorithm, const ScanProblem& failing, std::uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  // The sizes below the failing one, then (when it is small enough to explain) the failing size itself:
  // its seeded input is the one that failed, so its case is shown in full even when nothing is smaller.
  std::vector<std::size_t> sizes;
  for (std::size_t n : kShrinkSizes) {
    if (n < failing.n) sizes.push_back(n);
  }
  if (failing.n <= kMaxInputs) sizes.push_back(failing.n);
  int runs = 0;
  std::size_t passed = 0;  // the largest size whose three inputs all passed, and its launches
  std::vector<LaunchStats> passed_launches;
  for (std::size_t n : sizes) {
    for (Simple kind : {Simple::ones, Simple::counting, Simple::seeded}) {
      if (++runs > 120 || std::chrono::steady_clock::now() - start > std::chrono::seconds(3)) return "";
      ScanProblem problem = failing;
      problem.n = n;
      const HostArray input = simple_input(problem.type, problem.op, n, kind, seed);
      HostArray output(problem.type, n);
      if (problem.in_place) std::memcpy(output.data(), input.data(), input.bytes());
      RunRequest request{problem, problem.in_place ? output.data() : input.data(), output.data(), 0, false};
      RunResult result;
      try {
        result = algorithm.run(request);
      } catch (const std::exception&) {
        return "";
      }
      const VerifyResult v = verify_scan(problem, input.data(), output.data());
      if (v.passed) {
        if (kind == Simple::seeded) {
          passed = n;
          passed_launches = std::move(result.launches);
        }
        continue;
      }
      std::string where = where_went_wrong(algorithm, problem.kind, n, problem.op, problem.in_place);
      // A bug that needs large values (a narrowing type) hides in the small sums of a few x[i] = 16^i:
      // 16 inputs reach 16^15, past 32 bits.
      constexpr std::size_t kLarge = 16;
      if (where.empty() && n < kLarge && (algorithm.max_n == 0 || algorithm.max_n >= kLarge)) {
        where = where_went_wrong(algorithm, problem.kind, kLarge, problem.op, problem.in_place);
        if (!where.empty()) {
          where = "\n(Its add scan of x[i] = 16^i is right at n = " + std::to_string(n) + ", where the values stay "
                  "small; at n = " + std::to_string(kLarge) + " they pass 2^32:)" + where;
        }
      }
      return show_case(problem, input, output, kind, v) +
             why_not_smaller(n, passed, "passes (all ones, 1, 2, ..., n and seeded values)", passed_launches,
                             result.launches) +
             where;
    }
  }
  return where_went_wrong(algorithm, failing.kind, failing.n, failing.op, failing.in_place);
}


// ---- the smallest size that still ends in the same error (issue 37, failures that are not wrong values) --
std::string error_kind(const std::string& message) {
  if (message.find("memory error: ") != std::string::npos) return "memory error";
  if (message.find("watchdog: no progress") != std::string::npos) return "watchdog";
  if (message.find("deadlock: ") != std::string::npos) return "deadlock";
  if (message.find("barrier divergence") != std::string::npos) return "barrier divergence";
  if (message.find("invalid launch configuration") != std::string::npos) return "launch error";
  return "";
}

std::string smallest_error(const Algorithm& algorithm, const ScanProblem& failing, std::uint64_t seed,
                           const std::string& error, bool or_itself) {
  const std::string kind = error_kind(error);
  if (kind.empty()) return "";
  const auto start = std::chrono::steady_clock::now();
  // Up from the smallest size: the first that ends in the same error ends the search, so a hang costs
  // the watchdog's time once. n = 0 too: an empty array is the smallest case of all.
  std::vector<std::size_t> sizes{0};
  for (std::size_t n : kShrinkSizes) sizes.push_back(n);
  const std::string without = "ends without this " + kind;
  std::size_t below = 0;  // the largest size tried without this kind of error, and its launches
  std::vector<LaunchStats> below_launches;
  for (std::size_t n : sizes) {
    if (n >= failing.n || std::chrono::steady_clock::now() - start > std::chrono::seconds(3)) break;
    ScanProblem problem = failing;
    problem.n = n;
    const HostArray input = make_input(problem.type, problem.op, n, seed + n);
    HostArray output(problem.type, n);
    if (problem.in_place && n > 0) std::memcpy(output.data(), input.data(), input.bytes());
    try {
      RunResult r =
          algorithm.run(RunRequest{problem, problem.in_place ? output.data() : input.data(), output.data(), 0, false});
      below = n;
      below_launches = std::move(r.launches);
    } catch (const std::exception& e) {
      if (error_kind(e.what()) != kind) {
        below = n;
        below_launches.clear();
        continue;
      }
      return "\nThe smallest failing case found: n = " + std::to_string(n) + ", x = seeded random values, the same " +
             kind + "\n  x        " + show_elements(input, n) + why_not_smaller(n, below, without, below_launches) +
             "\nWhere it goes wrong (n = " + std::to_string(n) + "):\n    " + e.what();
    }
  }
  if (!or_itself || failing.n > kShrinkSizes[std::size(kShrinkSizes) - 1]) return "";
  // Nothing smaller: the failing case itself is the smallest (its error is the one above).
  const HostArray input = make_input(failing.type, failing.op, failing.n, seed + failing.n);
  return "\nThe smallest failing case found: n = " + std::to_string(failing.n) +
         ", x = seeded random values (no smaller size tried ends in this " + kind + ")\n  x        " +
         show_elements(input, failing.n) + why_not_smaller(failing.n, below, without, below_launches) +
         "\nWhere it goes wrong (n = " + std::to_string(failing.n) + "):\n    " + error;
}


}  // namespace scanlab::grading::explain
