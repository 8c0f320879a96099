// Resident blocks: several blocks of a launch started at once and interleaved, one at a time, on a
// seeded schedule, so that blocks that wait for each other (Sec. 11.7, 11.8) do so as on a GPU, and a
// block that reads another block's data before waiting for it reads it before it is written.
//
// Why OS threads: __shared__ variables are thread-local (see README), so two blocks that are both
// half-way through need two instances; each slot is an OS thread of the pool with its own. Only the
// slot that holds the turn runs; a hand-over is a condition variable (a few microseconds), made only
// at the points below, never at a barrier.
#include <algorithm>

#include "internal.hpp"

namespace scanlab::emu::impl {

Interleave::Interleave(const Launch& launch, unsigned slots)
    : slots_(slots),
      schedule_(launch.settings.block_schedule),
      rng_(launch.settings.seed ^ 0xB10C5EEDull),
      race_mode_(launch.settings.tsan_races) {
  // Slot s starts the s-th block of the launch's order; the first turn goes to the schedule's pick.
  for (unsigned s = 0; s < slots; ++s) block_started(s);
  turn_ = pick(0);
}

void Interleave::block_started(unsigned s) {
  Slot& slot = slots_[s];
  slot = Slot{};
  slot.active = true;
  slot.start = ++clock_;
  for (Slot& other : slots_) other.stuck = false;  // a new block can change memory
}

void Interleave::block_ended(unsigned s) {
  slots_[s].active = false;
  for (Slot& other : slots_) other.stuck = false;  // a block's end is progress
}

void Interleave::changed(unsigned s) {
  slots_[s].joined = true;
  slots_[s].stamp = ++clock_;
  for (Slot& other : slots_) other.stuck = false;  // whoever waited may see it now
}

namespace {
std::mutex waits_mutex;
std::vector<std::string> waits;  // see take_block_waits()
}  // namespace

void Interleave::stuck(unsigned s, Where where) {
  slots_[s].stuck = true;
  const std::string place = where_text(where);
  std::lock_guard lock(waits_mutex);
  if (std::find(waits.begin(), waits.end(), place) == waits.end() && waits.size() < 16) waits.push_back(place);
}

/// The schedule. Candidates: the slots with a block that is not stuck; if every block is stuck (they
/// wait for each other, or for a write the emulator does not see as progress: a plain store), each
/// gets its turn in slot order, so a spinner re-reads and the watchdog sees a real deadlock.
unsigned Interleave::pick(unsigned current) {
  const unsigned n = slots();
  unsigned best = n, candidates = 0;
  for (unsigned s = 0; s < n; ++s) {
    const Slot& slot = slots_[s];
    if (!slot.active || slot.stuck) continue;
    ++candidates;
    if (schedule_ == Schedule::random) {
      // Reservoir sampling: each candidate is kept with probability 1 / candidates.
      if (std::uniform_int_distribution<unsigned>(1, candidates)(rng_) == 1) best = s;
      continue;
    }
    // Adversarial: blocks that have not changed memory yet, the youngest first; then the block
    // whose last change is the most recent. A producer waits until every consumer after it is stuck.
    if (best == n) {
      best = s;
      continue;
    }
    const Slot& b = slots_[best];
    const bool better = slot.joined != b.joined ? !slot.joined
                        : !slot.joined          ? slot.start > b.start
                                                : slot.stamp > b.stamp;
    if (better) best = s;
  }
  if (best != n) return best;
  for (unsigned k = 1; k <= n; ++k) {  // every block stuck: round robin
    const unsigned s = (current + k) % n;
    if (slots_[s].active) return s;
  }
  return current;
}

void Interleave::hand_over(unsigned next) {
  std::lock_guard lock(mutex_);
  turn_ = next;
  wake_.notify_all();
}

bool Interleave::wait_turn(unsigned s, Worker& w) {
  w.busy.store(false, std::memory_order_relaxed);  // not stuck in kernel code: the monitor looks away
  bool released = false;
  {
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [&] { return turn_ == s || released_; });
    released = released_;
  }
  w.busy.store(true, std::memory_order_relaxed);
  return !released;
}

bool Interleave::reschedule(unsigned s, Worker& w) {
  const SyncIgnore ignore(race_mode_);
  const unsigned next = pick(s);
  if (next == s) return true;
  hand_over(next);
  return wait_turn(s, w);
}

void Interleave::slot_done(unsigned s, Worker&) {
  const SyncIgnore ignore(race_mode_);
  slots_[s].active = false;
  bool any = false;
  for (const Slot& slot : slots_) any |= slot.active;
  if (any) hand_over(pick(s));
}

void Interleave::release_all() {
  std::lock_guard lock(mutex_);
  released_ = true;
  wake_.notify_all();
}

// ---- a worker as one slot -------------------------------------------------------------------------

void Worker::run_blocks_interleaved(Launch& launch, unsigned my_slot) {
  Interleave& inter = *launch.interleave;
  slot = my_slot;
  {
    std::lock_guard lock(launch.mutex);
    launch.workers.push_back(this);
  }
  prepare(launch);
  std::size_t position = my_slot;  // the first blocks: one per slot, in the launch's block order
  bool running = wait_turn_or_fail(inter, my_slot);
  while (running) {
    try {
      block.run(launch, launch.sequence[position], launch.records[position]);
    } catch (const std::exception& e) {
      launch.fail(e.what());
    }
    if (launch.failed.load(std::memory_order_relaxed)) {
      inter.release_all();
      break;
    }
    {
      const SyncIgnore ignore(inter.race_mode());
      inter.block_ended(my_slot);
      position = launch.next.fetch_add(1);  // only the turn's holder takes blocks: deterministic
      if (position >= launch.sequence.size()) break;
      inter.block_started(my_slot);
    }
    running = inter.reschedule(my_slot, *this);
  }
  if (!launch.failed.load(std::memory_order_relaxed)) inter.slot_done(my_slot, *this);
  busy.store(false, std::memory_order_relaxed);
}

bool Worker::wait_turn_or_fail(Interleave& inter, unsigned my_slot) {
  const SyncIgnore ignore(inter.race_mode());
  return inter.wait_turn(my_slot, *this);
}

}  // namespace scanlab::emu::impl

namespace scanlab::emu {

std::vector<std::string> take_block_waits() {
  std::lock_guard lock(impl::waits_mutex);
  std::vector<std::string> out;
  out.swap(impl::waits);
  return out;
}

void add_block_waits(const std::vector<std::string>& places) {
  std::lock_guard lock(impl::waits_mutex);
  for (const std::string& place : places) {
    if (std::find(impl::waits.begin(), impl::waits.end(), place) == impl::waits.end()) impl::waits.push_back(place);
  }
}

}  // namespace scanlab::emu
