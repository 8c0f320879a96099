# Runs a program with bad input and checks that it fails the way scanlab promises: the expected exit
# status, and on stderr exactly one line that matches EXPECT (what is wrong and what to do).
#   cmake -DPROGRAM=<exe> "-DARGS=a,b" -DRC=2 "-DEXPECT=regex" [-DGPU_MAY_ACCEPT=ON] [-DLINES_MAY_BE_MANY=ON]
#         [-DEMULATOR=<command>] -P expect_cli.cmake
# GPU_MAY_ACCEPT: the input is only bad without a GPU (--backend cuda); where one is present, exit 0
# is right too. LINES_MAY_BE_MANY: the message may take several lines (the grader names every
# missing or extra file on a line of its own); EXPECT must match one of them. STDOUT: a regex that
# stdout must match too (a failing kernel's --explain report); then EXPECT may be empty (stderr unchecked).
string(REPLACE "," ";" ARGS "${ARGS}")
separate_arguments(emulator UNIX_COMMAND "${EMULATOR}")  # a cross build's qemu (scanlab.cmake), else empty
execute_process(COMMAND ${emulator} "${PROGRAM}" ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 120)
if(GPU_MAY_ACCEPT AND rc EQUAL 0)
  execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE smi_rc OUTPUT_QUIET ERROR_QUIET)
  if(smi_rc EQUAL 0)
    message(STATUS "a GPU is present, so the program rightly accepted: ${ARGS}")
    return()
  endif()
endif()
string(STRIP "${err}" err_stripped)
string(FIND "${err_stripped}" "\n" newline)
if(NOT rc STREQUAL "${RC}")
  message(FATAL_ERROR "'${ARGS}': expected exit status ${RC}, got ${rc}\nstdout: ${out}\nstderr: ${err}")
endif()
if(NOT newline EQUAL -1 AND NOT LINES_MAY_BE_MANY)
  message(FATAL_ERROR "'${ARGS}': expected one line on stderr, got:\n${err}")
endif()
if(NOT EXPECT STREQUAL "" AND NOT err_stripped MATCHES "${EXPECT}")
  message(FATAL_ERROR "'${ARGS}': stderr does not match '${EXPECT}':\n${err}")
endif()
if(DEFINED STDOUT AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "'${ARGS}': stdout does not match '${STDOUT}':\n${out}")
endif()
message(STATUS "'${ARGS}' -> exit ${rc}: ${err_stripped}")
