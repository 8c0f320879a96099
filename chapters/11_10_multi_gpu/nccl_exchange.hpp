/// \file nccl_exchange.hpp
/// \brief Section 11.10: the piece totals exchanged through NCCL instead of copy_peer: an all-gather of
/// one element per GPU (ncclAllGather(totals[g] + g, totals[g], 1, ...) on each GPU's communicator,
/// in place), the calls of every GPU in one ncclGroupStart/End, as one thread driving several GPUs
/// must. With one process per GPU (ranks.cpp), each process holds one communicator of the ranks,
/// joined with ncclCommInitRank from the id rank 0 made (ncclGetUniqueId): the same calls then run
/// across hosts. On the cpu backend the emulator's model of NCCL (scanlab/nccl.hpp) runs it. Given,
/// like 11.8's scan: you do not need to change this file.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "multi_gpu_algorithms.hpp"  // kNoNccl, RankId
#include "scanlab/launcher.hpp"
#include "scanlab/nccl.hpp"

namespace scanlab::s11_10 {

#if defined(SCANLAB_BACKEND_CPU) || defined(SCANLAB_HAVE_NCCL)

/// NCCL's name for the element type T.
template <class T>
constexpr ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<T, std::int32_t>) return ncclInt32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return ncclUint32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return ncclInt64;
  else if constexpr (std::is_same_v<T, float>) return ncclFloat32;
  else {
    static_assert(std::is_same_v<T, double>, "a type NCCL has no name for");
    return ncclFloat64;
  }
}

static_assert(sizeof(ncclUniqueId) == sizeof(RankId), "an ncclUniqueId of another size");

/// The communicators of this process: one per GPU it drives, GPU g as rank first_rank + g.
class NcclExchange {
 public:
  /// One process for every GPU: GPU g is rank g of `devices` (ncclCommInitAll).
  explicit NcclExchange(int devices) : comms_(static_cast<std::size_t>(devices)) {
    for (int g = 0; g < devices; ++g) devices_.push_back(g);
    check(ncclCommInitAll(comms_.data(), devices, nullptr), "ncclCommInitAll");
  }
  /// One process per GPU: this process is `rank` of `ranks`, on the current GPU (ncclCommInitRank;
  /// returns once every rank has joined).
  NcclExchange(const RankId& id, int rank, int ranks) : comms_(1), devices_{current_device()}, first_rank_(rank) {
    ncclUniqueId unique;
    std::memcpy(&unique, id.data(), sizeof unique);
    check(ncclCommInitRank(comms_.data(), ranks, unique, rank), "ncclCommInitRank");
  }
  NcclExchange(const NcclExchange&) = delete;
  NcclExchange& operator=(const NcclExchange&) = delete;
  ~NcclExchange() {
    for (ncclComm_t comm : comms_) ncclCommDestroy(comm);
  }

  /// exchange_totals' contract: totals[g] holds one element per rank in the memory of this process's
  /// GPU g (rank first_rank + g), its own element its piece total; afterwards every rank's array holds
  /// all the totals. Queued on each GPU's default stream. One process per GPU: totals has one array,
  /// on the current GPU.
  template <class T>
  void all_gather(const std::vector<T*>& totals) {
    check(ncclGroupStart(), "ncclGroupStart");
    ncclResult_t result = ncclSuccess;
    for (std::size_t g = 0; g < totals.size() && result == ncclSuccess; ++g) {
      const int rank = first_rank_ + static_cast<int>(g);
      DeviceScope on(devices_[g]);
      result = ncclAllGather(totals[g] + rank, totals[g], 1, nccl_type<T>(), comms_[g], {});
    }
    const ncclResult_t ended = ncclGroupEnd();
    check(result != ncclSuccess ? result : ended, "ncclAllGather");
  }

  /// One process per GPU: every rank's `values` (the same count on each), rank after rank, on every
  /// rank (whether its check passed, its times), through the GPU as the totals go.
  std::vector<double> gather_values(const std::vector<double>& values, int ranks) {
    const std::size_t count = values.size();
    std::vector<double> host(count * static_cast<std::size_t>(ranks));
    if (count == 0) return host;
    std::copy(values.begin(), values.end(), host.begin() + static_cast<std::ptrdiff_t>(count) * first_rank_);
    DeviceBuffer<double> all(host.size());
    all.upload(host.data());
    check(ncclAllGather(all.data() + count * static_cast<std::size_t>(first_rank_), all.data(), count, ncclFloat64,
                        comms_[0], {}),
          "ncclAllGather");
    synchronize();
    all.download(host.data());
    return host;
  }

 private:
  void check(ncclResult_t result, const char* call) const {
    if (result != ncclSuccess) {
      throw Error(std::string(call) + ": " + ncclGetErrorString(result) + " (" +
                  ncclGetLastError(comms_.empty() ? nullptr : comms_[0]) + ")");
    }
  }
  std::vector<ncclComm_t> comms_;
  std::vector<int> devices_;  // comms_[g]'s GPU
  int first_rank_ = 0;
};

/// A new id for a communicator across processes (ncclGetUniqueId), made by rank 0.
inline RankId new_rank_id() {
  ncclUniqueId unique;
  const ncclResult_t result = ncclGetUniqueId(&unique);
  if (result != ncclSuccess) {
    throw Error(std::string("ncclGetUniqueId: ") + ncclGetErrorString(result) + " (" + ncclGetLastError(nullptr) + ")");
  }
  RankId id;
  std::memcpy(id.data(), &unique, sizeof unique);
  return id;
}

#else

/// A cuda build without NCCL: the exchange through NCCL cannot run.
inline RankId new_rank_id() { throw Error(kNoNccl); }
class NcclExchange {
 public:
  explicit NcclExchange(int) { throw Error(kNoNccl); }
  NcclExchange(const RankId&, int, int) { throw Error(kNoNccl); }
  template <class T>
  void all_gather(const std::vector<T*>&) {}
  std::vector<double> gather_values(const std::vector<double>&, int) { return {}; }
};

#endif

}  // namespace scanlab::s11_10
