#!/usr/bin/env bash
# Builds the cpu backend with clang++ and libc++ (the clang-libcxx preset: Apple's toolchain uses
# both) and runs its tests: the harness, the emulator, every section's solution, mutants and valid
# variants (the exercise stubs are built; their tests fail by design and are left to ./lab grade).
# Prints the number of tests and the time each step took.
#
#   tools/portable/clang.sh [--quick] [-R REGEX] [-j N]
#     --quick   build and test only the emulator, the harness, section 11.4 (solution and the
#               static shared memory mutant) and 11.7's own tests (the static-index deadlock and the
#               valid volatile flag read: a launch error caught across the kernel library under
#               libc++): the subset for CI's time budget
#     -R REGEX  run only the tests whose names match (ctest -R), and build everything anyway
#     -j N      parallel build and test jobs (default: the number of cores)
#
# Needs what tools/setup.sh --clang installs (clang, libc++, GoogleTest's sources).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
jobs=$(nproc 2>/dev/null || echo 2)
regex=""
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick)
      targets=(scanlab_emu_tests test_harness test_11_4_solution_cpu test_11_4_mutant_static_shared_half_section
               test_11_7_solution_cpu test_11_7_valid_flag_read_volatile)
      regex='^(Emu|EmuDeathTest|harness)\.|^11\.4\.(solution\.cpu\.|mutant\.static_shared_half_section$)'
      regex+='|^11\.7\.(solution\.cpu\.Section11_7\.|valid\.flag_read_volatile$)'
      shift ;;
    -R) regex="${2:?-R needs a regex}"; shift 2 ;;
    -j) jobs="${2:?-j needs a number}"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "clang.sh: unknown option '$1' (see tools/portable/clang.sh --help)" >&2; exit 2 ;;
  esac
done
# What the preset needs (clang, libc++, GoogleTest's sources) from the one list, installed where it can be.
bash "$ROOT/tools/setup.sh" --clang || exit 2
launcher=()
[ "${LAB_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

t0=$SECONDS
cmake --preset clang-libcxx "${launcher[@]}" >/dev/null
t1=$SECONDS
if [ ${#targets[@]} -gt 0 ]; then
  cmake --build --preset clang-libcxx -j "$jobs" --target "${targets[@]}"
else
  cmake --build --preset clang-libcxx -j "$jobs"
fi
t2=$SECONDS
if [ ${#targets[@]} -eq 0 ]; then
  # A test program that was not built registers one unlabelled test, <target>_NOT_BUILT, which the
  # preset's label filter leaves out: a section that did not build would be missing from the count
  # without a word. Refuse to count without them.
  missing=$(ctest --test-dir build/clang-libcxx -N -R '_NOT_BUILT$' | sed -n 's/^ *Test *#[0-9]*: //p')
  if [ -n "$missing" ]; then
    echo "clang.sh: test programs that were not built (not in the build, or it failed): $(echo $missing)" >&2
    exit 1
  fi
fi
# The lab's Python tests (harness.lab.*) test the Python, not this build's code: a clang build adds nothing to them.
args=(--preset clang-libcxx -j "$jobs" -E '^harness\.lab\.')
[ -n "$regex" ] && args+=(-R "$regex")
set +e
ctest "${args[@]}" | tee build/clang-libcxx/clang-ctest.log
rc=${PIPESTATUS[0]}
set -e
t3=$SECONDS
summary=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" build/clang-libcxx/clang-ctest.log | tail -n1)
echo "clang.sh: $(clang++ --version | head -n1), libc++; ${summary:-no test summary}"
echo "clang.sh: configure $((t1 - t0)) s, build $((t2 - t1)) s, tests $((t3 - t2)) s"
exit "$rc"
