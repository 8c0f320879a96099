/// \file app_explain.hpp
/// \brief Section 11.9, issue 37: where a wrong compaction, partition, radix sort or allocation first
/// leaves the book's algorithm, for the grading tests' smallest failing case. What each step should
/// give comes from the algorithm (the flags x < pivot, their exclusive scan, each element's slot;
/// the splits of the radix sort; the starts of the allocations), never from a solution. Host code only.
///
/// Compaction and partition run once more, traced, as int64 with the same flags: x[i] = -(i + 1) where
/// x[i] is kept and i where it is not, pivot 0, so that each value in the output says which input it
/// is. The three-step forms name the first wrong step (the flags, their exclusive scan, the count, the
/// scatter); the single-pass ones (one launch: the look-back gives each tile the count of the kept
/// elements before it) name the first element in the wrong slot and how far off it is.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app_check.hpp"
#include "apps.hpp"

namespace scanlab::s11_9::explain_app {

using RunApp = std::function<Result(const Request&)>;

inline std::string at(const char* array, std::size_t i) { return std::string(array) + "[" + std::to_string(i) + "]"; }

/// "x[0..4]", "x[3]", or "nothing" for an empty range.
inline std::string inputs(std::size_t first, std::size_t end) {
  if (end <= first) return "nothing";
  return "x[" + std::to_string(first) + (end - first == 1 ? "" : ".." + std::to_string(end - 1)) + "]";
}

/// A traced step's values as numbers (nothing where one is not a number); empty when not traced.
inline std::vector<std::optional<long long>> step(const Result& out, const std::string& name) {
  std::vector<std::optional<long long>> values;
  for (const auto& [label, texts] : out.steps) {
    if (label != name) continue;
    for (const std::string& t : texts) {
      try {
        values.push_back(std::stoll(t));
      } catch (const std::exception&) {
        values.push_back(std::nullopt);
      }
    }
  }
  return values;
}

/// The output's elements as T.
template <class T>
std::vector<T> elements(const Result& out) {
  std::vector<T> v(out.output.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), out.output.data(), v.size() * sizeof(T));
  return v;
}

inline std::string show(const std::optional<long long>& v) { return v ? std::to_string(*v) : "not a number"; }

inline bool is_select(App a) {
  return a == App::compact || a == App::partition || a == App::compact_single_pass ||
         a == App::partition_single_pass || a == App::compact_persistent || a == App::partition_persistent;
}

inline bool is_partition(App a) {
  return a == App::partition || a == App::partition_single_pass || a == App::partition_persistent;
}

/// before[i]: the kept elements of x[0..i-1] (the exclusive scan of the flags), for i = 0..n.
inline std::vector<std::size_t> kept_before(const std::vector<bool>& keep) {
  std::vector<std::size_t> before(keep.size() + 1, 0);
  for (std::size_t i = 0; i < keep.size(); ++i) before[i + 1] = before[i] + (keep[i] ? 1 : 0);
  return before;
}

/// The first wrong traced flag (what `keep` says) or element of their exclusive scan, as one line
/// starting with the step's words; "" when both are right or not traced.
inline std::string flags_and_offsets(const std::vector<std::optional<long long>>& flags,
                                     const std::vector<std::optional<long long>>& offsets,
                                     const std::vector<bool>& keep, const std::string& flag_step,
                                     const std::string& scan_step) {
  const std::size_t n = keep.size();
  const std::vector<std::size_t> before = kept_before(keep);
  if (flags.size() == n) {
    for (std::size_t i = 0; i < n; ++i) {
      if (flags[i] != static_cast<long long>(keep[i])) {
        return flag_step + ": " + at("flags", i) + " is " + show(flags[i]) + ", it should be " +
               (keep[i] ? "1 (x[" + std::to_string(i) + "] is kept)" : "0 (x[" + std::to_string(i) + "] is not kept)");
      }
    }
  }
  if (offsets.size() == n) {
    for (std::size_t i = 0; i < n; ++i) {
      if (offsets[i] == static_cast<long long>(before[i])) continue;
      std::string line = scan_step + ": " + at("offsets", i) + " is " + show(offsets[i]) + ", it should be " +
                          std::to_string(before[i]) + ", the kept elements before x[" + std::to_string(i) + "] (in " +
                          inputs(0, i) + ")";
      if (offsets[i] == static_cast<long long>(before[i + 1]) && keep[i]) {
        line += "; it counts x[" + std::to_string(i) + "] itself: an inclusive scan where the exclusive one gives "
                "each kept element the slot after the kept ones before it";
      }
      return line;
    }
  }
  return "";
}

