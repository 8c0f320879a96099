#!/usr/bin/env bash
# The whole cpu test suite (harness, emulator, every section's solution, the mutants) under one
# sanitizer preset, for a machine with many cores (CI runs only a subset: .ci/sanitizers). Used on
# the device machine, which has no Boost.Context: give it Debian's packages, unpacked, with
# BOOST_DEBS (a folder of .deb files: libboost1.74-dev, libboost-context1.74-dev,
# libboost-context1.74.0, from `apt-get download`).
#
#   PRESET=asan|tsan [JOBS=N] [BOOST_DEBS=dir] [EXCLUDE=regex] [ONLY=regex] bash .ci/full_sanitizer_suite.sh
#
# Writes build/<preset>/full-suite.log (ctest's output) and prints the summary.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
preset=${PRESET:?PRESET=asan or PRESET=tsan}
jobs=${JOBS:-$(nproc)}
args=()
if [[ -n "${BOOST_DEBS:-}" ]]; then
  prefix=/tmp/scanlab-boost
  mkdir -p "$prefix"
  for deb in "$BOOST_DEBS"/*.deb; do dpkg -x "$deb" "$prefix"; done
  args+=("-DCMAKE_PREFIX_PATH=$prefix/usr")
fi
start=$SECONDS
cmake --preset "$preset" "${args[@]}" >/dev/null
cmake --build --preset "$preset" -j "$jobs" >"build/$preset/full-build.log" 2>&1 ||
  { tail -30 "build/$preset/full-build.log"; exit 1; }
echo "[suite] $preset: built in $((SECONDS - start)) s ($(g++ --version | head -n1))"
filter=()
[[ -n "${EXCLUDE:-}" ]] && filter+=(-E "$EXCLUDE")
[[ -n "${ONLY:-}" ]] && filter+=(-R "$ONLY")
start=$SECONDS
rc=0
ctest --preset "$preset" -j "$jobs" "${filter[@]}" >"build/$preset/full-suite.log" 2>&1 || rc=$?
echo "[suite] $preset: tests in $((SECONDS - start)) s, ctest exit $rc"
grep -E "tests passed|\(Failed\)|\(Timeout\)|Not Run|SEGFAULT" "build/$preset/full-suite.log" | head -40
exit "$rc"
