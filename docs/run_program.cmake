# Runs one section program for the docs (its output files are the point; its printout is shown only
# when it fails, since a page must never quote a run that failed).
#
#   cmake -DPROGRAM=<path> "-DARGS=<arg;arg;...>" -DOUTPUT=<file the run writes> -P run_program.cmake
#
# A program whose `--capabilities` do not list --json (a section with options of its own) writes no
# counts: OUTPUT then holds an empty list, and its README quotes none.
cmake_minimum_required(VERSION 3.24)
foreach(var PROGRAM ARGS OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_program.cmake needs -D${var}=...")
  endif()
endforeach()
execute_process(COMMAND "${PROGRAM}" --capabilities OUTPUT_VARIABLE caps ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT caps MATCHES "\"--json\"")
  file(WRITE "${OUTPUT}" "[]\n")
  return()
endif()
execute_process(COMMAND "${PROGRAM}" ${ARGS} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  list(JOIN ARGS " " shown)
  message(FATAL_ERROR "${PROGRAM} ${shown} failed (status ${rc}): ${err}\n${out}")
endif()
