// Warp operations: shuffles (with width), votes, __syncwarp, __activemask, partial participation.
#include "test_support.hpp"

namespace emu_test {
namespace {

using namespace scanlab::emu;

/// CUDA's shuffle rules, written out independently of the emulator: the value (tid * 10) a lane gets.
int expected_shuffle(int kind, int tid, int width, int arg) {
  const int lane = tid % 32, warp_base = tid - lane, segment = lane / width * width;
  int src = -1;
  if (kind == 0) src = segment + (arg % width);
  if (kind == 1) src = lane % width - arg >= 0 ? lane - arg : -1;
  if (kind == 2) src = lane % width + arg < width ? lane + arg : -1;
  if (kind == 3) src = (lane ^ arg) < segment + width ? lane ^ arg : -1;
  return (src < 0 ? tid : warp_base + src) * 10;
}

void check_shuffles(unsigned threads, int width, int delta, int xor_mask) {
  const auto out = shuffles(threads, width, delta, xor_mask);
  for (int t = 0; t < int(threads); ++t) {
    const int lane = t % 32;
    EXPECT_EQ(out[t * 4 + 0], expected_shuffle(0, t, width, 31 - lane)) << "idx, thread " << t;
    EXPECT_EQ(out[t * 4 + 1], expected_shuffle(1, t, width, delta)) << "up, thread " << t;
    EXPECT_EQ(out[t * 4 + 2], expected_shuffle(2, t, width, delta)) << "down, thread " << t;
    EXPECT_EQ(out[t * 4 + 3], expected_shuffle(3, t, width, xor_mask)) << "xor, thread " << t;
  }
}

TEST_F(Emu, ShufflesFullWidth) {
  check_shuffles(64, 32, 1, 1);
  check_shuffles(64, 32, 5, 16);
  // Spot checks by hand: lane 0 keeps its value in shfl_up; lane 31 in shfl_down.
  const auto out = shuffles(32, 32, 1, 1);
  EXPECT_EQ(out[0 * 4 + 0], 310);
  EXPECT_EQ(out[0 * 4 + 1], 0);
  EXPECT_EQ(out[5 * 4 + 1], 40);
  EXPECT_EQ(out[31 * 4 + 2], 310);
  EXPECT_EQ(out[6 * 4 + 3], 70);
}

TEST_F(Emu, ShufflesWithWidth) {
  check_shuffles(64, 8, 1, 1);
  check_shuffles(64, 8, 3, 4);
  check_shuffles(64, 8, 2, 12);  // xor reaching into a later segment: own value
  check_shuffles(32, 1, 1, 1);
  const auto out = shuffles(32, 8, 1, 1);
  EXPECT_EQ(out[8 * 4 + 1], 80);   // first lane of segment 1 keeps its value
  EXPECT_EQ(out[9 * 4 + 0], 140);  // idx 31 - 9 = 22 -> 22 % 8 = 6 in segment 8..15: lane 14
}

TEST_F(Emu, ShufflesOfOtherTypes) {
  const auto d = shuffle_double(64);
  for (unsigned t = 0; t < 64; ++t) EXPECT_EQ(d[t], (t ^ 1u) + 0.5);
  const auto s = shuffle_struct(64);
  for (unsigned t = 0; t < 64; ++t) {
    EXPECT_EQ(s[2 * t], (long long)(t ^ 16u));
    EXPECT_EQ(s[2 * t + 1], -(long long)(t ^ 16u));
  }
}

TEST_F(Emu, VotesInTwoInterleavedGroupsOfAWarp) {
  const auto out = votes(64);
  unsigned even_ballot = 0, odd_ballot = 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (lane % 3 == 0) (lane % 2 ? odd_ballot : even_ballot) |= 1u << lane;
  }
  for (unsigned t = 0; t < 64; ++t) {
    const unsigned lane = t % 32;
    const bool odd = lane % 2;
    EXPECT_EQ(out[t * 3 + 0], odd ? odd_ballot : even_ballot) << t;
    EXPECT_EQ(out[t * 3 + 1], odd ? 1u : 0u) << t;  // lane 21 is odd
    EXPECT_EQ(out[t * 3 + 2], odd ? 0u : 1u) << t;  // lane 31 is odd
  }
}

TEST_F(Emu, OneWarpShufflesWhileTheOtherWaitsAtABarrier) {
  const auto out = only_one_warp_shuffles(64);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], t);
  for (int t = 32; t < 64; ++t) EXPECT_EQ(out[t], (t == 63 ? 63 : t + 1) + 33);
}

TEST_F(Emu, ActiveMaskLeavesOutExitedLanes) {
  const auto out = active_masks(64, 20);
  for (unsigned t = 0; t < 64; ++t) EXPECT_EQ(out[t], t % 32 < 20 ? 0xfffffu : 0u);
}

TEST_F(Emu, PartialLastWarpWithAFullMask) {
  // Block of 48: warp 1 has lanes 0-15 only; a full mask means the lanes that exist.
  check_shuffles(48, 16, 1, 1);
  check_shuffles(48, 16, 4, 15);
}

TEST_F(Emu, WarpOperationsInRandomAndReverseOrder) {
  settings().thread_order = Order::reverse;
  check_shuffles(64, 16, 2, 3);
  settings().thread_order = Order::random;
  check_shuffles(64, 16, 2, 3);
  const auto out = votes(64);
  EXPECT_EQ(out[1 * 3 + 1], 1u);
}

}  // namespace
}  // namespace emu_test
