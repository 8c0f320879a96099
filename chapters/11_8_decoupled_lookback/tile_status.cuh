/// \file tile_status.cuh
/// \brief Section 11.8 (beyond the book): the status a tile publishes for its successors in the
/// decoupled look-back scan, packed so that one relaxed load reads a flag and its value together.
///
/// A tile's status says what its predecessors-to-be can use:
/// - not published (in this launch): wait;
/// - AGGREGATE: the combination of this tile's own elements;
/// - PREFIX: the inclusive prefix, everything from element 0 to the tile's last element.
///
/// **One word, no fence.** A status is one or two 64-bit words. Each word holds 32 bits of the value
/// and a 32-bit tag, `epoch << 2 | flag`. A 64-bit access is single-copy atomic, so a reader that sees
/// a flag sees the value that was written with it: no `__threadfence()` is needed between writing the
/// value and raising the flag (the classic two-variable protocol needs one, and a second load).
/// An 8-byte value takes two words, each with the same tag; on a GPU both travel in one 16-byte
/// vector access, which the PTX memory model treats as two 8-byte accesses in unspecified order. A
/// reader therefore accepts the pair only if both tags are equal: within one launch a tile writes each
/// flag once, with one value, so two words with the same tag belong to the same write (a torn read,
/// one word AGGREGATE and the other PREFIX, is simply read again).
///
/// **Epochs instead of a reset kernel.** Statuses live in a workspace that outlives a launch. Rather
/// than clear it with a second kernel before every scan (what CUB's tile-state init kernel does), the
/// host numbers its launches: the epoch. A status whose epoch is not the current launch's is stale,
/// and reads as "not published". Zeroed memory has epoch 0, which no launch uses; after 2^30 - 1
/// launches the host clears the workspace once and starts again at epoch 1.
#pragma once

#include <cstdint>
#include <cstring>

#include "scanlab/kernel.hpp"

namespace lookback {

/// The flag in the two low bits of a status tag. (0: never written since the workspace was zeroed.)
enum StatusFlag : unsigned { kNotPublished = 0, kAggregate = 1, kPrefix = 2 };

/// Epochs take the 30 high bits of a tag: 1 .. kMaxEpoch.
inline constexpr unsigned kMaxEpoch = (1u << 30) - 1;

/// 64-bit words per status: one per 32 bits of the value.
template <class T>
inline constexpr int kStatusWords = static_cast<int>(sizeof(T) / 4);

/// What a reader learns from a status: the flag (kNotPublished when stale) and the value.
template <class T>
struct TileStatus {
  unsigned flag;
  T value;
};

/// The workspace of one scan: the ticket counter that hands out tile numbers, and the statuses,
/// kStatusWords<T> words per tile (16-byte aligned for 8-byte values). `epoch` is this launch's.
/// `carry` (the persistent kernel only): null, or a value in device memory that the scan starts from,
/// the prefix before tile 0, as if a tile -1 had published it (section 11.10: a GPU's piece of an
/// array scanned after the pieces before it).
/// `devices`, `device`, `run`, `peers` (the persistent kernel only; section 11.10's look-back across GPUs):
/// the tiles of one array dealt out in turn to `devices` GPUs in runs of `run` tiles (run r of the whole
/// array on GPU r % devices, as its (r / devices)-th run); this launch scans GPU `device`'s tiles, its
/// statuses are `words`, and `peers[d]` are GPU d's (read through peer memory). One GPU: devices 1, run 1,
/// tile numbers are the array's.
inline constexpr int kMaxDealtDevices = 8;
struct TileStatusArray {
  unsigned long long* counter;
  unsigned long long* words;
  unsigned epoch;
  const void* carry = nullptr;
  unsigned devices = 1;
  unsigned device = 0;
  unsigned run = 1;
  unsigned long long* peers[kMaxDealtDevices] = {};
};

/// A tile's number in the whole array (one GPU: the same number).
SCANLAB_HD unsigned long long whole_tile(const TileStatusArray& s, unsigned tile) {
  if (s.devices == 1) return tile;
  const unsigned long long r = tile / s.run;  // this GPU's r-th run is the array's (r * devices + device)-th
  return (r * s.devices + s.device) * s.run + tile % s.run;
}

/// Whether tile `tile` starts the scan: it publishes its aggregate as its prefix and looks back at nothing
/// (the array's tile 0, unless the scan starts from a carry).
SCANLAB_HD bool starts_scan(const TileStatusArray& s, unsigned tile) {
  return whole_tile(s, tile) == 0 && s.carry == nullptr;
}

/// Whether tile `tile`'s status stands for its whole run (tiles dealt out to several GPUs in runs of more
/// than one tile, and this tile ends its run). Such a status is the run's: its AGGREGATE combines every tile
/// of the run (published by the tile's reducer once the run's other tiles have published theirs), its
/// PREFIX is everything up to the run's end. A look-back then passes an earlier run with one read, not one per tile: every other
/// run is another GPU's, and each read of it is a round trip over NVLink.
SCANLAB_HD bool ends_run(const TileStatusArray& s, unsigned tile) {
  return s.devices > 1 && s.run > 1 && tile % s.run == s.run - 1;
}

/// Packs `value` with `flag` and `epoch` into its status words.
template <class T>
SCANLAB_HD void pack_status(T value, unsigned flag, unsigned epoch, unsigned long long (&words)[kStatusWords<T>]) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "a tile status holds a 4- or 8-byte value");
  std::uint32_t bits[kStatusWords<T>];
  std::memcpy(bits, &value, sizeof(T));
  const unsigned long long tag = static_cast<unsigned long long>(epoch << 2 | flag) << 32;
  for (int k = 0; k < kStatusWords<T>; ++k) words[k] = tag | bits[k];
}

