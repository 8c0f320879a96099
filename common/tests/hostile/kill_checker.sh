#!/bin/sh
: '
Hostile runner: kills the checker that started it (its parent), hoping that a test program that
dies counts for nothing rather than as a failure. ctest and ./lab grade read a test program that
died as a failed test (the kind "crash").
EXPECT: killed|Killed
'
kill -9 "$PPID"
exit 0
