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
///   ncclGetUniqueId   an id for one communicator of ranks in several processes, handed to every rank;
///   ncclCommInitRank  this process's rank of such a communicator, on the current device; blocks until
///                     every rank has joined. NCCL's rules: 1 <= nranks, 0 <= rank < nranks, the same
///                     nranks on every rank, each rank once (ncclInvalidArgument, ncclInvalidUsage);
///   ncclCommDestroy, ncclGetErrorString, ncclGetLastError.
///
/// The model runs every queued call at ncclGroupEnd (the emulator's devices run everything at once).
/// Across processes, the id names a POSIX shared-memory segment with one slot per rank: a rank's
/// all-gather writes its elements into its slot, waits at a barrier for every rank, reads every slot
/// and waits again (so no slot is overwritten before all have read it). Where NCCL would wait forever
/// for a rank that never comes (it died, or was given another id), the model gives up after
/// SCANLAB_NCCL_TIMEOUT seconds (default 60) with ncclSystemError, naming the ranks it waited for.
/// Not modelled: other collectives.
#pragma once

#if defined(SCANLAB_BACKEND_CUDA)
#if defined(SCANLAB_HAVE_NCCL)
#include <nccl.h>
#endif
#else
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "scanlab/memory.hpp"
#include "scanlab/launcher.hpp"

