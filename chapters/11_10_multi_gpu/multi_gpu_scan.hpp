/// \file multi_gpu_scan.hpp
/// \brief Section 11.10: the host side of a scan across G GPUs, driven by one process of the host, or
/// (carry and reduce_then_scan) by one process per GPU, each holding its own piece, which NCCL joins
/// (ranks.cpp: on one host or across hosts). Each GPU holds one piece of the array and scans it with
/// section 11.8's persistent scan
/// (PieceScan: that kernel, compiled once into the section's given library); the pieces are tied
/// together by one exchange of their totals (exchange.hpp) and the kernels of multi_gpu.cuh. Two ways:
///
///   carry             scan each piece; exchange the totals; add each piece's carry to it.
///                     Reads and writes every element twice: 4n element moves.
///   reduce_then_scan  reduce each piece; exchange the totals; scan each piece starting from its carry
///                     (the carry enters 11.8's look-back as the prefix before tile 0): 3n.
///   look_back         the array dealt out in turn in runs of kLookBackRun of 11.8's tiles (run r on GPU
///                     r % G), every GPU scanning its tiles with 11.8's persistent scan at once, each tile
///                     looking back over the whole array's tile statuses, other GPUs' through peer
///                     memory: one pass, 2n, no exchange. The elements never leave their GPU; 8 or 16
///                     bytes per tile status cross NVLink.
///
/// Used by launch.cpp (both backends). You do not need to change this file.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "exchange.hpp"
#include "multi_gpu.cuh"
#include "nccl_exchange.hpp"
#include "piece_scan.hpp"  // section 11.8's scan, with its carry in
#include "scanlab/launcher.hpp"

namespace scanlab::s11_10 {

enum class Way { carry, reduce_then_scan, look_back };

/// The look_back way's runs: 11.8's tiles dealt out to a GPU one after another. A look-back that stays
/// within a run reads this GPU's statuses only; a run's last tile publishes one status for the whole
/// run, so a look-back passes a run of another GPU with one read. But GPU g's first tile of a run waits
/// for the aggregates of the run before it, so a run much longer than the tiles a GPU holds in flight
/// (132 SMs x 4 ring stages) makes the GPUs take turns. Swept on two H100s, int32, 2^24 to 2^31
/// (results/h100x2_look_back_run_*_sizes_2026-11-27.csv against h100x2_multi_gpu_run_sweep_..., whose
/// look_back is runs of 256): runs of 32 tiles are the fastest from 2^25 to 2^30. The cpu backend's
/// tests use short runs so that a few thousand elements cross the devices many times.
#if defined(SCANLAB_BACKEND_CUDA)
inline constexpr unsigned kLookBackRun = 32;
#else
inline constexpr unsigned kLookBackRun = 2;
#endif
/// How the totals cross between the GPUs: exchange_totals (copy_peer), or NCCL's all-gather.
enum class Exchange { peer, nccl };

/// The first element of piece g of n elements cut into G pieces: g * n / G. Sizes differ by at most
/// one, and a piece is empty where n < G.
inline std::size_t piece_start(std::size_t n, int g, int devices) {
  return static_cast<std::size_t>((static_cast<unsigned __int128>(n) * static_cast<unsigned>(g)) / static_cast<unsigned>(devices));
}

/// An array of n elements of T cut into pieces over the first `devices` GPUs, with what each GPU needs
/// to scan its piece as part of the whole. Makes peer access possible between every two of them.
template <class T, class Op>
class MultiGpuScan {
  static constexpr int kReduceThreads = 256;
  static constexpr int kReduceItems = sizeof(T) == 4 ? 16 : 8;
  static constexpr std::size_t kReduceTile = static_cast<std::size_t>(kReduceThreads) * kReduceItems;
  static constexpr std::size_t kMaxReduceBlocks = 1024;
  static constexpr unsigned kCarryThreads = 256;

