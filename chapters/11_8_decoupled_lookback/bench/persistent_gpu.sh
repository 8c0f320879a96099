#!/usr/bin/env bash
# Section 11.8's persistent pipelined kernel (persistent_scan.cuh) on one GPU, in one go, from the
# repository root: build only what it needs, test it, sanitize it, benchmark it against memcpy, CUB,
# Thrust and the book-style look-back, sweep its shapes, time its roles, and profile it.
#
#   OUT=/some/folder bash chapters/11_8_decoupled_lookback/bench/persistent_gpu.sh
#   STEPS="tests bench" OUT=/some/folder bash chapters/11_8_decoupled_lookback/bench/persistent_gpu.sh
#
# Steps (STEPS, default all; the build always runs, of TARGETS, default the four programs):
#   tests     the 11.8 cuda tests of the persistent kernel (grading grid, 100 launches, 2^30, ...)
#   sanitize  compute-sanitizer memcheck, racecheck, synccheck, initcheck on scanlab_11_8: the ctest
#             runs 11.8.sanitize.* (both kernels, n = 20001: the persistent kernel's small shape),
#             11.8.small.sanitize.* (n = 131073: the small shape, look-backs through several windows) and
#             11.8.large.sanitize.* (the persistent kernel at n = 300001: its large shape, a partial last
#             tile), then the same four tools on the persistent kernel's one-tile path (n = 3001)
#   bench     scanlab_bench, n = 2^BENCH_MIN_LOG2 (default 10) .. 2^BENCH_MAX_LOG2 (default 29),
#             BENCH_TYPES (default int32, float, int64, double) -> bench.csv; BENCH_TIMEOUT seconds at
#             most (default 330)
#   sweep     the persistent kernel's shapes (warps x items x stages x look-back windows) at SWEEP_LOG2
#             (default 10,12,14,16,18,20,22,24,28) for SWEEP_TYPES (default int32,int64) -> sweep.csv
#   roles     time per role (scanlab_persistent_roles: the kernel's clock64 stamps per tile), int32,
#             n = 2^ROLES_LOG2 (default "10 12 14 16 18 20 22 24") -> roles.csv
#   ncu       Nsight Compute on the tuned kernel, int32, at 2^NCU_LOG2 (default 28; several: "28 20"): DRAM
#             throughput, occupancy, warp stall reasons -> ncu_<log2>.txt
set -u -o pipefail
export PATH="$PATH:/usr/local/cuda/bin"
OUT=${OUT:-$PWD/gpu-out}
BUILD=${BUILD:-build/gpu}
JOBS=${JOBS:-$(nproc)}
STEPS=${STEPS-tests sanitize bench sweep roles ncu}
SWEEP_TYPES=${SWEEP_TYPES:-int32,int64}
SWEEP_LOG2=${SWEEP_LOG2:-10,12,14,16,18,20,22,24,28}
mkdir -p "$OUT"
wants() { [[ " $STEPS " == *" $1 "* ]]; }
status=0
step() { printf '\n=== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }
fail() { echo "FAILED: $1"; status=1; }
source "$(dirname "${BASH_SOURCE[0]}")/gpu_build.sh"

step "configure and build (test_11_8_solution_cuda, scanlab_11_8, scanlab_bench, scanlab_persistent_roles; sm_${CUDA_ARCH:-90a})"
TARGETS=${TARGETS:-test_11_8_solution_cuda scanlab_11_8 scanlab_bench scanlab_persistent_roles}
# shellcheck disable=SC2086  # TARGETS: several names
gpu_build "$BUILD" "${CUDA_ARCH:-90a}" 400 "$OUT/build.log" "$JOBS" $TARGETS
bench="$BUILD/bin/scanlab_bench"

if wants tests; then
  step "tests (cuda): the persistent kernel"
  timeout 240 "$BUILD/bin/test_11_8_solution_cuda" --gtest_filter='*Persistent*:Grading.persistent*' >"$OUT/tests.log" 2>&1 \
    || fail "tests (see tests.log)"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==" "$OUT/tests.log" | tail -8
fi

if wants sanitize; then
  step "compute-sanitizer on scanlab_11_8 (ctest -R '11.8(.large|.small)?.sanitize')"
  timeout ${SANITIZE_TIMEOUT:-300} ctest --test-dir "$BUILD" -R '^11\.8\.(large\.|small\.)?sanitize' -j 8 --timeout 280 \
    --output-on-failure >"$OUT/sanitize.log" 2>&1 || fail "sanitize (see sanitize.log)"
  grep -E "tests passed|Failed|\*\*\*|Timeout" "$OUT/sanitize.log" | head -20
  for tool in memcheck racecheck synccheck initcheck; do
    log="$OUT/sanitize_one_tile.log"
    echo "--- $tool int32 --inclusive n = 3001" >>"$log"
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 3 "$BUILD/bin/scanlab_11_8" --backend cuda --reps 0 \
      --algorithm persistent_pipelined --type int32 --inclusive --n 3001 >>"$log" 2>&1 || fail "$tool n = 3001 (see sanitize_one_tile.log)"
  done
  grep -E "^---|SUMMARY" "$OUT/sanitize_one_tile.log"
fi

if wants bench; then
  step "benchmark: memcpy, CUB, Thrust, 11.8 look-back, persistent; n = 2^10 .. 2^29, four types"
  timeout "${BENCH_TIMEOUT:-330}" "$bench" --no-sections --only persistent,decoupled_lookback,cub_inclusive_sum,thrust,memcpy \
    --min-log2 "${BENCH_MIN_LOG2:-10}" --max-log2 "${BENCH_MAX_LOG2:-29}" --types "${BENCH_TYPES:-int32,float,int64,double}" \
    --csv "$OUT/bench.csv" >"$OUT/bench.log" 2>&1 || fail "benchmark (see bench.log)"
  grep -E "FAILED" "$OUT/bench.log" | head -10
  sed -n '/persistent (median us)/,$p' "$OUT/bench.log"
fi

if wants sweep; then
  step "sweep of the persistent kernel's shapes"
  timeout "${SWEEP_TIMEOUT:-200}" "$bench" --sweep --only persistent,cub_inclusive_sum,memcpy --no-sections --log2 "$SWEEP_LOG2" \
    --types "$SWEEP_TYPES" --csv "$OUT/sweep.csv" >"$OUT/sweep.log" 2>&1 || fail "sweep (see sweep.log)"
  awk -F, 'NR > 1 && $12 == 1 { printf "  %-6s 2^%-4.0f %-26s %9.2f us\n", $8, log($9)/log(2), $7, $10 }' "$OUT/sweep.csv" \
    | sort -k1,1 -k2,2 -k4,4n | awk '{ key = $1 " " $2; if (seen[key]++ < 4) print }'
fi

if wants roles; then
  step "time per role (clock64 stamps per tile), int32"
  timeout 120 "$BUILD/bin/scanlab_persistent_roles" ${ROLES_LOG2:-10 12 14 16 18 20 22 24} >"$OUT/roles.csv" 2>&1 \
    || fail "roles (see roles.csv)"
  grep -E "landed,|landed_to_scan|lookback,|prefix_to_stored|,stored," "$OUT/roles.csv"
fi

if wants ncu; then
  for log2 in ${NCU_LOG2:-28}; do
    step "Nsight Compute: the tuned persistent kernel, int32, 2^$log2"
    timeout 200 ncu --kernel-name regex:persistent_scan_kernel --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
      --section Occupancy --section LaunchStats \
      --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" \
      "$bench" --only persistent --no-sections --log2 "$log2" --types int32 --reps 1 --warmup 1 \
      --csv "$OUT/ncu_bench.csv" >"$OUT/ncu_$log2.txt" 2>&1 || fail "ncu at 2^$log2 (see ncu_$log2.txt)"
    grep -E "DRAM Throughput|Memory Throughput|Duration|Warp Cycles|Achieved Occupancy|Registers" "$OUT/ncu_$log2.txt" | head -12
    # the largest stall reasons (warps per issued instruction)
    grep -E "issue_stalled_.*ratio" "$OUT/ncu_$log2.txt" | sort -k3 -g -r | head -8
  done
fi
[ $status -eq 0 ] && echo "persistent_gpu.sh: all steps passed ($STEPS)" || echo "persistent_gpu.sh: some steps FAILED"
exit $status
