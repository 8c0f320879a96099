// launch(): checks the configuration, orders the blocks, runs them on one or more workers, and
// collects what was counted. Also the switch-cost measurement.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <numeric>
#include <set>

#include "internal.hpp"

namespace scanlab::emu {

namespace impl {

void Launch::fail(const std::string& message) {
  std::lock_guard lock(mutex);
  if (error.empty()) error = message;
  failed.store(true);
}

std::uint64_t Launch::progress() {
  const SyncIgnore ignore(settings.tsan_races);  // race mode: the watchdog orders no blocks
  std::lock_guard lock(mutex);
  std::uint64_t sum = 0;
  for (Worker* w : workers) sum += w->progress.load(std::memory_order_relaxed);
  return sum;
}

uint3 Launch::block_coordinates(unsigned linear) const {
  return uint3{linear % grid.x, (linear / grid.x) % grid.y, linear / (grid.x * grid.y)};
}

namespace {

std::mutex stats_mutex;
std::vector<LaunchStats> stats_log;

/// CUDA's limits; a GPU refuses such a launch ("invalid configuration argument").
void check_configuration(const char* kernel, Extent3 grid, Extent3 block) {
  auto refuse = [&](const std::string& why) {
    throw LaunchError("kernel '" + std::string(kernel) + "': invalid launch configuration: " + why);
  };
  if (block.count() == 0 || grid.count() == 0) refuse("a grid or block dimension is 0");
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  if (threads > kMaxBlockThreads) {
    refuse(std::to_string(threads) + " threads per block; at most " + std::to_string(kMaxBlockThreads) + " are allowed");
  }
  if (block.z > 64) refuse("blockDim.z must be at most 64");
  if (grid.y > 65535 || grid.z > 65535) refuse("gridDim.y and gridDim.z must be at most 65535");
}

std::vector<unsigned> block_sequence(const Settings& s, unsigned blocks) {
  std::vector<unsigned> sequence(blocks);
  std::iota(sequence.begin(), sequence.end(), 0u);
  if (s.block_order == Order::reverse) std::reverse(sequence.begin(), sequence.end());
  if (s.block_order == Order::random) {
    std::mt19937_64 rng(s.seed);
    std::shuffle(sequence.begin(), sequence.end(), rng);
  }
  return sequence;
}

LaunchStats collect(impl::Launch& launch) {
  LaunchStats stats;
  stats.kernel = launch.kernel;
  stats.grid_blocks = launch.grid.count();
  stats.block_threads = launch.block.count();
  for (BlockRecord& r : launch.records) {  // in the order the blocks were started
    stats.ops += r.ops;
    stats.barrier_intervals += r.intervals.size();
    stats.intervals.insert(stats.intervals.end(), r.intervals.begin(), r.intervals.end());
    for (TraceFrame& f : r.trace) stats.trace.push_back(std::move(f));
  }
  return stats;
}

}  // namespace
}  // namespace impl

void launch(const char* kernel_name, Extent3 grid, Extent3 block, std::size_t dynamic_shared_bytes,
            StaticSharedFn static_shared, const std::function<void()>& thread_body) {
  using namespace impl;
  if (kernel_name == nullptr) kernel_name = "?";
  check_configuration(kernel_name, grid, block);
  if (tls_thread != nullptr) {
    throw LaunchError("kernel '" + std::string(kernel_name) + "': launched from inside a kernel (not supported)");
  }
  Launch run;
  run.kernel = kernel_name;
  run.grid = grid;
  run.block = block;
  run.dynamic_shared_bytes = dynamic_shared_bytes;
  run.static_shared = static_shared;
  if (static_shared != nullptr) {
    run.static_layout = &static_layout(static_shared);
    if (!run.static_layout->error.empty()) {
      throw LaunchError("kernel '" + std::string(kernel_name) + "': " + run.static_layout->error);
    }
  }
  run.body = &thread_body;
  run.settings = settings();
  run.time_limit = launch_time_limit();
#if defined(SCANLAB_EMU_TSAN)
  // Race mode slows every access and switch by an order of magnitude (unordered fibers, thousands of
  // TSan threads): a kernel that makes progress must not look stuck (seen with the 2 s of 11.7's tests).
  if (run.settings.tsan_races) run.settings.watchdog_seconds *= 10;
#endif
  run.sequence = block_sequence(run.settings, grid.count());
  run.records.resize(run.sequence.size());
  if (run.settings.block_order == Order::random || run.settings.thread_order == Order::random) {
    // Say the seed once per seed and process, so a failure can be replayed without flooding the
    // output of a test that launches hundreds of kernels.
    static std::mutex printed_mutex;
    static std::set<std::uint64_t> printed_seeds;
    std::lock_guard lock(printed_mutex);
    if (printed_seeds.insert(run.settings.seed).second) {
      std::fprintf(stderr, "scanlab emu: random block/thread order, seed %llu\n",
                   static_cast<unsigned long long>(run.settings.seed));
    }
  }
  ensure_monitor();
  const unsigned workers = std::min<unsigned>(std::max(run.settings.workers, 1u), grid.count());
  const unsigned resident = std::min<unsigned>(std::max(run.settings.resident_blocks, 1u), grid.count());
  if (workers == 1 && resident > 1) {
    // Resident blocks, interleaved one at a time: one pool thread per slot (see interleave.cpp).
    Interleave interleave(run, resident);
    run.interleave = &interleave;
    run.next.store(resident);  // the first `resident` blocks are the slots' first
    run_on_pool(run, resident);
  } else if (workers == 1) {
    current_worker().run_blocks(run);
  } else {
    run_on_pool(run, workers);
  }
  if (run.failed.load()) throw LaunchError(run.error);
  LaunchStats stats = collect(run);
  std::lock_guard lock(stats_mutex);
  stats_log.push_back(std::move(stats));
}

std::vector<LaunchStats> take_stats() {
  std::lock_guard lock(impl::stats_mutex);
  std::vector<LaunchStats> out;
  out.swap(impl::stats_log);
  return out;
}

double measure_switch_ns(std::size_t switches) {
  using namespace impl;
  namespace ctx = boost::context;
  Worker& worker = current_worker();
  worker.block.retire_threads();  // stack 0 is the fiber's below
  worker.stacks.reserve(1, settings().stack_bytes);
  const ctx::stack_context sc = worker.stacks.context(0);
  bool stop = false;
  // A fiber that does nothing but switch back: the cost measured is the pair of switches.
  ctx::fiber fiber(std::allocator_arg, ctx::preallocated(sc.sp, sc.size, sc), PooledStack{},
                   [&stop](ctx::fiber&& back) {
                     while (!stop) back = std::move(back).resume();
                     return std::move(back);
                   });
  fiber = std::move(fiber).resume();  // first entry: not measured
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < switches; ++i) fiber = std::move(fiber).resume();
  const auto stop_time = std::chrono::steady_clock::now();
  stop = true;
  fiber = std::move(fiber).resume();  // lets it return
  const double ns = std::chrono::duration<double, std::nano>(stop_time - start).count();
  return switches == 0 ? 0.0 : ns / static_cast<double>(switches);
}

}  // namespace scanlab::emu
