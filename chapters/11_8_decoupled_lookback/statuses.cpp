// Sections 11.7 and 11.8: the flags and tile statuses of a multi-block scan over time, for the docs'
// figures (Merrill and Garland's pictures of the decoupled look-back: tiles across, time down). The
// solutions' own kernels (11.7's single_pass_scan_kernel, 11.8's decoupled_lookback_scan_kernel) run
// on the emulator with a few small tiles, several blocks resident at once under the adversarial block
// schedule, while the emulator records every atomic on their tickets and flags
// (scanlab::emu::watch_atomics). So the figure shows what the kernels really did, in the order the
// emulator ran it. Written as JSON ("scanlab.statuses/1") by scanlab_11_8_statuses (statuses_main.cpp):
//
//   {"schema", "runs": [{"section", "kernel", "kernel_file", "tiles", "tile_elements",
//     "resident_blocks", "block_schedule", "block_order", "statuses", "events": [[block, kind, tile, status], ...]}]}
//
// kind: "ticket" (the block took tile number `tile`), "read" (a thread of the block read tile `tile`'s
// status and found `status`), "write" (the block set tile `tile`'s status to `status`). status: "X" not
// published, "A" the tile's aggregate, "P" its inclusive prefix (11.7's flag: the running total up to
// the tile's end is published, P). Events are in the order they ran (one worker). Compiled for the cpu
// backend only.
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "decoupled_lookback.cuh"
#include "scanlab/algorithm.hpp"
#include "scanlab/launcher.hpp"
#include "scanlab/ops.hpp"
#include "single_pass_scan.cuh"

namespace {

using scanlab::DeviceBuffer;
namespace emu = scanlab::emu;
using Op = scanlab::Add<int>;

struct Event {
  unsigned block;
  const char* kind;
  unsigned tile;
  char status;
};

struct Run {
  const char* section;
  const char* kernel;
  const char* kernel_file;
  unsigned tiles, tile_elements;
  const char* statuses;
  std::vector<Event> events;
};

/// Runs `launch_it` on `n` inputs 1, 2, 3, ... with the emulator watching the atomics of `watch`, and
/// checks the inclusive scan it wrote.
template <class Launch>
bool traced_scan(std::size_t n, Launch launch_it, std::vector<emu::AtomicEvent>& events) {
  std::vector<int> x(n), y(n, 0), expect(n);
  std::iota(x.begin(), x.end(), 1);
  std::inclusive_scan(x.begin(), x.end(), expect.begin());
  DeviceBuffer<int> d_x(n), d_y(n);
  d_x.upload(x.data());
  emu::take_atomic_events();
  launch_it(d_x.data(), d_y.data());
  emu::unwatch_atomics();
  events = emu::take_atomic_events();
  d_y.download(y.data());
  return y == expect;
}

// 11.7: counter (the dynamic block index) and flags[0 .. tiles]: flags[k] set means section k - 1's
// running total is published, so flags[k] is tile k - 1's status, P once set.
constexpr unsigned kDominoThreads = 32, kDominoItems = 4;

bool domino(unsigned tiles, Run& run) {
  const std::size_t n = std::size_t{tiles} * kDominoThreads * kDominoItems;
  DeviceBuffer<unsigned> sync(tiles + 2);  // counter, flags[0 .. tiles]
  DeviceBuffer<int> running(tiles + 1);
  sync.fill(0);
  unsigned* counter = sync.data();
  unsigned* flags = sync.data() + 1;
  std::vector<emu::AtomicEvent> raw;
  const bool ok = traced_scan(n, [&](const int* x, int* y) {
    emu::watch_atomics("counter", counter, sizeof(unsigned));
    emu::watch_atomics("flags", flags, (tiles + 1) * sizeof(unsigned));
    scanlab::launch(scanlab::s11_7::single_pass_scan_kernel<int, Op, kDominoItems>,
                    {"single_pass_scan_kernel", dim3(tiles), dim3(kDominoThreads)}, x, y, n, Op{}, false, counter,
                    flags, running.data());
  }, raw);
  run = {"11.7", "single_pass_scan_kernel", "single_pass_scan.cuh", tiles, kDominoThreads * kDominoItems, "XP", {}};
  for (const emu::AtomicEvent& e : raw) {
    if (e.array == "counter") {
      run.events.push_back({e.block, "ticket", static_cast<unsigned>(e.before), 'P'});
      continue;
    }
    const unsigned k = static_cast<unsigned>(e.offset / sizeof(unsigned));
    if (k == 0) continue;  // flags[0]: no tile before section 0 (never touched)
    const bool read = e.before == e.after;
    run.events.push_back({e.block, read ? "read" : "write", k - 1, e.after != 0 ? 'P' : 'X'});
  }
  return ok;
}

// 11.8: the ticket counter and the status words, one 64-bit word per tile (int).
constexpr int kLookbackThreads = 32, kLookbackItems = 4;

bool lookback_run(unsigned tiles, Run& run) {
  const std::size_t n = std::size_t{tiles} * kLookbackThreads * kLookbackItems;
  DeviceBuffer<unsigned long long> words(lookback::workspace_words<int>(tiles));
  words.fill(0);
  const lookback::TileStatusArray status{words.data(), words.data() + 2, 1u};
  std::vector<emu::AtomicEvent> raw;
  const bool ok = traced_scan(n, [&](const int* x, int* y) {
    emu::watch_atomics("counter", status.counter, sizeof(unsigned long long));
    emu::watch_atomics("status", status.words, std::size_t{tiles} * sizeof(unsigned long long));
    scanlab::launch(decoupled_lookback_scan_kernel<kLookbackThreads, kLookbackItems, int, Op>,
                    {"decoupled_lookback_scan_kernel", dim3(tiles), dim3(kLookbackThreads)}, x, y, n, Op{}, false,
                    status, 0u, 0u, true);
  }, raw);
  run = {"11.8", "decoupled_lookback_scan_kernel", "decoupled_lookback.cuh", tiles,
         static_cast<unsigned>(kLookbackThreads * kLookbackItems), "XAP", {}};
  for (const emu::AtomicEvent& e : raw) {
    if (e.array == "counter") {
      if (e.after == e.before + 1) run.events.push_back({e.block, "ticket", static_cast<unsigned>(e.before), 'P'});
      continue;  // (the last ticket's rewind to 0)
    }
    const unsigned long long word[1] = {e.after};
    const unsigned flag = lookback::unpack_status<int>(word, status.epoch).flag;
    const char s = flag == lookback::kPrefix ? 'P' : flag == lookback::kAggregate ? 'A' : 'X';
    const bool read = e.before == e.after;
    run.events.push_back({e.block, read ? "read" : "write", static_cast<unsigned>(e.offset / sizeof(unsigned long long)), s});
  }
  return ok;
}

}  // namespace