 public:
  /// `run` (look_back): tiles per run, 0: kLookBackRun.
  MultiGpuScan(std::size_t n, int devices, Way way, bool in_place, Exchange exchange = Exchange::peer,
               unsigned run = 0)
      : n_(n), devices_(devices), pieces_(devices), way_(way), run_(run > 0 ? run : kLookBackRun) {
    if (devices < 1 || devices > device_count()) {
      throw Error("a scan across " + std::to_string(devices) + " GPUs: this machine has " +
                  std::to_string(device_count()));
    }
    for (int device = 0; device < devices_; ++device) {
      DeviceScope on(device);
      for (int peer = 0; peer < devices_; ++peer) {  // (copy_peer then goes GPU to GPU)
        if (peer != device && can_access_peer(device, peer)) {
          enable_peer_access(peer);
        } else if (peer != device && way == Way::look_back) {
          throw Error("the look-back across GPUs reads the other GPUs' tile statuses, but GPU " +
                      std::to_string(device) + " cannot access GPU " + std::to_string(peer) +
                      "'s memory (cudaDeviceCanAccessPeer): use carry or reduce_then_scan");
        }
      }
      parts_.push_back(std::make_unique<Part>(piece_size(device), devices_, in_place, device, device));
    }
    if (way_ == Way::look_back) {  // every GPU's scan looks back through every GPU's statuses
      std::vector<unsigned long long*> statuses;
      for (auto& p : parts_) statuses.push_back(p->scan.status_words());
      for (int g = 0; g < devices_; ++g) {
        DeviceScope on(g);
        parts_[g]->scan.deal(g, statuses, run_);
      }
    }
    if (exchange == Exchange::nccl) {
      own_nccl_ = std::make_unique<NcclExchange>(devices_);
      nccl_ = own_nccl_.get();
    }
  }
  /// One process per GPU: this process's piece alone, piece `rank` of `ranks`, on the current GPU; the
  /// totals cross through `ranks_exchange` (NCCL's communicator of the ranks, made once for many scans).
  MultiGpuScan(std::size_t n, int rank, int ranks, Way way, bool in_place, NcclExchange& ranks_exchange)
      : n_(n), devices_(1), pieces_(ranks), first_(rank), way_(way), run_(kLookBackRun), nccl_(&ranks_exchange) {
    if (way == Way::look_back) {
      throw Error("look_back reads the other GPUs' tile statuses through peer memory, in one process: with one "
                  "process per GPU use carry or reduce_then_scan");
    }
    parts_.push_back(std::make_unique<Part>(piece_size(0), pieces_, in_place, rank, current_device()));
  }

  int devices() const { return devices_; }
  /// Elements on this process's GPU g: its piece, or (look_back) its runs.
  std::size_t piece_size(int g) const {
    if (way_ == Way::look_back) return dealt_size(n_, g, devices_, run_);
    return piece_start(n_, first_ + g + 1, pieces_) - piece_start(n_, first_ + g, pieces_);
  }
  /// The first element of this process's GPU g's piece in the whole array (not look_back).
  std::size_t piece_first(int g) const { return piece_start(n_, first_ + g, pieces_); }
  /// Bytes of GPU memory the largest piece needs (input, output, 11.8's workspace).
  static std::size_t bytes_per_device(std::size_t n, int devices, bool in_place, Way way = Way::carry,
                                      unsigned run = 0) {
    // (GPU 0 holds the most: the first piece, or the first run)
    const std::size_t m = way == Way::look_back ? dealt_size(n, 0, devices, run > 0 ? run : kLookBackRun)
                                                : ceil_div(n, static_cast<std::size_t>(devices));
    return (in_place ? 1 : 2) * m * sizeof(T) + PieceScan<T, Op>::workspace_bytes(m);
  }

  /// Copies the host array's pieces (this process's) to their GPUs; poisons the outputs (not in place).
  void upload(const T* host) {
    for (int g = 0; g < devices_; ++g) {
      Part& p = *parts_[g];
      DeviceScope on(p.device);
      if (p.m > 0 && way_ == Way::look_back) {
        p.in.upload(runs_of(host, g).data());
      } else if (p.m > 0) {
        p.in.upload(host + piece_first(g));  // (DeviceBuffer copies all of it)
      }
      if (p.out.size() > 0) p.out.poison();
    }
  }
  /// Copies every GPU's scanned piece (this process's) into the host array.
  void download(T* host) const {
    for (int g = 0; g < devices_; ++g) {
      const Part& p = *parts_[g];
      DeviceScope on(p.device);
      if (p.m > 0 && way_ == Way::look_back) {
        std::vector<T> mine(p.m);
        p.output_buffer().download(mine.data());
        for_each_run(g, [&](std::size_t whole, std::size_t local, std::size_t count) {
          std::copy_n(mine.data() + local, count, host + whole);
        });
      } else if (p.m > 0) {
        p.output_buffer().download(host + piece_first(g));
      }
    }
  }

