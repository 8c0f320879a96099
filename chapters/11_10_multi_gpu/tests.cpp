// Section 11.10 grading tests: the scan across devices, both ways (carry; reduce, then scan with a
// carry in), on fresh seeded inputs, with poisoned outputs, checked against the CPU reference. The
// carry way on 3 devices: every type, operator, inclusive and exclusive, in place, at the edge sizes
// (n = 0, 1, n smaller than the devices, pieces of unequal size), with the race check on the cpu
// backend. Each way on 1 to 4 devices: every operator and kind at sizes around the devices' count and
// 11.8's tiles. The cpu backend models exactly that many devices; a GPU machine uses as many GPUs as
// it has, at most that many (a machine without a GPU shows these tests as skipped).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "multi_gpu_algorithms.hpp"
#include "scanlab/testing.hpp"

namespace {

using namespace scanlab;

const AlgorithmTable& table() { return grading::linked_table<s11_10::linked_tables>(); }
// Each way on a fixed number of devices (algorithms.hpp): carry_on_3 and reduce_then_scan_on_3 first.
const AlgorithmTable& test_table() {
  return grading::kept_table<SCANLAB_LINKED_ENTRY(s11_10::test_algorithms)>();
}
bool on_gpu() { return table().backend == Backend::cuda; }

// Every type, operator and kind of the carry way on 3 devices (what the exercise writes, carry_before
// and the exchange, serves both ways): pieces of unequal size wherever 3 does not divide n, and empty
// pieces for n = 0, 1, 2. Up to 3001 elements on the emulator (pieces of up to 1001: 11.8's one-tile
// and small shapes; EveryDeviceCount below reaches its large shape), 2^22 + 5 on a GPU.
const bool registered = grading::register_grading_tests(grading::first_algorithm_only(test_table()),
                                                        SCANLAB_GRADING_OPTIONS(on_gpu() ? (1u << 22) + 5 : 3001));

// Each way on 1 to 4 devices (the carry way's 3 above), every operator and kind (int32 and float64:
// both widths of 11.8's tile statuses, with and without a carry in), at sizes around the device
// count and around 11.8's tiles on the emulator.
TEST(Section11_10, EveryDeviceCount) {
  SCANLAB_SKIP_IF_UNAVAILABLE(test_table());
  for (const char* way : {"carry", "reduce_then_scan"}) {
    for (const int devices : {1, 2, 3, 4}) {
      if (devices == 3 && std::string(way) == "carry") continue;  // (graded above)
      const std::string name = std::string(way) + "_on_" + std::to_string(devices);
      const Algorithm algorithm = grading::algorithm_named(test_table(), name);
      const std::vector<std::size_t> sizes = {0, 1, 3, 4, 5, 7, 1023, 4099, 8195};
      for (const DType type : {DType::int32, DType::float64}) {
        for (const OpKind op : kAllOps) {
          for (const ScanKind kind : kAllKinds) {
            EXPECT_EQ(grading::check_sizes(algorithm, type, op, kind, sizes, kind == ScanKind::exclusive), "")
                << name << " " << scanlab::name(type) << " " << scanlab::name(op) << " " << scanlab::name(kind)
                << "; see " << SCANLAB_SOURCE_HINT;
          }
        }
      }
    }
  }
}

// The out-of-core scan in pieces of 1000 elements, so that a few thousand elements take several pieces
// and every buffer is reused: every type, operator and kind, in place too, at sizes around the pieces
// (one short piece, exactly one, one element more, a short last piece after full ones).
TEST(Section11_10, OutOfCoreInPieces) {
  SCANLAB_SKIP_IF_UNAVAILABLE(test_table());
  const Algorithm algorithm = grading::algorithm_named(test_table(), "out_of_core_small_pieces");
  const std::vector<std::size_t> sizes = {0, 1, 999, 1000, 1001, 3000, 4321};
  for (const DType type : kAllTypes) {
    for (const OpKind op : kAllOps) {
      for (const ScanKind kind : kAllKinds) {
        EXPECT_EQ(grading::check_sizes(algorithm, type, op, kind, sizes, true), "")
            << scanlab::name(type) << " " << scanlab::name(op) << " " << scanlab::name(kind) << "; see "
            << SCANLAB_SOURCE_HINT;
      }
    }
  }
}

// NCCL's all-gather in place of exchange_totals (the given NcclExchange; on the cpu backend the
// emulator's model of NCCL): both ways, every operator and kind of int32 and double. Feedback, worth no
// points: the exchange it tests is not the student's. Skipped on a cuda build without NCCL. On a GPU
// every run makes its communicators (ncclCommInitAll, a good part of a second): add and `last` only.
TEST(Nccl, BothWaysWithAllGather) {
  SCANLAB_SKIP_IF_UNAVAILABLE(test_table());
  const std::vector<OpKind> ops = on_gpu() ? std::vector<OpKind>{OpKind::add, OpKind::last}
                                           : std::vector<OpKind>(std::begin(kAllOps), std::end(kAllOps));
  for (const char* name : {"carry_nccl_on_3", "reduce_then_scan_nccl_on_2"}) {
    const Algorithm algorithm = grading::algorithm_named(test_table(), name);
    for (const DType type : {DType::int32, DType::float64}) {
      for (const OpKind op : ops) {
        for (const ScanKind kind : kAllKinds) {
          const std::string error = grading::check_sizes(algorithm, type, op, kind, {0, 1, 2, 5, 4099}, true);
          if (error.find(s11_10::kNoNccl) != std::string::npos) GTEST_SKIP() << error;
          EXPECT_EQ(error, "") << name << " " << scanlab::name(type) << " " << scanlab::name(op) << " "
                               << scanlab::name(kind);
        }
      }
    }
  }
}

// The given look-back across GPUs (11.8's persistent scan, the tiles dealt out in turn) on 1 to 4
// devices: every operator and kind of int32 and double, at sizes that give every device none, one or
// several tiles, the last one short, and (add) more than one look-back window of 32 tiles. 11.8's large
// tile: 8192 int32 or 2048 double elements on a GPU, 2048 or 1024 on the emulator (PersistentTuning).
// Feedback, worth no points: none of it is the student's (the student release runs it on the given
// stand-in, which chains the tiles instead of looking back).
TEST(LookBack, AcrossDevices) {
  SCANLAB_SKIP_IF_UNAVAILABLE(test_table());
  for (const int devices : {1, 2, 3, 4}) {
    const std::string name = "look_back_on_" + std::to_string(devices);
    const Algorithm algorithm = grading::algorithm_named(test_table(), name);
    for (const DType type : {DType::int32, DType::float64}) {
      const bool four_bytes = type == DType::int32;
      const std::size_t tile = on_gpu() ? (four_bytes ? 8192 : 2048) : (four_bytes ? 2048 : 1024);
      for (const OpKind op : kAllOps) {
        std::vector<std::size_t> sizes = {0, 1, tile + 1, 2 * tile, 4 * tile + 3};
        if (op == OpKind::add) sizes.push_back(33 * tile + 5);
        if (on_gpu()) sizes.push_back((std::size_t{1} << 22) + 5);
        for (const ScanKind kind : kAllKinds) {
          EXPECT_EQ(grading::check_sizes(algorithm, type, op, kind, sizes, kind == ScanKind::exclusive), "")
              << name << " " << scanlab::name(type) << " " << scanlab::name(op) << " " << scanlab::name(kind);
        }
      }
    }
  }
}

// The section's own algorithms, on every device there is (the cpu backend: SCANLAB_EMU_DEVICES,
// default 1), as the program runs them.
TEST(Section11_10, OnEveryDeviceThereIs) {
  SCANLAB_SKIP_IF_UNAVAILABLE(table());
  for (const Algorithm& algorithm : table().algorithms) {
    EXPECT_EQ(grading::check_sizes(algorithm, DType::int64, OpKind::add, ScanKind::inclusive, {1, 1000, 100003}), "")
        << algorithm.name << "; see " << SCANLAB_SOURCE_HINT;
  }
}

// The look-back across GPUs in runs of other lengths than the default (SCANLAB_LOOKBACK_RUN): one tile
// (every tile's status its own) and three (the status of a run's last tile stands for its run), on 2 and 3
// devices, at sizes of more than 32 runs, so that a look-back steps over more than one window of runs.
TEST(LookBack, RunLengths) {
  SCANLAB_SKIP_IF_UNAVAILABLE(test_table());
  struct RunLength {  // SCANLAB_LOOKBACK_RUN for one pass of the loop
    explicit RunLength(unsigned run) { setenv("SCANLAB_LOOKBACK_RUN", std::to_string(run).c_str(), 1); }
    ~RunLength() { unsetenv("SCANLAB_LOOKBACK_RUN"); }
  };
  for (const unsigned run : {1u, 3u}) {
    const RunLength length(run);
    for (const int devices : {2, 3}) {
      const std::string name = "look_back_on_" + std::to_string(devices);
      const Algorithm algorithm = grading::algorithm_named(test_table(), name);
      const std::size_t tile = on_gpu() ? 8192 : 2048;  // int32
      const std::vector<std::size_t> sizes = {run * tile - 1, 40 * run * tile + 7};
      for (const ScanKind kind : kAllKinds) {
        EXPECT_EQ(grading::check_sizes(algorithm, DType::int32, OpKind::add, kind, sizes, true), "")
            << name << " runs of " << run << " tiles " << scanlab::name(kind);
      }
    }
  }
}

}  // namespace
