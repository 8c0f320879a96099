// What a block records (operator counts per barrier interval, traces of shared arrays) and how it
// describes itself in error messages.
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>

#include "internal.hpp"

namespace scanlab::emu::impl {

// ---- instrumentation ----------------------------------------------------------------------------

/// Ends the current barrier interval: sums every thread's operator count (threads that exited during
/// the interval included) and starts the next interval at zero.
void Block::close_interval() {
  IntervalTally tally;
  for (unsigned i = 0; i < count_; ++i) tally.add(threads_[i]);
  record_interval(tally);
}

void Block::record_interval(IntervalTally& tally) {
  tally.stats.block = linear_;
  tally.stats.warps_applying = static_cast<std::uint32_t>(std::popcount(tally.warps));
  record_->intervals.push_back(tally.stats);
  record_->ops += tally.stats.ops;
}

void Block::record_trace(const std::string& where) {
  char buffer[64];
  for (const TraceArray& a : traced_) {
    TraceFrame frame;
    frame.block = linear_;
    frame.step = barriers_done_;
    frame.name = a.name;
    frame.where = where;
    frame.values.reserve(a.count);
    const auto* bytes = static_cast<const unsigned char*>(a.data);
    for (std::size_t i = 0; i < a.count; ++i) {
      const unsigned char* element = bytes + i * a.element_size;
      bool poison = true;
      for (std::size_t b = 0; b < a.element_size; ++b) poison = poison && element[b] == kPoisonByte;
      if (poison) {
        frame.values.emplace_back("?");
      } else {
        a.format(element, buffer, sizeof buffer);
        frame.values.emplace_back(buffer);
      }
    }
    record_->trace.push_back(std::move(frame));
  }
}

// ---- messages -----------------------------------------------------------------------------------

void Block::fail(const std::string& what) {
  if (error_.empty()) error_ = "kernel '" + std::string(launch_->kernel) + "', " + block_name() + ": " + what;
}

bool Block::check_shared_guards(const std::string& now, bool full) {
  if (!error_.empty()) return false;
  std::ptrdiff_t offset = 0;
  const std::size_t bytes = launch_->dynamic_shared_bytes;
  std::string what, hint;
  std::string since = last_check_where_;
  if (!worker_.damaged_guard(bytes, offset)) {
    StaticDamage damage;
    if (!worker_.damaged_static_guard(full, damage)) {
      last_check_where_ = now;
      return true;
    }
    what = static_damage_text(damage);
    hint = what.rfind("past the end", 0) == 0 ? "an index past the size the array is declared with?"
                                               : "a negative index?";
    if (damage.deep) since = "the start of the block";  // only the block's end looks there
  } else {
    what = dynamic_damage_text(offset);
    hint = "an index past the size the launch gives, or a launch with too little shared memory?";
  }
  std::vector<unsigned> suspects;
  for (unsigned i = 0; i < count_; ++i) {
    if (threads_[i].state != State::exited) suspects.push_back(i);
  }
  // One line, starting with "memory error:", so that reports can classify it.
  error_ = "memory error: kernel '" + std::string(launch_->kernel) + "', " + block_name() + " wrote " + what +
           ", between " + since + " and " + now + " (by one of the threads that ran in between: " +
           (suspects.empty() ? std::string("any of the block's threads") : threads_text(suspects) + " or one that exited since") +
           "); " + hint;
  return false;
}

std::string Block::static_damage_text(const StaticDamage& damage) const {
  const StaticLayout& layout = *worker_.static_layout();
  const StaticZone& zone = layout.zones[damage.zone];
  // A zone is the guard after one variable and before the next: damage from its first byte on, or
  // nearer its start than its end, is a write past the end of the one before (the zone starts right at
  // its end); else one before the start of the one after.
  const bool past_end = damage.zone + 1 == layout.zones.size() ||
                        (damage.zone != 0 && (damage.first == 0 || damage.first <= zone.size - 1 - damage.last));
  const std::string site = past_end ? layout.variable_before(damage.zone) : layout.variable_after(damage.zone);
  const std::string array = "a static __shared__ array" + (site.empty() ? std::string() : " (declared at " + site + ")");
  if (past_end) {
    return "past the end of " + array + ", " + std::to_string(damage.first) +
           " bytes after its end (the first byte it changed)";
  }
  return "before the start of " + array;
}

std::string Block::dynamic_damage_text(std::ptrdiff_t offset) const {
  const std::size_t bytes = launch_->dynamic_shared_bytes;
  const std::size_t size = dynamic_element_size;
  std::string what;
  const bool after = offset >= 0;
  const std::ptrdiff_t beyond = after ? offset - static_cast<std::ptrdiff_t>(bytes) : -offset;  // bytes off
  if (size != 0) {
    const std::size_t n = bytes / size;
    const std::ptrdiff_t element = offset >= 0 ? offset / static_cast<std::ptrdiff_t>(size)
                                               : -((-offset + static_cast<std::ptrdiff_t>(size) - 1) /
                                                   static_cast<std::ptrdiff_t>(size));
    what = std::string(after ? "past the end" : "before the start") + " of its dynamic shared memory, a " +
           std::to_string(n) + "-element array of " + std::to_string(size) + "-byte elements (element " +
           std::to_string(element) + ", which starts " +
           std::to_string(after ? element * static_cast<std::ptrdiff_t>(size) - static_cast<std::ptrdiff_t>(bytes)
                                : -element * static_cast<std::ptrdiff_t>(size)) +
           (after ? " bytes after its end)" : " bytes before it)");
  } else {
    what = std::string(after ? "past the end" : "before the start") + " of its dynamic shared memory of " +
           std::to_string(bytes) + " bytes (" + std::to_string(beyond) + (after ? " bytes after its end)" : " bytes before it)");
  }
  return what;
}

std::string Block::block_name() const {
  if (grid_dim.y == 1 && grid_dim.z == 1) return "block " + std::to_string(idx.x);
  return "block (" + std::to_string(idx.x) + "," + std::to_string(idx.y) + "," + std::to_string(idx.z) + ")";
}

std::string Block::thread_name(unsigned linear) const {
  std::string name = "thread " + std::to_string(linear);
  if (dim.y == 1 && dim.z == 1) return name;
  const uint3& i = threads_[linear].idx;
  return name + " (" + std::to_string(i.x) + "," + std::to_string(i.y) + "," + std::to_string(i.z) + ")";
}

std::string Block::threads_text(const std::vector<unsigned>& ids) const {
  return ids.size() == 1 ? thread_name(ids[0]) : thread_list(ids);
}

namespace {

/// Threads grouped by what they wait for, in order of first appearance.
struct Groups {
  std::vector<std::pair<std::string, std::vector<unsigned>>> items;
  void add(const std::string& key, unsigned id) {
    for (auto& [k, ids] : items) {
      if (k == key) {
        ids.push_back(id);
        return;
      }
    }
    items.push_back({key, {id}});
  }
  /// `names(ids)` names a group ("threads 0-15", or one thread).
  template <class Names>
  std::string text(const Names& names) const {
    std::string out;
    for (const auto& [key, ids] : items) {
      if (!out.empty()) out += "; ";
      out += names(ids) + (ids.size() == 1 ? " waits " : " wait ") + key;
    }
    return out;
  }
};

const char* barrier_name(BarrierKind kind) {
  switch (kind) {
    case BarrierKind::plain: return "__syncthreads()";
    case BarrierKind::count: return "__syncthreads_count()";
    case BarrierKind::all: return "__syncthreads_and()";
    case BarrierKind::any: return "__syncthreads_or()";
  }
  return "?";
}

}  // namespace

/// Nobody can run: says who waits where. Called with an empty run queue.
std::string Block::stuck_report() const {
  Groups groups;
  bool in_warp_ops = false;
  for (unsigned i = 0; i < count_; ++i) {
    const CudaThread& t = threads_[i];
    if (t.state == State::barrier) {
      groups.add(std::string("at ") + barrier_name(t.barrier_kind) + " at " + where_text(t.where), i);
    } else if (t.state == State::warp) {
      in_warp_ops = true;
      const WarpState& w = warps_[i / kWarpSize];
      const unsigned missing = t.warp.mask & w.exists & ~w.waiting;
      groups.add(std::string("in ") + warp_op_name(t.warp.op) + " at " + where_text(t.where) + " (mask " +
                     hex_mask(t.warp.mask) + ") for " + lanes_text(i / kWarpSize, missing),
                 i);
    } else if (t.state == State::runnable && t.parked) {
      std::string on;
      if (t.waits_on != nullptr && same_place(t.wait_where, t.where)) on = wait_array_element(t.waits_on);
      groups.add("spinning on an atomic at " + where_text(t.where) + (on.empty() ? "" : " on " + on), i);
    }
  }
  const auto names = [this](const std::vector<unsigned>& ids) { return threads_text(ids); };
  if (diverged_ && !in_warp_ops) {
    return "barrier divergence: " + groups.text(names) +
           ". Every thread that has not exited must wait at the same __syncthreads()";
  }
  return "deadlock: " + groups.text(names) + "; no thread can continue" + wait_arrays_report();
}

/// "threads 0-3 spin at domino.cuh:31": the threads whose last sync point was an atomic or fence.
std::string Block::spinner_report() const {
  Groups places;
  for (unsigned i = 0; i < count_; ++i) {
    const CudaThread& t = threads_[i];
    if (t.state != State::runnable || !t.spinning) continue;
    std::string on;  // the named array element its spin reads (wait_arrays.hpp)
    if (t.waits_on != nullptr && same_place(t.wait_where, t.where)) on = wait_array_element(t.waits_on);
    places.add("at an atomic or fence at " + where_text(t.where) + (on.empty() ? "" : " on " + on), i);
  }
  std::string text;
  for (const auto& [key, ids] : places.items) {
    if (!text.empty()) text += "; ";
    text += threads_text(ids) + (ids.size() == 1 ? " spins " : " spin ") + key;
  }
  return text.empty() ? "threads run without completing anything" : text;
}

std::string Block::running_report(unsigned linear) const {
  std::string text = "kernel '" + std::string(launch_->kernel) + "', " + block_name() + ", " + thread_name(linear);
  const Where& w = threads_[linear].where;
  if (w.line() != 0) text += " (its last sync point: " + where_text(w) + ")";
  return text;
}

// ---- the stack-overflow report (from a signal handler) -------------------------------------------

namespace {

/// One line of text built in place: no allocation, no lock, no stdio, so a signal handler may use
/// it. Too long a line is cut, but always ends with its newline.
class SignalSafeLine {
 public:
  SignalSafeLine& operator<<(const char* text) {
    while (text != nullptr && *text != '\0' && size_ < sizeof buffer_ - 1) buffer_[size_++] = *text++;
    return *this;
  }
  SignalSafeLine& operator<<(unsigned long long value) {
    char digits[24];
    int count = 0;
    do {
      digits[count++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (count > 0 && size_ < sizeof buffer_ - 1) buffer_[size_++] = digits[--count];
    return *this;
  }
  SignalSafeLine& operator<<(unsigned value) { return *this << static_cast<unsigned long long>(value); }
  SignalSafeLine& coordinates(const uint3& i) { return *this << "(" << i.x << "," << i.y << "," << i.z << ")"; }
  void write_to(int fd) {
    buffer_[size_++] = '\n';
    for (std::size_t done = 0; done < size_;) {
      const ssize_t n = ::write(fd, buffer_ + done, size_ - done);
      if (n > 0) {
        done += static_cast<std::size_t>(n);
      } else if (n < 0 && errno != EINTR) {
        return;
      }
    }
  }

 private:
  char buffer_[1024];
  std::size_t size_ = 0;
};

}  // namespace

/// The same names as block_name() and thread_name(), which allocate and so cannot be used here.
void Block::write_overflow_report(const CudaThread& t) const noexcept {
  SignalSafeLine line;
  const unsigned long long kib = worker_.stacks.stack_bytes() / 1024;
  line << "scanlab emu: stack overflow: kernel '" << (launch_ ? launch_->kernel : "?") << "', block ";
  if (grid_dim.y == 1 && grid_dim.z == 1) {
    line << idx.x;
  } else {
    line.coordinates(idx);
  }
  line << ", thread " << t.linear;
  if (dim.y != 1 || dim.z != 1) {
    line << " ";
    line.coordinates(t.idx);
  }
  line << " ran past the end of its fiber stack of " << kib
       << " KiB (deep recursion or large local arrays); set SCANLAB_EMU_STACK_KB to more than " << kib
       << " (or settings().stack_bytes), or make local arrays smaller (put large ones in shared or "
          "global memory). The emulator stops the process (exit status "
       << static_cast<unsigned>(kStackOverflowExitCode) << ")";
  line.write_to(STDERR_FILENO);
}

}  // namespace scanlab::emu::impl
