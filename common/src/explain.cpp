#include "scanlab/explain.hpp"

#include <algorithm>
#include <exception>
#include <sstream>

namespace scanlab::grading::explain {

using U = std::uint64_t;
using Values = std::vector<std::optional<U>>;

std::optional<Encoding> encoding_for(std::size_t n) {
  if (n == 0 || n > 32) return std::nullopt;
  return Encoding{n <= 16 ? 4u : 2u, n};
}

std::vector<unsigned> counts(U value, const Encoding& e) {
  std::vector<unsigned> c(e.n);
  const U digit = (U{1} << e.bits) - 1;
  for (std::size_t i = 0; i < e.n; ++i) c[i] = static_cast<unsigned>((value >> (e.bits * i)) & digit);
  return c;
}

namespace {

// "x[2]" or "x[2..5]".
std::string range(std::size_t first, std::size_t last) {
  return "x[" + std::to_string(first) + (first == last ? "" : ".." + std::to_string(last)) + "]";
}

// The runs of consecutive indices where `pick` holds, as ranges joined by ", ".
template <class Pick>
std::string runs(std::size_t n, Pick pick) {
  std::string out;
  for (std::size_t i = 0; i < n;) {
    if (!pick(i)) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j + 1 < n && pick(j + 1)) ++j;
    out += (out.empty() ? "" : ", ") + range(i, j);
    i = j + 1;
  }
  return out;
}

std::string times(unsigned k) { return k == 2 ? "twice" : std::to_string(k) + " times"; }

}  // namespace

