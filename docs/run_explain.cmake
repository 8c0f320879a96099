# Writes one explained failure for the docs pages: a mutant's grading tests (its test program, on the
# emulator) run until the first failing test, and that failure's message as the grader shows it, the
# smallest failing case and where the kernel leaves the book's algorithm (common/src/explain.cpp).
# A mutant whose first failure is not explained fails the docs build: the page must show a report.
#
#   cmake -DPROGRAM=<mutant's test program> -DOUTPUT=<file> -P run_explain.cmake
cmake_minimum_required(VERSION 3.24)
foreach(var PROGRAM OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_explain.cmake needs -D${var}=...")
  endif()
endforeach()
# The emulator's watchdog as the mutants' tests have it (a spinning mutant fails fast).
set(ENV{SCANLAB_EMU_WATCHDOG_S} 0.5)
execute_process(COMMAND "${PROGRAM}" --gtest_filter=Grading.* --gtest_fail_fast
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
# gtest prints the failure's text as a C string on one line: Which is: "...\n..."
string(REGEX MATCH "Which is: \"([^\n]*(The smallest|Where it|Its shared memory|Each level)[^\n]*)\"\n" found "${out}")
if(NOT found)
  message(FATAL_ERROR "${PROGRAM}: no explained failure in its output (status ${rc}):\n${out}\n${err}")
endif()
set(text "${CMAKE_MATCH_1}")
string(REPLACE "\\n" "\n" text "${text}")
string(REPLACE "\\\"" "\"" text "${text}")
string(REGEX MATCH "\\[ RUN      \\] ([^\n]*)\n[^[]*Which is: \"[^\n]*(The smallest|Where it|Its shared memory|Each level)" test "${out}")
file(WRITE "${OUTPUT}" "${CMAKE_MATCH_1}\n${text}\n")
