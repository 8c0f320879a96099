# Runs a section's grading tests built against a mutant (a known-wrong kernel) and succeeds only if
# they fail it: exit status 1 with at least one failed test. A crash or a hang is not a clean catch:
# the grader must report a wrong kernel as a failed test, not die. The one exception is a mutant whose
# bug is a crash: its EXPECT names the signal (`EXPECT: Segmentation fault`), and the program must die
# of it (./lab grade runs each test in a process of its own and reports "crashed (...) in <test>").
# Usage:
#   cmake -DTEST_EXE=<test program> -DMUTANT=<section/name> [-DTIMEOUT=<seconds>] [-DPATCH=<file>]
#         [-DEMULATOR=<command>] [-DWATCHDOG=<seconds>] [-DFILTER=<GoogleTest filter>] -P expect_caught.cmake
# TIMEOUT is the test's own ctest timeout (SCANLAB_TEST_TIMEOUT: longer under the sanitizer presets).
# WATCHDOG (SCANLAB_MUTANT_WATCHDOG_S) shortens the emulator's watchdog for the mutant's run
# (SCANLAB_EMU_WATCHDOG_S): a mutant that spins fails every test it spins in after that long without
# progress instead of 2 s (11.7's waits_for_own_flag: 84 such tests), with the same message.
# PATCH is the mutant's patch (chapters/<DIR>/mutants/<name>.patch). If its preamble has a line
# `EXPECT: <regex>`, the failing tests' messages must match that regular expression: not only that the
# grader fails the bug, but that it says what a student needs to hear (a race, a deadlock at a
# barrier, a spin the watchdog ended, ...). A `FORBID: <regex>` line says what the output must not hold
# (a hostile mutant's printed GoogleTest marker, which ctest would read as the test's result).
# The points: with ROOT (the repository) and PYTHON given, the failed tests must cost the mutant points
# under grading.toml (a section's rubric: at least one property failed, not only feedback tests such
# as operator counts and traces), and a `PROPERTY: <name>[, <name>...]` line names the properties of
# the rubric it must fail (`python3 -m scanlab_lab rubric-check`); ALL_PROPERTIES=ON (an untouched stub):
# every one. Only the tests that decide those properties run (rubric_check.cmake's filter).
# BOX_WAY (bubblewrap or landlock, with ROOT, PYTHON, BDIR, the build, and BOX_DIR, a folder of the
# test's own) starts the kernels confined that way, as ./lab grade does (`python3 -m scanlab_lab
# runner-box`: sandbox.runner_box); where that way does not work here, the test says "cannot confine
# here" (its SKIP_REGULAR_EXPRESSION).
# A `SHRINKS: n <= <max>` line checks issue 37's bars on the mutant's first explained failure: the
# smallest failing case found has at most <max> elements, the report names the first step that differs
# (the barrier, the tile or the output elements), and the shrink and explanation took under 10 s
# (SCANLAB_EXPLAIN_TIMES makes the grader say how long).
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 600)
endif()
include("${CMAKE_CURRENT_LIST_DIR}/rubric_check.cmake")
separate_arguments(emulator UNIX_COMMAND "${EMULATOR}")  # a cross build's qemu (scanlab.cmake), else empty
if(WATCHDOG)
  set(ENV{SCANLAB_EMU_WATCHDOG_S} "${WATCHDOG}")  # inherited (not `cmake -E env`, which hides a signal)
endif()
set(expect "")
set(must_fail "")
set(forbid "")
set(shrinks "")
if(ALL_PROPERTIES)
  set(must_fail "--all")  # a stub: every property of the rubric fails (0 points)
endif()
set(lost "")
if(DEFINED PATCH)
  # The preamble: the lines before the diff's first "--- " line.
  file(READ "${PATCH}" text)
  string(FIND "\n${text}" "\n--- " diff_start)
  string(SUBSTRING "\n${text}" 0 ${diff_start} preamble)
  if(preamble MATCHES "\nEXPECT: ([^\n]*)")
    set(expect "${CMAKE_MATCH_1}")
  endif()
  if(preamble MATCHES "\nPROPERTY: ([^\n]*)")
    string(REGEX REPLACE "[ ,]+" ";" must_fail "${CMAKE_MATCH_1}")
  endif()
  if(preamble MATCHES "\nFORBID: ([^\n]*)")
    set(forbid "${CMAKE_MATCH_1}")
  endif()
  if(preamble MATCHES "\nSHRINKS: n <= ([0-9]+)")
    set(shrinks "${CMAKE_MATCH_1}")
    set(ENV{SCANLAB_EXPLAIN_TIMES} 1)
  endif()
endif()
# Only the tests of the properties the mutant must fail run (a spinning mutant spends the watchdog's
# time in every test it spins in): the verdict below is about those properties.
set(filter "")
if(must_fail AND DEFINED ROOT AND DEFINED PYTHON)
  scanlab_rubric_filter(filter "${MUTANT}" ${must_fail})
endif()
if(DEFINED FILTER)
  set(filter "${FILTER}")  # the caller's choice of tests (a hostile runner: one test is enough)
