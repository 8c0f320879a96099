# The rubric check that expect_caught.cmake (mutants) and expect_full_points.cmake (valid variants)
# share: the failed tests' names, from GoogleTest's "[  FAILED  ] <name>" lines, go to
# `python3 -m scanlab_lab rubric-check ROOT SECTION FILE ARGS...`, which reads grading.toml's rubric.
# Sets <rc_var> to its exit status and <out_var> to what it printed.
#   scanlab_rubric_check(<rc_var> <out_var> <section/name> "<failed lines>" [ARGS...])
function(scanlab_rubric_check rc_var out_var variant failed_lines)
  set(names "")
  foreach(line IN LISTS failed_lines)
    if(line MATCHES "^\\[  FAILED  \\] ([A-Za-z_][^ ,]*)")
      list(APPEND names "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES names)  # the summary at the end repeats them
  string(REPLACE "/" "_" tag "${variant}")
  set(list_file "${CMAKE_CURRENT_BINARY_DIR}/rubric_failed_${tag}.txt")
  string(JOIN "\n" text ${names})
  file(WRITE "${list_file}" "${text}\n")
  string(REGEX REPLACE "/.*" "" section "${variant}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${ROOT}/tools"
                          "${PYTHON}" -m scanlab_lab rubric-check "${ROOT}" "${section}" "${list_file}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(REMOVE "${list_file}")
  string(STRIP "${out}${err}" out)
  set(${rc_var} "${rc}" PARENT_SCOPE)
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# The GoogleTest filter that runs only the tests deciding the given properties of the section's rubric
# (`python3 -m scanlab_lab rubric-filter`; "--all": every property): a mutant's run need not spend time
# in tests that cannot cost it the points its PROPERTY line names. Empty when the section has none.
#   scanlab_rubric_filter(<out_var> <section/name> PROPERTY... | --all)
function(scanlab_rubric_filter out_var variant)
  string(REGEX REPLACE "/.*" "" section "${variant}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${ROOT}/tools"
                          "${PYTHON}" -m scanlab_lab rubric-filter "${ROOT}" "${section}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${variant}: no test filter for its properties (${ARGN}): ${err}")
  endif()
  string(STRIP "${out}" out)
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
