/// \file persistent_scan.cuh
/// \brief Section 11.8 (beyond the book): the decoupled look-back scan as a persistent,
/// warp-specialized kernel that streams tiles through a ring of shared-memory stages: on Hopper
/// (sm_90) with 1-D bulk copies (TMA, `cp.async.bulk`) completing on mbarriers.
///
/// The book-style kernel (decoupled_lookback.cuh) gives each block one tile: the block loads it, scans
/// it, waits for its look-back and stores it, and only then does the SM start on another block's
/// loads. While a block waits for its look-back, its loads are done and nothing else is in flight.
/// Here a block stays for the whole launch and gives its warps roles:
///
///   - the PRODUCER warp (the last warp): takes a tile number from the ticket counter, waits until a
///     stage of the ring is free, and starts one bulk copy of the tile into it; the copy completes on
///     the stage's `full` barrier. It runs up to kStages tiles ahead of the scan warps.
///   - the REDUCER warp (warp Warps): as soon as a tile has landed, combines it in shared memory and
///     publishes its aggregate (so tiles queued in a ring never hold up other tiles' look-backs);
///   - the SCAN warps (warps 0 .. Warps-1): wait for a stage's `full` barrier, read the tile out of
///     shared memory into registers, hand the stage back (its `empty` barrier), scan the tile, get
///     its exclusive prefix, add and store;
///   - the prefix comes from one of two places (a template parameter, chosen per shape by n):
///       * scan warp 0 looks back itself, once the tile is scanned and the reducer is done with it;
///       * LookBackWarp: a LOOK-BACK warp (warp Warps + 1) looks back as soon as the reducer is
///         done with a tile and hands the prefix to the scan warps (the `prefixed` barriers). It runs
///         ahead of the scan warps, on tiles still waiting in the ring, so the scan warps no longer
///         wait out a look-back per tile. That pays where each block scans several tiles (the large
///         shape); where a block mostly scans one tile (the small shape) it only adds a hand-over.
///
/// So the next tiles' loads are in flight while the scan warps wait for a look-back (or, with the
/// look-back warp, while they work): the memory system never waits for the slowest part of a tile.
/// The first ticket and the first tile's copy leave before the block's one barrier (thread 0 starts
/// that copy once the mbarriers are set up). A scan of one tile takes the one-tile shape (Stages =
/// 0): one block whose scan warps load, scan and store it.
/// Everything the book-style kernel keeps is kept: tile numbers from a ticket counter (no deadlock,
/// whatever order blocks start in), the epoch-tagged status words (no reset kernel, one launch per
/// scan), 16-byte coalesced stores.
///
/// Synchronisation, with what stands for it where there is no TMA:
/// | what                              | sm_90 (GPU)                               | cpu backend, older GPUs          |
/// |-----------------------------------|-------------------------------------------|----------------------------------|
/// | stage barriers `full`, `empty`    | `mbarrier` in shared memory               | a counter + phase bit, atomics   |
/// | tile into a stage                 | `cp.async.bulk` (complete_tx on `full`)   | the producer warp copies it      |
/// | stage barriers `reduced`, prefix barriers `prefixed` | `mbarrier`              | a counter + phase bit, atomics   |
/// | scan warps among themselves       | named barrier `bar.sync 1, 32*Warps`      | a counter + phase bit, atomics   |
/// The stages hold only what bulk copies wrote: whole 16-byte chunks below n, and nothing for a
/// misaligned x. The warps read the rest of the last tile (and every tile of a misaligned x) from x
/// directly, and learn the stage's tile number through a shared atomic. So no thread ever writes a
/// stage or the stage's tile number with an ordinary store that only an mbarrier orders before
/// another warp's read: compute-sanitizer racecheck does not count mbarrier arrive/wait as
/// synchronisation and reports such pairs as hazards (an earlier version did both, for the tail tile).
/// The same holds for the values the roles hand each other (a tile's aggregate, its prefix): shared
/// atomics (share_value / shared_value).
///
/// The ring and three of the roles (TileRing, run_producer, run_reducer, run_look_back_warp) do not
/// depend on what the scan warps do with a tile: section 11.9's persistent compaction and partition
/// (persistent_select.cuh) run on them too, with warps of their own in place of the scan warps.
///
/// Contract: as decoupled_lookback.cuh (inclusive or exclusive, any n, in place allowed, any alignment;
/// one workspace per stream at a time).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "block_tile.cuh"
#include "scanlab/kernel.hpp"
#include "tile_status.cuh"

#if defined(SCANLAB_BACKEND_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/// Device code for sm_90 and later: real mbarriers and bulk copies.
#define SCANLAB_PIPELINE_TMA 1
#endif

