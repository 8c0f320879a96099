#!/usr/bin/env bash
# Every in-block scan of the chapter (11.2, 11.4, 11.5) on one GPU at the same n, in one run, for the
# section figures (plots/make_plots.py, IN_BLOCK_RUN): each n is a whole number of sections of every
# algorithm (1024-element sections: Kogge-Stone and the 1024-element coarsened shapes, twice as many
# as the 2048-element ones: Brent-Kung in both layouts and the default coarsened shape). K = 132 (one
# 2048-element section per SM of an H100), 1056, 8448, 67584: n = 270336 .. 138412032, int32,
# inclusive add, median of 20 after one warm-up, every result verified. From the repository root:
#
#   OUT=/some/folder bash plots/in_block_same_n_gpu.sh      (writes OUT/in_block.csv and OUT/build.log)
set -u -o pipefail
export PATH="$PATH:/usr/local/cuda/bin"
OUT=${OUT:-$PWD/gpu-out}
BUILD=${BUILD:-build/gpu}
mkdir -p "$OUT"
source "$(dirname "${BASH_SOURCE[0]}")/../chapters/11_8_decoupled_lookback/bench/gpu_build.sh"
gpu_build "$BUILD" 90a "${BUILD_TIMEOUT:-200}" "$OUT/build.log" "$(nproc)" scanlab_11_2 scanlab_11_4 scanlab_11_5
csv="$OUT/in_block.csv"
status=0
for k in ${SECTIONS:-132 1056 8448 67584}; do
  run() { timeout 120 "$BUILD/bin/$1" --backend cuda --reps 20 --csv "$csv" "${@:2}" || { echo "FAILED: $*"; status=1; }; }
  run scanlab_11_4 --sections "$k"
  run scanlab_11_5 --sections "$k" --algorithm coarsened
  run scanlab_11_2 --sections $((2 * k))
  run scanlab_11_5 --sections $((2 * k)) --algorithm coarsened_256x4 --algorithm coarsened_64x16
done 2>&1 | grep -E "Passed|FAILED|error" | head -80
exit $status
