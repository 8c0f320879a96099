#!/bin/sh
: '
Hostile runner, started confined as ./lab grade starts a student`s kernels where it runs as their
own user (--exercises, GitHub Classroom): tries to write grading.toml, ./lab and every build`s
CMakeCache.txt, to forge a grade-summary.json in every build folder, to put a file beside the checker
binary (a replaced checker), to read a solution, and to read the checker`s memory where it can see
the checker (not in bubblewrap`s PID namespace); prints what went through, then ends without an
answer. Every try must be refused (the test runs once per way of confining: bubblewrap, Landlock; a
way this machine lacks is skipped). Writes are appends of nothing: were one to go through, no file
would change.
EXPECT: hostile: 0 of [1-9][0-9]* tries went through
FORBID: WENT THROUGH
PROPERTY: kogge_stone
'
root=$(cd "$(dirname "$0")/../../../.." && pwd)
tries=0 through=0
try() {  # try WHAT COMMAND...: counts a try, and says so when it went through
  what=$1; shift
  tries=$((tries + 1))
  if "$@" 2>/dev/null; then through=$((through + 1)); echo "WENT THROUGH: $what"; fi
}
append() { (: >> "$1"); }  # in a subshell: a refused redirection ends the shell it is in
create() { (: > "$1") && rm -f "$1"; }
nonempty() { grep -q . "$1"; }
try "write grading.toml" append "$root/grading.toml"
try "write ./lab" append "$root/lab"
for cache in "$root"/build/*/CMakeCache.txt; do
  bdir=$(dirname "$cache")
  try "write $bdir/CMakeCache.txt" append "$cache"
  try "write a forged $bdir/grade-summary.json" create "$bdir/hostile-grade-summary.json"
  for exe in $(find "$bdir" -maxdepth 4 -name 'test_11_2_exercise_cpu' -type f 2>/dev/null); do
    try "replace the checker $exe (a new file beside it)" create "$(dirname "$exe")/hostile-checker"
  done
done
for f in "$root"/solutions/11_2_kogge_stone/*.cuh; do
  try "read the solution $f" nonempty "$f"
done
for p in /proc/[0-9]*; do
  case "$(tr '\0' ' ' 2>/dev/null < "$p/cmdline")" in
    *test_11_2_exercise_cpu*) try "read the checker's memory ($p/mem)" head -c 1 "$p/mem" ;;
  esac
done
echo "hostile: $through of $tries tries went through"
exit 0
