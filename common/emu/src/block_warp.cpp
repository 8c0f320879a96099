// Warp operations: a rendezvous of the lanes named in the mask, independent of block barriers.
//
// A lane that calls __shfl_sync, __ballot_sync, __syncwarp... records its call and waits. When every
// lane of the mask has arrived with the same operation and mask, the last arrival's scheduler step
// computes every lane's result (reading the values straight from the waiting lanes' stacks) and puts
// them back in the run queue. Only the lanes of one warp are involved, so a warp can shuffle while
// the rest of the block is elsewhere, as on a GPU with independent thread scheduling.
#include <bit>
#include <cstring>

#include "internal.hpp"

namespace scanlab::emu::impl {

namespace {

bool is_shuffle(WarpOp op) {
  return op == WarpOp::shfl_idx || op == WarpOp::shfl_up || op == WarpOp::shfl_down ||
         op == WarpOp::shfl_xor;
}

/// The lane that `lane` reads in a shuffle, or -1 if it keeps its own value (CUDA's rules for a
/// source outside its segment of `width` lanes).
int source_lane(const WarpCall& c, int lane) {
  const int w = c.width;
  const int segment = lane / w * w;
  switch (c.op) {
    case WarpOp::shfl_idx: return segment + ((c.arg % w) + w) % w;
    case WarpOp::shfl_up: return lane % w - c.arg < 0 ? -1 : lane - c.arg;
    case WarpOp::shfl_down: return lane % w + c.arg >= w ? -1 : lane + c.arg;
    case WarpOp::shfl_xor: {
      const int source = lane ^ c.arg;
      return source < 0 || source >= segment + w ? -1 : source;
    }
    default: return -1;
  }
}

}  // namespace

void Block::on_warp(CudaThread& t) {
  t.spinning = false;
  const unsigned warp = t.linear / kWarpSize, lane = t.linear % kWarpSize, bit = 1u << lane;
  WarpState& w = warps_[warp];
  const WarpCall& c = t.warp;
  // Lanes beyond the end of a partial last warp do not exist; a full mask there means the lanes that do.
  const unsigned mask = c.mask & w.exists;
  const std::string call = warp_op_name(c.op) + std::string(" at ") + where_text(t.where);
  if ((mask & bit) == 0) {
    fail(thread_name(t.linear) + " (lane " + std::to_string(lane) + ") calls " + call + " with mask " +
         hex_mask(c.mask) + ", which leaves out the calling lane");
    return;
  }
  if (is_shuffle(c.op) && (c.width < 1 || c.width > 32 || !std::has_single_bit(unsigned(c.width)))) {
    fail(thread_name(t.linear) + " calls " + call + " with width " + std::to_string(c.width) +
         " (it must be a power of two from 1 to 32)");
    return;
  }
  if (const unsigned gone = mask & w.exited) {
    fail(thread_name(t.linear) + " calls " + call + " with mask " + hex_mask(c.mask) + ", but " +
         lanes_text(warp, gone) + " named in it ha" + (std::has_single_bit(gone) ? "s" : "ve") +
         " exited: the rendezvous can never complete");
    return;
  }
  // Every waiting lane that this call names, or that names this lane, must be in the same rendezvous.
  for (unsigned waiting = w.waiting; waiting != 0; waiting &= waiting - 1) {
    const unsigned other_lane = std::countr_zero(waiting);
    const CudaThread& other = threads_[warp * kWarpSize + other_lane];
    const unsigned other_mask = other.warp.mask & w.exists;
    if ((mask & (1u << other_lane)) == 0 && (other_mask & bit) == 0) continue;  // another group
    const bool same_op = other.warp.op == c.op &&
                         (!is_shuffle(c.op) || (other.warp.size == c.size && other.warp.width == c.width));
    if (other_mask != mask || !same_op) {
      fail("lanes of one warp meet in different warp operations: " + waiting_group(other) + "; " +
           thread_name(t.linear) + " calls " + call + " with mask " + hex_mask(c.mask) +
           (is_shuffle(c.op) ? " (width " + std::to_string(c.width) + ")" : std::string()));
      return;
    }
  }
  w.waiting |= bit;
  if ((w.waiting & mask) == mask) complete_warp(warp, mask);
}

void Block::complete_warp(unsigned warp, unsigned mask) {
  CudaThread* lanes = &threads_[warp * kWarpSize];
  const WarpCall& first = lanes[std::countr_zero(mask)].warp;
  if (first.op == WarpOp::ballot || first.op == WarpOp::any || first.op == WarpOp::all) {
    unsigned ballot = 0;
    for (unsigned m = mask; m != 0; m &= m - 1) {
      const unsigned lane = std::countr_zero(m);
      if (lanes[lane].warp.predicate) ballot |= 1u << lane;
    }
    const unsigned result = first.op == WarpOp::ballot ? ballot
                            : first.op == WarpOp::any  ? unsigned(ballot != 0)
                                                       : unsigned(ballot == mask);
    for (unsigned m = mask; m != 0; m &= m - 1) lanes[std::countr_zero(m)].warp.result = result;
  } else if (is_shuffle(first.op)) {
    for (unsigned m = mask; m != 0; m &= m - 1) {
      const unsigned lane = std::countr_zero(m);
      WarpCall& c = lanes[lane].warp;
      const int source = source_lane(c, static_cast<int>(lane));
      if (source < 0) {
        std::memcpy(c.out, c.value, c.size);
        continue;
      }
      if ((mask & (1u << source)) == 0) {
        const bool exited = warps_[warp].exited & (1u << source);
        fail(thread_name(warp * kWarpSize + lane) + " reads lane " + std::to_string(source) + " in " +
             warp_op_name(c.op) + " at " + where_text(lanes[lane].where) + ", but that lane " +
             (exited ? "has exited" : "is not in the mask " + hex_mask(c.mask)));
        return;
      }
      std::memcpy(c.out, lanes[source].warp.value, c.size);
    }
  }
  WarpState& w = warps_[warp];
  w.waiting &= ~mask;
#if defined(SCANLAB_EMU_TSAN)
  ++w.generation;
#endif
  order_scratch_.clear();
  for (unsigned m = mask; m != 0; m &= m - 1) {
    const unsigned lane = std::countr_zero(m);
    lanes[lane].state = State::runnable;
    order_scratch_.push_back(warp * kWarpSize + lane);
  }
  worker_.bump_progress();
  enqueue(order_scratch_);
}

/// "thread 40 waits in __shfl_sync at scan.cuh:12 with mask 0xffffffff", with every lane of that
/// rendezvous that has arrived.
std::string Block::waiting_group(const CudaThread& member) const {
  const unsigned warp = member.linear / kWarpSize;
  const WarpState& w = warps_[warp];
  std::vector<unsigned> ids;
  for (unsigned waiting = w.waiting; waiting != 0; waiting &= waiting - 1) {
    const CudaThread& other = threads_[warp * kWarpSize + std::countr_zero(waiting)];
    if (other.warp.mask == member.warp.mask && other.warp.op == member.warp.op) ids.push_back(other.linear);
  }
  return threads_text(ids) + (ids.size() == 1 ? " waits" : " wait") + " in " + warp_op_name(member.warp.op) +
         " at " + where_text(member.where) + " with mask " + hex_mask(member.warp.mask);
}

std::string Block::lanes_text(unsigned warp, unsigned lanes) const {
  std::vector<unsigned> ids;
  for (unsigned m = lanes; m != 0; m &= m - 1) ids.push_back(warp * kWarpSize + std::countr_zero(m));
  return threads_text(ids);
}

}  // namespace scanlab::emu::impl
