#!/usr/bin/env bash
# Section 11.9 on one GPU, in one go, from the repository root: build only what it needs (sm_90),
# run the 11.9 and 11.8 cuda tests, sweep the single-pass kernels' tile shapes, benchmark the
# applications against CUB and a copy, profile the compaction with Nsight Compute, and run the
# persistent select under compute-sanitizer.
#
#   OUT=/some/folder bash chapters/11_9_applications/bench_gpu.sh
#   STEPS="sweep bench" OUT=/some/folder bash chapters/11_9_applications/bench_gpu.sh
#
# Steps (STEPS, default all; the build always runs):
#   (in this order: sweep, bench, ncu, tests, sanitize)
#   tests  test_11_9_solution_cuda, and test_11_8_solution_cuda without its 2^30 test (its persistent
#          scan's ring is what the persistent select is built on)
#   sweep  scanlab_bench --sweep: every 11.9 single-pass and persistent shape at 2^SWEEP_LOG2 (default 24,28)
#          -> sweep.csv
#          (SWEEP_ONLY: other --only words, e.g. the compaction's shapes alone)
#   bench  scanlab_bench, the applications, CUB and memcpy, 2^10 .. 2^28, int32 and float -> applications.csv
#   ncu    Nsight Compute on the compaction (11.9 persistent, single pass and CUB's), int32, 2^28
#          -> ncu_compact.txt (NCU_WHO: other contenders, one word each; NCU_SWEEP=1 to reach a --sweep shape)
#   sanitize  compute-sanitizer memcheck, racecheck, synccheck and initcheck on scanlab_11_9's
#          persistent compaction and partition, int32 and double, n = 70001 (about a tile per block),
#          and on the tests of one to three blocks that take many tiles each (racecheck: the misaligned
#          one only, without bulk copies; it takes the mbarriers that order a stage's reuse for no
#          synchronisation and reports each bulk copy into a stage read before) -> sanitize.log
set -u -o pipefail
export PATH="$PATH:/usr/local/cuda/bin"
OUT=${OUT:-$PWD/gpu-out}
BUILD=${BUILD:-build/gpu}
STEPS=${STEPS-tests sweep bench ncu sanitize}
mkdir -p "$OUT"
wants() { [[ " $STEPS " == *" $1 "* ]]; }
status=0
step() { printf '\n=== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }
fail() { echo "FAILED: $1"; status=1; }
source "$(dirname "${BASH_SOURCE[0]}")/../11_8_decoupled_lookback/bench/gpu_build.sh"
apps=memcpy,cub_select_if,cub_partition_if,cub_inclusive_sum_by_key,11.9/

step "configure and build (scanlab_bench, scanlab_11_9, test_11_9_solution_cuda, test_11_8_solution_cuda; sm_90)"
gpu_build "$BUILD" 90 300 "$OUT/build.log" "$(nproc)" scanlab_bench scanlab_11_9 test_11_9_solution_cuda \
  test_11_8_solution_cuda
bench="$BUILD/bin/scanlab_bench"

if wants sweep; then
  step "sweep: the single-pass and persistent shapes at 2^${SWEEP_LOG2:-24,28}"
  timeout "${SWEEP_TIMEOUT:-170}" "$bench" --no-sections --sweep --only "${SWEEP_ONLY:-$apps}" --log2 "${SWEEP_LOG2:-24,28}" \
    --types int32,float --csv "$OUT/sweep.csv" >"$OUT/sweep.log" 2>&1 || fail "sweep (see sweep.log)"
  grep -E "2\^28" "$OUT/sweep.log"
fi

if wants bench; then
  step "benchmark: the applications, CUB, memcpy; 2^10 .. 2^28, int32 and float"
  timeout "${BENCH_TIMEOUT:-150}" "$bench" --no-sections --only "$apps" --min-log2 10 --max-log2 28 \
    --types int32,float --csv "$OUT/applications.csv" >"$OUT/bench.log" 2>&1 || fail "benchmark (see bench.log)"
  grep -E "FAILED" "$OUT/bench.log" | head -10
  grep -E "2\^28" "$OUT/bench.log"
fi

if wants ncu; then
  step "Nsight Compute: the compaction at 2^28 (11.9 persistent, single pass, then CUB)"
  for who in ${NCU_WHO:-11.9/compact_persistent 11.9/compact_single_pass cub_select_if}; do
    timeout 70 ncu --kernel-name regex:'persistent_select|select_single_pass|DeviceSelectSweep|DeviceSelect' \
      --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
      --section LaunchStats --section SchedulerStats \
      "$bench" --no-sections ${NCU_SWEEP:+--sweep} --only "$who" --log2 28 --types int32 --reps 1 --warmup 1 --csv /dev/null >>"$OUT/ncu_compact.txt" 2>&1 \
      || fail "ncu $who"
  done
  grep -E "persistent_select|select_single_pass|DeviceSelect|DRAM Throughput|Memory Throughput|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Warp Cycles Per Issued|No Eligible" "$OUT/ncu_compact.txt" | head -60
fi
if wants tests; then
  step "tests (cuda): 11.9, and 11.8 without its 2^30 test"
  timeout 100 "$BUILD/bin/test_11_9_solution_cuda" >"$OUT/tests.log" 2>&1 || fail "11.9 tests (see tests.log)"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==" "$OUT/tests.log" | tail -6
  timeout 100 "$BUILD/bin/test_11_8_solution_cuda" --gtest_filter='-*TwoToThe30*' >>"$OUT/tests.log" 2>&1 \
    || fail "11.8 tests (see tests.log)"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==" "$OUT/tests.log" | tail -4
fi

if wants sanitize; then
  step "compute-sanitizer: the persistent select, n = 70001"
  for tool in memcheck racecheck synccheck initcheck; do
    for algorithm in compact_persistent partition_persistent; do
      for type in int32 double; do
        if timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 9 "$BUILD/bin/scanlab_11_9" --backend cuda \
          --n 70001 --reps 0 --algorithm "$algorithm" --type "$type" >>"$OUT/sanitize.log" 2>&1; then
          echo "clean: $tool $algorithm $type" | tee -a "$OUT/sanitize.log"
        else
          fail "$tool $algorithm $type (see sanitize.log)"
        fi
      done
    done
    # (each block takes many tiles: the ring wraps, the staged tile and the prefix barriers are reused)
    tests=Persistent.FewBlocksMisaligned
    [[ $tool == racecheck ]] || tests=Persistent.FewBlocks:$tests
    if timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 "$BUILD/bin/test_11_9_solution_cuda" \
      --gtest_filter="$tests" >>"$OUT/sanitize.log" 2>&1; then
      echo "clean: $tool $tests" | tee -a "$OUT/sanitize.log"
    else
      fail "$tool $tests (see sanitize.log)"
    fi
  done
fi

exit $status