/// Compaction and partition: the flags, their exclusive scan, the count, then each element's slot.
inline std::string select(const Request& failing, const RunApp& run) {
  const std::size_t n = failing.n;
  std::vector<bool> keep(n);
  visit_type(failing.type, [&](auto t) {
    using T = typename decltype(t)::type;
    const T pivot = static_cast<T>(failing.pivot);  // as the kernels and app_check.hpp convert it
    for (std::size_t i = 0; i < n; ++i) keep[i] = static_cast<const T*>(failing.input)[i] < pivot;
  });
  std::vector<std::int64_t> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = keep[i] ? -static_cast<std::int64_t>(i) - 1 : static_cast<std::int64_t>(i);
  Request r = failing;
  r.type = DType::int64;
  r.input = x.data();
  r.pivot = 0;
  r.trace = true;
  const Result out = run(r);
  // The book's algorithm: before[i], the kept elements of x[0..i-1] (the exclusive scan of the flags).
  const std::vector<std::size_t> before = kept_before(keep);
  const std::size_t kept = before[n];
  const auto slot = [&](std::size_t i) { return keep[i] ? before[i] : kept + (i - before[i]); };
  const std::string head = "\nWhere it goes wrong (n = " + std::to_string(n) + " run again as an int64 " +
                           std::string(kApps[static_cast<int>(r.app)].name) +
                           " with the same flags: x[i] = -(i + 1) where x[i] is kept, i where it is not, pivot 0, "
                           "so that each value of y says which input it is):\n    ";
  const auto flags = step(out, "flags (x < pivot)");
  const auto offsets = step(out, "exclusive scan of the flags");
  const std::string first =
      flags_and_offsets(flags, offsets, keep, "step 1, the flags", "step 2, the exclusive scan of the flags");
  if (!first.empty()) return head + first;
  if (out.count != kept) {
    std::string line = head + "the count of kept elements is " + std::to_string(out.count) + ", it should be " +
                       std::to_string(kept) + ", the kept elements of " + inputs(0, n);
    if (offsets.size() == n && n > 0) {
      line += ": offsets[" + std::to_string(n - 1) + "] + flags[" + std::to_string(n - 1) + "] = " +
              std::to_string(before[n - 1]) + " + " + std::to_string(keep[n - 1] ? 1 : 0) +
              (out.count == before[n - 1] && keep[n - 1] ? " (the last element is kept: offsets[n - 1] alone misses it)"
                                                          : "");
    }
    return line;
  }
  // The scatter (three steps) or the single pass: the first slot that holds the wrong input.
  const std::vector<std::int64_t> y = elements<std::int64_t>(out);
  const auto which = [&](std::int64_t v) -> std::optional<std::size_t> {
    const std::int64_t i = v < 0 ? -v - 1 : v;
    if (i < 0 || static_cast<std::size_t>(i) >= n || keep[static_cast<std::size_t>(i)] != (v < 0)) return std::nullopt;
    return static_cast<std::size_t>(i);
  };
  std::vector<std::size_t> source(y.size());  // the input each slot should hold
  for (std::size_t i = 0; i < n; ++i) {
    if (slot(i) < source.size()) source[slot(i)] = i;
  }
  const std::string where = flags.size() == n ? "step 3, the scatter (the flags and their scan are right): "
                                              : "the single pass (one launch: each block places its tile's elements "
                                                "after those the look-back counts before the tile): ";
  for (std::size_t j = 0; j < y.size(); ++j) {
    const std::optional<std::size_t> got = which(y[j]);
    const std::size_t want = source[j];
    if (got == want) continue;
    std::string line = head + where + at("y", j) + " holds " +
                       (!got ? std::to_string(y[j]) + ", no input (never written?)"
                        : keep[*got] || is_partition(r.app)
                            ? "x[" + std::to_string(*got) + "] (whose slot is y[" + std::to_string(slot(*got)) + "])"
                            : "x[" + std::to_string(*got) + "] (not kept: it has no slot)") +
                       ", it should hold x[" + std::to_string(want) + "]: ";
    const std::string w = "x[" + std::to_string(want) + "]";
    const auto counted = [](std::size_t c, const char* what) {
      return std::to_string(c) + " " + what + (c == 1 ? " element" : " elements");
    };
    line += keep[want] && want == 0 ? w + " is kept, and first"
            : keep[want] ? w + " is kept, after " + counted(before[want], "kept") + " in " + inputs(0, want)
                         : w + " is not kept: it comes after all " + counted(kept, "kept") + ", then " +
                               counted(want - before[want], "other") + " in " + inputs(0, want);
    std::size_t landed = y.size();
    for (std::size_t k = 0; k < y.size(); ++k) {
      if (which(y[k]) == want) landed = k;
    }
    if (landed == y.size()) {
      line += "; x[" + std::to_string(want) + "] is nowhere in y";
    } else {
      const long long off = static_cast<long long>(landed) - static_cast<long long>(j);
      line += "; x[" + std::to_string(want) + "] landed in " + at("y", landed) + ", " +
              std::to_string(off < 0 ? -off : off) + (off == 1 || off == -1 ? " slot" : " slots") +
              (off < 0 ? " too early" : " too far");
    }
    return line;
  }
  return "";
}

