# Cross-building flightrec for aarch64 Linux with clang, against Debian's aarch64 cross
# toolchain (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross: crt files, libgcc, libstdc++)
# and the arm64 libraries of a multiarch install (libelf-dev:arm64 libdw-dev:arm64
# zlib1g-dev:arm64 libcmocka-dev:arm64; scripts/test-aarch64.sh installs them).
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# Programs built this way run here under qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR,
# which ctest prefixes to every test whose command is a built program).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(FR_CROSS_TRIPLE aarch64-linux-gnu)

set(CMAKE_C_COMPILER clang)
set(CMAKE_CXX_COMPILER clang++)
set(CMAKE_ASM_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET ${FR_CROSS_TRIPLE})
set(CMAKE_CXX_COMPILER_TARGET ${FR_CROSS_TRIPLE})
set(CMAKE_ASM_COMPILER_TARGET ${FR_CROSS_TRIPLE})
# clang finds Debian's cross gcc installation (/usr/lib/gcc-cross/aarch64-linux-gnu) and
# its sysroot layout (/usr/aarch64-linux-gnu) by the triple; the linker is the cross ld.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=/usr/bin/${FR_CROSS_TRIPLE}-ld")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=/usr/bin/${FR_CROSS_TRIPLE}-ld")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-fuse-ld=/usr/bin/${FR_CROSS_TRIPLE}-ld")

# Libraries and headers: the cross sysroot and the multiarch arm64 directories only.
set(CMAKE_FIND_ROOT_PATH /usr/${FR_CROSS_TRIPLE})
set(CMAKE_LIBRARY_ARCHITECTURE ${FR_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu)

# The emulator takes the dynamic loader and libraries at their own paths: the arm64
# libraries above bring Debian's libc6:arm64, and its libc must be loaded by its own
# ld.so. (With `-L /usr/aarch64-linux-gnu` qemu takes the cross package's ld.so, which then
# finds libc6:arm64's libc.so.6 of another build in /lib/aarch64-linux-gnu: every
# pthread_create and fork then hangs.) Without libc6:arm64 the cross sysroot is used.
find_program(FR_QEMU_AARCH64 qemu-aarch64)
if(FR_QEMU_AARCH64 AND EXISTS /lib/ld-linux-aarch64.so.1)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${FR_QEMU_AARCH64})
elseif(FR_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${FR_QEMU_AARCH64} -L /usr/${FR_CROSS_TRIPLE})
endif()
