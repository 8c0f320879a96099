# shellcheck shell=bash
# Sourced by the GPU scripts (bench/persistent_gpu.sh, chapters/11_9_applications/bench_gpu.sh): the
# configure-and-build step they share. Not run by itself.
#
#   source chapters/11_8_decoupled_lookback/bench/gpu_build.sh
#   gpu_build BUILD ARCH TIMEOUT_S LOG JOBS TARGET...
#
# Prints the GPU's name, driver and clocks; configures BUILD with the gpu preset for
# CMAKE_CUDA_ARCHITECTURES=ARCH (Release, no exercises, no mutants), writing LOG; builds the TARGETs
# with ninja -j JOBS within TIMEOUT_S seconds, appending to LOG; prints the last line of LOG. On a
# failure it prints the errors and exits the calling script with status 1.
gpu_build() {
  local build=$1 arch=$2 seconds=$3 log=$4 jobs=$5
  shift 5
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader || true
  cmake --preset gpu -B "$build" -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_BUILD_TYPE=Release \
    -DSCANLAB_BUILD_EXERCISES=OFF -DSCANLAB_BUILD_MUTANTS=OFF >"$log" 2>&1 \
    || { tail -30 "$log"; echo "configure failed"; exit 1; }
  if ! timeout "$seconds" ninja -C "$build" -j "$jobs" "$@" >>"$log" 2>&1; then
    grep -E "error|FAILED" "$log" | head -40
    echo "build failed"; exit 1
  fi
  tail -1 "$log"
}