/// Radix sort: the first two neighbours out of order, and the split that orders them (the highest bit
/// where they differ: the later splits must keep the order it gives, so a stable split of that bit).
inline std::string radix(const Request& failing, const RunApp& run) {
  Request r = failing;
  r.trace = true;
  const Result out = run(r);
  const std::vector<std::uint32_t> y = elements<std::uint32_t>(out);
  const std::string head =
      "\nWhere it goes wrong (n = " + std::to_string(failing.n) + " run again, its first split traced):\n    ";
  // The first split, traced: flags (bit 0 is 0), their exclusive scan, the keys after it (a stable
  // partition: the keys with bit 0 clear, then the others, each in input order).
  const auto* x = static_cast<const std::uint32_t*>(failing.input);
  std::vector<bool> keep(failing.n);
  std::vector<std::uint32_t> split;
  for (std::size_t i = 0; i < failing.n; ++i) keep[i] = (x[i] & 1u) == 0;
  for (int side : {1, 0}) {
    for (std::size_t i = 0; i < failing.n; ++i) {
      if (keep[i] == (side == 1)) split.push_back(x[i]);
    }
  }
  const std::string first = flags_and_offsets(step(out, "flags of the first split (bit 0 is 0)"),
                                              step(out, "exclusive scan of those flags"), keep,
                                              "the first split (bit 0), its flags",
                                              "the first split (bit 0), the exclusive scan of its flags");
  if (!first.empty()) return head + first;
  const auto after = step(out, "keys after the first split");
  for (std::size_t j = 0; j < after.size() && j < split.size(); ++j) {
    if (after[j] != static_cast<long long>(split[j])) {
      return head + "the first split (bit 0), its scatter (its flags and their scan are right): " + at("keys", j) +
             " is " + show(after[j]) + ", it should be " + std::to_string(split[j]) + " (the keys with bit 0 clear, "
             "then the others, each side in input order)";
    }
  }
  for (std::size_t j = 0; j + 1 < y.size(); ++j) {
    if (y[j] <= y[j + 1]) continue;
    unsigned bit = 31;
    while (((y[j] ^ y[j + 1]) >> bit & 1u) == 0) --bit;
    const std::string b = std::to_string(bit);
    return head + at("y", j) + " = " + std::to_string(y[j]) + " and " + at("y", j + 1) + " = " +
           std::to_string(y[j + 1]) + " are out of order. Their highest differing bit is bit " + b +
           " (1 in y[" + std::to_string(j) + "]): the split on bit " + b + " must put y[" + std::to_string(j + 1) +
           "] first" + (bit == 31 ? " (it is the last split)" : ", and the splits on bits " + std::to_string(bit + 1) +
           "..31, where the two are equal, must keep that order (a stable split)") + ": one of them did not";
  }
  // Sorted, but not the input's keys: one was lost or repeated.
  std::vector<std::uint32_t> want(static_cast<const std::uint32_t*>(failing.input),
                                  static_cast<const std::uint32_t*>(failing.input) + failing.n);
  std::sort(want.begin(), want.end());
  for (std::size_t j = 0; j < std::min(y.size(), want.size()); ++j) {
    if (y[j] != want[j]) {
      return head + "a split lost or repeated a key: " + at("y", j) + " is " + std::to_string(y[j]) +
             ", the sorted keys have " + std::to_string(want[j]) + " there";
    }
  }
  return "";
}

