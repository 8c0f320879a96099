#include "scanlab/trace_labels.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <map>
#include <optional>
#include <set>

namespace scanlab {
namespace {

/// What a traced value holds when the input is x[i] = 2^i.
struct Cell {
  enum Kind { unwritten, wrong, identity, range } kind = wrong;
  std::size_t lo = 0, hi = 0;  ///< range: the value sums x[lo..hi]
  bool operator==(const Cell& o) const {
    return kind == o.kind && (kind != range || (lo == o.lo && hi == o.hi));
  }
};

Cell decode(const std::string& text, std::size_t n) {
  if (text == "?") return {Cell::unwritten};
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || text[0] == '-') return {Cell::wrong};
  if (v == 0) return {Cell::identity};  // sums nothing (padding, an exclusive scan's first element)
  const std::size_t lo = static_cast<std::size_t>(__builtin_ctzll(v));
  const std::size_t hi = 63 - static_cast<std::size_t>(__builtin_clzll(v));
  if (hi >= n) return {Cell::wrong};
  const unsigned long long run = (hi == 63 ? ~0ull : (1ull << (hi + 1)) - 1) & ~((1ull << lo) - 1);
  if (v != run) return {Cell::wrong};
  return {Cell::range, lo, hi};
}

/// A traced array's state that changed, or the input.
struct Row {
  std::string array;
  std::vector<std::string> values;
  std::vector<Cell> cells;
  int before = -1;   ///< the array's previous row
  long frame = -1;   ///< the frame that showed this state (-1: the input)
  /// Each element's index among the array's data, which is what a stride counts: a padded layout
  /// (GPU Gems 3's, one word every 32 to spread the banks) has slots that never hold an input (-1).
  std::vector<long> logical;
};

/// The distance in data elements from the left operand to the target (a stride), or nothing where
/// one of them is a padding slot.
std::optional<long> distance(const std::vector<Row>& rows, std::size_t r, std::size_t target, std::size_t left_row,
                             std::size_t left) {
  const long t = rows[r].logical[target], l = rows[left_row].logical[left];
  if (t < 0 || l < 0) return std::nullopt;
  return t - l;
}

// Where a combination's left operand was found: the array's previous state (one stride back), another
// array's latest state (the coarsened scan's totals), or earlier in the same new state (one thread's
// sequential loop). On a tie, in this order. (twin: both operands in another array of the same length,
// one stride apart: double buffering; copy: no combination.)
enum Place { previous, other, chain, twin, copy };
constexpr Place kPlaceOrder[] = {previous, other, chain};

struct Combo {
  Place place = previous;
  std::size_t target = 0;
  std::size_t left_row = 0, left = 0;
  std::size_t right_row = 0, right = 0;  ///< (a copy has none)
};

bool is_range(const Cell& c) { return c.kind == Cell::range; }

/// How row r's changed cells were made (a port of what the trace figures drew before, so that both
/// agree): a cell that equals a cell of another array is a copy; else its right operand is its old value
/// (or a cell of another array ending at the same input) and its left operand the cell that sums the
/// inputs just before. The data may allow several places: the one that explains most cells wins.
std::vector<Combo> combos_of(const std::vector<Row>& rows, std::size_t r, const std::vector<std::size_t>& others,
                             std::vector<std::set<long>>& distances) {
  const Row& row = rows[r];
  static const std::vector<Cell> none;
  const std::vector<Cell>& prev = row.before >= 0 ? rows[static_cast<std::size_t>(row.before)].cells : none;
  std::map<std::size_t, std::vector<Combo>> options;
  for (std::size_t i = 0; i < row.cells.size(); ++i) {
    const Cell& d = row.cells[i];
    const std::optional<Cell> old = i < prev.size() ? std::optional<Cell>(prev[i]) : std::nullopt;
    if (!is_range(d) || (old && *old == d)) continue;
    const bool grows = old && is_range(*old) && old->hi == d.hi && old->lo > d.lo;
    std::optional<std::pair<std::size_t, std::size_t>> copied;
    for (std::size_t k : others) {
      for (std::size_t j = 0; j < rows[k].cells.size() && !copied; ++j) {
        if (rows[k].cells[j] == d) copied = {{k, j}};
      }
      if (copied) break;
    }
    if (copied && !grows) {
      options[i] = {Combo{copy, i, copied->first, copied->second, 0, 0}};
      continue;
    }
    // Double buffering: the other buffer (another array of this length, not this array's own previous
    // state) holds both operands, the right one at the same index and the left one a stride before.
    std::optional<Combo> twinned;
    for (std::size_t k : others) {
      if (twinned || static_cast<int>(k) == row.before || rows[k].cells.size() != row.cells.size()) continue;
      const Cell& s = rows[k].cells[i];
      if (s == d) {  // (a thread below the stride copies its element across)
        twinned = Combo{copy, i, k, i, 0, 0};
        break;
      }
      if (!is_range(s) || s.hi != d.hi || s.lo <= d.lo) continue;
      const Cell want{Cell::range, d.lo, s.lo - 1};
      for (std::size_t j = i; j-- > 0;) {
        if (rows[k].cells[j] == want) {
          twinned = Combo{twin, i, k, j, k, i};
          break;
        }
      }
    }
    if (twinned) {
      options[i] = {*twinned};
      continue;
    }
    // An element that held the identity (padding past n) combined with one a stride before: it now
    // holds what that one held (no other explanation is looked for: the identity shows no operand).
    if (i < prev.size() && prev[i].kind == Cell::identity) {
      std::vector<Combo> padded;
      for (std::size_t j = 0; j < prev.size(); ++j) {
        if (j != i && prev[j] == d) padded.push_back({previous, i, static_cast<std::size_t>(row.before), j,
                                                      static_cast<std::size_t>(row.before), i});
      }
      if (!padded.empty()) {
        options[i] = padded;
        continue;
      }
    }
    std::vector<std::pair<std::size_t, std::size_t>> rights;
    if (grows) rights.push_back({static_cast<std::size_t>(row.before), i});
    std::vector<std::pair<std::size_t, std::size_t>> from_others;
    for (std::size_t k : others) {
      for (std::size_t j = 0; j < rows[k].cells.size(); ++j) {
        const Cell& s = rows[k].cells[j];
        if (is_range(s) && s.hi == d.hi && s.lo > d.lo) from_others.push_back({k, j});
      }
    }
    std::stable_sort(from_others.begin(), from_others.end(), [&](const auto& a, const auto& b) {
      return std::make_pair(a.second != i, -static_cast<long>(a.first)) <
             std::make_pair(b.second != i, -static_cast<long>(b.first));
    });
    rights.insert(rights.end(), from_others.begin(), from_others.end());
    std::vector<Combo> found;
    for (const auto& [rk, rj] : rights) {
      const Cell want{Cell::range, d.lo, rows[rk].cells[rj].lo - 1};
      if (row.before >= 0) {
        for (std::size_t j = 0; j < prev.size(); ++j) {
          if (prev[j] == want) found.push_back({previous, i, static_cast<std::size_t>(row.before), j, rk, rj});
        }
      }
      for (std::size_t k : others) {
        for (std::size_t j = 0; j < rows[k].cells.size(); ++j) {
          if (rows[k].cells[j] == want) found.push_back({other, i, k, j, rk, rj});
        }
      }
      for (std::size_t j = 0; j < i; ++j) {
        if (row.cells[j] == want) found.push_back({chain, i, r, j, rk, rj});
      }
      if (!found.empty()) break;
    }
    if (!found.empty()) options[i] = found;
  }
  // The distances at which each combined cell's left operand lies in its own array (or its twin), for
  // the step's stride: the data may allow several per cell (identity padding past n repeats sums).
  for (const auto& option : options) {
    std::set<long> at;
    for (const Combo& o : option.second) {
      if (o.place != previous && o.place != twin) continue;
      if (const auto d = distance(rows, r, o.target, o.left_row, o.left)) at.insert(*d);
    }
    if (!at.empty()) distances.push_back(at);
  }
  std::map<Place, int> count;
  std::set<long> strides;
  for (const auto& [i, opts] : options) {
    for (Place p : kPlaceOrder) {
      count[p] += std::any_of(opts.begin(), opts.end(), [&](const Combo& o) { return o.place == p; });
    }
    for (const Combo& o : opts) {
      if (o.place == previous) strides.insert(static_cast<long>(o.target) - static_cast<long>(o.left));
    }
  }
  // A step of one stride reads its left operands one stride back; where the previous state explains the
  // cells only at many distances and another array as many (the coarsened scan's phase 3 with two
  // subsections: XY[7] and totals[0] hold the same sum), the other array is the step's source.
  const std::vector<Place> order = strides.size() > 2 ? std::vector<Place>{other, previous, chain}
                                                      : std::vector<Place>{previous, other, chain};
  std::vector<Place> rank(order);
  std::stable_sort(rank.begin(), rank.end(), [&](Place a, Place b) { return count[a] > count[b]; });
  auto rank_of = [&](Place p) {
    const auto it = std::find(rank.begin(), rank.end(), p);
    return it == rank.end() ? -1L : static_cast<long>(it - rank.begin());
  };
  std::vector<Combo> out;
  for (const auto& option : options) {  // (no structured binding: clang 14 cannot capture one)
    const std::size_t i = option.first;
    const std::vector<Combo>& opts = option.second;
    const Combo* best = &opts.front();
    for (const Combo& o : opts) {
      const auto key = [&](const Combo& c) {
        return std::make_pair(rank_of(c.place), std::labs(static_cast<long>(c.left) - static_cast<long>(i)));
      };
      if (key(o) < key(*best)) best = &o;
    }
    out.push_back(*best);
  }
  return out;
}

/// The fewest strides that explain the cells (each cell: the distances its left operand may lie at),
/// the one that explains most cells first: a step is one line of code with one stride.
std::set<long> strides_of(std::vector<std::set<long>> cells) {
  std::set<long> out;
  while (!cells.empty()) {
    std::map<long, int> count;
    for (const auto& at : cells) {
      for (long d : at) ++count[d];
    }
    const auto best = std::max_element(count.begin(), count.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    out.insert(best->first);
    const long stride = best->first;
    cells.erase(std::remove_if(cells.begin(), cells.end(), [&](const auto& at) { return at.count(stride) > 0; }),
                cells.end());
  }
  return out;
}

std::string what_of(std::string_view algorithm, const std::vector<Row>& rows, std::size_t r,
                    const std::vector<Combo>& combos, const std::vector<std::set<long>>& distances) {
  const Row& row = rows[r];
  std::vector<Combo> joins;
  std::copy_if(combos.begin(), combos.end(), std::back_inserter(joins), [](const Combo& c) { return c.place != copy; });
  std::set<Place> places;
  for (const Combo& c : joins) places.insert(c.place);
  const std::set<long> strides = strides_of(distances);
  std::string stride;
  for (long s : strides) stride += (stride.empty() ? "stride " : ", ") + std::to_string(s);
  const bool coarsened = algorithm.find("coarsened") != std::string_view::npos;  // (11.6's hierarchical_coarsened too)
  const bool totals = row.array == "totals";
  if (joins.empty() && !combos.empty()) {
    if (coarsened && totals) return "phase 1: the totals";
    const bool load = std::all_of(combos.begin(), combos.end(), [](const Combo& c) { return c.left_row == 0; });
    return load ? "the load" : "copies";
  }
  if (joins.empty()) {
    // New values no traced element explains: written from registers (a warp's total), or wrong.
    const bool sums = std::all_of(row.cells.begin(), row.cells.end(),
                                  [](const Cell& c) { return c.kind != Cell::wrong; });
    return sums ? "written" : "changed";
  }
  if (coarsened) {
    if (places == std::set<Place>{chain} || (places.count(chain) && !totals)) return "phase 1: each thread's scan";
    if (places.count(other) && !totals) return "phase 3: the totals before";
    return stride.empty() ? "phase 2" : "phase 2, " + stride;
  }
  if (strides.size() > 1) return "scanned";  // (a whole scan between two barriers: warp shuffles)
  if (algorithm.find("brent_kung") != std::string_view::npos && !stride.empty()) {
    // The reduction tree's step with stride s leaves sums of 2 s inputs; the reverse tree's do not.
    const bool pairs = std::all_of(joins.begin(), joins.end(), [&](const Combo& c) {
      const Cell& d = row.cells[c.target];
      const auto s = distance(rows, r, c.target, c.left_row, c.left);
      return s && static_cast<long>(d.hi - d.lo + 1) == 2 * *s;
    });
    return (pairs ? "reduction tree, " : "reverse tree, ") + stride;
  }
  if (places == std::set<Place>{chain}) return "sequential scan";
  return stride.empty() ? "combined" : stride;
}

}  // namespace

std::vector<std::vector<TraceStep>> trace_steps(std::string_view algorithm, std::size_t n,
                                                const std::vector<LaunchStats>& launches) {
  std::vector<std::vector<TraceStep>> steps;
  std::vector<std::string> inputs;
  for (std::size_t i = 0; i < n && i < 64; ++i) inputs.push_back(std::to_string(1ull << i));
  for (std::size_t l = 0; l < launches.size(); ++l) {
    const std::vector<TraceFrame>& trace = launches[l].trace;
    std::vector<TraceStep>& out = steps.emplace_back(trace.size());
    // Each block by itself, its frames in step order (a block's frames are recorded in that order).
    std::map<std::uint32_t, std::vector<std::size_t>> blocks;
    for (std::size_t f = 0; f < trace.size(); ++f) blocks[trace[f].block].push_back(f);
    for (const auto& [block, frames] : blocks) {
      std::vector<Row> rows(1);
      rows[0].array = "x";
      rows[0].values = inputs;
      for (const std::string& v : inputs) rows[0].cells.push_back(decode(v, n));
      for (std::size_t i = 0; i < inputs.size(); ++i) rows[0].logical.push_back(static_cast<long>(i));
      // Per array, its data elements: those that hold a sum of inputs in some frame of this block.
      std::map<std::string, std::vector<long>> logical;
      for (std::size_t f : frames) {
        const TraceFrame& frame = trace[f];
        std::vector<long>& data = logical[frame.name];
        data.resize(std::max(data.size(), frame.values.size()), -1);
        for (std::size_t i = 0; i < frame.values.size(); ++i) {
          if (decode(frame.values[i], n).kind == Cell::range) data[i] = 0;
        }
      }
      for (auto& entry : logical) {
        long next = 0;
        for (long& at : entry.second) at = at < 0 ? -1 : next++;
      }
      std::map<std::string, std::size_t> state;  // array -> its latest row
      for (std::size_t f : frames) {
        const TraceFrame& frame = trace[f];
        if (std::all_of(frame.values.begin(), frame.values.end(), [](const std::string& v) { return v == "?"; })) {
          out[f].label = "not written yet";
          continue;
        }
        const auto before = state.find(frame.name);
        if (before != state.end() && rows[before->second].values == frame.values) {
          out[f].label = "unchanged";
          continue;
        }
        if (before == state.end() && frame.values == inputs) {
          state[frame.name] = 0;  // the load: the input row shows it
          out[f].label = "the load";
          continue;
        }
        Row row;
        row.array = frame.name;
        row.values = frame.values;
        row.frame = static_cast<long>(f);
        row.logical = logical[frame.name];
        for (const std::string& v : frame.values) row.cells.push_back(decode(v, n));
        row.before = before == state.end() ? -1 : static_cast<int>(before->second);
        rows.push_back(std::move(row));
        // The other arrays' latest rows, the most recent first, and the input last.
        std::set<std::size_t> other_rows{0};
        for (const auto& [name, k] : state) {
          if (name != frame.name) other_rows.insert(k);
        }
        const std::vector<std::size_t> others(other_rows.rbegin(), other_rows.rend());
        const std::size_t r = rows.size() - 1;
        std::vector<std::set<long>> distances;
        const std::vector<Combo> combos = combos_of(rows, r, others, distances);
        out[f].label = what_of(algorithm, rows, r, combos, distances);
        for (const Combo& c : combos) {
          out[f].combos.push_back({c.place == copy, c.target, rows[c.left_row].frame, c.left,
                                   c.place == copy ? -1 : rows[c.right_row].frame, c.right});
        }
        state[frame.name] = r;
      }
    }
  }
  return steps;
}

std::vector<std::vector<std::string>> trace_labels(std::string_view algorithm, std::size_t n,
                                                   const std::vector<LaunchStats>& launches) {
  std::vector<std::vector<std::string>> labels;
  for (const auto& launch : trace_steps(algorithm, n, launches)) {
    std::vector<std::string>& out = labels.emplace_back();
    for (const TraceStep& step : launch) out.push_back(step.label);
  }
  return labels;
}

std::vector<std::vector<std::string>> trace_labels_by_rerun(const Algorithm& algorithm, ScanKind kind, std::size_t n,
                                                            const std::vector<LaunchStats>& launches) {
  if (n == 0 || n > 62) return {};  // (x[i] = 2^i: the sum of all n inputs must fit an int64)
  try {
    std::vector<std::int64_t> x(n), y(n, 0);
    for (std::size_t i = 0; i < n; ++i) x[i] = std::int64_t{1} << i;
    const RunResult result =
        algorithm.run(RunRequest{{DType::int64, OpKind::add, kind, n, false}, x.data(), y.data(), 0, true});
    if (result.launches.size() != launches.size()) return {};
    for (std::size_t l = 0; l < launches.size(); ++l) {
      const auto& a = result.launches[l].trace;
      const auto& b = launches[l].trace;
      if (a.size() != b.size()) return {};
      for (std::size_t f = 0; f < a.size(); ++f) {
        if (a[f].name != b[f].name || a[f].block != b[f].block || a[f].step != b[f].step) return {};
      }
    }
    return trace_labels(algorithm.name, n, result.launches);
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace scanlab
