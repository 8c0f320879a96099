// The emulator's model of NCCL (scanlab/nccl.hpp, cpu backend): the all-gather of 11.10's exchange on
// modelled devices, and the misuses NCCL itself would refuse or hang on, each refused with a message;
// and its communicators across processes (ncclGetUniqueId, ncclCommInitRank), each rank a forked process.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "scanlab/emu/runtime.hpp"
#include "scanlab/launcher.hpp"
#include "scanlab/nccl.hpp"

namespace {

using namespace scanlab;

struct ThreeDevices : ::testing::Test {
  void SetUp() override { emu::settings().devices = 3; }
  void TearDown() override {
    emu::settings().devices = 1;
    emu::set_device(0);
  }
};

TEST_F(ThreeDevices, AllGatherInPlaceInOneGroup) {
  std::vector<ncclComm_t> comms(3);
  ASSERT_EQ(ncclCommInitAll(comms.data(), 3, nullptr), ncclSuccess);
  std::vector<DeviceBuffer<int>> totals;
  for (int g = 0; g < 3; ++g) {
    DeviceScope on(g);
    totals.emplace_back(3);
    totals.back().fill(0xff);
    totals.back().data()[g] = 10 * (g + 1);
  }
  ASSERT_EQ(ncclGroupStart(), ncclSuccess);
  for (int g = 0; g < 3; ++g) {
    DeviceScope on(g);
    ASSERT_EQ(ncclAllGather(totals[g].data() + g, totals[g].data(), 1, ncclInt32, comms[g]), ncclSuccess);
  }
  ASSERT_EQ(ncclGroupEnd(), ncclSuccess) << ncclGetLastError(nullptr);
  for (int g = 0; g < 3; ++g) {
    EXPECT_EQ(std::vector<int>(totals[g].data(), totals[g].data() + 3), (std::vector<int>{10, 20, 30})) << g;
  }
  for (ncclComm_t c : comms) ncclCommDestroy(c);
}

TEST_F(ThreeDevices, RefusesWhatNcclWouldRefuseOrHangOn) {
  std::vector<ncclComm_t> comms(3);
  ASSERT_EQ(ncclCommInitAll(comms.data(), 3, nullptr), ncclSuccess);
  std::vector<DeviceBuffer<int>> totals;
  for (int g = 0; g < 3; ++g) {
    DeviceScope on(g);
    totals.emplace_back(3);
  }
  // One thread, several ranks, no group: NCCL would wait forever for the other ranks.
  EXPECT_EQ(ncclAllGather(totals[0].data(), totals[0].data(), 1, ncclInt32, comms[0]), ncclInvalidUsage);
  EXPECT_NE(std::string(ncclGetLastError(nullptr)).find("ncclGroupStart/End"), std::string::npos);
  // A rank that does not take part.
  ASSERT_EQ(ncclGroupStart(), ncclSuccess);
  ASSERT_EQ(ncclAllGather(totals[0].data(), totals[0].data(), 1, ncclInt32, comms[0]), ncclSuccess);
  ASSERT_EQ(ncclAllGather(totals[1].data() + 1, totals[1].data(), 1, ncclInt32, comms[1]), ncclSuccess);
  EXPECT_EQ(ncclGroupEnd(), ncclInvalidUsage);
  EXPECT_NE(std::string(ncclGetLastError(nullptr)).find("rank 2 of 3 did not call"), std::string::npos);
  // Another device's memory on a rank's communicator.
  ASSERT_EQ(ncclGroupStart(), ncclSuccess);
  EXPECT_EQ(ncclAllGather(totals[1].data(), totals[0].data(), 1, ncclInt32, comms[0]), ncclInvalidArgument);
  EXPECT_NE(std::string(ncclGetLastError(nullptr)).find("memory of device 1"), std::string::npos);
  ASSERT_EQ(ncclGroupEnd(), ncclSuccess);  // (nothing queued)
  for (ncclComm_t c : comms) ncclCommDestroy(c);
}

// Runs rank(r) in a forked process for r = 1 .. ranks - 1 and rank(0) here; returns each forked rank's
// exit status (0: its checks passed). A rank's checks go in its exit status, since gtest's live here.
std::vector<int> run_ranks(int ranks, const std::function<int(int)>& rank, int& own) {
  std::vector<pid_t> pids;
  for (int r = 1; r < ranks; ++r) {
    const pid_t pid = fork();
    if (pid == 0) _exit(rank(r));
    pids.push_back(pid);
  }
  own = rank(0);
  std::vector<int> statuses;
  for (const pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    statuses.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status));
  }
  return statuses;
}

