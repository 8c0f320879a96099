// Text for error messages: places in the source, lists of threads.
#include <cstdio>
#include <cstring>

#include "internal.hpp"

namespace scanlab::emu::impl {

std::string where_text(Where where) {
  const char* file = where.file_name();
  if (file == nullptr || *file == '\0') return "?";
  if (const char* slash = std::strrchr(file, '/')) file = slash + 1;
  return std::string(file) + ":" + std::to_string(where.line());
}

std::string thread_list(const std::vector<unsigned>& ids) {
  if (ids.empty()) return "no threads";
  constexpr std::size_t kMaxRanges = 8;  // a long list helps nobody
  std::string text = ids.size() == 1 ? "thread " : "threads ";
  std::size_t ranges = 0;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (ranges == kMaxRanges) {
      text += ", ... (" + std::to_string(ids.size()) + " threads in all)";
      break;
    }
    if (ranges > 0) text += ", ";
    text += std::to_string(ids[i]);
    if (j > i) text += "-" + std::to_string(ids[j]);
    ++ranges;
    i = j + 1;
  }
  return text;
}

std::string hex_mask(unsigned mask) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "0x%08x", mask);
  return buffer;
}

const char* warp_op_name(WarpOp op) {
  switch (op) {
    case WarpOp::syncwarp: return "__syncwarp";
    case WarpOp::shfl_idx: return "__shfl_sync";
    case WarpOp::shfl_up: return "__shfl_up_sync";
    case WarpOp::shfl_down: return "__shfl_down_sync";
    case WarpOp::shfl_xor: return "__shfl_xor_sync";
    case WarpOp::ballot: return "__ballot_sync";
    case WarpOp::any: return "__any_sync";
    case WarpOp::all: return "__all_sync";
  }
  return "?";
}

}  // namespace scanlab::emu::impl
