#!/usr/bin/env bash
# scanlab on one GPU, in one go, from the repository root:
#
#   OUT=/some/folder bash chapters/11_8_decoupled_lookback/bench/run_gpu.sh
#   STEPS="tests sanitize" OUT=/some/folder bash chapters/11_8_decoupled_lookback/bench/run_gpu.sh
#
# Steps (STEPS, default all, in this order; the build always runs):
#   build     configure the `gpu` preset (the cuda backend only) for sm_90, Release; solutions only
#             (exercise stubs fail their tests by design, mutants are a cpu-backend affair); build all
#   tests     every cuda test of every section (ctest -L cuda -LE sanitize)
#   sanitize  compute-sanitizer memcheck, racecheck, synccheck, initcheck on every section's program
#             (ctest -L sanitize)
#   ncu       Nsight Compute's shared-memory bank-conflict counters for 11.4's two Brent-Kung kernels
#   inblock   the in-block scans of 11.2, 11.4, 11.5 timed at their section size, many sections in one
#             launch (--sections K for K = 132 .. 67584 blocks; int32)
#   bench     scanlab_bench for n = 2^10 .. 2^29: memcpy, CUB, Thrust and 11.8 (int32, float)
#   sections  the section tables of 11.6, 11.7, 11.8 with CUB and memcpy in one scanlab_bench run
#             (int32, float; n = 2^10 .. 2^28)
#   sweep     11.8's tile shapes at a few sizes
# Files in $OUT: build.log, and per step tests.log, sanitize.log, ncu.log, inblock.csv, bench.log,
# bench.csv, sections.csv, sweep.csv.
# Environment: OUT (default ./gpu-out), BUILD (default build/gpu), JOBS (default: all cores),
# BENCH_ARGS (extra arguments for the main benchmark run, e.g. "--types int32,float,int64,double"),
# SWEEP_TYPES (the element types of the sweep, default int32).
set -u -o pipefail
export PATH="$PATH:/usr/local/cuda/bin"
OUT=${OUT:-$PWD/gpu-out}
BUILD=${BUILD:-build/gpu}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
STEPS=${STEPS-tests sanitize ncu inblock bench sections sweep}
wants() { [[ " $STEPS " == *" $1 "* ]]; }
status=0
summary=""
step() { printf '\n=== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }
fail() { echo "FAILED: $1"; status=1; }

step "configure"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
nvcc --version | tail -2
cmake --preset gpu -B "$BUILD" -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_BUILD_TYPE=Release -DSCANLAB_BUILD_EXERCISES=OFF -DSCANLAB_BUILD_MUTANTS=OFF >"$OUT/build.log" 2>&1 \
  || { tail -30 "$OUT/build.log"; echo "configure failed"; exit 1; }
grep -E "scanlab_bench|scanlab:" "$OUT/build.log" || true

step "build (everything of the cuda backend)"
if ! timeout 420 ninja -C "$BUILD" -j "$JOBS" -k 0 >>"$OUT/build.log" 2>&1; then
  grep -E "error|FAILED" "$OUT/build.log" | head -40
  fail "build (see build.log)"
fi
tail -1 "$OUT/build.log"

if wants tests; then
  step "tests: every cuda test of every section"
  if timeout 300 ctest --test-dir "$BUILD" -L cuda -LE sanitize -j 8 --timeout 240 --no-tests=error \
      --output-on-failure >"$OUT/tests.log" 2>&1; then
    tail -3 "$OUT/tests.log"
  else
    grep -E "tests passed|Failed|\*\*\*|Timeout|Skipped" "$OUT/tests.log" | head -40
    fail "tests (see tests.log)"
  fi
fi

if wants sanitize; then
  step "compute-sanitizer on every section's program (ctest -L sanitize)"
  if timeout 300 ctest --test-dir "$BUILD" -L sanitize -j 8 --timeout 280 --no-tests=error \
      --output-on-failure >"$OUT/sanitize.log" 2>&1; then
    tail -3 "$OUT/sanitize.log"
  else
    grep -E "tests passed|Failed|\*\*\*|Timeout|ERROR SUMMARY: [1-9]" "$OUT/sanitize.log" | head -40
    fail "compute-sanitizer (see sanitize.log)"
  fi
fi

if wants ncu; then
  # Shared-memory bank conflicts of one launch of each Brent-Kung kernel, 2048 int32 (one section).
  step "Nsight Compute: shared-memory bank conflicts of 11.4's kernels"
  metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  metrics=$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  : >"$OUT/ncu.log"
  for algorithm in brent_kung brent_kung_padded; do
    if timeout 120 ncu --csv --metrics "$metrics" "$BUILD/bin/scanlab_11_4" --backend cuda --reps 0 \
        --algorithm "$algorithm" >>"$OUT/ncu.log" 2>&1; then
      grep -E '"(l1tex[^"]*)"' "$OUT/ncu.log" | tail -4 | awk -F'","' -v a="$algorithm" '{ print "  " a ": " $(NF-2) " = " $NF }'
    else
      fail "ncu $algorithm (see ncu.log)"
    fi
  done
fi

if wants inblock; then
  # 132 blocks = one per SM of an H100; then 8x, 64x, 512x that: from a GPU barely full to a long grid.
  step "in-block scans at their section size, many sections in one launch (11.2, 11.4, 11.5)"
  : >"$OUT/inblock.log"
  for section in 11_2 11_4 11_5; do
    for k in 132 1056 8448 67584; do
      timeout 120 "$BUILD/bin/scanlab_$section" --backend cuda --sections "$k" --type int32 --reps 20 \
        --csv "$OUT/inblock.csv" >>"$OUT/inblock.log" 2>&1 || fail "scanlab_$section --sections $k (see inblock.log)"
    done
  done
  # (Counted from the end: the device column is quoted and holds commas.)
  awk -F, 'NR > 1 { printf "  %-28s n = %-10s %-6s %10s ms %9s GB/s\n", $2, $(NF-11), $(NF-9), $(NF-7), $(NF-5) }' \
    "$OUT/inblock.csv"
fi

bench="$BUILD/bin/scanlab_bench"
if wants bench; then
  # The libraries and 11.8 first, the other sections' tables in a run of their own: a section that
  # hangs or fails cannot cost the main numbers (and every run writes its CSV row by row).
  step "benchmark: memcpy, CUB, Thrust, 11.8; n = 2^10 .. 2^29"
  # shellcheck disable=SC2086
  timeout 240 "$bench" --no-sections --min-log2 10 --max-log2 29 --types int32,float --csv "$OUT/bench.csv" \
    ${BENCH_ARGS:-} >"$OUT/bench.log" 2>&1 || fail "benchmark (see bench.log)"
  grep -E "FAILED|MISS" "$OUT/bench.log" | head -20
  summary=$(sed -n '/inclusive sum, median us/,$p' "$OUT/bench.log")
fi

if wants sections; then
  # One run: the sections' tables (every block scan inside 11.6), CUB and the copy, int32 and float.
  step "benchmark: sections 11.6, 11.7, 11.8 through their tables (run_scan), CUB, memcpy; n = 2^10 .. 2^28"
  timeout 240 "$bench" --only 11.6/,11.7/,11.8/,cub_inclusive_sum,memcpy --min-log2 10 --max-log2 28 \
    --types int32,float --csv "$OUT/sections.csv" >>"$OUT/bench.log" 2>&1 || fail "section benchmark (see bench.log)"
  awk -F, 'NR > 1 && $12 == 0 { print "  FAILED " $7 " " $8 " n = " $9 }' "$OUT/sections.csv" | head -10
  # Fastest section algorithm per size (int32):
  awk -F, 'NR > 1 && $12 == 1 && $8 == "int32" && $7 ~ /^11\./ { if (!($9 in best) || $10 < best[$9]) { best[$9] = $10; name[$9] = $7 } }
           END { for (n in best) printf "  n = %-10s fastest section: %-36s %10.2f us\n", n, name[n], best[n] }' \
    "$OUT/sections.csv" | sort -t= -k2 -n
fi

if wants sweep; then
  step "sweep of 11.8's tile shapes (int32)"
  timeout 120 "$bench" --sweep --only decoupled_lookback,cub_inclusive_sum,memcpy --no-sections \
    --log2 12,16,20,24,28 --types "${SWEEP_TYPES:-int32}" --csv "$OUT/sweep.csv" >>"$OUT/bench.log" 2>&1 || fail "sweep (see bench.log)"
  # Fastest shape per size:
  awk -F, 'NR > 1 && $12 == 1 && $7 ~ /^decoupled_lookback/ && $8 == "int32" {
             if (!($9 in best) || $10 < best[$9]) { best[$9] = $10; name[$9] = $7 } }
           END { for (n in best) printf "  n = %-10s fastest %-30s %8.2f us\n", n, name[n], best[n] }' \
    "$OUT/sweep.csv" | sort -t= -k2 -n
fi

if [ -n "$summary" ]; then
  step "summary (memcpy, CUB, Thrust, 11.8; from bench.csv)"
  echo "$summary"
fi
[ $status -eq 0 ] && echo "run_gpu.sh: all steps passed ($STEPS)" || echo "run_gpu.sh: some steps FAILED (see above)"
exit $status