namespace lookback::pipeline {

/// Scan warps, elements per thread, ring stages and the look-back warp, tuned for sm_90 (H100) by the
/// sweeps in plots/data/h100_persistent_sweep_2026-11-25.csv (all n),
/// h100_persistent_small_sweep_2026-11-25.csv (n <= 2^23, the one-tile shapes) and
/// h100_lookback_warp_sweep_2026-11-26.csv (the large shapes with and without the look-back warp).
/// A tile is 32 * kWarps * kItems elements: 32 KiB of 4-byte values, 16 KiB of 8-byte values, in 4
/// stages (one block of 11 warps per SM; two blocks of 7 warps).
/// Shapes picked by n (PersistentScan): a scan that fits one tile of the kSmall* warps and items, or
/// else of the kSingle* ones, runs as one block that loads its tile itself (no ring, no tickets, no
/// look-back: the one-tile shape, Stages = 0, below); scans of at most kSmallMaxBytes take the
/// kSmall* shape (smaller tiles, so that more SMs share the work and a tile's chain of latencies is
/// shorter; one tile per block, mostly, so scan warp 0 looks back: a look-back warp would only add a
/// hand-over); larger ones the k* shape, with the look-back warp (each block scans several tiles).
/// On the cpu backend a smaller block (2 scan warps, 2 stages): the same code, with fewer threads
/// spinning on emulated barriers and smaller tiles for the tests' sizes; its small shape covers up to
/// two of its tiles, so that the tests run every shape and both ways to a tile's prefix.
template <class T>
struct PersistentTuning {
#if defined(SCANLAB_BACKEND_CPU)
  static constexpr int kWarps = 2;
  static constexpr int kItems = sizeof(T) == 4 ? 32 : 16;
  static constexpr int kStages = 2;
  static constexpr int kSmallWarps = 2;
  static constexpr int kSmallItems = sizeof(T) == 4 ? 8 : 4;
  static constexpr int kSmallStages = 2;
  static constexpr std::size_t kSmallMaxBytes = 2 * 32 * kWarps * kItems * sizeof(T);
  static constexpr bool kLookBackWarp = true;
  static constexpr bool kSmallLookBackWarp = false;
  static constexpr int kSingleWarps = 2;
  static constexpr int kSingleItems = sizeof(T) == 4 ? 16 : 8;
#else
  static constexpr int kWarps = sizeof(T) == 4 ? 8 : 4;
  static constexpr int kItems = sizeof(T) == 4 ? 32 : 16;
#if defined(SCANLAB_PERSISTENT_STAGES)
  static constexpr int kStages = SCANLAB_PERSISTENT_STAGES;  // a measurement build's ring depth
#else
  static constexpr int kStages = 4;
#endif
  static constexpr int kSmallWarps = 4;
  static constexpr int kSmallItems = sizeof(T) == 4 ? 16 : 8;
  static constexpr int kSmallStages = sizeof(T) == 4 ? 4 : 8;
  static constexpr std::size_t kSmallMaxBytes = std::size_t{1} << 20;
  static constexpr bool kLookBackWarp = true;
  static constexpr bool kSmallLookBackWarp = false;
  static constexpr int kSingleWarps = 8;
  static constexpr int kSingleItems = sizeof(T) == 4 ? 32 : 16;
#endif
};

// ---- barriers ------------------------------------------------------------------------------------
// A barrier is one 64-bit word of shared memory. With TMA it is a hardware mbarrier. Without, it is
// emulated: bits 0..15 count the arrivals of the current phase, bit 32 is the phase's parity, bits
// 48..63 hold the expected count. Waiting on parity P returns once the phase with parity P has
// completed (the mbarrier convention): a fresh barrier is in phase 0, so waiting on parity 1 returns
// at once.

/// Called by one thread before the block's first __syncthreads.
__device__ __forceinline__ void barrier_init(unsigned long long* bar, unsigned count) {
#if defined(SCANLAB_PIPELINE_TMA)
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))),
               "r"(count)
               : "memory");
#else
  atomicExch(bar, static_cast<unsigned long long>(count) << 48);
#endif
}

/// Makes the initialised barriers visible to the bulk-copy unit (then __syncthreads for the threads).
__device__ __forceinline__ void barrier_init_fence() {
#if defined(SCANLAB_PIPELINE_TMA)
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

/// One arrival (release: what this thread wrote before is seen by whoever waits on the phase).
__device__ __forceinline__ void barrier_arrive(unsigned long long* bar) {
#if defined(SCANLAB_PIPELINE_TMA)
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(bar)))
               : "memory");
#else
  __threadfence_block();
  const unsigned long long old = atomicAdd(bar, 1ull);
  const unsigned long long expected = old >> 48;
  if ((old & 0xffffull) == expected - 1) {  // the last arrival: reset the count, then flip the phase
    atomicAdd(bar, 0ull - expected);  // (CUDA has no 64-bit atomicSub)
    atomicXor(bar, 1ull << 32);
  }
#endif
}

/// Waits until the phase with parity `parity` has completed (acquire).
__device__ __forceinline__ void barrier_wait(unsigned long long* bar, unsigned parity) {
#if defined(SCANLAB_PIPELINE_TMA)
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(bar));
  for (;;) {
    unsigned done = 0;
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(address), "r"(parity)
        : "memory");
    if (done) return;
  }
#else
  // (atomicAdd(p, 0) is a read at which the emulator runs other threads.)
  while (((atomicAdd(bar, 0ull) >> 32) & 1ull) == parity) {
  }
  __threadfence_block();
#endif
}

#if defined(SCANLAB_PIPELINE_TMA)
/// Tells the barrier to expect `bytes` more from bulk copies in this phase (no arrival).
__device__ __forceinline__ void barrier_expect_tx(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(bar))),
               "r"(bytes)
               : "memory");
}

/// Starts a 1-D bulk copy global -> shared of `bytes` (a multiple of 16, both ends 16-byte aligned),
/// which completes on `bar` (its transaction count).
__device__ __forceinline__ void bulk_load(void* smem, const void* gmem, unsigned bytes, unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          static_cast<unsigned>(__cvta_generic_to_shared(smem))),
      "l"(gmem), "r"(bytes), "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar)))
      : "memory");
}
#endif

/// A barrier of the `threads` scan threads only (the producer warp goes on). `emulated` and `parity`
/// are the emulated barrier and this thread's count of passages (unused with TMA: a named barrier).
__device__ __forceinline__ void scan_warps_sync(unsigned threads, unsigned long long* emulated, unsigned& parity) {
#if defined(SCANLAB_BACKEND_CUDA)
  (void)emulated, (void)parity;
  asm volatile("bar.sync 1, %0;" ::"r"(threads) : "memory");
#else
  (void)threads;
  barrier_arrive(emulated);
  barrier_wait(emulated, parity);
  parity ^= 1u;
#endif
}

