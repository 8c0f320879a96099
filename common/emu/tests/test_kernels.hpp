// The test kernels' library: plain functions the test executable calls. Each launches one kernel
// (defined in kernels_*.cpp, built like a section's kernel library) on the emulator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scanlab/emu/runtime.hpp"

#define SCANLAB_TEST_API __attribute__((visibility("default")))

namespace emu_test {

using scanlab::emu::Extent3;

/// What the tests pre-fill their outputs with, so that an element nobody wrote is seen.
constexpr int kPoisonInt = -0x5A5A5A5B;

// ---- kernels_basic.cpp ----
/// Per thread, in linear order over the grid: tid.xyz, bid.xyz, bdim.xyz, gdim.xyz, warpSize, warp.
SCANLAB_TEST_API std::vector<unsigned> builtins(Extent3 grid, Extent3 block);
/// Per block: the first 4 bytes of a __shared__ array, of a static __shared__ in a device function,
/// and of dynamic shared memory, as read before anything is written (then the kernel writes them).
SCANLAB_TEST_API std::vector<std::uint32_t> shared_before_write(unsigned blocks, unsigned threads);
/// Thread 0 of each block writes 1000 + blockIdx.x into a static __shared__ array declared in a
/// device function; after a barrier every thread reads it (`seen`) and the array's address.
SCANLAB_TEST_API void static_shared_in_device_function(unsigned blocks, unsigned threads, std::vector<int>& seen,
                                                       std::vector<std::uintptr_t>& addresses);
/// Reverses each block's slice through shared memory (needs the barrier).
SCANLAB_TEST_API std::vector<int> reverse_blocks(const std::vector<int>& in, unsigned threads);
/// Threads >= `live` exit at once; the others: {count, and, or} of predicate (tid % 3 == 0), and
/// {and} of predicate (true), each from thread 0.
SCANLAB_TEST_API std::vector<int> barrier_votes(unsigned threads, unsigned live);
/// Every atomic on every thread; see the test for the expected values.
SCANLAB_TEST_API std::vector<double> atomics(unsigned blocks, unsigned threads);
/// Thread 0 of each block takes a ticket from a watched counter, reads its watched flag and sets it
/// to 7, and adds to an unwatched word; with `watch` off nothing is watched. Returns the events.
SCANLAB_TEST_API std::vector<scanlab::emu::AtomicEvent> watched_atomics(unsigned blocks, unsigned threads, bool watch);
/// What the atomics on one block's __shared__ variables left (thread 0 copies them out after a
/// barrier). Starting values: 0, except max = -1000, min = 1000, inc_from_above = limit + 5.
struct SharedAtomicTotals {
  int add_int;              ///< atomicAdd(1) by every thread
  unsigned add_unsigned;    ///< atomicAdd(blockIdx.x + 1): each block has its own variables
  float add_float;          ///< atomicAdd(0.5f)
  double add_double;        ///< atomicAdd(0.25)
  int sub;                  ///< atomicSub(blockIdx.x + 1)
  int max;                  ///< atomicMax(3 * tid - 100)
  int min;                  ///< atomicMin(500 - 2 * tid)
  unsigned exch;            ///< atomicExch(tid + 1)
  int cas;                  ///< incremented by an atomicCAS loop
  unsigned inc;             ///< atomicInc(limit)
  unsigned inc_from_above;  ///< atomicInc(limit), starting above the limit
};
struct SharedAtomics {
  std::vector<SharedAtomicTotals> blocks;
  // Per thread (linear over the grid), the old value its atomic returned.
  std::vector<int> add_old;
  std::vector<unsigned> exch_old;
  std::vector<int> cas_old;  ///< the value its successful atomicCAS replaced
  std::vector<unsigned> inc_old;
};
/// Every thread of each block applies the atomics above to the block's __shared__ variables.
SCANLAB_TEST_API SharedAtomics shared_atomics(unsigned blocks, unsigned threads, unsigned inc_limit);
/// Per thread (linear over the grid): how often it entered the kernel (an atomicAdd at entry), and
/// how often it reached the end. Threads with tid % 3 == 1 return before the first barrier, threads
/// with tid % 5 == 2 (of the others) between the first and the second; the rest pass three.
SCANLAB_TEST_API void count_entries(unsigned blocks, unsigned threads, std::vector<unsigned>& entered,
                                    std::vector<unsigned>& finished);
/// Thread 0 spins until the last thread sets a flag; returns what thread 0 saw.
SCANLAB_TEST_API int spin_in_block(unsigned threads);
/// The linear ids of blocks in the order they started.
SCANLAB_TEST_API std::vector<unsigned> block_start_order(unsigned blocks);
/// The linear ids of threads of one block in the order they ran first.
SCANLAB_TEST_API std::vector<unsigned> thread_start_order(unsigned threads);
/// For each block: 1 if all its threads ran on one OS thread; and the scan is right.
SCANLAB_TEST_API std::vector<int> blocks_on_one_worker(unsigned blocks, unsigned threads);
SCANLAB_TEST_API void print_hello();
SCANLAB_TEST_API void launch_empty(Extent3 grid, Extent3 block);
/// A kernel whose thread `bad_thread` of block `bad_block` throws / fails an assert.
SCANLAB_TEST_API void throwing(unsigned blocks, unsigned threads, unsigned bad_block, unsigned bad_thread);
SCANLAB_TEST_API void asserting(unsigned blocks, unsigned threads, unsigned bad_block, unsigned bad_thread);
SCANLAB_TEST_API int assert_line();
/// Runs throwing() and catches its LaunchError here, in a kernel library (hidden visibility), as
/// scanlab::launch does: "caught", or what went past that catch.
SCANLAB_TEST_API std::string launch_error_caught_in_kernel_library();

// ---- kernels_scan.cpp ----
/// The book's Kogge-Stone (fig. 11.3) in one block, inclusive add; `second_barrier` false drops the
/// barrier between reading and writing (a write-after-read race).
SCANLAB_TEST_API std::vector<int> kogge_stone(const std::vector<int>& in, bool second_barrier);
/// The book's Kogge-Stone over in.size() (at most 2048) elements in one block of in.size()/2
/// threads, two elements per thread (t and t + blockDim.x); outputs nobody writes stay kPoisonInt.
SCANLAB_TEST_API std::vector<int> kogge_stone_two_per_thread(const std::vector<int>& in);
/// The book's Brent-Kung (fig. 11.4) in one block of in.size()/2 threads.
SCANLAB_TEST_API std::vector<int> brent_kung(const std::vector<int>& in);
/// Kogge-Stone with a traced shared array; `count` elements, one block, only first `written` written.
SCANLAB_TEST_API std::vector<int> traced_kogge_stone(const std::vector<int>& in, unsigned blocks);
SCANLAB_TEST_API int traced_barrier_line();
/// Calls count_op() outside a launch.
SCANLAB_TEST_API int add_outside_launch(int a, int b);
/// A domino scan: block b waits for block b-1's flag (static blockIdx.x). Returns the sums.
SCANLAB_TEST_API std::vector<int> domino(unsigned blocks, unsigned threads);
SCANLAB_TEST_API int domino_spin_line();
/// Thread 0 of block 0 spins on a volatile flag that nothing sets: no sync point at all.
SCANLAB_TEST_API void volatile_spin();

// ---- kernels_warp.cpp ----
/// Per thread: shfl idx (src = 31 - lane, width w), up (delta d), down (d), xor (lane mask m).
SCANLAB_TEST_API std::vector<int> shuffles(unsigned threads, int width, int delta, int xor_mask);
/// Same with a double and a 16-byte struct through __shfl_xor_sync.
SCANLAB_TEST_API std::vector<double> shuffle_double(unsigned threads);
SCANLAB_TEST_API std::vector<long long> shuffle_struct(unsigned threads);
/// Per thread: ballot, any, all over two disjoint half-warp groups (mask 0x0000ffff / 0xffff0000),
/// predicate lane % 3 == 0 (any/all: lane < 20).
SCANLAB_TEST_API std::vector<unsigned> votes(unsigned threads);
/// Only warp 1 shuffles (and syncwarps); warp 0 goes straight to a barrier. Returns per-thread values.
SCANLAB_TEST_API std::vector<int> only_one_warp_shuffles(unsigned threads);
/// Lanes >= `live` of each warp exit; the others report __activemask().
SCANLAB_TEST_API std::vector<unsigned> active_masks(unsigned threads, unsigned live);
/// A warp-shuffle inclusive scan per warp then across warps (one barrier), with Add<int>.
SCANLAB_TEST_API std::vector<int> warp_scan(const std::vector<int>& in);

// ---- kernels_errors.cpp ----
enum class WarpError {
  mask_leaves_out_caller,
  mask_names_exited_lane,
  lane_exits_while_waited_for,
  reads_lane_outside_mask,
  different_masks,
  different_ops,
  never_arrives_barrier,
  bad_width,
};
SCANLAB_TEST_API void warp_error(WarpError which);
SCANLAB_TEST_API void barrier_divergence();
/// Grid 2x1x2 of 4x2x2 blocks; block (1,0,1) diverges: z = 0 waits at barrier 0, z = 1 at
/// barrier 1, except thread (1,1,1) at barrier 2.
SCANLAB_TEST_API void barrier_divergence_3d();
/// Lines of the two divergent barriers, and of the warp operations in warp_error.
SCANLAB_TEST_API int divergence_line(int which);
SCANLAB_TEST_API int divergence_3d_line(int which);
SCANLAB_TEST_API int warp_error_line(WarpError which);
SCANLAB_TEST_API int deadlock_barrier_line();
SCANLAB_TEST_API void barrier_after_some_exit(std::vector<int>& out);
/// Thread `bad_thread` (linear id) of block `bad_block` (linear id) recurses far deeper than any
/// fiber stack allows; every thread waits at a barrier before and after.
SCANLAB_TEST_API void deep_recursion(Extent3 grid, Extent3 block, unsigned bad_block, unsigned bad_thread);
/// Thread 1 of one block of 32 writes through a null pointer.
SCANLAB_TEST_API void null_write();


// ---- kernels_blocks.cpp ----
/// Sec. 11.7's chain of blocks with a dynamic block index (carries[b] = the total of blocks 0..b-1 as
/// block b read it; block b's own value is b + 1, so the right carry is b (b + 1) / 2).
enum class ChainBug {
  none,
  read_before_flag,               ///< reads the predecessor's total, then waits for its flag
  static_index_read_before_flag,  ///< the same with blockIdx.x as the index
};
SCANLAB_TEST_API std::vector<int> chain(unsigned blocks, unsigned threads, ChainBug bug);
/// Where the buggy chain reads the total, and where it waits (lines of kernels_blocks.cpp).
SCANLAB_TEST_API int chain_read_line();
SCANLAB_TEST_API int chain_read_line_in_source();
SCANLAB_TEST_API int chain_wait_line();
/// Sec. 11.8's look-back (prefixes[t] = the exclusive prefix tile t found; tile t's value is t + 1).
enum class LookbackBug {
  none,
  no_wait,  ///< a predecessor's status that is not published yet is taken as 0 instead of waited for
  chained,  ///< the AGGREGATE is published only after the look-back: a chained scan, not decoupled
};
SCANLAB_TEST_API std::vector<int> lookback(unsigned blocks, unsigned threads, LookbackBug bug);

/// Dynamic shared memory of `threads` ints; thread t writes element t + offset (1: the last thread
/// writes one past the end; -1: thread 0 writes one before the start), then a barrier.
SCANLAB_TEST_API void dynamic_shared_overflow(unsigned blocks, unsigned threads, int offset);
SCANLAB_TEST_API int dynamic_overflow_barrier_line();
/// One block of `threads` threads; thread t reads element t + offset of `threads` ints of dynamic
/// shared memory, declared `extern __shared__ int XY[]` as the build rewrites it (named "XY").
SCANLAB_TEST_API void dynamic_shared_read(unsigned threads, long offset);
/// One block of `threads` threads: thread t copies x[t + read_offset] to y[t + write_offset], with x
/// and y of x_count and y_count ints between guard pages (emu::guard_array), as device buffers are.
SCANLAB_TEST_API void guarded_copy(unsigned threads, unsigned x_count, long read_offset, unsigned y_count,
                                   long write_offset);
/// Per block, the sum of a 64-int __shared__ array of which only the first 32 elements were written.
SCANLAB_TEST_API std::vector<int> unwritten_shared(unsigned blocks);
/// Which static __shared__ array static_shared_overflow writes out of: one of the arrays of a kernel
/// template instantiated for several types (`T XY[threads]`), or the first of two arrays declared in
/// one kernel (`int first[threads]; int second[threads];`).
enum class StaticArray { of_int, of_double, of_char, first_of_two };
/// Thread t writes element t + offset of a static __shared__ array of `threads` elements (1: the last
/// thread writes one past the end; `threads`: every thread does, as XY[t + blockDim.x] does; -1:
/// thread 0 writes one before the start), then a barrier. `threads` is 32 or 64.
SCANLAB_TEST_API void static_shared_overflow(unsigned blocks, unsigned threads, int offset, StaticArray array);
/// The line of the declaration of `array` in kernels_blocks.cpp, and of the barrier after the write.
SCANLAB_TEST_API int static_overflow_declaration_line(StaticArray array);
SCANLAB_TEST_API int static_overflow_barrier_line();
/// Resident blocks (run with settings().resident_blocks > 1): each block writes 100 * blockIdx.x + t
/// into a static __shared__ array, changes memory with an atomic (a point where another resident block
/// runs), and after a barrier reads its neighbour's element: seen[linear] = 100 * b + (t + 1) % threads.
/// `most_resident`: the most blocks that had started and not yet ended at one time.
SCANLAB_TEST_API std::vector<int> resident_static_shared(unsigned blocks, unsigned threads, unsigned& most_resident);

// ---- kernels_groups.cpp: cooperative groups and cuda::atomic_ref, wrong on purpose ----
/// block.sync() by threads 0-15 and cg::sync(block) by threads 16-31: barrier divergence.
SCANLAB_TEST_API void group_divergence();
/// Rank 3 of each tile of 16 exits before cg::inclusive_scan(tile, v).
SCANLAB_TEST_API void tile_lane_exits();
/// Thread 0 spins on an acquire load of a status word that stays 0.
SCANLAB_TEST_API void never_published();
/// cuda::atomic_ref::load with memory_order_release.
SCANLAB_TEST_API void release_load();
/// Block 1 writes a value and publishes it with a cuda::atomic_ref store (release, or relaxed);
/// block 0 waits with loads (acquire, or relaxed) and returns what it then reads (42).
SCANLAB_TEST_API int flag_handoff(bool relaxed);
/// Where each of the above calls (lines of kernels_groups.cpp): 0, 1 the two syncs, 2 the scan,
/// 3 the spin, 4 the load, 5 flag_handoff's read of the data.
SCANLAB_TEST_API int group_line(int which);

}  // namespace emu_test
