# Cross-compiles for arm64 Linux with Debian's cross compiler (g++-aarch64-linux-gnu), with the arm64
# libraries from Debian's multiarch packages (libboost-context-dev:arm64, libgtest-dev:arm64 in
# /usr/lib/aarch64-linux-gnu; the header-only CLI11 and nlohmann-json from the host's /usr/include).
# Tests run under qemu-user: ctest and gtest_discover_tests put CMAKE_CROSSCOMPILING_EMULATOR in
# front of every test program. `tools/setup.sh --arm64` lists the packages; the preset `arm64-qemu`
# and tools/portable/arm64.sh use this file.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(_triple aarch64-linux-gnu)

set(CMAKE_C_COMPILER ${_triple}-gcc)
set(CMAKE_CXX_COMPILER ${_triple}-g++)

# qemu's -L: where the arm64 dynamic loader and libc are. Debian's multiarch libc6:arm64 (installed
# with the arm64 libraries) is in /lib/aarch64-linux-gnu: then -L /, so that the loader and libc come
# from the same package (the cross compiler's older loader in /usr/aarch64-linux-gnu with the
# multiarch libc hangs in pthread_create).
find_program(SCANLAB_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(NOT SCANLAB_QEMU_AARCH64)
  message(FATAL_ERROR "qemu-aarch64 was not found: install qemu-user (tools/setup.sh --arm64 lists "
                      "every package the arm64 build needs)")
endif()
set(_sysroot /usr/${_triple})
if(EXISTS /lib/ld-linux-aarch64.so.1)
  set(_sysroot /)
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR "${SCANLAB_QEMU_AARCH64};-L;${_sysroot}")

# Libraries and headers: the target's only (the cross compiler's own folder and the multiarch
# folders under /); programs (patch, python3, doxygen): the host's.
set(CMAKE_FIND_ROOT_PATH /usr/${_triple})
set(CMAKE_LIBRARY_ARCHITECTURE ${_triple})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
