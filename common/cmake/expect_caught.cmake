# Runs a section's grading tests built against a mutant (a known-wrong kernel) and succeeds only if
# they fail it: exit status 1 with at least one failed test. A crash or a hang is not a clean catch:
# the grader must report a wrong kernel as a failed test, not die. Usage:
#   cmake -DTEST_EXE=<test program> -DMUTANT=<section/name> [-DTIMEOUT=<seconds>] [-DEXPECT_FILE=<file>]
#         -P expect_caught.cmake
# TIMEOUT is the test's own ctest timeout (SCANLAB_TEST_TIMEOUT: longer under the sanitizer presets).
# EXPECT_FILE, if that file exists (mutants/<name>/EXPECT), holds a regular expression that the
# failing tests' messages must match: not only that the grader fails the bug, but that it says what a
# student needs to hear (a race, a deadlock at a barrier, a spin the watchdog ended, ...).
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 600)
endif()
execute_process(COMMAND "${TEST_EXE}" --gtest_brief=1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${TIMEOUT})
string(REGEX MATCHALL "\\[  FAILED  \\] [^\n]*" failed "${out}")
list(LENGTH failed failed_count)
if(rc EQUAL 1 AND failed_count GREATER 0)
  list(GET failed 0 first)
  if(DEFINED EXPECT_FILE AND EXISTS "${EXPECT_FILE}")
    file(STRINGS "${EXPECT_FILE}" expect LIMIT_COUNT 1)
    if(NOT "${out}\n${err}" MATCHES "${expect}")
      message(FATAL_ERROR "mutant ${MUTANT} was failed, but no message says what is wrong: none matches "
                          "'${expect}' (${EXPECT_FILE}).\n${out}\n${err}")
    endif()
    message(STATUS "mutant ${MUTANT} caught by ${failed_count} failing test lines, saying '${expect}'")
  else()
    message(STATUS "mutant ${MUTANT} caught by ${failed_count} failing test lines, e.g. ${first}")
  endif()
else()
  message(FATAL_ERROR "mutant ${MUTANT} NOT caught cleanly (exit status ${rc}, ${failed_count} failed "
                      "tests): the grading tests have a hole.\n${out}\n${err}")
endif()