/// Allocation: the starts (the exclusive scan of the sizes), the total, then the slots of each request.
inline std::string allocate(const Request& failing, const RunApp& run) {
  Request r = failing;
  r.trace = true;
  const Result out = run(r);
  const std::size_t n = r.n;
  const auto* k = static_cast<const std::uint32_t*>(r.input);
  std::vector<std::uint64_t> start(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) start[i + 1] = start[i] + k[i];
  const std::string head = "\nWhere it goes wrong (n = " + std::to_string(n) + " run again, traced):\n    ";
  const auto starts = step(out, "starts: exclusive scan of k");
  if (starts.size() == n) {
    for (std::size_t i = 0; i < n; ++i) {
      if (starts[i] == static_cast<long long>(start[i])) continue;
      std::string line = head + "the starts, the exclusive scan of the sizes: " + at("starts", i) + " is " +
                         show(starts[i]) + ", it should be " + std::to_string(start[i]) + " = k[0] + ... + k[" +
                         std::to_string(i) + " - 1], the slots of the requests before it";
      if (starts[i] == static_cast<long long>(start[i + 1]) && k[i] > 0) {
        line += "; it includes k[" + std::to_string(i) + "] too: the inclusive scan, where each request ends, not "
                "where it starts";
      }
      return line;
    }
  }
  if (out.count != start[n]) {
    return head + "the total is " + std::to_string(out.count) + ", it should be " + std::to_string(start[n]) +
           " = k[0] + ... + k[" + std::to_string(n - 1) + "]";
  }
  const std::vector<std::uint32_t> y = elements<std::uint32_t>(out);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::uint64_t s = start[i]; s < start[i + 1] && s < y.size(); ++s) {
      if (y[s] == i) continue;
      return head + "the fill: " + at("y", s) + " holds " + std::to_string(y[s]) + ", it should hold " +
             std::to_string(i) + ": request " + std::to_string(i) + " owns y[" + std::to_string(start[i]) + ".." +
             std::to_string(start[i + 1] - 1) + "] (its start, then its k[" + std::to_string(i) + "] = " +
             std::to_string(k[i]) + " slots)";
    }
  }
  return "";
}

/// Where a wrong compaction, partition, radix sort or allocation goes wrong (see the file's comment);
/// "" for the segmented scan, when the run throws or when the run again is right.
inline std::string where_it_goes_wrong(const Request& failing, const RunApp& run) {
  try {
    if (is_select(failing.app)) return select(failing, run);
    if (failing.app == App::radix_sort) return radix(failing, run);
    if (failing.app == App::allocate) return allocate(failing, run);
  } catch (const std::exception&) {
  }
  return "";
}

}  // namespace scanlab::s11_9::explain_app
