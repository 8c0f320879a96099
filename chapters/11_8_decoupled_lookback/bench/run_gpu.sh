#!/usr/bin/env bash
# scanlab on one GPU, in one go (about 5-8 minutes on a 16-core H100 machine), from the repository root:
#
#   OUT=/some/folder bash chapters/11_8_decoupled_lookback/bench/run_gpu.sh
#
# 1. configures the cuda backend only (like the `gpu` preset: -DSCANLAB_BACKENDS=cuda, sm_90, Ninja;
#    solutions only: exercise stubs fail their tests by design, mutants are a cpu-backend affair),
# 2. builds only what it runs: the cuda tests of 11.6, 11.7 and 11.8 (those that exist), scanlab_11_8,
#    scanlab_bench,
# 3. runs those tests (the cuda tests of sections 11.6-11.8),
# 4. runs scanlab_bench for n = 2^10 .. 2^29: memcpy, CUB, Thrust and 11.8 (int32, float); then the
#    section tables of 11.6, 11.7, 11.8 (int32); then a sweep of 11.8's tile shapes at a few sizes,
# 5. runs compute-sanitizer (memcheck, racecheck, synccheck) on scanlab_11_8 at small n,
# 6. prints the benchmark's short table last.
# Files in $OUT (7): build.log, tests.log, bench.log, bench.csv, sections.csv, sweep.csv, sanitizer.log.
# Environment: OUT (default ./gpu-out), BUILD (default build/gpu), JOBS (default: all cores),
# BENCH_ARGS (extra arguments for the main benchmark run, e.g. "--types int32,float,int64,double").
set -u -o pipefail
export PATH="$PATH:/usr/local/cuda/bin"
OUT=${OUT:-$PWD/gpu-out}
BUILD=${BUILD:-build/gpu}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
status=0
summary=""
step() { printf '\n=== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }
fail() { echo "FAILED: $1"; status=1; }

step "configure"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
cmake -S . -B "$BUILD" -G Ninja -DSCANLAB_BACKENDS=cuda -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_BUILD_TYPE=Release -DSCANLAB_BUILD_EXERCISES=OFF -DSCANLAB_BUILD_MUTANTS=OFF >"$OUT/build.log" 2>&1 \
  || { tail -30 "$OUT/build.log"; echo "configure failed"; exit 1; }
grep -E "scanlab_bench|scanlab:" "$OUT/build.log" || true

step "build"
targets=""
all_targets=$(ninja -C "$BUILD" -t targets all 2>/dev/null | cut -d: -f1)
for t in test_11_6_solution_cuda test_11_7_solution_cuda test_11_8_solution_cuda scanlab_11_8 scanlab_bench; do
  if grep -qx "$t" <<<"$all_targets"; then targets="$targets $t"; else echo "(no target $t)"; fi
done
echo "building:$targets"
if ! timeout 300 ninja -C "$BUILD" -j "$JOBS" $targets >>"$OUT/build.log" 2>&1; then
  grep -E "error|FAILED" "$OUT/build.log" | head -40
  fail "build (see build.log)"
fi
tail -1 "$OUT/build.log"

# Selected by name (<section>.solution.cuda.*), the same set as `-L cuda` for these sections, and
# independent of how the labels are attached.
step "tests: the cuda tests of sections 11.6-11.8"
if timeout 150 ctest --test-dir "$BUILD" -R '^11\.(6|7|8)\.solution\.cuda\.' -j 8 --timeout 120 --no-tests=error --output-on-failure \
    >"$OUT/tests.log" 2>&1; then
  tail -3 "$OUT/tests.log"
else
  grep -E "tests passed|Failed|\*\*\*|Timeout" "$OUT/tests.log" | head -40
  fail "tests (see tests.log)"
fi

bench="$BUILD/bin/scanlab_bench"
if [ -x "$bench" ]; then
  # The libraries and 11.8 first, the other sections' tables in a run of their own: a section that
  # hangs or fails cannot cost the main numbers (and every run writes its CSV row by row).
  step "benchmark: memcpy, CUB, Thrust, 11.8; n = 2^10 .. 2^29"
  # shellcheck disable=SC2086
  timeout 240 "$bench" --no-sections --min-log2 10 --max-log2 29 --types int32,float --csv "$OUT/bench.csv" \
    ${BENCH_ARGS:-} >"$OUT/bench.log" 2>&1 || fail "benchmark (see bench.log)"
  grep -E "FAILED|MISS" "$OUT/bench.log" | head -20
  summary=$(sed -n '/inclusive sum, median us/,$p' "$OUT/bench.log")

  step "benchmark: sections 11.6, 11.7, 11.8 through their tables (run_scan); n = 2^10 .. 2^29"
  timeout 150 "$bench" --only 11.6/,11.7/,11.8/ --min-log2 10 --max-log2 29 --types int32 \
    --csv "$OUT/sections.csv" >>"$OUT/bench.log" 2>&1 || fail "section benchmark (see bench.log)"
  awk -F, 'NR > 1 && $12 == 0 { print "  FAILED " $7 " " $8 " n = " $9 }' "$OUT/sections.csv" | head -10

  step "sweep of 11.8's tile shapes (int32)"
  timeout 120 "$bench" --sweep --only decoupled_lookback,cub_inclusive_sum,memcpy --no-sections \
    --log2 12,16,20,24,28 --types int32 --csv "$OUT/sweep.csv" >>"$OUT/bench.log" 2>&1 || fail "sweep (see bench.log)"
  # Fastest shape per size:
  awk -F, 'NR > 1 && $12 == 1 && $7 ~ /^decoupled_lookback/ {
             if (!($9 in best) || $10 < best[$9]) { best[$9] = $10; name[$9] = $7 } }
           END { for (n in best) printf "  n = %-10s fastest %-30s %8.2f us\n", n, name[n], best[n] }' \
    "$OUT/sweep.csv" | sort -t= -k2 -n
  # Fastest section algorithm per size (run_scan timing, L2 warm):
  awk -F, 'NR > 1 && $12 == 1 { if (!($9 in best) || $10 < best[$9]) { best[$9] = $10; name[$9] = $7 } }
           END { for (n in best) printf "  n = %-10s fastest section: %-36s %10.2f us\n", n, name[n], best[n] }' \
    "$OUT/sections.csv" | sort -t= -k2 -n
else
  fail "no scanlab_bench"
fi

step "compute-sanitizer on scanlab_11_8 (small n)"
prog="$BUILD/bin/scanlab_11_8"
: >"$OUT/sanitizer.log"
if command -v compute-sanitizer >/dev/null && [ -x "$prog" ]; then
  for run in "memcheck|--type int32 --n 70001" "memcheck|--type double --op last --exclusive --n 40003" \
             "racecheck|--type int32 --n 20001" "racecheck|--type double --n 9001" "synccheck|--type float --n 20001"; do
    tool=${run%%|*}
    args=${run#*|}
    # shellcheck disable=SC2086
    if timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 3 "$prog" --backend cuda --reps 0 $args \
        >>"$OUT/sanitizer.log" 2>&1; then
      echo "  $tool $args: clean"
    else
      fail "compute-sanitizer $tool $args (see sanitizer.log)"
    fi
  done
else
  echo "(compute-sanitizer or scanlab_11_8 missing: skipped)"
fi

step "summary (memcpy, CUB, Thrust, 11.8; from bench.csv)"
echo "${summary:-(no benchmark summary)}"
[ $status -eq 0 ] && echo "run_gpu.sh: all steps passed" || echo "run_gpu.sh: some steps FAILED (see above)"
exit $status
