/// \file multi_gpu_algorithms.hpp
/// \brief Section 11.10's algorithm tables (one per backend), exported by its kernel libraries, and a
/// table of test-only algorithms: each way on a fixed number of devices. (Not algorithms.hpp: 11.8's
/// chapter folder, on this section's include path, has one.)
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "scanlab/section.hpp"

SCANLAB_DECLARE_SECTION(s11_10)

namespace scanlab::s11_10 {

/// The section's algorithms, in table order: the one list of them (launch.cpp gives each its kernels
/// with with_run; the grader's checker registers its tests from this list, scanlab/remote.hpp). carry and
/// reduce_then_scan (and the given look_back) run on every GPU of the host (the cpu backend: on its modelled devices,
/// SCANLAB_EMU_DEVICES), out_of_core on the first.
inline constexpr AlgorithmInfo kAlgorithmInfo[] = {
    {"carry",
     "one piece per GPU: each GPU scans its piece (11.8's scan), the piece totals are exchanged, each GPU adds "
     "the totals before its piece; 4n element moves",
     "Sec. 11.6 one level up (beyond the book)", 0},
    {"reduce_then_scan",
     "one piece per GPU: each GPU reduces its piece, the totals are exchanged, each GPU scans its piece "
     "starting from the totals before it (11.8's scan with a carry in); 3n element moves",
     "Sec. 11.6 one level up (beyond the book)", 0},
    {"look_back",
     "the array dealt out to the GPUs in turn, in runs of tiles: every GPU scans its tiles with 11.8's persistent scan at "
     "once, each tile looking back over every GPU's tile statuses through peer memory; one pass, 2n element moves",
     "Sec. 11.8 one level up (beyond the book)", 0, /*given=*/true},
    {"out_of_core",
     "one GPU, the array in host memory: pieces of 256 MiB through three GPU buffers, each copied in, scanned "
     "from the pieces before it (11.8's scan with a carry in) and copied back, the copies overlapping the scans",
     "Sec. 11.6 in time (beyond the book)", 0},
};

/// test_algorithms' list: each way on G devices. On the cpu backend exactly G modelled devices; on
/// a GPU machine as many GPUs as it has, at most G.
inline constexpr AlgorithmInfo kTestAlgorithmInfo[] = {
    {"carry_on_3", "test only: carry across 3 devices", "beyond the book", 0},
    {"reduce_then_scan_on_3", "test only: reduce_then_scan across 3 devices", "beyond the book", 0},
    {"carry_on_1", "test only: carry on 1 device", "beyond the book", 0},
    {"carry_on_2", "test only: carry across 2 devices", "beyond the book", 0},
    {"carry_on_4", "test only: carry across 4 devices", "beyond the book", 0},
    {"reduce_then_scan_on_1", "test only: reduce_then_scan on 1 device", "beyond the book", 0},
    {"reduce_then_scan_on_2", "test only: reduce_then_scan across 2 devices", "beyond the book", 0},
    {"reduce_then_scan_on_4", "test only: reduce_then_scan across 4 devices", "beyond the book", 0},
    {"out_of_core_small_pieces", "test only: out_of_core in pieces of 1000 elements", "beyond the book", 0},
    {"carry_nccl_on_3", "test only: carry across 3 devices, the totals exchanged by NCCL's all-gather", "beyond the book", 0},
    {"reduce_then_scan_nccl_on_2", "test only: reduce_then_scan across 2 devices, the totals exchanged by NCCL",
     "beyond the book", 0},
    {"look_back_on_1", "test only: look_back on 1 device", "beyond the book", 0, /*given=*/true},
    {"look_back_on_2", "test only: look_back across 2 devices", "beyond the book", 0, /*given=*/true},
    {"look_back_on_3", "test only: look_back across 3 devices", "beyond the book", 0, /*given=*/true},
    {"look_back_on_4", "test only: look_back across 4 devices", "beyond the book", 0, /*given=*/true},
};

/// What a cuda build without NCCL says when asked for the NCCL exchange (the tests skip on it).
inline constexpr const char* kNoNccl =
    "this build has no NCCL: CMake found no nccl.h and libnccl when it was configured (install NCCL, or set "
    "NCCL_ROOT to where it is, and configure again)";

SCANLAB_EXPORT AlgorithmTable test_algorithms_cuda();
SCANLAB_EXPORT AlgorithmTable test_algorithms_cpu();

/// The bytes of an ncclUniqueId (NCCL_UNIQUE_ID_BYTES), as rank 0 hands them to the other ranks.
using RankId = std::array<char, 128>;

/// One process per GPU (ranks.cpp, the program scanlab_11_10_ranks): what one rank does. Every rank
/// is given the same whole input and scans its piece of it (piece `rank` of `ranks`, as multi_gpu_scan.hpp
/// cuts it) on its GPU, the totals joined by NCCL's all-gather over a communicator of the ranks.
struct RankScan {
  std::string way;        ///< "carry" or "reduce_then_scan"
  ScanProblem problem;
  const void* input;      ///< the whole input, host memory
  void* output;           ///< the whole output's host array: the rank writes its piece only
};
struct RankJob {
  RankId id{};                 ///< rank 0's ncclUniqueId (new_rank_id), the same on every rank
  int rank = 0, ranks = 1;
  int device = 0;              ///< this rank's GPU (the cpu backend models as many as it needs)
  int reps = 0;                ///< timed runs of each scan after one warm-up (reported when every rank's check passed)
  std::size_t scans = 0;       ///< scanned one after another over one communicator
  /// Scan s, its arrays made when it is asked for (one scan's arrays at a time on the host).
  std::function<RankScan(std::size_t s)> make_scan;
  /// Checks scan s's output from element `first` (this rank's piece) on: "" if right, else why.
  std::function<std::string(std::size_t s, std::size_t first)> check;
  /// Called on every rank after scan s with the ranks whose check failed (the same on every rank) and,
  /// when timed, each timed run's time on the slowest rank.
  std::function<void(std::size_t s, const std::vector<int>& failed_ranks, const std::vector<double>& slowest_ms)>
      done;
};
/// A new communicator id (ncclGetUniqueId), made by rank 0 and handed to every rank.
SCANLAB_EXPORT RankId new_rank_id_cuda();
SCANLAB_EXPORT RankId new_rank_id_cpu();
/// Joins the communicator (ncclCommInitRank) and runs `job`'s scans. Throws scanlab::Error.
SCANLAB_EXPORT void run_rank_cuda(const RankJob& job);
SCANLAB_EXPORT void run_rank_cpu(const RankJob& job);

}  // namespace scanlab::s11_10
