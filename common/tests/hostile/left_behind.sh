#!/bin/sh
: '
Hostile runner: leaves a process behind that holds the grader channel and the printed-output pipe
open, then ends without an answer; the process would write a file a minute later.
EXPECT: ended before it answered .*: it exited with status 0
PROPERTY: kogge_stone
The checker fails the call at once (it does not wait for the pipes to close) and kills the runner
process group, so the left-behind process never writes (common/src/remote_checker.cpp).
'
( sleep 60; echo forged > "${TMPDIR:-/tmp}/scanlab-hostile-left-behind" ) &
exit 0
