# CMake helpers for scanlab sections. A section's CMakeLists is one call:
#
#   scanlab_add_section(ID 11.2 DIR 11_2_kogge_stone NAMESPACE s11_2 IN_BLOCK
#                       KERNELS kogge_stone.cuh warp_scan.cuh)
#
# KERNELS: the section's kernel files, in solutions/<DIR>/ and exercises/<DIR>/ alike. IN_BLOCK: the
# section's algorithms scan one section (the program's --sections K runs K of them in one launch);
# without it they scan any n. BENCH: the GPU benchmark (chapters/11_8_decoupled_lookback/bench) runs
# the section's algorithms too. KERNEL_INCLUDES: folders of other sections' solution kernels it uses.
# SANITIZE_ARGS: extra program arguments for the sanitizer tests (below). OWN_OPTIONS: the program has
# options of its own, not the common scan set, so the section adds its own bad-input tests (the common
# ones and the sanitizer tests, which run the common options, are left out).
#
# From chapters/<DIR>/ it uses launch.cpp (the host code that launches the kernels, compiled once per
# backend), main.cpp (the program), tests.cpp (the grading tests), and the patches in mutants/ and
# valid/ (see "Mutants and valid variants" below); the kernels come from solutions/<DIR>/ and from
# ${SCANLAB_EXERCISES_DIR}/<DIR>/ (same file names). It builds:
#   - a kernel library per source (solution, exercise) and backend (cuda, cpu):
#       scanlab_<id>_<source>_<backend>
#   - the programs scanlab_<id> (solutions; all of them: target scanlab_programs) and
#     scanlab_<id>_exercise, with every backend built;
#   - a test program per source and backend, its tests labelled "<ID>;<backend>;<source>";
#   - per mutant and valid variant, a cpu kernel library and test program, and one ctest test
#     labelled "mutant;<ID>;cpu" or "valid;<ID>;cpu".

