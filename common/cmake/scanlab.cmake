# CMake helpers for scanlab sections. A section's CMakeLists is one call:
#
#   scanlab_add_section(ID 11.2 DIR 11_2_kogge_stone NAMESPACE s11_2 IN_BLOCK
#                       KERNELS kogge_stone.cuh warp_scan.cuh)
#
# KERNELS: the section's kernel files, in solutions/<DIR>/ and exercises/<DIR>/ alike. IN_BLOCK: the
# section's algorithms scan one section (the program's --sections K runs K of them in one launch);
# without it they scan any n. BENCH: the GPU benchmark (chapters/11_8_decoupled_lookback/bench) runs
# the section's algorithms too. KERNEL_INCLUDES: folders of other sections' solution kernels it uses.
# GIVEN: a source in chapters/<DIR>/ with code the section gives (another section's solution kernel),
# compiled once per backend, from the folders GIVEN_INCLUDES, into scanlab_<id>_given_<backend>, which
# every kernel library of the section links (solution, exercise, mutants, valid variants): the
# section's own libraries then neither compile that code again nor see those folders.
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
# tests.cpp is compiled once per backend and kind of grading (the solution's, or a student's kernels:
# the exercise's and every variant's), and those objects are linked into each test program with its
# kernel library (scanlab_section_test_objects): a variant compiles only its kernels.

