# Runs a section's grading tests built against a mutant (a known-wrong kernel) and succeeds only if
# they fail it: exit status 1 with at least one failed test. A crash or a hang is not a clean catch:
# the grader must report a wrong kernel as a failed test, not die. Usage:
#   cmake -DTEST_EXE=<test program> -DMUTANT=<section/name> [-DTIMEOUT=<seconds>] -P expect_caught.cmake
# TIMEOUT is the test's own ctest timeout (SCANLAB_TEST_TIMEOUT: longer under the sanitizer presets).
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 600)
endif()
execute_process(COMMAND "${TEST_EXE}" --gtest_brief=1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${TIMEOUT})
string(REGEX MATCHALL "\\[  FAILED  \\] [^\n]*" failed "${out}")
list(LENGTH failed failed_count)
if(rc EQUAL 1 AND failed_count GREATER 0)
  list(GET failed 0 first)
  message(STATUS "mutant ${MUTANT} caught by ${failed_count} failing test lines, e.g. ${first}")
else()
  message(FATAL_ERROR "mutant ${MUTANT} NOT caught cleanly (exit status ${rc}, ${failed_count} failed "
                      "tests): the grading tests have a hole.\n${out}\n${err}")
endif()