/// Unpacks status words read in launch `epoch`: kNotPublished if they are stale (another epoch),
/// never written, or torn (the words' tags differ).
template <class T>
SCANLAB_HD TileStatus<T> unpack_status(const unsigned long long (&words)[kStatusWords<T>], unsigned epoch) {
  const unsigned tag = static_cast<unsigned>(words[0] >> 32);
  std::uint32_t bits[kStatusWords<T>];
  bool consistent = (tag >> 2) == epoch;
  for (int k = 0; k < kStatusWords<T>; ++k) {
    consistent = consistent && static_cast<unsigned>(words[k] >> 32) == tag;
    bits[k] = static_cast<std::uint32_t>(words[k]);
  }
  TileStatus<T> status{consistent ? (tag & 3u) : kNotPublished, T{}};
  std::memcpy(&status.value, bits, sizeof(T));
  return status;
}

/// Writes a tile's status words. On a GPU: one relaxed (morally strong, L2-coherent) store of 8 or
/// 16 bytes. On the cpu backend: one atomic exchange per word.
template <int W>
__device__ __forceinline__ void store_status_words(unsigned long long* p, const unsigned long long (&w)[W],
                                                   bool system = false) {
  static_assert(W == 1 || W == 2, "one or two status words");
#if defined(SCANLAB_BACKEND_CUDA)
  // (system: other GPUs read it through NVLink; .gpu scope orders it only for this GPU's threads)
  if constexpr (W == 1) {
    if (system) {
      asm volatile("st.relaxed.sys.u64 [%0], %1;" ::"l"(p), "l"(w[0]) : "memory");
    } else {
      asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(p), "l"(w[0]) : "memory");
    }
  } else {
    if (system) {
      asm volatile("st.relaxed.sys.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(w[0]), "l"(w[1]) : "memory");
    } else {
      asm volatile("st.relaxed.gpu.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(w[0]), "l"(w[1]) : "memory");
    }
  }
#else
  (void)system;
  for (int k = 0; k < W; ++k) atomicExch(p + k, w[k]);
#endif
}

/// Reads a tile's status words. On a GPU: one relaxed load of 8 or 16 bytes, served by L2 (never a
/// stale L1 line). On the cpu backend: an atomic read per word (`atomicAdd(p, 0)`), which is a point
/// where the emulator's scheduler can run other threads, so a loop that waits on it makes progress.
template <int W>
__device__ __forceinline__ void load_status_words(const unsigned long long* p, unsigned long long (&w)[W],
                                                  bool system = false) {
  static_assert(W == 1 || W == 2, "one or two status words");
#if defined(SCANLAB_BACKEND_CUDA)
  if constexpr (W == 1) {
    if (system) {
      asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(w[0]) : "l"(p) : "memory");
    } else {
      asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(w[0]) : "l"(p) : "memory");
    }
  } else {
    if (system) {
      asm volatile("ld.relaxed.sys.v2.u64 {%0, %1}, [%2];" : "=l"(w[0]), "=l"(w[1]) : "l"(p) : "memory");
    } else {
      asm volatile("ld.relaxed.gpu.v2.u64 {%0, %1}, [%2];" : "=l"(w[0]), "=l"(w[1]) : "l"(p) : "memory");
    }
  }
