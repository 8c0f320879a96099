# Runs one section program for the docs (its output files are the point; its printout is shown only
# when it fails, since a page must never quote a run that failed).
#
#   cmake -DPROGRAM=<path> "-DARGS=<arg;arg;...>" -P run_program.cmake
foreach(var PROGRAM ARGS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_program.cmake needs -D${var}=...")
  endif()
endforeach()
execute_process(COMMAND "${PROGRAM}" ${ARGS} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  list(JOIN ARGS " " shown)
  message(FATAL_ERROR "${PROGRAM} ${shown} failed (status ${rc}): ${err}\n${out}")
endif()
