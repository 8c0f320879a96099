#!/usr/bin/env bash
# Section 11.10 on a host with several GPUs, in one go, from the repository root: build only what it
# needs (sm_90a), run the section's cuda tests, time the three ways on every GPU against one GPU's 11.8
# persistent scan (int32, inclusive add, n = 2^24 .. 2^30, median of 20 after one warm-up, L2 not
# emptied), and run compute-sanitizer's memcheck on a small scan across the GPUs.
#
#   OUT=/some/folder bash chapters/11_10_multi_gpu/bench_gpu.sh
#   STEPS="bench" OUT=... bash ...      (steps: tests bench sanitize out_of_core; the build always runs)
#
# out_of_core: scanlab_11_10_out_of_core at n = 2^OOC_LOG2 (default 30,32,34,35: 2^35 int32 is 128 GiB
# of page-locked host memory, for a host with more than that) and at the sizes OOC_N (none by default),
# then memcheck on it in small pieces.
#
# The programs write the section programs' CSV (docs/measurements/measurements.py reads it).
set -u -o pipefail
export PATH="$PATH:/usr/local/cuda/bin"
export NCCL_NVLS_ENABLE=0  # never NVLink multicast on these shared hosts
OUT=${OUT:-$PWD/gpu-out}
BUILD=${BUILD:-build/gpu}
STEPS=${STEPS-tests bench sanitize out_of_core}
OOC_LOG2=${OOC_LOG2:-30,32,34,35}
LOG2=${LOG2:-24 25 26 27 28 29 30}
RUNS=${RUNS:-}  # look_back's runs to sweep (SCANLAB_LOOKBACK_RUN), e.g. "1 4 16 64"; none: its default
mkdir -p "$OUT"
wants() { [[ " $STEPS " == *" $1 "* ]]; }
status=0
step() { printf '\n=== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }
fail() { echo "FAILED: $1"; status=1; }
source "$(dirname "${BASH_SOURCE[0]}")/../11_8_decoupled_lookback/bench/gpu_build.sh"

step "configure and build (scanlab_11_8, scanlab_11_10, scanlab_11_10_out_of_core, test_11_10_solution_cuda; sm_90a)"
gpu_build "$BUILD" 90a "${BUILD_TIMEOUT:-420}" "$OUT/build.log" "$(nproc)" scanlab_11_8 scanlab_11_10 \
  scanlab_11_10_out_of_core test_11_10_solution_cuda
nvidia-smi topo -m || true

if wants tests; then
  step "tests: test_11_10_solution_cuda"
  timeout 300 "$BUILD/bin/test_11_10_solution_cuda" >"$OUT/tests.log" 2>&1 || fail "tests (see tests.log)"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" "$OUT/tests.log"
fi

if wants bench; then
  step "bench: carry, reduce_then_scan and look_back on every GPU, 11.8's persistent scan on one, int32 add"
  csv="$OUT/multi_gpu.csv"
  for k in $LOG2; do
    n=$((1 << k))
    timeout 300 "$BUILD/bin/scanlab_11_10" --backend cuda --n "$n" --reps 20 --algorithm carry \
      --algorithm reduce_then_scan --algorithm look_back --csv "$csv" || fail "11.10 at 2^$k"  # (out_of_core: the out_of_core step)
    timeout 120 "$BUILD/bin/scanlab_11_8" --backend cuda --n "$n" --reps 20 --algorithm persistent_pipelined \
      --csv "$csv" || fail "11.8 at 2^$k"
    for run in $RUNS; do
      SCANLAB_LOOKBACK_RUN=$run timeout 300 "$BUILD/bin/scanlab_11_10" --backend cuda --n "$n" --reps 20 \
        --algorithm look_back --csv "$OUT/look_back_run_$run.csv" || fail "look_back, runs of $run, at 2^$k"
    done
  done 2>&1 | grep -E "FAILED|median|error"  # (no head: it would end the loop early)
fi

if wants sanitize; then
  step "sanitize: compute-sanitizer memcheck on scanlab_11_10, int32 and double, n = 100001"
  for t in int32 double; do
    timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 "$BUILD/bin/scanlab_11_10" --backend cuda \
      --n 100001 --type "$t" --exclusive --reps 0 >>"$OUT/sanitize.log" 2>&1 || fail "memcheck $t"
  done
  tail -5 "$OUT/sanitize.log"
fi
if wants out_of_core; then
  step "out_of_core: an int32 array in host memory through GPU 0, n = 2^{$OOC_LOG2}, against a copy in and back"
  free -g | head -2
  timeout 540 "$BUILD/bin/scanlab_11_10_out_of_core" --log2 "$OOC_LOG2" ${OOC_N:+--n "$OOC_N"} --reps 5 --csv "$OUT/out_of_core.csv" \
    2>&1 | tee "$OUT/out_of_core.log" || fail "out_of_core"
  step "out_of_core under compute-sanitizer memcheck: n = 2^20 in pieces of 1 MiB"
  timeout 300 compute-sanitizer --tool memcheck --error-exitcode 3 "$BUILD/bin/scanlab_11_10_out_of_core" --log2 20 \
    --piece-mib 1 --reps 1 --csv "$OUT/out_of_core_memcheck.csv" >"$OUT/out_of_core_memcheck.log" 2>&1 \
    || fail "out_of_core memcheck"
  tail -3 "$OUT/out_of_core_memcheck.log"
fi
exit $status