set(SCANLAB_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")
# A cross build (common/cmake/toolchains/) runs its programs under an emulator (qemu). ctest puts it
# in front of a test's own program, but the scripts below start the programs themselves: they get it
# as -DEMULATOR="qemu-aarch64 -L ..." (one string, split by the script); natively, nothing.
set(SCANLAB_EMULATOR_ARG "")
if(CMAKE_CROSSCOMPILING_EMULATOR)
  string(JOIN " " _emulator ${CMAKE_CROSSCOMPILING_EMULATOR})
  set(SCANLAB_EMULATOR_ARG "-DEMULATOR=${_emulator}")
endif()

# compute-sanitizer's checkers, run on a solution program's every kernel (label "sanitize"): registered
# when the cuda backend is built and compute-sanitizer is found, skipped at run time without a GPU.
# `ctest -L sanitize` runs them all on a GPU machine. Extra program arguments (say, a small --n for
# the multi-block sections: racecheck is slow) come after the section ID and the source. A grading
# build (no solutions) runs them on the student's program, as graded tests (label "exercise"): a
# missing barrier that the GPU's timing hides shows up in racecheck.
find_program(SCANLAB_COMPUTE_SANITIZER compute-sanitizer
             HINTS "${CUDAToolkit_BIN_DIR}" /usr/local/cuda/bin /opt/cuda/bin)
function(scanlab_add_sanitizer_tests program section source)
  if(NOT SCANLAB_HAVE_CUDA OR NOT SCANLAB_COMPUTE_SANITIZER)
    return()
  endif()
  foreach(tool IN ITEMS memcheck racecheck synccheck initcheck)
    # One 4-byte and one 8-byte type (11.8 packs its status words differently), both scan kinds.
    foreach(run IN ITEMS "int32;--inclusive" "double;--exclusive")
      list(GET run 0 type)
      list(GET run 1 kind)
      if(source STREQUAL "solution")
        set(name "${section}.sanitize.${tool}.${type}")
      else()
        set(name "${section}.${source}.cuda.sanitize.${tool}.${type}")  # graded with the cuda tests
      endif()
      add_test(NAME "${name}"
               COMMAND "${SCANLAB_COMPUTE_SANITIZER}" --tool ${tool} --error-exitcode 3
                       $<TARGET_FILE:${program}> --backend cuda --reps 0 --type ${type} ${kind} ${ARGN})
      # Zero reports: --error-exitcode fails a run with errors; the summaries also count racecheck's
      # warnings ("RACECHECK SUMMARY: 2 hazards displayed (0 errors, 2 warnings)"), which must be 0 too.
      set_tests_properties("${name}" PROPERTIES LABELS "sanitize;${section};cuda;${source}" TIMEOUT 600
                           SKIP_REGULAR_EXPRESSION "no CUDA GPU is available"
                           FAIL_REGULAR_EXPRESSION "ERROR SUMMARY: [1-9];\\(([1-9][0-9]* errors|[0-9]+ errors, [1-9][0-9]* warnings)")
    endforeach()
  endforeach()
endfunction()

# A shared library of kernels and their launch code for one backend. The backend is set here, per
# target (SCANLAB_BACKEND_CUDA=1 or SCANLAB_BACKEND_CPU=1, read by scanlab/kernel.hpp and ops.hpp), and
# `include_dirs` must not hold two headers of one name (checked), so no include order has a meaning.
# The cpu library compiles launch.cpp itself (C++); the cuda library compiles a generated one-line .cu
# that includes it, because a source file's LANGUAGE is one per directory, not one per target (and so
# editors see launch.cpp as the ordinary C++ file it is). Hidden visibility keeps the cuda and cpu
# builds of the same templates apart when one program links both; on the cpu backend the library's
# thread-local storage holds exactly the kernels' __shared__ variables and their guard zones, between
# two anchor objects linked first and last, which the emulator poisons and checks in every block.
function(scanlab_kernel_library target backend launch_file)
  set(include_dirs ${ARGN} "${CMAKE_CURRENT_SOURCE_DIR}")
  set(seen "")
  foreach(dir IN LISTS include_dirs)
    file(GLOB headers RELATIVE "${dir}" "${dir}/*.cuh" "${dir}/*.hpp" "${dir}/*.h")
    foreach(header IN LISTS headers)
      if(header IN_LIST seen)
        message(FATAL_ERROR "${target}: two folders on its include path hold ${header} (${include_dirs}): "
                            "remove the stray copy, so that it is clear which one is compiled")
      endif()
      list(APPEND seen "${header}")
    endforeach()
  endforeach()
  get_filename_component(launch_path "${launch_file}" ABSOLUTE)
  if(backend STREQUAL "cuda")
    set(source "${CMAKE_CURRENT_BINARY_DIR}/${target}.cu")
    file(CONFIGURE OUTPUT "${source}" CONTENT
         "// Generated by scanlab_kernel_library: ${launch_file} compiled by nvcc.\n#include \"${launch_path}\"\n")
    add_library(${target} SHARED "${source}")
  else()
    # Between the anchors of the library's static shared memory, linked first and last
    # (common/emu/module/shared_first.cpp says why).
    add_library(${target} SHARED "${SCANLAB_CMAKE_DIR}/../emu/module/shared_first.cpp"
                                 "${SCANLAB_CMAKE_DIR}/../emu/module/shared_probe.cpp" "${launch_path}"
                                 "${SCANLAB_CMAKE_DIR}/../emu/module/shared_last.cpp")
  endif()
  target_include_directories(${target} PRIVATE ${include_dirs})
  target_link_libraries(${target} PUBLIC scanlab::harness)
  string(TOUPPER "${backend}" backend_upper)
  target_compile_definitions(${target} PRIVATE SCANLAB_BACKEND_${backend_upper}=1)
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  if(backend STREQUAL "cuda")
    set_target_properties(${target} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  else()
    target_link_libraries(${target} PRIVATE scanlab::emu)
  endif()
endfunction()

# Student code (the exercise kernel libraries, and the programs and tests compiled with them): warnings
# are shown but never fail the build, so they never cost a student points. Everything else keeps
# warnings as errors (CMAKE_COMPILE_WARNING_AS_ERROR, top-level CMakeLists), and so does the `ci`
# preset for the exercise stubs too (SCANLAB_EXERCISES_WARNINGS_AS_ERRORS).
function(scanlab_student_code)
  if(NOT SCANLAB_EXERCISES_WARNINGS_AS_ERRORS)
    set_target_properties(${ARGN} PROPERTIES COMPILE_WARNING_AS_ERROR OFF)
  endif()
endfunction()

# Links `target` with the kernel libraries `libs` (names ending in _cuda or _cpu) and says which
# backends it has (SCANLAB_LINKED_CUDA / SCANLAB_LINKED_CPU, read by scanlab/section.hpp).
function(scanlab_link_kernels target)
  foreach(lib IN LISTS ARGN)
    target_link_libraries(${target} PRIVATE ${lib})
    if(lib MATCHES "_cuda$")
      target_compile_definitions(${target} PRIVATE SCANLAB_LINKED_CUDA=1)
    else()
      target_compile_definitions(${target} PRIVATE SCANLAB_LINKED_CPU=1)
    endif()
  endforeach()
endfunction()

# ---- Mutants and valid variants: patches against the solution ------------------------------------
#
# chapters/<DIR>/mutants/<name>.patch is a known-wrong kernel: the solution with one realistic bug. Its
# test ("<ID>.mutant.<name>", label "mutant") passes only if the grading tests FAIL on it, cleanly and,
# if the patch has an `EXPECT: <regex>` line, with a message matching the regex (expect_caught.cmake).
# chapters/<DIR>/valid/<name>.patch is a correct kernel written unusually (a signed loop counter, an
# extra barrier, ...). Its test ("<ID>.valid.<name>", label "valid") passes only if the grading tests
# all PASS on it. Together they prove the grader both ways.
#
# A patch is a unified diff against solutions/<DIR>/ (file names a/<file>, b/<file>), after a preamble:
# one line that says what the variant does, then for a mutant optionally one `EXPECT: <regex>` line.
# To make one: copy the solution file somewhere, edit it, and run (from the repository root)
#   diff -u --label a/<file> --label b/<file> solutions/<DIR>/<file> <edited copy> >> chapters/<DIR>/mutants/<name>.patch
# after writing the preamble into that .patch (a new patch needs no other change: the folders are
# globbed). Then, and after any change to a solution, one command makes every patch exact again with
# the fewest unambiguous context lines (it names any patch that no longer applies):
#   python3 common/cmake/rediff_patches.py . [chapters/<DIR>/mutants/<name>.patch ...]
# At configure time each patch is applied with GNU patch (no fuzz) to a copy of the section's
# solution files, in <build>/chapters/<DIR>/kernels/mutant_<name>/ (valid_<name>/): that folder is the
# variant's whole kernel source. A patch that no longer applies (the solution changed under it) fails
# the configure with one line naming the patch and the file (every broken patch is named): redo the
# change on the current solution and regenerate the patch. When a solution changes, the configure
# re-applies the patches by itself (the patches and solution files are configure dependencies).

# Makes the kernel folder of one variant (`kind`: mutant or valid): the `files` of solutions/<dir>/ with
# `patch` applied, in <binary dir>/kernels/<kind>_<name>/ (sets `out_var` to it). Files are rewritten
# only when their content changes, so a reconfigure rebuilds no variant that stayed the same.
function(scanlab_patched_kernels out_var dir kind name patch)
  set(files ${ARGN})
  if(NOT SCANLAB_PATCH)
    find_program(SCANLAB_PATCH patch)
    if(NOT SCANLAB_PATCH)
      message(FATAL_ERROR "the mutants and valid variants need GNU patch: install it (Debian: apt-get install "
                          "patch), or configure with -DSCANLAB_BUILD_MUTANTS=OFF")
    endif()
  endif()
  file(RELATIVE_PATH patch_rel "${PROJECT_SOURCE_DIR}" "${patch}")
  set(out "${CMAKE_CURRENT_BINARY_DIR}/kernels/${kind}_${name}")
  set(stage "${CMAKE_CURRENT_BINARY_DIR}/kernels/.patching/${kind}_${name}")
  file(REMOVE_RECURSE "${stage}")
  file(MAKE_DIRECTORY "${stage}" "${out}")
  set(sources "")
  foreach(file IN LISTS files)
    list(APPEND sources "${PROJECT_SOURCE_DIR}/solutions/${dir}/${file}")
  endforeach()
  file(COPY ${sources} DESTINATION "${stage}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${patch}" ${sources})
  execute_process(COMMAND "${SCANLAB_PATCH}" -p1 --fuzz=0 --batch --forward --no-backup-if-mismatch
                          --reject-file=- -d "${stage}" -i "${patch}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
  if(NOT rc EQUAL 0)
    # The file it failed on: the last "patching file X" before a failure, or the one it could not find.
    string(REGEX REPLACE "\n(Hunk #[0-9]+ FAILED|Reversed|No file to patch).*" "" before "${log}")
    string(REGEX MATCHALL "patching file [^\n]+" patching "${before}")
    if(patching)
      list(GET patching -1 failed)
      string(REPLACE "patching file " "" failed "${failed}")
    elseif(log MATCHES "\\|\\+\\+\\+ b/([^\t\n]+)")
      set(failed "${CMAKE_MATCH_1}")
    else()
      string(REPLACE ";" ", " failed "${files}")
    endif()
    # SEND_ERROR: the configure goes on to name every patch that broke, then fails.
    message(SEND_ERROR "${patch_rel} no longer applies to solutions/${dir}/${failed}: redo its change on the "
                       "solution and regenerate it (common/cmake/scanlab.cmake says how)")
    set(${out_var} "${out}" PARENT_SCOPE)
    return()
  endif()
  foreach(file IN LISTS files)
    file(COPY_FILE "${stage}/${file}" "${out}/${file}" ONLY_IF_DIFFERENT)
  endforeach()
  file(GLOB stale RELATIVE "${out}" "${out}/*")
  list(REMOVE_ITEM stale ${files})
  foreach(file IN LISTS stale)
    file(REMOVE "${out}/${file}")
  endforeach()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# Every mutant and valid variant of section `id` (chapters/<dir>/mutants/*.patch, valid/*.patch), each
# patched into its own copy of the solution's `files`: calls `make_test(<test_exe> <kernel dir> <hint>
# <extra>...)`, which must add the test program <test_exe> built against the kernels in <kernel dir>,
# then registers its ctest test: for a mutant, the grading tests must fail it (expect_caught.cmake,
# with the patch's EXPECT line); for a valid variant, they must all pass. `extra` (after FILES ...):
# passed on to make_test.
function(scanlab_add_variants id dir make_test)
  cmake_parse_arguments(V "" "" "FILES;EXTRA" ${ARGN})
  string(REPLACE "." "_" us "${id}")
  foreach(kind IN ITEMS mutant valid)
    set(folder "${PROJECT_SOURCE_DIR}/chapters/${dir}/${kind}")
    if(kind STREQUAL "mutant")
      set(folder "${folder}s")
    endif()
    file(GLOB patches CONFIGURE_DEPENDS "${folder}/*.patch")
    foreach(patch IN LISTS patches)
      get_filename_component(name "${patch}" NAME_WE)
      scanlab_patched_kernels(kernel_dir ${dir} ${kind} ${name} "${patch}" ${V_FILES})
      set(test_exe test_${us}_${kind}_${name})
      cmake_language(CALL ${make_test} ${test_exe} "${kernel_dir}" "${kind} ${name}" ${V_EXTRA})
      # A variant is student code: its warnings (a signed loop counter's -Wsign-compare, say) never
      # stop it from being graded, even where the exercises' warnings are errors (the ci preset).
      string(REGEX REPLACE "^test_" "scanlab_" variant_lib "${test_exe}_cpu")
      foreach(target IN ITEMS ${test_exe} ${variant_lib})
        if(TARGET ${target})
          set_target_properties(${target} PROPERTIES COMPILE_WARNING_AS_ERROR OFF)
        endif()
      endforeach()
      if(kind STREQUAL "mutant")
        add_test(NAME "${id}.mutant.${name}"
                 COMMAND "${CMAKE_COMMAND}" "-DTEST_EXE=$<TARGET_FILE:${test_exe}>" "-DMUTANT=${id}/${name}"
                         "-DTIMEOUT=${SCANLAB_MUTANT_TIMEOUT}" "-DPATCH=${patch}" ${SCANLAB_EMULATOR_ARG}
                         -P "${SCANLAB_CMAKE_DIR}/expect_caught.cmake")
      else()
        add_test(NAME "${id}.valid.${name}" COMMAND ${test_exe} --gtest_brief=1)
      endif()
      set_tests_properties("${id}.${kind}.${name}" PROPERTIES
        LABELS "${kind};${id};cpu" TIMEOUT ${SCANLAB_MUTANT_TIMEOUT})
    endforeach()
  endforeach()
endfunction()

# One bad-input test: run <program> (a target, or the path of a script such as ./lab) with the given
# arguments and expect exit status <rc> and one line on stderr matching the regex <expect>. Arguments
# travel to expect_cli.cmake joined by "," (no case has a comma), so neither ";" nor a "|" in the
# regex is split by CMake's list handling. SCANLAB_CLI_EXTRA, if set by the caller, adds options.
function(scanlab_add_cli_case program section name rc expect)
  string(JOIN "," args ${ARGN})
  set(emulator "")
  if(TARGET ${program})
    set(program "$<TARGET_FILE:${program}>")
    set(emulator ${SCANLAB_EMULATOR_ARG})
  endif()
  add_test(NAME "${section}.cli.${name}"
           COMMAND "${CMAKE_COMMAND}" "-DPROGRAM=${program}" "-DARGS=${args}" "-DRC=${rc}"
                   "-DEXPECT=${expect}" ${SCANLAB_CLI_EXTRA} ${emulator} -P "${SCANLAB_CMAKE_DIR}/expect_cli.cmake")
  set_tests_properties("${section}.cli.${name}" PROPERTIES LABELS "cli;${section}" TIMEOUT 120)
endfunction()

# Bad-input tests for a section program (label "cli;<section>"): each bad command line must give one
# line on stderr that says what is wrong, and exit status 2; never a crash or a hang.
function(scanlab_add_cli_tests program section in_block)
  scanlab_add_cli_case(${program} ${section} unknown_flag 2 "unknown option '--frobnicate'" --frobnicate)
  scanlab_add_cli_case(${program} ${section} negative_n 2 "--n needs a non-negative whole number" --n -5)
  scanlab_add_cli_case(${program} ${section} n_not_a_number 2 "--n needs a non-negative whole number" --n lots)
  scanlab_add_cli_case(${program} ${section} n_missing_value 2 "--n needs a value" --n)
  scanlab_add_cli_case(${program} ${section} unsupported_type 2 "unsupported --type 'half'" --type half)
  scanlab_add_cli_case(${program} ${section} unsupported_op 2 "unsupported --op 'mul'" --op mul)
  scanlab_add_cli_case(${program} ${section} unknown_backend 2 "unknown --backend 'tpu'" --backend tpu)
  scanlab_add_cli_case(${program} ${section} unknown_algorithm 2 "unknown --algorithm 'magic'"
                       --algorithm magic)
  # Refused before anything is allocated, saying how much it needs and how much there is. An in-block
  # scan reaches that check through --sections (its --n is at most one section: refused on its own).
  set(too_large --n 200000000000)
  if(in_block)
    set(too_large --sections 100000000)
    scanlab_add_cli_case(${program} ${section} n_more_than_a_section 2
                         "n = 200000000000 is more than one section of .*: scan longer arrays with section 11.6"
                         --backend cpu --n 200000000000 --reps 0)
  endif()
  scanlab_add_cli_case(${program} ${section} too_large_for_memory 2
                       "this problem needs [0-9.]+ GiB of host memory but only [0-9.]+ GiB is available"
                       --backend cpu ${too_large} --reps 0)
  scanlab_add_cli_case(${program} ${section} sections_zero 2 "--sections 0: give at least 1 section"
                       --sections 0)
  scanlab_add_cli_case(${program} ${section} sections_and_n 2 "give --n or --sections, not both"
                       --sections 2 --n 5)
  scanlab_add_cli_case(${program} ${section} input_not_a_number 2 "--input: value 1 'four' is not a valid int32"
                       --backend cpu --input four)
  scanlab_add_cli_case(${program} ${section} input_and_n 2 "give --input or --n/--sections, not both"
                       --input 4 --n 3)
  # The book's example array through every algorithm of the section, each verified (exit 0).
  add_test(NAME "${section}.cli.book_example"
           COMMAND ${program} --backend cpu --input 4,6,7,1,2,8,5,2 --reps 0 --trace)
  set_tests_properties("${section}.cli.book_example" PROPERTIES LABELS "cli;${section}" TIMEOUT 120)
  if(in_block)
    # Many sections in one launch, every section verified on its own (exit 0 only if all pass).
    add_test(NAME "${section}.cli.many_sections" COMMAND ${program} --backend cpu --sections 5 --reps 0)
    set_tests_properties("${section}.cli.many_sections" PROPERTIES LABELS "cli;${section}" TIMEOUT 300)
  else()
    scanlab_add_cli_case(${program} ${section} sections_for_any_n 2 "scans any n in one piece"
                         --backend cpu --sections 2)
  endif()
  scanlab_add_cli_cuda_case(${program} ${section})
endfunction()

# --backend cuda where it cannot run: a build without the cuda backend, or (with it) a machine without
# a GPU (where there is one, the run may succeed: GPU_MAY_ACCEPT).
function(scanlab_add_cli_cuda_case program section)
  if(SCANLAB_HAVE_CUDA)
    set(SCANLAB_CLI_EXTRA -DGPU_MAY_ACCEPT=ON)
    scanlab_add_cli_case(${program} ${section} cuda_without_gpu 2
                         "no CUDA GPU is available here: use --backend cpu" --backend cuda --reps 0)
  else()
    scanlab_add_cli_case(${program} ${section} cuda_not_built 2
                         "this build has no cuda backend: reconfigure with -DSCANLAB_BACKENDS=cuda.cpu"
                         --backend cuda --reps 0)
  endif()
endfunction()

# gtest_discover_tests with several labels. Its PROPERTIES argument cannot carry a list (only the first
# label would survive), so the labels are set by a second ctest include file that runs after the
# discovered tests are known (TEST_LIST names the variable that holds them).
function(scanlab_discover_tests target)
  cmake_parse_arguments(D "" "PREFIX;TIMEOUT" "LABELS" ${ARGN})
  if(NOT D_TIMEOUT)
    set(D_TIMEOUT ${SCANLAB_TEST_TIMEOUT})
  endif()
  gtest_discover_tests(${target} TEST_PREFIX "${D_PREFIX}" DISCOVERY_TIMEOUT 60
                       TEST_LIST ${target}_tests PROPERTIES TIMEOUT ${D_TIMEOUT})
  set(labels_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake")
  file(WRITE "${labels_file}"
       "if(${target}_tests)\n"
       "  set_tests_properties(\${${target}_tests} PROPERTIES LABELS \"${D_LABELS}\")\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_file}")
endfunction()

# A section's grading-test program `test_exe` (chapters/<DIR>/tests.cpp) linked with the kernel library
# `lib`; its messages point the student at `hint`.
function(scanlab_section_test test_exe chapter lib hint)
  add_executable(${test_exe} "${chapter}/tests.cpp")
  target_include_directories(${test_exe} PRIVATE "${chapter}")
  target_link_libraries(${test_exe} PRIVATE scanlab::testing GTest::gtest_main)
  scanlab_link_kernels(${test_exe} ${lib})
  target_compile_definitions(${test_exe} PRIVATE "SCANLAB_SOURCE_HINT=\"${hint}\"")
endfunction()

# scanlab_add_variants' make_test for a kernel section: a cpu kernel library of the variant's kernels
# (with the section's other include folders), and the grading tests linked with it.
function(scanlab_section_variant_test test_exe kernel_dir hint chapter)
  string(REGEX REPLACE "^test_" "scanlab_" lib "${test_exe}_cpu")
  scanlab_kernel_library(${lib} cpu "${chapter}/launch.cpp" "${kernel_dir}" ${ARGN})
  scanlab_section_test(${test_exe} "${chapter}" ${lib} "${hint}")
endfunction()

# The kernel sources this build makes, in `out_var`: solution and/or exercise (SCANLAB_BUILD_SOLUTIONS,
# SCANLAB_BUILD_EXERCISES).
function(scanlab_sources out_var)
  set(sources "")
  if(SCANLAB_BUILD_SOLUTIONS)
    list(APPEND sources solution)
  endif()
  if(SCANLAB_BUILD_EXERCISES)
    list(APPEND sources exercise)
  endif()
  set(${out_var} ${sources} PARENT_SCOPE)
endfunction()

# Sets, in the caller, where `source` (solution or exercise) of section `id` (folder `dir`) lives:
# kernel_dir (solutions/<dir> or the exercises folder's), program (scanlab_<id> or
# scanlab_<id>_exercise; the solution program joins scanlab_programs) and hint (where the tests'
# messages point the student).
function(scanlab_source_paths source id dir)
  string(REPLACE "." "_" us "${id}")
  if(source STREQUAL "solution")
    set(kernel_dir "${PROJECT_SOURCE_DIR}/solutions/${dir}" PARENT_SCOPE)
    set(program scanlab_${us} PARENT_SCOPE)
    set(hint "solutions/${dir}/" PARENT_SCOPE)
    set_property(GLOBAL APPEND PROPERTY SCANLAB_PROGRAMS scanlab_${us})
  else()
    set(kernel_dir "${SCANLAB_EXERCISES_DIR}/${dir}" PARENT_SCOPE)
    set(program scanlab_${us}_exercise PARENT_SCOPE)
    set(hint "the TODO(student) blocks in ${SCANLAB_EXERCISES_LABEL}/${dir}/" PARENT_SCOPE)
  endif()
endfunction()

function(scanlab_add_section)
  cmake_parse_arguments(S "IN_BLOCK;BENCH;OWN_OPTIONS" "ID;DIR;NAMESPACE" "KERNELS;KERNEL_INCLUDES;SANITIZE_ARGS" ${ARGN})
  string(REPLACE "." "_" id "${S_ID}")
  set(chapter "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT SCANLAB_HAVE_SOLUTIONS)  # the student release: the student's own kernels of those sections
    string(REPLACE "${PROJECT_SOURCE_DIR}/solutions/" "${SCANLAB_EXERCISES_DIR}/" S_KERNEL_INCLUDES "${S_KERNEL_INCLUDES}")
  endif()
  # For the other parts of the build (the benchmark, scanlab_programs): what this section declared.
  set_property(GLOBAL PROPERTY SCANLAB_NAMESPACE_${id} ${S_NAMESPACE})
  if(S_BENCH)
    set_property(GLOBAL APPEND PROPERTY SCANLAB_BENCH_SECTIONS ${id})
  endif()

  scanlab_sources(sources)
  foreach(source IN LISTS sources)
    scanlab_source_paths(${source} ${S_ID} ${S_DIR})
    foreach(file IN LISTS S_KERNELS)
      if(NOT EXISTS "${kernel_dir}/${file}")
        message(FATAL_ERROR "section ${S_ID}: ${kernel_dir}/${file} is missing (every exercise folder "
                            "must have the files of exercises/${S_DIR}: ${S_KERNELS})")
      endif()
    endforeach()

    set(libs "")
    set(student_targets "")
    foreach(backend IN LISTS SCANLAB_BACKENDS)
      set(lib scanlab_${id}_${source}_${backend})
      scanlab_kernel_library(${lib} ${backend} "${chapter}/launch.cpp" "${kernel_dir}" ${S_KERNEL_INCLUDES})
      list(APPEND libs ${lib})
      list(APPEND student_targets ${lib})

      if(SCANLAB_BUILD_TESTS AND EXISTS "${chapter}/tests.cpp")
        set(test_exe test_${id}_${source}_${backend})
        scanlab_section_test(${test_exe} "${chapter}" ${lib} "${hint}")
        if(source STREQUAL "exercise")
          # Grades a student's kernels: the kernels a section gives (Algorithm::given) are not graded.
          target_compile_definitions(${test_exe} PRIVATE SCANLAB_GRADES_EXERCISE=1)
        endif()
        scanlab_discover_tests(${test_exe} PREFIX "${S_ID}.${source}.${backend}."
                               LABELS ${S_ID} ${backend} ${source})
        list(APPEND student_targets ${test_exe})
      endif()
    endforeach()

    add_executable(${program} "${chapter}/main.cpp")
    target_include_directories(${program} PRIVATE "${chapter}")
    scanlab_link_kernels(${program} ${libs})
    if(source STREQUAL "exercise")
      scanlab_student_code(${student_targets} ${program})
    endif()
    if(SCANLAB_BUILD_TESTS AND source STREQUAL "solution" AND SCANLAB_HAVE_CPU AND NOT S_OWN_OPTIONS)
      scanlab_add_cli_tests(${program} ${S_ID} ${S_IN_BLOCK})
    endif()
    if(SCANLAB_BUILD_TESTS AND (source STREQUAL "solution" OR NOT SCANLAB_BUILD_SOLUTIONS))
      scanlab_add_sanitizer_tests(${program} ${S_ID} ${source} ${S_SANITIZE_ARGS})
      if(source STREQUAL "exercise" AND TARGET test_${id}_exercise_cuda AND SCANLAB_COMPUTE_SANITIZER)
        add_dependencies(test_${id}_exercise_cuda ${program})  # ./lab grade builds the test programs
      endif()
    endif()
  endforeach()

  # Section 11.3 measures the solution kernels of the other sections on the emulator, so that its
  # tests grade the student's work model alone. When the solutions are not built (./lab grade), build
  # that one cpu library anyway, outside `all`: only a target that links it (11.3's tests) builds it.
  if(NOT SCANLAB_BUILD_SOLUTIONS AND SCANLAB_HAVE_CPU AND SCANLAB_HAVE_SOLUTIONS)
    set(lib scanlab_${id}_solution_cpu)
    scanlab_kernel_library(${lib} cpu "${chapter}/launch.cpp" "${PROJECT_SOURCE_DIR}/solutions/${S_DIR}"
                           ${S_KERNEL_INCLUDES})
    set_target_properties(${lib} PROPERTIES EXCLUDE_FROM_ALL ON)
  endif()

  # Mutants and valid variants (see above): the solution with a patch applied, cpu backend.
  if(SCANLAB_BUILD_MUTANTS AND SCANLAB_BUILD_TESTS AND SCANLAB_HAVE_CPU AND EXISTS "${chapter}/tests.cpp")
    scanlab_add_variants(${S_ID} ${S_DIR} scanlab_section_variant_test FILES ${S_KERNELS}
                         EXTRA "${chapter}" ${S_KERNEL_INCLUDES})
  endif()
endfunction()