#else
  (void)system;
  for (int k = 0; k < W; ++k) w[k] = atomicAdd(const_cast<unsigned long long*>(p + k), 0ull);
#endif
}

/// Publishes tile `tile`'s status for this launch.
template <class T>
__device__ __forceinline__ void publish_status(const TileStatusArray& s, unsigned tile, unsigned flag, T value) {
  unsigned long long words[kStatusWords<T>];
  pack_status(value, flag, s.epoch, words);
  store_status_words(s.words + static_cast<std::size_t>(tile) * kStatusWords<T>, words, s.devices > 1);
}

/// Reads tile `tile`'s status as this launch sees it (kNotPublished if not yet written in this launch).
template <class T>
__device__ __forceinline__ TileStatus<T> read_status(const TileStatusArray& s, unsigned tile) {
  unsigned long long words[kStatusWords<T>];
  load_status_words(s.words + static_cast<std::size_t>(tile) * kStatusWords<T>, words);
  return unpack_status<T>(words, s.epoch);
}

/// Reads the status of tile `whole` of the whole array: this GPU's own, or, with tiles dealt out to several
/// GPUs, another GPU's through peer memory.
template <class T>
__device__ __forceinline__ TileStatus<T> read_whole_status(const TileStatusArray& s, unsigned long long whole) {
  if (s.devices == 1) return read_status<T>(s, static_cast<unsigned>(whole));
  unsigned long long words[kStatusWords<T>];
  const unsigned long long r = whole / s.run;  // the array's r-th run: GPU r % devices's (r / devices)-th
  const unsigned long long* owner = s.peers[r % s.devices];
  load_status_words(owner + ((r / s.devices) * s.run + whole % s.run) * kStatusWords<T>, words, true);
  return unpack_status<T>(words, s.epoch);
}

/// Reads the status of run `run` of the whole array (ends_run): its last tile's, where it lives.
template <class T>
__device__ __forceinline__ TileStatus<T> read_run_status(const TileStatusArray& s, unsigned long long run) {
  return read_whole_status<T>(s, (run + 1) * s.run - 1);
}

/// Takes the next ticket of this launch (one thread): tickets are handed out in the order they are
/// asked for, so every smaller ticket went to a block that has started and will publish its status
/// (no deadlock, whatever order the hardware starts blocks in). The launch hands out `tickets`
/// tickets in all; whoever takes the last one rewinds the counter to 0, ready for the next launch
/// (no reset kernel: every ticket of this launch has been taken by then).
__device__ __forceinline__ unsigned long long take_ticket(const TileStatusArray& s, unsigned long long tickets) {
  const unsigned long long ticket = atomicAdd(s.counter, 1ull);
  if (ticket == tickets - 1ull) atomicExch(s.counter, 0ull);
  return ticket;
}

/// The tile of a block that scans one tile per launch (gridDim.x tiles, gridDim.x tickets), in every
/// thread: thread 0 takes the ticket, a barrier hands it to the block through `shared_tile` (a
/// __shared__ variable of the block).
__device__ __forceinline__ unsigned take_block_tile(const TileStatusArray& s, unsigned* shared_tile) {
  if (threadIdx.x == 0) *shared_tile = static_cast<unsigned>(take_ticket(s, gridDim.x));
  __syncthreads();
  return *shared_tile;
}

/// 64-bit words of workspace for `tiles` tiles: the counter, one word of padding (so the statuses
/// start 16-byte aligned), then the statuses.
template <class T>
constexpr std::size_t workspace_words(std::size_t tiles) {
  return 2 + tiles * kStatusWords<T>;
}

}  // namespace lookback
