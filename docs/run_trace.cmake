# Writes one trace for the docs pages: a solution program run on the emulator with the book's example
# array, --trace, and one algorithm. The run must pass (its output is verified against the CPU
# reference), so a page never shows the trace of a wrong result.
#
#   cmake -DPROGRAM=<path> -DALGORITHM=<name> [-DEXCLUSIVE=ON] -DOUTPUT=<file> -P run_trace.cmake
#
# ALGORITHM "all": the program's own example (no --input), every algorithm, the whole printout (for a
# section whose program has its own format, 11.9's).
cmake_minimum_required(VERSION 3.24)
foreach(var PROGRAM ALGORITHM OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_trace.cmake needs -D${var}=...")
  endif()
endforeach()
set(args --backend cpu --input 4,6,7,1,2,8,5,2 --reps 0 --trace --algorithm "${ALGORITHM}")
if(EXCLUSIVE)
  list(APPEND args --exclusive)
endif()
if(ALGORITHM STREQUAL "all")  # every algorithm on the program's own example, the whole printout
  set(args --backend cpu --reps 0 --trace)
endif()
execute_process(COMMAND "${PROGRAM}" ${args} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${args} failed (status ${rc}): ${err}\n${out}")
endif()

# Keep the algorithm's part: from its header line to its "Passed" line (the program's banner names
# this machine's CPU, and its table repeats the counts).
string(REPLACE "\n" ";" lines "${out}")
set(keep "")
set(inside OFF)
if(ALGORITHM STREQUAL "all")
  list(POP_FRONT lines)  # the banner, which names this machine's CPU
  set(inside ON)
endif()
foreach(line IN LISTS lines)
  if(line MATCHES "^${ALGORITHM} \\(")
    set(inside ON)
  endif()
  if(inside)
    string(APPEND keep "${line}\n")
    if(line MATCHES "^  Passed" AND NOT ALGORITHM STREQUAL "all")
      break()
    endif()
  endif()
endforeach()
if(keep STREQUAL "")
  message(FATAL_ERROR "no trace of ${ALGORITHM} in the output of ${PROGRAM}:\n${out}")
endif()
get_filename_component(program_name "${PROGRAM}" NAME)
list(JOIN args " " shown)
file(WRITE "${OUTPUT}" "$ ${program_name} ${shown}\n${keep}")