// 3 ranks in 3 processes: each gathers every rank's two values, in place, more than a slot's bytes too
// (the model's rounds).
TEST(NcclAcrossProcesses, AllGatherInPlace) {
  ncclUniqueId id;
  ASSERT_EQ(ncclGetUniqueId(&id), ncclSuccess);
  const auto rank = [&](int r) {
    ncclComm_t comm = nullptr;
    if (ncclCommInitRank(&comm, 3, id, r) != ncclSuccess) return 1;
    for (const std::size_t count : {std::size_t{2}, std::size_t{3000}}) {  // 3000 int64: 24000 bytes a rank
      DeviceBuffer<long long> all(3 * count);
      all.fill(0xff);
      for (std::size_t i = 0; i < count; ++i) all.data()[r * count + i] = 1000 * r + static_cast<long long>(i);
      if (ncclAllGather(all.data() + r * count, all.data(), count, ncclInt64, comm) != ncclSuccess) return 2;
      for (std::size_t i = 0; i < 3 * count; ++i) {
        if (all.data()[i] != 1000 * static_cast<long long>(i / count) + static_cast<long long>(i % count)) return 3;
      }
    }
    ncclCommDestroy(comm);
    return 0;
  };
  int own = -1;
  EXPECT_EQ(run_ranks(3, rank, own), (std::vector<int>{0, 0}));
  EXPECT_EQ(own, 0) << ncclGetLastError(nullptr);
}

// NCCL's rules for ncclCommInitRank and the all-gather across processes, each refused with its code.
TEST(NcclAcrossProcesses, RefusesWhatNcclWouldRefuse) {
  ncclUniqueId id;
  ASSERT_EQ(ncclGetUniqueId(&id), ncclSuccess);
  ncclComm_t comm = nullptr;
  EXPECT_EQ(ncclCommInitRank(&comm, 2, id, 2), ncclInvalidArgument);  // rank past the count
  EXPECT_EQ(ncclCommInitRank(&comm, 0, id, 0), ncclInvalidArgument);
  ncclUniqueId other{};
  EXPECT_EQ(ncclCommInitRank(&comm, 2, other, 0), ncclInvalidArgument);  // not an id ncclGetUniqueId made
  // Two ranks that disagree on the count: the second is refused, and the first does not wait forever.
  setenv("SCANLAB_NCCL_TIMEOUT", "5", 1);
  int own = -1;
  const auto disagree = [&](int r) {
    ncclComm_t c = nullptr;
    if (r == 1) usleep(100000);  // (rank 0 first: it sets the count)
    const ncclResult_t result = ncclCommInitRank(&c, r == 0 ? 2 : 3, id, r);
    return result == (r == 0 ? ncclSystemError : ncclInvalidUsage) ? 0 : 1;
  };
  EXPECT_EQ(run_ranks(2, disagree, own), (std::vector<int>{0}));
  EXPECT_EQ(own, 0) << ncclGetLastError(nullptr);
  EXPECT_NE(std::string(ncclGetLastError(nullptr)).find("rank 1 gave up"), std::string::npos) << ncclGetLastError(nullptr);
  // Another count on one rank: every rank refuses it alike.
  ASSERT_EQ(ncclGetUniqueId(&id), ncclSuccess);
  const auto counts = [&](int r) {
    ncclComm_t c = nullptr;
    if (ncclCommInitRank(&c, 2, id, r) != ncclSuccess) return 1;
    DeviceBuffer<int> all(4);
    const ncclResult_t result = ncclAllGather(all.data() + r, all.data(), r == 0 ? 1 : 2, ncclInt32, c);
    ncclCommDestroy(c);
    return result == ncclInvalidUsage ? 0 : 2;
  };
  EXPECT_EQ(run_ranks(2, counts, own), (std::vector<int>{0}));
  EXPECT_EQ(own, 0) << ncclGetLastError(nullptr);
  // A rank alone: the others never come; it gives up after SCANLAB_NCCL_TIMEOUT and names them.
  setenv("SCANLAB_NCCL_TIMEOUT", "1", 1);
  ASSERT_EQ(ncclGetUniqueId(&id), ncclSuccess);
  EXPECT_EQ(ncclCommInitRank(&comm, 3, id, 1), ncclSystemError);
  EXPECT_NE(std::string(ncclGetLastError(nullptr)).find("waited 1 s for rank 0, 2"), std::string::npos)
      << ncclGetLastError(nullptr);
  unsetenv("SCANLAB_NCCL_TIMEOUT");
}

}  // namespace
