#!/usr/bin/env bash
# cap_output.sh PROGRAM ARG...: runs a test program with its output (stdout and stderr) cut after
# LAB_OUTPUT_LIMIT bytes (default 1 MiB). ./lab grade --class configures its job slots with this as
# CMAKE_CROSSCOMPILING_EMULATOR, the prefix CMake and GoogleTest put before every test command, because
# ctest keeps all of a test's output in memory: a submission that prints gigabytes would end ctest, and
# with it the grading of every other test. A program that dies of a signal dies of it here too (ctest
# tells a crash by it); one stopped by the cut fails with a line that says so.
limit=${LAB_OUTPUT_LIMIT:-1048576}
"$@" 2>&1 | head -c "$limit"
status=("${PIPESTATUS[@]}")
if ((status[0] == 141 && status[1] == 0)); then
  printf '\n[lab] the test printed more than %s bytes: its output was cut there and the test stopped\n' "$limit"
  exit 1
fi
if ((status[0] > 128)); then
  trap - "$((status[0] - 128))" 2>/dev/null
  kill -s "$((status[0] - 128))" $$
fi
exit "${status[0]}"
