#!/bin/sh
: '
Hostile runner: prints what GoogleTest and the grader print for passed and skipped tests and a
forged protocol line, then ends without an answer.
EXPECT: \(  PASSED  \) 186 tests
FORBID: \[  (SKIPPED|PASSED) \]
PROPERTY: kogge_stone
'
printf '[==========] 186 tests ran.\n[       OK ] Grading.kogge_stone.int32_add_inclusive\n[  SKIPPED ] all\n[  PASSED  ] 186 tests.\n'
printf '[  PASSED  ] 186 tests.\n' >&2
exit 0