endif()
if(filter)
  set(filter "--gtest_filter=${filter}")
endif()
if(BOX_WAY)
  file(REMOVE_RECURSE "${BOX_DIR}")
  file(MAKE_DIRECTORY "${BOX_DIR}/kernels")
  set(ENV{PYTHONPATH} "${ROOT}/tools")
  execute_process(COMMAND "${PYTHON}" -B -m scanlab_lab runner-box "${ROOT}" "${BDIR}" "${BOX_DIR}/kernels"
                          "${BOX_DIR}/box.sh" "${BOX_WAY}"
                  RESULT_VARIABLE box_rc OUTPUT_VARIABLE how ERROR_VARIABLE how)
  if(box_rc EQUAL 3)
    message(STATUS "cannot confine here: ${how}")
    return()
  elseif(NOT box_rc EQUAL 0)
    message(FATAL_ERROR "mutant ${MUTANT}: runner-box ${BOX_WAY} failed (${box_rc}): ${how}")
  endif()
  set(ENV{SCANLAB_RUNNER_PREFIX} "${BOX_DIR}/box.sh")
endif()
execute_process(COMMAND ${emulator} "${TEST_EXE}" --gtest_brief=1 ${filter}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${TIMEOUT})
string(REGEX MATCHALL "\\[  FAILED  \\] [^\n]*" failed "${out}")
list(LENGTH failed failed_count)
# A runner that cannot start (a library missing, a symbol undefined) fails every test too: that is the
# build's fault, not a catch (remote_checker.cpp's words for status 127).
if("${out}" MATCHES "\\(it could not be started\\)")
  message(FATAL_ERROR "mutant ${MUTANT}: its kernels' process could not be started, so nothing was graded "
                      "(a build problem, not a catch).\n${out}\n${err}")
endif()
if(NOT forbid STREQUAL "" AND "${out}\n${err}" MATCHES "${forbid}")
  message(FATAL_ERROR "mutant ${MUTANT}: the output holds '${CMAKE_MATCH_0}', which its FORBID line forbids "
                      "('${forbid}', ${PATCH}).\n${out}\n${err}")
endif()
if(NOT rc MATCHES "^[0-9]+$" AND NOT expect STREQUAL "" AND rc MATCHES "${expect}")
  message(STATUS "mutant ${MUTANT} caught: the test program died of '${rc}', as its EXPECT says")
elseif(rc EQUAL 1 AND failed_count GREATER 0)
  list(GET failed 0 first)
  if(DEFINED ROOT AND DEFINED PYTHON)
    scanlab_rubric_check(rubric_rc rubric_out "${MUTANT}" "${failed}" ${must_fail})
    if(NOT rubric_rc EQUAL 0)
      message(FATAL_ERROR "mutant ${MUTANT} was failed, but not where the points are: ${rubric_out} (${PATCH})."
                          "\n${out}\n${err}")
    endif()
    set(lost " (properties failed: ${rubric_out})")
  endif()
  if(NOT expect STREQUAL "")
    if(NOT "${out}\n${err}" MATCHES "${expect}")
      message(FATAL_ERROR "mutant ${MUTANT} was failed, but no message says what is wrong: none matches "
                          "'${expect}' (${PATCH}).\n${out}\n${err}")
    endif()
    message(STATUS "mutant ${MUTANT} caught by ${failed_count} failing test lines, saying '${expect}'${lost}")
  else()
    message(STATUS "mutant ${MUTANT} caught by ${failed_count} failing test lines, e.g. ${first}${lost}")
  endif()
  if(shrinks)
    # GoogleTest prints the failure once escaped ("\n" for a newline) and once as lines: read either.
    string(REPLACE "\\n" "\n" report "${out}")
    if(NOT report MATCHES "The smallest failing case found: n = ([0-9]+)")
      message(FATAL_ERROR "mutant ${MUTANT}: no smallest failing case in the report (its SHRINKS line).\n${out}")
    endif()
    set(n "${CMAKE_MATCH_1}")
    if(n GREATER shrinks)
      message(FATAL_ERROR "mutant ${MUTANT}: the smallest failing case found has n = ${n}, more than its SHRINKS "
                          "line's ${shrinks}.\n${out}")
    endif()
    if(NOT report MATCHES "\n(Where it|Its shared memory|Each level's in-block scan)[^\n]*\n +[^\n ]")
      message(FATAL_ERROR "mutant ${MUTANT}: the report names no step where the kernel goes wrong.\n${out}")
    endif()
    if(NOT report MATCHES "the shrink and the explanation took ([0-9]+) ms" OR CMAKE_MATCH_1 GREATER_EQUAL 10000)
      message(FATAL_ERROR "mutant ${MUTANT}: the shrink and explanation took 10 s or more (or said nothing).\n${out}")
    endif()
    message(STATUS "mutant ${MUTANT}: shrunk to n = ${n}, a step named, explained in ${CMAKE_MATCH_1} ms")
  endif()
else()
  message(FATAL_ERROR "mutant ${MUTANT} NOT caught cleanly (exit status ${rc}, ${failed_count} failed "
                      "tests): the grading tests have a hole.\n${out}\n${err}")
endif()