// ---- time per role (a measurement build only: bench/persistent_roles.cu) -------------------------
// With SCANLAB_PERSISTENT_TRACE, lane 0 of each role writes clock64() stamps, cycles since its block
// started, to g_trace[tile * kTraceEvents + event]. Otherwise the stamps compile to nothing.
enum TraceEvent : int {
  kCopyStarted,        // producer: the tile's bulk copy issued
  kTicketed,           // producer: the stage handed to the other warps (the ticket is known)
  kLanded,             // reducer: the tile is in shared memory
  kAggregatePublished, // reducer: its aggregate is out
  kScanStart,          // scan warp 0: the tile in hand (one tile: the kernel's start)
  kLookBackStart,      // scan warp 0 or the look-back warp: the look-back starts
  kPrefixPublished,    // scan warp 0 or the look-back warp: the look-back is done
  kStored,             // scan warp 0: its part of the tile is stored
  kTraceEvents
};
#if defined(SCANLAB_PERSISTENT_TRACE) && defined(SCANLAB_BACKEND_CUDA)
__device__ unsigned long long* g_trace = nullptr;
/// A block's start and where its stamps go. The pointer is read once, first thing (an emptied L2
/// makes that read a trip to DRAM: a stamp that waited for it would delay what follows it), and each
/// stamp reads the clock before it stores. A stamp needs `trace` and `lane` in scope.
struct Trace {
  long long block_start;
  unsigned long long* out;
};
#define SCANLAB_TRACE_BLOCK_START \
  [[maybe_unused]] const ::lookback::pipeline::Trace trace{clock64(), ::lookback::pipeline::g_trace}
#define SCANLAB_TRACE(tile, event)                                                                      \
  do {                                                                                                  \
    const long long trace_now = clock64();                                                              \
    if (lane == 0 && trace.out != nullptr) {                                                            \
      trace.out[static_cast<std::size_t>(tile) * ::lookback::pipeline::kTraceEvents + (event)] =         \
          trace_now - trace.block_start;                                                                \
    }                                                                                                   \
  } while (0)
#else
struct Trace {};
#define SCANLAB_TRACE_BLOCK_START [[maybe_unused]] const ::lookback::pipeline::Trace trace {}
#define SCANLAB_TRACE(tile, event) static_cast<void>(0)
#endif

/// Tile number of a stage holding a wrongly guessed tile (see the producer): skip it.
inline constexpr unsigned kSkipStage = 0xffffffffu;

// ---- values one role hands another ----------------------------------------------------------------
// A 4- or 8-byte value in a 64-bit shared word, written and read with atomics (racecheck does not
// take the mbarrier that orders the write before the read as synchronisation; see above).

/// Writes `value` into `slot` (one thread).
template <class T>
__device__ __forceinline__ void share_value(unsigned long long* slot, T value) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "a 4- or 8-byte value");
  unsigned long long bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  atomicExch(slot, bits);
}

