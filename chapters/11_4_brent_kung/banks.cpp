// Section 11.4: the shared-memory addresses of the Brent-Kung trees, for the docs' bank diagram.
// The solution's own brent_kung_trees (solutions/11_4_brent_kung/brent_kung.cuh) runs on the emulator
// for one section of 2 x threads elements (1024 threads: 2048, the docs'), in both layouts, with an element type that records
// where each operator application reads its two operands and where the result is stored. So the
// diagram shows the kernel's real index arithmetic (`index = (t + 1) * 2 * stride - 1`, `at(i)`),
// never a copy of it. Written as JSON ("scanlab.banks/1") by scanlab_11_4_banks (banks_main.cpp):
//
//   {"schema", "kernel_file", "section", "threads", "banks", "word_bytes",
//    "layouts": [{"name", "padded", "accesses": [[thread, tree, stride, left, right, write], ...]}]}
//
// tree: 0 the reduction tree, 1 the reverse tree; stride: the distance between the operands, in
// elements; left, right, write: word offsets from the start of the shared array (4-byte elements, as
// int32 and float, so a word's bank is its offset mod 32). Compiled for the cpu backend only.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "brent_kung.cuh"
#include "scanlab/algorithm.hpp"
#include "scanlab/launcher.hpp"

namespace {

constexpr unsigned kMaxThreads = 1024;

struct Probe;
void stored(const Probe* where);

/// A 4-byte element that knows which inputs it sums (x[lo] .. x[hi]); storing one records where.
struct Probe {
  std::uint16_t lo = 0, hi = 0;
  Probe() = default;
  Probe(const Probe&) = default;
  Probe& operator=(const Probe& other) {
    stored(this);
    lo = other.lo;
    hi = other.hi;
    return *this;
  }
};
static_assert(sizeof(Probe) == 4, "a Probe is one 4-byte word, like int32");

struct Access {
  unsigned thread, tree, stride, left, right, write;
};

const Probe* g_base = nullptr;
std::vector<Access> g_accesses;
std::vector<Access> g_pending(kMaxThreads);  // per thread: the operands of its latest application
std::vector<bool> g_has_pending(kMaxThreads, false);
bool g_bad = false;

/// The operator: records the addresses of its operands (the kernel passes the shared elements).
struct ProbeOp {
  Probe operator()(const Probe& left, const Probe& right) const {
    const unsigned t = threadIdx.x;
    if (left.hi + 1 != right.lo) g_bad = true;  // not adjacent runs: the trees are wrong
    const auto offset = [](const Probe& p) { return static_cast<unsigned>(&p - g_base); };
    const unsigned stride = right.hi - left.hi;
    // The reduction tree sums two runs of `stride` elements; the reverse tree hands a whole prefix on.
    const bool pair = right.hi + 1u - left.lo == 2u * stride;
    g_pending[t] = {t, pair ? 0u : 1u, stride, offset(left), offset(right), 0};
    g_has_pending[t] = true;
    Probe sum;
    sum.lo = left.lo;
    sum.hi = right.hi;
    return sum;
  }
};

void stored(const Probe* where) {
  const unsigned t = threadIdx.x;
  if (!g_has_pending[t]) return;
  g_pending[t].write = static_cast<unsigned>(where - g_base);
  g_accesses.push_back(g_pending[t]);
  g_has_pending[t] = false;
}

template <bool kPadded>
__global__ void banks_kernel(bool* ok) {
  Probe* XY = scanlab::dynamic_shared<Probe>();
  const auto at = [](unsigned i) { return brent_kung_slot<kPadded>(i); };
  if (threadIdx.x == 0) g_base = XY;
  for (unsigned j = threadIdx.x; j < 2 * blockDim.x; j += blockDim.x) {
    XY[at(j)].lo = static_cast<std::uint16_t>(j);  // (fields, not operator=: the load is not recorded)
    XY[at(j)].hi = static_cast<std::uint16_t>(j);
  }
  brent_kung_trees<kPadded>(XY, ProbeOp{});
  for (unsigned j = threadIdx.x; j < 2 * blockDim.x; j += blockDim.x) {
    if (XY[at(j)].lo != 0 || XY[at(j)].hi != j) *ok = false;  // every element its whole prefix
  }
}

template <bool kPadded>
bool run(unsigned threads, std::vector<Access>& out) {
  g_accesses.clear();
  g_bad = false;
  scanlab::DeviceBuffer<bool> ok(1);
  const bool yes = true;
  ok.upload(&yes);
  const unsigned section = 2 * threads;
  scanlab::launch(banks_kernel<kPadded>, {"brent_kung_banks", 1, threads, brent_kung_shared_size<kPadded>(section) * sizeof(Probe)},
                  ok.data());
  bool result = false;
  ok.download(&result);
  out = g_accesses;
  unsigned log2_section = 0;
  while ((1u << log2_section) < section) ++log2_section;
  return result && !g_bad && out.size() == 2 * section - 2 - log2_section;  // 2S - 2 - log2 S applications
}

}  // namespace

/// Writes the JSON of a block of `threads` threads (a power of two, 32 to 1024) to `path`; 0 on
/// success, 1 if the trees did not scan (then nothing is written).
extern "C" SCANLAB_EXPORT int scanlab_11_4_write_banks(const char* path, unsigned threads) {
  std::vector<Access> plain, padded;
  if (threads < 32 || threads > kMaxThreads || (threads & (threads - 1)) != 0) {
    std::fprintf(stderr, "scanlab_11_4_banks: threads must be a power of two from 32 to 1024\n");
    return 2;
  }
  if (!run<false>(threads, plain) || !run<true>(threads, padded)) {
    std::fprintf(stderr, "scanlab_11_4_banks: the Brent-Kung trees did not give a correct scan\n");
    return 1;
  }
  std::string text = "{\"schema\": \"scanlab.banks/1\", \"kernel_file\": \"brent_kung.cuh\", \"section\": " +
                     std::to_string(2 * threads) + ", \"threads\": " + std::to_string(threads) +
                     ", \"banks\": 32, \"word_bytes\": 4, \"layouts\": [";
  const auto layout = [&](const char* name, bool is_padded, const std::vector<Access>& accesses) {
    text += std::string("{\"name\": \"") + name + "\", \"padded\": " + (is_padded ? "true" : "false") +
            ", \"accesses\": [";
    for (std::size_t k = 0; k < accesses.size(); ++k) {
      const Access& a = accesses[k];
      text += (k ? ",\n" : "\n") + std::string("[") + std::to_string(a.thread) + ", " + std::to_string(a.tree) + ", " +
              std::to_string(a.stride) + ", " + std::to_string(a.left) + ", " + std::to_string(a.right) + ", " +
              std::to_string(a.write) + "]";
    }
    text += "]}";
  };
  layout("brent_kung", false, plain);
  text += ", ";
  layout("brent_kung_padded", true, padded);
  text += "]}\n";
  std::FILE* f = std::fopen(path, "w");
  if (f == nullptr || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0) {
    std::fprintf(stderr, "scanlab_11_4_banks: cannot write %s\n", path);
    return 1;
  }
  return 0;
}
