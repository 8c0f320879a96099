/// \file nccl_exchange.hpp
/// \brief Section 11.10: the piece totals exchanged through NCCL instead of copy_peer: an all-gather of
/// one element per GPU (ncclAllGather(totals[g] + g, totals[g], 1, ...) on each GPU's communicator,
/// in place), the calls of every GPU in one ncclGroupStart/End, as one thread driving several GPUs
/// must. The same code, with a communicator per process, runs across hosts. On the cpu backend the
/// emulator's model of NCCL (scanlab/nccl.hpp) runs it. Given, like 11.8's scan: you do not need to
/// change this file.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "multi_gpu_algorithms.hpp"  // kNoNccl
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

/// One communicator per GPU, GPU g as rank g (ncclCommInitAll), for the life of a MultiGpuScan.
class NcclExchange {
 public:
  explicit NcclExchange(int devices) : comms_(static_cast<std::size_t>(devices)) {
    check(ncclCommInitAll(comms_.data(), devices, nullptr), "ncclCommInitAll");
  }
  NcclExchange(const NcclExchange&) = delete;
  NcclExchange& operator=(const NcclExchange&) = delete;
  ~NcclExchange() {
    for (ncclComm_t comm : comms_) ncclCommDestroy(comm);
  }

  /// exchange_totals' contract: totals[g] holds G elements in GPU g's memory, element g its piece
  /// total; afterwards every GPU's array holds all G totals. Queued on each GPU's default stream.
  template <class T>
  void all_gather(const std::vector<T*>& totals) {
    check(ncclGroupStart(), "ncclGroupStart");
    ncclResult_t result = ncclSuccess;
    for (std::size_t g = 0; g < totals.size() && result == ncclSuccess; ++g) {
      DeviceScope on(static_cast<int>(g));
      result = ncclAllGather(totals[g] + g, totals[g], 1, nccl_type<T>(), comms_[g], {});
    }
    const ncclResult_t ended = ncclGroupEnd();
    check(result != ncclSuccess ? result : ended, "ncclAllGather");
  }

 private:
  void check(ncclResult_t result, const char* call) const {
    if (result != ncclSuccess) {
      throw Error(std::string(call) + ": " + ncclGetErrorString(result) + " (" +
                  ncclGetLastError(comms_.empty() ? nullptr : comms_[0]) + ")");
    }
  }
  std::vector<ncclComm_t> comms_;
};

#else

/// A cuda build without NCCL: the exchange through NCCL cannot run.
class NcclExchange {
 public:
  explicit NcclExchange(int) { throw Error(kNoNccl); }
  template <class T>
  void all_gather(const std::vector<T*>&) {}
};

#endif

}  // namespace scanlab::s11_10