namespace scanlab {

enum ncclResult_t { ncclSuccess = 0, ncclUnhandledCudaError = 1, ncclSystemError = 2, ncclInternalError = 3,
                    ncclInvalidArgument = 4, ncclInvalidUsage = 5 };
enum ncclDataType_t { ncclInt8 = 0, ncclUint8 = 1, ncclInt32 = 2, ncclUint32 = 3, ncclInt64 = 4, ncclUint64 = 5,
                      ncclFloat16 = 6, ncclFloat32 = 7, ncclFloat64 = 8 };

/// NCCL's id of a communicator across processes (128 bytes, copied as they are); the model's is the
/// name of a shared-memory segment.
struct ncclUniqueId {
  char internal[128];
};

namespace nccl_model {

/// The shared-memory segment of a communicator across processes (ncclCommInitRank): a header and one
/// slot per rank. A barrier is a count per rank: barrier k is passed once every rank's count is k.
/// (std::atomic of 64 bits is lock-free on every host the emulator runs on, so it works across
/// processes.)
inline constexpr int kMaxRanks = 64;
inline constexpr std::size_t kSlotBytes = 4096;  // an all-gather of more bytes per rank goes in rounds
struct Slot {
  std::atomic<std::uint64_t> arrived;  // barriers this rank has reached
  std::uint64_t count;                 // its all-gather's count and type, checked against rank 0's
  std::int64_t type;
  unsigned char data[kSlotBytes];
};
struct Segment {
  std::atomic<std::int64_t> ranks;     // 0 until the first rank joins
  std::atomic<std::int64_t> failed;    // 1 + the rank that gave up, or 0
  Slot slots[kMaxRanks];
};
/// This process's rank of a communicator across processes.
struct Across {
  Segment* segment = nullptr;
  std::uint64_t barriers = 0;  // passed so far by this rank
  ~Across() {
    if (segment != nullptr) munmap(segment, sizeof(Segment));
  }
};

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
  std::vector<std::unique_ptr<Call>> pending;  // one slot per rank (across processes: this one's only)
  std::unique_ptr<Across> across;              // ncclCommInitRank's: the ranks are other processes
  int own_rank = 0;                            // (across processes) the rank of this process
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

/// How long a rank waits for the others (SCANLAB_NCCL_TIMEOUT seconds, default 60).
inline std::chrono::seconds timeout() {
  const char* text = std::getenv("SCANLAB_NCCL_TIMEOUT");
  const long seconds = text != nullptr ? std::atol(text) : 0;
  return std::chrono::seconds(seconds > 0 ? seconds : 60);
}

/// Waits until every rank of `a` has reached barrier k; `call` names the call for a message.
/// ncclSystemError when another rank gave up or time ran out.
inline ncclResult_t wait_for_all(Across& a, std::uint64_t k, int rank, int ranks, const char* call) {
  const auto deadline = std::chrono::steady_clock::now() + timeout();
  for (;;) {
    std::string missing;
    for (int r = 0; r < ranks; ++r) {
      if (a.segment->slots[r].arrived.load() < k) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    }
    if (missing.empty()) return ncclSuccess;
    if (const std::int64_t failed = a.segment->failed.load(); failed != 0) {
      return fail(ncclSystemError, std::string(call) + " on rank " + std::to_string(rank) + ": rank " +
                                       std::to_string(failed - 1) + " gave up");
    }
    if (std::chrono::steady_clock::now() > deadline) {
      a.segment->failed.store(rank + 1);
      return fail(ncclSystemError, std::string(call) + " on rank " + std::to_string(rank) + " of " +
                                       std::to_string(ranks) + ": waited " + std::to_string(timeout().count()) +
                                       " s for rank " + missing +
                                       " (did it die, or was it given another id or rank count?)");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

/// This rank's next barrier: arrive, then wait for every rank.
inline ncclResult_t barrier(Across& a, int rank, int ranks, const char* call) {
  const std::uint64_t k = ++a.barriers;
  a.segment->slots[rank].arrived.store(k);
  return wait_for_all(a, k, rank, ranks, call);
}

/// This process's queued all-gather of `c`, a communicator across processes: in rounds of a slot.
inline ncclResult_t run_across(Clique& c) {
  Across& a = *c.across;
  const Call& call = *c.pending[static_cast<std::size_t>(c.own_rank)];
  Slot& own = a.segment->slots[c.own_rank];
  own.count = call.count;
  own.type = call.type;
  if (ncclResult_t r = barrier(a, c.own_rank, c.ranks, "ncclAllGather"); r != ncclSuccess) return r;
  for (int r = 0; r < c.ranks; ++r) {  // (every rank sees the same slots: all refuse, or none)
    const Slot& other = a.segment->slots[r];
    if (other.count != a.segment->slots[0].count || other.type != a.segment->slots[0].type) {
      return fail(ncclInvalidUsage, "ncclAllGather: rank " + std::to_string(r) +
                                        " was called with another count or type than rank 0");
    }
  }
  const std::size_t bytes = call.count * type_size(call.type);
  for (std::size_t done = 0; done < bytes; done += kSlotBytes) {
    const std::size_t part = std::min(kSlotBytes, bytes - done);
    std::memcpy(own.data, static_cast<const unsigned char*>(call.send) + done, part);
    if (ncclResult_t r = barrier(a, c.own_rank, c.ranks, "ncclAllGather"); r != ncclSuccess) return r;
    for (int r = 0; r < c.ranks; ++r) {  // (in place: this rank's send lies in recv, rewritten alike)
      std::memcpy(static_cast<unsigned char*>(call.recv) + bytes * static_cast<std::size_t>(r) + done,
                  a.segment->slots[r].data, part);
    }
    if (ncclResult_t r = barrier(a, c.own_rank, c.ranks, "ncclAllGather"); r != ncclSuccess) return r;
  }
  return ncclSuccess;
}

/// Runs the queued all-gathers of `c`, once every rank has called it alike.
inline ncclResult_t run(Clique& c) {
  if (c.across) {
    const ncclResult_t r = run_across(c);
    c.pending[static_cast<std::size_t>(c.own_rank)].reset();
    return r;
  }
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
    case ncclSystemError: return "unhandled system error";
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

inline ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  if (id == nullptr) return nccl_model::fail(ncclInvalidArgument, "ncclGetUniqueId: no id to write");
  std::memset(id->internal, 0, sizeof(id->internal));
  const std::string name = "/scanlab-nccl-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}());
  std::memcpy(id->internal, name.data(), name.size());
  return ncclSuccess;
}

/// Joins `rank` of `nranks` to the communicator `id` names, on the current device.
inline ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  using namespace nccl_model;
  if (comm == nullptr || nranks < 1 || nranks > kMaxRanks || rank < 0 || rank >= nranks) {
    return fail(ncclInvalidArgument, "ncclCommInitRank: rank " + std::to_string(rank) + " of " +
                                         std::to_string(nranks) + " (ranks 0 to nranks - 1; the model: at most " +
                                         std::to_string(kMaxRanks) + " ranks)");
  }
  const std::string name(id.internal, strnlen(id.internal, sizeof(id.internal)));
  if (name.rfind("/scanlab-nccl-", 0) != 0) {
    return fail(ncclInvalidArgument, "ncclCommInitRank: the id is not one ncclGetUniqueId made");
  }
  const int fd = shm_open(name.c_str(), O_CREAT | O_RDWR, 0600);  // (the first rank to come makes it)
  if (fd < 0 || ftruncate(fd, sizeof(Segment)) != 0) {
    if (fd >= 0) close(fd);
    return fail(ncclSystemError, "ncclCommInitRank: shared memory " + name + ": " + std::strerror(errno));
  }
  void* mapped = mmap(nullptr, sizeof(Segment), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (mapped == MAP_FAILED) return fail(ncclSystemError, "ncclCommInitRank: mmap: " + std::string(std::strerror(errno)));
  auto across = std::make_unique<Across>();
  across->segment = static_cast<Segment*>(mapped);  // (a new segment is all zeros)
  Segment& s = *across->segment;
  std::int64_t expected = 0;
  if (!s.ranks.compare_exchange_strong(expected, nranks) && expected != nranks) {
    s.failed.store(rank + 1);
    return fail(ncclInvalidUsage, "ncclCommInitRank: rank " + std::to_string(rank) + " was given " +
                                      std::to_string(nranks) + " ranks, another rank " + std::to_string(expected));
  }
  std::uint64_t none = 0;  // joining is barrier 1: the rank's count goes from 0 to 1, once
  if (!s.slots[rank].arrived.compare_exchange_strong(none, 1)) {
    s.failed.store(rank + 1);
    return fail(ncclInvalidUsage, "ncclCommInitRank: rank " + std::to_string(rank) + " joined twice");
  }
  across->barriers = 1;
  const ncclResult_t joined = wait_for_all(*across, 1, rank, nranks, "ncclCommInitRank");
  shm_unlink(name.c_str());  // every rank has mapped it (or gave up): no name needed any more
  if (joined != ncclSuccess) return joined;
  auto clique = std::make_shared<Clique>();
  clique->ranks = nranks;
  clique->pending.resize(static_cast<std::size_t>(nranks));
  clique->across = std::move(across);
  clique->own_rank = rank;
  *comm = new Comm{clique, rank, current_device()};
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
  if (comm->clique->ranks > 1 && !comm->clique->across) {
    slot.reset();
    return nccl_model::fail(ncclInvalidUsage, "ncclAllGather on one of " + std::to_string(comm->clique->ranks) +
                                                  " ranks outside ncclGroupStart/End: one thread driving several "
                                                  "devices must group their calls (NCCL would wait forever)");
  }
  return nccl_model::run(*comm->clique);
}

}  // namespace scanlab
#endif