set(SCANLAB_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")
# The cpu kernel libraries' sources go through cpu_sources.py (scanlab_kernel_library), at build time:
# the system's python3 first, which the class grader's sandbox sees too (one in a home folder, say
# pyenv's, is hidden there).
find_program(SCANLAB_KERNEL_PYTHON3 NAMES python3 HINTS /usr/bin /usr/local/bin NO_CACHE)
if(NOT SCANLAB_KERNEL_PYTHON3)
  message(FATAL_ERROR "python3 is needed (Debian: apt-get install python3)")
endif()
# A cross build (common/cmake/toolchains/) runs its programs under an emulator (qemu). ctest puts it
# in front of a test's own program, but the scripts below start the programs themselves: they get it
# as -DEMULATOR="qemu-aarch64 -L ..." (one string, split by the script); natively, nothing.
set(SCANLAB_EMULATOR_ARG "")
set(SCANLAB_GTEST_EMULATOR "")
set(SCANLAB_RUNNER_EMULATOR "")  # how a grading checker starts its runner (scanlab/remote.hpp)
# ./lab grade --class: the read-only sandbox (a script, tools/scanlab_lab/sandbox.py) that a test
# running a student's code in its own process goes through (checkers start their runners through it
# too, told by the environment at test time: SCANLAB_RUNNER_PREFIX).
set(SCANLAB_UNTRUSTED_PREFIX "" CACHE FILEPATH "the sandbox for tests that run a student's program (compute-sanitizer's; ./lab grade --class)")
if(CMAKE_CROSSCOMPILING_EMULATOR)
  string(JOIN " " _emulator ${CMAKE_CROSSCOMPILING_EMULATOR})
  set(SCANLAB_EMULATOR_ARG "-DEMULATOR=${_emulator}")
  list(TRANSFORM CMAKE_CROSSCOMPILING_EMULATOR PREPEND "'" OUTPUT_VARIABLE _quoted)
  list(TRANSFORM _quoted APPEND "'")
  string(JOIN " " _quoted ${_quoted})
endif()
# Only a cross build's emulator is qemu: ./lab grade --class sets CMAKE_CROSSCOMPILING_EMULATOR in a
# native build to its output cap (tools/scanlab_lab/cap_output.sh), which takes no qemu options.
if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
  # GoogleTest's death tests (threadsafe style) re-execute the test program: execv(argv[0]). Under
  # qemu-user that execv goes to the host kernel, which cannot run an arm64 program unless qemu is
  # registered with binfmt_misc (it is not in a container, and registering needs root). So a gtest
  # program runs through this script, which starts qemu with the program's argv[0] set to the script
  # (qemu's -0): the re-execution comes back here and runs the same program under qemu again, with the
  # environment the child inherits (SCANLAB_QEMU_PROGRAM names the program). The death tests then run
  # as they do natively: a fresh process, unlike the "fast" style's fork, which would keep the parent's
  # emulator settings and lose its worker threads.
  set(SCANLAB_RUNNER_EMULATOR "${_emulator}")
  set(SCANLAB_GTEST_EMULATOR "${CMAKE_BINARY_DIR}/qemu-gtest")
  file(CONFIGURE OUTPUT "${SCANLAB_GTEST_EMULATOR}" @ONLY CONTENT [[#!/bin/sh
# Generated by common/cmake/scanlab.cmake: qemu-gtest PROGRAM [ARG...] runs an arm64 GoogleTest
# program under qemu-user with argv[0] = this script, so that its death tests' execv(argv[0]) runs
# `qemu-gtest ARG...` with SCANLAB_QEMU_PROGRAM set, without binfmt_misc.
if [ -z "${SCANLAB_QEMU_PROGRAM:-}" ]; then
  SCANLAB_QEMU_PROGRAM=$1
  export SCANLAB_QEMU_PROGRAM
  shift
fi
exec @_quoted@ -0 "$0" "$SCANLAB_QEMU_PROGRAM" "$@"
]])
  file(CHMOD "${SCANLAB_GTEST_EMULATOR}" FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
       GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endif()

# Compile options of every cpu kernel library (here and common/emu's scanlab_emu_kernel_module). The
# emulator finds a static __shared__ variable's guard zone next to it (common/emu/src/static_shared.cpp),
# so a file's thread-locals must stay in the order the compiler declared them. GCC's section anchors
# (on by default for arm64, arm and powerpc, not x86-64) regroup them (all guards of a file first, then
# all variables), and a write past an array went unseen on arm64: turn them off where GCC has them.
set(SCANLAB_CPU_KERNEL_OPTIONS "")
# The CUDA headers a cpu kernel library finds in place of the CUDA toolkit's (cooperative_groups.h,
# cuda/atomic, cuda/std/atomic): on its include path only, so host code never sees them.
get_filename_component(SCANLAB_EMU_CUDA_HEADERS "${CMAKE_CURRENT_LIST_DIR}/../emu/cuda_headers" ABSOLUTE)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag(-fno-section-anchors SCANLAB_HAVE_NO_SECTION_ANCHORS)
  if(SCANLAB_HAVE_NO_SECTION_ANCHORS)
    set(SCANLAB_CPU_KERNEL_OPTIONS $<$<COMPILE_LANGUAGE:CXX>:-fno-section-anchors>)
  endif()
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
      set(box "")
      if(NOT source STREQUAL "solution" AND SCANLAB_UNTRUSTED_PREFIX)
        set(box "${SCANLAB_UNTRUSTED_PREFIX}")  # the student's program: in the read-only sandbox
      endif()
      add_test(NAME "${name}"
               COMMAND ${CMAKE_CROSSCOMPILING_EMULATOR} ${box} "${SCANLAB_COMPUTE_SANITIZER}" --tool ${tool} --error-exitcode 3
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
  # CHECK_ONLY (first after launch_file): cuda code the build only checks (scanlab_cuda_check_only).
  cmake_parse_arguments(K "CHECK_ONLY" "" "" ${ARGN})
  set(dirs ${K_UNPARSED_ARGUMENTS})
  set(include_dirs ${dirs} "${CMAKE_CURRENT_SOURCE_DIR}")
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
  set(generated "")
  if(backend STREQUAL "cpu")
    # The kernel folders as the host compiler takes them: a copy of each, made at build time by
    # cpu_sources.py, with `extern __shared__ T a[];` rewritten in place (C++ has no such declaration)
    # and a #line naming the original file first (messages and __FILE__ name the student's file and
    # line). The copies take the folders' place on the include path; the chapter's own host code
    # (CMAKE_CURRENT_SOURCE_DIR) is not copied.
    set(copied_dirs "")
    set(k 0)
    get_filename_component(launch_dir "${launch_path}" REALPATH)
    get_filename_component(launch_dir "${launch_dir}" DIRECTORY)
    foreach(dir IN LISTS dirs)
      file(GLOB files CONFIGURE_DEPENDS "${dir}/*.cuh" "${dir}/*.hpp" "${dir}/*.h")
      set(out "${CMAKE_CURRENT_BINARY_DIR}/cpu_sources/${target}/${k}")
      get_filename_component(real_dir "${dir}" REALPATH)
      if(real_dir STREQUAL launch_dir)
        # The launch file beside the kernels (the emulator's compatibility suite): its copy is
        # compiled, so that its #includes find the copies first.
        list(APPEND files "${launch_path}")
        get_filename_component(launch_name "${launch_path}" NAME)
        set(launch_path "${out}/${launch_name}")
      endif()
      set(copies "")
      foreach(file IN LISTS files)
        get_filename_component(name "${file}" NAME)
        list(APPEND copies "${out}/${name}")
      endforeach()
      if(files)
        add_custom_command(OUTPUT ${copies}
                           COMMAND "${SCANLAB_KERNEL_PYTHON3}" "${SCANLAB_CMAKE_DIR}/cpu_sources.py" "${out}" ${files}
                           DEPENDS ${files} "${SCANLAB_CMAKE_DIR}/cpu_sources.py" VERBATIM)
      endif()
      list(APPEND copied_dirs "${out}")
      list(APPEND generated ${copies})
      math(EXPR k "${k} + 1")
    endforeach()
    set(include_dirs ${copied_dirs} "${CMAKE_CURRENT_SOURCE_DIR}")
    list(REMOVE_ITEM generated "${launch_path}")
  endif()
  if(backend STREQUAL "cuda")
    set(source "${CMAKE_CURRENT_BINARY_DIR}/${target}.cu")
    file(CONFIGURE OUTPUT "${source}" CONTENT
         "// Generated by scanlab_kernel_library: ${launch_file} compiled by nvcc.\n#include \"${launch_path}\"\n")
    if(K_CHECK_ONLY AND SCANLAB_CUDA_CHECK_PTX)
      add_library(${target} OBJECT "${source}")  # nvcc's device pass alone: .ptx, linked by nothing
      set_target_properties(${target} PROPERTIES CUDA_PTX_COMPILATION ON)
    else()
      add_library(${target} SHARED "${source}")
    endif()
  else()
    # Between the anchors of the library's static shared memory, linked first and last
    # (common/emu/module/shared_first.cpp says why).
    add_library(${target} SHARED "${SCANLAB_CMAKE_DIR}/../emu/module/shared_first.cpp"
                                 "${SCANLAB_CMAKE_DIR}/../emu/module/shared_probe.cpp" "${launch_path}"
                                 "${SCANLAB_CMAKE_DIR}/../emu/module/shared_last.cpp" ${generated})
  endif()
  target_include_directories(${target} PRIVATE ${include_dirs})
  target_link_libraries(${target} PUBLIC scanlab::harness)
  get_property(given DIRECTORY PROPERTY SCANLAB_GIVEN_LIBRARY)  # the section's given code (GIVEN)
  if(given AND NOT target MATCHES "^${given}_")
    target_link_libraries(${target} PRIVATE ${given}_${backend})
  endif()
  string(TOUPPER "${backend}" backend_upper)
  target_compile_definitions(${target} PRIVATE SCANLAB_BACKEND_${backend_upper}=1)
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  if(backend STREQUAL "cuda")
    set_target_properties(${target} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
    if(K_CHECK_ONLY)
      scanlab_cuda_check_only(${target})
    endif()
  else()
    target_link_libraries(${target} PRIVATE scanlab_launcher_cpu scanlab::emu)
    target_compile_options(${target} PRIVATE ${SCANLAB_CPU_KERNEL_OPTIONS})
    # <cooperative_groups.h>, <cuda/atomic>, <cuda/std/atomic>: the emulator's versions (nvcc has its own).
    target_include_directories(${target} PRIVATE "${SCANLAB_EMU_CUDA_HEADERS}")
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
# extra barrier, ...). Its test ("<ID>.valid.<name>", label "valid") passes only if it earns full
# points: the grading tests all PASS on it, or the only ones that fail are feedback under grading.toml's
# rubric (expect_full_points.cmake). Together they prove the grader both ways.
#
# A patch is a unified diff against solutions/<DIR>/ (file names a/<file>, b/<file>), after a preamble:
# one line that says what the variant does, then for a mutant optionally one `EXPECT: <regex>` line
# and a `PROPERTY: <name>` line (the property of grading.toml's rubric it must fail), and a
# `SHRINKS: n <= <max>` line (issue 37's bars, checked on its report: expect_caught.cmake).
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

# A variant's kernel library is compiled without debug information and without optimization: it is
# built to be graded once, never debugged, and its tests spend their time in the emulator, not in the
# kernels, while its compilation is the largest part of the build (58 variants; 11.8's launch.cpp:
# 10.1 s at -O0, 19.0 s at -O1 on one quiet core; its two slowest mutants' tests 22 to 30 s at -O0
# against 18 to 26 s at -O1, within the noise of runs).
set(SCANLAB_VARIANT_OPTIONS "-O0;-g0" CACHE STRING
    "Compile options of the mutants' and valid variants' kernel libraries (after the build type's)")

# The cuda code that a build only compiles to check it, for other architectures than the rest: the
# exercise stubs' kernel libraries and the benchmark programs (chapters/11_8_decoupled_lookback/bench).
# The ci preset, where no GPU runs anything, sets 90-virtual: PTX only, no ptxas, which is a third of
# nvcc's time (11.8's kernel library: cicc 18.8 s, ptxas 12.9 s, the host compiler 11.4 s). The
# solutions' kernel libraries keep CMAKE_CUDA_ARCHITECTURES, so every kernel the lab gives, and its
# inline PTX, still goes through ptxas once. Empty: CMAKE_CUDA_ARCHITECTURES.
# SCANLAB_CUDA_CHECK_OPTIONS: nvcc options for that code; the ci preset gives -Xcicc -O0 (the device
# code unoptimized: cicc still parses and checks all of it, warnings included, in half the time: 11.8's
# exercise library 39.5 s against 19.7 s of CPU as PTX).
set(SCANLAB_CUDA_CHECK_ARCHITECTURES "" CACHE STRING
    "CUDA architectures of the cuda code built only to be checked: the exercises' kernel libraries, the benchmarks (empty: CMAKE_CUDA_ARCHITECTURES)")
set(SCANLAB_CUDA_CHECK_OPTIONS "" CACHE STRING
    "nvcc options of the cuda code built only to be checked (a list; the ci preset: -Xcicc;-O0)")
# SCANLAB_CUDA_CHECK_PTX (the ci preset): that code goes through nvcc's device pass alone (nvcc --ptx:
# the preprocessor and cicc, whose front end parses and checks the whole file, host code included,
# with warnings as errors), not its host pass (cudafe++, then the host compiler at -O2 over the
# generated code: most of nvcc's time there, on host code that g++ compiles anyway, with warnings as
# errors: launch.cpp in the solutions' cuda libraries, the stubs in their cpu libraries). CPU seconds, cold cache: the nine stubs' libraries 121.7 s compiled,
# 24.2 s as PTX (11.8's: 20.9 s and 6.5 s); the benchmarks' eight files 131.6 s and 54.0 s. Nothing
# can link PTX, so the exercises' programs and test programs are built with the cpu backend alone,
# and the benchmarks are object libraries with no program (their bad-input tests run where they are
# built for a GPU). Only for a build that runs no cuda code of the exercises or benchmarks: CI.
option(SCANLAB_CUDA_CHECK_PTX "Compile the cuda code built only to be checked to PTX alone, linking nothing (CI without a GPU)" OFF)
function(scanlab_cuda_check_only)
  if(SCANLAB_CUDA_CHECK_ARCHITECTURES)
    set_target_properties(${ARGN} PROPERTIES CUDA_ARCHITECTURES "${SCANLAB_CUDA_CHECK_ARCHITECTURES}")
  endif()
  foreach(target IN LISTS ARGN)
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:${SCANLAB_CUDA_CHECK_OPTIONS}>")
  endforeach()
endfunction()

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
                         "-DWATCHDOG=${SCANLAB_MUTANT_WATCHDOG_S}" "-DROOT=${PROJECT_SOURCE_DIR}"
                         "-DPYTHON=${SCANLAB_KERNEL_PYTHON3}"
                         -P "${SCANLAB_CMAKE_DIR}/expect_caught.cmake")
        set_tests_properties("${id}.mutant.${name}" PROPERTIES LABELS "mutant;${id};cpu" TIMEOUT ${SCANLAB_MUTANT_TIMEOUT})
      else()
        scanlab_expect_full_points(${id} ${name} ${test_exe})
      endif()
    endforeach()
  endforeach()
  # The open level (chapters/<dir>/open_level.txt, tools/scanlab_lab/levels.py): its stubs, made from
  # the solution, must build (warnings as the exercises') and score 0: every property of the rubric
  # fails ("<ID>.open.stub", label "open").
  set(spec "${PROJECT_SOURCE_DIR}/chapters/${dir}/open_level.txt")
  if(EXISTS "${spec}")
    set(out "${CMAKE_CURRENT_BINARY_DIR}/kernels/open_stub")
    set(sources "")
    foreach(file IN LISTS V_FILES)
      list(APPEND sources "${PROJECT_SOURCE_DIR}/solutions/${dir}/${file}")
    endforeach()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${spec}" ${sources}
                 "${PROJECT_SOURCE_DIR}/tools/scanlab_lab/levels.py")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${PROJECT_SOURCE_DIR}/tools"
                            "${SCANLAB_KERNEL_PYTHON3}" -m scanlab_lab open-level "${PROJECT_SOURCE_DIR}" ${dir}
                            "${out}" ${V_FILES}
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(SEND_ERROR "the open level of ${id} cannot be made: ${err}")
    endif()
    set(test_exe test_${us}_open_stub)
    cmake_language(CALL ${make_test} ${test_exe} "${out}" "the TODO(student) blocks of the open level" ${V_EXTRA})
    add_test(NAME "${id}.open.stub"
             COMMAND "${CMAKE_COMMAND}" "-DTEST_EXE=$<TARGET_FILE:${test_exe}>" "-DMUTANT=${id}/open_stub"
                     "-DTIMEOUT=${SCANLAB_MUTANT_TIMEOUT}" ${SCANLAB_EMULATOR_ARG}
                     "-DWATCHDOG=${SCANLAB_MUTANT_WATCHDOG_S}" "-DROOT=${PROJECT_SOURCE_DIR}"
                     "-DPYTHON=${SCANLAB_KERNEL_PYTHON3}" -DALL_PROPERTIES=ON
                     -P "${SCANLAB_CMAKE_DIR}/expect_caught.cmake")
    set_tests_properties("${id}.open.stub" PROPERTIES LABELS "open;${id};cpu" TIMEOUT ${SCANLAB_MUTANT_TIMEOUT})
  endif()
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

# --explain on a failing kernel (issue 37): the section program `section` (its folder `dir`) built on
# the kernel library of its mutant `mutant`, which it links itself (our own known-wrong kernel: no runner
# needed), must fail the case its arguments (ARGN) give, exit status 1, and print what the grader shows
# after it: stdout must match `expect` (the smallest failing case, the first step that differs).
function(scanlab_add_explain_cli_test section dir mutant expect)
  string(REPLACE "." "_" us "${section}")
  set(lib scanlab_${us}_mutant_${mutant}_cpu)
  if(NOT TARGET ${lib} OR NOT SCANLAB_BUILD_TESTS)
    return()
  endif()
  set(program scanlab_${us}_explain_${mutant})
  add_executable(${program} "${PROJECT_SOURCE_DIR}/chapters/${dir}/main.cpp")
  target_include_directories(${program} PRIVATE "${PROJECT_SOURCE_DIR}/chapters/${dir}")
  scanlab_link_kernels(${program} ${lib})
  string(JOIN "," args ${ARGN})
  add_test(NAME "${section}.cli.explain_${mutant}"
           COMMAND "${CMAKE_COMMAND}" "-DPROGRAM=$<TARGET_FILE:${program}>" "-DARGS=${args}" -DRC=1 -DEXPECT=
                   "-DSTDOUT=${expect}" ${SCANLAB_EMULATOR_ARG} -P "${SCANLAB_CMAKE_DIR}/expect_cli.cmake")
  set_tests_properties("${section}.cli.explain_${mutant}" PROPERTIES LABELS "cli;${section}" TIMEOUT 120)
endfunction()

# gtest_discover_tests with several labels. Its PROPERTIES argument cannot carry a list (only the first
# label would survive), so the labels are set by a second ctest include file that runs after the
# discovered tests are known (TEST_LIST names the variable that holds them). No test program runs a
# student's code in its own process: the checkers start it in a runner (scanlab/remote.hpp).
function(scanlab_discover_tests target)
  cmake_parse_arguments(D "" "PREFIX;TIMEOUT" "LABELS" ${ARGN})
  if(NOT D_TIMEOUT)
    set(D_TIMEOUT ${SCANLAB_TEST_TIMEOUT})
  endif()
  if(SCANLAB_GTEST_EMULATOR)
    set_property(TARGET ${target} PROPERTY CROSSCOMPILING_EMULATOR "${SCANLAB_GTEST_EMULATOR}")
  endif()
  # One emulator launch may take half the test's time (SCANLAB_EMU_LAUNCH_LIMIT_S, emu/wait_arrays.hpp):
  # past it, the launch fails saying what its blocks waited for, before ctest's timeout, which says nothing.
  math(EXPR launch_limit "${D_TIMEOUT} / 2")
  # TEST_PREFIX only with a prefix: CMake 3.31's GoogleTest module warns of an empty one.
  set(prefix "")
  if(D_PREFIX)
    set(prefix TEST_PREFIX "${D_PREFIX}")
  endif()
  gtest_discover_tests(${target} ${prefix} DISCOVERY_TIMEOUT 60 DISCOVERY_MODE POST_BUILD
                       TEST_LIST ${target}_tests PROPERTIES TIMEOUT ${D_TIMEOUT}
                       ENVIRONMENT "SCANLAB_EMU_LAUNCH_LIMIT_S=${launch_limit}")
  set(labels_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake")
  file(WRITE "${labels_file}"
       "if(${target}_tests)\n"
       "  set_tests_properties(\${${target}_tests} PROPERTIES LABELS \"${D_LABELS}\")\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_file}")
endfunction()

# The objects of a section's grading tests (`chapter`/tests.cpp) for one backend, compiled once and
# linked into every test program of that backend that grades the same kernels: `grades` is solution
# (every kernel of the section) or exercise (a student's kernels: the exercise's tests and every
# mutant's and valid variant's, SCANLAB_GRADES_EXERCISE). Nothing in them depends on the kernels,
# which live in the kernel library a test program links, nor on where the messages point the student
# (scanlab_source_hint). Sets `out_var` to the object library.
function(scanlab_section_test_objects out_var chapter backend grades)
  get_filename_component(dir "${chapter}" NAME)
  set(objects scanlab_${dir}_tests_${grades}_${backend})
  if(NOT TARGET ${objects})
    add_library(${objects} OBJECT "${chapter}/tests.cpp")
    target_include_directories(${objects} PRIVATE "${chapter}")
    target_link_libraries(${objects} PUBLIC scanlab::testing GTest::gtest)
    string(TOUPPER "${backend}" backend_upper)
    target_compile_definitions(${objects} PRIVATE SCANLAB_LINKED_${backend_upper}=1)
    if(grades STREQUAL "exercise")
      target_compile_definitions(${objects} PRIVATE SCANLAB_GRADES_EXERCISE=1)
    endif()
  endif()
  set(${out_var} ${objects} PARENT_SCOPE)
endfunction()

# Where the messages of test program `target` point the student (`hint`, read through
# scanlab::grading::source_hint, SCANLAB_SOURCE_HINT in a tests.cpp), and for a grading checker the
# runner it starts (`runner`: its path; scanlab::remote::runner_path): a short source of its own, so
# that the test objects it links are the same for every source and variant.
function(scanlab_source_hint target hint runner)
  set(file "${CMAKE_CURRENT_BINARY_DIR}/${target}_hint.cpp")
  set(strings "")
  foreach(text IN ITEMS hint runner SCANLAB_RUNNER_EMULATOR)
    set(value "${${text}}")
    string(REPLACE "\\" "\\\\" value "${value}")
    string(REPLACE "\"" "\\\"" value "${value}")
    list(APPEND strings "${value}")
  endforeach()
  list(GET strings 0 hint)
  list(GET strings 1 runner)
  list(GET strings 2 emulator)
  set(content "// Generated by scanlab_source_hint (common/cmake/scanlab.cmake); declared in scanlab/testing.hpp and\n// scanlab/remote.hpp, not included here: GoogleTest's headers would make this take seconds to compile, 88 times.\nnamespace scanlab::grading {\nextern const char source_hint[];\nconst char source_hint[] = \"${hint}\";\n}  // namespace scanlab::grading\nnamespace scanlab::remote {\nextern const char runner_path[], runner_emulator[];\nconst char runner_path[] = \"${runner}\";\nconst char runner_emulator[] = \"${emulator}\";\n}  // namespace scanlab::remote\n")
  # Written as it is (file(CONFIGURE) would replace an @x@ or ${x} in a student's folder name), and
  # only when it changed, so a reconfigure relinks nothing.
  set(old "")
  if(EXISTS "${file}")
    file(READ "${file}" old)
  endif()
  if(NOT old STREQUAL content)
    file(WRITE "${file}" "${content}")
  endif()
  target_sources(${target} PRIVATE "${file}")
endfunction()

# The objects of a section's remote.cpp for one backend, compiled once: its checker side (stand-ins
# for the kernel library's entry points) in `checker_var`, its runner side (the runner's main) in
# `runner_var` (scanlab/remote.hpp).
function(scanlab_section_remote_objects checker_var runner_var chapter backend)
  get_filename_component(dir "${chapter}" NAME)
  string(TOUPPER "${backend}" backend_upper)
  foreach(side IN ITEMS checker runner)
    set(objects scanlab_${dir}_${side}_${backend})
    if(NOT TARGET ${objects})
      add_library(${objects} OBJECT "${chapter}/remote.cpp")
      target_include_directories(${objects} PRIVATE "${chapter}")
      target_link_libraries(${objects} PUBLIC scanlab::remote)
      string(TOUPPER "${side}" side_upper)
      target_compile_definitions(${objects} PRIVATE SCANLAB_LINKED_${backend_upper}=1 SCANLAB_REMOTE_${side_upper}=1)
    endif()
    set(${${side}_var} ${objects} PARENT_SCOPE)
  endforeach()
endfunction()

# A section's grading-test program `test_exe`: the section's test objects for `grades` (solution or
# exercise; scanlab_section_test_objects) with the kernel library `lib`; its messages point the
# student at `hint`. The solution's tests link `lib` itself. A student's kernels (the exercise, every
# mutant and valid variant) run in a process of their own where the section has a remote.cpp: then
# `test_exe` is the checker, which links no kernel, and `test_exe`_runner the runner, built with it,
# which links `lib` (scanlab/remote.hpp says why).
function(scanlab_section_test test_exe chapter lib hint grades)
  string(REGEX MATCH "(cuda|cpu)$" backend "${lib}")
  scanlab_section_test_objects(objects "${chapter}" ${backend} ${grades})
  add_executable(${test_exe})
  target_link_libraries(${test_exe} PRIVATE ${objects} scanlab::testing GTest::gtest_main)
  if(grades STREQUAL "exercise" AND EXISTS "${chapter}/remote.cpp")
    scanlab_section_remote_objects(checker runner "${chapter}" ${backend})
    set(runner_exe ${test_exe}_runner)
    add_executable(${runner_exe})
    target_link_libraries(${runner_exe} PRIVATE ${runner})
    scanlab_link_kernels(${runner_exe} ${lib})
    target_link_libraries(${test_exe} PRIVATE ${checker})
    add_dependencies(${test_exe} ${runner_exe})
    scanlab_source_hint(${test_exe} "${hint}" "${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${runner_exe}${CMAKE_EXECUTABLE_SUFFIX}")
  else()
    scanlab_link_kernels(${test_exe} ${lib})
    scanlab_source_hint(${test_exe} "${hint}" "")
  endif()
endfunction()

# scanlab_add_variants' make_test for a kernel section: a cpu kernel library of the variant's kernels
# (with the section's other include folders), and the grading tests linked with it. A variant stands
# for a student's kernels, so it is graded as the exercise is: the kernels a section gives (11.8's
# persistent kernel), which no patch can reach, are not run.
function(scanlab_section_variant_test test_exe kernel_dir hint chapter)
  string(REGEX REPLACE "^test_" "scanlab_" lib "${test_exe}_cpu")
  scanlab_kernel_library(${lib} cpu "${chapter}/launch.cpp" "${kernel_dir}" ${ARGN})
  target_compile_options(${lib} PRIVATE ${SCANLAB_VARIANT_OPTIONS})
  scanlab_section_test(${test_exe} "${chapter}" ${lib} "${hint}" exercise)
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
    if(NOT SCANLAB_HAVE_SOLUTIONS)  # the student release: ./lab run runs the student's programs
      set_property(GLOBAL APPEND PROPERTY SCANLAB_PROGRAMS scanlab_${us}_exercise)
    endif()
    set(hint "the TODO(student) blocks in ${SCANLAB_EXERCISES_LABEL}/${dir}/" PARENT_SCOPE)
  endif()
endfunction()

# The given stand-ins (common/given/README.md) for a section that builds on other sections' solutions:
# sets, in the caller, `includes_var` to the folders `includes` with each solutions/<d> replaced by
# common/given/<d> (and common/given itself added, for given_scan.cuh), `given_var` to the stand-in of
# the section's GIVEN source `given` (common/given/<dir>/<given>) or "" when there is none, `gincludes_var`
# to `gincludes` without solution folders (a stand-in source needs none), and `note_var` to what the
# section's program says about them ("" when nothing is replaced). Every solutions/<d> a section builds on
# must have its stand-in: else the release would build the section on the student's own <d>.
function(scanlab_given_stand_ins includes_var given_var gincludes_var note_var dir given)
  cmake_parse_arguments(G "" "" "INCLUDES;GIVEN_INCLUDES" ${ARGN})
  set(root "${PROJECT_SOURCE_DIR}/common/given")
  set(includes "")
  set(replaced "")
  foreach(folder IN LISTS G_INCLUDES)
    if(folder MATCHES "^${PROJECT_SOURCE_DIR}/solutions/(.+)$")
      if(NOT IS_DIRECTORY "${root}/${CMAKE_MATCH_1}")
        message(FATAL_ERROR "section ${dir} builds on solutions/${CMAKE_MATCH_1}, which has no given stand-in "
                            "(common/given/${CMAKE_MATCH_1}/, common/given/README.md)")
      endif()
      list(APPEND includes "${root}/${CMAKE_MATCH_1}")
      file(GLOB files RELATIVE "${root}" "${root}/${CMAKE_MATCH_1}/*")
      list(APPEND replaced ${files})
    else()
      list(APPEND includes "${folder}")
    endif()
  endforeach()
  set(stand_in "")
  if(given AND EXISTS "${root}/${dir}/${given}")
    set(stand_in "${root}/${dir}/${given}")
    list(APPEND replaced "${dir}/${given}")
  endif()
  if(replaced)
    list(APPEND includes "${root}")
  endif()
  set(gincludes "")
  foreach(folder IN LISTS G_GIVEN_INCLUDES)
    if(NOT folder MATCHES "^${PROJECT_SOURCE_DIR}/solutions/")
      list(APPEND gincludes "${folder}")
    endif()
  endforeach()
  if(stand_in)
    list(APPEND gincludes "${root}")
  endif()
  set(note "")
  if(replaced)
    list(TRANSFORM replaced PREPEND "common/given/")
    string(JOIN ", " replaced ${replaced})
    set(note "on the given stand-ins ${replaced} (common/given/README.md): serial code, not the book's kernels, and the times and counts here are theirs")
  endif()
  set(${includes_var} "${includes}" PARENT_SCOPE)
  set(${given_var} "${stand_in}" PARENT_SCOPE)
  set(${gincludes_var} "${gincludes}" PARENT_SCOPE)
  set(${note_var} "${note}" PARENT_SCOPE)
endfunction()

# Test <id>.valid.<name>: the test program `test_exe` (a section's tests on a variant of its kernels)
# must earn full points (expect_full_points.cmake; label "valid"); an optional GoogleTest filter runs
# only some of its tests.
function(scanlab_expect_full_points id name test_exe)
  set(filter "")
  if(ARGN)
    set(filter "-DFILTER=${ARGN}")
  endif()
  add_test(NAME "${id}.valid.${name}"
           COMMAND "${CMAKE_COMMAND}" "-DTEST_EXE=$<TARGET_FILE:${test_exe}>" "-DVARIANT=${id}/${name}" ${filter}
                   "-DTIMEOUT=${SCANLAB_MUTANT_TIMEOUT}" ${SCANLAB_EMULATOR_ARG} "-DROOT=${PROJECT_SOURCE_DIR}"
                   "-DPYTHON=${SCANLAB_KERNEL_PYTHON3}" -P "${SCANLAB_CMAKE_DIR}/expect_full_points.cmake")
  set_tests_properties("${id}.valid.${name}" PROPERTIES LABELS "valid;${id};cpu" TIMEOUT ${SCANLAB_MUTANT_TIMEOUT})
endfunction()

function(scanlab_add_section)
  cmake_parse_arguments(S "IN_BLOCK;BENCH;OWN_OPTIONS" "ID;DIR;NAMESPACE;GIVEN;STAND_IN_TESTS"
                        "KERNELS;KERNEL_INCLUDES;GIVEN_INCLUDES;SANITIZE_ARGS" ${ARGN})
  string(REPLACE "." "_" id "${S_ID}")
  set(chapter "${CMAKE_CURRENT_SOURCE_DIR}")
  scanlab_given_stand_ins(given_includes given_source given_given_includes given_note ${S_DIR} "${S_GIVEN}"
                          INCLUDES ${S_KERNEL_INCLUDES} GIVEN_INCLUDES ${S_GIVEN_INCLUDES})
  set(given_file "${chapter}/${S_GIVEN}")
  set(note "")
  if(NOT SCANLAB_HAVE_SOLUTIONS OR NOT SCANLAB_BUILD_SOLUTIONS)
    # A build of the exercises alone (the student release; ./lab grade's, --class's and Gradescope's
    # grade preset): what the section builds on is the given stand-ins, never the solutions nor the
    # student's own other sections, so that its points depend on its own code alone, the same points
    # everywhere, and no student code is compiled against a solution's source (common/given/README.md).
    set(S_KERNEL_INCLUDES ${given_includes})
    if(given_source)
      set(given_file "${given_source}")
      set(S_GIVEN_INCLUDES ${given_given_includes})
    endif()
    if(given_note)
      set(note "note: this build makes section ${S_ID} ${given_note}")
    endif()
  endif()
  if(S_GIVEN)  # (scanlab_kernel_library links it into the section's other kernel libraries)
    foreach(backend IN LISTS SCANLAB_BACKENDS)
      scanlab_kernel_library(scanlab_${id}_given_${backend} ${backend} "${given_file}" ${S_GIVEN_INCLUDES})
    endforeach()
    set_property(DIRECTORY PROPERTY SCANLAB_GIVEN_LIBRARY scanlab_${id}_given)
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
      set(check_only "")
      if(backend STREQUAL "cuda" AND source STREQUAL "exercise")
        set(check_only CHECK_ONLY)
      endif()
      scanlab_kernel_library(${lib} ${backend} "${chapter}/launch.cpp" ${check_only} "${kernel_dir}" ${S_KERNEL_INCLUDES})
      list(APPEND student_targets ${lib})
      if(check_only AND SCANLAB_CUDA_CHECK_PTX)
        # PTX links into nothing: the exercise's program and test programs have the cpu backend alone.
        # The host code of their cuda side is still compiled: the grading tests and the checker's and
        # runner's sides of remote.cpp (object libraries; the solution's cuda tests link their like).
        if(SCANLAB_BUILD_TESTS AND EXISTS "${chapter}/tests.cpp")
          scanlab_section_test_objects(objects "${chapter}" cuda exercise)
          list(APPEND student_targets ${objects})
          if(EXISTS "${chapter}/remote.cpp")
            scanlab_section_remote_objects(checker runner "${chapter}" cuda)
          endif()
        endif()
        continue()
      endif()
      list(APPEND libs ${lib})

      if(SCANLAB_BUILD_TESTS AND EXISTS "${chapter}/tests.cpp")
        set(test_exe test_${id}_${source}_${backend})
        # The exercise's tests grade a student's kernels: the kernels a section gives
        # (Algorithm::given) are not graded.
        scanlab_section_test(${test_exe} "${chapter}" ${lib} "${hint}" ${source})
        if(source STREQUAL "exercise")
          list(APPEND student_targets scanlab_${S_DIR}_tests_exercise_${backend})
        endif()
        scanlab_discover_tests(${test_exe} PREFIX "${S_ID}.${source}.${backend}."
                               LABELS ${S_ID} ${backend} ${source})
        list(APPEND student_targets ${test_exe})
      endif()
    endforeach()

    add_executable(${program} "${chapter}/main.cpp")
    target_include_directories(${program} PRIVATE "${chapter}")
    if(note)  # the program says what it is built on (scanlab/program.hpp, SectionInfo::given; no ";" in it)
      target_compile_definitions(${program} PRIVATE "SCANLAB_GIVEN_NOTE=\"${note}\"")
    endif()
    scanlab_link_kernels(${program} ${libs})
    if(source STREQUAL "exercise")
      scanlab_student_code(${student_targets} ${program})
    endif()
    if(SCANLAB_BUILD_TESTS AND source STREQUAL "solution" AND SCANLAB_HAVE_CPU AND NOT S_OWN_OPTIONS)
      scanlab_add_cli_tests(${program} ${S_ID} ${S_IN_BLOCK})
    endif()
    if(SCANLAB_BUILD_TESTS AND (source STREQUAL "solution" OR NOT SCANLAB_BUILD_SOLUTIONS)
       AND NOT (source STREQUAL "exercise" AND SCANLAB_CUDA_CHECK_PTX))  # (no cuda in that program)
      scanlab_add_sanitizer_tests(${program} ${S_ID} ${source} ${S_SANITIZE_ARGS})
      if(source STREQUAL "exercise" AND TARGET test_${id}_exercise_cuda AND SCANLAB_COMPUTE_SANITIZER)
        add_dependencies(test_${id}_exercise_cuda ${program})  # ./lab grade builds the test programs
      endif()
    endif()
  endforeach()

  # Mutants and valid variants (see above): the solution with a patch applied, cpu backend.
  if(SCANLAB_BUILD_MUTANTS AND SCANLAB_BUILD_TESTS AND SCANLAB_HAVE_CPU AND EXISTS "${chapter}/tests.cpp")
    scanlab_add_variants(${S_ID} ${S_DIR} scanlab_section_variant_test FILES ${S_KERNELS}
                         EXTRA "${chapter}" ${S_KERNEL_INCLUDES})
    # The given stand-ins the student release builds this section on, proven here: the section's
    # solution built on them, graded as a student's kernels, must earn full points (label "valid").
    if(given_note)
      set(test_exe test_${id}_valid_given_stand_ins)
      if(given_source)  # a given library of the stand-in, linked instead of the section's own
        get_property(own_given DIRECTORY PROPERTY SCANLAB_GIVEN_LIBRARY)
        scanlab_kernel_library(scanlab_${id}_stand_in_cpu cpu "${given_source}" ${given_given_includes})
        target_compile_options(scanlab_${id}_stand_in_cpu PRIVATE ${SCANLAB_VARIANT_OPTIONS})
        set_property(DIRECTORY PROPERTY SCANLAB_GIVEN_LIBRARY scanlab_${id}_stand_in)
      endif()
      scanlab_section_variant_test(${test_exe} "${PROJECT_SOURCE_DIR}/solutions/${S_DIR}" "given stand-ins"
                                   "${chapter}" ${given_includes})
      if(given_source)
        set_property(DIRECTORY PROPERTY SCANLAB_GIVEN_LIBRARY ${own_given})
      endif()
      scanlab_expect_full_points(${S_ID} given_stand_ins ${test_exe})
    endif()
    # STAND_IN_TESTS: this section's stand-in (common/given/<DIR>), graded by those of its own tests as a
    # student's kernels, must earn full points: the part of its contract the sections built on it do
    # not reach (11.8's look-back past tiles that published only their aggregate).
    if(S_STAND_IN_TESTS)
      scanlab_section_variant_test(test_${id}_valid_stand_in "${PROJECT_SOURCE_DIR}/common/given/${S_DIR}"
                                   "the given stand-in" "${chapter}" ${S_KERNEL_INCLUDES} "${PROJECT_SOURCE_DIR}/common/given")
      scanlab_expect_full_points(${S_ID} stand_in test_${id}_valid_stand_in "${S_STAND_IN_TESTS}")
    endif()
  endif()
endfunction()
