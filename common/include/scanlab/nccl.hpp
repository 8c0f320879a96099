/// \file nccl.hpp
/// \brief The calls of NCCL that a scan across GPUs uses, the same on both backends: NCCL itself on a
/// GPU (where CMake found it: SCANLAB_HAVE_NCCL), and on the cpu backend a model of it over the
/// emulator's devices, with NCCL's semantics for these calls:
///
///   ncclCommInitAll   one communicator per device of this process (rank r on device devlist[r]);
///   ncclGroupStart/End  calls between them are queued and run together at the end, as one thread
///                     driving several devices must (NCCL would wait forever for the other ranks
///                     otherwise: the model refuses a collective on a communicator of several ranks
///                     outside a group, with ncclInvalidUsage);
///   ncclAllGather     recvbuff[r * count ..] = rank r's sendbuff, on every rank; every rank must call
///                     it with the same count and type; in place when sendbuff is recvbuff + rank *
///                     count; both buffers must be memory of the communicator's device
///                     (ncclInvalidArgument otherwise);
///   ncclCommDestroy, ncclGetErrorString, ncclGetLastError.
///
/// The model runs every queued call at ncclGroupEnd (the emulator's devices run everything at once).
/// Not modelled: ncclGetUniqueId and ncclCommInitRank (one process per device), other collectives.
#pragma once

#if defined(SCANLAB_BACKEND_CUDA)
#if defined(SCANLAB_HAVE_NCCL)
#include <nccl.h>
#endif
#else
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "scanlab/memory.hpp"
#include "scanlab/launcher.hpp"

namespace scanlab {

enum ncclResult_t { ncclSuccess = 0, ncclUnhandledCudaError = 1, ncclSystemError = 2, ncclInternalError = 3,
                    ncclInvalidArgument = 4, ncclInvalidUsage = 5 };
enum ncclDataType_t { ncclInt8 = 0, ncclUint8 = 1, ncclInt32 = 2, ncclUint32 = 3, ncclInt64 = 4, ncclUint64 = 5,
                      ncclFloat16 = 6, ncclFloat32 = 7, ncclFloat64 = 8 };

namespace nccl_model {

struct Clique;
struct Comm {
  std::shared_ptr<Clique> clique;
  int rank = 0, device = 0;
};
struct Call {  // one rank's ncclAllGather, queued in a group
  const void* send;
  void* recv;
  std::size_t count;
  ncclDataType_t type;
};
struct Clique {
  int ranks = 0;
  std::vector<std::unique_ptr<Call>> pending;  // one slot per rank
};

inline std::size_t type_size(ncclDataType_t t) {
  switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    default: return 8;
  }
}
// The host's state of the model (not thread_local: on the cpu backend a kernel library's thread-local
// variables are its static shared memory, emu/module/shared_first.cpp).
struct State {
  int group_depth = 0;
  std::vector<std::shared_ptr<Clique>> grouped;  // cliques with calls queued
  std::string last_error;
};
inline State& state() {
  static State s;
  return s;
}

inline ncclResult_t fail(ncclResult_t r, std::string why) {
  state().last_error = std::move(why);
  return r;
}

/// Runs the queued all-gathers of `c`, once every rank has called it alike.
inline ncclResult_t run(Clique& c) {
  const Call* first = c.pending[0].get();
  for (int r = 0; r < c.ranks; ++r) {
    const Call* call = c.pending[static_cast<std::size_t>(r)].get();
    if (call == nullptr) {
      return fail(ncclInvalidUsage, "ncclGroupEnd: rank " + std::to_string(r) + " of " + std::to_string(c.ranks) +
                                        " did not call ncclAllGather in the group: NCCL would wait for it forever");
    }
    if (call->count != first->count || call->type != first->type) {
      return fail(ncclInvalidUsage, "ncclAllGather: rank " + std::to_string(r) +
                                        " was called with another count or type than rank 0");
    }
  }
  const std::size_t bytes = first->count * type_size(first->type);
  std::vector<unsigned char> gathered(bytes * static_cast<std::size_t>(c.ranks));  // (in place: read all first)
  for (int r = 0; r < c.ranks; ++r) {
    if (bytes > 0) std::memcpy(gathered.data() + bytes * static_cast<std::size_t>(r), c.pending[static_cast<std::size_t>(r)]->send, bytes);
  }
  for (int r = 0; r < c.ranks; ++r) {
    if (!gathered.empty()) std::memcpy(c.pending[static_cast<std::size_t>(r)]->recv, gathered.data(), gathered.size());
    c.pending[static_cast<std::size_t>(r)].reset();
  }
  return ncclSuccess;
}

}  // namespace nccl_model

