/// \file exchange.hpp
/// \brief Section 11.10: the one exchange between the GPUs of a scan across GPUs: every GPU's piece
/// total, gathered on every GPU (an all-gather of one element per GPU). Host code.
///
/// One process drives every GPU of the host; the copies go GPU to GPU (copy_peer: cudaMemcpyPeer,
/// over NVLink where there is one). This is the only place the GPUs talk: an NCCL version
/// (`ncclAllGather(totals[g] + g, totals[g], 1, ...)` on each GPU's communicator, in one
/// ncclGroupStart/End) replaces this function and nothing else.
#pragma once

#include <cstddef>
#include <vector>

#include "scanlab/launcher.hpp"

namespace scanlab::s11_10 {

/// `totals[g]` points at G elements in GPU g's memory, of which element g is GPU g's piece total.
/// Afterwards every GPU's array holds all G totals: totals[h][g] == totals[g][g] for every h and g.
template <class T>
void exchange_totals(const std::vector<T*>& totals) {
  const int devices = static_cast<int>(totals.size());
  // TODO(student) begin: copy each GPU g's own total (element g of its array) into element g of every
  // OTHER GPU's array, with copy_peer(dst, dst_device, src, src_device, count).
  for (int g = 0; g < devices; ++g) {
    for (int h = 0; h < devices; ++h) {
      if (h != g) copy_peer(totals[h] + g, h, totals[g] + g, g, 1);
    }
  }
  // TODO(student) end
}

}  // namespace scanlab::s11_10