  /// One scan of the whole array. Queued on every GPU without blocking the host; GPU 0's stream ends
  /// after every GPU's work (so a timer on GPU 0 times all of it).
  void operator()(Op op, ScanKind kind) {
    const bool exclusive = kind == ScanKind::exclusive;
    for (int g = 1; g < devices_; ++g) wait_for_device(g, 0);  // everyone starts after GPU 0's "now"
    if (way_ == Way::look_back) {
      scan_dealt(op, kind);
      for (int g = 1; g < devices_; ++g) wait_for_device(0, g);
      return;
    }
    for (int g = 0; g < devices_; ++g) {  // 1. each GPU's piece total in its totals[piece]
      Part& p = *parts_[g];
      DeviceScope on(p.device);
      T* own_total = p.totals.data() + p.piece;
      if (way_ == Way::carry) {
        if (exclusive && p.m > 0) copy_peer(p.last_input.data(), p.device, p.in.data() + p.m - 1, p.device, 1);
        if (p.m > 0) p.scan(p.in.data(), p.out_data(), p.m, op, kind);
        launch(piece_total_kernel<T, Op>, {"piece_total_kernel", 1, 1}, p.out_data(), p.last_input.data(), p.m, op,
               exclusive, own_total);
      } else {
        reduce(p, op, own_total);
      }
    }
    std::vector<T*> totals;
    for (const auto& p : parts_) totals.push_back(p->totals.data());
    if (nccl_) {  // 2. every GPU has every total
      nccl_->all_gather(totals);
    } else {
      exchange_totals(totals);
    }
    for (int g = 0; g < devices_; ++g) {  // 3. each piece gets the totals before it
      Part& p = *parts_[g];
      DeviceScope on(p.device);
      if (p.m == 0) continue;
      if (way_ == Way::carry) {
        if (p.piece == 0) continue;  // (piece 0's carry is the identity)
        // A grid-stride loop: enough blocks to fill an H100 or H200 (132 SMs x 16 blocks of 256 threads).
        const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(ceil_div(p.m, kCarryThreads), 132 * 16));
        launch(add_carry_kernel<T, Op>, {"add_carry_kernel", blocks, kCarryThreads}, p.out_data(), p.m,
               static_cast<const T*>(p.totals.data()), p.piece, op);
      } else {
        if (p.piece > 0) {  // (piece 0 starts from the identity: 11.8's scan as it is)
          launch(carry_kernel<T, Op>, {"carry_kernel", 1, 1}, static_cast<const T*>(p.totals.data()), p.piece, op,
                 p.carry.data());
        }
        p.scan.set_carry_in(p.piece == 0 ? nullptr : p.carry.data());
        p.scan(p.in.data(), p.out_data(), p.m, op, kind);
      }
    }
    for (int g = 1; g < devices_; ++g) wait_for_device(0, g);
  }

 private:
  struct Part {
    Part(std::size_t m_, int pieces, bool in_place, int piece_, int device_)
        : piece(piece_), device(device_), m(m_), in(m_), out(in_place ? 0 : m_), totals(static_cast<std::size_t>(pieces)),
          last_input(1), carry(1),
          partials(std::min(kMaxReduceBlocks, std::max<std::size_t>(ceil_div(m_, kReduceTile), 1))), scan(m_) {}
    T* out_data() { return out.size() > 0 ? out.data() : in.data(); }
    const DeviceBuffer<T>& output_buffer() const { return out.size() > 0 ? out : in; }

    int piece, device;          // which piece of the whole array, on which GPU
    std::size_t m;              // elements of this piece
    DeviceBuffer<T> in, out;    // the piece (out empty: scanned in place)
    DeviceBuffer<T> totals;     // every piece's total, gathered here
    DeviceBuffer<T> last_input; // the piece's last element, kept for an exclusive scan's total
    DeviceBuffer<T> carry;      // reduce-then-scan: the totals before this piece, combined
    DeviceBuffer<T> partials;   // reduce-then-scan: one total per block of the first pass
    PieceScan<T, Op> scan;
  };