/// Reads the value in `slot`: lane 0 reads it, every lane of the warp gets it.
template <class T>
__device__ __forceinline__ T shared_value(unsigned long long* slot, unsigned lane) {
  unsigned long long bits = 0;
  if (lane == 0) bits = atomicAdd(slot, 0ull);
  bits = __shfl_sync(lookback::kFullWarp, bits, 0);
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

// ---- the look-back -------------------------------------------------------------------------------

/// One step of a look-back, in every lane of the calling warp: each lane reads the status of whole tile
/// `at` (none where at < 0: the lane keeps `fill` as its status), all wait until every lane has one, and
/// the window's combination (the nearest PREFIX and the AGGREGATEs after it) goes to the LEFT of
/// `exclusive`. Returns whether the window held a PREFIX (then `exclusive` is complete).
/// With `runs`, `at` numbers a run (read_run_status), not a tile.
template <class T, class Op>
__device__ __forceinline__ bool look_back_step(const TileStatusArray& status, Op op, unsigned lane, long long at,
                                               bool runs, TileStatus<T> fill, T& exclusive) {
  TileStatus<T> s = fill;
  for (unsigned tries = 0;; ++tries) {
    if (at >= 0) {
      const auto i = static_cast<unsigned long long>(at);
      s = runs ? read_run_status<T>(status, i) : read_whole_status<T>(status, i);
    }
    if (__all_sync(kFullWarp, s.flag != kNotPublished)) break;
#if defined(SCANLAB_BACKEND_CUDA)
    if (tries == (1u << 26)) __trap();  // a tile that never publishes: stop rather than hang
#else
    (void)tries;
#endif
  }
  const unsigned prefixes = __ballot_sync(kFullWarp, s.flag == kPrefix);
  const int nearest = prefixes != 0 ? highest_lane(prefixes) : 0;
  const T mine = static_cast<int>(lane) >= nearest ? s.value : Op::identity();
  const T window = __shfl_sync(kFullWarp, warp_reduce_in_order(mine, op, lane), 0);
  exclusive = op(window, exclusive);  // earlier tiles on the left
  return prefixes != 0;
}

/// With tiles dealt out in runs (ends_run): the look-back over the tiles of tile `tile`'s own run before
/// it, in every lane. Returns whether it found a PREFIX among them; `exclusive` gets what it combined (the
/// tile's exclusive prefix if it found one, else the combination of the run's tiles before it). Waits only
/// for AGGREGATEs of the run, which its tiles' reducers publish without waiting for anything.
template <class T, class Op>
__device__ bool look_back_in_run(const TileStatusArray& status, unsigned tile, Op op, unsigned lane, T& exclusive) {
  const long long whole = static_cast<long long>(whole_tile(status, tile));
  const long long run_start = whole - static_cast<long long>(tile % status.run);
  const TileStatus<T> before_run{kAggregate, Op::identity()};  // (no tile: the identity, not a prefix)
  for (long long window_end = whole; window_end > run_start; window_end -= 32) {
    const long long predecessor = window_end - 32 + static_cast<long long>(lane);
    if (look_back_step<T>(status, op, lane, predecessor >= run_start ? predecessor : -1, false, before_run,
                          exclusive)) {
      return true;
    }
  }
  return false;
}

/// The exclusive prefix of tile `tile` (> 0), in every lane of the calling warp: the nearest
/// published PREFIX among its predecessors combined, in order, with the AGGREGATEs after it; 32
/// predecessors per step (lane l reads tile window_end - 32 + l). The same algorithm as the
/// exercise's look_back (decoupled_lookback.cuh), written here so this kernel does not depend on it.
/// With a carry in (TileStatusArray::carry), tile 0 looks back too, and finds the carry as tile -1's
/// PREFIX. With tiles dealt out to several GPUs, it looks back over the whole array's tiles, every GPU's;
/// in runs of several tiles, over its own run's tiles first (all on this GPU), then over the runs before it,
/// one status per run (ends_run, read_run_status).
template <class T, class Op>
__device__ T look_back(const TileStatusArray& status, unsigned tile, Op op, unsigned lane) {
  T exclusive = Op::identity();
  const bool by_runs = status.devices > 1 && status.run > 1;
  if (by_runs && look_back_in_run(status, tile, op, lane, exclusive)) return exclusive;
  const unsigned long long whole = whole_tile(status, tile);
  // By tiles, or by runs: the run before the tile's own and the ones before it (read_run_status).
  for (long long window_end = static_cast<long long>(by_runs ? whole / status.run : whole);; window_end -= 32) {
    const long long predecessor = window_end - 32 + static_cast<long long>(lane);
    // Tiles (runs) before 0: the identity, as a prefix; -1 the carry, if the scan starts from one.
    const TileStatus<T> before_0{kPrefix, predecessor == -1 && status.carry != nullptr
                                              ? *static_cast<const T*>(status.carry)
                                              : Op::identity()};
    if (look_back_step<T>(status, op, lane, predecessor, by_runs, before_0, exclusive)) return exclusive;
  }
}

/// With tiles dealt out in runs, the reducer of the tile that ends a run publishes the run's status in
/// place of the tile's aggregate (`total`): the run's AGGREGATE, or its PREFIX if a tile of the run has
/// published one. It waits only for the run's aggregates, never for a look-back, so the runs after it
/// (on the other GPUs) pass it with one read however far behind the look-backs are.
template <class T, class Op>
__device__ __forceinline__ void publish_run_status(const TileStatusArray& status, unsigned tile, Op op, unsigned lane,
                                                   T total) {
  T before = Op::identity();
  const bool prefix = look_back_in_run(status, tile, op, lane, before);
  if (lane == 0) publish_status(status, tile, prefix ? kPrefix : kAggregate, op(before, total));
}

/// Whether a tile publishes its PREFIX once it has looked back: those numbered k * (prefix_mask + 1) (a
/// test knob; 0: all), and always a tile whose status stands for its run (its run's PREFIX).
__device__ __forceinline__ bool publishes_prefix(const TileStatusArray& status, unsigned tile, unsigned prefix_mask) {
  return (tile & prefix_mask) == 0 || ends_run(status, tile);
}


// ---- the ring: what the roles share ---------------------------------------------------------------

/// The shared-memory words of a block's ring of `Stages` stages (the one-tile shape, Stages 0: one
/// of each, unused): the stage barriers, the values the roles hand each other, and which tile each
/// stage holds.
template <int Stages>
struct RingWords {
  static constexpr int kRing = Stages == 0 ? 1 : Stages;
  /// The look-back warp has the prefix of round r's tile in prefixed[r % kPrefixRing]. Twice the
  /// ring, because the consumers hand a stage back before they take its prefix: the look-back warp may
  /// then be a whole ring of rounds ahead, but not two (that needs the stage of the round after this).
  static constexpr int kPrefixRing = 2 * kRing;
  unsigned long long full[kRing];     ///< a tile has arrived in the stage
  unsigned long long reduced[kRing];  ///< the reducer has published the tile's aggregate
  unsigned long long empty[kRing];    ///< every consumer warp (and the look-back warp) is done with it
  unsigned long long prefixed[kPrefixRing];      ///< the look-back warp has the tile's prefix
  unsigned long long stage_aggregate[kRing];     ///< the tile's aggregate (reducer -> look-back warp)
  unsigned long long prefix_value[kPrefixRing];  ///< the tile's exclusive prefix (-> consumers)
  /// Which tile is in a stage (>= tiles: stop; kSkipStage: a wrong guess). Written and read with
  /// atomics: racecheck does not take the mbarriers as ordering ordinary shared-memory accesses.
  unsigned stage_tile[kRing];
};

/// One warp's view of its block's ring: stages of TileChunks 16-byte chunks (dynamic shared memory)
/// and their words, the input x[0..n) in `tiles` tiles, and what every warp works out for itself
/// about a tile. The kernels built on it (persistent_scan_kernel, 11.9's persistent select) give a
/// block's warps roles: the producer (run_producer), the reducer (run_reducer), the look-back warp
/// (run_look_back_warp) and the kernel's own CONSUMER warps, which take each tile out of its stage.
template <class T, int TileChunks, int Stages>
struct TileRing {
  static constexpr int kRing = RingWords<Stages>::kRing;
  static constexpr int kPrefixRing = RingWords<Stages>::kPrefixRing;
  static constexpr int E = Chunk<T>::kElements;
  static constexpr std::size_t kTile = static_cast<std::size_t>(TileChunks) * E;

  RingWords<Stages>* words;
  Chunk<T>* stages;
  const T* x;
  std::size_t n;
  unsigned tiles;
  unsigned lane;
  bool x_aligned;
  Trace trace;

  __device__ TileRing(RingWords<Stages>* words_, Chunk<T>* stages_, const T* x_, std::size_t n_, unsigned tiles_,
                      unsigned lane_, Trace trace_)
      : words(words_), stages(stages_), x(x_), n(n_), tiles(tiles_), lane(lane_),
        x_aligned(reinterpret_cast<std::uintptr_t>(x_) % 16 == 0), trace(trace_) {}

  /// Stage s's chunks.
  __device__ Chunk<T>* stage(unsigned s) const { return stages + static_cast<std::size_t>(s) * TileChunks; }

  /// Thread 0, before the block's first barrier: every stage barrier expects one arrival (the
  /// producer's, the reducer's, the look-back warp's), `empty` one from each of `consumers` (lane 0 of
  /// each consumer warp, and of the look-back warp if there is one).
  __device__ void init_barriers(unsigned consumers, bool look_back_warp) const {
    for (int s = 0; s < Stages; ++s) {  // (none for the one-tile shape)
      barrier_init(&words->full[s], 1);  // (plus the copy's bytes)
      barrier_init(&words->reduced[s], 1);
      barrier_init(&words->empty[s], consumers);
    }
    if (look_back_warp) {
      for (int r = 0; r < 2 * Stages; ++r) barrier_init(&words->prefixed[r], 1);
    }
  }

  /// How many 16-byte chunks of tile t the producer copies into its stage: all of them, but for the
  /// last tile (the whole chunks below n) and a misaligned x (none).
  __device__ unsigned copied_chunks(unsigned t) const {
    if (!x_aligned) return 0;
    return static_cast<unsigned>(
        std::min<std::size_t>(TileChunks, (n - static_cast<std::size_t>(t) * kTile) / E));
  }

  /// Starts copying tile t into stage s: one bulk copy on sm_90 (lane 0), else ordinary copies by
  /// `lanes` lanes (the producer warp, or thread 0 alone). Only bulk copies write the stages on sm_90.
  /// The producer's arrival on full[s] completes the phase once the bytes have landed too.
  __device__ void start_copy(unsigned t, unsigned s, unsigned lanes) const {
    const unsigned count = copied_chunks(t);
    SCANLAB_TRACE(t, kCopyStarted);
    if (count == 0) return;
    const T* src = x + static_cast<std::size_t>(t) * kTile;
    Chunk<T>* dst = stage(s);
#if defined(SCANLAB_PIPELINE_TMA)
    (void)lanes;
    if (lane == 0) {
      barrier_expect_tx(&words->full[s], count * 16u);
      bulk_load(dst, src, count * 16u, &words->full[s]);
    }
#else
    for (unsigned c = lane; c < count; c += lanes) dst[c] = load_chunk(src + static_cast<std::size_t>(c) * E);
    if (lanes == 32) __syncwarp();
#endif
  }

  /// The tile in stage s (lane 0 reads it, the warp gets it).
  __device__ unsigned tile_number(unsigned s) const {
    unsigned tile = 0;
    if (lane == 0) tile = atomicAdd(&words->stage_tile[s], 0u);
    return __shfl_sync(kFullWarp, tile, 0);
  }

  /// Consumers, with the look-back warp: wait until it is done with round `round`. Every round,
  /// a skipped stage's too: the look-back warp completes a phase of `prefixed` each round, and a phase
  /// nobody waits for is an error to compute-sanitizer synccheck ("missing wait").
  __device__ void wait_prefixed(unsigned round) const {
    barrier_wait(&words->prefixed[round % kPrefixRing], (round / kPrefixRing) & 1u);
  }

  /// Consumers, with the look-back warp: round `round`'s exclusive prefix (of type A), in every lane.
  template <class A>
  __device__ A take_prefix(unsigned round) const {
    wait_prefixed(round);
    return shared_value<A>(&words->prefix_value[round % kPrefixRing], lane);
  }

  /// Chunk c of a tile whose first `count` chunks are in `stage`: from there, else from x (elements
  /// past n: `fill`).
  __device__ Chunk<T> chunk_at(const Chunk<T>* stage_chunks, unsigned tile, unsigned count, int c, T fill) const {
    if (static_cast<unsigned>(c) < count) return stage_chunks[c];
    Chunk<T> chunk;
    const std::size_t i0 = static_cast<std::size_t>(tile) * kTile + static_cast<std::size_t>(c) * E;
    for (int e = 0; e < E; ++e) chunk.v[e] = i0 + e < n ? x[i0 + e] : fill;
    return chunk;
  }
};

/// The PRODUCER warp: tickets and copies, up to Stages tiles ahead of the consumers. Every block stops
/// at its first ticket >= tiles, so a launch hands out tiles + gridDim.x tickets (take_ticket rewinds
/// the counter at the last one). Lane 0 takes the tickets; the warp gets the tile (tiles: stop).
/// Round 0: `first_ticket` (lane 0's, taken before the block's barrier) and the copy of the guessed
/// tile blockIdx.x into stage 0 (thread 0's, started then) are under way. A wrong guess marks the stage
/// kSkipStage (the other warps just hand it back) and the ticket's tile goes to the next stage.
template <class Ring>
__device__ __forceinline__ void run_producer(const Ring& ring, const TileStatusArray& status,
                                             unsigned long long first_ticket) {
  const unsigned lane = ring.lane;
  [[maybe_unused]] const Trace trace = ring.trace;
  auto& w = *ring.words;
  const unsigned tiles = ring.tiles;
  const auto ticket_tile = [&](unsigned long long ticket) {
    const unsigned tile = ticket < tiles ? static_cast<unsigned>(ticket) : tiles;
    return __shfl_sync(kFullWarp, tile, 0);
  };
  const auto take_next_ticket = [&] { return ticket_tile(lane == 0 ? take_ticket(status, tiles + gridDim.x) : 0ull); };
  const auto publish_stage = [&](unsigned s, unsigned tile) {
    if (tile < tiles) SCANLAB_TRACE(tile, kTicketed);
    if (lane == 0) {
      atomicExch(&w.stage_tile[s], tile);
      barrier_arrive(&w.full[s]);
    }
  };
  unsigned tile = tiles;
  bool have_ticket = false;
  for (unsigned round = 0;; ++round) {
    const unsigned s = round % Ring::kRing;
    barrier_wait(&w.empty[s], ((round / Ring::kRing) & 1u) ^ 1u);  // its previous tile was read
    if (round == 0 && blockIdx.x < tiles) {
      tile = ticket_tile(first_ticket);
      if (tile == blockIdx.x) {
        publish_stage(s, tile);
      } else {
        publish_stage(s, kSkipStage);
        have_ticket = true;
      }
      continue;
    }
    if (!have_ticket) tile = round == 0 ? ticket_tile(first_ticket) : take_next_ticket();
    have_ticket = false;
    if (tile >= tiles) {
      publish_stage(s, tiles);  // tells the other warps to stop
      return;
    }
    ring.start_copy(tile, s, 32);
    publish_stage(s, tile);
  }
}

/// The REDUCER warp: publishes each tile's aggregate as soon as the tile has arrived (tile 0's as its
/// PREFIX), not only when the consumers get to it: they may be waiting for an earlier tile's
/// look-back, and later tiles' look-backs need this aggregate. Without this warp, every tile queued in
/// a ring would hold up the look-backs of the tiles after it. `tile_total(stage, tile, count)` is the
/// tile's aggregate, of type A, in every lane (`count`: the chunks in the stage, as chunk_at). With
/// `Share`, the aggregate also goes to the look-back warp. With tiles dealt out in runs, the tile that ends
/// a run publishes its run's status instead (publish_run_status, under `op`).
template <class A, bool Share, class Ring, class TileTotal, class Op>
__device__ __forceinline__ void run_reducer(const Ring& ring, const TileStatusArray& status, TileTotal tile_total,
                                            Op op) {
  const unsigned lane = ring.lane;
  [[maybe_unused]] const Trace trace = ring.trace;
  auto& w = *ring.words;
  for (unsigned round = 0;; ++round) {
    const unsigned s = round % Ring::kRing;
    barrier_wait(&w.full[s], (round / Ring::kRing) & 1u);
    const unsigned tile = ring.tile_number(s);
    if (tile < ring.tiles) {
      SCANLAB_TRACE(tile, kLanded);
      const A total = tile_total(ring.stage(s), tile, ring.copied_chunks(tile));
      if (lane == 0) {
        // Tile 0's aggregate is the PREFIX, unless the scan starts from a carry (then tile 0 looks back).
        if (!ends_run(status, tile)) publish_status(status, tile, starts_scan(status, tile) ? kPrefix : kAggregate, total);
        if constexpr (Share) share_value(&w.stage_aggregate[s], total);
      }
      if (ends_run(status, tile)) publish_run_status(status, tile, op, lane, total);
      SCANLAB_TRACE(tile, kAggregatePublished);
    }
    __syncwarp();
    if (lane == 0) barrier_arrive(&w.reduced[s]);
    if (tile >= ring.tiles && tile != kSkipStage) return;
  }
}

/// The LOOK-BACK warp: each tile's exclusive prefix (of type A, under op), as soon as the reducer has
/// published the tile's aggregate; not when the consumers get to the tile: a look-back is a round trip
/// to L2 or more, which the consumers would otherwise wait out for every tile. The stage goes back once
/// the tile number and the aggregate are read; the prefix goes to the consumers through prefix_value
/// and `prefixed`. Only tiles numbered k * (prefix_mask + 1) publish their PREFIX (a test knob; 0: all).
template <class A, class Op, class Ring>
__device__ __forceinline__ void run_look_back_warp(const Ring& ring, const TileStatusArray& status, Op op,
                                                   unsigned prefix_mask) {
  const unsigned lane = ring.lane;
  [[maybe_unused]] const Trace trace = ring.trace;
  auto& w = *ring.words;
  for (unsigned round = 0;; ++round) {
    const unsigned s = round % Ring::kRing;
    barrier_wait(&w.reduced[s], (round / Ring::kRing) & 1u);
    const unsigned tile = ring.tile_number(s);
    const A aggregate = tile < ring.tiles ? shared_value<A>(&w.stage_aggregate[s], lane) : Op::identity();
    __syncwarp();
    if (lane == 0) barrier_arrive(&w.empty[s]);
    if (tile >= ring.tiles && tile != kSkipStage) return;
    if (tile != kSkipStage) {
      SCANLAB_TRACE(tile, kLookBackStart);
      A prefix = Op::identity();
      if (!starts_scan(status, tile)) {
        prefix = look_back<A>(status, tile, op, lane);
        if (lane == 0 && publishes_prefix(status, tile, prefix_mask)) {
          publish_status(status, tile, kPrefix, op(prefix, aggregate));
        }
      }
      if (lane == 0) share_value(&w.prefix_value[round % Ring::kPrefixRing], prefix);
      SCANLAB_TRACE(tile, kPrefixPublished);
    }
    __syncwarp();
    if (lane == 0) barrier_arrive(&w.prefixed[round % Ring::kPrefixRing]);  // (a skipped stage too: one phase a round)
  }
}

}  // namespace lookback::pipeline