using ncclComm_t = nccl_model::Comm*;

inline const char* ncclGetErrorString(ncclResult_t r) {
  switch (r) {
    case ncclSuccess: return "no error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage";
    default: return "internal error";
  }
}
inline const char* ncclGetLastError(ncclComm_t) { return nccl_model::state().last_error.c_str(); }

inline ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  if (comms == nullptr || ndev < 1 || ndev > device_count()) {
    return nccl_model::fail(ncclInvalidArgument, "ncclCommInitAll: " + std::to_string(ndev) + " devices, of " +
                                                     std::to_string(device_count()));
  }
  auto clique = std::make_shared<nccl_model::Clique>();
  clique->ranks = ndev;
  clique->pending.resize(static_cast<std::size_t>(ndev));
  for (int r = 0; r < ndev; ++r) {
    const int device = devlist != nullptr ? devlist[r] : r;
    for (int q = 0; q < r; ++q) {
      if (comms[q]->device == device) {
        return nccl_model::fail(ncclInvalidUsage, "ncclCommInitAll: device " + std::to_string(device) + " twice");
      }
    }
    comms[r] = new nccl_model::Comm{clique, r, device};
  }
  return ncclSuccess;
}

inline ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  delete comm;
  return ncclSuccess;
}

inline ncclResult_t ncclGroupStart() {
  ++nccl_model::state().group_depth;
  return ncclSuccess;
}

inline ncclResult_t ncclGroupEnd() {
  if (nccl_model::state().group_depth == 0) return nccl_model::fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  if (--nccl_model::state().group_depth > 0) return ncclSuccess;
  ncclResult_t result = ncclSuccess;
  for (const auto& clique : nccl_model::state().grouped) {
    const ncclResult_t r = nccl_model::run(*clique);
    if (r != ncclSuccess && result == ncclSuccess) result = r;
    for (auto& call : clique->pending) call.reset();
  }
  nccl_model::state().grouped.clear();
  return result;
}

/// `stream`: the stream of the communicator's device the copy goes into (the model copies at once).
inline ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, std::size_t sendcount,
                                  ncclDataType_t datatype, ncclComm_t comm, const void* stream = nullptr) {
  (void)stream;
  if (comm == nullptr) return nccl_model::fail(ncclInvalidArgument, "ncclAllGather: no communicator");
  const std::size_t bytes = sendcount * nccl_model::type_size(datatype);
  const auto check = [&](const void* p, std::size_t n, const char* which) -> std::string {
    if (n == 0) return "";
    const int owner = guarded_device(p);
    const int end_owner = guarded_device(static_cast<const unsigned char*>(p) + n - 1);
    if (owner != comm->device || end_owner != comm->device) {
      return std::string("ncclAllGather on rank ") + std::to_string(comm->rank) + " (device " +
             std::to_string(comm->device) + "): its " + which + " is " +
             (owner < 0 ? std::string("not device memory") : "memory of device " + std::to_string(owner)) +
             (owner == comm->device ? " but does not hold all its elements" : "");
    }
    return "";
  };
  for (const std::string& why : {check(sendbuff, bytes, "sendbuff"),
                                 check(recvbuff, bytes * static_cast<std::size_t>(comm->clique->ranks), "recvbuff")}) {
    if (!why.empty()) return nccl_model::fail(ncclInvalidArgument, why);
  }
  auto& slot = comm->clique->pending[static_cast<std::size_t>(comm->rank)];
  if (slot) return nccl_model::fail(ncclInvalidUsage, "ncclAllGather: rank " + std::to_string(comm->rank) + " twice in one group");
  slot = std::make_unique<nccl_model::Call>(nccl_model::Call{sendbuff, recvbuff, sendcount, datatype});
  if (nccl_model::state().group_depth > 0) {
    bool listed = false;
    for (const auto& c : nccl_model::state().grouped) listed = listed || c == comm->clique;
    if (!listed) nccl_model::state().grouped.push_back(comm->clique);
    return ncclSuccess;
  }
  if (comm->clique->ranks > 1) {
    slot.reset();
    return nccl_model::fail(ncclInvalidUsage, "ncclAllGather on one of " + std::to_string(comm->clique->ranks) +
                                                  " ranks outside ncclGroupStart/End: one thread driving several "
                                                  "devices must group their calls (NCCL would wait forever)");
  }
  return nccl_model::run(*comm->clique);
}

}  // namespace scanlab
#endif