  /// Elements of an n-element array dealt out in runs of `run` tiles to `devices` GPUs that land on GPU g:
  /// its whole runs, and the short last run if it is g's.
  static std::size_t dealt_size(std::size_t n, int g, int devices, unsigned run) {
    const std::size_t length = PieceScan<T, Op>::dealt_tile() * run, runs = ceil_div(n, length);
    const std::size_t G = static_cast<std::size_t>(devices), mine = static_cast<std::size_t>(g);
    if (runs <= mine) return 0;
    const std::size_t count = (runs - mine + G - 1) / G;  // runs g, g + G, ...
    const bool has_last = (runs - 1) % G == mine;
    return count * length - (has_last ? runs * length - n : 0);
  }
  /// f(whole, local, count) for each of GPU g's runs: its first element in the whole array and on the GPU,
  /// and its elements.
  template <class F>
  void for_each_run(int g, F f) const {
    const std::size_t length = PieceScan<T, Op>::dealt_tile() * run_, G = static_cast<std::size_t>(devices_);
    for (std::size_t r = static_cast<std::size_t>(g), local = 0; r * length < n_; r += G, local += length) {
      f(r * length, local, std::min(length, n_ - r * length));
    }
  }
  /// GPU g's runs of the host array, one after another.
  std::vector<T> runs_of(const T* host, int g) const {
    std::vector<T> mine(parts_[g]->m);
    for_each_run(g, [&](std::size_t whole, std::size_t local, std::size_t count) {
      std::copy_n(host + whole, count, mine.data() + local);
    });
    return mine;
  }

  /// The look_back way: every GPU's persistent scan launched at once; each one's tiles wait (in its look-
  /// back) only for the tiles before them, on whichever GPU. On a GPU the launches are queued without
  /// blocking and run together. The cpu backend runs a launch to its end before it returns, and GPU 0's
  /// tiles would wait for GPU 1's forever, so there each device's launch gets a host thread of its own.
  void scan_dealt(Op op, ScanKind kind) {
    const auto scan_on = [&](int g) {
      DeviceScope on(g);
      Part& p = *parts_[g];
      if (p.m > 0) p.scan(p.in.data(), p.out_data(), p.m, op, kind);
    };
#if defined(SCANLAB_BACKEND_CUDA)
    for (int g = 0; g < devices_; ++g) scan_on(g);
#else
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(devices_));
    std::vector<std::thread> hosts;
    for (int g = 0; g < devices_; ++g) {
      hosts.emplace_back([&, g] {
        try {
          scan_on(g);
        } catch (...) {
          errors[static_cast<std::size_t>(g)] = std::current_exception();
        }
      });
    }
    for (std::thread& t : hosts) t.join();
    for (const std::exception_ptr& e : errors) {
      if (e) std::rethrow_exception(e);
    }
#endif
  }

  // The piece's total in two launches: blocks over runs of tiles, then one block over their totals.
  void reduce(Part& p, Op op, T* total) {
    const std::size_t tiles = ceil_div(p.m, kReduceTile);
    const std::size_t blocks = std::min(kMaxReduceBlocks, std::max<std::size_t>(tiles, 1));
    const std::size_t tiles_per_block = std::max<std::size_t>(ceil_div(tiles, blocks), 1);
    const std::size_t used = std::max<std::size_t>(ceil_div(tiles, tiles_per_block), 1);
    launch(reduce_kernel<kReduceThreads, kReduceItems, T, Op>,
           {"reduce_kernel", static_cast<unsigned>(used), kReduceThreads}, static_cast<const T*>(p.in.data()), p.m, op,
           tiles_per_block, p.partials.data());
    launch(reduce_kernel<kReduceThreads, kReduceItems, T, Op>, {"reduce_kernel", 1, kReduceThreads},
           static_cast<const T*>(p.partials.data()), used, op, ceil_div(used, kReduceTile), total);
  }

  std::size_t n_;
  int devices_;      // GPUs this process drives
  int pieces_;       // pieces of the whole array: devices_, or (one process per GPU) the ranks
  int first_ = 0;    // the piece of this process's first GPU
  Way way_;
  unsigned run_;
  std::vector<std::unique_ptr<Part>> parts_;
  std::unique_ptr<NcclExchange> own_nccl_;  // (Exchange::nccl, one process)
  NcclExchange* nccl_ = nullptr;            // the exchange through NCCL, if any
};

}  // namespace scanlab::s11_10
