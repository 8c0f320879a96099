// The emulator's model of NCCL (scanlab/nccl.hpp, cpu backend): the all-gather of 11.10's exchange on
// modelled devices, and the misuses NCCL itself would refuse or hang on, each refused with a message.
#include <gtest/gtest.h>

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

}  // namespace