/// Warps of a block of persistent_scan_kernel: the scan warps, the reducer, the look-back warp if
/// there is one, the producer.
template <int Warps, bool LookBackWarp>
constexpr int persistent_scan_block_warps() {
  return Warps + (LookBackWarp ? 3 : 2);
}

/// Dynamic shared memory of persistent_scan_kernel: kStages tiles, plus one tile of exchange space
/// (the scan warps' transposes).
template <int Warps, int Items, int Stages, class T>
constexpr std::size_t persistent_scan_shared_bytes() {
  return static_cast<std::size_t>(Stages + 1) * Warps * 32 * Items * sizeof(T);
}

/// The persistent, warp-specialized scan: a grid of resident blocks of persistent_scan_block_warps()
/// warps, each block scanning tiles of 32 * Warps * Items elements until the ticket counter runs past
/// `tiles`.
/// Parameters as decoupled_lookback_scan_kernel's; `tiles` = ceil(n / tile). Dynamic shared memory:
/// persistent_scan_shared_bytes<Warps, Items, Stages, T>().
/// Stages == 0: the one-tile shape (tiles == 1, one block), no pipeline at all. The scan warps load
/// the tile from x themselves (16-byte loads, all in flight at once), scan it and store it; the
/// producer, the reducer and the look-back warp have nothing to do, no ticket is taken and no status
/// published. A small scan then costs one load latency and one store, as a copy does, instead of a
/// chain of handovers.
/// (A compile-time choice: the run-time test alone made the compiler give the large shape 152
/// registers instead of 64.)
template <int Warps, int Items, int Stages, bool LookBackWarp, class T, class Op>
__global__ void __launch_bounds__((Warps + (LookBackWarp ? 3 : 2)) * 32)  // persistent_scan_block_warps()
    persistent_scan_kernel(const T* x, T* y, std::size_t n, Op op, bool exclusive, lookback::TileStatusArray status,
                           unsigned tiles, unsigned prefix_mask) {
  namespace lb = lookback;
  namespace pl = lookback::pipeline;
  constexpr int E = lb::Chunk<T>::kElements;
  constexpr int kSliceChunks = 32 * Items / E;            // one warp's part of a tile
  constexpr int kTileChunks = Warps * kSliceChunks;
  constexpr std::size_t kTile = static_cast<std::size_t>(kTileChunks) * E;
  static_assert(Items % E == 0, "items per thread must fill whole 16-byte chunks");
  static_assert(Stages >= 0 && Stages <= 16, "0 (one tile) to 16 stages");
  constexpr bool one_tile = Stages == 0;
  constexpr int kRing = one_tile ? 1 : Stages;  // (arrays of the one-tile shape: one, unused)
  static_assert(!(one_tile && LookBackWarp), "one tile has no look-back");
  constexpr int kLookBackWarp = Warps + 1;  // (with LookBackWarp)
  constexpr int kProducerWarp = persistent_scan_block_warps<Warps, LookBackWarp>() - 1;

  using Ring = pl::TileRing<T, kTileChunks, Stages>;
  lb::Chunk<T>* stage_data = scanlab::dynamic_shared<lb::Chunk<T>>();  // Stages tiles
  lb::Chunk<T>* exchange = stage_data + Stages * kTileChunks;         // one slice per scan warp
  __shared__ pl::RingWords<Stages> words;
  __shared__ unsigned long long scan_barrier;  // emulated named barrier (no TMA)
  // Each warp's total, in alternate halves by round: a warp that runs ahead into the next round must
  // not overwrite a total that a slower warp is still reading (they meet at one barrier a round).
  __shared__ T warp_totals[2 * Warps];
  __shared__ T tile_exclusive;  // (scan warp 0's look-back)
  scanlab::trace_shared("warp_totals", warp_totals, 2 * Warps);

  SCANLAB_TRACE_BLOCK_START;
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = threadIdx.x / 32;
  constexpr int C = Items / E;  // chunks per lane of a scan warp
  const Ring ring(&words, stage_data, x, n, tiles, lane, trace);
  const bool x_aligned = ring.x_aligned;

  // Everything that waits on memory leaves first, before the block's one barrier: a scan's first
  // microseconds are otherwise spent fetching the kernel's code (an emptied L2 holds none of it) with
  // no load in flight. The producer takes its first ticket (it uses it after the barrier); thread 0,
  // once it has set up the barriers, starts copying tile blockIdx.x, the producer's guess for its
  // first ticket (blocks mostly start in order); one tile: the scan warps load it.
  unsigned long long first_ticket = 0;
  if (!one_tile && warp == kProducerWarp && lane == 0) first_ticket = lb::take_ticket(status, tiles + gridDim.x);
  lb::Chunk<T> first_chunks[C];
  if constexpr (one_tile) {
    if (warp < Warps) {  // this warp's part of the tile, straight from x
      const std::size_t first = static_cast<std::size_t>(warp) * 32 * Items;
      lb::load_warp_striped<Items>(x, first, n, x_aligned && first + 32 * Items <= n, Op::identity(), lane,
                                   first_chunks);
    }
  }
  if (threadIdx.x == 0) {
    ring.init_barriers(Warps + (LookBackWarp ? 1 : 0), LookBackWarp);
    pl::barrier_init(&scan_barrier, Warps * 32);
    if constexpr (!one_tile) {  // (one tile: no mbarrier, so no fence)
      pl::barrier_init_fence();
      if (blockIdx.x < tiles) ring.start_copy(blockIdx.x, 0, 1);  // (stage 0 is free)
    }
  }
  __syncthreads();  // the last block-wide barrier: from here on the roles run apart

  const auto chunk_at = [&](const lb::Chunk<T>* stage, unsigned tile, unsigned count, int c) {
    return ring.chunk_at(stage, tile, count, c, Op::identity());
  };

  if (warp >= Warps && one_tile) return;  // no producer, reducer or look-back for one tile

  if (warp == kProducerWarp) {
    pl::run_producer(ring, status, first_ticket);
    return;
  }

  if (warp == Warps) {
    // ---- reducer (pl::run_reducer): the tile's aggregate -----------------------------------------
    // Lane l reads chunks l, 32 + l, 64 + l, ... (rows of 32 chunks: conflict-free 16-byte reads).
    // A commutative operator combines each lane's column and then the 32 lanes once; `last` (not
    // commutative) needs the elements in order, so it combines row by row, each row in lane order.
    constexpr bool kCommutative = Op::kind != scanlab::OpKind::last;
    const auto tile_total = [&](const lb::Chunk<T>* src, unsigned tile, unsigned count) {
      T total = Op::identity();
      const auto combine = [&](const lb::Chunk<T>& c, T v) {
        SCANLAB_UNROLL for (int e = 0; e < E; ++e) v = op(v, c.v[e]);
        return v;
      };
      const auto add_row = [&](const lb::Chunk<T>& c) {
        const T v = combine(c, Op::identity());
        total = op(total, __shfl_sync(lb::kFullWarp, lb::warp_reduce_in_order(v, op, lane), 0));
      };
      if constexpr (kCommutative) {
        T v = Op::identity();
        if (count == kTileChunks) {  // (the branch outside the loops: the common case stays lean)
          SCANLAB_UNROLL for (int row = 0; row < kTileChunks / 32; ++row) v = combine(src[row * 32 + lane], v);
        } else {
          // Only the rows that hold elements below n.
          const std::size_t rest = n - static_cast<std::size_t>(tile) * kTile;
          const int rows = static_cast<int>(std::min<std::size_t>(kTileChunks / 32, (rest + 32 * E - 1) / (32 * E)));
          for (int row = 0; row < rows; ++row) v = combine(chunk_at(src, tile, count, row * 32 + lane), v);
        }
        total = __shfl_sync(lb::kFullWarp, lb::warp_reduce_in_order(v, op, lane), 0);
      } else {
#if defined(SCANLAB_BACKEND_CPU)
        // The emulator: lane l combines its own run of consecutive chunks, then one in-order warp
        // reduction (the same result; far fewer warp rendezvous, which cost the emulator most). On
        // a GPU such runs would read shared memory with 8-way bank conflicts, hence the rows.
        (void)add_row;
        constexpr int kRun = kTileChunks / 32;
        T v = Op::identity();
        for (int j = 0; j < kRun; ++j) v = combine(chunk_at(src, tile, count, static_cast<int>(lane) * kRun + j), v);
        total = __shfl_sync(lb::kFullWarp, lb::warp_reduce_in_order(v, op, lane), 0);
#else
        if (count == kTileChunks) {
          SCANLAB_UNROLL for (int row = 0; row < kTileChunks / 32; ++row) add_row(src[row * 32 + lane]);
        } else {
          for (int row = 0; row < kTileChunks / 32; ++row) add_row(chunk_at(src, tile, count, row * 32 + lane));
        }
#endif
      }
      return total;
    };
    pl::run_reducer<T, LookBackWarp>(ring, status, tile_total, op);
    return;
  }

  if (LookBackWarp && warp == kLookBackWarp) {
    pl::run_look_back_warp<T>(ring, status, op, prefix_mask);
    return;
  }

  // ---- scan warps -----------------------------------------------------------------------------------
  const bool aligned = reinterpret_cast<std::uintptr_t>(y) % 16 == 0;
  lb::Chunk<T>* slice = exchange + warp * kSliceChunks;
  unsigned sync_parity = 0;
  for (unsigned round = 0;; ++round) {
    const unsigned s = round % kRing;
    const unsigned parity = (round / kRing) & 1u;
    if (one_tile && round == 1) return;
    if (!one_tile) pl::barrier_wait(&words.full[s], parity);
    const unsigned tile = one_tile ? 0 : ring.tile_number(s);
    if (tile == pl::kSkipStage) {  // hand the stage back (without the look-back warp: warp 0 once the
                                   // reducer is done with it too)
      if (!LookBackWarp && warp == 0) pl::barrier_wait(&words.reduced[s], parity);
      __syncwarp();
      if (lane == 0) pl::barrier_arrive(&words.empty[s]);
      if constexpr (LookBackWarp) ring.wait_prefixed(round);
      continue;
    }
    if (tile >= tiles) return;
    if (warp == 0) SCANLAB_TRACE(tile, pl::kScanStart);

    // 1. Read this warp's part of the tile out of the stage, striped (conflict-free 16-byte reads),
    //    and give the stage back to the producer at once; transpose in the warp's own slice.
    lb::Chunk<T> chunks[C];
    const lb::Chunk<T>* src = stage_data + s * kTileChunks;
    const int k0 = static_cast<int>(warp) * kSliceChunks + static_cast<int>(lane);
    const unsigned count = one_tile ? 0 : ring.copied_chunks(tile);
    if constexpr (one_tile) {  // loaded at the kernel's start
      SCANLAB_UNROLL for (int v = 0; v < C; ++v) chunks[v] = first_chunks[v];
    } else if (count == kTileChunks) {
      SCANLAB_UNROLL for (int v = 0; v < C; ++v) chunks[v] = src[k0 + v * 32];
    } else {
      SCANLAB_UNROLL for (int v = 0; v < C; ++v) chunks[v] = chunk_at(src, tile, count, k0 + v * 32);
    }
    __syncwarp();
    // Without the look-back warp, warp 0 hands the stage back only after the reducer is done with it
    // (step 3), so that it waits on each phase of `reduced` while that phase is the latest.
    if (lane == 0 && !one_tile && (LookBackWarp || warp != 0)) pl::barrier_arrive(&words.empty[s]);
    T items[Items];
    lb::striped_to_blocked<Items>(chunks, slice, lane, items);

    // 2. Block scan of the tile (as in decoupled_lookback.cuh), among the scan warps only.
    T thread_total = items[0];
    SCANLAB_UNROLL for (int i = 1; i < Items; ++i) thread_total = op(thread_total, items[i]);
    const T warp_inclusive = lb::warp_inclusive_scan(thread_total, op, lane);
    const T lower_lane = __shfl_up_sync(lb::kFullWarp, warp_inclusive, 1);
    T* const totals = warp_totals + (round & 1u) * Warps;
    if (lane == 31) totals[warp] = warp_inclusive;
    pl::scan_warps_sync(Warps * 32, &scan_barrier, sync_parity);
    T tile_aggregate = totals[0];
    T warp_prefix = Op::identity();
    SCANLAB_UNROLL for (int w = 1; w < Warps; ++w) {
      if (w == static_cast<int>(warp)) warp_prefix = tile_aggregate;
      tile_aggregate = op(tile_aggregate, totals[w]);
    }

    // 3. The tile's exclusive prefix.
    T prefix = Op::identity();
    if constexpr (LookBackWarp) {
      // From the look-back warp, which has mostly found it while the tile waited in the ring.
      (void)tile_aggregate;
      prefix = ring.template take_prefix<T>(round);
    } else {
      // Warp 0 looks back (the reducer has published the aggregate, and tile 0's prefix), publishes
      // the prefix; the other scan warps wait for it at the barrier.
      if (warp == 0) {
        if (!one_tile) {
          pl::barrier_wait(&words.reduced[s], parity);  // the aggregate is out: our prefix must come after it
          if (lane == 0) pl::barrier_arrive(&words.empty[s]);
        }
        SCANLAB_TRACE(tile, pl::kLookBackStart);
        if (!lb::starts_scan(status, tile)) {  // (with a carry, tile 0 looks back to it)
          prefix = pl::look_back<T>(status, tile, op, lane);
          if (lane == 0 && pl::publishes_prefix(status, tile, prefix_mask)) {
            lb::publish_status(status, tile, lb::kPrefix, op(prefix, tile_aggregate));
          }
        }
        if (lane == 0) tile_exclusive = prefix;
        SCANLAB_TRACE(tile, pl::kPrefixPublished);
      }
      pl::scan_warps_sync(Warps * 32, &scan_barrier, sync_parity);
      prefix = tile_exclusive;
    }

    // 4. Each thread's items scanned after its exclusive prefix, the tile stored (16-byte stores).
    lb::scan_thread_items(items, prefix, warp_prefix, lower_lane, lane, op, exclusive);
    const std::size_t first = static_cast<std::size_t>(tile) * kTile + warp * 32 * Items;
    const bool vector_ok = aligned && first + 32 * Items <= n;  // this warp's part of the tile is whole
    lb::store_warp_blocked<Items>(y, first, n, vector_ok, slice, lane, items);
    if (warp == 0) SCANLAB_TRACE(tile, pl::kStored);
  }
}