std::string show_counts(const std::vector<unsigned>& c) {
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

std::string show_difference(const std::vector<unsigned>& got, const std::vector<unsigned>& want) {
  const std::size_t n = std::min(got.size(), want.size());
  std::vector<std::string> parts;
  const std::string missing = runs(n, [&](std::size_t i) { return got[i] < want[i]; });
  if (!missing.empty()) parts.push_back(missing + " is missing");
  const std::string stray = runs(n, [&](std::size_t i) { return want[i] == 0 && got[i] == 1; });
  if (!stray.empty()) parts.push_back(stray + " should not be in it");
  std::vector<unsigned> often;
  for (std::size_t i = 0; i < n; ++i) {
    if (got[i] > want[i] && got[i] > 1 && std::find(often.begin(), often.end(), got[i]) == often.end()) {
      often.push_back(got[i]);
    }
  }
  std::sort(often.begin(), often.end());
  for (unsigned k : often) {
    parts.push_back(runs(n, [&](std::size_t i) { return got[i] == k && want[i] < k; }) + " is counted " + times(k));
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

namespace {

// The book's algorithms, step by step, on the encoded input: add is `+` on the encoded values (each
// input's digit counts it). Each records its arrays after every step, each state once.
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

Values known(const std::vector<U>& v) { return {v.begin(), v.end()}; }

// x[i] encoded, the identity (0) past the input.
U input(const Encoding& e, std::size_t i) { return i < e.n ? U{1} << (e.bits * i) : 0; }

std::size_t length_of(const std::vector<std::pair<std::string, std::size_t>>& lengths, std::string_view name) {
  for (const auto& [n, len] : lengths) {
    if (n == name) return len;
  }
  return 0;
}

// Sec. 11.2, Fig. 11.3: XY[t] loads x[t] (exclusive: x[t - 1], the identity at t = 0); the step with
// stride s adds XY[t - s] into XY[t] for t >= s, all reads before all writes.
std::vector<Snapshot> kogge_stone(const Encoding& e, ScanKind kind, std::size_t S) {
  std::vector<U> xy(S);
  for (std::size_t t = 0; t < S; ++t) xy[t] = kind == ScanKind::exclusive ? (t > 0 ? input(e, t - 1) : 0) : input(e, t);
  Steps steps;
  steps.record("after the loads", {{"XY", known(xy)}});
  for (std::size_t s = 1; s < S; s *= 2) {
    std::vector<U> next = xy;
    for (std::size_t t = s; t < S; ++t) next[t] = xy[t - s] + xy[t];
    xy = next;
    steps.record("after the step with stride " + std::to_string(s), {{"XY", known(xy)}});
  }
  return steps.take();
}

// Sec. 11.2, double buffering: each step reads one array and writes the whole other one (a copy
// below the stride), then the two swap roles.
std::vector<Snapshot> kogge_stone_double_buffer(const Encoding& e, ScanKind kind, std::size_t S) {
  Values a(S), b(S);  // b: not written yet
  for (std::size_t t = 0; t < S; ++t) a[t] = kind == ScanKind::exclusive ? (t > 0 ? input(e, t - 1) : 0) : input(e, t);
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
std::vector<Snapshot> brent_kung(const Encoding& e, std::size_t length, bool padded) {
  std::size_t S = 1;
  while (S + (padded ? S / 32 : 0) < length) S *= 2;
  if (S + (padded ? S / 32 : 0) != length) return {};
  std::vector<U> xy(S);
  for (std::size_t i = 0; i < S; ++i) xy[i] = input(e, i);
  const auto laid_out = [&] {
    Values v(length);
    for (std::size_t i = 0; i < S; ++i) v[padded ? i + i / 32 : i] = xy[i];
    return std::vector<std::pair<std::string, Values>>{{"XY", v}};
  };
  Steps steps;
  steps.record("after the loads", laid_out());
  for (std::size_t s = 1; s <= S / 2; s *= 2) {
    for (std::size_t index = 2 * s - 1; index < S; index += 2 * s) xy[index] += xy[index - s];
    steps.record("after the reduction tree's step with stride " + std::to_string(s), laid_out());
  }
  for (std::size_t s = S / 4; s > 0; s /= 2) {
    for (std::size_t index = 2 * s - 1; index + s < S; index += 2 * s) xy[index + s] += xy[index];
    steps.record("after the reverse tree's step with stride " + std::to_string(s), laid_out());
  }
  return steps.take();
}

// Sec. 11.5 (Fig. 11.5): thread t owns XY[t f .. t f + f - 1]; phase 1 scans it sequentially and
// writes its total to totals[t]; phase 2 is Kogge-Stone over the totals; phase 3 adds totals[t - 1]
// into the subsection (its last element takes totals[t]). Exclusive shifts on the way out.
std::vector<Snapshot> coarsened(const Encoding& e, std::size_t section, std::size_t T) {
  if (T == 0 || section % T != 0) return {};
  const std::size_t f = section / T;
  std::vector<U> xy(section), totals(T);
  for (std::size_t i = 0; i < section; ++i) xy[i] = input(e, i);
  Steps steps;
  steps.record("after the loads", {{"XY", known(xy)}, {"totals", Values(T)}});
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t j = t * f + 1; j < t * f + f; ++j) xy[j] += xy[j - 1];
    totals[t] = xy[t * f + f - 1];
  }
  steps.record("after phase 1, each thread's sequential scan of its " + std::to_string(f) +
                   " elements and its total in totals",
               {{"XY", known(xy)}, {"totals", known(totals)}});
  for (std::size_t s = 1; s < T; s *= 2) {
    std::vector<U> next = totals;
    for (std::size_t t = s; t < T; ++t) next[t] = totals[t - s] + totals[t];
    totals = next;
    steps.record("after phase 2's step with stride " + std::to_string(s),
                 {{"XY", known(xy)}, {"totals", known(totals)}});
  }
  for (std::size_t t = 0; t < T; ++t) {
    for (std::size_t j = t * f; j + 1 < t * f + f; ++j) xy[j] += t > 0 ? totals[t - 1] : 0;
    xy[t * f + f - 1] = totals[t];
  }
  steps.record("after phase 3, where each subsection adds the totals before it",
               {{"XY", known(xy)}, {"totals", known(totals)}});
  return steps.take();
}

// The shared arrays an algorithm's kernel traces, or none when there is no model of it.
std::vector<std::string> traced_arrays(std::string_view algorithm) {
  if (algorithm == "kogge_stone" || algorithm == "brent_kung" || algorithm == "brent_kung_padded") return {"XY"};
  if (algorithm == "kogge_stone_double_buffer") return {"XY_a", "XY_b"};
  if (algorithm.rfind("coarsened", 0) == 0) return {"XY", "totals"};
  return {};
}

}  // namespace

std::vector<Snapshot> model_steps(std::string_view algorithm, const Encoding& e, ScanKind kind,
                                  const std::vector<std::pair<std::string, std::size_t>>& lengths) {
  for (const std::string& name : traced_arrays(algorithm)) {
    if (length_of(lengths, name) == 0) return {};
  }
  if (algorithm == "kogge_stone") return kogge_stone(e, kind, length_of(lengths, "XY"));
  if (algorithm == "kogge_stone_double_buffer") {
    if (length_of(lengths, "XY_a") != length_of(lengths, "XY_b")) return {};
    return kogge_stone_double_buffer(e, kind, length_of(lengths, "XY_a"));
  }
  if (algorithm == "brent_kung" || algorithm == "brent_kung_padded") {
    return brent_kung(e, length_of(lengths, "XY"), algorithm == "brent_kung_padded");
  }
  if (algorithm.rfind("coarsened", 0) == 0) return coarsened(e, length_of(lengths, "XY"), length_of(lengths, "totals"));
  return {};
}

std::vector<Snapshot> traced_snapshots(const LaunchStats& launch, const std::vector<std::string>& names) {
  std::vector<Snapshot> out;
  for (std::size_t k = 0; k < launch.trace.size();) {
    // The frames of one barrier: one per traced array, with the same step.
    const std::uint32_t step = launch.trace[k].step, block = launch.trace[k].block;
    Snapshot s;
    s.where = launch.trace[k].where;
    for (const std::string& name : names) s.arrays.push_back({name, {}});
    std::size_t j = k;
    for (; j < launch.trace.size() && launch.trace[j].step == step && launch.trace[j].block == block; ++j) {
      const TraceFrame& f = launch.trace[j];
      for (auto& [name, values] : s.arrays) {
        if (name != f.name) continue;
        for (const std::string& v : f.values) {
          if (v == "?") {
            values.emplace_back(std::nullopt);
          } else {
            try {
              values.emplace_back(static_cast<U>(std::stoll(v)));
            } catch (const std::exception&) {
              values.emplace_back(std::nullopt);
            }
          }
        }
      }
    }
    k = j;
    if (block != 0) continue;
    if (!out.empty() && out.back().arrays == s.arrays) continue;
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

// "kogge_stone.cuh:85" from a path; "the end of the block" as the emulator says it.
std::string place(const std::string& where) {
  if (where == "end of block") return "traced at the end of the block";
  const std::size_t slash = where.find_last_of('/');
  return "traced at the barrier at " + (slash == std::string::npos ? where : where.substr(slash + 1));
}

// The elements of `traced` that differ from `model`, one line each.
std::vector<std::string> differences(const Snapshot& model, const Snapshot& traced, const Encoding& e) {
  std::vector<std::string> lines;
  for (const auto& array : model.arrays) {
    const std::string& name = array.first;  // (not a structured binding: clang before 16 cannot capture one)
    const auto& want = array.second;
    const auto it = std::find_if(traced.arrays.begin(), traced.arrays.end(),
                                 [&](const auto& a) { return a.first == name; });
    if (it == traced.arrays.end() || it->second.size() != want.size()) continue;
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (!want[i]) continue;
      const std::optional<U>& got = it->second[i];
      const std::string element = name + "[" + std::to_string(i) + "]";
      const std::vector<unsigned> w = counts(*want[i], e);
      if (!got) {
        lines.push_back(element + " was never written, it should hold " + show_counts(w));
      } else if (*got != *want[i]) {
        const std::vector<unsigned> g = counts(*got, e);
        lines.push_back(element + " holds " + show_counts(g) + ", it should hold " + show_counts(w) + ": " +
                        show_difference(g, w));
      }
    }
  }
  return lines;
}

std::string show_lines(const std::vector<std::string>& lines) {
  std::string out;
  const std::size_t shown = std::min<std::size_t>(lines.size(), 3);
  for (std::size_t i = 0; i < shown; ++i) out += "\n    " + lines[i];
  if (lines.size() > shown) {
    out += "\n    (and " + std::to_string(lines.size() - shown) + " more element" +
           (lines.size() - shown == 1 ? "" : "s") + " at this step)";
  }
  return out;
}

}  // namespace

std::string compare(const std::vector<Snapshot>& model, const std::vector<Snapshot>& traced, const Encoding& e) {
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
  for (const Snapshot& t : traced) {
    const auto matches = [&](std::size_t k) { return differences(model[k], t, e).empty(); };
    std::size_t j = next;
    while (may_skip && j < model.size() && !matches(j)) ++j;
    if (j < model.size() && matches(j)) {
      next = j + 1;
      continue;
    }
    const Snapshot& want = model[std::min(next, model.size() - 1)];
    return "\n  " + want.label + " (" + place(t.where) + "):" + show_lines(differences(want, t, e)) + states;
  }
  if (next == model.size()) return "";
  // Its last state is one the book passes through: the kernel stops short of the book's last steps.
  return "\n  " + model[next].label + ", which left its shared memory as it was " + model[next - 1].label + ":" +
         show_lines(differences(model[next], traced.back(), e)) + states;
}

std::string where_it_went_wrong(const Algorithm& algorithm, ScanKind kind, std::size_t n, bool add_failed) {
  const std::optional<Encoding> e = encoding_for(n);
  const std::vector<std::string> names = traced_arrays(algorithm.name);
  if (!e || names.empty()) return "";
  try {
    std::vector<std::int64_t> x(n), y(n, -1);
    for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<std::int64_t>(input(*e, i));
    const RunResult result =
        algorithm.run(RunRequest{{DType::int64, OpKind::add, kind, n, false}, x.data(), y.data(), 0, true});
    for (const LaunchStats& launch : result.launches) {
      std::vector<std::pair<std::string, std::size_t>> lengths;
      for (const std::string& name : names) {
        const auto it = std::find_if(launch.trace.begin(), launch.trace.end(),
                                     [&](const TraceFrame& f) { return f.name == name && f.block == 0; });
        lengths.push_back({name, it == launch.trace.end() ? 0 : it->values.size()});
      }
      const std::vector<Snapshot> model = model_steps(algorithm.name, *e, kind, lengths);
      if (model.empty()) continue;
      const std::vector<Snapshot> traced = traced_snapshots(launch, names);
      const std::string found = compare(model, traced, *e);
      const std::string run = "n = " + std::to_string(n) + " run again as an int64 add " + name(kind) +
                              " scan of x[i] = " + std::to_string(1u << e->bits) + "^i";
      if (found.empty()) {
        if (!add_failed || traced.empty()) return "";
        // Right at every step, wrong in y: the stores out of shared memory. (No kind's words here, such as
        // "race": the report classifies a failure by its text, tools/scanlab_lab/diagnose.py.)
        return "\nIts shared memory (" + run + ") holds what the book's algorithm says at every barrier, so the "
               "error is in what goes into y (the stores after the last barrier), or in a step that goes "
               "wrong only when the threads run in another order";
      }
      return "\nWhere it first leaves the book's algorithm (" + run + ", so that each value in shared memory says "
             "which inputs it combines):" + found;
    }
  } catch (const std::exception&) {
  }
  return "";
}

}  // namespace scanlab::grading::explain
