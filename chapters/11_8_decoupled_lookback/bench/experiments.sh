#!/usr/bin/env bash
# 11.8's "what did not help" experiments, reproducible: each variant is the committed kernel with one
# small source change (a sed below), built into its own copy of scanlab_bench and timed in the same
# session as the baseline, int32 inclusive sum, with CUB and memcpy for reference. Run from the
# repository root on a GPU machine after `STEPS= bash chapters/11_8_decoupled_lookback/bench/run_gpu.sh`
# (which configures and builds build/gpu):
#
#   OUT=/some/folder bash chapters/11_8_decoupled_lookback/bench/experiments.sh [VARIANT...]
#
# Writes $OUT/experiments.csv (the bench CSV with a first column "variant") and experiments.log. The two source files are
# copied first and put back after each variant (no git needed on the GPU machine).
set -u -o pipefail
OUT=${OUT:-$PWD/gpu-out}
BUILD=${BUILD:-build/gpu}
LOG2=${LOG2:-12,16,20,24,28}
TYPES=${TYPES:-int32}
KERNEL=solutions/11_8_decoupled_lookback/decoupled_lookback.cuh
TILE=chapters/11_8_decoupled_lookback/block_tile.cuh
mkdir -p "$OUT"
SAVED=$(mktemp -d)
cp "$KERNEL" "$TILE" "$SAVED/"
restore() { cp "$SAVED/${KERNEL##*/}" "$KERNEL"; cp "$SAVED/${TILE##*/}" "$TILE"; }
trap restore EXIT

# variant -> the change (sed script and file). Each says what it tries; the README records the result.
bench_args=()
patch_variant() {
  case "$1" in
    baseline) ;;
    # Sleep between two reads of an unpublished status instead of spinning (less L2 traffic from
    # waiting warps; a later wake-up).
    spin_ns_100) bench_args=(--spin-ns 100) ;;
    # Cap registers so that 10 (12) blocks of 128 threads fit an SM instead of 9: more tiles in flight.
    min_blocks_10) sed -i "s/__launch_bounds__(Threads)/__launch_bounds__(Threads, 1280 \/ Threads)/" "$KERNEL" ;;
    min_blocks_12) sed -i "s/__launch_bounds__(Threads)/__launch_bounds__(Threads, 1536 \/ Threads)/" "$KERNEL" ;;
    # Streaming cache hints: input read once (ld.global.cs), output written once (st.global.cs).
    load_cs) sed -i 's/const uint4 raw = \*reinterpret_cast<const uint4\*>(p);/const uint4 raw = __ldcs(reinterpret_cast<const uint4*>(p));/' "$TILE" ;;
    store_cs) sed -i 's/\*reinterpret_cast<uint4\*>(p) = raw;/__stcs(reinterpret_cast<uint4*>(p), raw);/' "$TILE" ;;
    load_store_cs)
      patch_variant load_cs
      patch_variant store_cs ;;
    # The read-only (non-coherent) data path for the input.
    load_nc) sed -i 's/const uint4 raw = \*reinterpret_cast<const uint4\*>(p);/const uint4 raw = __ldg(reinterpret_cast<const uint4*>(p));/' "$TILE" ;;
    # A wider look-back window: each lane reads N statuses at once (32 * N tiles per window), so the
    # front of published prefixes advances N times faster while many tiles are in flight.
    per_lane_2 | per_lane_4 | per_lane_8)
      sed -i "s/kStatusesPerLane = 1;/kStatusesPerLane = ${1#per_lane_};/" "$KERNEL" ;;
    *) echo "unknown variant $1"; return 1 ;;
  esac
}

variants=("$@")
((${#variants[@]})) || variants=(baseline per_lane_2 per_lane_4 per_lane_8 spin_ns_100 min_blocks_10 min_blocks_12 load_cs store_cs load_store_cs load_nc)
csv="$OUT/experiments.csv"
: >"$csv"
for v in "${variants[@]}"; do
  restore
  bench_args=()
  patch_variant "$v" || continue
  if [[ "$v" != baseline && ${#bench_args[@]} == 0 ]] && cmp -s "$SAVED/${KERNEL##*/}" "$KERNEL" && cmp -s "$SAVED/${TILE##*/}" "$TILE"; then
    echo "variant $v: the sed changed nothing (the source moved on): skipped"; continue
  fi
  if ! ninja -C "$BUILD" scanlab_bench >"$SAVED/build.log" 2>&1; then
    echo "variant $v: build failed:"; grep -E "error" "$SAVED/build.log" | head -5; continue
  fi
  cuobjdump -res-usage "$BUILD/bin/scanlab_bench" 2>/dev/null | grep -A1 "decoupled_lookback_scan_kernelILi128ELi32EiN" | grep -o "REG:[0-9]*" | head -1 | sed "s/^/  $v /"
  tmp="$SAVED/$v.csv"
  timeout 120 "$BUILD/bin/scanlab_bench" --only decoupled_lookback,cub_inclusive_sum,memcpy --no-sections \
    --log2 "$LOG2" --types "$TYPES" --csv "$tmp" "${bench_args[@]}" >>"$OUT/experiments.log" 2>&1 || echo "variant $v: bench failed"
  if [[ ! -s "$csv" ]]; then head -1 "$tmp" | sed 's/^/variant,/' >"$csv"; fi
  tail -n +2 "$tmp" | sed "s/^/$v,/" >>"$csv"
  awk -F, -v v="$v" 'NR > 1 { printf "  %-14s %-20s n = %-10s %10s us\n", v, $7, $9, $10 }' "$tmp"
done
