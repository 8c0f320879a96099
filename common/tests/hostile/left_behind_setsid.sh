#!/bin/sh
: '
Hostile runner: as left_behind.sh, but the process left behind starts a session of its own, out of
the runner process group, so the checker cannot kill it.
EXPECT: ended before it answered .*: it exited with status 0
PROPERTY: kogge_stone
The checker still fails the call within a second. The later write is stopped only by confinement
(./lab grade --class, Gradescope: the runner PID namespace, a read-only build; ./lab grade: the same
sandbox or Landlock, common/tests/hostile/confined/), which this test, the checker alone, leaves out.
'
setsid sh -c 'sleep 60' < /dev/null &
exit 0