/// Writes both runs of `tiles` tiles with `resident` blocks resident at once to `path`; 0 on success,
/// 1 if a scan was wrong or the file cannot be written.
extern "C" SCANLAB_EXPORT int scanlab_11_8_write_statuses(const char* path, unsigned tiles, unsigned resident) {
  emu::Settings& s = emu::settings();
  s.workers = 1;
  s.resident_blocks = resident;
  s.block_schedule = emu::Schedule::adversarial;
  s.block_order = emu::Order::forward;
  Run runs[2];
  if (!domino(tiles, runs[0]) || !lookback_run(tiles, runs[1])) {
    std::fprintf(stderr, "scanlab_11_8_statuses: a traced scan was wrong\n");
    return 1;
  }
  std::string text = "{\"schema\": \"scanlab.statuses/1\", \"runs\": [";
  for (int r = 0; r < 2; ++r) {
    const Run& run = runs[r];
    text += std::string(r ? ",\n" : "\n") + "{\"section\": \"" + run.section + "\", \"kernel\": \"" + run.kernel +
            "\", \"kernel_file\": \"" + run.kernel_file + "\", \"tiles\": " + std::to_string(run.tiles) +
            ", \"tile_elements\": " + std::to_string(run.tile_elements) + ", \"resident_blocks\": " +
            std::to_string(resident) + ", \"block_schedule\": \"adversarial\", \"block_order\": \"forward\"" +
            ", \"statuses\": \"" + run.statuses + "\", \"events\": [";
    for (std::size_t k = 0; k < run.events.size(); ++k) {
      const Event& e = run.events[k];
      text += (k ? ",\n" : "\n") + std::string("[") + std::to_string(e.block) + ", \"" + e.kind + "\", " +
              std::to_string(e.tile) + ", \"" + e.status + "\"]";
    }
    text += "]}";
  }
  text += "]}\n";
  std::FILE* f = std::fopen(path, "w");
  if (f == nullptr || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0) {
    std::fprintf(stderr, "scanlab_11_8_statuses: cannot write %s\n", path);
    return 1;
  }
  return 0;
}
