# The CUDA compatibility suite (this folder): the same kernels built as a kernel library of each
# backend the build has (cuda where it has nvcc: so nvcc compiles them too; cpu where it has the
# emulator), run by one test program on every backend it links (the cuda one skipped without a GPU).
# Included by common/CMakeLists.txt in every build with tests, also a cuda-only one (a GPU machine
# without Boost: -DSCANLAB_BACKENDS=cuda), so both sides can run where the GPU is.
set(compat_dir "${CMAKE_CURRENT_LIST_DIR}")
set(compat_libs "")
if(SCANLAB_HAVE_CPU)
  scanlab_kernel_library(scanlab_emu_compat_cpu cpu "${compat_dir}/launch.cpp" "${compat_dir}")
  list(APPEND compat_libs scanlab_emu_compat_cpu)
endif()
if(SCANLAB_HAVE_CUDA)
  scanlab_kernel_library(scanlab_emu_compat_cuda cuda "${compat_dir}/launch.cpp" "${compat_dir}")
  list(APPEND compat_libs scanlab_emu_compat_cuda)
endif()
add_executable(scanlab_emu_compat_tests "${compat_dir}/test_compat.cpp")
target_link_libraries(scanlab_emu_compat_tests PRIVATE scanlab::harness GTest::gtest_main)
scanlab_link_kernels(scanlab_emu_compat_tests ${compat_libs})
scanlab_discover_tests(scanlab_emu_compat_tests LABELS emulator cpu TIMEOUT 120)

if(SCANLAB_HAVE_CPU)
  # What the cpu backend cannot compile: its build error must name the construct. The host compiler
  # checks each file's syntax with a cpu kernel library's definitions and include path.
  separate_arguments(compat_cxx_flags UNIX_COMMAND "${CMAKE_CXX_FLAGS}")
  set(compat_syntax_check ${CMAKE_CXX_COMPILER} ${compat_cxx_flags} -std=c++20 -fsyntax-only -DSCANLAB_BACKEND_CPU=1
      -I "${PROJECT_SOURCE_DIR}/common/include" -I "${SCANLAB_EMU_CUDA_HEADERS}")
  # `extern __shared__` left in place (see the shim's __shared__).
  add_test(NAME EmuCompat.extern_shared_build_error COMMAND ${compat_syntax_check} "${compat_dir}/extern_shared.cpp")
  set_tests_properties(EmuCompat.extern_shared_build_error PROPERTIES LABELS "emulator;cpu" TIMEOUT 60
    PASS_REGULAR_EXPRESSION "extern_shared_is_not_supported_on_the_cpu_backend_use_scanlab_dynamic_shared")
  # The parts of cooperative_groups that common/emu/cuda_headers/ does not have (unsupported.cpp,
  # one construct per value of SCANLAB_COMPAT_CONSTRUCT): each message names the construct.
  foreach(case IN ITEMS "1;this_grid;cg::this_grid\\(\\) \\(grid groups, grid.sync\\(\\)\\) is not supported"
                        "2;large_tile;tiles of more than 32 threads \\(tiled_partition<64> and larger\\) are not supported"
                        "3;reduce_block;cg::reduce / cg::inclusive_scan / cg::exclusive_scan take a thread_block_tile")
    list(GET case 0 number)
    list(GET case 1 name)
    list(GET case 2 message)
    add_test(NAME EmuCompat.cooperative_groups_build_error.${name}
             COMMAND ${compat_syntax_check} -DSCANLAB_COMPAT_CONSTRUCT=${number} "${compat_dir}/unsupported.cpp")
    set_tests_properties(EmuCompat.cooperative_groups_build_error.${name} PROPERTIES LABELS "emulator;cpu" TIMEOUT 60
      PASS_REGULAR_EXPRESSION "${message}")
  endforeach()
endif()
