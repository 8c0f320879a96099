#!/usr/bin/env bash
# tools/portable/arm64.sh: builds the cpu-backend suite for arm64 Linux with Debian's cross compiler
# and runs it under qemu-user (the CMake presets arm64-qemu: the toolchain file
# common/cmake/toolchains/aarch64-linux-gnu.cmake; the harness, the emulator, every section's
# solution, the mutants and valid variants). Installs nothing: what is missing is said in one line
# (tools/setup.sh --arm64 --check), and `tools/setup.sh --arm64` installs it.
#
#   tools/portable/arm64.sh [--quick] [CTEST_ARG...]
#
# --quick: the subset for CI (SUBSET below). CTEST_ARGs go
# to ctest (e.g. -R '^11\.2\.'). Prints the number of tests, the failures and the times; exit status
# 0 when every test passed. LAB_JOBS=N: parallel build jobs. The build folder: build/arm64-qemu.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
say() { printf '[arm64] %s\n' "$*"; }
die() { printf '[arm64] error: %s\n' "$*" >&2; exit 1; }

# The CI subset (--quick): the emulator's and the harness's tests, one section's solution (11.2: 126
# tests) and one mutant run through its script (expect_caught.cmake); its targets only are built.
SUBSET='^(Emu|harness\.|11\.2\.solution\.cpu\.|11\.2\.mutant\.barrier_inside_branch$)'
SUBSET_TARGETS=(test_harness scanlab_emu_tests test_11_2_solution_cpu test_11_2_mutant_barrier_inside_branch)
quick=0
if [[ "${1:-}" == --quick ]]; then quick=1; shift; fi

bash tools/setup.sh --arm64 --check || exit 1
# The `arm64-qemu` preset names no compiler launcher; ccache where there is one, as ./lab does not.
configure=(--preset arm64-qemu)
if command -v ccache >/dev/null 2>&1; then configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi

t0=$SECONDS
mkdir -p build
cmake "${configure[@]}" >build/arm64-qemu-configure.log 2>&1 ||
  { cat build/arm64-qemu-configure.log >&2; die "the configure failed (above)"; }
build=(--preset arm64-qemu)
[[ -n "${LAB_JOBS:-}" ]] && build+=(-j "$LAB_JOBS")
say "building (cross-compiling for arm64; the test lists come from the programs, run under qemu)..."
((quick)) && build+=(--target "${SUBSET_TARGETS[@]}")
cmake --build "${build[@]}" || die "the build failed (above)"
t1=$SECONDS

ctest_args=(--preset arm64-qemu)
((quick)) && ctest_args+=(-R "$SUBSET")
# GoogleTest's death tests re-execute the test program; they run without binfmt_misc because every
# gtest program starts through build/arm64-qemu/qemu-gtest (common/cmake/scanlab.cmake says how).
qemu=$(command -v qemu-aarch64 qemu-aarch64-static | head -n1)
qemu_version=$("$qemu" --version | head -n1)
say "running the tests under $qemu_version..."
log=build/arm64-qemu/arm64-ctest.log
rc=0
ctest "${ctest_args[@]}" "$@" 2>&1 | tee "$log" || rc=$?
t2=$SECONDS

# ctest's summary line: "100% tests passed, 0 tests failed out of 812".
summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n1 || true)
[[ -n "$summary" ]] || die "ctest ran no test (see $log)"
total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$summary")
failed=$(sed -E 's/.*, ([0-9]+) tests? failed.*/\1/' <<<"$summary")
say "arm64 under qemu: $total tests, $failed failed; build $((t1 - t0)) s, tests $((t2 - t1)) s ($(uname -m) host, $(nproc) cores, $qemu_version)"
exit "$rc"
