# Runs a section's grading tests built against a valid variant (a correct kernel written differently)
# and succeeds only if it earns full points: every test passes, or (ROOT and PYTHON given) the tests it
# fails are all feedback under grading.toml's rubric (the book's operator counts or traces, which a
# correct kernel written another way may miss). A crash, a hang or a failed test of any property fails.
# Usage:
#   cmake -DTEST_EXE=<test program> -DVARIANT=<section/name> [-DTIMEOUT=<seconds>] [-DEMULATOR=<command>]
#         [-DROOT=<repository> -DPYTHON=<python3>] -P expect_full_points.cmake
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 600)
endif()
separate_arguments(emulator UNIX_COMMAND "${EMULATOR}")
execute_process(COMMAND ${emulator} "${TEST_EXE}" --gtest_brief=1
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
set(names "")
foreach(line IN LISTS failed)
  if(line MATCHES "^\\[  FAILED  \\] ([A-Za-z_][^ ,]*)")
    list(APPEND names "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(REMOVE_DUPLICATES names)
string(REPLACE "/" "_" tag "${VARIANT}")
set(list_file "${CMAKE_CURRENT_BINARY_DIR}/valid_failed_${tag}.txt")
string(JOIN "\n" text ${names})
file(WRITE "${list_file}" "${text}\n")
string(REGEX REPLACE "/.*" "" section "${VARIANT}")
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${ROOT}/tools"
                        "${PYTHON}" -m scanlab_lab rubric-check "${ROOT}" "${section}" "${list_file}" --feedback-only
                RESULT_VARIABLE rubric_rc OUTPUT_VARIABLE rubric_out ERROR_VARIABLE rubric_err)
file(REMOVE "${list_file}")
string(STRIP "${rubric_out}${rubric_err}" rubric_out)
if(NOT rubric_rc EQUAL 0)
  message(FATAL_ERROR "valid variant ${VARIANT} would lose points: ${rubric_out}.\n${out}\n${err}")
endif()
message(STATUS "valid variant ${VARIANT}: full points; feedback only: ${rubric_out}")
