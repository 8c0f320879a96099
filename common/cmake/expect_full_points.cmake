# Runs a section's grading tests built against a valid variant (a correct kernel written differently)
# and succeeds only if it earns full points: every test passes, or (ROOT and PYTHON given) the tests it
# fails are all feedback under grading.toml's rubric (the book's operator counts or traces, which a
# correct kernel written another way may miss). A crash, a hang or a failed test of any property fails.
# Usage:
#   cmake -DTEST_EXE=<test program> -DVARIANT=<section/name> [-DTIMEOUT=<seconds>] [-DEMULATOR=<command>]
#         [-DROOT=<repository> -DPYTHON=<python3>] [-DFILTER=<GoogleTest filter>] -P expect_full_points.cmake
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 600)
endif()
include("${CMAKE_CURRENT_LIST_DIR}/rubric_check.cmake")
separate_arguments(emulator UNIX_COMMAND "${EMULATOR}")
set(filter "")
if(DEFINED FILTER)
  set(filter "--gtest_filter=${FILTER}")
endif()
execute_process(COMMAND ${emulator} "${TEST_EXE}" --gtest_brief=1 ${filter}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${TIMEOUT})
if(rc EQUAL 0)
  message(STATUS "valid variant ${VARIANT}: every test passed")
  return()
endif()
string(REGEX MATCHALL "\\[  FAILED  \\] [^\n]*" failed "${out}")
if(NOT rc EQUAL 1 OR NOT failed OR NOT DEFINED ROOT OR NOT DEFINED PYTHON)
  message(FATAL_ERROR "valid variant ${VARIANT} failed (exit status ${rc}): a correct kernel must earn full "
                      "points.\n${out}\n${err}")
endif()
scanlab_rubric_check(rubric_rc rubric_out "${VARIANT}" "${failed}" --feedback-only)
if(NOT rubric_rc EQUAL 0)
  message(FATAL_ERROR "valid variant ${VARIANT} would lose points: ${rubric_out}.\n${out}\n${err}")
endif()
message(STATUS "valid variant ${VARIANT}: full points; feedback only: ${rubric_out}")
